#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# A rolling update under load, on the real broker (issue 18; contract §5,
# succession and the lineage of each record; docs/operations.md, "Updating a
# fleet"). Three instances of plan A share a 6-partition source, each with
# its own state directory, while a producer keeps writing. They are replaced
# one at a time by instances of plan B, compiled with --supersedes A (and a
# renamed column, so a record's value tells A's output from B's without the
# header): SIGTERM one A, wait for its exit, start a B from a fresh state
# directory, wait until it holds partitions and has committed. Then the
# producer stops, the B instances drain the source and are stopped. Every
# engine runs with --lineage-header streamt-lineage.
#
# What it proves, from the read_committed sink and the group's offsets:
#  - exactly once through the roll: every input record is in the sink once,
#    none is missing, none is there twice;
#  - the lineage header names the record's own input (the source record at
#    its partition and offset has the id the output carries) and the plan
#    that wrote it, and agrees with the shape of the value;
#  - per partition, A wrote every record before the hand-over offset B
#    logged ("taking over SRC/P at offset N from plan A ... which plan B
#    supersedes") and B every record from it on: no A instance processed a
#    partition after B committed on it;
#  - every partition was handed over, and its final commit names B;
#  - an A instance exits 0 when stopped, or 78 when the group gave it a
#    partition a B had already committed (refused, as the runbook says),
#    never otherwise; every B exits 0.
source "$(dirname "$0")/lib.sh"

# (Loops count with n: lib.sh's wait_engine counts with a global i.)
began=$SECONDS
partitions=6 header=streamt-lineage
src=$(unique roll-in) sink=$(unique roll-out) app=$(unique rolling-update)
create_topic "$src" "$partitions"
create_topic "$sink" "$partitions"
orders_schema "$src" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders WHERE amount >= 0" "$work/a.json"
echo "SELECT id AS order_id, amount FROM orders WHERE amount >= 0" |
  "$STREAMT_BINARY" compile --schema "$work/orders.schema.json" --application-id "$app" --sink-topic "$sink" \
    --supersedes "$work/a.json" --output "$work/b.json" -
digest() { "$STREAMT_BINARY" check "$1" | awk '/^digest:/ { print $2 }'; }
a=$(digest "$work/a.json") b=$(digest "$work/b.json")

# The producer: records r0, r1, ... keyed over 60 keys (so every partition
# gets some), 40 every quarter second, until the file stop-producing exists;
# the count goes to the file produced. One Java producer for the whole run.
generate() {
  local i=0 j
  while [[ ! -e $work/stop-producing ]]; do
    for ((j = 0; j < 40; j++, i++)); do printf 'k%d\t{"id":"r%d","amount":%d}\n' "$((i % 60))" "$i" "$i"; done
    sleep 0.25
  done
  echo "$i" >"$work/produced"
}
producer_pid=
stop_producing() {
  [[ -n $producer_pid ]] || return 0
  touch "$work/stop-producing"
  wait "$producer_pid" || fail "the producer failed"
  producer_pid=
}
# Also when the test fails half way: the producer must not outlive it.
trap '[[ -z $producer_pid ]] || { touch "$work/stop-producing"; wait "$producer_pid" || true; }; cleanup' EXIT

# Rebalances in seconds, not the defaults' tens of seconds: a member learns
# of a rebalance at its next heartbeat, and a member gone without leaving
# the group is dropped after the session timeout (6000 is the broker's
# least).
group_settings=(-X heartbeat.interval.ms=500 -X session.timeout.ms=6000)
start() { start_engine "$1" "$2" "$work/$1-state" --lineage-header "$header" "${group_settings[@]}" "${@:3}"; }
# wait_for_log NAME REGEX [TIMEOUT_S]: until NAME's log has a line matching
# REGEX (the engine's own account of what it did; polled, bounded).
wait_for_log() {
  local deadline=$((SECONDS + ${3:-60}))
  while ((SECONDS < deadline)); do
    grep -qE "$2" "$work/$1.log" && return 0
    kill -0 "${engine_pid[$1]}" 2>/dev/null || break
    sleep 0.2
  done
  grep -qE "$2" "$work/$1.log" || { show_log "$1"; fail "$1 never logged /$2/"; }
}
holds_partitions="$src/[0-9]+: (resuming at committed offset|no committed offset)"
committed="committed transaction 1 "
# How long each make-up of the group (three A's, then each step of the
# roll) processes records before the next step: not a wait for anything
# (each step waits for what it needs), the load each of them sees.
dwell=4

echo "== three instances of plan A, records flowing"
for n in 1 2 3; do start "a$n" "$work/a.json"; done
generate | produce "$src" &
producer_pid=$!
for n in 1 2 3; do wait_for_log "a$n" "$holds_partitions" 90; done
for n in 1 2 3; do wait_for_log "a$n" "$committed" 60; done
echo "  A running on every instance after $((SECONDS - began)) s"
sleep "$dwell"

# retire NAME: the A instance's end. Stopped with SIGTERM it exits 0; one
# the group gave a partition a B had committed has exited 78 on its own,
# saying which plan superseded it.
refused_a=0
retire() {
  kill -TERM "${engine_pid[$1]}" 2>/dev/null || true
  wait_engine "$1" 60
  case $engine_rc in
    0) echo "  $1 stopped cleanly" ;;
    78)
      grep -qF "by plan ${b:0:19}" "$work/$1.log" && grep -qF "which supersedes this plan ${a:0:19}" "$work/$1.log" ||
        { show_log "$1"; fail "$1 exited 78 for another reason than a partition B committed"; }
      refused_a=$((refused_a + 1))
      echo "  $1 had exited 78: given a partition B had committed, it refused it"
      ;;
    *) show_log "$1"; fail "$1 exited $engine_rc" ;;
  esac
}

