#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Plan succession on the real broker (issue 18; contract §5: the plan log
# and the lineage in each commit's metadata): plans on one application id,
# each instance with a fresh state directory, as every new Kubernetes pod
# has.
#  1. Plan A runs; plan X, unrelated (another predicate and projection), is
#     started after it and refused (exit 78) before it joins the group: A
#     holds the application in its plan log. The sink holds A's shape only.
#  2. Plan B, compiled with --supersedes A, claims the application from A
#     and takes the partition over at A's committed offset; the log says so
#     with both digests, and `streamt status` shows B holding it (exit 0);
#     status of an application that never ran, or that runs and has not
#     committed yet, exits 4 with one line.
#  3. A started again (its own state directory) is refused: an older plan
#     never overwrites a newer one's progress.
#  4. A compiled again with --supersedes B (a roll-back) takes it back.
#  5. A running instance of A that a rebalance gives a partition B has
#     committed stops with exit 78 (aborting what it had open, leaving the
#     group) and processes nothing of it; every record is in the sink once.
#  6. Two unrelated plans started at the same moment on a new application
#     id, where nothing is committed yet: exactly one runs, the other is
#     refused (exit 78) naming the plan that came first in the plan log, and
#     the sink holds the winner's shape only. Three rounds, each on a new
#     application id.
#  7. A pod with only the new plan (issue 38): plan A runs and its file is
#     deleted; plan B is compiled from the plan log alone
#     (--supersedes-standing), or from A's digest alone (--supersedes
#     DIGEST), each on an application id of its own, and takes over from A
#     as B compiled from A's file would. Before A ran nothing stood, and
#     --supersedes-standing said so; once B stands, compiling B again from
#     the log writes B as it is.
source "$(dirname "$0")/lib.sh"

src=$(unique succ-in) sink=$(unique succ-out) app=$(unique succession)
create_topic "$src" 1
create_topic "$sink" 1
orders_schema "$src" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders" "$work/a.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id FROM orders WHERE amount >= 150" "$work/x.json"
echo "SELECT id, amount FROM orders WHERE amount >= 100" |
  "$STREAMT_BINARY" compile --schema "$work/orders.schema.json" --application-id "$app" --sink-topic "$sink" \
    --supersedes "$work/a.json" --output "$work/b.json" -
digest() { "$STREAMT_BINARY" check "$1" | awk '/^digest:/ { print $2 }'; }
# The engine's text log names a plan by "sha256:" and 12 hex digits: the
# log greps below take ${d:0:19} of a digest d.
a=$(digest "$work/a.json") b=$(digest "$work/b.json") x=$(digest "$work/x.json")

echo "== plan A processes the first records"
numbered_orders 0 10 | produce "$src"
start_engine a "$work/a.json" "$work/a-state"
wait_for_committed "$app" "$src" 0 10 || { show_log a; fail "A did not commit its records"; }
stop_engine a
check_eq "A's exit code" 0 "$engine_rc"

echo "== an unrelated plan on the same application id is refused, from a fresh state directory"
numbered_orders 10 20 | produce "$src"
start_engine x "$work/x.json" "$work/x-state"
wait_engine x 90
check_eq "the unrelated plan's exit code" 78 "$engine_rc"
grep -qF "application $app was last claimed in its plan log $app-streamt-plans at offset 0 by plan ${a:0:19}" \
  "$work/x.log" &&
  grep -qF "which this plan ${x:0:19} does not supersede" "$work/x.log" ||
  { show_log x; fail "the refusal does not name both plans and the offset"; }
checks_passed=$((checks_passed + 1))
check_eq "nothing was committed past A's offset" 10 "$(committed_offset "$app" "$src" 0)"
check_eq "the sink holds A's shape only" 10 "$(values_committed "$sink" | grep -c '"amount"')"

echo "== plan B, which supersedes A, takes over at A's offset"
start_engine b "$work/b.json" "$work/b-state"
wait_for_committed "$app" "$src" 0 20 || { show_log b; fail "B did not take over"; }
stop_engine b
check_eq "B's exit code" 0 "$engine_rc"
grep -qF "taking over application $app at offset 0 from plan ${a:0:19}" "$work/b.log" &&
  grep -qF "taking over $src/0 at offset 10 from plan ${a:0:19}" "$work/b.log" &&
  grep -qF "which plan ${b:0:19} supersedes" "$work/b.log" ||
  { show_log b; fail "B does not log the hand-over with both digests and the offset"; }
