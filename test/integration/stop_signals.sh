#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# A SIGTERM at any moment of a run ends it cleanly and promptly (issue 14,
# docs/operations.md "Stopping"), on a real broker:
#   1. start-up: one SIGTERM at each of 0 to 200 ms after the process holds
#      its stop signals (the earliest it can: see tools/streamt/main.cpp).
#      Each run exits 0 within a few seconds, logs its clean stop (never "second
#      signal"), and leaves no transaction open on the sink. Then a last run
#      takes the rest: every record exactly once in the sink's read_committed
#      view, whatever the interrupted runs committed.
#   2. --commit-interval-ms 60000 (transaction.timeout.ms 180000): a SIGTERM with a transaction open commits
#      it at once; exit 0 within a few seconds, the output committed.
#   3. a SIGTERM as soon as the group was joined, before the first
#      assignment (ten new groups): exit 0 within 3 s, the group left.
#   4. the same while a killed member holds the first assignment back: the
#      5 s wait runs out, exit 0 without leaving.
# The times are injection points only; the checks are on outcomes: the exit
# code, the log, the sink's read_committed view and its open transactions
# (kafka-transactions describe-producers, the Java tool).
# Writes $STREAMT_EVIDENCE_DIR/stop_signals.tsv (the measured times) and the
# runs' logs to $STREAMT_EVIDENCE_DIR/stop_signals/.
source "$(dirname "$0")/lib.sh"

java=${STREAMT_JAVA:-java}
jars=${STREAMT_KAFKA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/streamt/kafka-4.3.1}/jars
[[ -d $jars ]] || fail "no Kafka jars at $jars (tools/kafka-local fetch)"
now_us() { echo $((${EPOCHREALTIME/./})); }  # bash 5: no fork, microseconds
now_ms() { echo $(($(now_us) / 1000)); }
# wait_exit NAME TIMEOUT_S: wait_engine, polling every 10 ms (the times
# below are measured to the exit, not to a 100 ms poll); sets engine_rc.
wait_exit() {
  local pid=${engine_pid[$1]} i
  for ((i = 0; i < $2 * 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  wait_engine "$1" 1
}

# open_transactions TOPIC: how many producers have a transaction open on
# partition 0 of TOPIC (CurrentTransactionStartOffset set), as the broker
# says. A transaction left open would hold back every read_committed reader.
open_transactions() {
  local out n try
  # A commit returns once the coordinator has decided it; the markers reach
  # the partition just after. So "open" is asked again for a few seconds.
  for try in 1 2 3 4 5; do
    n=$(open_transactions_now "$1")
    [[ $n == 0 ]] && break
    sleep 1
  done
  echo "$n"
}
open_transactions_now() {
  local out
  out=$("$java" -cp "$jars/*" org.apache.kafka.tools.TransactionsCommand --bootstrap-server "$STREAMT_BOOTSTRAP" \
    describe-producers --topic "$1" --partition 0 2>/dev/null) || { echo "describe-producers failed"; return; }
  echo "$out" >"$work/producers-$1.txt"
  awk -F'\t' 'NR > 1 && NF >= 6 { gsub(/ /, "", $6); if ($6 != "None" && $6 != "-1") n++ } END { print n + 0 }' <<<"$out"
}

# held PID: true once the process holds SIGTERM, blocked (since its first
# instruction) or caught (the engine listens). Before that it is still the
# forked shell or the dynamic loader, which no program can protect.
# A SIGTERM caught while SIGCHLD is caught too is the forked shell's handler
# (bash catches SIGTERM for this script's EXIT trap, and always SIGCHLD):
# inside execve the new name is set a moment before the shell's handlers are
# reset, and a check that took that moment for "held" sent its signal into
# the dynamic loader (a CI run saw held, then not held, at once).
binary_comm=$(basename "$STREAMT_BINARY" | cut -c1-15)  # /proc/PID/comm after the exec
held() {
  local key value comm="" blocked=0 caught=0
  read -r comm <"/proc/$1/comm" 2>/dev/null || return 1
  [[ $comm == "$binary_comm" ]] || return 1
  while read -r key value; do
    case $key in
      SigBlk:) blocked=$((0x$value)) ;;
      SigCgt:) caught=$((0x$value)) ;;
    esac
  done <"/proc/$1/status" 2>/dev/null
  ((blocked & 0x4000)) && return 0
  ((caught & 0x4000 && !(caught & 0x10000)))
}

