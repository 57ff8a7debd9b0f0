#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Issue 39's Done-when, on a broker of its own (it is killed and restarted):
# three routes over a 6-partition source, 1M records, a kill -9 of the
# engine in the middle and a broker restart while it runs again; then every
# record is in exactly the sinks the oracle selects, once each.
#
#   payments(id BIGINT, tenant STRING null, amount BIGINT null,
#            tier STRING null, customer BIGINT), keyed acct-N, a third of
#   them with headers (a duplicate name, a null and an empty value), every
#   one with its own timestamp, one value in five spaced JSON;
#   big    (3 partitions)  amount >= 100
#   vip    (2 partitions)  tier = 'gold' AND amount >= 10   (overlaps big)
#   bycust (5 partitions)  tenant <> 'internal' AND amount IS NOT NULL
#                          PARTITION BY customer (--key-format long: the
#                          8 big-endian bytes of Kafka's LongSerializer)
#   unrouted (4 partitions) the records no route takes (about 15 %)
# The statements and the oracle's predicates, written by hand in Python with
# SQL's three-valued logic, sit side by side in routes_oracle.py.
#
# Steps: the records are produced with confluent-kafka (tools/pyclients, its
# own librdkafka), each on the partition Java's default partitioner picks
# (kafka_partition.py); the engine runs until the group's committed offsets
# pass ROUTES_KILL_AT % of the input and is killed with SIGKILL; a second
# run starts, and once it has committed past the offsets the kill left the
# broker is SIGKILLed and restarted on its ports and data; the run
# rides it out, or exits 69/75 and is restarted as a supervisor would; once
# the committed offsets reach the end of every source partition it is
# stopped (exit 0). routes_oracle.py verify then reads every sink and the
# unrouted topic read_committed and checks, record by record: each id in
# exactly the sinks the oracle selects, once; the value the route's
# projection (compact JSON, in order, aliases); the input key, or the
# PARTITION BY column's bytes; the partition Java's default partitioner
# picks for that key and the sink's partition count (contract §4, re-keyed
# or not); the input's timestamp and headers; per output partition, the
# records of each input partition in input order; an unrouted record
# byte-identical to its input (key, value, headers, timestamp) with streamt.*
# headers after the input's saying why (the streamt.source.* ones, if
# written, naming its input).
#
# Environment: ROUTES_RECORDS (1000000), ROUTES_SEED (39), ROUTES_KILL_AT
# (percent, 35), ROUTES_KEY_FORMAT (long|string), ROUTES_PLAN=single runs
# route big alone as the one-SELECT plan engines before routes run (no
# unrouted topic): the harness proved end to end on today's engine.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/test/integration
: "${STREAMT_BINARY:?set by ctest}"
source "$here/own_broker.sh"
own_broker_init routes
start_own_broker
source "$here/lib.sh"
trap 'cleanup; stop_own_broker' EXIT

records=${ROUTES_RECORDS:-1000000}
seed=${ROUTES_SEED:-39}
kill_at=${ROUTES_KILL_AT:-35}
key_format=${ROUTES_KEY_FORMAT:-long}
mode=${ROUTES_PLAN:-routes}
[[ $mode == routes || $mode == single ]] || fail "ROUTES_PLAN is routes or single, not $mode"
python=$("$root/tools/pyclients")
oracle() { "$python" "$here/routes_oracle.py" "$@"; }
t_start=$SECONDS
elapsed() { echo "$((SECONDS - t_start)) s"; }

echo "== the oracle's self-test"
oracle self-test

# Names the SQL takes unquoted: letters, digits and underscores.
suffix="$(date +%s%N | tail -c 9)_$RANDOM"
src=rt_src_$suffix big=rt_big_$suffix vip=rt_vip_$suffix bycust=rt_bycust_$suffix
unrouted=rt_unrouted_$suffix app=rt_app_$suffix
source_partitions=6
create_topic "$src" "$source_partitions"
create_topic "$big" 3
create_topic "$vip" 2
create_topic "$bycust" 5
create_topic "$unrouted" 4
schema="$work/payments.schema.json"
cat >"$schema" <<JSON
{"source": "payments", "topic": "$src",
 "columns": [{"name": "id", "type": "BIGINT", "nullable": false},
             {"name": "tenant", "type": "STRING", "nullable": true},
             {"name": "amount", "type": "BIGINT", "nullable": true},
             {"name": "tier", "type": "STRING", "nullable": true},
             {"name": "customer", "type": "BIGINT", "nullable": false}]}
