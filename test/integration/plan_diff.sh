#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# streamt diff on the real broker (issue 18, contract §6): a plan change
# previewed on live data, read-only. Two partitions of orders; OLD passes
# amount >= 50 with id, amount; NEW (compiled with --supersedes OLD, and a
# schema that ignores undeclared members) passes amount >= 150 with id and
# amount renamed total. Every report is checked against a reference this
# test computes itself from the records as the Java client reads them back:
# the counts and each differing record (partition, offset, kind, both values).
#  1. OLD runs over the first 100 records and stops. --from committed, with
#     OLD caught up, compares no record: exit 4, not a pass (issue 38).
#     More records follow, two with an undeclared member (invalid for OLD
#     only).
#  2. --from earliest: the whole topic.
#  3. --from committed: from where OLD's application stands.
#  4. --from TOPIC/PARTITION@OFFSET: one partition from an offset.
#  5. --from last:N: the last N records of each partition, N per partition.
#  6. The text report, a plan against itself (exit 0), --max-records, plans
#     of different topics (exit 1), positions outside the topic (exit 78).
#  7. Nothing was committed and nothing written: the group's offsets and the
#     sink are as OLD left them.
source "$(dirname "$0")/lib.sh"

src=$(unique diff-in) sink=$(unique diff-out) app=$(unique plan-diff)
create_topic "$src" 2
create_topic "$sink" 1
orders_schema "$src" "$work/old.schema.json"
python3 - "$work/old.schema.json" "$work/new.schema.json" <<'PY'
import json, sys
schema = json.load(open(sys.argv[1]))
schema["unknown_fields"] = "ignore"
json.dump(schema, open(sys.argv[2], "w"))
PY
compile "$work/old.schema.json" "$app" "$sink" "SELECT id, amount FROM orders WHERE amount >= 50" "$work/old.json"
echo "SELECT id, amount AS total FROM orders WHERE amount >= 150" |
  "$STREAMT_BINARY" compile --schema "$work/new.schema.json" --application-id "$app" --sink-topic "$sink" \
    --supersedes "$work/old.json" --output "$work/new.json" -

diff_plans() { "$STREAMT_BINARY" diff "$@" --bootstrap-servers "$STREAMT_BOOTSTRAP"; }

# verify WHAT DUMP REPORT FROM: check_each lines comparing REPORT (diff's
# JSON) with what OLD and NEW make of DUMP's records (consume's TSV) from
# FROM ("earliest", or "P:OFFSET ..." pairs: those partitions only, from
# there); each check is named after WHAT.
verify() {
  python3 - "$@" >"$work/checks.tsv" <<'PY'
import json, sys
what, dump, report, start = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3])), sys.argv[4]
starts = None if start == "earliest" else {int(p): int(o) for p, o in (x.split(":") for x in start.split())}
def compact(o): return json.dumps(o, separators=(",", ":"))
def old_plan(v):  # SELECT id, amount WHERE amount >= 50; undeclared members refused
    if v is None: return "tombstone", None
    if set(v) != {"id", "amount"}: return "invalid", None
    return ("passed", compact({"id": v["id"], "amount": v["amount"]})) if v["amount"] >= 50 else ("filtered", None)
def new_plan(v):  # SELECT id, amount AS total WHERE amount >= 150; undeclared members ignored
    if v is None: return "tombstone", None
    return ("passed", compact({"id": v["id"], "total": v["amount"]})) if v["amount"] >= 150 else ("filtered", None)
tally = {"old": {}, "new": {}}
diffs = []
per_partition = {}
for line in open(dump):
    p, o, key, value = line.rstrip("\n").split("\t", 3)
    p, o = int(p), int(o)
    if starts is not None and (p not in starts or o < starts[p]): continue
    per_partition[p] = per_partition.get(p, 0) + 1
    v = None if value == "null" else json.loads(value)
    (a, av), (b, bv) = old_plan(v), new_plan(v)
    tally["old"][a] = tally["old"].get(a, 0) + 1
    tally["new"][b] = tally["new"].get(b, 0) + 1
    kind = None
    if a == "passed" and b == "passed": kind = "changed" if av != bv else None
    elif a == "passed": kind = "old_only"
    elif b == "passed": kind = "new_only"
    elif (a == "invalid") != (b == "invalid"): kind = "invalid_in_one"
    if kind: diffs.append([p, o, kind, av, bv])
records = sum(tally["old"].values())
print(f"{what}: records read\t{records}\t{report['records']}")
got_per_partition = {q["partition"]: q["records"] for q in report["partitions"] if q["records"]}
print(f"{what}: records compared on each partition\t{sorted(per_partition.items())}\t{sorted(got_per_partition.items())}")
for side in ("old", "new"):
    for count in ("passed", "filtered", "tombstones", "invalid"):
        expected = tally[side].get("tombstone" if count == "tombstones" else count, 0)
        print(f"{what}: {side} {count}\t{expected}\t{report[side][count]}")
