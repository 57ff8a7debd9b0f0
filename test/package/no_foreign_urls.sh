#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# No file of the repository writes an address outside this machine: packages
# come through the registries' own clients (apt-get, mvn, npm pack), pinned and
# checked against sums kept here, so no script needs a registry's address, and
# tests only ever reach loopback. Fails on any http(s) address whose host is
# not loopback, unless it is one of the documentation pages or XML namespaces
# below, which nothing fetches.
#
#   test/package/no_foreign_urls.sh [SOURCE_DIR]
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)

# Identifiers, not fetch addresses; each must stand in the tree as written.
allowed=(
  'https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' # DEP-5's Format: line (tools/package/copyright)
  'http://maven.apache.org/POM/4.0.0'                                 # the POM's XML namespace
  'http://www.w3.org/2001/XMLSchema-instance'                         # XML Schema's namespace
  'https://maven.apache.org/xsd/maven-4.0.0.xsd'                      # the POM's schema location
  'http://www.apache.org/licenses/'                                   # the Apache License's own text (LICENSE)
  'http://www.apache.org/licenses/LICENSE-2.0'                        # the same
)

cd "$src"
if [[ -d .git || -f .git ]] && git rev-parse --show-toplevel >/dev/null 2>&1 &&
  [[ $(git rev-parse --show-toplevel) == "$src" ]]; then
  list() { git ls-files -z; }
  echo "files: git ls-files in $src"
else
  list() { find . -type f -not -path './.git/*' -not -path './build*' -print0 | sed -z 's|^\./||'; }
  echo "files: find in $src"
fi

bad=0 seen=0
while IFS= read -r -d '' f; do
  [[ -f $f ]] || continue
  seen=$((seen + 1))
  # -I skips binary files. The host is what follows the scheme up to a port,
  # path or the end of the name; placeholders (HOST, ADDRESS) have no dot.
  while IFS= read -r hit; do
    line=${hit%%:*}
    url=${hit#*:}
    host=${url#*://}
    host=${host%%[/:]*}
    case $host in
      127.* | localhost | '' | *[!A-Za-z0-9.-]*) continue ;;
    esac
    [[ $host == *.* ]] || continue
    ok=0
    for a in "${allowed[@]}"; do [[ $url == "$a" ]] && ok=1; done
    if ((!ok)); then
      echo "$f:$line: address outside this machine: $url" >&2
      bad=$((bad + 1))
    fi
  done < <(grep -I -n -o -E 'https?://[][A-Za-z0-9._~%:@-]*[^][:space:]"'"'"'<>`()\\,;*]*' "$f" 2>/dev/null |
    sed -E 's/[.]+$//' || true)
done < <(list)

((seen > 0)) || { echo "no files found under $src" >&2; exit 1; }
echo "$seen files checked, $bad addresses outside this machine"
((bad == 0)) || {
  echo "fetch packages with the registry's own client (apt-get, mvn, npm pack) and keep their sums here; never write a registry's or another host's address" >&2
  exit 1
}
