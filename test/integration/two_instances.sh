#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# contract §5 scale-out: two engines with one application id (each its own
# --state-dir, so their own transactional ids) share a 4-partition input
# through the consumer group. The first half of the records is processed by
# both; one engine stops cleanly (SIGTERM), the second half is produced and
# the other engine, now owning every partition, processes it. Checks record
# by record: nothing lost, nothing twice, each key's order kept across the
# hand-over; both exit 0; the logs show the partitions moving.
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

src=$(unique ti-events) sink=$(unique ti-out) app=$(unique two-instances)
partitions=4 keys=40 per_half=5
create_topic "$src" "$partitions"
create_topic "$sink" "$partitions"
schema="$work/events.schema.json"
cat >"$schema" <<JSON
{"source": "events", "topic": "$src",
 "columns": [{"name": "k", "type": "STRING", "nullable": false},
             {"name": "seq", "type": "BIGINT", "nullable": false}]}
JSON
compile "$schema" "$app" "$sink" "SELECT k, seq FROM events" "$work/plan.json"

# make_half FIRST_SEQ: KEY<TAB>VALUE lines for seq FIRST_SEQ..+per_half-1 of
# every key; make_offsets N_SEQ: the input end offsets after N_SEQ per key,
# from where Java's partitioner puts each key (kafka_partition.py).
make_half() {
  python3 - "$keys" "$1" "$per_half" <<'PY'
import sys
keys, first, n = map(int, sys.argv[1:])
for seq in range(first, first + n):
    for i in range(keys):
        print(f'user-{i:02d}\t{{"k":"user-{i:02d}","seq":{seq}}}')
PY
}
make_offsets() {
  python3 - "$here" "$keys" "$1" "$partitions" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from kafka_partition import partition_for
keys, per_key, n = map(int, sys.argv[2:])
counts = [0] * n
for i in range(keys):
    counts[partition_for(f"user-{i:02d}".encode(), n)] += per_key
print(" ".join(f"{p}:{c}" for p, c in enumerate(counts)))
PY
}
# assigned NAME: the input partitions NAME's log says it took, sorted.
assigned() {
  grep -oE "$src/[0-9]+: (resuming at committed offset|no committed offset)" "$work/$1.log" |
    cut -d/ -f2 | cut -d: -f1 | sort -nu | paste -sd' ' || true
}

half1=$(make_offsets "$per_half") all=$(make_offsets $((2 * per_half)))
[[ $half1 != *":0"* ]] || fail "some partition gets no key: $half1"
start_engine a "$work/plan.json" "$work/state-a" --max-records-per-transaction 20
start_engine b "$work/plan.json" "$work/state-b" --max-records-per-transaction 20
# Both members hold partitions before the first record exists, so both
# process part of the first half (each polls its log; bounded).
for ((i = 0; i < 900; i++)); do
  [[ -n $(assigned a) && -n $(assigned b) ]] && break
  sleep 0.1
done
echo "partitions taken: a [$(assigned a)] b [$(assigned b)]"
[[ -n $(assigned a) && -n $(assigned b) ]] || { show_log a; show_log b; fail "both engines never held partitions"; }
txn_a=$(grep -o 'transactional id [^,]*' "$work/a.log" | head -n1)
txn_b=$(grep -o 'transactional id [^,]*' "$work/b.log" | head -n1)
[[ -n $txn_a && $txn_a != "$txn_b" ]] || fail "the instances' transactional ids are not distinct: '$txn_a' '$txn_b'"
# Each member names itself on the wire (kafka-consumer-groups --describe's
# CLIENT-ID) as its transactional id, <application id>-<instance id>.
check_eq "the group's members are named by their instances" \
  "$(printf '%s\n' "${txn_a#transactional id }" "${txn_b#transactional id }" | sort)" "$(group_members "$app")"
make_half 0 | produce "$src"
wait_for_offsets "$app" "$src" "$half1" 180 || { show_log a; show_log b; fail "first half offsets"; }

stop_engine a
check_eq "engine a exits 0 on SIGTERM" 0 "$engine_rc"
consumed_a=$(grep -o 'stopped cleanly: [0-9]* consumed' "$work/a.log" | grep -o '[0-9]*' || echo 0)
((consumed_a > 0 && consumed_a < keys * per_half)) ||
  { show_log a; fail "engine a consumed $consumed_a of the first half's $((keys * per_half)): the group did not share"; }
make_half "$per_half" | produce "$src"
wait_for_offsets "$app" "$src" "$all" 180 || { show_log a; show_log b; fail "second half offsets"; }
check_eq "engine b took over every partition" "0 1 2 3" "$(assigned b)"
# The hand-over as the engines logged it (info only: who took what when).
grep -hE "joined group|revoked|resuming at committed|no committed offset|stopped cleanly" "$work/a.log" | sed 's/^/  a: /'
grep -hE "joined group|revoked|resuming at committed|no committed offset|stopped cleanly" "$work/b.log" | sed 's/^/  b: /'
stop_engine b
check_eq "engine b exits 0 on SIGTERM" 0 "$engine_rc"
consume_committed "$sink" >"$work/output.tsv"

python3 - "$work/output.tsv" "$keys" "$((2 * per_half))" >"$work/checks.tsv" <<'PY'
import json, sys
path, keys, per_key = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def check(what, expected, actual):
    print(f"{what}\t{expected}\t{actual}")
def sample(items):
    items = sorted(items)
    return " ".join(map(str, items[:8])) + (" ..." if len(items) > 8 else "") if items else "none"
expected = {(f"user-{i:02d}", s) for i in range(keys) for s in range(per_key)}
seen, by_key, bad = {}, {}, []
with open(path, encoding="utf-8") as f:
    for line in f:
        p, o, k, v = line.rstrip("\n").split("\t", 3)
        r = json.loads(v)
        seen[(r["k"], r["seq"])] = seen.get((r["k"], r["seq"]), 0) + 1
        by_key.setdefault(k, []).append((int(p), int(o), r["seq"]))
        if k != r["k"] or v != f'{{"k":"{r["k"]}","seq":{r["seq"]}}}':
            bad.append(f"{p}@{o}")
check("output record count", len(expected), sum(seen.values()))
check("lost records", "none", sample(f"{k}#{s}" for k, s in expected - seen.keys()))
check("extra records", "none", sample(f"{k}#{s}" for k, s in seen.keys() - expected))
check("duplicated records", "none", sample(f"{k}#{s}x{n}" for (k, s), n in seen.items() if n > 1))
check("output keys and values", "none", sample(bad))
unordered = [k for k, at in by_key.items() if [s for *_, s in sorted(at)] != sorted(s for *_, s in at)]
check("each key's sequence rises in offset order across the hand-over", "none", sample(unordered))
PY
check_each "$work/checks.tsv"
check_eq "committed offsets at the end of every input partition" "$all" "$(group_offsets "$app" "$src")"
echo "$checks_passed passed, 0 failed"
