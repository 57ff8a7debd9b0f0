#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

"""Writes the Avro schema resolution cases: for each, <name>.json holds the
writer's and the reader's schema, and <name>.expected what fastavro (an
implementation independent of ours) does with one datum written with the
writer's schema and read with the reader's: the datum's bytes (hex), and
either the value it reads (JSON; decimals as strings, bytes as hex) or that
it refuses. Cases where our resolver is deliberately stricter than the
specification, and so than fastavro, say so and give our verdict.

Run it with the pinned clients' python after changing a case:
  "$(tools/pyclients)" test/data/avro_resolution/generate.py
With --check it writes nothing and exits 1 if a file differs from what it
would write (ctest: avro_resolution_cases_agree_with_fastavro)."""
import decimal
import io
import json
import pathlib
import sys

from fastavro import schemaless_reader, schemaless_writer
from fastavro.schema import parse_schema

here = pathlib.Path(__file__).resolve().parent
check = sys.argv[1:] == ["--check"]
differ = []


def put(path, text):
    if not check:
        path.write_text(text)
    elif not path.exists() or path.read_text() != text:
        differ.append(path.name)


def rec(name, *fields, **extra):
    return dict(type="record", name=name, fields=[dict(f) for f in fields], **extra)


def f(name, type_, **extra):
    return dict(name=name, type=type_, **extra)


dec = {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}
v1 = rec("Payment", f("id", "int"), f("amount", dec), f("note", ["null", "string"], default=None),
         f("paid_at", {"type": "long", "logicalType": "timestamp-millis"}), namespace="shop")
v1_datum = {"id": 7, "amount": decimal.Decimal("12.50"), "note": "first", "paid_at": 1764928800250}

# name: (writer, reader, datum, ours) where ours is None when fastavro is the
# oracle, else (verdict, path, why we differ[, what we read]). A refusal by fastavro is a
# schema_incompatible verdict, but for the cases in `datum_level`, where the
# specification makes it an error of the datum that holds the value (an enum
# symbol, a union branch): the schemas resolve and that datum fails.
cases = {
    "same_schema_reads_every_field": (v1, v1, v1_datum, None),
    "field_added_with_a_default_is_read_as_its_default": (
        v1, rec("Payment", *v1["fields"], f("channel", "string", default="web"), namespace="shop"), v1_datum, None),
    "field_removed_is_skipped": (
        v1, rec("Payment", *[x for x in v1["fields"] if x["name"] != "note"], namespace="shop"), v1_datum, None),
    "int_widened_to_long_is_promoted": (
        v1, rec("Payment", f("id", "long"), *v1["fields"][1:], namespace="shop"), v1_datum, None),
    "int_read_as_double_is_promoted": (rec("R", f("x", "int")), rec("R", f("x", "double")), {"x": -3}, None),
    "long_read_as_float_is_promoted": (rec("R", f("x", "long")), rec("R", f("x", "float")), {"x": 1 << 20}, None),
    "string_read_as_bytes_is_promoted": (rec("R", f("x", "string")), rec("R", f("x", "bytes")), {"x": "é"}, None),
    "field_added_without_a_default_is_incompatible": (
        v1, rec("Payment", *v1["fields"], f("channel", "string"), namespace="shop"), v1_datum, None),
    "long_narrowed_to_int_is_incompatible": (rec("R", f("x", "long")), rec("R", f("x", "int")), {"x": 5}, None),
    "record_renamed_with_an_alias_resolves": (
        rec("Old", f("x", "int"), namespace="a"), rec("New", f("x", "int"), aliases=["a.Old"]), {"x": 1}, None),
    "record_renamed_without_an_alias_is_incompatible": (
        rec("Old", f("x", "int")), rec("New", f("x", "int")), {"x": 1}, None),
    "field_renamed_with_an_alias_resolves": (
        rec("R", f("old", "int")), rec("R", f("new", "int", aliases=["old"])), {"old": 4}, None),
    "enum_symbol_unknown_to_the_reader_takes_its_default": (
        rec("R", f("e", {"type": "enum", "name": "E", "symbols": ["A", "B", "C"]})),
        rec("R", f("e", {"type": "enum", "name": "E", "symbols": ["A", "B", "Z"], "default": "Z"})), {"e": "C"}, None),
    "enum_symbol_unknown_without_a_default_fails_the_datum": (
        rec("R", f("e", {"type": "enum", "name": "E", "symbols": ["A", "C"]})),
        rec("R", f("e", {"type": "enum", "name": "E", "symbols": ["A", "B"]})), {"e": "C"}, None),
    "writer_union_read_as_its_non_null_branch": (
        rec("R", f("x", ["null", "string"])), rec("R", f("x", "string")), {"x": "yes"}, None),
    "writer_union_branch_the_reader_cannot_take_fails_the_datum": (
        rec("R", f("x", ["null", "string"])), rec("R", f("x", "string")), {"x": None}, None),
    "int_read_into_a_reader_union_takes_the_long_branch": (
        rec("R", f("x", "int")), rec("R", f("x", ["null", "long"])), {"x": 9}, None),
    "array_items_are_promoted": (
        rec("R", f("xs", {"type": "array", "items": "int"})), rec("R", f("xs", {"type": "array", "items": "long"})),
        {"xs": [1, 2, 3]}, None),
    "map_values_that_narrow_are_incompatible": (
        rec("R", f("m", {"type": "map", "values": "double"})), rec("R", f("m", {"type": "map", "values": "float"})),
        {"m": {"a": 1.5}}, None),
    "fixed_of_another_size_is_incompatible": (
        rec("R", f("x", {"type": "fixed", "name": "F", "size": 4})),
        rec("R", f("x", {"type": "fixed", "name": "F", "size": 8})), {"x": b"abcd"}, None),
    "recursive_record_resolves_with_itself": (
        rec("Node", f("v", "long"), f("next", ["null", "Node"])),
        rec("Node", f("v", "long"), f("next", ["null", "Node"])), {"v": 1, "next": {"v": 2, "next": None}}, None),
    "record_and_decimal_fields_added_with_defaults_read_as_them": (
        v1, rec("Payment", *v1["fields"],
                f("address", rec("Address", f("city", "string"), f("zip", ["null", "string"], default=None)),
                  default={"city": "Paris"}),
                f("fee", dec, default="\u0000\u0064"),
                f("tags", {"type": "array", "items": "string"}, default=["new"]), namespace="shop"),
        v1_datum, ("resolves", None, "fastavro returns a default as the schema writes it: the record without "
                   "its own field's default, the decimal as its raw bytes",
                   {"address": {"city": "Paris", "zip": None}, "amount": "12.50", "fee": "1.00", "id": 7,
                    "note": "first", "paid_at": 1764928800250, "tags": ["new"]})),
    "decimal_of_another_scale_is_incompatible": (
        rec("R", f("d", dec)), rec("R", f("d", {**dec, "scale": 3})), {"d": decimal.Decimal("1.25")},
        ("schema_incompatible", "$.d", "we refuse another scale; fastavro reads each value at the writer's")),
    "timestamp_micros_read_as_millis_is_incompatible": (
        rec("R", f("t", {"type": "long", "logicalType": "timestamp-micros"})),
        rec("R", f("t", {"type": "long", "logicalType": "timestamp-millis"})), {"t": 1764928800250000},
        ("schema_incompatible", "$.t", "we refuse another unit; fastavro converts each value from the writer's")),
}


