# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

"""The independent Avro clients against the real registry and broker.

Run with the python of tools/pyclients by avro_clients_roundtrip.sh:

  avro_clients_roundtrip.py write-read BOOTSTRAP REGISTRY_URL TOPIC IDS_FILE
      writes records with confluent-kafka's AvroSerializer, reads them back
      with its AvroDeserializer, checks the Confluent wire format of every
      record by hand (zero byte, the subject's schema id big-endian, then the
      body fastavro decodes with the registered schema), registers a second,
      backward-compatible version, and saves the ids to IDS_FILE (JSON).
  avro_clients_roundtrip.py after-restart REGISTRY_URL TOPIC IDS_FILE
      checks that every saved id still resolves to its schema and the
      subject still has its versions, and that a new schema gets a new id.

Each check prints "ok: ..."; the first that fails prints "FAIL: ..." and the
script exits 1. Nothing sleeps in place of an event: the consumers poll
until they have what they wait for, with a deadline.
"""

import copy
import datetime
import decimal
import io
import json
import sys
import time
import urllib.error
import urllib.request

import fastavro
from confluent_kafka import Consumer, KafkaError
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import StringDeserializer, StringSerializer
from confluent_kafka import DeserializingConsumer, SerializingProducer

checks = 0


def check(what, expected, actual):
    global checks
    if expected != actual:
        print(f"FAIL: {what}\n  expected: {expected!r}\n  actual:   {actual!r}", file=sys.stderr)
        sys.exit(1)
    checks += 1
    print(f"ok: {what}")


def fail(what):
    print(f"FAIL: {what}", file=sys.stderr)
    sys.exit(1)


SCHEMA_V1 = {
    "type": "record",
    "name": "Payment",
    "namespace": "streamt.test",
    "fields": [
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "paid_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "quantity", "type": "int"},
    ],
}
# Backward compatible: a reader of v2 reads v1 records, the new field taking
# its default.
SCHEMA_V2 = copy.deepcopy(SCHEMA_V1)
SCHEMA_V2["fields"].append({"name": "channel", "type": "string", "default": "web"})

UTC = datetime.timezone.utc


def ts(text):
    return datetime.datetime.fromisoformat(text).replace(tzinfo=UTC)


# Values chosen at the edges: the largest and smallest decimal(10,2), a
# negative cent, zero with its scale, a time before the epoch, non-ASCII
# text, null, the int range's ends.
RECORDS_V1 = [
    ("k1", {"amount": decimal.Decimal("12345678.90"), "paid_at": ts("2026-12-07T10:15:30.123"),
            "note": "first", "quantity": 1}),
    ("k2", {"amount": decimal.Decimal("-0.01"), "paid_at": ts("1969-12-31T23:59:59.999"),
            "note": None, "quantity": -2147483648}),
    ("k3", {"amount": decimal.Decimal("99999999.99"), "paid_at": ts("1970-01-01T00:00:00.000"),
            "note": "grüße ✓ \u00e9", "quantity": 2147483647}),
    ("k4", {"amount": decimal.Decimal("-99999999.99"), "paid_at": ts("2038-01-19T03:14:08.001"),
            "note": "", "quantity": 0}),
    ("k5", {"amount": decimal.Decimal("0.00"), "paid_at": ts("2000-02-29T12:00:00.500"),
            "note": "zero", "quantity": 42}),
]
RECORDS_V2 = [
    ("k6", {"amount": decimal.Decimal("1.05"), "paid_at": ts("2026-12-07T10:15:31.000"),
            "note": "second version", "quantity": 7, "channel": "shop"}),
]


def http_json(url):
    """GET url from the registry; returns (status, parsed body)."""
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.schemaregistry.v1+json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, None


def without_logical_types(schema):
    """The schema with every logicalType removed: decoding with it shows the
    underlying bytes and longs, independently of fastavro's conversions."""
    if isinstance(schema, dict):
        return {k: without_logical_types(v) for k, v in schema.items() if k != "logicalType"}
    if isinstance(schema, list):
        return [without_logical_types(v) for v in schema]
    return schema


def epoch_millis(moment):
    delta = moment - datetime.datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86400 + delta.seconds) * 1000 + delta.microseconds // 1000