records=300
src=$(unique stop-src) sink=$(unique stop-sink) app=$(unique stop)
create_topic "$src" 1
create_topic "$sink" 1
schema="$work/orders.schema.json"
orders_schema "$src" "$schema"
compile "$schema" "$app" "$sink" "SELECT id, amount FROM orders" "$work/plan.json"
for ((i = 0; i < records; i++)); do printf 'k%d\t{"id":"r%d","amount":%d}\n' "$i" "$i" "$i"; done | produce "$src"
expected=$(for ((i = 0; i < records; i++)); do printf '{"id":"r%d","amount":%d}\n' "$i" "$i"; done)
state="$work/state"
timings="$work/timings.tsv"
printf 'case\theld_after_launch_us\tsignal_after_ms\texit\tsignal_to_exit_ms\tacted_to_exit_ms\n' >"$timings"

echo "== 1. SIGTERM during start-up"
for delay in 0 2 5 10 15 20 30 50 100 200; do
  name="startup-$delay"
  launched=$(now_us)
  start_engine "$name" "$work/plan.json" "$state"
  pid=${engine_pid[$name]}
  until held "$pid" || (($(now_us) - launched > 10000000)); do :; done
  held "$pid" || { show_log "$name"; fail "$name: the process never held SIGTERM"; }
  held_us=$(($(now_us) - launched))
  if ((delay > 0)); then sleep "$(printf '0.%03d' "$delay")"; fi
  signalled=$(now_ms)
  kill -TERM "$pid"
  wait_exit "$name" 30
  took=$(($(now_ms) - signalled))
  echo "   SIGTERM at $delay ms: exit $engine_rc after $took ms; $(grep -m1 -o 'stopping: .*' "$work/$name.log" || true)"
  [[ $engine_rc == 0 ]] || show_log "$name"
  check_eq "$name: exit 0" 0 "$engine_rc"
  # Within a few seconds, not the 30 s stop timeout (the lost stop), and
  # within a second of the moment the engine acted on it (its "stopping:"
  # line): a signal during a blocking start-up call (init_transactions,
  # about 0.5 s on a new transactional id) is acted on when the call
  # returns. A member that joined but has no partitions yet waits for its
  # first assignment to leave the group with it (up to 5 s; every earlier
  # run left, so the broker holds the JoinGroup for nobody, and it comes
  # within a tenth of a second: a run that took the 5 s would fail here).
  ((took < 5000)) || { show_log "$name"; fail "$name: took $took ms after the signal"; }
  acted_at=$(grep -m1 ' stopping: ' "$work/$name.log" | cut -d' ' -f1)
  [[ -n $acted_at ]] || { show_log "$name"; fail "$name: no stopping line"; }
  acted_to_exit=$((signalled + took - $(date -d "$acted_at" +%s%N) / 1000000))
  printf 'startup\t%d\t%d\t%d\t%d\t%d\n' "$held_us" "$delay" "$engine_rc" "$took" "$acted_to_exit" >>"$timings"
  ((acted_to_exit < 1000)) || { show_log "$name"; fail "$name: exited $acted_to_exit ms after acting on the stop"; }
  grep -q "stopped cleanly" "$work/$name.log" || { show_log "$name"; fail "$name: no clean-stop line"; }
  if grep -q "second signal" "$work/$name.log"; then show_log "$name"; fail "$name: one signal taken as two"; fi
  grep -Eq "stopping: (a stop signal arrived during start-up|finishing the open transaction|waiting up to 5 s for the group's first assignment)" "$work/$name.log" ||
    { show_log "$name"; fail "$name: no line saying why it stopped"; }
  open=$(open_transactions "$sink")
  [[ $open == 0 ]] || { show_log "$name"; cat "$work/producers-$sink.txt"; }
  check_eq "$name: no transaction left open on the sink" 0 "$open"
