#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Every default the docs and the man page give for a `streamt run` option is
# the one the binary has: `streamt run --help` prints its defaults, made from
# the constants the code uses (tools/streamt/cmd_run.cpp), and is the one
# source of truth here. Checked:
#   - docs/configuration.md: the "| option | default | meaning |" table, which
#     must list every option --help gives a default for, with that default;
#   - tools/package/streamt.1: each option's entry, likewise;
#   - the prose of docs/operations.md, docs/configuration.md and README.md:
#     "`--opt` (N)", "`--opt` (default N)", "--opt (N s by default)" (a
#     number of seconds for an option in ms) and "`--opt VALUE` (the default)".
# Needs STREAMT_BINARY (set by ctest). STREAMT_DOCS_ROOT may point at another
# tree to check (the test's own check that it can fail uses it).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
docs_root=${STREAMT_DOCS_ROOT:-$root}
: "${STREAMT_BINARY:?set by ctest}"
passed=0 failed=0
ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1" >&2; failed=$((failed + 1)); }

# default_of TEXT: the default an option's description names, as
# "(default VALUE" or "VALUE (default)"; nothing if it names none.
default_of() {
  local t=$1
  if [[ $t =~ \(default\ ([^\ \),\;]+) ]]; then
    echo "${BASH_REMATCH[1]}"
  elif [[ $t =~ ([^\ ,\(]+)\ \(default\) ]]; then
    echo "${BASH_REMATCH[1]}"
  fi
}

# The options of `streamt run --help`, one entry a line: an entry starts with
# "  -" and its continuation lines (indented further) are joined to it.
help_entries=$("$STREAMT_BINARY" run --help |
  awk '/^  -/ { if (e != "") print e; e = $0; next }
       /^   +[^ ]/ && e != "" { sub(/^ +/, " "); e = e $0; next }
       { if (e != "") print e; e = "" }
       END { if (e != "") print e }')
declare -A want=()
while IFS= read -r entry; do
  opt=$(awk '{ print $1 }' <<<"$entry")
  d=$(default_of "$entry")
  [[ -n $d ]] && want[$opt]=$d
done <<<"$help_entries"
((${#want[@]} >= 5)) || { echo "FAIL: streamt run --help gives only ${#want[@]} defaults: ${!want[*]}" >&2; exit 1; }
for opt in $(printf '%s\n' "${!want[@]}" | sort); do
  echo "streamt run --help: $opt defaults to ${want[$opt]}"
done

# check WHERE OPT VALUE: VALUE, documented in WHERE as OPT's default, is the real one.
check() {
  local where=$1 opt=$2 value=${3//,/}
  if [[ -z ${want[$opt]+set} ]]; then
    bad "$where gives $opt a default ($value), streamt run --help gives it none"
  elif [[ $value != "${want[$opt]}" ]]; then
    bad "$where gives $opt the default $value, streamt run --help says ${want[$opt]}"
  else
    ok "$where: $opt defaults to $value"
  fi
}

# docs/configuration.md's option tables: | `--opt ARG` | default | meaning |.
configuration="$docs_root/docs/configuration.md"
declare -A in_table=()
while IFS=$'\t' read -r opt cell; do
  in_table[$opt]=1
  cell=${cell//\`/}
  case $cell in
    "" | required | off) [[ -z ${want[$opt]+set} ]] ||
      bad "docs/configuration.md gives $opt the default '$cell', streamt run --help says ${want[$opt]}" ;;
    *) check docs/configuration.md "$opt" "${cell%%[ ,;)]*}" ;;
  esac
done < <(sed 's/\\|/\//g' "$configuration" | awk -F'|' '/^[|] option [|] default [|]/ { on = 1; next }
  on && !/^[|]/ { on = 0 }
  on && /^[|] `-/ { o = $2; d = $3; sub(/^ `/, "", o); sub(/[ `].*/, "", o); gsub(/^ +| +$/, "", d); print o "\t" d }')
((${#in_table[@]} > 0)) || bad "docs/configuration.md has no '| option | default | meaning |' table"
for opt in "${!want[@]}"; do
  [[ -n ${in_table[$opt]+set} ]] || bad "docs/configuration.md's option table has no row for $opt (default ${want[$opt]})"
done

# The man page: each option's entry, from the .B/.BI/.BR line that follows a
# .TP to the next .TP or .RE, as plain text (roff's alternating-font macros join their arguments).
man_entries=$(sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\&//g' "$docs_root/tools/package/streamt.1" |
  awk 'function plain(line,   out, i, c, q) {
         if (line !~ /^\.(B|I|R|BI|IB|BR|RB|IR|RI) /) return line
         sub(/^\.[A-Z]+ /, "", line); out = ""; q = 0
         for (i = 1; i <= length(line); i++) {
           c = substr(line, i, 1)
           if (c == "\"") q = !q; else if (c == " " && !q) continue; else out = out c
         }
         return out
       }
       /^\.(TP|RE|RS|SH|SS|IP|PP)/ { if (e != "") print e; e = ""; tp = /^\.TP/; next }
       tp && /^\.(B|BI|BR) --?[a-zA-Z]/ { e = plain($0); tp = 0; next }
       { tp = 0 }
       e != "" { e = e " " plain($0) }
       END { if (e != "") print e }')
declare -A in_man=()
while IFS= read -r entry; do
  opt=$(grep -oE '^--?[a-zA-Z][a-z-]*' <<<"$entry" || true)
  [[ -n $opt && -n ${want[$opt]+set} || $entry == *"(default"* ]] || continue
  in_man[$opt]=1
  d=$(default_of "$entry")
  if [[ -n $d ]]; then
    check tools/package/streamt.1 "$opt" "$d"
  else
    bad "tools/package/streamt.1 gives $opt no default, streamt run --help says ${want[$opt]}"
  fi
done <<<"$man_entries"
for opt in "${!want[@]}"; do
  [[ -n ${in_man[$opt]+set} ]] || bad "tools/package/streamt.1 has no entry for $opt (default ${want[$opt]})"
done

# Prose, with lines joined (a mention may span two).
for doc in docs/operations.md docs/configuration.md README.md; do
  text=$(tr '\n' ' ' <"$docs_root/$doc")
  while IFS= read -r m; do
    [[ -n $m ]] || continue
    opt=$(grep -oE -- '--[a-z][a-z-]*' <<<"$m" | head -1)
    n=$(sed -E 's/.*\((default )?([0-9][0-9,]*).*/\2/' <<<"$m")
    n=${n//,/}
    [[ $m =~ [0-9]\ s[\ \)] && $opt == *-ms ]] && n=$((n * 1000))
    check "$doc" "$opt" "$n"
  done < <(grep -oE -- '`?--[a-z][a-z-]*`? \((default )?[0-9][0-9,]*( s| ms)?[ ),;]' <<<"$text" || true)
  while IFS= read -r m; do
    [[ -n $m ]] || continue
    read -r opt value <<<"${m//\`/}"
    check "$doc" "$opt" "${value% (the}"
  done < <(grep -oE -- '`--[a-z][a-z-]* [^` ]+` \(the' <<<"$text" || true)
done

echo "$passed passed, $failed failed"
((failed == 0))
