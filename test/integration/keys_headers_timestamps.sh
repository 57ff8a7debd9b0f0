#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# contract §4: the output keeps the input key bytes (null stays null, empty
# stays empty, binary stays binary), the headers (order, duplicates, null and
# empty values, binary values) and the create timestamp; tombstones are
# dropped and their offsets committed, also when the last record is one.
# Keyed outputs sit on Java's murmur2 partition of the key (3-partition sink).
#
# Produced and read with the Java client through RecordTool.java, byte-exact
# in hex: tools/kafka-local produce takes no headers or timestamps, and its
# --json dump decodes keys as UTF-8, which would hide a damaged binary key.
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

src=$(unique khts-in) sink=$(unique khts-out) app=$(unique keys-headers-timestamps)
# The records carry create timestamps from 1970 to 2023 and the broker keeps
# 24 h: its retention check (every 5 min) deletes a segment whose newest
# record is older than that, input or output, mid-test. Both topics keep all.
create_topic "$src" 1 --config retention.ms=-1
create_topic "$sink" 3 --config retention.ms=-1
schema="$work/events.schema.json"
cat >"$schema" <<JSON
{"source": "events", "topic": "$src",
 "columns": [{"name": "id", "type": "STRING", "nullable": false}]}
JSON
compile "$schema" "$app" "$sink" "SELECT id FROM events" "$work/plan.json"

build_record_tool

# The input, one JSON object a line (RecordTool's format: hex bytes). The
# record without "ts" gets the producer's clock, which must carry over too.
python3 >"$work/input.jsonl" <<'PY'
import json
def h(b): return None if b is None else b.hex()
def value(i): return h(('{"id":"r%d"}' % i).encode())
records = [
    {"key": None, "value": value(0), "ts": 1500000000000,
     "headers": [["trace", h(b"\x00\x01\xff")], ["trace", h(b"second")], ["nul", None], ["empty", ""]]},
    {"key": "", "value": value(1), "ts": 1000, "headers": []},
    {"key": h(b"\xff\x00\xfe\x80\n\t"), "value": value(2), "ts": 1600000000123,
     "headers": [["bin", h(b"\xc3\x28")]]},
    {"key": h(b"k3"), "value": None, "ts": 1700000000000, "headers": [["on-tombstone", h(b"x")]]},
    {"key": h("ключ".encode()), "value": value(4), "ts": 1700000000001,
     "headers": [["ü-name", h("välue".encode())]]},
    {"key": h(b"k5"), "value": value(5)},
    {"key": h(b"k6"), "value": None, "ts": 1700000000002},
]
for r in records:
    r["partition"] = 0
    print(json.dumps(r))
PY
inputs=$(wc -l <"$work/input.jsonl")
record_tool produce "$src" <"$work/input.jsonl"
record_tool dump "$src" >"$work/input.dump"
check_eq "input records as produced" "$inputs" "$(wc -l <"$work/input.dump")"

start_engine khts "$work/plan.json" "$work/state"
wait_for_offsets "$app" "$src" "0:$inputs" 120 || { show_log khts; fail "committed offset"; }
stop_engine khts
check_eq "engine exits 0 on SIGTERM" 0 "$engine_rc"
record_tool dump "$sink" >"$work/output.dump"

python3 - "$here" "$work/input.dump" "$work/output.dump" >"$work/checks.tsv" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
from kafka_partition import partition_for
def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]
def check(what, expected, actual):
    print(f"{what}\t{json.dumps(expected)}\t{json.dumps(actual)}")
inputs, outputs = load(sys.argv[2]), load(sys.argv[3])
kept = [r for r in inputs if r["value"] is not None]
check("outputs: exactly one per non-tombstone input",
      sorted(bytes.fromhex(r["value"]).decode() for r in kept),
      sorted(bytes.fromhex(r["value"]).decode() for r in outputs))
by_value = {r["value"]: r for r in outputs}
for i in kept:
    name = bytes.fromhex(i["value"]).decode()
    o = by_value.get(i["value"], {})
    check(f"{name}: key bytes", i["key"], o.get("key"))
    check(f"{name}: headers", i["headers"], o.get("headers"))
    check(f"{name}: timestamp", [i["tstype"], i["ts"]], [o.get("tstype"), o.get("ts")])
    if i["key"] is not None:
        check(f"{name}: on Java's murmur2 partition of its key",
              partition_for(bytes.fromhex(i["key"]), 3), o.get("partition"))
check("no tombstone reaches the sink", [], [r["offset"] for r in outputs if r["value"] is None])
PY
check_each "$work/checks.tsv"
check_eq "committed offset is the end of the input (tombstones included)" "0:$inputs" "$(group_offsets "$app" "$src")"
check_eq "the engine's final counts" "stopped cleanly: $inputs consumed, 5 emitted, 0 filtered, 2 tombstones" \
  "$(grep -o 'stopped cleanly: .* tombstones' "$work/khts.log" || true)"
echo "$checks_passed passed, 0 failed"
