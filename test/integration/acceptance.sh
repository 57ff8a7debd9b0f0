#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# contract §7: the acceptance sequence of the seed proof, on a real broker.
#   1. amount >= 50 over a120 b20 c35 d90 e110 f5 → a120 d90 e110; committed 6
#   2. clean stop; restart with amount >= 100 (same identity); g130 h60 i99
#      → only g130 added; committed 9
#   3. an invalid record at offset 9 (and a valid one after it) → exit 65;
#      committed stays 9; nothing more visible
# No state deletion, offset reset, rename or new cluster between phases.
# Writes $STREAMT_EVIDENCE_DIR/acceptance.json.
source "$(dirname "$0")/lib.sh"

src=$(unique orders) sink=$(unique big-orders) app=$(unique acceptance)
create_topic "$src" 1
create_topic "$sink" 1
schema="$work/orders.schema.json"
orders_schema "$src" "$schema"
compile "$schema" "$app" "$sink" "SELECT id, amount FROM orders WHERE amount >= 50" "$work/p50.json"
compile "$schema" "$app" "$sink" "SELECT id, amount FROM orders WHERE amount >= 100" "$work/p100.json"
digest50=$("$STREAMT_BINARY" check "$work/p50.json" | awk '/^digest:/ { print $2 }')
digest100=$("$STREAMT_BINARY" check "$work/p100.json" | awk '/^digest:/ { print $2 }')
state="$work/state"

echo "== phase 1"
printf '%s\t%s\n' a '{"id":"a","amount":120}' b '{"id":"b","amount":20}' c '{"id":"c","amount":35}' \
  d '{"id":"d","amount":90}' e '{"id":"e","amount":110}' f '{"id":"f","amount":5}' | produce "$src"
started=$(date +%s%N)
start_engine phase1 "$work/p50.json" "$state" --expect-digest "$digest50"
wait_for_committed "$app" "$src" 0 6 || { show_log phase1; fail "phase 1 offsets"; }
# Time to first committed output: from the process start to the engine's log
# line for its first commit (a120 is the first record, and it passes).
first_commit=$(grep -m1 'committed transaction 1 ' "$work/phase1.log" | cut -d' ' -f1)
first_output_ms=$((($(date -d "$first_commit" +%s%N) - started) / 1000000))
rss1=$(peak_rss_kib phase1)
stop_engine phase1
rc1=$engine_rc
check_eq "phase 1 exits 0 on SIGTERM" 0 "$rc1"
out1=$(values_committed "$sink" | paste -sd' ')
check_eq "phase 1 output" '{"id":"a","amount":120} {"id":"d","amount":90} {"id":"e","amount":110}' "$out1"
off1=$(committed_offset "$app" "$src" 0)
check_eq "phase 1 committed offset" 6 "$off1"
grep -q "no committed offset" "$work/phase1.log" || fail "phase 1 did not log that it starts from the earliest offset"

echo "== phase 2"
start_engine phase2 "$work/p100.json" "$state" --expect-digest "$digest100"
printf '%s\t%s\n' g '{"id":"g","amount":130}' h '{"id":"h","amount":60}' i '{"id":"i","amount":99}' | produce "$src"
wait_for_committed "$app" "$src" 0 9 || { show_log phase2; fail "phase 2 offsets"; }
rss2=$(peak_rss_kib phase2)
stop_engine phase2
rc2=$engine_rc
check_eq "phase 2 exits 0 on SIGTERM" 0 "$rc2"
out2=$(values_committed "$sink" | paste -sd' ')
check_eq "phase 2 output adds only g130" \
  '{"id":"a","amount":120} {"id":"d","amount":90} {"id":"e","amount":110} {"id":"g","amount":130}' "$out2"
off2=$(committed_offset "$app" "$src" 0)
check_eq "phase 2 committed offset" 9 "$off2"
grep -q "resuming at committed offset 6" "$work/phase2.log" || fail "phase 2 did not resume at offset 6"

echo "== phase 3"
printf '%s\t%s\n' j '{"id":"j","amount":"120"}' k '{"id":"k","amount":500}' | produce "$src"
start_engine phase3 "$work/p100.json" "$state"
wait_engine phase3 90
rc3=$engine_rc
check_eq "phase 3 exits 65 on the invalid record" 65 "$rc3"
grep -q "$src/0@9" "$work/phase3.log" || { show_log phase3; fail "phase 3 error does not name $src/0@9"; }
off3=$(committed_offset "$app" "$src" 0)
check_eq "phase 3 committed offset stays 9" 9 "$off3"
out3=$(values_committed "$sink" | paste -sd' ')
check_eq "phase 3 adds no visible output" "$out2" "$out3"

mkdir -p "$STREAMT_EVIDENCE_DIR"
broker_version=$("$kafka_local" version 2>/dev/null | tail -n 1)
librdkafka=$(grep -o 'librdkafka [0-9.]*' "$work/phase1.log" | head -n 1 | cut -d' ' -f2)
python3 - "$STREAMT_EVIDENCE_DIR/acceptance.json" <<PY
import json, sys
json.dump({
  "broker": "$broker_version", "librdkafka": "$librdkafka",
  "plans": {"amount >= 50": "$digest50", "amount >= 100": "$digest100"},
  "exit_codes": [$rc1, $rc2, $rc3], "committed_offsets": [$off1, $off2, $off3],
  "read_committed_output": """$out3""".split(" "),
  "time_to_first_committed_output_ms": $first_output_ms,
  "peak_rss_kib": {"phase1": $rss1, "phase2": $rss2},
}, open(sys.argv[1], "w"), indent=2)
PY
cat "$STREAMT_EVIDENCE_DIR/acceptance.json"
echo
echo "$checks_passed passed, 0 failed"
