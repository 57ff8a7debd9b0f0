#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# docs/configuration.md documents every command and option the binary has,
# and no option it lacks. The commands are those of `streamt --help`, and a
# subcommand is a lowercase word after the command on a usage line of its
# --help (`streamt offsets skip ...`). For each of them:
#   - configuration.md has a section headed exactly "## `streamt CMD`";
#   - each option `streamt CMD --help` prints (on its usage lines, or at the
#     start of an option line) appears in backticks in that section;
#   - each option named in the first column of a table row of that section
#     is one its --help names anywhere (so an alias it mentions counts).
# Then it checks that it can fail: on a copy of configuration.md with one
# option's lines removed, and on one with an option the binary lacks.
# Needs STREAMT_BINARY (set by ctest), or the binary as the first argument.
# STREAMT_DOCS_ROOT may point at another tree whose configuration.md to check.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
docs_root=${STREAMT_DOCS_ROOT:-$root}
binary=${1:-${STREAMT_BINARY:-}}
[[ -n $binary ]] || { echo "FAIL: give the streamt binary (STREAMT_BINARY or the first argument)" >&2; exit 1; }
configuration="$docs_root/docs/configuration.md"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The commands, then each one's subcommands, one a line ("offsets skip").
top=$("$binary" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[[ -n $top ]] || { echo "FAIL: no commands in streamt --help" >&2; exit 1; }
commands=$(for cmd in $top; do
  echo "$cmd"
  "$binary" "$cmd" --help | awk -v c="$cmd" '/^usage:/ { u = 1 } u && /^$/ { u = 0 }
    u { sub(/^usage:/, ""); if ($1 == "streamt" && $2 == c && $3 ~ /^[a-z]+$/) print c " " $3 }'
done | awk '!seen[$0]++')

# required CMD...: the options its --help prints, on its usage lines and at
# the start of its indented option lines, one a line.
required() {
  "$binary" "$@" --help |
    awk '/^usage:/ { u = 1 } u && /^$/ { u = 0 } u { print; next } /^  +(-X|--[a-z])/ { print $1 }' |
    { grep -oE '(^|[ [])(-[A-Za-z]|--[a-z][a-z-]*)' || true; } | tr -d ' [' | grep -vx -- '--help' | sort -u
}
# known CMD...: every option its --help names anywhere (aliases included).
known() {
  "$binary" "$@" --help | { grep -oE '(^|[^A-Za-z0-9-])(-[A-Za-z]|--[a-z][a-z-]*)' || true; } |
    sed -E 's/^[^-]//' | sort -u
}

# section FILE CMD: the lines of FILE's "## `streamt CMD`" section, up to the next "## ".
section() {
  awk -v h="## \`streamt $2\`" '$0 == h { on = 1; next } on && /^## / { exit } on { print }' "$1"
}
# in_backticks: the options inside the backtick spans of standard input (a
# span may go on over a line break; code fences are not spans).
in_backticks() {
  sed '/^ *```/d' | tr '\n' ' ' | { grep -oE '`[^`]+`' || true; } |
    { grep -oE '(^`|[^A-Za-z0-9-])(-[A-Za-z]|--[a-z][a-z-]*)' || true; } | sed -E 's/^[^-]//' | sort -u
}
# in_first_column: the options that start a backtick span in the first cell of a table row.
in_first_column() {
  sed 's/\\|/\//g' | awk -F'|' '/^\|/ { print $2 }' | { grep -oE '`-[^` ]*' || true; } |
    sed -E 's/^`//; s/[=].*//' | sort -u
}

# check FILE: the checks above on FILE; prints a FAIL line for each
# problem and ends with the count of them (0 when FILE is right).
check() {
  local file=$1 problems=0 cmd text opt
  while IFS= read -r cmd; do
    if ! grep -qxF "## \`streamt $cmd\`" "$file"; then
      echo "FAIL: $file has no section '## \`streamt $cmd\`' (streamt --help lists '$cmd')"
      problems=$((problems + 1))
      continue
    fi
    text=$(section "$file" "$cmd")
    local documented table
    documented=$(in_backticks <<<"$text")
    table=$(in_first_column <<<"$text")
    # shellcheck disable=SC2086 # CMD is one or two words
    for opt in $(required $cmd); do
      if ! grep -qxF -- "$opt" <<<"$documented"; then
        echo "FAIL: streamt $cmd: option $opt of --help is not named in backticks in $file's section on it"
        problems=$((problems + 1))
      fi
    done
    local all
    # shellcheck disable=SC2086
    all=$(known $cmd)
    for opt in $table; do
      if ! grep -qxF -- "$opt" <<<"$all"; then
        echo "FAIL: streamt $cmd: $file's table names option $opt, which streamt $cmd --help does not"
        problems=$((problems + 1))
      fi
    done
  done <<<"$commands"
  echo "$problems"
}

passed=0 failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1" >&2; failed=$((failed + 1)); }

# The real file.
out=$(check "$configuration")
base=$(tail -1 <<<"$out")
if ((base == 0)); then
  ok "docs/configuration.md documents every option of: $(paste -sd, <<<"$commands")"
else
  sed '$d' <<<"$out" >&2
  bad "docs/configuration.md and streamt's --help texts disagree ($base problems above)"
fi
# shellcheck disable=SC2086
while IFS= read -r cmd; do
  echo "streamt $cmd: $(required $cmd | paste -sd' ')"
done <<<"$commands"

# The check fails when an option goes missing: the last option of the last
# command's --help, with every line of its section that names it removed.
last_cmd=$(tail -1 <<<"$commands")
# shellcheck disable=SC2086
victim=$(required $last_cmd | tail -1)
awk -v h="## \`streamt $last_cmd\`" -v o="$victim" '
  $0 == h { on = 1; print; next } on && /^## / { on = 0 }
  on && index($0, o) { next } { print }' "$configuration" >"$tmp/without.md"
out=$(check "$tmp/without.md")
if (($(tail -1 <<<"$out") > base)) && grep -qF -- "streamt $last_cmd: option $victim of --help" <<<"$out"; then
  ok "the check fails, naming it, when $victim is missing from streamt $last_cmd's section"
else
  bad "the check did not notice $victim removed from streamt $last_cmd's section: $out"
fi

# And when a table names an option the binary lacks.
first_cmd=$(head -1 <<<"$commands")
awk -v h="## \`streamt $first_cmd\`" '{ print } $0 == h { print ""; print "| option | meaning |";
  print "|---|---|"; print "| `--no-such-option N` | made up |" }' "$configuration" >"$tmp/extra.md"
out=$(check "$tmp/extra.md")
if (($(tail -1 <<<"$out") == base + 1)) && grep -qF -- "streamt $first_cmd: $tmp/extra.md's table names option --no-such-option" <<<"$out"; then
  ok "the check fails, naming it, when streamt $first_cmd's table names --no-such-option"
else
  bad "the check did not notice --no-such-option in streamt $first_cmd's table: $out"
fi

echo "$passed passed, $failed failed"
((failed == 0))
