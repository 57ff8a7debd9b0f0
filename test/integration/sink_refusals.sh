#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# What happens when the sink says no, against a real broker:
#   1. a sink that takes no timestamp more than an hour old
#      (message.timestamp.before.max.ms=3600000) and a record ten days old
#      at offset 1 of three: the engine reads the bound at start and refuses
#      that record itself, so the run commits offset 0 and stops at offset 1
#      (exit 65) naming the timestamp and the setting, within seconds and
#      after at most one abort. Before, the broker refused the batch and the
#      engine aborted and retried it every half second, forever.
#   2. the same in dead-letter mode: exactly the old record is dead-lettered,
#      the others are in the sink once.
#   3. a sink topic deleted while the engine runs: a stall bounded by
#      --stall-timeout-ms (the commit waits for records librdkafka retries;
#      when it refuses them at once instead, the aborts pause longer each
#      time, bounded the same way), then exit 69 naming the missing topic.
#   4. a batch the broker refuses whole, naming none of its records: two
#      invalid records, ten days old and new, dead-lettered in one
#      transaction to a dead-letter topic with a one-hour bound (whose rules
#      the engine does not read): the engine halves the transaction until
#      the old record's write is alone in a refused batch, then stops at it (exit 65,
#      dead_letter_refused), the valid record before it committed.
#   5. an invalid record of 1,040,000 bytes, dead-lettered: under the dead-
#      letter topic's max.message.bytes (1,048,588) but over the producer's
#      message.max.bytes (1,000,000), which the engine's message names with
#      the topic's limit, and a size that counts the headers it adds.
source "$(dirname "$0")/lib.sh"

build_record_tool
now_ms=$(($(date +%s) * 1000))
old_ms=$((now_ms - 10 * 86400 * 1000))
# records SRC: r0 now, r1 ten days old, r2 now (RecordTool's format).
records() {
  local i ts
  for i in 0 1 2; do
    ts=$now_ms
    [[ $i == 1 ]] && ts=$old_ms
    printf '{"partition":0,"key":"%s","value":"%s","ts":%d}\n' \
      "$(printf 'k%d' "$i" | od -An -tx1 | tr -d ' \n')" \
      "$(printf '{"id":"r%d","amount":%d}' "$i" "$i" | od -An -tx1 | tr -d ' \n')" "$ts"
  done
}

echo "== 1. a ten-day-old record, a sink with a one-hour bound, stop mode"
src=$(unique ts-in) sink=$(unique ts-out) app=$(unique sink-ts)
create_topic "$src" 1 --config retention.ms=-1
create_topic "$sink" 1 --config message.timestamp.before.max.ms=3600000
orders_schema "$src" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders" "$work/plan.json"
records | record_tool produce "$src"
started=$SECONDS
start_engine stop "$work/plan.json" "$work/state"
wait_engine stop 60
check_eq "exit code" 65 "$engine_rc"
((SECONDS - started <= 30)) || { show_log stop; fail "the stop took $((SECONDS - started)) s"; }
grep -q "${src}/0@1.*its timestamp .* is 10 d before this engine's clock.*message.timestamp.before.max.ms=3600000" \
  "$work/stop.log" || { show_log stop; fail "the run does not name offset 1, its timestamp and the bound"; }
aborts=$(grep -c "aborting the transaction" "$work/stop.log" || true)
((aborts <= 1)) || { show_log stop; fail "$aborts aborts, expected at most 1"; }
check_eq "committed offset" 1 "$(committed_offset "$app" "$src" 0)"
check_eq "sink" '{"id":"r0","amount":0}' "$(values_committed "$sink")"

echo "== 2. the same, dead-letter mode"
src=$(unique ts-dl-in) sink=$(unique ts-dl-out) dlq=$(unique ts-dl-dead) app=$(unique sink-ts-dl)
create_topic "$src" 1 --config retention.ms=-1
create_topic "$sink" 1 --config message.timestamp.before.max.ms=3600000
create_topic "$dlq" 1 --config retention.ms=-1
orders_schema "$src" "$work/dl.schema.json"
echo "SELECT id, amount FROM orders" | "$STREAMT_BINARY" compile --schema "$work/dl.schema.json" \
  --application-id "$app" --sink-topic "$sink" --on-invalid dead-letter --dead-letter-topic "$dlq" \
  --output "$work/dl.json" -
records | record_tool produce "$src"
start_engine dl "$work/dl.json" "$work/state-dl"
wait_for_offsets "$app" "$src" "0:3" 60 || { show_log dl; fail "committed offset"; }
stop_engine dl
check_eq "dead-letter exit code" 0 "$engine_rc"
check_eq "dead-lettered" '{"id":"r1","amount":1}' "$(values_committed "$dlq")"
check_eq "sink" $'{"id":"r0","amount":0}\n{"id":"r2","amount":2}' "$(values_committed "$sink")"