for kind in ("old_only", "new_only", "changed", "invalid_in_one"):
    print(f"{what}: differences {kind}\t{sum(d[2] == kind for d in diffs)}\t{report['differences'][kind]}")
got = [[e["partition"], e["offset"], e["difference"], e["old"], e["new"]] for e in report["first_differences"]]
print(f"{what}: each differing record (partition, offset, kind, old, new)\t{json.dumps(diffs)}\t{json.dumps(got)}")
print(f"{what}: read to the end of every partition\tTrue\t{report['complete']}")
PY
  check_each "$work/checks.tsv"
}

echo "== OLD runs over the first 100 records, then stops"
numbered_orders 0 100 | produce "$src"
start_engine old "$work/old.json" "$work/old-state"
wait_committed_total "$app" "$src" 100 || { show_log old; fail "OLD did not commit its records"; }
stop_engine old
check_eq "OLD's exit code" 0 "$engine_rc"
committed_before=$(group_offsets "$app" "$src")
sink_before=$(values_committed "$sink" | wc -l)
check_eq "OLD's output: amounts 50 to 99" 50 "$sink_before"

echo "== --from committed with OLD caught up: no record compared, exit 4"
rc=0
diff_plans "$work/old.json" "$work/new.json" --from committed >"$work/caught-up.txt" 2>"$work/caught-up.err" || rc=$?
check_eq "diff over no record: exit code" 4 "$rc"
grep -qF "compared no record, so nothing was tested" "$work/caught-up.err" &&
  grep -qF "OLD_PLAN's application has caught up" "$work/caught-up.err" &&
  grep -qF -- "--from last:N" "$work/caught-up.err" ||
  { cat "$work/caught-up.err"; fail "diff over no record does not say so, why, and what to give instead"; }
grep -q "^nothing was tested: no record was compared" "$work/caught-up.txt" ||
  { cat "$work/caught-up.txt"; fail "the report over no record does not say that nothing was tested"; }
checks_passed=$((checks_passed + 1))
rc=0
diff_plans "$work/old.json" "$work/new.json" --from committed --format json >"$work/caught-up.json" \
  2>/dev/null || rc=$?
check_eq "diff over no record (--format json): exit code, records, and each partition's" "4 0 0,0" \
  "$rc $(python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["records"], ",".join(str(p["records"]) for p in r["partitions"]))' \
    <"$work/caught-up.json")"

echo "== more records: two with an undeclared member, and a tombstone"
{
  numbered_orders 100 200
  printf '%s\t%s\n' kx1 '{"id":"x1","amount":170,"note":"new field"}' kx2 '{"id":"x2","amount":10,"note":"n"}' \
    k3 null
} | produce "$src"
consume_committed "$src" >"$work/source.tsv"
check_eq "the source holds every record" 203 "$(wc -l <"$work/source.tsv")"

echo "== --from earliest: the whole topic"
rc=0
diff_plans "$work/old.json" "$work/new.json" --format json --max-diffs 10000 >"$work/earliest.json" || rc=$?
check_eq "diff's exit code when records differ" 3 "$rc"
verify earliest "$work/source.tsv" "$work/earliest.json" earliest
# amounts 0..199: 50..149 OLD only, 150..199 both (renamed), x1 NEW only,
# x2 invalid for OLD only: each kind occurs, so no check above is vacuous.
check_eq "earliest: old only, new only, changed, invalid in one" "100 1 50 1" \
  "$(python3 -c 'import json,sys; d=json.load(sys.stdin)["differences"]; print(d["old_only"], d["new_only"], d["changed"], d["invalid_in_one"])' \
    <"$work/earliest.json")"

echo "== --from committed: from where OLD's application stands"
rc=0
diff_plans "$work/old.json" "$work/new.json" --from committed --format json --max-diffs 10000 \
  >"$work/committed.json" || rc=$?
check_eq "diff --from committed: exit code" 3 "$rc"
verify committed "$work/source.tsv" "$work/committed.json" "$committed_before"
check_eq "it starts each partition at the committed offset" "$committed_before" \
  "$(python3 -c 'import json,sys; print(" ".join("%d:%d" % (p["partition"], p["from"]) for p in json.load(sys.stdin)["partitions"]))' \
    <"$work/committed.json")"

