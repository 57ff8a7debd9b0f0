#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

"""Checks the golden Avro sink cases against fastavro, an implementation
independent of ours. Each <name>.expected sidecar holds the sink schema our
compiler pins and the bytes our stage pipeline writes for the case's records
(test_operators, avro_sink_golden, checks that our code writes exactly
these). Here fastavro must agree that: the pinned schema parses, its Parsing
Canonical Form and CRC-64-AVRO fingerprint are the sidecar's; each output is
a zero byte and the case's schema id in four big-endian bytes; and the body
after them reads, by the pinned schema and to its last byte, as the case's
"values" (decimals compared as their exact text, timestamp-millis as epoch
milliseconds). Exit 1 on any difference, naming the case and the output."""
import datetime
import decimal
import io
import json
import pathlib
import sys

from fastavro import schemaless_reader
from fastavro.schema import fingerprint, parse_schema, to_parsing_canonical_form

here = pathlib.Path(__file__).resolve().parent
epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def plain(v):
    """fastavro's value as the case writes it: Decimal as its text (exact,
    with the scale's digits), an aware datetime as epoch milliseconds."""
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, datetime.datetime):
        return (v - epoch) // datetime.timedelta(milliseconds=1)
    return v


failed = 0
checked = 0
for case in sorted(here.glob("*.json")):
    spec = json.loads(case.read_text())
    expected = {}
    for line in case.with_suffix(".expected").read_text().splitlines():
        key, _, value = line.partition(": ")
        expected[key] = value

    def differs(what, ours, theirs):
        global failed
        print(f"{case.name}: {what}:\n  expected: {ours}\n  fastavro: {theirs}")
        failed = 1

    schema = parse_schema(json.loads(expected["schema"]))
    form = to_parsing_canonical_form(schema)
    if form != expected["canonical_form"]:
        differs("the canonical form", expected["canonical_form"], form)
    if fingerprint(form, "CRC-64-AVRO") != expected["fingerprint"]:
        differs("the fingerprint", expected["fingerprint"], fingerprint(form, "CRC-64-AVRO"))
    if expected["subject"] != spec["sink_topic"] + "-value":
        differs("the subject", expected["subject"], spec["sink_topic"] + "-value")
    frame = b"\x00" + spec["schema_id"].to_bytes(4, "big")
    values = spec["values"]
    outputs = sorted(k for k in expected if k.startswith("output "))
    if len(outputs) != len(values):
        differs("the number of outputs", len(outputs), len(values))
    for i, want in enumerate(values):
        data = bytes.fromhex(expected.get(f"output {i}", ""))
        if data[:5] != frame:
            differs(f"output {i}'s frame", data[:5].hex(), frame.hex())
            continue
        body = io.BytesIO(data[5:])
        try:
            got = plain(schemaless_reader(body, schema))
        except Exception as e:  # any failure to read is a difference to report
            differs(f"output {i} does not read", data[5:].hex(), repr(e))
            continue
        if body.tell() != len(data) - 5:
            differs(f"output {i} has bytes after its record", len(data) - 5, body.tell())
        if got != want:
            differs(f"output {i}'s values", want, got)
        checked += 1
if checked < 5:
    print(f"only {checked} outputs found in {here}")
    failed = 1
print(f"{checked} Avro sink outputs read back by fastavro" + (": differences above" if failed else ""))
sys.exit(failed)