checks_passed=$((checks_passed + 1))
# 10 of A (every amount), then of 10..19 those B passes (>= 100: none).
check_eq "the sink: A's records, then B's" 10 "$(values_committed "$sink" | wc -l)"
check_eq "streamt offsets names B as the plan of the partition" "$b" \
  "$("$STREAMT_BINARY" offsets "$app" --bootstrap-servers "$STREAMT_BOOTSTRAP" --format json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["partitions"][0]["plan"])')"

rc=0
status_json=$("$STREAMT_BINARY" status "$app" --bootstrap-servers "$STREAMT_BOOTSTRAP" --format json) || rc=$?
check_eq "streamt status of a group with committed offsets: exit code, and committed in its JSON" "0 True" \
  "$rc $(python3 -c 'import json,sys; print(json.load(sys.stdin)["committed"])' <<<"$status_json")"
check_eq "streamt status: B holds the application in the plan log, replacing A, at offset 1" "$b $a 1" \
  "$(python3 -c 'import json,sys; s=json.load(sys.stdin)["plan_log"]["standing"]; print(s["plan"], s["replaces"], s["offset"])' <<<"$status_json")"
check_eq "streamt status: B's one partition, lag 0" "$b $src/0 0" \
  "$(python3 -c 'import json,sys; p=json.load(sys.stdin)["plans"]; print(len(p) == 1 and p[0]["plan"], " ".join(p[0]["partitions"]), p[0]["lag"])' <<<"$status_json")"
"$STREAMT_BINARY" status "$app" --bootstrap-servers "$STREAMT_BOOTSTRAP" >"$work/status.txt"
grep -qF "holds the application since offset 1" "$work/status.txt" ||
  { cat "$work/status.txt"; fail "streamt status (text) does not say which plan holds the application"; }
checks_passed=$((checks_passed + 1))
# An application that never ran here (a misspelled id): one clear line, and
# exit 4, so a gate that runs status cannot pass it (issue 38).
unknown=$(unique never-ran)
rc=0
"$STREAMT_BINARY" status "$unknown" --bootstrap-servers "$STREAMT_BOOTSTRAP" >"$work/unknown.txt" \
  2>"$work/unknown.err" || rc=$?
check_eq "streamt status of an application that never ran: exit code" 4 "$rc"
grep -qF "streamt status: no application '$unknown' has run against these brokers" "$work/unknown.err" &&
  grep -qF "check the APPLICATION_ID's spelling" "$work/unknown.err" ||
  { cat "$work/unknown.err"; fail "streamt status does not say the application is unknown, and what to check"; }
check_eq "streamt status of an unknown application: one line on stderr" 1 "$(wc -l <"$work/unknown.err")"
checks_passed=$((checks_passed + 1))
rc=0
"$STREAMT_BINARY" status "$unknown" --bootstrap-servers "$STREAMT_BOOTSTRAP" --format json >"$work/unknown.json" \
  2>/dev/null || rc=$?
check_eq "streamt status --format json of an unknown application: exit code, committed, plans" "4 False 0" \
  "$rc $(python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["committed"], len(s["plans"]))' <"$work/unknown.json")"

echo "== status of a running application that has committed nothing yet: exit 4"
# An empty source topic: the instance joins its group and claims the plan
# log, and has no record to commit.
idle_src=$(unique idle-in) idle_sink=$(unique idle-out) idle_app=$(unique idle)
create_topic "$idle_src" 1
create_topic "$idle_sink" 1
orders_schema "$idle_src" "$work/idle.schema.json"
compile "$work/idle.schema.json" "$idle_app" "$idle_sink" "SELECT id FROM orders" "$work/idle.json"
start_engine idle "$work/idle.json" "$work/idle-state"
await_line idle "joined group $idle_app" 60
rc=0
"$STREAMT_BINARY" status "$idle_app" --bootstrap-servers "$STREAMT_BOOTSTRAP" >"$work/idle-status.txt" \
  2>"$work/idle-status.err" || rc=$?