echo "== the roll: each A replaced by a B, one at a time"
for n in 1 2 3; do
  retire "a$n"
  start "b$n" "$work/b.json" --allow-output-change
  wait_for_log "b$n" "$holds_partitions" 90
  wait_for_log "b$n" "$committed" 60
  echo "  b$n holds partitions and has committed ($((SECONDS - began)) s)"
  sleep "$dwell"
done

echo "== the producer stops; the B instances drain the source"
stop_producing
produced=$(cat "$work/produced")
consume_committed "$src" >"$work/input.tsv"
check_eq "every record produced is in the source" "$produced" "$(wc -l <"$work/input.tsv")"
ends=$(end_offsets_of "$work/input.tsv" "$partitions")
wait_for_offsets "$app" "$src" "$ends" 90 || { show_log b1; show_log b2; show_log b3; fail "B did not drain the source"; }
"$STREAMT_BINARY" offsets "$app" --bootstrap-servers "$STREAMT_BOOTSTRAP" --format json >"$work/offsets.json"
for n in 1 2 3; do
  stop_engine "b$n"
  check_eq "b$n exits 0 on SIGTERM" 0 "$engine_rc"
done
"$kafka_local" consume "$sink" --committed --json >"$work/output.jsonl"
cat "$work"/b?.log >"$work/b-logs"

python3 - "$work/input.tsv" "$work/output.jsonl" "$work/b-logs" "$work/offsets.json" "$src" "$partitions" \
  "$header" "$a" "$b" >"$work/checks.tsv" <<'PY'
import json, re, sys
inputs, outputs, b_logs, offsets, src, partitions, header, a, b = sys.argv[1:]
partitions = int(partitions)
def check(what, expected, actual):
    print(f"{what}\t{expected}\t{actual}")
def sample(items):
    items = sorted(items)
    return " ".join(map(str, items[:8])) + (" ..." if len(items) > 8 else "") if items else "none"

source = {}  # (partition, offset) -> id
for line in open(inputs, encoding="utf-8"):
    p, o, _, v = line.rstrip("\n").split("\t", 3)
    source[(int(p), int(o))] = json.loads(v)["id"]
# The hand-over offset of each partition: where B last took it over from A.
handover, other_plans = {}, []
for m in re.finditer(rf"taking over {re.escape(src)}/(\d+) at offset (\d+) from plan (\S+)", open(b_logs).read()):
    p, o, plan = int(m[1]), int(m[2]), m[3]
    if plan != a[:19]:  # the text log shows "sha256:" and 12 hex digits
        other_plans.append(f"{p}@{o}:{plan}")
    handover[p] = max(handover.get(p, 0), o)
check("every partition was handed over from A at a logged offset", partitions, len(handover))
check("B took partitions over from A only", "none", sample(other_plans))

seen, wrong_input, wrong_plan, wrong_shape, no_header, a_after, b_before = {}, [], [], [], [], [], []
written = {a: 0, b: 0}
for line in open(outputs, encoding="utf-8"):
    r = json.loads(line)
    value = json.loads(r["payload"])
    out_id = value.get("id", value.get("order_id"))
    seen[out_id] = seen.get(out_id, 0) + 1
    h = r["headers"]
    ours = [h[i + 1] for i in range(0, len(h), 2) if h[i] == header]
    where = f"{r['partition']}@{r['offset']}"
    if len(ours) != 1:
        no_header.append(where)
        continue
    m = re.fullmatch(r"(sha256:[0-9a-f]{64});p=(\d+);o=(\d+)", ours[0] or "")
    if not m:
        no_header.append(where)
        continue
    plan, p, o = m[1], int(m[2]), int(m[3])
    if source.get((p, o)) != out_id:
        wrong_input.append(where)
    if plan not in written:
        wrong_plan.append(where)
        continue
    written[plan] += 1
    if ("order_id" in value) != (plan == b):
        wrong_shape.append(where)
    if plan == a and p in handover and o >= handover[p]:
        a_after.append(f"{p}@{o}")
    if plan == b and (p not in handover or o < handover[p]):
        b_before.append(f"{p}@{o}")

ids = set(source.values())
check("output record count", len(source), sum(seen.values()))
check("lost records", "none", sample(ids - seen.keys()))
check("extra records", "none", sample(seen.keys() - ids))
check("duplicated records", "none", sample(f"{i}x{n}" for i, n in seen.items() if n > 1))
check("records without one well-formed lineage header", "none", sample(no_header))
check("records whose header names another input than theirs", "none", sample(wrong_input))
check("records whose header names neither A nor B", "none", sample(wrong_plan))
check("records whose shape is not the header's plan's", "none", sample(wrong_shape))
check("A records at or after their partition's hand-over offset", "none", sample(a_after))
check("B records before their partition's hand-over offset", "none", sample(b_before))
check("both plans wrote records", True, written[a] > 0 and written[b] > 0)
final = json.load(open(offsets))["partitions"]
check("partitions whose final commit names B", partitions,
      sum(x["topic"] == src and x["plan"] == b for x in final))
print(f"summary: {len(source)} records; A wrote {written[a]}, B wrote {written[b]}; hand-over offsets "
      + " ".join(f"{p}:{o}" for p, o in sorted(handover.items())), file=sys.stderr)
PY
check_each "$work/checks.tsv"
echo "rolling_update: $refused_a A instance(s) refused a partition B had committed (exit 78); $((SECONDS - began)) s"
echo "rolling_update: $checks_passed checks passed"
