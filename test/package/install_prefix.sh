#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# The installed systemd unit and environment file example name the paths of
# the prefix they are installed to, whatever prefix the build was configured
# with: `cmake --install --prefix P` overrides it at install time.
#   P (any)        P/bin/streamt, P/etc/streamt/   (/usr/local: /usr/local/etc)
#   /usr           /usr/bin/streamt, /etc/streamt/
#   /opt/streamt   /opt/streamt/bin/streamt, /etc/opt/streamt/streamt/
# and the .deb (CPack, prefix /usr) /usr/bin/streamt and /etc/streamt/.
# The state directory is /var/lib/streamt/NAME under any prefix (systemd's
# StateDirectory=). Needs STREAMT_BUILD_DIR (set by ctest; `streamt` and
# `streamt_man` built); the .deb part needs cpack and dpkg-deb, and is skipped
# without them.
set -euo pipefail
: "${STREAMT_BUILD_DIR:?set by ctest}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1" >&2; failed=$((failed + 1)); }

# expect TREE PREFIX BINDIR SYSCONFDIR WHAT: the unit and the example under
# TREE/PREFIX name BINDIR/streamt and SYSCONFDIR/streamt/.
expect() {
  local tree=$1 prefix=$2 bindir=$3 etc=$4 what=$5
  local unit="$tree$prefix/lib/systemd/system/streamt@.service"
  local example="$tree$prefix/share/doc/streamt/streamt.env.example"
  [[ -f $unit ]] || { bad "$what: no $unit"; return; }
  [[ -f $example ]] || { bad "$what: no $example"; return; }
  local want_exec="ExecStart=$bindir/streamt run $etc/streamt/%i.plan.json --bootstrap-servers \${STREAMT_BOOTSTRAP_SERVERS} --state-dir /var/lib/streamt/%i --config %d/properties \$STREAMT_ARGS"
  local got_exec
  got_exec=$(grep '^ExecStart=' "$unit" || true)
  if [[ $got_exec == "$want_exec" ]]; then ok "$what: $got_exec"; else bad "$what: '$got_exec', expected '$want_exec'"; fi
  [[ -x $tree$bindir/streamt ]] && ok "$what: the binary is at $bindir/streamt" ||
    bad "$what: ExecStart names $bindir/streamt, which the install did not put there"
  local line
  for line in "EnvironmentFile=$etc/streamt/%i.env" "LoadCredential=properties:$etc/streamt/%i.properties" \
    "StateDirectory=streamt/%i"; do
    grep -qxF "$line" "$unit" && ok "$what: $line" || bad "$what: the unit has no line '$line'"
  done
  if grep -q '@[A-Z_]*@' "$unit" "$example"; then
    bad "$what: a placeholder is left: $(grep -h '@[A-Z_]*@' "$unit" "$example" | head -1)"
  fi
  # Any other absolute path of the prefix's kind (etc, bin) is the prefix's.
  if grep -E '(^|[ =:])/(usr/)?(etc|bin)/' "$unit" "$example" | grep -vqF -e "$etc/" -e "$bindir/"; then
    bad "$what: a path outside $bindir and $etc: $(grep -hE '(^|[ =:])/(usr/)?(etc|bin)/' "$unit" "$example" | grep -vF -e "$etc/" -e "$bindir/" | head -1)"
  fi
  grep -qF "# $etc/streamt/NAME.env for streamt@NAME.service" "$example" &&
    ok "$what: the example names $etc/streamt/NAME.env" ||
    bad "$what: the example does not name $etc/streamt/NAME.env: $(grep -v '^# SPDX-' "$example" | head -1)"
}

install_to() { # DESTDIR PREFIX
  DESTDIR=$1 cmake --install "$STREAMT_BUILD_DIR" --prefix "$2" --component runtime >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; bad "cmake --install --prefix $2 failed"; return 1; }
}

p="$work/prefix"
install_to "" "$p" && expect "" "$p" "$p/bin" "$p/etc" "--prefix $p"
install_to "$work/usr-local" /usr/local && expect "$work/usr-local" /usr/local /usr/local/bin /usr/local/etc "--prefix /usr/local"
install_to "$work/usr" /usr && expect "$work/usr" /usr /usr/bin /etc "--prefix /usr"
install_to "$work/opt" /opt/streamt && expect "$work/opt" /opt/streamt /opt/streamt/bin /etc/opt/streamt "--prefix /opt/streamt"

# The .deb: only the runtime package, into a directory of its own.
if command -v cpack >/dev/null && command -v dpkg-deb >/dev/null; then
  if (cd "$work" && cpack -G DEB --config "$STREAMT_BUILD_DIR/CPackConfig.cmake" -B "$work/deb" \
    -D CPACK_COMPONENTS_ALL=runtime >"$work/cpack.log" 2>&1); then
    debs=("$work"/deb/streamt_*.deb)
    if [[ -f ${debs[0]} ]]; then
      dpkg-deb -x "${debs[0]}" "$work/deb-tree"
      expect "$work/deb-tree" /usr /usr/bin /etc "the .deb"
    else
      bad "cpack wrote no streamt_*.deb: $(ls "$work/deb")"
    fi
  else
    cat "$work/cpack.log" >&2
    bad "cpack -G DEB failed"
  fi
else
  echo "skipped: the .deb (no cpack or dpkg-deb)"
fi

echo "$passed passed, $failed failed"
((failed == 0))
