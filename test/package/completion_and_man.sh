#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# The bash completion and the man page list exactly the subcommands and
# options the binary's --help texts list, so neither goes stale when an
# option is added. Needs STREAMT_BINARY (set by ctest) and bash-completion
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
  for opt in $want; do
    [[ $opt == --help ]] && continue
    grep -qF -- "$opt" <<<"$man_text" || bad "the man page does not mention '$cmd $opt'"
  done
  ok "the man page has '$cmd' and its options"
done

echo "$passed passed, $failed failed"
((failed == 0))
