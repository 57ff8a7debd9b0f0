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
#     with both digests, and `streamt status` shows B holding it.
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

status_json=$("$STREAMT_BINARY" status "$app" --bootstrap-servers "$STREAMT_BOOTSTRAP" --format json)
check_eq "streamt status: B holds the application in the plan log, replacing A, at offset 1" "$b $a 1" \
  "$(python3 -c 'import json,sys; s=json.load(sys.stdin)["plan_log"]["standing"]; print(s["plan"], s["replaces"], s["offset"])' <<<"$status_json")"
check_eq "streamt status: B's one partition, lag 0" "$b $src/0 0" \
  "$(python3 -c 'import json,sys; p=json.load(sys.stdin)["plans"]; print(len(p) == 1 and p[0]["plan"], " ".join(p[0]["partitions"]), p[0]["lag"])' <<<"$status_json")"
"$STREAMT_BINARY" status "$app" --bootstrap-servers "$STREAMT_BOOTSTRAP" >"$work/status.txt"
grep -qF "holds the application since offset 1" "$work/status.txt" ||
  { cat "$work/status.txt"; fail "streamt status (text) does not say which plan holds the application"; }
checks_passed=$((checks_passed + 1))
# An application that never ran here: one clear line, no broker error.
"$STREAMT_BINARY" status "$(unique never-ran)" --bootstrap-servers "$STREAMT_BOOTSTRAP" >"$work/unknown.txt" 2>&1 ||
  { cat "$work/unknown.txt"; fail "streamt status of an unknown application failed"; }
grep -q "no application 'never-ran-.*' has run against these brokers" "$work/unknown.txt" ||
  { cat "$work/unknown.txt"; fail "streamt status does not say the application is unknown"; }
checks_passed=$((checks_passed + 1))

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
echo "plan_succession: $checks_passed checks passed"
