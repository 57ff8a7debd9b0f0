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
for f in sorted((root / "examples").rglob("*.jsonl")):
    for line in f.read_text().splitlines():
        try:
            payload = json.loads(line).get("payload")
        except ValueError:
            continue
        if isinstance(payload, str):
            put("record", payload)
