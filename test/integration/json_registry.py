# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

"""The independent side of json_registry.sh: registers a JSON Schema, writes
JSON framed as Confluent's JsonSchemaSerializer frames it, computes what the
engine must output, and reads the sink and the dead-letter topic.

The pyclients venv has no `jsonschema`, which confluent-kafka's
JSONSerializer needs, so the frame is written here by hand: a zero byte, the
id the registry gave the schema (4 bytes, big-endian), then the JSON text,
which is all the serializer writes after validating.

  json_registry.py register REGISTRY SUBJECT      registers the JSON Schema, prints its id
  json_registry.py write BOOTSTRAP TOPIC ID COUNT  records 0 .. COUNT-1 to partition 0
  json_registry.py check BOOTSTRAP SINK DLQ ID COUNT
      the sink's read_committed records must be exactly the oracle's outputs
      (SELECT id, amount FROM orders WHERE amount >= 50), each once, and the
      dead-letter topic must hold exactly the bad records, their values
      unchanged, each with not_registry_framed at its offset
"""

import json
import struct
import sys

from avro_registry import read_all
from confluent_kafka import Producer
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient

SCHEMA = {
    "title": "Order",
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "amount": {"type": "integer"},
        "note": {"type": ["null", "string"]},
    },
    "required": ["id", "amount", "note"],
    "additionalProperties": False,
}

# Offset → the bad value written there, and why the engine refuses it.
BAD = {
    3: b'{"id":"r3","amount":300,"note":null}',  # plain JSON, no frame
    5: b"\x00\x00\x01",  # shorter than a frame
    7: b"\x00" + struct.pack(">Q", 7) + b'{"id":"r7","amount":700,"note":null}',  # Apicurio's 8-byte id
}


def record(i):
    return {"id": f"r{i}", "amount": i * 10, "note": None if i % 2 else f"n{i}"}


def value(i, schema_id):
    if i in BAD:
        return BAD[i]
    return b"\x00" + struct.pack(">I", schema_id) + json.dumps(record(i)).encode()


def cmd_register(registry, subject):
    print(SchemaRegistryClient({"url": registry}).register_schema(subject, Schema(json.dumps(SCHEMA), "JSON")))


def cmd_write(bootstrap, topic, schema_id, count):
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for i in range(int(count)):
        producer.produce(topic, key=f"k{i}".encode(), value=value(i, int(schema_id)), partition=0)
    if producer.flush(60) != 0:
        sys.exit(1)


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def cmd_check(bootstrap, sink, dlq, schema_id, count):
    expected = {}
    for i in range(int(count)):
        r = record(i)
        if i not in BAD and r["amount"] >= 50:
            expected[r["id"]] = {"id": r["id"], "amount": r["amount"]}
    got = {}
    for m in read_all(bootstrap, sink):
        v = json.loads(m.value())
        if v["id"] in got:
            fail(f"{v['id']} is in {sink} twice")
        got[v["id"]] = v
    if got != expected:
        missing, extra = sorted(set(expected) - set(got)), sorted(set(got) - set(expected))
        fail(f"sink {sink}: missing {missing[:5]}, unexpected {extra[:5]}, or different values")
    print(f"ok: the sink holds the oracle's {len(expected)} outputs, each once, as plain JSON")
    dead = {}
    for m in read_all(bootstrap, dlq):
        h = dict(m.headers() or [])
        offset = int(h["streamt.source.offset"])
        dead[offset] = (h["streamt.error.code"].decode(), m.value())
    want = {o: ("not_registry_framed", v) for o, v in BAD.items()}
    if dead != want:
        fail(f"dead-letter topic {dlq}: {dead!r}, expected {want!r}")
    print(f"ok: offsets {sorted(want)} dead-lettered with not_registry_framed, their values unchanged")


if __name__ == "__main__":
    commands = {"register": cmd_register, "write": cmd_write, "check": cmd_check}
    commands[sys.argv[1]](*sys.argv[2:])
