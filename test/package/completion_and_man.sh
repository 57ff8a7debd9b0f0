#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# The bash completion and the man page list exactly the subcommands and
# options the binary's --help texts list, so neither goes stale when an
# option is added or removed: the completion offers exactly a command's
# options; the man page names each of them in the command's synopsis or
# entry, and has no option entry the command's --help does not name. Needs STREAMT_BINARY (set by ctest) and bash-completion
# (its _init_completion), which tools/setup does not require: without it the
# completion part is skipped and says so.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${STREAMT_BINARY:?set by ctest}"
completion="$root/tools/package/streamt.bash-completion"
man_source="$root/tools/package/streamt.1"
passed=0 failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1" >&2; failed=$((failed + 1)); }

# Subcommands: the indented words under "commands:" in `streamt --help`.
commands=$("$STREAMT_BINARY" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }' |
  sort | paste -sd' ')
[[ -n $commands ]] || { echo "FAIL: no commands in streamt --help" >&2; exit 1; }

# options_of CMD: the options in `streamt CMD --help`: on its usage lines and
# at the start of its indented option lines, plus --help.
options_of() {
  "$STREAMT_BINARY" "$1" --help |
    awk '/^usage:/ { u = 1 } u && /^$/ { u = 0 } u { print; next } /^  +(-X|--[a-z])/ { print $1 }' |
    { grep -oE '(^|[ [])(-X|--[a-z][a-z-]*)' || true; } | tr -d ' [' | { cat; echo --help; } | sort -u | paste -sd' '
}

have_completion=false
if [[ -f /usr/share/bash-completion/bash_completion ]]; then
  have_completion=true
else
  echo "skipped: the completion checks (no /usr/share/bash-completion/bash_completion; apt-get install bash-completion)"
fi
# complete WORDS...: what the completion offers for the last word.
complete_words() {
  bash -c '
    source /usr/share/bash-completion/bash_completion
    source "$0"
    COMP_WORDS=("${@}"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
    _streamt streamt "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
    printf "%s\n" "${COMPREPLY[@]}"' "$completion" "$@" | grep -v '^$' | sort -u | paste -sd' '
}

man_text=$(sed 's/\\-/-/g' "$man_source")
# The man page as plain text: no \- escapes, no font changes.
man_plain=$(sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\&//g' "$man_source")
# man_of CMD: its synopsis lines (".B streamt CMD" up to ".br") and its
# entry under COMMANDS (".TP" then ".B CMD", up to the next command's).
man_of() {
  awk -v c="$1" '/^\.SH / { sec = $2; syn = 0 }
    sec == "SYNOPSIS" && $0 == ".B streamt " c { syn = 1 }
    syn && /^\.br/ { syn = 0 } syn { print }
    sec == "COMMANDS" && /^\.RS/ { depth++ } sec == "COMMANDS" && /^\.RE/ { depth-- }
    sec == "COMMANDS" && depth == 0 && tp && /^\.B [a-z]+$/ { on = ($2 == c) }
    sec == "COMMANDS" { tp = /^\.TP/ } sec == "COMMANDS" && on { print }' <<<"$man_plain"
}
# man_entries_of CMD: the options of the entries (".TP", then a line
# starting with the option) in CMD's entry, one a line.
man_entries_of() {
  man_of "$1" | awk 'tp && /^\.(B|BI|BR) -/ { print $2 } { tp = /^\.TP/ }' | tr -d '"'
}
# known_of CMD: every option its --help names anywhere (aliases included).
known_of() {
  "$STREAMT_BINARY" "$1" --help | { grep -oE '(^|[^A-Za-z0-9-])(-[A-Za-z]|--[a-z][a-z-]*)' || true; } |
    sed -E 's/^[^-]//' | sort -u
}
if $have_completion; then
  got=$(complete_words streamt "" | tr ' ' '\n' | grep -v '^-' | paste -sd' ')
  if [[ $got == "$commands" ]]; then
    ok "completion offers the commands: $commands"
  else
    bad "completion offers commands '$got', streamt --help lists '$commands'"
  fi
fi
for cmd in $commands; do
  want=$(options_of "$cmd")
  if $have_completion; then
    # The completion offers dashed words once the word starts with one.
    got=$(complete_words streamt "$cmd" -)
    if [[ $got == "$want" ]]; then
      ok "completion of '$cmd' offers $want"
    else
      bad "completion of '$cmd' offers '$got', its --help lists '$want'"
    fi
  fi
  grep -q "^\.B $cmd\$" <<<"$man_text" || bad "the man page has no entry for '$cmd'"
  # Each option of its --help, as a whole word, in the command's synopsis
  # lines or its entry under COMMANDS (not just anywhere in the page).
  text=$(man_of "$cmd")
  missing=0
  for opt in $want; do
    [[ $opt == --help ]] && continue
    if ! grep -qE -- "(^|[^A-Za-z0-9-])$opt([^A-Za-z0-9-]|\$)" <<<"$text"; then
      bad "$man_source: '$cmd' does not name its option $opt in its synopsis or entry"
      missing=$((missing + 1))
    fi
  done
  ((missing > 0)) || ok "the man page names every option of '$cmd' in its synopsis or entry"
  # And each option entry (.TP, then the option) under the command is one
  # its --help names, aliases included.
  all=$(known_of "$cmd")
  for opt in $(man_entries_of "$cmd"); do
    if grep -qxF -- "$opt" <<<"$all"; then
      ok "the man page's entry $opt of '$cmd' is an option of its --help"
    else
      bad "$man_source has an entry for '$cmd $opt', which streamt $cmd --help does not name"
    fi
  done
done

echo "$passed passed, $failed failed"
((failed == 0))
