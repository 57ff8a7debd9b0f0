#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# contract §3-§4, plan version 2 against a real broker, records written and
# read by the Java client (RecordTool.java, byte-exact):
#
# 1. A Debezium change stream over two partitions (creates with before null,
#    updates, deletes with after null, each delete followed by its
#    tombstone, the tenant in a header), filtered on op and on a DECIMAL in
#    after, projecting after's fields and the tenant header, with
#    tombstones forwarded. Through a SIGKILL while a transaction is open and
#    a restart, the sink holds exactly the expected records and tombstones,
#    each once, in each key's order (read_committed).
# 2. Kafka Connect's JsonConverter envelope ({"schema": ..., "payload": ...})
#    read through payload.* columns, the schema kept as JSON.
# 3. An application record with a nested object and an array, the array
#    kept as JSON.
source "$(dirname "$0")/lib.sh"

build_record_tool
# produce_values TOPIC VALUE...: each value, without a key, to partition 0.
produce_values() {
  local topic=$1 v
  shift
  for v in "$@"; do
    printf '{"partition":0,"key":null,"value":"%s","headers":[]}\n' \
      "$(python3 -c 'import sys; print(sys.argv[1].encode().hex())' "$v")"
  done | record_tool produce "$topic"
}
# run_until NAME PLAN APP TOPIC N: runs PLAN until its N input records are
# committed, then stops it; it must stop cleanly.
run_until() {
  start_engine "$1" "$2" "$work/state-$1"
  wait_committed_total "$3" "$4" "$5" 120 || { show_log "$1"; fail "$1: the records were not committed"; }
  stop_engine "$1"
  check_eq "the $1 run stops cleanly" 0 "$engine_rc"
}
# sink_values TOPIC: the topic's committed values, in order, joined by |.
sink_values() {
  record_tool dump "$1" | python3 -c '
import json, sys
print("|".join(bytes.fromhex(json.loads(l)["value"]).decode() for l in sys.stdin if l.strip()))'
}

echo "== 1. Debezium change events"
src=$(unique cdc-in) sink=$(unique cdc-out) app=$(unique cdc)
create_topic "$src" 2
create_topic "$sink" 2
cat >"$work/payments.schema.json" <<JSON
{"source": "payments", "topic": "$src", "unknown_fields": "ignore", "tombstones": "forward",
 "columns": [
   {"name": "op", "type": "STRING", "nullable": false},
   {"name": "ts_ms", "type": "TIMESTAMP", "nullable": false},
   {"name": "before", "type": "ROW", "nullable": true, "fields": [
     {"name": "id", "type": "BIGINT", "nullable": false},
     {"name": "amount", "type": "DECIMAL(10,2)", "nullable": false},
     {"name": "currency", "type": "STRING", "nullable": false}]},
   {"name": "after", "type": "ROW", "nullable": true, "fields": [
     {"name": "id", "type": "BIGINT", "nullable": false},
     {"name": "amount", "type": "DECIMAL(10,2)", "nullable": false},
     {"name": "currency", "type": "STRING", "nullable": false}]},
   {"name": "source", "type": "ROW", "nullable": false, "unknown_fields": "ignore", "fields": [
     {"name": "table", "type": "STRING", "nullable": false}]},
   {"name": "tenant", "type": "STRING", "nullable": true, "from": "header:tenant"}]}
JSON
echo "SELECT after.id AS id, after.amount AS amount, after.currency, tenant FROM payments
      WHERE op <> 'd' AND after.amount >= 50.00" |
  "$STREAMT_BINARY" compile --schema "$work/payments.schema.json" --application-id "$app" --sink-topic "$sink" \
    --output "$work/cdc.json" -
"$STREAMT_BINARY" check "$work/cdc.json" | grep -q '^plan_version: *2$' || fail "check does not show plan_version 2"

