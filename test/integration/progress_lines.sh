#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# What a run tells a person reading its log (docs/operations.md, "Reading
# the log"): a run that starts behind its input says so, then every 5 s
# gives its rate, its lag and the time to catch up, and says when it caught
# up; the partitions it was assigned are named; every count line counts the
# dead-lettered records, the closing line too; with names of ordinary
# length the progress lines fit in 170 characters and no other info line
# runs past 200; no text line carries a whole plan digest.
#
# One record per transaction keeps the run behind for longer than the 5 s
# between progress lines. The run is caught up at a lag of 1000 (or one
# second's records, if more), so the 2000 records before it take 5 s unless
# the engine commits over 400 transactions a second. On the 2-core machine
# CI runs on this whole test took 44 s in CI's pristine root (the
# durations tools/ctest-durations prints in `.ci/run`'s log) and 80 to 100 s
# beside other builds (`ctest -R progress_lines`): under 100 commits a second.
source "$(dirname "$0")/lib.sh"

src=$(unique progress-in) sink=$(unique progress-out) dlq=$(unique progress-dead) app=$(unique progress)
create_topic "$src" 1
create_topic "$sink" 1
create_topic "$dlq" 1
orders_schema "$src" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders WHERE amount >= 10" \
  "$work/plan.json" --on-invalid dead-letter --dead-letter-topic "$dlq"

# 3000 records, of which every 500th (6) is not a record of the schema.
total=3000 bad=6
for ((i = 0; i < total; i++)); do
  if ((i % 500 == 499)); then
    printf 'k%d\tnot json %d\n' "$i" "$i"
  else
    printf 'k%d\t{"id":"r%d","amount":%d}\n' "$i" "$i" "$((i % 100))"
  fi
done | produce "$src"

start_engine run "$work/plan.json" "$work/state" --max-records-per-transaction 1
await_line run "caught up: lag" 600 0.5
wait_for_committed "$app" "$src" 0 "$total" 300 || { show_log run; fail "not every record was committed"; }
stop_engine run
check_eq "the run stops cleanly" 0 "$engine_rc"
log="$work/run.log"

grep -qF "assigned $src[0]" "$log" || { show_log run; fail "the assignment does not name the partition"; }
grep -qE "behind: lag [0-9]+; [0-9]+ consumed, [0-9]+ dead-lettered" "$log" ||
  { show_log run; fail "no line says the run starts behind"; }
grep -qE "behind: lag [0-9]+, [0-9.]+ records/s, (caught up in ~[0-9]+ (s|min)|not catching up); [0-9]+ consumed, [0-9]+ dead-lettered$" "$log" ||
  { show_log run; fail "no progress line with the rate, the lag and the time to catch up"; }
grep -qE "caught up: lag [0-9]+ after [0-9]+ (s|min) behind; [0-9]+ consumed, [0-9]+ dead-lettered$" "$log" ||
  { show_log run; fail "no caught-up line"; }
grep -qE "committed transaction 1 \([0-9]+ ms\): 1 consumed, [01] emitted, [01] filtered, 0 tombstones, 0 dead-lettered$" "$log" ||
  { show_log run; fail "the first commit line does not count the dead-lettered records"; }
check_eq "the closing line counts every record and the dead-lettered ones" "$total $bad" \
  "$(sed -nE 's/.*stopped cleanly: ([0-9]+) consumed, .*, ([0-9]+) dead-lettered$/\1 \2/p' "$log")"

# The lengths with names of ordinary length in place of the test's long
# unique ones (the application id is in every line's bracket).
sed -e "s|$app|orders-app|g" -e "s|$src|orders|g" -e "s|$sink|orders-out|g" -e "s|$dlq|orders-dlq|g" \
  -e "s|$work|/var/lib/streamt|g" "$log" | grep ' info engine ' >"$work/info.log"
long_progress=$(grep -E '\]: (behind|fell behind|caught up): ' "$work/info.log" | awk 'length($0) > 170' | head -n3)
[[ -z $long_progress ]] || fail "progress lines longer than 170 characters: $long_progress"
long_info=$(awk 'length($0) > 200' "$work/info.log" | head -n3)
[[ -z $long_info ]] || fail "info lines longer than 200 characters: $long_info"
checks_passed=$((checks_passed + 2))
check_eq "lines with a whole plan digest" 0 "$(grep -cE 'sha256:[0-9a-f]{64}' "$log" || true)"

echo "progress_lines: $checks_passed checks passed"
