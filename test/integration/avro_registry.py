# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

"""The independent side of avro_registry.sh: writes Avro records the way
producers do, computes what the engine must output, and reads the sink.

Run with the python of tools/pyclients:

  avro_registry.py schema VERSION                print writer schema VERSION (1, 2, 3) as JSON
  avro_registry.py write BOOTSTRAP REGISTRY TOPIC FIRST COUNT IDS_FILE
      records FIRST .. FIRST+COUNT-1, each of writer version (i % 3) + 1,
      with confluent-kafka's AvroSerializer (it registers the versions under
      TOPIC-value), to partition i % 2; saves the versions' ids to IDS_FILE
  avro_registry.py frames BOOTSTRAP TOPIC FIRST COUNT IDS_FILE [VERSION]
      the same records framed by hand (zero byte, id, fastavro's body) with
      the ids saved: for a registry that is down; VERSION fixes the version
  avro_registry.py register REGISTRY SUBJECT VERSION IDS_FILE
      registers version VERSION (or "without-amount") under SUBJECT, adds its id
  avro_registry.py bad BOOTSTRAP TOPIC IDS_FILE
      eight records to partition 0, offsets 0-7: good, not registry-framed,
      good, an unknown id, a schema that cannot be resolved, a truncated
      body, an Apicurio 8-byte id, good
  avro_registry.py dead BOOTSTRAP DLQ
      the dead-letter records: source partition, offset and error code
  avro_registry.py check-sink BOOTSTRAP TOPIC RANGE... [--dlq DLQ] [--registry URL]
      the sink's read_committed records must be exactly the oracle's outputs
      of the records in RANGEs (FIRST:COUNT[:VERSION]), each once; with
      --dlq, that topic must be empty; with --registry, the values are Avro
      read by confluent-kafka's AvroDeserializer through the registry, each
      framed with the id of the sink's subject (else JSON)

The oracle reads each record as the plan's reader schema (version 3) sees
it, by Avro's rules worked out by hand here (a field version 1 lacks takes
its default; an int read as a long), then filters and projects as the plan
says (SELECT id, amount, quantity, channel, paid_at FROM payments WHERE
amount >= 10.00), with decimals as Python Decimals: exact.
"""

import copy
import datetime
import decimal
import io
import json
import struct
import sys
import time

import fastavro
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

UTC = datetime.timezone.utc
BASE = datetime.datetime(2026, 12, 7, 8, 0, 0, tzinfo=UTC)