# FROM TO: change events of payments FROM..TO-1, keyed by payment id: a
# create, for some an update and for some a delete and its tombstone.
# Amounts are written as JSON numbers and, for odd ids, as strings (as
# Debezium's decimal.handling.mode=string does).
events() {
  python3 - "$1" "$2" <<'PY'
import json, sys, time
first, last = int(sys.argv[1]), int(sys.argv[2])
now = int(time.time() * 1000)
def h(b): return None if b is None else b.hex()
def amount(i, k):
    cents = (i * 37 + k * 1300) % 12000
    text = "%d.%02d" % (cents // 100, cents % 100)
    return text if i % 2 else json.loads(text.rstrip("0").rstrip(".") if "." in text else text)
def row(i, k): return {"id": i, "amount": amount(i, k), "currency": ["EUR", "USD"][i % 2]}
def event(i, op, before, after):
    value = {"before": before, "after": after, "source": {"version": "2.5.0.Final", "connector": "postgresql",
             "name": "shop", "db": "shop", "schema": "public", "table": "payments", "lsn": i},
             "op": op, "ts_ms": now + i, "transaction": None}
    return json.dumps(value, separators=(",", ":")).encode()
for i in range(first, last):
    key, part = h(b'{"id":%d}' % i), i % 2
    tenant = [["tenant", h([b"acme", b"globex", b"initech"][i % 3])]]
    out = [(event(i, "c", None, row(i, 0)), tenant)]
    if i % 3 == 0: out.append((event(i, "u", row(i, 0), row(i, 1)), tenant))
    if i % 4 == 1: out += [(event(i, "d", row(i, 0), None), tenant), (None, [])]
    for value, headers in out:
        print(json.dumps({"partition": part, "key": key, "value": h(value), "ts": now + i, "headers": headers}))
PY
}
events 0 150 >"$work/cdc1.jsonl"
events 150 300 >"$work/cdc2.jsonl"
total=$(cat "$work/cdc1.jsonl" "$work/cdc2.jsonl" | wc -l)
half=$(wc -l <"$work/cdc1.jsonl")
record_tool produce "$src" <"$work/cdc1.jsonl"
group_settings=(-X session.timeout.ms=6000 -X heartbeat.interval.ms=500)
start_engine cdc1 "$work/cdc.json" "$work/state-cdc" --commit-interval-ms 3000 "${group_settings[@]}"
wait_committed_total "$app" "$src" "$half" 120 || { show_log cdc1; fail "the first half was not committed"; }
record_tool produce "$src" <"$work/cdc2.jsonl"
# Killed as soon as the second half is in the topic: the engine reads it
# within milliseconds into a transaction that commits only after 3 s.
kill -9 "${engine_pid[cdc1]}"
wait_engine cdc1 30
check_eq "the first run was killed" 137 "$engine_rc"
start_engine cdc2 "$work/cdc.json" "$work/state-cdc" "${group_settings[@]}"
wait_committed_total "$app" "$src" "$total" 180 || { show_log cdc2; fail "not every change event was committed"; }
stop_engine cdc2
check_eq "the restarted run stops cleanly" 0 "$engine_rc"

record_tool dump "$src" >"$work/cdc-in.dump"
record_tool dump "$sink" >"$work/cdc-out.dump"
python3 - "$work/cdc-in.dump" "$work/cdc-out.dump" >"$work/cdc-checks.tsv" <<'PY'
import collections, json, sys
from decimal import Decimal
def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]
def check(what, expected, actual):
    print(f"{what}\t{json.dumps(expected, sort_keys=True)}\t{json.dumps(actual, sort_keys=True)}")
inputs, outputs = load(sys.argv[1]), load(sys.argv[2])
def text(hexed): return None if hexed is None else bytes.fromhex(hexed).decode()
expected = collections.defaultdict(list)
for r in sorted(inputs, key=lambda r: (r["partition"], r["offset"])):
    if r["value"] is None:
        expected[r["key"]].append(None)
        continue
    e = json.loads(text(r["value"]))
    after = e["after"]
    if e["op"] == "d" or Decimal(str(after["amount"])) < Decimal("50.00"):
        continue
    tenant = dict((n, text(v)) for n, v in r["headers"]).get("tenant")
    expected[r["key"]].append('{"id":%d,"amount":%s,"currency":"%s","tenant":"%s"}' % (
        after["id"], Decimal(str(after["amount"])).quantize(Decimal("0.01")), after["currency"], tenant))
actual = collections.defaultdict(list)
for r in outputs:
    actual[r["key"]].append(text(r["value"]))
check("tombstones in the input", True, sum(1 for r in inputs if r["value"] is None) > 30)
check("each key's outputs and tombstones, in order, each once", dict(expected), dict(actual))
check("a forwarded tombstone keeps no value and its key",
      True, all(r["value"] is None for r in outputs if r["value"] is None))
PY
check_each "$work/cdc-checks.tsv"
# The restart did the killed transaction's work again (committed once, as
# checked above), tombstones included.
grep -qE 'stopped cleanly: [1-9][0-9]* consumed, .*[1-9][0-9]* tombstones' "$work/cdc2.log" ||
  { show_log cdc2; fail "the restart redid no work: the kill found no open transaction"; }

