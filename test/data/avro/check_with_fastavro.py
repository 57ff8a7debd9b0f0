#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

"""Checks the golden Avro schema cases against fastavro, an implementation
independent of ours: for every valid_*.json whose .expected sidecar names
fastavro as its oracle, fastavro's Parsing Canonical Form and CRC-64-AVRO
fingerprint must equal the sidecar's; for the others, the sidecar's
fingerprint must still be fastavro's fingerprint of the sidecar's form.
The C++ unit test (test_plan, avro_schemas) checks our parser against the
same sidecars, so the two together compare our output with fastavro's.
Exit 1 on any difference, naming the case."""
import json
import pathlib
import sys

from fastavro.schema import fingerprint, parse_schema, to_parsing_canonical_form

here = pathlib.Path(__file__).resolve().parent
failed = 0
checked = 0
for case in sorted(here.glob("valid_*.json")):
    expected = {}
    for line in case.with_suffix(".expected").read_text().splitlines():
        key, _, value = line.partition(": ")
        expected[key] = value
    if expected["oracle"] == "fastavro":
        form = to_parsing_canonical_form(parse_schema(json.loads(case.read_text())))
        if form != expected["canonical"]:
            print(f"{case.name}: fastavro's canonical form differs:\n  {form}\n  {expected['canonical']}")
            failed = 1
    print_form = expected["canonical"]
    if fingerprint(print_form, "CRC-64-AVRO") != expected["fingerprint"]:
        print(f"{case.name}: fastavro's fingerprint of the form is {fingerprint(print_form, 'CRC-64-AVRO')}, "
              f"the sidecar says {expected['fingerprint']}")
        failed = 1
    checked += 1
if checked < 5:
    print(f"only {checked} golden cases found in {here}")
    failed = 1
print(f"{checked} golden Avro schema cases checked against fastavro" + (": differences above" if failed else ""))
sys.exit(failed)