done

echo "== 1b. the rest of the backlog, exactly once"
start_engine rest "$work/plan.json" "$state"
wait_for_committed "$app" "$src" 0 "$records" || { show_log rest; fail "rest: offsets"; }
stop_engine rest
check_eq "rest: exit 0" 0 "$engine_rc"
check_eq "every record exactly once in the sink's read_committed view" "$expected" "$(values_committed "$sink")"
check_eq "rest: no transaction left open on the sink" 0 "$(open_transactions "$sink")"

echo "== 2. SIGTERM with --commit-interval-ms 60000 and a transaction open"
sink2=$(unique stop-sink-long) app2=$(unique stop-long)
create_topic "$sink2" 1
compile "$schema" "$app2" "$sink2" "SELECT id, amount FROM orders" "$work/plan-long.json"
start_engine long "$work/plan-long.json" "$work/state-long" --commit-interval-ms 60000 -X transaction.timeout.ms=180000
await_line long "starting from the earliest offset" 60
# The backlog is one poll away once the partition is taken; give it that.
sleep 2
if grep -q "committed transaction" "$work/long.log"; then show_log long; fail "long: committed before the stop"; fi
signalled=$(now_ms)
kill -TERM "${engine_pid[long]}"
wait_exit long 30
exited=$(now_ms)
took=$((exited - signalled))
printf 'commit-interval-60000\t-\t-\t%d\t%d\t-\n' "$engine_rc" "$took" >>"$timings"
echo "   SIGTERM with a transaction open: exit $engine_rc after $took ms"
check_eq "long: exit 0" 0 "$engine_rc"
((took < 5000)) || { show_log long; fail "long: took $took ms after the signal (waited for the interval?)"; }
grep -q "committed transaction 1 " "$work/long.log" || { show_log long; fail "long: the open transaction did not commit"; }
committed_at=$(grep -m1 'committed transaction 1 ' "$work/long.log" | cut -d' ' -f1)
commit_to_exit=$((exited - $(date -d "$committed_at" +%s%N) / 1000000))
echo "   signal to commit $((took - commit_to_exit)) ms, commit to exit $commit_to_exit ms"
((commit_to_exit < 2000)) || { show_log long; fail "long: exited $commit_to_exit ms after the commit"; }
if grep -q "second signal" "$work/long.log"; then show_log long; fail "long: one signal taken as two"; fi
check_eq "long: the committed offset is the whole backlog" "$records" "$(committed_offset "$app2" "$src" 0)"
check_eq "long: the output committed, once" "$expected" "$(values_committed "$sink2")"
check_eq "long: no transaction left open on the sink" 0 "$(open_transactions "$sink2")"

