#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# A compacted sink takes no record without a key, and the broker refuses the
# whole batch such a record is in. The engine reads the sink's cleanup.policy
# at start and refuses a keyless record itself, before producing it, so the
# record named is the keyless one, never a valid neighbour:
#   1. stop mode: "a" (key a), a keyless record, "c": "a" is committed, the
#      run stops at offset 1 with exit 65 naming the missing key and the
#      compacted sink; the committed offset is 1.
#   2. dead-letter mode, ten records whose fifth has no key: exactly that one
#      is dead-lettered, every valid record is in the sink once.
source "$(dirname "$0")/lib.sh"

echo "== 1. stop mode"
src=$(unique compact-in) sink=$(unique compact-out) app=$(unique compacted-sink)
create_topic "$src" 1
create_topic "$sink" 1 --config cleanup.policy=compact
orders_schema "$src" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders" "$work/plan.json"
printf '%s\t%s\n' a '{"id":"a","amount":1}' null '{"id":"b","amount":2}' c '{"id":"c","amount":3}' |
  produce "$src"
start_engine stop "$work/plan.json" "$work/state"
wait_engine stop 60
check_eq "exit code" 65 "$engine_rc"
grep -q "sink topic .$sink.: a record without a key is refused (cleanup.policy compact)" "$work/stop.log" ||
  { show_log stop; fail "the start does not say the sink is compacted"; }
grep -q "${src}/0@1.*it has no key, and sink topic '$sink' is compacted" "$work/stop.log" ||
  { show_log stop; fail "the run does not name offset 1 and the missing key"; }
check_eq "committed offset" 1 "$(committed_offset "$app" "$src" 0)"
check_eq "sink" '{"id":"a","amount":1}' "$(values_committed "$sink")"

echo "== 2. dead-letter mode"
src=$(unique compact-dl-in) sink=$(unique compact-dl-out) dlq=$(unique compact-dl-dead)
app=$(unique compacted-sink-dl)
create_topic "$src" 1
create_topic "$sink" 1 --config cleanup.policy=compact
create_topic "$dlq" 1
orders_schema "$src" "$work/dl.schema.json"
echo "SELECT id, amount FROM orders" | "$STREAMT_BINARY" compile --schema "$work/dl.schema.json" \
  --application-id "$app" --sink-topic "$sink" --on-invalid dead-letter --dead-letter-topic "$dlq" \
  --output "$work/dl.json" -
for i in 0 1 2 3 4 5 6 7 8 9; do
  key="k$i"
  [[ $i == 4 ]] && key=null
  printf '%s\t{"id":"r%d","amount":%d}\n' "$key" "$i" "$i"
done | produce "$src"
start_engine dl "$work/dl.json" "$work/state-dl"
wait_for_offsets "$app" "$src" "0:10" 60 || { show_log dl; fail "committed offset"; }
stop_engine dl
check_eq "dead-letter exit code" 0 "$engine_rc"
check_eq "dead-lettered" '{"id":"r4","amount":4}' "$(values_committed "$dlq")"
check_eq "sink ids" "r0 r1 r2 r3 r5 r6 r7 r8 r9" \
  "$(committed_ids "$sink" | sort -V | tr '\n' ' ' | sed 's/ $//')"
echo "compacted_sink: ok"