echo "== 3. a sink topic deleted while the engine runs"
src=$(unique gone-in) sink=$(unique gone-out) app=$(unique sink-gone)
create_topic "$src" 1
create_topic "$sink" 1
orders_schema "$src" "$work/gone.schema.json"
compile "$work/gone.schema.json" "$app" "$sink" "SELECT id, amount FROM orders" "$work/gone.json"
printf '%s\t%s\n' a '{"id":"a","amount":1}' | produce "$src"
# librdkafka retries the records for the deleted topic until they time out,
# and the commit waits for them: a stall, which the topic list then explains.
start_engine gone "$work/gone.json" "$work/state-gone" --stall-timeout-ms 8000
wait_for_offsets "$app" "$src" "0:1" 60 || { show_log gone; fail "committed offset before the delete"; }
"$kafka_local" topic delete "$sink" >/dev/null
printf '%s\t%s\n' b '{"id":"b","amount":2}' | produce "$src"
started=$SECONDS
wait_engine gone 60
check_eq "exit code" 69 "$engine_rc"
((SECONDS - started >= 8)) || { show_log gone; fail "ended after $((SECONDS - started)) s, before the stall bound"; }
grep -q "topic '$sink', written by this run, does not exist any more" "$work/gone.log" ||
  { show_log gone; fail "the run does not name the missing sink"; }
aborts=$(grep -c "aborting the transaction" "$work/gone.log" || true)
((aborts <= 12)) || { show_log gone; fail "$aborts aborts in the stall: no backoff"; }
check_eq "committed offset" 1 "$(committed_offset "$app" "$src" 0)"

echo "== 4. a batch refused whole: found by halving"
src=$(unique half-in) sink=$(unique half-out) dlq=$(unique half-dead) app=$(unique sink-half)
create_topic "$src" 1 --config retention.ms=-1
create_topic "$sink" 1
create_topic "$dlq" 1 --config message.timestamp.before.max.ms=3600000
orders_schema "$src" "$work/half.schema.json"
echo "SELECT id, amount FROM orders" | "$STREAMT_BINARY" compile --schema "$work/half.schema.json" \
  --application-id "$app" --sink-topic "$sink" --on-invalid dead-letter --dead-letter-topic "$dlq" \
  --output "$work/half.json" -
hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
{
  printf '{"partition":0,"key":"%s","value":"%s","ts":%d}\n' "$(hex k0)" "$(hex '{"id":"r0","amount":0}')" "$now_ms"
  printf '{"partition":0,"key":"%s","value":"%s","ts":%d}\n' "$(hex k1)" "$(hex 'not json, old')" "$old_ms"
  printf '{"partition":0,"key":"%s","value":"%s","ts":%d}\n' "$(hex k2)" "$(hex 'not json, new')" "$now_ms"
  printf '{"partition":0,"key":"%s","value":"%s","ts":%d}\n' "$(hex k3)" "$(hex '{"id":"r3","amount":3}')" "$now_ms"
} | record_tool produce "$src"
# One transaction for all four at first (a long commit interval), so that
# both dead-letter writes share a refused batch (linger.ms: one batch).
start_engine half "$work/half.json" "$work/state-half" --commit-interval-ms 2000 -X linger.ms=200
wait_engine half 60
check_eq "exit code" 65 "$engine_rc"
grep -q "refused one record of the 4 in the transaction without saying which (INVALID_TIMESTAMP" "$work/half.log" ||
  { show_log half; fail "the engine does not say it halves a batch refused whole"; }
grep -q "${src}/0@1: invalid, and dead-letter topic '$dlq' refused it, alone in a batch (INVALID_TIMESTAMP" "$work/half.log" ||
  { show_log half; fail "the run does not name offset 1 and the dead-letter topic's refusal"; }
check_eq "committed offset" 1 "$(committed_offset "$app" "$src" 0)"
check_eq "sink" '{"id":"r0","amount":0}' "$(values_committed "$sink")"
check_eq "dead-lettered" "" "$(values_committed "$dlq")"

echo "== 5. a dead-letter write over the producer's message.max.bytes"
src=$(unique big-in) sink=$(unique big-out) dlq=$(unique big-dead) app=$(unique sink-big)
create_topic "$src" 1
create_topic "$sink" 1
create_topic "$dlq" 1
orders_schema "$src" "$work/big.schema.json"
echo "SELECT id, amount FROM orders" | "$STREAMT_BINARY" compile --schema "$work/big.schema.json" \
  --application-id "$app" --sink-topic "$sink" --on-invalid dead-letter --dead-letter-topic "$dlq" \
  --output "$work/big.json" -
python3 - "$now_ms" <<'PY' | record_tool produce "$src"
import json, sys
ts = int(sys.argv[1])
print(json.dumps({"partition": 0, "key": b"k0".hex(), "value": b'{"id":"r0","amount":0}'.hex(), "ts": ts}))
print(json.dumps({"partition": 0, "key": b"k1".hex(), "value": (b"x" * 1040000).hex(), "ts": ts}))
PY
start_engine big "$work/big.json" "$work/state-big"
wait_engine big 60
check_eq "exit code" 65 "$engine_rc"
grep -qE "${src}/0@1: invalid, and the dead-letter write of 104[0-9]{4} bytes \(key, value and headers\) can never be written to dead-letter topic '$dlq'.*message.max.bytes.*max.message.bytes" \
  "$work/big.log" || { show_log big; fail "the run does not name the record, its whole size and both limits"; }
check_eq "committed offset" 1 "$(committed_offset "$app" "$src" 0)"
check_eq "sink" '{"id":"r0","amount":0}' "$(values_committed "$sink")"
echo "sink_refusals: ok"