# Where our resolver places each schema_incompatible it shares with fastavro.
paths = {"field_added_without_a_default_is_incompatible": "$.channel",
         "long_narrowed_to_int_is_incompatible": "$.x",
         "record_renamed_without_an_alias_is_incompatible": "$",
         "map_values_that_narrow_are_incompatible": "$.m",
         "fixed_of_another_size_is_incompatible": "$.x"}
datum_level = {"enum_symbol_unknown_without_a_default_fails_the_datum",
               "writer_union_branch_the_reader_cannot_take_fails_the_datum"}


def plain(v):
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if hasattr(v, "timestamp"):  # datetime from timestamp-*
        return round(v.timestamp() * 1000)
    return v


for name, (writer, reader, datum, ours) in cases.items():
    put(here / f"{name}.json", json.dumps({"writer": writer, "reader": reader}, indent=1) + "\n")
    out = io.BytesIO()
    schemaless_writer(out, parse_schema(writer), datum)
    lines = [f"bytes: {out.getvalue().hex()}"]
    try:
        value = schemaless_reader(io.BytesIO(out.getvalue()), parse_schema(writer), parse_schema(reader))
        fastavro_says = "resolves"
        lines.append("read: " + json.dumps(plain(value), separators=(",", ":"), sort_keys=True))
    except Exception as e:  # fastavro's SchemaResolutionError and friends
        fastavro_says = "refuses: " + str(e).replace("\n", " ")[:200]
    lines.insert(0, f"fastavro: {fastavro_says}")
    if ours is None:
        verdict = ("resolves" if fastavro_says == "resolves"
                   else "datum_fails" if name in datum_level else "schema_incompatible")
        lines[:0] = ["oracle: fastavro", f"verdict: {verdict}"] + (
            [f"path: {paths[name]}"] if verdict == "schema_incompatible" else [])
    else:
        verdict, path, why = ours[:3]
        lines[:0] = [f"oracle: none ({why})", f"verdict: {verdict}"] + ([f"path: {path}"] if path else [])
        if len(ours) > 3:  # our reading, where fastavro's differs
            lines = [x for x in lines if not x.startswith("read: ")]
            lines.append("read: " + json.dumps(ours[3], separators=(",", ":"), sort_keys=True))
    put(here / f"{name}.expected", "\n".join(lines) + "\n")
if check:
    if differ:
        print("differs from what fastavro gives now (run generate.py and review):", *differ)
        sys.exit(1)
    print(f"{len(cases)} resolution cases agree with fastavro")