def produce(bootstrap, registry, topic, schema, records):
    serializer = AvroSerializer(registry, json.dumps(schema))
    producer = SerializingProducer({
        "bootstrap.servers": bootstrap,
        "key.serializer": StringSerializer("utf_8"),
        "value.serializer": serializer,
        "acks": "all",
        "enable.idempotence": True,
    })
    errors = []

    def delivered(err, msg):
        if err is not None:
            errors.append(str(err))

    for key, value in records:
        producer.produce(topic, key=key, value=value, on_delivery=delivered)
    remaining = producer.flush(60)
    check(f"all {len(records)} records delivered to {topic}", (0, []), (remaining, errors))


def consume(consumer, count, what, deadline_s=90):
    """Polls until count records arrived or the deadline passes."""
    got = []
    deadline = time.monotonic() + deadline_s
    while len(got) < count and time.monotonic() < deadline:
        msg = consumer.poll(1.0)
        if msg is None:
            continue
        if msg.error():
            if msg.error().code() == KafkaError._PARTITION_EOF:
                continue
            fail(f"{what}: consumer error {msg.error()}")
        got.append(msg)
    check(f"{what}: {count} records read", count, len(got))
    return got


def write_read(bootstrap, url, topic, ids_file):
    subject = f"{topic}-value"
    registry = SchemaRegistryClient({"url": url})
    produce(bootstrap, registry, topic, SCHEMA_V1, RECORDS_V1)

    # The registry's own answer, over plain HTTP: the subject's only version
    # and its id.
    status, versions = http_json(f"{url}/subjects/{subject}/versions")
    check(f"the registry lists one version of {subject}", (200, [1]), (status, versions))
    status, latest = http_json(f"{url}/subjects/{subject}/versions/1")
    check(f"{subject} version 1 answers", 200, status)
    id_v1 = latest["id"]
    registered_v1 = json.loads(latest["schema"])
    check("the registered schema's fields are v1's",
          [f["name"] for f in SCHEMA_V1["fields"]], [f["name"] for f in registered_v1["fields"]])

    # Back through confluent-kafka's deserializer.
    group = f"{topic}-reader"
    reader = DeserializingConsumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "key.deserializer": StringDeserializer("utf_8"),
        "value.deserializer": AvroDeserializer(registry),
    })
    reader.subscribe([topic])
    got = consume(reader, len(RECORDS_V1), "AvroDeserializer")
    reader.close()
    check("keys and values read back equal what was written",
          RECORDS_V1, [(m.key(), m.value()) for m in got])
    for (_, written), msg in zip(RECORDS_V1, got):
        value = msg.value()
        check(f"{msg.key()}: amount is a Decimal with the written digits and scale",
              (decimal.Decimal, str(written["amount"])), (type(value["amount"]), str(value["amount"])))

    # The wire format by hand, from the raw bytes.
    raw_reader = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": f"{topic}-raw",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    })
    raw_reader.subscribe([topic])
    raw = consume(raw_reader, len(RECORDS_V1), "raw bytes")
    raw_reader.close()
    status, by_id = http_json(f"{url}/schemas/ids/{id_v1}")
    check(f"schema id {id_v1} resolves", 200, status)
    writer = fastavro.parse_schema(json.loads(by_id["schema"]))
    plain = fastavro.parse_schema(without_logical_types(json.loads(by_id["schema"])))
    for (key, written), msg in zip(RECORDS_V1, raw):
        payload = msg.value()
        check(f"{key}: byte 0 is the magic byte 0", 0, payload[0])
        check(f"{key}: bytes 1-4 are the subject's schema id, big-endian",
              id_v1, int.from_bytes(payload[1:5], "big"))
        body = io.BytesIO(payload[5:])
        check(f"{key}: fastavro decodes the body with the registered schema",
              written, fastavro.schemaless_reader(body, writer, None))
        check(f"{key}: the body has no bytes left over", len(payload) - 5, body.tell())
        underlying = fastavro.schemaless_reader(io.BytesIO(payload[5:]), plain, None)
        unscaled = int(written["amount"].scaleb(2))
        check(f"{key}: the decimal is the unscaled value as big-endian two's complement",
              unscaled, int.from_bytes(underlying["amount"], "big", signed=True))
        check(f"{key}: the timestamp is milliseconds since the epoch",
              epoch_millis(written["paid_at"]), underlying["paid_at"])

    # A second version, compatible backwards: a field added with a default.
    produce(bootstrap, registry, topic, SCHEMA_V2, RECORDS_V2)
    status, versions = http_json(f"{url}/subjects/{subject}/versions")
    check(f"{subject} has versions 1 and 2", (200, [1, 2]), (status, versions))
    status, latest = http_json(f"{url}/subjects/{subject}/versions/2")
    id_v2 = latest["id"]
    if id_v2 == id_v1:
        fail(f"version 2 got the id of version 1 ({id_v1})")
    check("version 2 has a new id", True, id_v2 != id_v1)
    for schema_id, schema in ((id_v1, SCHEMA_V1), (id_v2, SCHEMA_V2)):
        status, body = http_json(f"{url}/schemas/ids/{schema_id}")
        check(f"id {schema_id} resolves to its version's fields", (200, [f["name"] for f in schema["fields"]]),
              (status, [f["name"] for f in json.loads(body["schema"])["fields"]] if body else None))
    # Every record read back with its own writer's schema: the v1 records
    # as they were, the v2 one with its new field.
    reader = DeserializingConsumer({
        "bootstrap.servers": bootstrap,
        "group.id": f"{topic}-reader-2",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "key.deserializer": StringDeserializer("utf_8"),
        "value.deserializer": AvroDeserializer(registry),
    })
    reader.subscribe([topic])
    got = consume(reader, len(RECORDS_V1) + len(RECORDS_V2), "AvroDeserializer after version 2")
    reader.close()
    check("both versions' records read back as written",
          RECORDS_V1 + RECORDS_V2, [(m.key(), m.value()) for m in got])
    # Resolution: a v1 body read with v2 as the reader schema gets the default.
    v1_body = io.BytesIO(raw[0].value()[5:])
    resolved = fastavro.schemaless_reader(v1_body, writer, fastavro.parse_schema(copy.deepcopy(SCHEMA_V2)))
    check("a v1 record read with the v2 schema takes the new field's default",
          dict(RECORDS_V1[0][1], channel="web"), resolved)

    with open(ids_file, "w", encoding="utf-8") as out:
        json.dump({"subject": subject, "ids": {"1": id_v1, "2": id_v2}}, out)
    print(f"{checks} checks passed")