echo "== 3. SIGTERM right after joining the group, before the first assignment"
# The moment librdkafka can neither close (the LeaveGroup queues behind the
# JoinGroup) nor destroy a consumer (2.15.1 spun in rd_kafka_destroy, or a
# left handle's threads crashed the process's exit: SIGSEGV, and exit 143
# after "stopped cleanly", about one stop in twenty). A new group each
# round, the signal as soon as the log says the group was joined: the stop
# waits for the assignment, gives it up and leaves, so the group is empty.
# Each round's plan log is made beforehand (as an administrator may): an
# engine that creates it does so through its consumer's handle, whose
# connection to the brokers is then ready when it subscribes, and the
# assignment follows the join line within a few milliseconds, too soon for
# the signal. Ten rounds, and more (up to 30) until one stop has come
# before the first assignment: the race is the point. With librdkafka
# 2.15.1, 6 to 9 of 10 stops did in most runs. With Debian's 2.0.2 (the
# floor build) the assignment follows the join closer: 5 of 10 on an idle
# machine, but 0 of 10 and 1 of 14 in CI's floor stage, where another test
# shares the 2 cores. There a round without such a stop is no failure; the
# rounds' own checks (exit 0, a clean stop, the member gone) hold in every
# round, and the default build proves the wait.
waited=0
for ((round = 1; round <= 10 || (waited == 0 && round <= 30); round++)); do
  name="joined-$round" app3=$(unique stop-joined)
  create_topic "$app3-streamt-plans" 1
  compile "$schema" "$app3" "$sink" "SELECT id, amount FROM orders" "$work/plan-joined.json"
  start_engine "$name" "$work/plan-joined.json" "$work/state-joined-$round"
  await_line "$name" "joined group" 15 0.005
  signalled=$(now_ms)
  kill -TERM "${engine_pid[$name]}"
  wait_exit "$name" 30
  took=$(($(now_ms) - signalled))
  printf 'joined\t-\t-\t%d\t%d\t-\n' "$engine_rc" "$took" >>"$timings"
  [[ $engine_rc == 0 ]] || show_log "$name"
  check_eq "$name: exit 0" 0 "$engine_rc"
  ((took < 3000)) || { show_log "$name"; fail "$name: took $took ms after the signal"; }
  grep -q "stopped cleanly" "$work/$name.log" || { show_log "$name"; fail "$name: no clean-stop line"; }
  if grep -q "first assignment" "$work/$name.log"; then
    waited=$((waited + 1))
    check_eq "$name: the member left the group" "" "$(group_members "$app3")"
  fi
done
echo "   $waited of $((round - 1)) stops came before the first assignment"
rdkafka=$(grep -ho 'librdkafka [0-9][0-9.]*' "$work"/joined-1.log | head -n 1 | cut -d' ' -f2)
if ((waited == 0)) && [[ -n $rdkafka && $(printf '%s\n' "$rdkafka" 2.12.0 | sort -V | head -n 1) != 2.12.0 ]]; then
  echo "SKIP: no stop came before the first assignment in 30 rounds with librdkafka $rdkafka, whose" \
    "assignment follows the join within milliseconds; the default build (2.15.1) proves the wait"
else
  ((waited > 0)) || fail "joined: no stop came before the first assignment in 30 rounds; the wait was not exercised"
fi

echo "== 4. SIGTERM while the group holds the first assignment back"
# An earlier member killed with SIGKILL stays in the group for its session
# timeout (45 s), and the coordinator holds the next member's JoinGroup
# until then: the stop's wait for the first assignment runs out after 5 s,
# the engine ends without leaving, exit 0, its consumer handle left to the
# process's exit (streamt run ends with _Exit: no crash at exit).
app4=$(unique stop-held)
compile "$schema" "$app4" "$sink" "SELECT id, amount FROM orders" "$work/plan-held.json"
start_engine killed "$work/plan-held.json" "$work/state-killed"
await_line killed "starting from the earliest offset" 60
kill -KILL "${engine_pid[killed]}"
wait_engine killed 10
start_engine held "$work/plan-held.json" "$work/state-held"
await_line held "joined group" 30 0.01
signalled=$(now_ms)
kill -TERM "${engine_pid[held]}"
wait_exit held 30
took=$(($(now_ms) - signalled))
printf 'held\t-\t-\t%d\t%d\t-\n' "$engine_rc" "$took" >>"$timings"
echo "   SIGTERM with the first assignment held back: exit $engine_rc after $took ms"
[[ $engine_rc == 0 ]] || show_log held
check_eq "held: exit 0" 0 "$engine_rc"
grep -q "stopping without leaving the group: no assignment came within 5 s of the stop" "$work/held.log" ||
  { show_log held; fail "held: no line saying it stopped without leaving"; }
((took >= 4500 && took < 8000)) || { show_log held; fail "held: took $took ms after the signal, not the 5 s wait"; }

mkdir -p "$STREAMT_EVIDENCE_DIR/stop_signals"
cp "$timings" "$STREAMT_EVIDENCE_DIR/stop_signals.tsv"
cp "$work"/*.log "$STREAMT_EVIDENCE_DIR/stop_signals/"
cat "$timings"
echo "stop_signals: $checks_passed checks passed"