JSON
plan="$work/plan.json"
if [[ $mode == routes ]]; then
  oracle sql --route "big=$big" --route "vip=$vip" --route "bycust=$bycust" >"$work/routes.sql"
  echo "== the routes"
  cat "$work/routes.sql"
  "$STREAMT_BINARY" compile --schema "$schema" --application-id "$app" --unrouted-topic "$unrouted" \
    --key-format "$key_format" --output "$plan" "$work/routes.sql"
  checked=(--route "big=$big" --route "vip=$vip" --route "bycust=$bycust" --unrouted "$unrouted")
else
  sql=$("$python" -c "import sys; sys.path.insert(0, '$here'); import routes_oracle; print(routes_oracle.SINGLE_SELECT)")
  echo "== the one-SELECT plan (ROUTES_PLAN=single): $sql"
  compile "$schema" "$app" "$big" "$sql" "$plan"
  checked=(--route "big=$big")
fi

echo "== produce $records records ($(elapsed))"
oracle produce --bootstrap "$STREAMT_BOOTSTRAP" --topic "$src" --records "$records" --seed "$seed" \
  --index "$work/input.index"

# The killed member's partitions wait out its session: the broker's
# shortest (6 s) instead of 45 s. Transactions of at most 20000 records,
# so that a kill finds one open and the broker's restart several.
engine_args=(-X session.timeout.ms=6000 -X heartbeat.interval.ms=500 --max-records-per-transaction 20000)
progress() { oracle await --bootstrap "$STREAMT_BOOTSTRAP" --group "$app" --topic "$src" \
  --partitions "$source_partitions" "$@"; }
committed_total() { oracle offsets --bootstrap "$STREAMT_BOOTSTRAP" --group "$app" --topic "$src" \
  --partitions "$source_partitions"; }

echo "== run 1, killed with SIGKILL once $kill_at % is committed ($(elapsed))"
t_engine=$SECONDS
start_engine run1 "$plan" "$work/state" "${engine_args[@]}"
at=$(progress --min-total $((records * kill_at / 100)) --pid "${engine_pid[run1]}" --timeout 300) ||
  { show_log run1; fail "run 1 did not commit $kill_at % of the input"; }
kill -9 "${engine_pid[run1]}"
wait_engine run1 30
check_eq "run 1 was killed" 137 "$engine_rc"
at_kill=$(committed_total)
echo "   committed $at when seen, $at_kill after the kill, of $records ($(elapsed))"
((at_kill < records)) || fail "the kill came after the end: committed $at_kill of $records (lower ROUTES_KILL_AT)"
checks_passed=$((checks_passed + 1))

echo "== run 2; the broker SIGKILLed and restarted while it runs ($(elapsed))"
start_engine run2 "$plan" "$work/state" "${engine_args[@]}"
# As soon as it commits past the kill's offsets: it runs, in the middle.
restart_at=$((at_kill + 1))
at=$(progress --min-total "$restart_at" --pid "${engine_pid[run2]}" --timeout 300) ||
  { show_log run2; fail "run 2 did not commit $restart_at records"; }
((at < records)) || fail "run 2 was done (committed $at) before the broker restart (lower ROUTES_KILL_AT)"
t_down=$SECONDS
"$kafka_local" broker kill 1 --dir "$broker_dir" >/dev/null
"$kafka_local" broker restart 1 --dir "$broker_dir" >/dev/null
echo "   committed $at when the broker was killed; back after $((SECONDS - t_down)) s ($(elapsed))"
checks_passed=$((checks_passed + 1))

# Until the end of every source partition is committed. The engine may ride
# out the outage, or exit 69 or 75 for a supervisor to restart it (contract
# §5): restarted so, at most twice.
run=run2
for attempt in 3 4 5; do
  rc=0
  progress --end --pid "${engine_pid[$run]}" --timeout 400 >/dev/null || rc=$?
  ((rc == 0)) && break
  ((rc == 3)) || { show_log "$run"; fail "the committed offsets did not reach the end of the input"; }
  wait_engine "$run" 10
  [[ $engine_rc == 69 || $engine_rc == 75 ]] || { show_log "$run"; fail "$run exited $engine_rc"; }
  ((attempt < 5)) || { show_log "$run"; fail "$run exited $engine_rc a third time"; }
  echo "   $run exited $engine_rc after the broker's restart; restarted as run$attempt ($(elapsed))"
  run=run$attempt
  start_engine "$run" "$plan" "$work/state" "${engine_args[@]}"
done
stop_engine "$run"
check_eq "the last run stops cleanly" 0 "$engine_rc"
echo "   the engine's runs took $((SECONDS - t_engine)) s in all ($(elapsed))"

echo "== verify ($(elapsed))"
oracle verify --bootstrap "$STREAMT_BOOTSTRAP" --index "$work/input.index" --key-format "$key_format" \
  "${checked[@]}" || fail "the sinks are not what the oracle selects (above)"
checks_passed=$((checks_passed + 1))
echo "routes_exactly_once: $checks_passed checks passed in $(elapsed) ($records records, plan $mode)"
