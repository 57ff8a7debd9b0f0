#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# contract §5, on_invalid dead-letter: bad records mixed into a two-partition
# stream go to the dead-letter topic inside the transaction that commits
# their offsets, and the run goes on. Through a SIGKILL in the middle of the
# stream and a restart, every good record is in the output and every bad
# one in the dead-letter topic exactly once (read_committed), each with its
# key, value, headers and timestamp unchanged plus the streamt.* headers
# naming its source record, the reason and the plan digest; the committed
# offsets end at the end of the input.
#
# Records are produced and read with the Java client through RecordTool.java
# (byte-exact, headers and timestamps included).
source "$(dirname "$0")/lib.sh"

src=$(unique dlq-in) sink=$(unique dlq-out) dlq=$(unique dlq-dead) app=$(unique dead-letter)
create_topic "$src" 2
create_topic "$sink" 2
create_topic "$dlq" 1
schema="$work/orders.schema.json"
orders_schema "$src" "$schema"
echo "SELECT id, amount FROM orders WHERE amount >= 10" |
  "$STREAMT_BINARY" compile --schema "$schema" --application-id "$app" --sink-topic "$sink" \
    --on-invalid dead-letter --dead-letter-topic "$dlq" --output "$work/plan.json" -
digest=$("$STREAMT_BINARY" check "$work/plan.json" | awk '/^digest:/ { print $2 }')
"$STREAMT_BINARY" check "$work/plan.json" | grep -q "^on_invalid:     dead-letter to $dlq\$" ||
  fail "check does not show the dead-letter policy"

# A plan whose dead-letter topic does not exist is refused before anything
# is consumed (exit 69), like a missing sink.
echo "SELECT id FROM orders" |
  "$STREAMT_BINARY" compile --schema "$schema" --application-id "$app-missing" --sink-topic "$sink" \
    --on-invalid dead-letter --dead-letter-topic "$dlq-nope" --output "$work/missing.json" -
refused missing_dlq 69 "topic '$dlq-nope' does not exist" "$work/missing.json" \
  --bootstrap-servers "$STREAMT_BOOTSTRAP" --state-dir "$work/state-missing"

build_record_tool

# FROM TO: records FROM..TO-1 over both partitions; every seventh is bad in
# one of three ways, some carry headers, all a timestamp; every fifth good
# one is filtered (amount < 10).
records() {
  python3 - "$1" "$2" <<'PY'
import json, sys, time
def h(b): return None if b is None else b.hex()
first, last = int(sys.argv[1]), int(sys.argv[2])
# Timestamps of now: older ones would fall to the topic's retention.
now = int(time.time() * 1000)
for i in range(first, last):
    if i % 7 == 3:
        value = [b'{"id":"b%d","amount":"not a number"}' % i, b'not json %d' % i, b'{"id":"b%d"}' % i][i % 3]
    else:
        value = b'{"id":"g%d","amount":%d}' % (i, 5 if i % 5 == 0 else 100 + i)
    headers = [["trace", h(b"t%d" % i)], ["nul", None]] if i % 2 else []
    print(json.dumps({"partition": i % 2, "key": h(b"k%d" % i), "value": h(value),
                      "ts": now + i, "headers": headers}))
PY
}

total=600
records 0 300 >"$work/input1.jsonl"
records 300 "$total" >"$work/input2.jsonl"
record_tool produce "$src" <"$work/input1.jsonl"

echo "== run, killed with SIGKILL while records flow"
# The killed member holds its partitions until its session expires: the
# broker's shortest session (6 s) instead of the 45 s default, which the
# restart would wait out for nothing this test checks.
group_settings=(-X session.timeout.ms=6000 -X heartbeat.interval.ms=500)
# Transactions of 3 s, so that the kill finds one open.
start_engine first "$work/plan.json" "$work/state" --commit-interval-ms 3000 "${group_settings[@]}"
wait_committed_total "$app" "$src" 300 120 || { show_log first; fail "the first 300 records were not committed"; }
record_tool produce "$src" <"$work/input2.jsonl"
# Killed once it has written a bad record of the second half (offset 150
# or more of its partition) to the dead-letter topic: the transaction open
# then, outputs and dead-letter writes, is aborted by the broker.
killed_mid=0
for ((i = 0; i < 400; i++)); do
  if grep -qE '/[01]@(1[5-9][0-9]|2[0-9][0-9]): .*writing it to dead-letter topic' "$work/first.log"; then
    killed_mid=1
    break
  fi
  sleep 0.025
