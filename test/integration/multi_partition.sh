#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# contract §4, §5 on four partitions: 400 records of 40 keys, each value
# carrying its key and a per-key sequence number (every fifth filtered out),
# through one engine into a 4-partition sink. Checks record by record that
# every expected output is there exactly once and nothing else is, that each
# key's sequence rises in offset order on one output partition, that every
# output sits on the partition Java's default partitioner picks for its key
# (murmur2, kafka_partition.py), and that the committed offsets reach the
# end of all four input partitions (filtered records advance them too).
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

src=$(unique mp-events) sink=$(unique mp-out) app=$(unique multi-partition)
partitions=4 keys=40 per_key=10
create_topic "$src" "$partitions"
create_topic "$sink" "$partitions"
schema="$work/events.schema.json"
cat >"$schema" <<JSON
{"source": "events", "topic": "$src",
 "columns": [{"name": "k", "type": "STRING", "nullable": false},
             {"name": "seq", "type": "BIGINT", "nullable": false},
             {"name": "keep", "type": "BOOLEAN", "nullable": false}]}
JSON
compile "$schema" "$app" "$sink" "SELECT k, seq FROM events WHERE keep = TRUE" "$work/plan.json"

# Keys interleaved (every key's seq 0, then every key's seq 1, ...) so all
# partitions fill at once; one producer keeps each key's order.
python3 - "$keys" "$per_key" >"$work/input.txt" <<'PY'
import json, sys
keys, per_key = int(sys.argv[1]), int(sys.argv[2])
for seq in range(per_key):
    for i in range(keys):
        k = f"user-{i:02d}"
        print(f"{k}\t" + json.dumps({"k": k, "seq": seq, "keep": seq % 5 != 4}, separators=(",", ":")))
PY
start_engine mp "$work/plan.json" "$work/state" --max-records-per-transaction 50
produce "$src" <"$work/input.txt"
consume_committed "$src" >"$work/input.tsv"
expected_offsets=$(end_offsets_of "$work/input.tsv" "$partitions")
echo "input end offsets: $expected_offsets"
wait_for_offsets "$app" "$src" "$expected_offsets" 180 || { show_log mp; fail "committed offsets"; }
stop_engine mp
check_eq "engine exits 0 on SIGTERM" 0 "$engine_rc"
consume_committed "$sink" >"$work/output.tsv"

python3 - "$here" "$work/input.tsv" "$work/output.tsv" "$partitions" "$keys" "$per_key" >"$work/checks.tsv" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
from kafka_partition import partition_for

input_tsv, output_tsv, partitions, keys, per_key = sys.argv[2], sys.argv[3], *map(int, sys.argv[4:])

def rows(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            p, o, k, v = line.rstrip("\n").split("\t", 3)
            yield int(p), int(o), k, v

def check(what, expected, actual):
    print(f"{what}\t{expected}\t{actual}")

def sample(items):
    items = sorted(items)
    return " ".join(map(str, items[:8])) + (" ..." if len(items) > 8 else "") if items else "none"

inputs = list(rows(input_tsv))
check("input records", keys * per_key, len(inputs))
# Java's producer placed the input: this validates our murmur2 against it.
check("input keys on Java's murmur2 partitions", "none",
      sample(f"{k}@{p}" for p, _, k, _ in inputs if p != partition_for(k.encode(), partitions)))
check("input covers every partition", partitions, len({p for p, *_ in inputs}))

expected = {}
for _, _, k, v in inputs:
    r = json.loads(v)
    if r["keep"]:
        expected[(r["k"], r["seq"])] = json.dumps({"k": r["k"], "seq": r["seq"]}, separators=(",", ":"))

outputs = list(rows(output_tsv))
seen = {}
wrong_value, wrong_key = [], []
for p, o, k, v in outputs:
    r = json.loads(v)
    ident = (r["k"], r["seq"])
    seen.setdefault(ident, []).append((p, o))
    if expected.get(ident) != v:
        wrong_value.append(f"{p}@{o}")
    if k != r["k"]:
        wrong_key.append(f"{p}@{o}")
check("output record count", len(expected), len(outputs))
check("missing outputs", "none", sample(f"{k}#{s}" for k, s in expected.keys() - seen.keys()))
check("extra outputs", "none", sample(f"{k}#{s}" for k, s in seen.keys() - expected.keys()))
check("duplicated outputs", "none", sample(f"{k}#{s}x{len(at)}" for (k, s), at in seen.items() if len(at) > 1))
check("output values are exactly the projection", "none", sample(wrong_value))
check("output keys are the input keys", "none", sample(wrong_key))
check("outputs on Java's murmur2 partition of their key", "none",
      sample(f"{k}@{p}" for p, _, k, _ in outputs if p != partition_for(k.encode(), partitions)))
by_key = {}
for p, o, k, v in outputs:
    by_key.setdefault(k, []).append((p, o, json.loads(v)["seq"]))
spread = [k for k, at in by_key.items() if len({p for p, _, _ in at}) != 1]
check("each key on one output partition", "none", sample(spread))
unordered = [k for k, at in by_key.items() if [s for *_, s in sorted(at)] != sorted(s for *_, s in at)]
check("each key's sequence rises in offset order", "none", sample(unordered))
check("outputs cover every partition", partitions, len({p for p, *_ in outputs}))
PY
check_each "$work/checks.tsv"
check_eq "committed offsets at the end of every input partition" "$expected_offsets" "$(group_offsets "$app" "$src")"
filtered=$((keys * per_key / 5))
check_eq "the engine's final counts" \
  "stopped cleanly: $((keys * per_key)) consumed, $((keys * per_key - filtered)) emitted, $filtered filtered, 0 tombstones" \
  "$(grep -o 'stopped cleanly: .* tombstones' "$work/mp.log" || true)"
echo "$checks_passed passed, 0 failed"
