#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# The systemd unit docs/operations.md shows is the packaged one, word for word:
# tools/package/streamt@.service as `cmake --install --prefix /usr` (the
# prefix of the .deb) installs it, with /usr/bin and /etc filled in. Lines
# starting "# SPDX-" (license headers) are not compared. Needs
# STREAMT_BUILD_DIR (set by ctest; `streamt` and `streamt_man` built).
# STREAMT_DOCS_ROOT may point at another tree whose docs to check (the test's
# own check that it can fail uses it).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
docs_root=${STREAMT_DOCS_ROOT:-$root}
: "${STREAMT_BUILD_DIR:?set by ctest}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

DESTDIR="$work/destdir" cmake --install "$STREAMT_BUILD_DIR" --prefix /usr --component runtime >"$work/install.log" ||
  { cat "$work/install.log" >&2; echo "FAIL: cmake --install --prefix /usr" >&2; exit 1; }
installed="$work/destdir/usr/lib/systemd/system/streamt@.service"
[[ -f $installed ]] || { echo "FAIL: no $installed after cmake --install" >&2; exit 1; }

# The ```ini block after the comment that names this script.
awk '/documented_unit\.sh/ { marked = 1; next }
     marked && !inside && /^```ini$/ { inside = 1; next }
     inside && /^```$/ { exit }
     inside { print }' "$docs_root/docs/operations.md" >"$work/documented"
[[ -s $work/documented ]] ||
  { echo "FAIL: docs/operations.md has no \`\`\`ini block after a comment naming documented_unit.sh" >&2; exit 1; }
grep -v '^# SPDX-' "$installed" >"$work/packaged"
if diff -u --label "packaged unit (prefix /usr)" --label "docs/operations.md" "$work/packaged" "$work/documented"; then
  echo "ok: docs/operations.md shows the packaged streamt@.service ($(wc -l <"$work/packaged") lines)"
else
  echo "FAIL: the unit in docs/operations.md differs from tools/package/streamt@.service installed with the prefix /usr (diff above)" >&2
  exit 1
fi