done
kill -9 "${engine_pid[first]}"
wait_engine first 30
check_eq "the first run was killed" 137 "$engine_rc"
check_eq "it was killed after dead-lettering a record of the second half" 1 "$killed_mid"

echo "== restart"
start_engine second "$work/plan.json" "$work/state" "${group_settings[@]}"
wait_committed_total "$app" "$src" "$total" 180 || { show_log second; fail "not every record was committed"; }
stop_engine second
check_eq "the restarted run stops cleanly" 0 "$engine_rc"

record_tool dump "$src" >"$work/input.dump"
record_tool dump "$sink" >"$work/output.dump"
record_tool dump "$dlq" >"$work/dead.dump"
python3 - "$work/input.dump" "$work/output.dump" "$work/dead.dump" "$digest" "$src" >"$work/checks.tsv" <<'PY'
import collections, json, sys
def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]
def check(what, expected, actual):
    print(f"{what}\t{json.dumps(expected)}\t{json.dumps(actual)}")
inputs, outputs, dead = load(sys.argv[1]), load(sys.argv[2]), load(sys.argv[3])
digest, src = sys.argv[4], sys.argv[5]
def text(hexed): return bytes.fromhex(hexed).decode("utf-8", "replace")
good, bad = [], []
for r in inputs:
    v = bytes.fromhex(r["value"])
    (bad if b'"g' not in v else good).append(r)
passing = [r for r in good if json.loads(text(r["value"]))["amount"] >= 10]
check("input records", 600, len(inputs))
check("outputs: each passing good record exactly once",
      sorted(json.loads(text(r["value"]))["id"] for r in passing),
      sorted(json.loads(text(r["value"]))["id"] for r in outputs))
out_count = collections.Counter(text(r["value"]) for r in outputs)
check("no output twice", [], [v for v, n in out_count.items() if n > 1])
check("dead-letter records: each bad record exactly once",
      sorted(text(r["value"]) for r in bad), sorted(text(r["value"]) for r in dead))
by_source = {}
for d in dead:
    hs = {name: (None if v is None else text(v)) for name, v in d["headers"] if name.startswith("streamt.")}
    by_source[(hs.get("streamt.source.partition"), hs.get("streamt.source.offset"))] = (d, hs)
mismatches = []
for r in bad:
    d, hs = by_source.get((str(r["partition"]), str(r["offset"])), (None, {}))
    if d is None:
        mismatches.append(f"{r['partition']}@{r['offset']}: no dead-letter record names it")
        continue
    own = [hd for hd in d["headers"] if not hd[0].startswith("streamt.")]
    for what, want, got in [("value", r["value"], d["value"]), ("key", r["key"], d["key"]),
                            ("timestamp", r["ts"], d["ts"]), ("headers", r["headers"], own),
                            ("source topic", src, hs.get("streamt.source.topic")),
                            ("plan digest", digest, hs.get("streamt.plan.digest"))]:
        if want != got:
            mismatches.append(f"{r['partition']}@{r['offset']} {what}: {want!r} != {got!r}")
    code = hs.get("streamt.error.code")
    if code not in ("wrong_type", "malformed_json", "missing_column"):
        mismatches.append(f"{r['partition']}@{r['offset']} reason code {code!r}")
    if not hs.get("streamt.error.message"):
        mismatches.append(f"{r['partition']}@{r['offset']} has no reason text")
check("each dead-letter record is its input unchanged, with the streamt.* headers", [], mismatches)
PY
check_each "$work/checks.tsv"
ends=$(python3 -c '
import json, sys
end = {}
for line in open(sys.argv[1]):
    r = json.loads(line); end[r["partition"]] = max(end.get(r["partition"], 0), r["offset"] + 1)
print(" ".join(f"{p}:{end[p]}" for p in sorted(end)))' "$work/input.dump")
check_eq "committed offsets are the end of the input" "$ends" "$(group_offsets "$app" "$src")"
# The restart did the killed transaction's work again, its dead-letter
# writes included (committed once, as checked above).
grep -qE 'stopped cleanly: [1-9][0-9]* consumed, .* [1-9][0-9]* dead-lettered' "$work/second.log" ||
  { show_log second; fail "the restart dead-lettered nothing: the kill found no open transaction"; }
echo "$checks_passed passed, 0 failed"
