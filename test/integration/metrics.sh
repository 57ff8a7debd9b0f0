#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Issue 6: `streamt run --metrics-address`. /readyz turns ready only once the
# group has assigned the engine its partitions; /metrics scraped during the
# run counts exactly the records processed (and the sink holds what it says
# was produced); /healthz answers while it runs; a clean stop still exits 0.
source "$(dirname "$0")/lib.sh"

src=$(unique metrics-in) sink=$(unique metrics-out) app=$(unique metrics)
create_topic "$src" 2
create_topic "$sink" 2
orders_schema "$src" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders WHERE amount >= 100" \
  "$work/plan.json"

# 300 orders with amounts i % 200 (100 pass: i in 100..199) and 7 tombstones, keyed so both
# partitions get some.
python3 - >"$work/input.tsv" <<'PY'
for i in range(300):
    print(f'o-{i}\t{{"id":"o-{i}","amount":{i % 200}}}')
for j in range(7):
    print(f't-{j}\tnull')
PY
produce "$src" <"$work/input.tsv"
expected_consumed=307 expected_produced=100 expected_filtered=200 expected_tombstones=7

# /readyz must be seen not ready before the assignment. On a warm broker
# the engine is assigned within milliseconds of starting, so a member that
# cannot answer holds the group first: a kcat consumer in the engine's group
# (no offset commits), stopped with SIGSTOP once it has its partitions. The
# engine's join then waits until the coordinator expels it (its session and
# poll timeouts, 6 and 7 s), a window no scheduling delay closes.
kcat -b "$STREAMT_BOOTSTRAP" -G "$app" -X enable.auto.commit=false -X session.timeout.ms=6000 \
  -X max.poll.interval.ms=7000 -X partition.assignment.strategy=cooperative-sticky "$src" \
  >/dev/null 2>"$work/blocker.log" &
blocker=$!
engine_pids+=("$blocker")
for ((i = 0; i < 300; i++)); do
  grep -q "rebalanced: incremental assignment" "$work/blocker.log" 2>/dev/null && break
  kill -0 "$blocker" 2>/dev/null || { cat "$work/blocker.log"; fail "the blocking group member exited"; }
  sleep 0.1
done
grep -q "rebalanced: incremental assignment" "$work/blocker.log" || { cat "$work/blocker.log"; fail "the blocking member never joined"; }
kill -STOP "$blocker"

# Statistics every 500 ms rather than 15 s: the broker and transaction
# state series below come from them.
start_engine m "$work/plan.json" "$work/state" --metrics-address 127.0.0.1:0 -X statistics.interval.ms=500
# The endpoint listens before the run starts and logs where.
url=
for ((i = 0; i < 300; i++)); do
  url=$(sed -n 's|.*serving metrics on \(http://[0-9.]*:[0-9]*\)/metrics.*|\1|p' "$work/m.log" | head -1)
  [[ -n $url ]] && break
  kill -0 "${engine_pid[m]}" 2>/dev/null || { show_log m; fail "the engine exited before serving metrics"; }
  sleep 0.1
done
[[ -n $url ]] || { show_log m; fail "no 'serving metrics on' line in the log"; }
echo "metrics at $url"

code=$(curl -s -o "$work/readyz.body" -w '%{http_code}' --max-time 5 "$url/readyz" || true)
check_eq "/readyz while the group cannot assign partitions" 503 "$code"
check_eq "/readyz says why" "not ready: waiting for the group to assign partitions" "$(cat "$work/readyz.body")"
check_eq "/healthz while not ready" 200 "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url/healthz")"
kill -9 "$blocker" && { wait "$blocker" 2>/dev/null || true; }

# From here /readyz is asked until it says ready; when it first does, the
# log must already show both partitions taken (the engine logs each
# partition's start offset before it reports ready).
ready_log=
for ((i = 0; i < 1200; i++)); do
  code=$(curl -s -o "$work/readyz.body" -w '%{http_code}' --max-time 5 "$url/readyz" || true)
  if [[ $code == 200 ]]; then
    ready_log=$(cat "$work/m.log")
    break
  fi
  [[ $code == 503 ]] || { show_log m; fail "/readyz answered '$code'"; }
  sleep 0.05
