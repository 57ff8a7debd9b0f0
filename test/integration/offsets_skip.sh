#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# docs/operations.md "A poisoned record": a run stops at an invalid record
# (exit 65) and its last line names the command that gets past it;
# `streamt offsets` shows where the group stands; `streamt offsets skip`
# refuses a wrong offset, a running group and a record past the end, and
# moves a stopped group past the poisoned record, after which a restart
# processes the records after it and never the record itself.
source "$(dirname "$0")/lib.sh"

src=$(unique skip-in) sink=$(unique skip-out) app=$(unique skip-app)
create_topic "$src" 1
create_topic "$sink" 1
orders_schema "$src" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders WHERE amount >= 50" "$work/plan.json"
printf '%s\t%s\n' a '{"id":"a","amount":120}' b '{"id":"b","amount":"lots"}' c '{"id":"c","amount":200}' \
  d '{"id":"d","amount":10}' | produce "$src"
offsets() { "$STREAMT_BINARY" offsets "$@" --bootstrap-servers "$STREAMT_BOOTSTRAP" --timeout-ms 20000; }
# expect_rc NAME RC MESSAGE CMD...: runs CMD, checks its exit code and that
# its output holds MESSAGE.
expect_rc() {
  local name=$1 want=$2 message=$3 rc=0
  shift 3
  "$@" >"$work/$name.out" 2>&1 || rc=$?
  check_eq "$name: exit code" "$want" "$rc"
  grep -qF -- "$message" "$work/$name.out" || { cat "$work/$name.out"; fail "$name: no '$message' in the output"; }
  sed 's/^/  /' "$work/$name.out"
}

echo "== the run stops at the poisoned record and names the way past it"
start_engine first "$work/plan.json" "$work/state" --commit-interval-ms 200
wait_engine first 90
check_eq "first run: exit code" 65 "$engine_rc"
grep -qF "streamt offsets skip $app $src/0@1 --bootstrap-servers" "$work/first.log" ||
  { show_log first; fail "the exit-65 line does not name streamt offsets skip"; }
check_eq "committed offset after the stop" 1 "$(committed_offset "$app" "$src" 0)"

echo "== streamt offsets shows the group: stopped, at the record, 3 behind"
expect_rc show 0 "Empty, 0 members" offsets "$app"
# The commit's metadata is the plan lineage: the plan that committed the
# offset (shortened as the log shows it) and the instance that ran it.
digest=$("$STREAMT_BINARY" check "$work/plan.json" | awk '/^digest:/ { print $2 }')
grep -qE "^$src +0 +1 +4 +3  ${digest:0:19}  [^ ]+$" "$work/show.out" ||
  fail "offsets: no row '$src 0 1 4 3 ${digest:0:19} INSTANCE'"
checks_passed=$((checks_passed + 1))
offsets "$app" --format json >"$work/show.json"
check_eq "offsets --format json" "Empty 0 $src 0 1 4 3 $digest" \
  "$(python3 -c 'import json,sys; d=json.load(sys.stdin); p=d["partitions"][0]
print(d["state"], d["members"], p["topic"], p["partition"], p["committed"], p["end"], p["lag"], p["plan"])' <"$work/show.json")"

echo "== skip refuses what would lose or repeat a record, and changes nothing"
expect_rc not-committed 78 "is 1, not 2" offsets skip "$app" "$src/0@2"
expect_rc no-offset 78 "has no committed offset for $src/5" offsets skip "$app" "$src/5@0"
expect_rc malformed 2 "is not TOPIC/PARTITION@OFFSET" offsets skip "$app" "$src:0:1"
check_eq "committed offset after the refusals" 1 "$(committed_offset "$app" "$src" 0)"

echo "== skip moves the stopped group past the record"
expect_rc skip 0 "$src/0 moved from 1 to 2" offsets skip "$app" "$src/0@1"
check_eq "committed offset after skip" 2 "$(committed_offset "$app" "$src" 0)"
check_eq "skip keeps the lineage" "$digest" \
  "$(offsets "$app" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["partitions"][0]["plan"])')"

echo "== the restart processes the records after it, never the record"
start_engine second "$work/plan.json" "$work/state" --commit-interval-ms 200
wait_for_committed "$app" "$src" 0 4 || { show_log second; fail "the restart did not commit to the end"; }
check_eq "output: a and c, b never" '{"id":"a","amount":120} {"id":"c","amount":200}' \
  "$(values_committed "$sink" | tr '\n' ' ' | sed 's/ $//')"

echo "== skip refuses a group with a running instance"
expect_rc active 75 "has 1 member" offsets skip "$app" "$src/0@4"
stop_engine second
check_eq "second run: exit code" 0 "$engine_rc"
expect_rc past-end 78 "ends at 4: there is no record at 4" offsets skip "$app" "$src/0@4"
check_eq "committed offset at the end" 4 "$(committed_offset "$app" "$src" 0)"

echo "offsets_skip: $checks_passed checks passed"
