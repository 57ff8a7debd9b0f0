#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# docs/metrics.md "Alerts worth having": each alert shown here makes its
# condition against a real engine and evaluates the expression, read from
# the docs as written, over the samples scraped meanwhile
# (promql_subset.py: a small evaluator of the PromQL they use, not
# Prometheus). Where an alert's window or threshold is longer than a test,
# the replacement is named at the call. And the exit a scrape cannot see:
# --metrics-file keeps the exit 65, and the next start reports it from the
# state directory.
#
# StreamtAborting is made by its natural cause, outputs the sink topic
# refuses as too large, which also shows them dead-lettered one abort each
# (they once looped: only the last record blamed was remembered).
# StreamtLagGrowing: input produced faster than an engine held to one record
# a transaction takes it. And one streamt feeding another: the second's
# source ends in transaction markers, which its lag must not count (it once
# rested at 1, and StreamtNotCommitting fired for a caught-up engine).
source "$(dirname "$0")/lib.sh"

docs=$(dirname "$0")/../../docs/metrics.md
evaluate=$(dirname "$0")/promql_subset.py
scrapes=()
# scrape NAME: one scrape of NAME's /metrics, kept for the evaluator as
# instance NAME at the time it was taken.
scrape() {
  local port now
  port=$(metrics_port "$1")
  now=$(date +%s.%N)
  curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" >"$work/scrape.${#scrapes[@]}" ||
    { show_log "$1"; fail "cannot scrape $1"; }
  scrapes+=("$1@$now=$work/scrape.${#scrapes[@]}")
}
# alert ALERT fires|stays_quiet [--replace OLD=NEW...]: evaluates the alert
# now (or at $ALERT_AT, a scrape's time) over the scrapes so far (or the
# metrics file, given as a scrape) and checks the outcome.
alert() {
  local name=$1 outcome=$2 rc=0
  shift 2
  python3 "$evaluate" --docs "$docs" --alert "$name" --at "${ALERT_AT:-$(date +%s.%N)}" "$@" "${scrapes[@]}" \
    >"$work/alert.out" 2>&1 || rc=$?
  sed 's/^/  /' "$work/alert.out"
  check_eq "$name $outcome" "$([[ $outcome == fires ]] && echo 0 || echo 1)" "$rc"
}
wait_for_port() {
  for ((i = 0; i < 300; i++)); do
    [[ -n $(metrics_port "$1") ]] && return 0
    kill -0 "${engine_pid[$1]}" 2>/dev/null || break
    sleep 0.1
  done
  show_log "$1"
  fail "$1 serves no metrics"
}

echo "== StreamtNotCommitting: an engine stuck at start-up (no broker answers) ages into it"
app=$(unique alerts-stuck)
create_topic "$app-in" 1
orders_schema "$app-in" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$app-out" "SELECT id, amount FROM orders" "$work/stuck.json"
"$STREAMT_BINARY" run "$work/stuck.json" --bootstrap-servers 127.0.0.1:1 --state-dir "$work/stuck-state" \
  --connect-timeout-ms 60000 --metrics-address 127.0.0.1:0 >"$work/stuck.log" 2>&1 &
engine_pid[stuck]=$!
engine_pids+=("$!")
wait_for_port stuck
scrape stuck
# The documented threshold is 300 s; here 2 s, waited out on the clock the
# expression reads.
start=$SECONDS
while ((SECONDS - start < 3)); do sleep 0.2; done
scrape stuck
alert StreamtNotCommitting fires --replace '> 300=> 2'
kill -TERM "${engine_pid[stuck]}"
wait_engine stuck 30
scrapes=()

echo "== StreamtInvalidRecord: the exit 65 stays in --metrics-file until the next start"
src=$(unique alerts-in) sink=$(unique alerts-out) app=$(unique alerts)
create_topic "$src" 1
create_topic "$sink" 1
orders_schema "$src" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders WHERE amount >= 50" "$work/plan.json"
printf '%s\t%s\n' a '{"id":"a","amount":120}' b '{"id":"b","amount":"lots"}' c '{"id":"c","amount":200}' |
  produce "$src"
mkdir -p "$work/textfile"
file=$work/textfile/streamt.prom
start_engine poisoned "$work/plan.json" "$work/state" --metrics-file "$file" --metrics-address 127.0.0.1:0
wait_engine poisoned 90
check_eq "the poisoned run's exit code" 65 "$engine_rc"
grep -qx 'streamt_exit_code 65' "$file" || { cat "$file"; fail "the metrics file holds no streamt_exit_code 65"; }
! grep -q '^process_' "$file" || fail "the metrics file holds process_* (node_exporter exports its own)"
checks_passed=$((checks_passed + 2))
# As node_exporter's textfile collector would serve it.
scrapes=("node@$(date +%s.%N)=$file")
alert StreamtInvalidRecord fires

echo "== the next start reports the exit 65 and its file clears the alert"
"$STREAMT_BINARY" offsets skip "$app" "$src/0@1" --bootstrap-servers "$STREAMT_BOOTSTRAP" >/dev/null
start_engine fixed "$work/plan.json" "$work/state" --metrics-file "$file" --metrics-address 127.0.0.1:0
wait_for_port fixed
wait_for_committed "$app" "$src" 0 3
grep -q "the previous run from this state directory (started .*) ended .* with exit 65 (invalid_record at $src/0@1, wrong_type)" \
  "$work/fixed.log" || { show_log fixed; fail "the start does not report the exit 65"; }
checks_passed=$((checks_passed + 1))
scrapes=("node@$(date +%s.%N)=$file")
alert StreamtInvalidRecord stays_quiet
scrapes=()
scrape fixed
# Caught up: however long since the last commit (0 s for the test), nothing
# waits, so it stays quiet.
alert StreamtNotCommitting stays_quiet --replace '> 300=>= 0'
stop_engine fixed
check_eq "the fixed run's exit code" 0 "$engine_rc"
grep -qx 'streamt_exit_code 0' "$file" || { cat "$file"; fail "the metrics file holds no streamt_exit_code 0"; }
grep -qx 'streamt_records_invalid_total 0' "$file" || fail "the metrics file still counts an invalid record"
checks_passed=$((checks_passed + 2))

echo "== StreamtDeadLettering: bad records into a dead-letter plan"
src=$(unique alerts-dl-in) sink=$(unique alerts-dl-out) dlq=$(unique alerts-dl-dead) app=$(unique alerts-dl)
create_topic "$src" 1
create_topic "$sink" 1
create_topic "$dlq" 1
orders_schema "$src" "$work/dl.schema.json"
echo "SELECT id, amount FROM orders" |
  "$STREAMT_BINARY" compile --schema "$work/dl.schema.json" --application-id "$app" --sink-topic "$sink" \
    --on-invalid dead-letter --dead-letter-topic "$dlq" --output "$work/dl.json" -
printf '%s\t%s\n' a '{"id":"a","amount":1}' | produce "$src"
start_engine dl "$work/dl.json" "$work/dl-state" --metrics-address 127.0.0.1:0 --commit-interval-ms 100
wait_for_port dl
wait_for_committed "$app" "$src" 0 1
scrape dl
scrape dl
alert StreamtDeadLettering stays_quiet
printf '%s\t%s\n' b '{"id":"b"}' c 'not json' d '{"id":"d","amount":4}' | produce "$src"
wait_for_committed "$app" "$src" 0 4
scrape dl
alert StreamtDeadLettering fires
stop_engine dl
check_eq "the dead-letter run's exit code" 0 "$engine_rc"

scrapes=()
echo "== StreamtAborting: outputs the sink topic refuses (max.message.bytes 1024) among small ones"
src=$(unique alerts-ab-in) sink=$(unique alerts-ab-out) dlq=$(unique alerts-ab-dead) app=$(unique alerts-ab)
create_topic "$src" 1
"$kafka_local" topic create "$sink" --partitions 1 --config max.message.bytes=1024 >/dev/null
create_topic "$dlq" 1
orders_schema "$src" "$work/ab.schema.json"
echo "SELECT id, amount FROM orders" |
  "$STREAMT_BINARY" compile --schema "$work/ab.schema.json" --application-id "$app" --sink-topic "$sink" \
    --on-invalid dead-letter --dead-letter-topic "$dlq" --output "$work/ab.json" -
# Every odd record's output is about 1530 bytes; the even ones' about 25.
padding=$(printf 'x%.0s' {1..1500})
for ((i = 0; i < 16; i++)); do
  if ((i % 2)); then printf 'k%d\t{"id":"big%d-%s","amount":%d}\n' "$i" "$i" "$padding" "$i"
  else printf 'k%d\t{"id":"s%d","amount":%d}\n' "$i" "$i" "$i"; fi
done | produce "$src"
start_engine aborting "$work/ab.json" "$work/ab-state" --metrics-address 127.0.0.1:0 --commit-interval-ms 100
wait_for_port aborting
scrape aborting
# Scraped as Prometheus would, every half second, until all 16 commit.
deadline=$((SECONDS + 120))
while [[ $(committed_offset "$app" "$src" 0) != 16 ]] && ((SECONDS < deadline)); do
  sleep 0.5
  scrape aborting
done
scrape aborting
check_eq "every record committed, the refused ones dead-lettered" 16 "$(committed_offset "$app" "$src" 0)"
# Prometheus evaluates a rule at every interval, and an alert without a
# `for` fires the first time its expression holds. So each scrape's time is
# an evaluation time here, and the alert is checked at the first one where
# it holds (now when none does, which then fails). "Now" alone
# would miss it on a loaded machine: committing the rest can take longer
# than the shortened window (each committed_offset above starts a JVM), and
# the counter has stopped moving by then.
for entry in "${scrapes[@]}"; do
  file=${entry#*=} at=${entry#*@}
  echo "${at%%=*} $(awk '$1 == "streamt_transactions_aborted_total" { print $2 }' "$file")"
done >"$work/aborted-series"
echo "  aborts as scraped (seconds from the first scrape:count): $(awk 'NR == 1 { t0 = $1 } { printf "%.1f:%s ", $1 - t0, $2 }' "$work/aborted-series")"
evaluate_at=
while read -r evaluate_at _; do
  python3 "$evaluate" --docs "$docs" --alert StreamtAborting --at "$evaluate_at" --replace '[10m]=[30s]' \
    "${scrapes[@]}" >/dev/null 2>&1 && break
done <"$work/aborted-series"
ALERT_AT=$evaluate_at alert StreamtAborting fires --replace '[10m]=[30s]'
# One abort for each refused record (each aborted attempt blames one, and
# every one blamed stays known), and at most one more each: librdkafka
# (2.0.2 after every epoch bump, 2.15.1 now and then) may fail the
# transaction after an abort with a sequence error, which the session redoes.
# A loop, as before the fix, would commit nothing and abort on and on.
aborted=$(awk '$1 == "streamt_transactions_aborted_total" { print $2 }' "${scrapes[-1]#*=}")
check_eq "between 8 and 16 aborts for 8 refused outputs ($aborted)" yes \
  "$( ((aborted >= 8 && aborted <= 16)) && echo yes || echo no)"
grep -q "batch.size 1000000 capped to 1024, the max.message.bytes of topic '$sink'" "$work/aborting.log" ||
  { show_log aborting; fail "the producer's batch.size was not capped to the sink's max.message.bytes"; }
checks_passed=$((checks_passed + 1))
stop_engine aborting
check_eq "the aborting run's exit code" 0 "$engine_rc"
check_eq "the sink holds the eight small records" "s0 s10 s12 s14 s2 s4 s6 s8" \
  "$(committed_ids "$sink" | tr '\n' ' ' | sed 's/ $//')"
build_record_tool
record_tool dump "$dlq" >"$work/ab-dead.dump"
check_eq "the dead-letter topic holds the eight big records, each once, as output_refused_by_sink" \
  "big1 big11 big13 big15 big3 big5 big7 big9 | output_refused_by_sink" "$(python3 - "$work/ab-dead.dump" <<'PY'
import json, sys
ids, codes = [], set()
for line in open(sys.argv[1]):
    r = json.loads(line)
    ids.append(json.loads(bytes.fromhex(r["value"]))["id"].split("-")[0])
    codes |= {bytes.fromhex(v).decode() for n, v in r["headers"] if n == "streamt.error.code"}
print(" ".join(sorted(ids)), "|", " ".join(sorted(codes)))
PY
)"

scrapes=()
echo "== StreamtLagGrowing: input arriving faster than an engine of one record a transaction takes it"
src=$(unique alerts-lag-in) sink=$(unique alerts-lag-out) app=$(unique alerts-lag)
create_topic "$src" 1
create_topic "$sink" 1
orders_schema "$src" "$work/lag.schema.json"
compile "$work/lag.schema.json" "$app" "$sink" "SELECT id, amount FROM orders" "$work/lag.json"
numbered_orders 0 1 | produce "$src"
start_engine lagging "$work/lag.json" "$work/lag-state" --metrics-address 127.0.0.1:0 \
  --max-records-per-transaction 1
wait_for_port lagging
wait_for_committed "$app" "$src" 0 1
# The documented lag threshold is 100000 records over a 10 minute trend;
# here 50 over the test's minute.
lag_rules=(--replace '[10m]=[60s]' --replace '> 100000=> 50')
scrape lagging
scrape lagging
alert StreamtLagGrowing stays_quiet "${lag_rules[@]}"
# Four bursts of 400 (one JVM start each, about 1.5 s apart) against about
# a hundred records a second: the lag grows from one scrape to the next.
for ((b = 0; b < 4; b++)); do
  numbered_orders $((1 + b * 400)) $((1 + (b + 1) * 400)) | produce "$src"
  scrape lagging
done
alert StreamtLagGrowing fires "${lag_rules[@]}"
stop_engine lagging
check_eq "the lagging run's exit code" 0 "$engine_rc"

scrapes=()
echo "== one streamt feeding another: the second's lag reaches 0 and StreamtNotCommitting stays quiet"
src=$(unique alerts-chain-in) mid=$(unique alerts-chain-mid) sink=$(unique alerts-chain-out)
create_topic "$src" 1
create_topic "$mid" 1
create_topic "$sink" 1
orders_schema "$src" "$work/chain1.schema.json"
orders_schema "$mid" "$work/chain2.schema.json"
compile "$work/chain1.schema.json" "$(unique alerts-chain1)" "$mid" "SELECT id, amount FROM orders" "$work/chain1.json"
compile "$work/chain2.schema.json" "$(unique alerts-chain2)" "$sink" \
  "SELECT id, amount FROM orders WHERE amount >= 10" "$work/chain2.json"
start_engine upstream "$work/chain1.json" "$work/chain1-state" --commit-interval-ms 100
start_engine downstream "$work/chain2.json" "$work/chain2-state" --metrics-address 127.0.0.1:0
wait_for_port downstream
# Several upstream transactions, so several markers between the records.
for ((b = 0; b < 3; b++)); do numbered_orders $((b * 10)) $((b * 10 + 10)) | produce "$src"; done
lag_of_mid() { awk -v k="streamt_consumer_lag_records{topic=\"$mid\",partition=\"0\"}" '$1 == k { print $2 }' "$1"; }
consumed_of() { awk '$1 == "streamt_records_consumed_total" { print $2 }' "$1"; }
deadline=$((SECONDS + 120))
while :; do
  scrape downstream
  last=${scrapes[-1]#*=}
  [[ $(consumed_of "$last") == 30 && $(lag_of_mid "$last") == 0 ]] && break
  ((SECONDS < deadline)) || { show_log downstream; cat "$last"; fail "the downstream engine never caught up with lag 0"; }
  sleep 0.2
done
check_eq "the downstream engine consumed the 30 records, lag 0 past the upstream's markers" "30 0" \
  "$(consumed_of "$last") $(lag_of_mid "$last")"
check_eq "its output" 20 "$(consume_committed "$sink" | wc -l)"
alert StreamtNotCommitting stays_quiet --replace '> 300=>= 0'
stop_engine downstream
check_eq "the downstream run's exit code" 0 "$engine_rc"
stop_engine upstream
check_eq "the upstream run's exit code" 0 "$engine_rc"

echo "alerts: $checks_passed checks passed"