echo "== --from TOPIC/PARTITION@OFFSET: partition 1 from offset 5"
rc=0
diff_plans "$work/old.json" "$work/new.json" --from "$src/1@5" --format json --max-diffs 10000 \
  >"$work/positions.json" || rc=$?
check_eq "diff --from a position: exit code" 3 "$rc"
verify "$src/1@5" "$work/source.tsv" "$work/positions.json" "1:5"

echo "== --from last:N: each partition's last N records"
# The producer is idempotent, not transactional: no commit marker takes an
# offset, so the last 5 offsets of a partition are its last 5 records.
rc=0
diff_plans "$work/old.json" "$work/new.json" --from last:5 --format json --max-diffs 10000 \
  >"$work/last.json" || rc=$?
check_eq "diff --from last:5: exit code" 3 "$rc"
last_starts=$(awk -F'\t' '{ if ($2 + 1 > end[$1]) end[$1] = $2 + 1 } END { for (p in end) printf "%d:%d ", p, end[p] - 5 }' \
  "$work/source.tsv")
verify last:5 "$work/source.tsv" "$work/last.json" "$last_starts"
check_eq "diff --from last:5: 5 records compared on each of the 2 partitions" "0:5 1:5" \
  "$(python3 -c 'import json,sys; print(" ".join("%d:%d" % (p["partition"], p["records"]) for p in json.load(sys.stdin)["partitions"]))' \
    <"$work/last.json")"
rc=0
diff_plans "$work/old.json" "$work/new.json" --from last:5 >"$work/last.txt" || rc=$?
check_eq "diff --from last:5 (text): exit code" 3 "$rc"
grep -qxF "compared 10 records: $src/0 5, $src/1 5" "$work/last.txt" ||
  { cat "$work/last.txt"; fail "the text report does not give the records compared on each partition"; }
checks_passed=$((checks_passed + 1))
rc=0
diff_plans "$work/old.json" "$work/new.json" --from last:1000000 --format json >"$work/last-all.json" || rc=$?
check_eq "diff --from last:N longer than the log: from each log start, every record" "3 203" \
  "$rc $(python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])' <"$work/last-all.json")"

echo "== the text report"
rc=0
diff_plans "$work/old.json" "$work/new.json" >"$work/report.txt" || rc=$?
check_eq "the text report's exit code" 3 "$rc"
total=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["differences"]["total"])' <"$work/earliest.json")
grep -qF "$total records differ:" "$work/report.txt" || { cat "$work/report.txt"; fail "the text report does not count $total differing records"; }
check_eq "the text report prints the first 20 differing records" 20 "$(grep -c '^{"topic":' "$work/report.txt")"
sed -n '1,12p' "$work/report.txt"

echo "== a plan against itself: no difference, exit 0"
rc=0
diff_plans "$work/old.json" "$work/old.json" >"$work/same.txt" || rc=$?
check_eq "the exit code when nothing differs" 0 "$rc"
grep -q "^no record differs" "$work/same.txt" || { cat "$work/same.txt"; fail "no 'no record differs'"; }
checks_passed=$((checks_passed + 1))

echo "== --max-records stops the read there"
rc=0
diff_plans "$work/old.json" "$work/new.json" --max-records 10 --format json >"$work/ten.json" || rc=$?
check_eq "10 records read, the read incomplete" "10 False" \
  "$(python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["records"], r["complete"])' <"$work/ten.json")"

echo "== plans of different topics are refused"
other=$(unique diff-other)
orders_schema "$other" "$work/other.schema.json"
compile "$work/other.schema.json" "$app" "$sink" "SELECT id FROM orders" "$work/other.json"
rc=0
diff_plans "$work/old.json" "$work/other.json" >/dev/null 2>"$work/other.err" || rc=$?
check_eq "different topics: exit code" 1 "$rc"
grep -qF "the plans read different topics" "$work/other.err" || { cat "$work/other.err"; fail "no reason given"; }
checks_passed=$((checks_passed + 1))

echo "== a position outside the topic is refused"
for case in "0@100000:is past the partition's end" "7@0:has 2 partitions"; do
  rc=0
  diff_plans "$work/old.json" "$work/new.json" --from "$src/${case%%:*}" >/dev/null 2>"$work/outside.err" || rc=$?
  check_eq "--from $src/${case%%:*}: exit code" 78 "$rc"
  grep -qF "${case#*:}" "$work/outside.err" || { cat "$work/outside.err"; fail "no '${case#*:}'"; }
done

echo "== nothing was committed or written"
check_eq "the group's committed offsets are OLD's" "$committed_before" "$(group_offsets "$app" "$src")"
check_eq "the sink holds OLD's output only" "$sink_before" "$(values_committed "$sink" | wc -l)"
echo "plan_diff: $checks_passed checks passed"