check_eq "streamt status of an application that has not committed yet: exit code" 4 "$rc"
grep -qF "streamt status: application '$idle_app' has no committed offset yet (group " "$work/idle-status.err" ||
  { cat "$work/idle-status.err"; fail "streamt status does not say the application has not committed yet"; }
checks_passed=$((checks_passed + 1))
stop_engine idle
check_eq "the idle instance's exit code" 0 "$engine_rc"

echo "== A again, from its own state directory: refused, B's progress stays"
numbered_orders 100 110 | produce "$src"
start_engine a2 "$work/a.json" "$work/a-state"
wait_engine a2 90
check_eq "the superseded plan's exit code" 78 "$engine_rc"
grep -qF "by plan ${b:0:19}" "$work/a2.log" && grep -qF "which supersedes this plan ${a:0:19}" "$work/a2.log" ||
  { show_log a2; fail "the superseded plan does not say why it stops"; }
checks_passed=$((checks_passed + 1))
check_eq "nothing committed by the superseded plan" 20 "$(committed_offset "$app" "$src" 0)"

echo "== roll-back: A compiled again with --supersedes B takes the partition back"
echo "SELECT id, amount FROM orders" |
  "$STREAMT_BINARY" compile --schema "$work/orders.schema.json" --application-id "$app" --sink-topic "$sink" \
    --supersedes "$work/b.json" --output "$work/a-again.json" -
start_engine back "$work/a-again.json" "$work/back-state"
wait_for_committed "$app" "$src" 0 30 || { show_log back; fail "the roll-back did not take over"; }
stop_engine back
check_eq "the roll-back's exit code" 0 "$engine_rc"
check_eq "the sink: the 10 new records too" 20 "$(values_committed "$sink" | wc -l)"
echo "== a running instance of A given a partition B has committed stops, and B's progress stays"
msrc=$(unique mid-in) msink=$(unique mid-out) mapp=$(unique mid)
create_topic "$msrc" 2
create_topic "$msink" 1
orders_schema "$msrc" "$work/mid.schema.json"
compile "$work/mid.schema.json" "$mapp" "$msink" "SELECT id, amount FROM orders" "$work/ma.json"
echo "SELECT id, amount FROM orders WHERE amount >= 0" |
  "$STREAMT_BINARY" compile --schema "$work/mid.schema.json" --application-id "$mapp" --sink-topic "$msink" \
    --supersedes "$work/ma.json" --output "$work/mb.json" -
ma=$(digest "$work/ma.json") mb=$(digest "$work/mb.json")
numbered_orders 0 20 | produce "$msrc"
start_engine ma1 "$work/ma.json" "$work/ma1-state"
wait_committed_total "$mapp" "$msrc" 20 || { show_log ma1; fail "A did not commit the first records"; }
# B joins: the group gives it one of the two partitions, which it takes
# over from A; A keeps the other.
start_engine mb1 "$work/mb.json" "$work/mb1-state"
await_line mb1 "taking over $msrc/" 60
numbered_orders 20 40 | produce "$msrc"
wait_committed_total "$mapp" "$msrc" 40 || { show_log ma1; show_log mb1; fail "A and B did not commit"; }
# B stops and leaves: its partition, last committed by B, goes back to A.
stop_engine mb1
check_eq "B's exit code" 0 "$engine_rc"
wait_engine ma1 90
check_eq "A, given the partition B committed, stops: exit 78" 78 "$engine_rc"
grep -qF "by plan ${mb:0:19}" "$work/ma1.log" && grep -qF "which supersedes this plan ${ma:0:19}" "$work/ma1.log" ||
  { show_log ma1; fail "A does not say why it stops"; }
checks_passed=$((checks_passed + 1))
numbered_orders 40 50 | produce "$msrc"
start_engine mb2 "$work/mb.json" "$work/mb2-state"
wait_committed_total "$mapp" "$msrc" 50 || { show_log mb2; fail "B did not take the rest"; }
stop_engine mb2
check_eq "every record in the sink exactly once" "$(numbered_ids 50)" "$(committed_ids "$msink")"