AMOUNT = {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}
V1 = {
    "type": "record",
    "name": "Payment",
    "namespace": "streamt.test",
    "fields": [
        {"name": "id", "type": "string"},
        {"name": "amount", "type": AMOUNT},
        {"name": "paid_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "quantity", "type": "int"},
    ],
}
# v2: a field added with a default.
V2 = copy.deepcopy(V1)
V2["fields"].append({"name": "channel", "type": "string", "default": "web"})
# v3: `note` removed, `quantity` widened from int to long.
V3 = copy.deepcopy(V2)
V3["fields"] = [f for f in V3["fields"] if f["name"] != "note"]
for f in V3["fields"]:
    if f["name"] == "quantity":
        f["type"] = "long"
# v4: v3 with one more field with a default (registered while the engine
# runs, first read while the registry is down).
V4 = copy.deepcopy(V3)
V4["fields"].append({"name": "region", "type": "string", "default": "eu"})
SCHEMAS = {1: V1, 2: V2, 3: V3, 4: V4}
# A schema of another subject that lacks `amount`, which the plan reads and
# whose reader field has no default: it cannot be resolved.
WITHOUT_AMOUNT = {"type": "record", "name": "Payment", "namespace": "streamt.test",
                  "fields": [{"name": "id", "type": "string"}]}


def version_of(i):
    return (i % 3) + 1


def value_of(i, version):
    """Record i as writer `version` writes it."""
    # Amounts from -500.00 to 1999.99 and the decimal(12,2) edges.
    if i % 17 == 0:
        amount = decimal.Decimal("9999999999.99")
    elif i % 19 == 0:
        amount = decimal.Decimal("-9999999999.99")
    else:
        amount = decimal.Decimal((i * 7919) % 250000 - 50000).scaleb(-2)
    v = {
        "id": f"p{i}",
        "amount": amount,
        "paid_at": BASE + datetime.timedelta(seconds=i, milliseconds=i % 1000),
    }
    if version == 4:
        v["region"] = "us"
    if version in (1, 2):
        v["note"] = None if i % 4 == 0 else f"note {i}"
        v["quantity"] = (i * 31) % 2_000_000_000
    else:
        # Past int's range: only a long holds it.
        v["quantity"] = 5_000_000_000 + i if i % 5 == 0 else (i * 31) % 2_000_000_000
    if version >= 2:
        v["channel"] = "app" if i % 2 else "shop"
    return v


def expected_output(i, version):
    """The engine's output for record i, or None if the plan filters it out."""
    v = value_of(i, version)
    if v["amount"] < decimal.Decimal("10.00"):
        return None
    millis = int((v["paid_at"] - datetime.datetime(1970, 1, 1, tzinfo=UTC)) / datetime.timedelta(milliseconds=1))
    return {
        "id": v["id"],
        "amount": v["amount"],
        "quantity": v["quantity"],
        "channel": v.get("channel", "web"),  # v1 lacks it: the reader's default
        "paid_at": millis,
    }


def delivered(err, msg):
    if err is not None:
        print(f"FAIL: delivery: {err}", file=sys.stderr)
        sys.exit(1)


def cmd_schema(version):
    print(json.dumps(SCHEMAS[int(version)]))


def cmd_write(bootstrap, registry, topic, first, count, ids_file):
    client = SchemaRegistryClient({"url": registry})
    serializers = {
        n: AvroSerializer(client, json.dumps(s), conf={"auto.register.schemas": True}) for n, s in SCHEMAS.items()
    }
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    ctx = SerializationContext(topic, MessageField.VALUE)
    for i in range(int(first), int(first) + int(count)):
        n = version_of(i)
        value = serializers[n](value_of(i, n), ctx)
        producer.produce(topic, key=f"k{i % 5}".encode(), value=value, partition=i % 2, on_delivery=delivered)
        producer.poll(0)
    if producer.flush(60) != 0:
        print("FAIL: records left unflushed", file=sys.stderr)
        sys.exit(1)
    ids = {}
    for n, s in SCHEMAS.items():
        ids[str(n)] = client.register_schema(f"{topic}-value", _schema(s))
    with open(ids_file, "w") as f:
        json.dump(ids, f)
    print(f"wrote {count} records of versions 1-3 (ids {ids})")


def _schema(s):
    from confluent_kafka.schema_registry import Schema

    return Schema(json.dumps(s), "AVRO")


def frame(schema_id, schema, value):
    out = io.BytesIO()
    out.write(b"\x00" + struct.pack(">I", schema_id))
    fastavro.schemaless_writer(out, fastavro.parse_schema(copy.deepcopy(schema)), value)
    return out.getvalue()


def cmd_frames(bootstrap, topic, first, count, ids_file, version=None):
    with open(ids_file) as f:
        ids = {int(k): v for k, v in json.load(f).items()}
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for i in range(int(first), int(first) + int(count)):
        n = int(version) if version else version_of(i)
        producer.produce(
            topic, key=f"k{i % 5}".encode(), value=frame(ids[n], SCHEMAS[n], value_of(i, n)), partition=i % 2,
            on_delivery=delivered,
        )
    if producer.flush(60) != 0:
        print("FAIL: records left unflushed", file=sys.stderr)
        sys.exit(1)


def cmd_register(registry, subject, version, ids_file):
    client = SchemaRegistryClient({"url": registry})
    schema = WITHOUT_AMOUNT if version == "without-amount" else SCHEMAS[int(version)]
    schema_id = client.register_schema(subject, _schema(schema))
    with open(ids_file) as f:
        ids = json.load(f)
    ids[version] = schema_id
    with open(ids_file, "w") as f:
        json.dump(ids, f)
    print(f"registered {version} under {subject}: id {schema_id}")


def cmd_bad(bootstrap, topic, ids_file):
    """Partition 0: good, not framed, good, unknown id, incompatible,
    malformed, an Apicurio 8-byte id, good (records 9000 .. 9007)."""
    with open(ids_file) as f:
        ids = json.load(f)
    good = lambda i: frame(ids["1"], V1, value_of(i, 1))
    truncated = frame(ids["1"], V1, value_of(9005, 1))[:9]
    body = io.BytesIO()
    fastavro.schemaless_writer(body, fastavro.parse_schema(copy.deepcopy(V1)), value_of(9006, 1))
    values = [
        good(9000),
        json.dumps({"id": "p9001", "amount": "12.00"}).encode(),
        good(9002),
        b"\x00" + struct.pack(">I", 2_000_000_000) + b"\x02",
        frame(ids["without-amount"], WITHOUT_AMOUNT, {"id": "p9004"}),
        truncated,
        b"\x00" + struct.pack(">Q", ids["1"]) + body.getvalue(),
        good(9007),
    ]
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for v in values:
        producer.produce(topic, key=b"k", value=v, partition=0, on_delivery=delivered)
    if producer.flush(60) != 0:
        sys.exit(1)


def read_all(bootstrap, topic, idle_s=3.0, deadline_s=60.0):
    """Every read_committed record of the topic, until it is idle at its end."""
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"avro-registry-check-{time.time_ns()}",
            "isolation.level": "read_committed",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
        }
    )
    md = c.list_topics(topic, timeout=10)
    parts = list(md.topics[topic].partitions)
    c.assign([TopicPartition(topic, p, 0) for p in parts])
    out, at_eof = [], set()
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline and len(at_eof) < len(parts):
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == -191:  # _PARTITION_EOF
                at_eof.add(m.partition())
                continue
            print(f"FAIL: consuming {topic}: {m.error()}", file=sys.stderr)
            sys.exit(1)
        at_eof.discard(m.partition())
        out.append(m)
    c.close()
    return out


