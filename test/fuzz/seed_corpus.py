#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

"""Writes seed inputs for the fuzz targets into DIR/<target>/ from the golden
test data (test/data/) and examples/. `tools/fuzz --reseed` runs it and then
merges the seeds into test/fuzz/corpus/ with libFuzzer's -merge=1, which keeps
only the inputs that add coverage. File names are the SHA-1 of the content,
as libFuzzer names its own."""
import hashlib
import json
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parents[2]
out = pathlib.Path(sys.argv[1])


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


# SQL: the query of every golden case, and the example queries.
for f in sorted((root / "test/data/sql").glob("*.sqltest")):
    lines = f.read_text().split("\n")
    i = 0
    while i < len(lines):
        if re.match(r"^(accept|reject) ", lines[i]):
            j = i + 1
            while j < len(lines) and lines[j] != "----":
                j += 1
            put("sql", "\n".join(lines[i + 1:j]))
            i = j
        i += 1
for f in sorted((root / "examples").rglob("*.sql")):
    put("sql", f.read_bytes())

# Plans: every plan case, valid or not.
for f in sorted((root / "test/data/plans").glob("*.json")):
    put("plan", f.read_bytes())

# Records: the record table's values (with \xHH unescaped where marked
# "bytes") and the payloads of the example envelopes.
lines = (root / "test/data/records/orders.records").read_text().split("\n")
for i, line in enumerate(lines):
    m = re.match(r"^(valid|invalid) \S+( bytes)?$", line)
    if m and i + 1 < len(lines):
        v = lines[i + 1].encode()
        if m.group(2):
            v = re.sub(rb"\\x([0-9a-fA-F]{2})", lambda h: bytes([int(h.group(1), 16)]), v)
        put("record", v)
lines = (root / "test/data/records/payments.records").read_text().split("\n")
for i, line in enumerate(lines):
    if re.match(r"^(valid|invalid) \S+$", line) and i + 1 < len(lines):
        put("record", lines[i + 1])


# Debezium change events for the payments schema (test/unit/operators/
# payments_fixture.hpp): create, update, delete, with decimals as JSON numbers
# and as strings, and with undeclared source members; and one wrapped in
# Kafka Connect's JsonConverter envelope (schemas.enable=true), which the
# schema does not declare, so it is refused: a seed for that refusal.
def change(amount, tags, paid_at, score):
    return {"id": 7, "amount": amount, "score": score, "paid_at": paid_at, "tags": tags}


source = {"version": "2.5.0.Final", "connector": "postgresql", "name": "shop", "ts_ms": 1764928800000,
          "snapshot": "false", "db": "shop", "sequence": "[null,\"23\"]", "schema": "public",
          "table": "payments", "txId": 771, "lsn": 24023128, "xmin": None}
events = [
    {"before": None, "after": change(12.5, ["new"], 1764928800000, 0.5), "source": source, "op": "c",
     "ts_ms": 1764928800123},
    {"before": change("12.50", None, None, None), "after": change("75.00", {"k": [1, 2.5e3]},
                                                                    "2026-12-05T10:00:00.250+01:00", -1e-3),
     "source": source, "op": "u", "ts_ms": "2026-12-05T10:00:01Z"},
    {"before": change(-0.05, {}, "2026-12-05 10:00:00Z", None), "after": None, "source": source, "op": "d",
     "ts_ms": 1764928800999},
    {"before": None, "after": change("99999999.99", [], 253402300799999, 1.7976931348623157e308),
     "source": {"db": "shop"}, "op": "r", "ts_ms": 0},
]
for e in events:
    put("record", json.dumps(e, separators=(",", ":")))
put("record", json.dumps(events[1], indent=1))
connect_schema = {"type": "struct", "optional": False, "name": "shop.public.payments.Envelope", "fields": [
    {"type": "struct", "optional": True, "field": "before", "fields": [
        {"type": "int64", "optional": False, "field": "id"},
        {"type": "bytes", "optional": False, "name": "org.apache.kafka.connect.data.Decimal",
         "parameters": {"scale": "2"}, "field": "amount"}]},
    {"type": "string", "optional": False, "field": "op"}]}
put("record", json.dumps({"schema": connect_schema, "payload": events[0]}, separators=(",", ":")))

# Values: two bytes choosing DECIMAL(p,s) (p = 1 + b0 % 38, s = b1 % (p + 1)),
# then a decimal or timestamp text, as records, plans and SQL write them.
texts = ["12.50", "12.5", "-0.05", "1.2500e1", "125E-1", "99999999.99", "0", "-0", "0.000", "1e-2",
         "123456789.00", "12.345", "12,50", "01", "1e400", "-99999999999999999999999999999999999999",
         "2026-12-05T10:00:00Z", "2026-12-05 10:00:00.5+01:00", "0001-01-01T00:00:00Z",
         "9999-12-31T23:59:59.999Z", "2024-02-29T23:59:59.999-23:59", "2026-12-05T10:00:00",
         "2026-12-05T10:00:00.0001Z", "2026-12-05T10:00:00.1000000Z", "1970-01-01t00:00:00z"]
for t in texts:
    for p, sc in ((9, 2), (37, 10), (0, 0), (37, 0)):
        put("values", bytes([p, sc]) + t.encode())
for f in sorted((root / "examples").rglob("*.jsonl")):
    for line in f.read_text().splitlines():
        try:
            payload = json.loads(line).get("payload")
        except ValueError:
            continue
        if isinstance(payload, str):
            put("record", payload)

# Avro schemas: the golden schema cases (valid and refused alike).
for f in sorted((root / "test/data/avro").glob("*.json")):
    put("avro_schema", f.read_bytes())

# Avro bodies: the datums of the resolution cases, and a few by hand.
for f in sorted((root / "test/data/avro_resolution").glob("*.expected")):
    for line in f.read_text().splitlines():
        if line.startswith("bytes: "):
            put("avro_record", bytes.fromhex(line[len("bytes: "):]))
for b in (b"", b"\x02", b"\x00" * 40, b"\x02\x04\x01" + b"\x00" * 30, bytes(range(64))):
    put("avro_record", b)