def after_restart(url, topic, ids_file):
    with open(ids_file, encoding="utf-8") as saved_file:
        saved = json.load(saved_file)
    subject = saved["subject"]
    status, versions = http_json(f"{url}/subjects/{subject}/versions")
    check(f"after the restart {subject} still has versions 1 and 2", (200, [1, 2]), (status, versions))
    for version, schema in (("1", SCHEMA_V1), ("2", SCHEMA_V2)):
        schema_id = saved["ids"][version]
        status, body = http_json(f"{url}/schemas/ids/{schema_id}")
        check(f"after the restart id {schema_id} still resolves to version {version}'s fields",
              (200, [f["name"] for f in schema["fields"]]),
              (status, [f["name"] for f in json.loads(body["schema"])["fields"]] if body else None))
        status, body = http_json(f"{url}/subjects/{subject}/versions/{version}")
        check(f"after the restart version {version} of {subject} has id {schema_id}",
              (200, schema_id), (status, body["id"] if body else None))
    # The id sequence survived too: a new schema gets an id no earlier
    # schema has.
    registry = SchemaRegistryClient({"url": url})
    other = copy.deepcopy(SCHEMA_V1)
    other["name"] = "AfterRestart"
    new_id = registry.register_schema(f"{topic}-after-restart-value", Schema(json.dumps(other), "AVRO"))
    earlier = max(saved["ids"].values())
    if new_id <= earlier:
        fail(f"a schema registered after the restart got id {new_id}, not past the earlier ones (up to {earlier}):"
             " the id sequence did not survive")
    check("a schema registered after the restart gets an id past the earlier ones", True, new_id > earlier)
    status, body = http_json(f"{url}/schemas/ids/{new_id}")
    check(f"id {new_id} resolves to the schema registered after the restart",
          (200, "AfterRestart"), (status, json.loads(body["schema"])["name"] if body else None))
    print(f"{checks} checks passed")


def main(argv):
    if len(argv) == 5 and argv[0] == "write-read":
        write_read(*argv[1:])
    elif len(argv) == 4 and argv[0] == "after-restart":
        after_restart(*argv[1:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