echo "== two unrelated plans started at the same moment on a new application id"
for round in 1 2 3; do
  rsrc=$(unique race-in) rsink=$(unique race-out) rapp=$(unique race)
  create_topic "$rsrc" 2
  create_topic "$rsink" 1
  orders_schema "$rsrc" "$work/race.schema.json"
  compile "$work/race.schema.json" "$rapp" "$rsink" "SELECT id, amount FROM orders" "$work/p.json"
  compile "$work/race.schema.json" "$rapp" "$rsink" "SELECT id FROM orders" "$work/q.json"
  p=$(digest "$work/p.json") q=$(digest "$work/q.json")
  numbered_orders 0 20 | produce "$rsrc"
  start_engine "p$round" "$work/p.json" "$work/p$round-state"
  start_engine "q$round" "$work/q.json" "$work/q$round-state"
  # The loser stops at start-up; the winner runs until it is stopped.
  for ((i = 0; i < 600; i++)); do
    kill -0 "${engine_pid[p$round]}" 2>/dev/null || { loser=p winner=q; break; }
    kill -0 "${engine_pid[q$round]}" 2>/dev/null || { loser=q winner=p; break; }
    sleep 0.1
  done
  ((i < 600)) || { show_log "p$round"; show_log "q$round"; fail "round $round: neither plan was refused"; }
  wait_engine "$loser$round" 10
  check_eq "round $round: the loser's exit code" 78 "$engine_rc"
  winner_digest=$([[ $winner == p ]] && echo "$p" || echo "$q")
  grep -qF "in its plan log $rapp-streamt-plans at offset 0 by plan ${winner_digest:0:19}" "$work/$loser$round.log" ||
    { show_log "$loser$round"; fail "round $round: the refusal does not name the plan that came first"; }
  wait_committed_total "$rapp" "$rsrc" 20 ||
    { show_log "$winner$round"; fail "round $round: the winner did not process every record"; }
  stop_engine "$winner$round"
  check_eq "round $round: the winner's exit code" 0 "$engine_rc"
  with_amount=$(values_committed "$rsink" | grep -c '"amount"' || true)
  expected_amount=$([[ $winner == p ]] && echo 20 || echo 0)
  check_eq "round $round: the sink holds the winner's shape only (20 records)" "20 $expected_amount" \
    "$(values_committed "$rsink" | wc -l) $with_amount"
  raced=$(grep -c "claimed $rapp for plan" "$work/$loser$round.log" || true)
  echo "   round $round: $winner ran, $loser was refused ($raced claim(s) of its own had lost the race)"
done