echo "== 2. Kafka Connect JsonConverter envelopes"
src=$(unique connect-in) sink=$(unique connect-out) app=$(unique connect)
create_topic "$src" 1
create_topic "$sink" 1
cat >"$work/connect.schema.json" <<JSON
{"source": "customers", "topic": "$src",
 "columns": [
   {"name": "schema", "type": "JSON", "nullable": true},
   {"name": "payload", "type": "ROW", "nullable": false, "fields": [
     {"name": "id", "type": "BIGINT", "nullable": false},
     {"name": "user-id", "type": "STRING", "nullable": false},
     {"name": "balance", "type": "DECIMAL(12,3)", "nullable": true},
     {"name": "updated", "type": "TIMESTAMP", "nullable": false}]}]}
JSON
echo 'SELECT payload.id, payload."user-id" AS user_id, payload.balance FROM customers
      WHERE payload.balance > 0 AND payload.updated >= TIMESTAMP '"'"'2026-01-01 00:00:00+00:00'"'"'' |
  "$STREAMT_BINARY" compile --schema "$work/connect.schema.json" --application-id "$app" --sink-topic "$sink" \
    --output "$work/connect.json" -
connect_schema='{"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"},{"type":"string","optional":false,"field":"user-id"},{"type":"string","optional":true,"field":"balance"},{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","field":"updated"}],"optional":false,"name":"customers"}'
produce_values "$src" \
  '{"schema":'"$connect_schema"',"payload":{"id":1,"user-id":"u-1","balance":"10.500","updated":1767225600000}}' \
  '{"schema":'"$connect_schema"',"payload":{"id":2,"user-id":"u-2","balance":"0.000","updated":1767225600000}}' \
  '{"schema":'"$connect_schema"',"payload":{"id":3,"user-id":"u-3","balance":null,"updated":1767225600000}}' \
  '{"schema":'"$connect_schema"',"payload":{"id":4,"user-id":"u-4","balance":"7","updated":1735689600000}}' \
  '{"schema":null,"payload":{"id":5,"user-id":"u-5","balance":12.25,"updated":"2026-06-01T12:00:00+02:00"}}'
run_until connect "$work/connect.json" "$app" "$src" 5
check_eq "payload columns filtered and projected" \
  '{"id":1,"user_id":"u-1","balance":10.500}|{"id":5,"user_id":"u-5","balance":12.250}' "$(sink_values "$sink")"

echo "== 3. nested application records with an array kept as JSON"
src=$(unique app-in) sink=$(unique app-out) app=$(unique nested)
create_topic "$src" 1
create_topic "$sink" 1
cat >"$work/orders.schema.json" <<JSON
{"source": "orders", "topic": "$src",
 "columns": [
   {"name": "id", "type": "BIGINT", "nullable": false},
   {"name": "customer", "type": "ROW", "nullable": false, "fields": [
     {"name": "id", "type": "STRING", "nullable": false},
     {"name": "tier", "type": "STRING", "nullable": true}]},
   {"name": "items", "type": "JSON", "nullable": false},
   {"name": "total", "type": "DOUBLE", "nullable": false}]}
JSON
echo "SELECT id, customer.id AS customer_id, customer, items, total FROM orders WHERE customer.tier = 'gold'" |
  "$STREAMT_BINARY" compile --schema "$work/orders.schema.json" --application-id "$app" --sink-topic "$sink" \
    --output "$work/nested.json" -
produce_values "$src" \
  '{"id":1,"customer":{"id":"c1","tier":"gold"},"items":[{"sku":"a","qty":2},{"sku":"b","qty":1,"tags":["x"]}],"total":30.5}' \
  '{"id":2,"customer":{"id":"c2","tier":"silver"},"items":[],"total":1}' \
  '{"id":3,"customer":{"id":"c3","tier":null},"items":[],"total":2}' \
  '{"id":4, "customer" : {"tier":"gold", "id":"c4"}, "items" : [ 1, "two", null ], "total" : 1e2}'
run_until nested "$work/nested.json" "$app" "$src" 4
check_eq "nested columns projected, the array kept as JSON" \
  '{"id":1,"customer_id":"c1","customer":{"id":"c1","tier":"gold"},"items":[{"sku":"a","qty":2},{"sku":"b","qty":1,"tags":["x"]}],"total":30.5}|{"id":4,"customer_id":"c4","customer":{"id":"c4","tier":"gold"},"items":[1,"two",null],"total":100}' \
  "$(sink_values "$sink")"
echo "$checks_passed passed, 0 failed"
