#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# contract §3-§5, the schema's "changelog": a compacted source read as a
# table's changelog by key.
#   1. "changelog": "upsert", WHERE tier = 'gold', over a compacted
#      customers topic holding c1 gold, c2 silver, c3 gold, a tombstone of
#      c1, c3 silver: the sink holds, read_committed and in order, exactly
#      c1 gold, a tombstone of c2 (silver does not pass), c3 gold, a
#      tombstone of c1 (forwarded), a tombstone of c3 (its new value does not
#      pass); each with its input's key and headers. streamt explain says
#      what upsert does.
#   2. The same topic under a plan that did not choose: refused at start
#      with exit 78, nothing consumed, the message naming the topic, its
#      cleanup.policy and what to declare; a version 1 plan is told to
#      recompile with "changelog": "append".
#   3. "changelog": "append" keeps treating it as a stream: c1 gold and c3
#      gold only.
#   4. Upsert over a topic with a keyless record (a compacted topic takes
#      none, so a topic that is not compacted), on_invalid dead-letter: the
#      keyless record is dead-lettered as missing_key, the others go on.
#
# Produced and read with the Java client through RecordTool.java (headers,
# null values, read_committed).
source "$(dirname "$0")/lib.sh"

src=$(unique customers)
create_topic "$src" 1 --config cleanup.policy=compact
build_record_tool

# schema FILE [MEMBERS]: customers(id, tier), with the schema members given.
schema() {
  cat >"$1" <<JSON
{"source": "customers", "topic": "$src",
 "columns": [{"name": "id", "type": "STRING", "nullable": false},
             {"name": "tier", "type": "STRING", "nullable": false}]${2:+, $2}}
JSON
}
gold="SELECT id, tier FROM customers WHERE tier = 'gold'"

# RecordTool's input format: hex bytes.
python3 >"$work/input.jsonl" <<'PY'
import json
def h(s): return None if s is None else s.encode().hex()
def customer(id, tier): return h(json.dumps({"id": id, "tier": tier}, separators=(",", ":")))
records = [
    ("c1", customer("c1", "gold"), [["source", h("crm")]]),
    ("c2", customer("c2", "silver"), [["source", h("crm")]]),
    ("c3", customer("c3", "gold"), []),
    ("c1", None, [["reason", h("closed")]]),
    ("c3", customer("c3", "silver"), [["source", h("web")]]),
]
for key, value, headers in records:
    print(json.dumps({"partition": 0, "key": h(key), "value": value, "headers": headers}))
PY
record_tool produce "$src" <"$work/input.jsonl"

# sink_records TOPIC: the sink read_committed, one "KEY VALUE HEADERS" line a
# record in offset order, decoded ("null" for a null value).
sink_records() {
  record_tool dump "$1" >"$work/$1.dump"
  python3 - "$work/$1.dump" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    r = json.loads(line)
    d = lambda x: "null" if x is None else bytes.fromhex(x).decode()
    print(d(r["key"]), d(r["value"]), ",".join(n + "=" + d(v) for n, v in r["headers"]))
PY
}

echo "== 1. upsert"
sink=$(unique gold-customers) app=$(unique changelog-upsert)
create_topic "$sink" 1
schema "$work/upsert.schema.json" '"changelog": "upsert"'
compile "$work/upsert.schema.json" "$app" "$sink" "$gold" "$work/upsert.json"
check_eq "the compiled plan is version 2" 2 \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["plan_version"])' "$work/upsert.json")"
start_engine upsert "$work/upsert.json" "$work/state-upsert"
wait_for_offsets "$app" "$src" "0:5" 90 || { show_log upsert; fail "committed offset"; }
stop_engine upsert
check_eq "exit code" 0 "$engine_rc"
check_eq "the sink, in order" \
  'c1 {"id":"c1","tier":"gold"} source=crm
c2 null source=crm
c3 {"id":"c3","tier":"gold"} 
c1 null reason=closed
c3 null source=web' "$(sink_records "$sink")"
"$STREAMT_BINARY" explain "$work/upsert.json" >"$work/explain.txt"
grep -qF "a record that does not pass is written as a tombstone of its key (changelog: upsert)" \
  "$work/explain.txt" || { cat "$work/explain.txt"; fail "explain does not say what upsert does"; }
check_eq "the final counts" \
  "stopped cleanly: 5 consumed, 2 emitted, 2 filtered (2 deleted), 1 tombstones (1 forwarded)" \
  "$(grep -o 'stopped cleanly: [^,]*, [^,]*, [^,]*, [^,]*forwarded)' "$work/upsert.log" || true)"

