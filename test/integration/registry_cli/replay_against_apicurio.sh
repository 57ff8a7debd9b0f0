#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# `streamt replay --schema-registry` against the real Apicurio Registry 3.0.9
# of the `registry` fixture (issue 37). The source's versions are registered
# with curl; the records are written by fastavro (an independent Avro
# implementation, tools/pyclients) in the Confluent wire format and given to
# replay as "payload_base64":
#   v1  id, amount, price (decimal(9,2)), note (nullable, default null)
#   v2  v1 and a channel with a default, interleaved with v1's records
# The plan is compiled from the registry (its sink Avro, as the source is);
# the outputs' base64 is decoded by fastavro with the schema the registry
# holds under the id each output is framed with, and compared with the rows
# the query selects, decimals exact. Then each bad record's reason code, and
# the exit codes of a missing flag (2), a registry that is down (69), one
# whose URL lacks the API's path (78) and --no-register before the sink
# schema is registered (1). No broker: nothing here reads a topic.
source "$(dirname "$0")/lib.sh"
python=$("$(dirname "$0")/../../../tools/pyclients")

# Topics and subjects of this run only: the fixture's registry outlives one run.
topic="orders-$(date +%s%N | tail -c 9)-$RANDOM"
sink="big-$topic"
v1='{"type":"record","name":"order","namespace":"shop","fields":[
  {"name":"id","type":"string"},{"name":"amount","type":"long"},
  {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
  {"name":"note","type":["null","string"],"default":null}]}'
v2='{"type":"record","name":"order","namespace":"shop","fields":[
  {"name":"id","type":"string"},{"name":"amount","type":"long"},
  {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
  {"name":"note","type":["null","string"],"default":null},
  {"name":"channel","type":"string","default":"web"}]}'
# Another subject's schema without amount, which the plan reads: records
# written with it cannot be read with the plan's schema.
no_amount='{"type":"record","name":"order","namespace":"shop","fields":[{"name":"id","type":"string"}]}'
id1=$(register "$topic-value" "$v1")
id2=$(register "$topic-value" "$v2")
id_other=$(register "$topic-other-value" "$no_amount")
echo 'SELECT id, amount, price, note FROM orders WHERE amount >= 100' >"$work/q.sql"
streamt compile --schema-registry "$url" --source-topic "$topic" --application-id orders-big \
  --sink-topic "$sink" --output "$work/plan.json" "$work/q.sql"
check_eq "compile from the registry exits 0" 0 "$rc"
check_eq "the plan's sink is Avro" avro \
  "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["sink"]["format"])' "$work/plan.json")"

# envelopes FILE SPEC...: writes one envelope a line, each SPEC a JSON
# array [key, schema, id, record] framed by fastavro, or ["raw", key, TEXT]
# for bytes as they are; "truncate" after the record drops its last byte.
envelopes() {
  local file=$1
  shift
  "$python" - "$file" "$v1" "$v2" "$no_amount" "$@" <<'PY'
import base64, io, json, struct, sys
from decimal import Decimal
import fastavro
out, schemas = sys.argv[1], {n: fastavro.parse_schema(json.loads(t)) for n, t in zip(("v1", "v2", "other"), sys.argv[2:5])}
with open(out, "w") as f:
    for spec in map(json.loads, sys.argv[5:]):
        if spec[0] == "raw":
            f.write(json.dumps({"key": spec[1], "payload": spec[2]}) + "\n")
            continue
        key, name, schema_id, record = spec[:4]
        if "price" in record:
            record["price"] = Decimal(record["price"])
        body = io.BytesIO()
        fastavro.schemaless_writer(body, schemas[name], record)
        framed = b"\0" + struct.pack(">I", schema_id) + body.getvalue()
        if spec[4:] == ["truncate"]:
            framed = framed[:-1]
        f.write(json.dumps({"key": key, "payload_base64": base64.b64encode(framed).decode()}) + "\n")
PY
}

envelopes "$work/in.jsonl" \
  "[\"a\",\"v1\",$id1,{\"id\":\"a\",\"amount\":120,\"price\":\"1234567.89\",\"note\":\"first\"}]" \
  "[\"b\",\"v2\",$id2,{\"id\":\"b\",\"amount\":50,\"price\":\"0.01\",\"note\":null,\"channel\":\"app\"}]" \
  "[\"c\",\"v2\",$id2,{\"id\":\"c\",\"amount\":100,\"price\":\"-0.10\",\"note\":null,\"channel\":\"app\"}]" \
  "[\"d\",\"v1\",$id1,{\"id\":\"d\",\"amount\":99,\"price\":\"5.00\",\"note\":\"x\"}]" \
  "[\"e\",\"v1\",$id1,{\"id\":\"e\",\"amount\":7000000000,\"price\":\"9999999.99\",\"note\":\"last\"}]"

# Without --schema-registry: a usage error naming the flag.
streamt replay "$work/plan.json" --input "$work/in.jsonl"
check_eq "replay of an Avro plan without --schema-registry exits 2" 2 "$rc"
check_has "... naming the flag" "give --schema-registry URL" "$err"

# --no-register before anything registered the sink schema: nothing to find.
streamt replay "$work/plan.json" --input "$work/in.jsonl" --schema-registry "$url" --no-register
check_eq "replay --no-register before the sink schema is registered exits 1" 1 "$rc"
check_has "... naming the subject" "'$sink-value'" "$err"