def cmd_check_sink(bootstrap, topic, *args):
    dlq = None
    registry = None
    ranges = []
    args = list(args)
    while args:
        a = args.pop(0)
        if a == "--dlq":
            dlq = args.pop(0)
        elif a == "--registry":
            registry = args.pop(0)
        else:
            parts = [int(x) for x in a.split(":")]
            ranges.append((parts[0], parts[1], parts[2] if len(parts) > 2 else None))
    expected = {}
    for first, count, version in ranges:
        for i in range(first, first + count):
            e = expected_output(i, version or version_of(i))
            if e is not None:
                expected[e["id"]] = e
    got = {}
    ids = set()
    deserializer = AvroDeserializer(SchemaRegistryClient({"url": registry})) if registry else None
    ctx = SerializationContext(topic, MessageField.VALUE)
    for m in read_all(bootstrap, topic):
        if deserializer:
            # The sink's Avro, read through the registry by confluent-kafka.
            ids.add(struct.unpack(">I", m.value()[1:5])[0])
            v = deserializer(m.value(), ctx)
            v["paid_at"] = int((v["paid_at"] - datetime.datetime(1970, 1, 1, tzinfo=UTC))
                               / datetime.timedelta(milliseconds=1))
        else:
            v = json.loads(m.value(), parse_float=decimal.Decimal)
        if v["id"] in got:
            print(f"FAIL: {v['id']} is in {topic} twice", file=sys.stderr)
            sys.exit(1)
        if not isinstance(v["amount"], decimal.Decimal) or v["amount"].as_tuple().exponent != -2:
            print(f"FAIL: {v['id']}: amount {v['amount']!r} is not written with 2 fraction digits", file=sys.stderr)
            sys.exit(1)
        got[v["id"]] = v
    if deserializer:
        subject = SchemaRegistryClient({"url": registry}).get_latest_version(f"{topic}-value")
        if ids != {subject.schema_id}:
            print(f"FAIL: the sink's values carry ids {ids}, not {subject.schema_id} of {topic}-value",
                  file=sys.stderr)
            sys.exit(1)
        print(f"ok: every output is framed with id {subject.schema_id}, the sink's schema under {topic}-value")
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    wrong = sorted(k for k in set(got) & set(expected) if got[k] != expected[k])
    if missing or extra or wrong:
        print(f"FAIL: sink {topic}: {len(missing)} missing {missing[:5]}, {len(extra)} unexpected {extra[:5]}, "
              f"{len(wrong)} different", file=sys.stderr)
        for k in wrong[:3]:
            print(f"  {k}: expected {expected[k]} got {got[k]}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: the sink holds the oracle's {len(expected)} outputs, each once")
    if dlq is not None:
        dead = read_all(bootstrap, dlq)
        if dead:
            print(f"FAIL: {len(dead)} record(s) dead-lettered to {dlq}", file=sys.stderr)
            sys.exit(1)
        print(f"ok: nothing dead-lettered to {dlq}")


def cmd_dead(bootstrap, topic):
    """The dead-letter records: offset, then the error code header, a line each."""
    for m in read_all(bootstrap, topic):
        h = dict(m.headers() or [])
        print(f"{h.get('streamt.source.partition', b'?').decode()} {h.get('streamt.source.offset', b'?').decode()} "
              f"{h.get('streamt.error.code', b'?').decode()}")


if __name__ == "__main__":
    commands = {
        "schema": cmd_schema,
        "write": cmd_write,
        "frames": cmd_frames,
        "register": cmd_register,
        "bad": cmd_bad,
        "check-sink": cmd_check_sink,
        "dead": cmd_dead,
    }
    commands[sys.argv[1]](*sys.argv[2:])