echo "== 2. no changelog chosen"
sink2=$(unique silent-customers) app2=$(unique changelog-none)
create_topic "$sink2" 1
schema "$work/v1.schema.json"
compile "$work/v1.schema.json" "$app2" "$sink2" "$gold" "$work/v1.json"
check_eq "a schema without the new members compiles to version 1" 1 \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["plan_version"])' "$work/v1.json")"
refused v1 78 "source topic '$src' is compacted (cleanup.policy=compact)" "$work/v1.json" \
  --bootstrap-servers "$STREAMT_BOOTSTRAP" --state-dir "$work/state-v1"
grep -qF 'This plan is version 1, which cannot say: to keep today'"'"'s behaviour, recompile it with "changelog": "append"' \
  "$work/v1.log" || { show_log v1; fail "the version 1 refusal does not say to recompile with append"; }
# Version 2 (it forwards tombstones) but no changelog: the same refusal,
# saying what to declare.
schema "$work/v2.schema.json" '"tombstones": "forward"'
compile "$work/v2.schema.json" "$app2" "$sink2" "$gold" "$work/v2.json"
refused v2 78 'Declare "changelog": "upsert" in the schema for table semantics, or "changelog": "append" to keep treating it as a stream, and recompile' \
  "$work/v2.json" --bootstrap-servers "$STREAMT_BOOTSTRAP" --state-dir "$work/state-v2"
grep -qF "deleted and stale keys in sink topic '$sink2'" "$work/v2.log" ||
  { show_log v2; fail "the refusal does not say why"; }
check_eq "nothing committed by the refused plans" none "$(committed_offset "$app2" "$src" 0)"
check_eq "nothing written by the refused plans" "" "$(sink_records "$sink2")"

echo "== 3. append"
sink3=$(unique stream-customers) app3=$(unique changelog-append)
create_topic "$sink3" 1
schema "$work/append.schema.json" '"changelog": "append"'
compile "$work/append.schema.json" "$app3" "$sink3" "$gold" "$work/append.json"
start_engine append "$work/append.json" "$work/state-append"
wait_for_offsets "$app3" "$src" "0:5" 90 || { show_log append; fail "committed offset"; }
stop_engine append
check_eq "append: exit code" 0 "$engine_rc"
check_eq "append: the sink, in order" \
  'c1 {"id":"c1","tier":"gold"} source=crm
c3 {"id":"c3","tier":"gold"} ' "$(sink_records "$sink3")"
echo "== 4. upsert, a record without a key, dead-lettered"
src4=$(unique keyless-customers) sink4=$(unique keyless-gold) dlq4=$(unique keyless-dead)
app4=$(unique changelog-keyless)
create_topic "$src4" 1
create_topic "$sink4" 1
create_topic "$dlq4" 1
sed "s/\"$src\"/\"$src4\"/" "$work/upsert.schema.json" >"$work/keyless.schema.json"
echo "$gold" | "$STREAMT_BINARY" compile --schema "$work/keyless.schema.json" --application-id "$app4" \
  --sink-topic "$sink4" --on-invalid dead-letter --dead-letter-topic "$dlq4" --output "$work/keyless.json" -
python3 >"$work/keyless.jsonl" <<'PY'
import json
def h(s): return None if s is None else s.encode().hex()
def customer(id, tier): return h(json.dumps({"id": id, "tier": tier}, separators=(",", ":")))
for key, value in [("k1", customer("k1", "gold")), (None, customer("k0", "gold")), ("k2", customer("k2", "silver"))]:
    print(json.dumps({"partition": 0, "key": h(key), "value": value, "headers": []}))
PY
record_tool produce "$src4" <"$work/keyless.jsonl"
start_engine keyless "$work/keyless.json" "$work/state-keyless"
wait_for_offsets "$app4" "$src4" "0:3" 90 || { show_log keyless; fail "committed offset"; }
stop_engine keyless
check_eq "keyless: exit code" 0 "$engine_rc"
check_eq "keyless: the sink, in order" \
  'k1 {"id":"k1","tier":"gold"} 
k2 null ' "$(sink_records "$sink4")"
dead=$(sink_records "$dlq4")
check_eq "keyless: the dead-lettered record" 'null {"id":"k0","tier":"gold"}' "$(cut -d' ' -f1,2 <<<"$dead")"
grep -qF "streamt.error.code=missing_key" <<<"$dead" || fail "keyless: not dead-lettered as missing_key: $dead"
grep -qF "streamt.error.message=changelog upsert needs a key; this record has none" <<<"$dead" ||
  fail "keyless: the reason does not say the key is missing: $dead"
echo "$checks_passed passed, 0 failed"
