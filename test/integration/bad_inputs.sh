#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# contract §5, §6: `streamt run` refuses what it cannot run exactly-once, with
# the documented exit code and a message naming the cause, before any
# transaction: an unreachable broker (69), a missing source or sink topic
# (69), an engine-owned client setting from -X or --config (78), a state
# directory in use by another engine (73), a restart that changes the sink
# topic on the same state directory (78), an --expect-digest mismatch (1).
# The source holds records all along, so a run that got as far as a
# transaction would write them: the sink topics must stay empty, even to a
# read_uncommitted reader.
source "$(dirname "$0")/lib.sh"

src=$(unique bad-in) sink=$(unique bad-out) sink2=$(unique bad-out2) app=$(unique bad-inputs)
missing_src=$(unique no-such-source) missing_sink=$(unique no-such-sink)
create_topic "$src" 1
create_topic "$sink" 1
create_topic "$sink2" 1
printf '%s\t%s\n' a '{"id":"a","amount":120}' b '{"id":"b","amount":20}' c '{"id":"c","amount":35}' | produce "$src"
orders_schema "$src" "$work/orders.schema.json"
orders_schema "$missing_src" "$work/missing.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders" "$work/all.json"
# Same identity, nothing passes: the one engine meant to run writes nothing.
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders WHERE amount > 1000000" "$work/none.json"
compile "$work/orders.schema.json" "$app" "$sink2" "SELECT id, amount FROM orders" "$work/sink2.json"
compile "$work/missing.schema.json" "$(unique bad-missing-src)" "$sink" "SELECT id, amount FROM orders" "$work/missing-src.json"
compile "$work/orders.schema.json" "$(unique bad-missing-sink)" "$missing_sink" "SELECT id, amount FROM orders" "$work/missing-sink.json"


echo "== unreachable broker"
started=$SECONDS
refused unreachable 69 "cannot reach the brokers at 127.0.0.1:1" "$work/all.json" \
  --bootstrap-servers 127.0.0.1:1 --state-dir "$work/state-unreachable" --connect-timeout-ms 5000
took=$((SECONDS - started))
echo "  gave up after ${took}s"
((took <= 15)) || fail "unreachable broker: took ${took}s, more than the 5 s --connect-timeout-ms allows"

echo "== a stop while the brokers are unreachable ends the run at once"
# One metadata call for the whole --connect-timeout-ms could not be
# interrupted: SIGTERM went unanswered for up to that long.
"$STREAMT_BINARY" run "$work/all.json" --bootstrap-servers 127.0.0.1:1 --state-dir "$work/state-stop-early" \
  --connect-timeout-ms 120000 >"$work/stop-early.log" 2>&1 &
engine_pid[stop-early]=$!
engine_pids+=("$!")
for ((i = 0; i < 300; i++)); do
  grep -q "starting $app" "$work/stop-early.log" && break
  sleep 0.1
done
started=$SECONDS
stop_engine stop-early
took=$((SECONDS - started))
check_eq "stop while unreachable: exit code" 0 "$engine_rc"
((took <= 10)) || fail "stop while unreachable: took ${took}s to stop, with 120 s of connect timeout left"
grep -q "a stop signal arrived during start-up (before the brokers answered)" "$work/stop-early.log" || { show_log stop-early; fail "no stop line"; }
echo "  stopped after ${took}s"

echo "== missing topics"
refused missing-source 69 "topic '$missing_src' does not exist" "$work/missing-src.json" \
  --bootstrap-servers "$STREAMT_BOOTSTRAP" --state-dir "$work/state-missing-src"
refused missing-sink 69 "topic '$missing_sink' does not exist" "$work/missing-sink.json" \
  --bootstrap-servers "$STREAMT_BOOTSTRAP" --state-dir "$work/state-missing-sink"

echo "== engine-owned settings"
refused owned-x 78 "setting 'isolation.level' is owned by the engine" "$work/all.json" \
  --bootstrap-servers "$STREAMT_BOOTSTRAP" --state-dir "$work/state-owned" -X isolation.level=read_uncommitted
printf 'socket.timeout.ms=30000\ntransactional.id=mine\n' >"$work/owned.properties"
refused owned-config 78 "setting 'transactional.id' is owned by the engine" "$work/all.json" \
  --bootstrap-servers "$STREAMT_BOOTSTRAP" --state-dir "$work/state-owned" --config "$work/owned.properties"
[[ ! -e $work/state-owned ]] || fail "a refused setting still created the state directory"

echo "== digest mismatch"
digest=$("$STREAMT_BINARY" check "$work/all.json" | awk '/^digest:/ { print $2 }')
refused digest 1 "the plan's digest is $digest, not the expected sha256:0000" "$work/all.json" \
  --bootstrap-servers "$STREAMT_BOOTSTRAP" --state-dir "$work/state-digest" --expect-digest sha256:0000
[[ ! -e $work/state-digest ]] || fail "a digest mismatch still created the state directory"

echo "== state directory in use"
start_engine holder "$work/none.json" "$work/state"
for ((i = 0; i < 600; i++)); do
  grep -qs "joined group" "$work/holder.log" && break
  kill -0 "${engine_pid[holder]}" 2>/dev/null || break
  sleep 0.1
done
grep -q "joined group" "$work/holder.log" || { show_log holder; fail "the first engine did not start"; }
refused locked 73 "state directory '$work/state' is in use by another streamt process (pid ${engine_pid[holder]})" \
  "$work/all.json" --bootstrap-servers "$STREAMT_BOOTSTRAP" --state-dir "$work/state"
wait_for_offsets "$app" "$src" "0:3" 120 || { show_log holder; fail "the first engine's offsets"; }
stop_engine holder
check_eq "the first engine still exits 0 on SIGTERM" 0 "$engine_rc"

echo "== identity change on restart"
refused identity 78 "sink topic was '$sink', is now '$sink2'" "$work/sink2.json" \
  --bootstrap-servers "$STREAMT_BOOTSTRAP" --state-dir "$work/state"

echo "== nothing was written"
check_eq "sink stays empty (read_uncommitted)" "" "$("$kafka_local" consume "$sink")"
check_eq "second sink stays empty (read_uncommitted)" "" "$("$kafka_local" consume "$sink2")"
check_eq "the group's offset is the first engine's" "0:3" "$(group_offsets "$app" "$src")"
echo "$checks_passed passed, 0 failed"