streamt replay "$work/plan.json" --input "$work/in.jsonl" --schema-registry "$url"
check_eq "replay --schema-registry exits 0" 0 "$rc"
check_has "... counting the records" "5 consumed, 3 emitted, 2 filtered" "$err"
printf '%s\n' "$out" >"$work/replayed.jsonl"
sink_id=$(curl -fsS --max-time 30 "$url/subjects/$sink-value/versions/latest" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')

# decoded FILE: each output envelope's key, source offset and value, the
# value decoded by fastavro with the schema the registry has under the id
# it is framed with; fails unless every value is framed with SINK_ID.
decoded() {
  "$python" - "$1" "$url" "$sink_id" <<'PY'
import base64, io, json, struct, sys, urllib.request
import fastavro
path, url, sink_id = sys.argv[1], sys.argv[2], int(sys.argv[3])
schemas = {}
for line in open(path):
    e = json.loads(line)
    assert "payload" not in e, "an Avro output written as text"
    raw = base64.b64decode(e["payload_base64"], validate=True)
    magic, schema_id = raw[0], struct.unpack(">I", raw[1:5])[0]
    assert magic == 0 and schema_id == sink_id, (magic, schema_id, sink_id)
    if schema_id not in schemas:
        with urllib.request.urlopen(f"{url}/schemas/ids/{schema_id}", timeout=30) as r:
            schemas[schema_id] = fastavro.parse_schema(json.loads(json.load(r)["schema"]))
    body = io.BytesIO(raw[5:])
    value = fastavro.schemaless_reader(body, schemas[schema_id], None)
    assert body.read() == b"", "bytes after the record"
    print(e["key"], e["source"]["offset"], json.dumps(value, default=str, sort_keys=True))
PY
}
expected='a 0 {"amount": 120, "id": "a", "note": "first", "price": "1234567.89"}
c 2 {"amount": 100, "id": "c", "note": null, "price": "-0.10"}
e 4 {"amount": 7000000000, "id": "e", "note": "last", "price": "9999999.99"}'
check_eq "the outputs, decoded by fastavro through the registry, are the selected rows (decimals exact)" \
  "$expected" "$(decoded "$work/replayed.jsonl")"

# Now the sink schema is registered, --no-register finds it by its form.
streamt replay "$work/plan.json" --input "$work/in.jsonl" --schema-registry "$url" --no-register
check_eq "replay --no-register once the schema is registered exits 0" 0 "$rc"
check_eq "... with the same outputs" "$(<"$work/replayed.jsonl")" "$out"

# Each bad record: its reason code, the output before it written, none after.
good="[\"a\",\"v1\",$id1,{\"id\":\"a\",\"amount\":120,\"price\":\"1.00\",\"note\":null}]"
after="[\"z\",\"v1\",$id1,{\"id\":\"z\",\"amount\":500,\"price\":\"1.00\",\"note\":null}]"
bad_record() {  # bad_record WHAT CODE SPEC
  envelopes "$work/bad.jsonl" "$good" "$3" "$after"
  streamt replay "$work/plan.json" --input "$work/bad.jsonl" --schema-registry "$url"
  check_eq "$1: exit 65" 65 "$rc"
  check_has "... [$2] at its offset" "$topic/0@1: " "$err"
  check_has "... with its code" "[$2]" "$err"
  check_eq "... the output before it written, none after" 1 "$(grep -c payload_base64 <<<"$out")"
}
bad_record "a value that is not registry-framed" not_registry_framed '["raw","b","{\"id\":\"b\"}"]'
bad_record "an id the registry does not have" unknown_schema_id \
  '["b","v1",2147000000,{"id":"b","amount":1,"price":"1.00","note":null}]'
bad_record "a writer schema without a field the plan reads" schema_incompatible \
  "[\"b\",\"other\",$id_other,{\"id\":\"b\"}]"
bad_record "a body cut short" malformed_avro \
  "[\"b\",\"v1\",$id1,{\"id\":\"b\",\"amount\":1,\"price\":\"1.00\",\"note\":\"cut\"},\"truncate\"]"

# A value in "payload_base64" that is no base64: the envelope's fault.
printf '{"key":"a","payload_base64":"AAAA-_"}\n' >"$work/not-base64.jsonl"
streamt replay "$work/plan.json" --input "$work/not-base64.jsonl" --schema-registry "$url"
check_eq "a payload_base64 that is no base64 exits 65" 65 "$rc"
check_has "... naming the line and the character" "input line 1: \"payload_base64\" is not base64" "$err"

# The registry down: exit 69 (a script may try again), nothing replayed.
closed=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
streamt replay "$work/plan.json" --input "$work/in.jsonl" --schema-registry "http://127.0.0.1:$closed/apis/ccompat/v7"
check_eq "replay with the registry unreachable exits 69" 69 "$rc"
check_eq "... writing nothing" "" "$out"

# The URL without the compatibility API's path: a refused setting.
streamt replay "$work/plan.json" --input "$work/in.jsonl" --schema-registry "${url%%/apis/*}"
check_eq "replay against the registry's root, not its API, exits 78" 78 "$rc"
check_has "... pointing at the path prefix" "/apis/ccompat/v7" "$err"

echo "registry_replay_against_apicurio: $checks checks passed"
