#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# streamt diff of plans that read and write Avro (issue 37, contract §6),
# against the real broker and the real Apicurio registry. The records are
# written by confluent-kafka's AvroSerializer (an independent client), two
# writer versions interleaved (v2 adds a field with a default), with a
# decimal(9,2) price. OLD passes amount >= 50 with id, amount, price; NEW
# passes amount >= 150 with amount renamed total; both write Avro, compared
# decoded: each differing record's values are checked against what this
# test computes from the values it wrote (decimals exact). A JSON-sink
# variant of OLD does not differ from OLD; without --schema-registry diff is
# a usage error naming it, and against the registry's root (no API path) a
# refused setting (78).
source "$(dirname "$0")/lib.sh"
: "${STREAMT_REGISTRY_ENV:?set by ctest}"
# shellcheck disable=SC1090
source "$STREAMT_REGISTRY_ENV"
url=$STREAMT_REGISTRY_URL
python=$("$root/tools/pyclients")

src=$(unique avro-diff-in) sink=$(unique avro-diff-out) app=$(unique avro-diff)
create_topic "$src" 2
"$python" - "$STREAMT_BOOTSTRAP" "$url" "$src" <<'PY'
import json, sys
from decimal import Decimal
from confluent_kafka import Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
bootstrap, url, topic = sys.argv[1:4]
price = {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}
v1 = {"type": "record", "name": "order", "namespace": "shop", "fields": [
    {"name": "id", "type": "string"}, {"name": "amount", "type": "long"}, {"name": "price", "type": price}]}
v2 = dict(v1, fields=v1["fields"] + [{"name": "channel", "type": "string", "default": "web"}])
client = SchemaRegistryClient({"url": url})
serializers = [AvroSerializer(client, json.dumps(s), conf={"auto.register.schemas": True}) for s in (v1, v2)]
ctx = SerializationContext(topic, MessageField.VALUE)
producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
for i in range(40):
    value = {"id": f"r{i}", "amount": i * 5, "price": Decimal(f"{i * 1000}.{i:02d}")}
    if i % 2:
        value["channel"] = "app"
    producer.produce(topic, key=f"k{i}".encode(), value=serializers[i % 2](value, ctx), partition=i % 2)
assert producer.flush(60) == 0, "records left unflushed"
PY
compile_avro() {  # compile_avro QUERY OUTPUT [OPTIONS...]
  echo "$1" | "$STREAMT_BINARY" compile --schema-registry "$url" --source-topic "$src" --application-id "$app" \
    --sink-topic "$sink" --output "$2" "${@:3}" -
}
compile_avro "SELECT id, amount, price FROM orders WHERE amount >= 50" "$work/old.json"
compile_avro "SELECT id, amount AS total, price FROM orders WHERE amount >= 150" "$work/new.json"
compile_avro "SELECT id, amount, price FROM orders WHERE amount >= 50" "$work/old-json.json" --sink-format json
check_eq "OLD and NEW write Avro" "avro avro" \
  "$(python3 -c 'import json, sys; print(*(json.load(open(f))["sink"]["format"] for f in sys.argv[1:]))' \
    "$work/old.json" "$work/new.json")"

diff_plans() { "$STREAMT_BINARY" diff "$@" --bootstrap-servers "$STREAMT_BOOTSTRAP"; }

echo "== OLD and NEW over the records of both writer versions"
rc=0
diff_plans "$work/old.json" "$work/new.json" --schema-registry "$url" --format json --max-diffs 1000 \
  >"$work/report.json" 2>"$work/report.err" || rc=$?
check_eq "diff's exit code when records differ" 3 "$rc"
python3 - "$work/report.json" >"$work/checks.tsv" <<'PY'
import json, sys
from decimal import Decimal
report = json.load(open(sys.argv[1]))
def price(i): return Decimal(f"{i * 1000}.{i:02d}")
expected = {}
for i in range(40):
    amount = i * 5
    old = {"id": f"r{i}", "amount": amount, "price": price(i)} if amount >= 50 else None
    new = {"id": f"r{i}", "total": amount, "price": price(i)} if amount >= 150 else None
    if old is not None or new is not None:
        expected[f"k{i}"] = ["old_only" if new is None else "changed", old, new]
def decoded(v):  # an output as diff prints it: the JSON text of the values
    return None if v is None else json.loads(v, parse_float=Decimal)
got = {e["key"]: [e["difference"], decoded(e["old"]), decoded(e["new"])] for e in report["first_differences"]}
print(f"records read\t40\t{report['records']}")
print(f"each plan's sink format\tavro avro\t{report['old']['sink_format']} {report['new']['sink_format']}")
print(f"old passed, new passed\t30 10\t{report['old']['passed']} {report['new']['passed']}")
print(f"old only, changed\t20 10\t{report['differences']['old_only']} {report['differences']['changed']}")
print(f"invalid\t0 0\t{report['old']['invalid']} {report['new']['invalid']}")
print(f"each differing record's kind and decoded values (decimals exact)\t{sorted(expected.items())}\t{sorted(got.items())}")
PY
check_each "$work/checks.tsv"

echo "== the same rows written as JSON do not differ from OLD's Avro"
rc=0
diff_plans "$work/old.json" "$work/old-json.json" --schema-registry "$url" >"$work/same.txt" || rc=$?
check_eq "OLD against its JSON-sink variant: exit code" 0 "$rc"
grep -q "^no record differs" "$work/same.txt" || { cat "$work/same.txt"; fail "no 'no record differs'"; }
grep -qF "sink format: old avro, new json (Avro outputs compared as the JSON of their values)" "$work/same.txt" ||
  { cat "$work/same.txt"; fail "the report does not say the sink's format changes"; }
checks_passed=$((checks_passed + 2))

echo "== the registry is needed, and must be one"
rc=0
diff_plans "$work/old.json" "$work/new.json" >/dev/null 2>"$work/no-registry.err" || rc=$?
check_eq "without --schema-registry: exit code" 2 "$rc"
grep -qF "give --schema-registry URL" "$work/no-registry.err" || { cat "$work/no-registry.err"; fail "the flag not named"; }
checks_passed=$((checks_passed + 1))
rc=0
diff_plans "$work/old.json" "$work/new.json" --schema-registry "${url%%/apis/*}" >/dev/null 2>"$work/root.err" || rc=$?
check_eq "against the registry's root, not its API: exit code" 78 "$rc"
grep -qF "/apis/ccompat/v7" "$work/root.err" || { cat "$work/root.err"; fail "no hint at the API's path"; }
checks_passed=$((checks_passed + 1))
echo "avro_plan_diff: $checks_passed checks passed"
