#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# The packaged systemd unit, as `cmake --install --prefix /usr` (the .deb's
# prefix) installs it:
# - `systemd-analyze verify` accepts it, alone and with the drop-in for a
#   --metrics-file (streamt-metrics-file.conf, installed as documentation),
#   without a warning;
# - `systemd-analyze security --offline=true` rates it 3.0 or lower (OK).
# The install goes into a temporary tree, which systemd-analyze reads as the
# root (--root=): there it finds the unit, the drop-in and ExecStart's
# binary. The check of the rating is itself checked: the unit without its
# sandbox must rate above 3.0. Needs STREAMT_BUILD_DIR (set by ctest;
# `streamt` and `streamt_man` built) and systemd-analyze (Debian's systemd
# package; tools/setup's test set installs it).
set -euo pipefail
: "${STREAMT_BUILD_DIR:?set by ctest}"
limit=3.0
command -v systemd-analyze >/dev/null ||
  { echo "FAIL: no systemd-analyze (Debian's systemd package: tools/setup test installs it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/root"
DESTDIR="$root" cmake --install "$STREAMT_BUILD_DIR" --prefix /usr --component runtime >"$work/install.log" ||
  { cat "$work/install.log" >&2; echo "FAIL: cmake --install --prefix /usr" >&2; exit 1; }
units="$root/usr/lib/systemd/system"
for f in "$units/streamt@.service" "$root/usr/share/doc/streamt/streamt-metrics-file.conf" "$root/usr/bin/streamt"; do
  [[ -f $f ]] || { echo "FAIL: no ${f#"$root"} after cmake --install" >&2; exit 1; }
done
failed=0
fail() { echo "FAIL: $1" >&2; failed=$((failed + 1)); }

# verify WHAT UNIT: systemd-analyze verify finds nothing to say. The tree
# holds no sysinit.target and the like, so only UNIT itself is checked
# (--recursive-errors=no); the man page it names is package_completion_and_man's
# business (--man=no: man need not be installed).
verify() {
  local rc=0
  systemd-analyze verify --root="$root" --man=no --recursive-errors=no "$2" >"$work/verify.log" 2>&1 || rc=$?
  if ((rc == 0)) && [[ ! -s $work/verify.log ]]; then
    echo "ok: systemd-analyze verify accepts $1"
  else
    cat "$work/verify.log" >&2
    fail "systemd-analyze verify on $1: exit $rc, the messages above"
  fi
}

# exposure UNIT: the overall exposure systemd-analyze security rates UNIT
# with (e.g. 1.1); its report is left in $work/security.log.
exposure() {
  systemd-analyze security --offline=true --root="$root" "$1" >"$work/security.log" 2>&1 ||
    { cat "$work/security.log" >&2; echo "FAIL: systemd-analyze security $1" >&2; exit 1; }
  local figure
  figure=$(sed -n 's/^.*Overall exposure level for [^:]*: \([0-9][0-9]*\.[0-9]\).*$/\1/p' "$work/security.log")
  [[ -n $figure ]] ||
    { cat "$work/security.log" >&2; echo "FAIL: no overall exposure level in the report above" >&2; exit 1; }
  echo "$figure"
}
above_limit() { awk -v x="$1" -v limit="$limit" 'BEGIN { exit !(x > limit) }'; }

verify "the unit (instance orders)" streamt@orders.service
figure=$(exposure streamt@orders.service)
if above_limit "$figure"; then
  grep '✗' "$work/security.log" >&2 || true
  fail "systemd-analyze security rates streamt@orders.service $figure, above $limit (the settings it counts against the unit above)"
else
  echo "ok: systemd-analyze security rates streamt@orders.service $figure (limit $limit)"
fi

# With the drop-in in place, as docs/operations.md says to install it. That
# systemd read it shows in the rating's list (supplementary groups).
dropins="$root/etc/systemd/system/streamt@metrics.service.d"
mkdir -p "$dropins"
cp "$root/usr/share/doc/streamt/streamt-metrics-file.conf" "$dropins/metrics-file.conf"
verify "the unit with the drop-in streamt-metrics-file.conf (instance metrics)" streamt@metrics.service
figure=$(exposure streamt@metrics.service)
if grep -q '✗ SupplementaryGroups=' "$work/security.log"; then
  echo "ok: the drop-in is in effect (SupplementaryGroups=); with it the rating is $figure"
else
  fail "the drop-in did not take effect: systemd-analyze security lists no SupplementaryGroups= for streamt@metrics.service"
fi
above_limit "$figure" && fail "with the drop-in the rating is $figure, above $limit"

# The check can fail: the unit without its sandbox (the lines from the
# comment that starts it to UMask=) rates above the limit.
sed '/^# The sandbox:/,/^UMask=/d' "$units/streamt@.service" >"$units/streamt-bare@.service"
cmp -s "$units/streamt@.service" "$units/streamt-bare@.service" &&
  fail "no '# The sandbox:' ... 'UMask=' block in the unit to take out"
figure=$(exposure streamt-bare@orders.service)
if above_limit "$figure"; then
  echo "ok: without its sandbox the unit rates $figure, which the check refuses"
else
  fail "without its sandbox the unit rates $figure, not above $limit: the check cannot fail"
fi

((failed == 0)) || { echo "$failed check(s) failed" >&2; exit 1; }