done
[[ -n $ready_log ]] || { show_log m; fail "/readyz never turned ready"; }
taken=$(grep -cE "$src/[01]: (no committed offset|resuming at committed offset)" <<<"$ready_log" || true)
check_eq "both partitions were taken when /readyz first said ready" 2 "$taken"
check_eq "/readyz body once ready" "ready: 2 partition(s) assigned" "$(cat "$work/readyz.body")"

# metric NAME: the value of one sample in the latest scrape.
scrape() { curl -sf --max-time 5 "$url/metrics" >"$work/metrics.txt"; }
metric() { awk -v k="$1" '$1 == k { print $2 }' "$work/metrics.txt"; }

# Scraped while the engine runs: wait until everything is committed (an
# event seen through the endpoint under test; bounded by a deadline).
deadline=$((SECONDS + 120))
until scrape && [[ $(metric streamt_records_consumed_total) == "$expected_consumed" ]]; do
  ((SECONDS < deadline)) || { show_log m; cat "$work/metrics.txt"; fail "consumed never reached $expected_consumed"; }
  sleep 0.2
done
kill -0 "${engine_pid[m]}" || fail "the engine is not running at the scrape"
check_eq "records consumed" "$expected_consumed" "$(metric streamt_records_consumed_total)"
check_eq "records produced" "$expected_produced" "$(metric streamt_records_produced_total)"
check_eq "records filtered" "$expected_filtered" "$(metric streamt_records_filtered_total)"
check_eq "tombstones" "$expected_tombstones" "$(metric streamt_records_tombstones_total)"
check_eq "invalid records" 0 "$(metric streamt_records_invalid_total)"
check_eq "aborted transactions" 0 "$(metric streamt_transactions_aborted_total)"
check_eq "assigned partitions" 2 "$(metric streamt_assigned_partitions)"
check_eq "ready gauge" 1 "$(metric streamt_ready)"
committed=$(metric streamt_transactions_committed_total)
check_eq "a commit-latency observation per committed transaction" "$committed" \
  "$(metric streamt_commit_duration_seconds_count)"
check_eq "committed transactions > 0" yes "$( ((committed > 0)) && echo yes || echo no)"
for p in 0 1; do
  check_eq "lag of $src/$p" 0 "$(metric "streamt_consumer_lag_records{topic=\"$src\",partition=\"$p\"}")"
done
check_eq "the info metric names the application" 1 \
  "$(grep -c "^streamt_info{application_id=\"$app\",plan_digest=\"sha256:" "$work/metrics.txt")"
check_eq "the librdkafka version is in streamt_build_info alone" "streamt_build_info" \
  "$(grep -v '^#' "$work/metrics.txt" | grep 'librdkafka_version=' | sed 's/{.*//' | sort -u | paste -sd ' ')"

# librdkafka's statistics (every 500 ms here): each broker by address and
# node id, two labels, and every transaction state with exactly one at 1.
deadline=$((SECONDS + 30))
until scrape && grep -q '^streamt_kafka_broker_up{' "$work/metrics.txt"; do
  ((SECONDS < deadline)) || { cat "$work/metrics.txt"; fail "no streamt_kafka_broker_up after 30 s"; }
  sleep 0.2
done
check_eq "every broker series has an address without a node id and a numeric node_id" 0 \
  "$(grep '^streamt_kafka_broker_up{' "$work/metrics.txt" | grep -cvE '^streamt_kafka_broker_up\{broker="[^"/]+:[0-9]+",node_id="[0-9]+"\} [01]$' || true)"
check_eq "a broker the engine is connected to is up" yes \
  "$(grep -qE '^streamt_kafka_broker_up\{broker="[^"]+",node_id="[0-9]+"\} 1$' "$work/metrics.txt" && echo yes || echo no)"
check_eq "transaction state series" 13 "$(grep -c '^streamt_kafka_transaction_state{' "$work/metrics.txt")"
check_eq "transaction states at 1" 1 "$(grep -c '^streamt_kafka_transaction_state{.*} 1$' "$work/metrics.txt")"
check_eq "/healthz while running" 200 "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url/healthz")"

# What /metrics says was produced is what a read_committed reader finds.
check_eq "sink records (read_committed) = streamt_records_produced_total" "$expected_produced" \
  "$(consume_committed "$sink" | wc -l)"

stop_engine m
check_eq "clean stop with the endpoint open exits 0" 0 "$engine_rc"
curl -s --max-time 5 "$url/healthz" >/dev/null && fail "the endpoint still answers after the engine exited"
echo "metrics: $checks_passed checks passed"