echo "== a pod with only the new plan: B compiled from the plan log, or from A's digest, takes over"
# compile_b ARGS...: plan B of $sapp (the loop's), amount >= 15, to
# $work/$mode-b.json; its stderr to $work/$mode-compile.err.
compile_b() {
  echo "SELECT id, amount FROM orders WHERE amount >= 15" |
    "$STREAMT_BINARY" compile --schema "$work/$mode.schema.json" --application-id "$sapp" \
      --sink-topic "$ssink" "$@" --output "$work/$mode-b.json" - 2>"$work/$mode-compile.err"
}
for mode in standing digest; do
  ssrc=$(unique "$mode-in") ssink=$(unique "$mode-out") sapp=$(unique "$mode")
  create_topic "$ssrc" 1
  create_topic "$ssink" 1
  orders_schema "$ssrc" "$work/$mode.schema.json"
  if [[ $mode == standing ]]; then
    rc=0
    compile_b --supersedes-standing --bootstrap-servers "$STREAMT_BOOTSTRAP" || rc=$?
    check_eq "$mode: with nothing standing yet, --supersedes-standing exits 1" 1 "$rc"
    grep -qF "application '$sapp' has no plan log ($sapp-streamt-plans)" "$work/$mode-compile.err" &&
      grep -qF "compile without --supersedes-standing" "$work/$mode-compile.err" ||
      { cat "$work/$mode-compile.err"; fail "$mode: the refusal does not say that nothing stands"; }
    checks_passed=$((checks_passed + 1))
    # A plan log an administrator made, with no claim in it yet: the same.
    eapp=$(unique empty)
    create_topic "$eapp-streamt-plans" 1
    rc=0
    echo "SELECT id FROM orders" |
      "$STREAMT_BINARY" compile --schema "$work/$mode.schema.json" --application-id "$eapp" --sink-topic "$ssink" \
        --supersedes-standing --bootstrap-servers "$STREAMT_BOOTSTRAP" - >/dev/null 2>"$work/empty-compile.err" || rc=$?
    check_eq "$mode: with an empty plan log, --supersedes-standing exits 1" 1 "$rc"
    grep -qF "the plan log $eapp-streamt-plans holds no claim that stands (0 records): no plan holds" \
      "$work/empty-compile.err" ||
      { cat "$work/empty-compile.err"; fail "$mode: the refusal does not say that the plan log is empty"; }
    checks_passed=$((checks_passed + 1))
  fi
  compile "$work/$mode.schema.json" "$sapp" "$ssink" "SELECT id, amount FROM orders" "$work/$mode-a.json"
  sa=$(digest "$work/$mode-a.json")
  numbered_orders 0 10 | produce "$ssrc"
  start_engine "$mode-a" "$work/$mode-a.json" "$work/$mode-a-state"
  wait_for_committed "$sapp" "$ssrc" 0 10 || { show_log "$mode-a"; fail "$mode: A did not commit its records"; }
  stop_engine "$mode-a"
  check_eq "$mode: A's exit code" 0 "$engine_rc"
  # The new pod has only B's query: A's plan file is gone.
  rm "$work/$mode-a.json"
  if [[ $mode == standing ]]; then
    compile_b --supersedes-standing --bootstrap-servers "$STREAMT_BOOTSTRAP" ||
      { cat "$work/$mode-compile.err"; fail "$mode: compiling B from the plan log failed"; }
  else
    compile_b --supersedes "$sa" || { cat "$work/$mode-compile.err"; fail "$mode: compiling B from A's digest failed"; }
  fi
  sb=$(digest "$work/$mode-b.json")
  check_eq "$mode: B names A, and A alone, as the plan it supersedes" "supersedes:     $sa" \
    "$("$STREAMT_BINARY" check "$work/$mode-b.json" | grep '^supersedes:')"
  numbered_orders 10 20 | produce "$ssrc"
  start_engine "$mode-b" "$work/$mode-b.json" "$work/$mode-b-state"
  wait_for_committed "$sapp" "$ssrc" 0 20 || { show_log "$mode-b"; fail "$mode: B did not take over"; }
  stop_engine "$mode-b"
  check_eq "$mode: B's exit code" 0 "$engine_rc"
  grep -qF "taking over application $sapp at offset 0 from plan ${sa:0:19}" "$work/$mode-b.log" &&
    grep -qF "taking over $ssrc/0 at offset 10 from plan ${sa:0:19}" "$work/$mode-b.log" &&
    grep -qF "which plan ${sb:0:19} supersedes" "$work/$mode-b.log" ||
    { show_log "$mode-b"; fail "$mode: B does not log the hand-over from A with both digests"; }
  checks_passed=$((checks_passed + 1))
  # A's 10, then of 10..19 those B passes (amount >= 15): 5.
  check_eq "$mode: the sink: A's records, then B's" 15 "$(values_committed "$ssink" | wc -l)"
  if [[ $mode == standing ]]; then
    # Another pod of the fleet compiles B from the log once B stands: the
    # plan that stands, unchanged, not a successor of itself.
    cp "$work/$mode-b.json" "$work/$mode-b-first.json"
    compile_b --supersedes-standing --bootstrap-servers "$STREAMT_BOOTSTRAP" ||
      { cat "$work/$mode-compile.err"; fail "$mode: compiling B again from the plan log failed"; }
    cmp -s "$work/$mode-b-first.json" "$work/$mode-b.json" ||
      fail "$mode: B compiled again from the plan log where B stands is another plan"
    grep -qF "the plan standing in $sapp-streamt-plans, $sb (claimed at offset 1" "$work/$mode-compile.err" &&
      grep -qF "is this plan (the same query, schema and options); it is written as it stands" \
        "$work/$mode-compile.err" ||
      { cat "$work/$mode-compile.err"; fail "$mode: compile does not say B stands already"; }
    checks_passed=$((checks_passed + 1))
  fi
done
echo "plan_succession: $checks_passed checks passed"
