#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Every source file carries the project's SPDX license header:
#   // SPDX-License-Identifier: Apache-2.0   line 1 of C, C++ and Java files
#   # SPDX-License-Identifier: Apache-2.0    line 1 of shell, Python and CMake
#                                            files, after a #! line (and, in
#                                            Python, a coding line) if any
# Source files: *.cpp *.hpp *.c *.java *.sh *.py *.cmake *.cmake.in
# CMakeLists.txt *.bash-completion, and executable files starting with #!.
# Data (JSON, SQL, fuzz corpora, test cases) and Markdown carry none.
# The files are git's tracked files in a git checkout, else all files under
# the source tree (less build directories). Usage: spdx_headers.sh [ROOT]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
root=$(cd "$root" && pwd -P)
license='SPDX-License-Identifier: Apache-2.0'

# The tree's files, relative to root, one a line.
if [[ $(git -C "$root" rev-parse --show-toplevel 2>/dev/null || true) -ef $root ]]; then
  echo "files: git ls-files in $root"
  list_files() { git -C "$root" ls-files; }
else
  echo "files: find in $root (not a git checkout)"
  list_files() {
    (cd "$root" && find . \( -name .git -o -path './build*' -o -name __pycache__ -o -path ./.cache \
      -o -path ./out -o -path ./bench/kstreams/target \) -prune -o -type f -print | sed 's|^\./||' | sort)
  }
fi

# marker_of FILE: the comment marker its header uses, or nothing when it is
# not a source file.
marker_of() {
  case $1 in
    test/fuzz/corpus/* | test/fuzz/regressions/*) return ;;
    *.cpp | *.hpp | *.c | *.java) echo '//' ;;
    *.sh | *.py | *.cmake | *.cmake.in | CMakeLists.txt | */CMakeLists.txt | *.bash-completion) echo '#' ;;
    *) if [[ -x $root/$1 ]] && [[ $(head -c 2 "$root/$1") == '#!' ]]; then echo '#'; fi ;;
  esac
}

checked=0 failed=0
while IFS= read -r file; do
  [[ -f $root/$file && ! -L $root/$file ]] || continue
  marker=$(marker_of "$file")
  [[ -n $marker ]] || continue
  checked=$((checked + 1))
  # The header's line: the first, past a #! line and a Python coding line.
  python=0
  [[ $file == *.py || $(head -n 1 "$root/$file") == '#!'*python* ]] && python=1
  header=$(awk -v python=$python 'NR == 1 && /^#!/ { next }
                                  python && NR <= 2 && /^#.*coding[:=]/ { next }
                                  { print; exit }' "$root/$file")
  if [[ $header != "$marker $license" ]]; then
    echo "FAIL: $file: no '$marker $license' header (found: '${header:0:60}')" >&2
    failed=$((failed + 1))
  fi
done < <(list_files)

if ((checked == 0)); then
  echo "FAIL: no source files found under $root" >&2
  exit 1
fi
echo "$checked source files checked, $failed without the header"
((failed == 0))
