#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# The brokers lost during start-up, on a broker of its own (it is killed):
#   1. the engine starts against a healthy, new broker, which is killed
#      0.3 s later (init_transactions is under way: the broker is creating
#      its transaction log); SIGTERM 5 s after that ends the run within
#      3 s, exit 0, with a line that says the stop arrived during start-up;
#   2. the same with no signal, --connect-timeout-ms 10000
#      --stall-timeout-ms 20000: the run exits 69 within those bounds,
#      with a line that names what the brokers did not answer.
# Before start-up was the session's, case 1 exited 75 after 35 s ("still
# not stopped 5 s after the terminal stop") and case 2 was still retrying
# after 120 s (five init_transactions calls of 120 s each).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${STREAMT_BINARY:?set by ctest}"
source "$root/test/integration/own_broker.sh"
own_broker_init startup-lost
start_own_broker
source "$root/test/integration/lib.sh"
trap 'cleanup; stop_own_broker' EXIT

src=$(unique lost-src) sink=$(unique lost-sink) app=$(unique lost)
create_topic "$src" 1
create_topic "$sink" 1
schema="$work/orders.schema.json"
orders_schema "$src" "$schema"
compile "$schema" "$app" "$sink" "SELECT id, amount FROM orders" "$work/plan.json"
now_ms() { date +%s%3N; }
bounds=(--connect-timeout-ms 10000 --stall-timeout-ms 20000)

# Starts engine NAME and kills the broker 0.3 s after the engine's first
# line (its state directory admitted and its clients made: the brokers are
# asked next); sets `killed` to the moment of the kill (ms).
killed=
start_then_lose_the_broker() {
  local name=$1
  start_engine "$name" "$work/plan.json" "$work/state-$name" "${bounds[@]}"
  await_line "$name" "starting $app" 10 0.01
  sleep 0.3
  "$kafka_local" broker kill 1 --dir "$broker_dir" >/dev/null
  killed=$(now_ms)
}

echo "== 1. the broker killed 0.3 s into start-up, SIGTERM 5 s later"
start_then_lose_the_broker stop
grep -q "joined group" "$work/stop.log" && { show_log stop; fail "start-up was over before the broker was killed"; }
sleep 5
kill -0 "${engine_pid[stop]}" 2>/dev/null || { show_log stop; fail "the engine exited before the signal"; }
signalled=$(now_ms)
kill -TERM "${engine_pid[stop]}"
wait_engine stop 30
took=$(($(now_ms) - signalled))
echo "   SIGTERM $((signalled - killed)) ms after the kill: exit $engine_rc after $took ms; $(grep -m1 -o 'stopping: .*' "$work/stop.log" || true)"
[[ $engine_rc == 0 ]] || show_log stop
check_eq "a stop while the brokers are lost during start-up: exit 0" 0 "$engine_rc"
((took <= 3000)) || { show_log stop; fail "the stop took $took ms (at most 3000)"; }
grep -q "stopping: a stop signal arrived during start-up (" "$work/stop.log" ||
  { show_log stop; fail "no line saying the stop arrived during start-up"; }
if grep -q "still not stopped" "$work/stop.log"; then show_log stop; fail "the stop was not a clean one"; fi
checks_passed=$((checks_passed + 1))

echo "== 2. the same with no signal: exit 69 within the connect and stall bounds"
"$kafka_local" broker restart 1 --dir "$broker_dir" >/dev/null
start_then_lose_the_broker lost
wait_engine lost 60
took=$(($(now_ms) - killed))
echo "   exit $engine_rc $took ms after the kill: $(grep -m1 -o 'error engine \[[^]]*\]: .*' "$work/lost.log" | cut -c1-160 || true)"
[[ $engine_rc == 69 ]] || show_log lost
check_eq "the brokers lost during start-up: exit 69" 69 "$engine_rc"
# The stall bound (20 s) for a step whose brokers answered before, the
# connect bound (10 s) for one that reaches them anew; a second of slack for
# the slice in hand and the process's exit.
((took <= 31000)) || { show_log lost; fail "exit 69 came $took ms after the kill (bounds: 10 s + 20 s)"; }
grep -Eq "have not completed init_transactions for [0-9]+ s \(the stall timeout|the plan log|cannot reach the brokers" \
  "$work/lost.log" || { show_log lost; fail "no line naming what the brokers did not answer"; }
checks_passed=$((checks_passed + 1))

echo "start_up_broker_lost: $checks_passed checks passed"
