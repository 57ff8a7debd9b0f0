# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Shared helpers for the integration tests (bash). Each test sources this
# file; ctest sets STREAMT_BINARY, STREAMT_BROKER_ENV (the running broker of
# the fixture) and STREAMT_EVIDENCE_DIR.
#
# Checks read Kafka with the Java client through tools/kafka-local (an
# independent reader, not the librdkafka under test), read_committed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kafka_local="$root/tools/kafka-local"
: "${STREAMT_BINARY:?set by ctest}"
: "${STREAMT_BROKER_ENV:?set by ctest}"
# shellcheck disable=SC1090
source "$STREAMT_BROKER_ENV"
export STREAMT_KAFKA_DIR STREAMT_BOOTSTRAP
# STREAMT_KEEP_WORK=DIR: the work directory (engine logs, state
# directories) is DIR and is kept, for a caller that inspects it afterwards.
if [[ -n ${STREAMT_KEEP_WORK:-} ]]; then
  work=$STREAMT_KEEP_WORK
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/streamt-it-XXXXXX")
fi
engine_pids=()
cleanup() {
  for p in "${engine_pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  [[ -n ${STREAMT_KEEP_WORK:-} ]] || rm -rf "$work"
}
trap cleanup EXIT

checks_passed=0
fail() { echo "FAIL: $*" >&2; exit 1; }
check_eq() {  # check_eq WHAT EXPECTED ACTUAL
  if [[ "$2" != "$3" ]]; then
    printf 'FAIL: %s\n  expected: %s\n  actual:   %s\n' "$1" "$2" "$3" >&2
    exit 1
  fi
  checks_passed=$((checks_passed + 1))
  echo "ok: $1"
}

# A topic name unique to this run, so tests never see each other's data.
unique() { echo "$1-$(date +%s%N | tail -c 9)-$RANDOM"; }
# create_topic NAME PARTITIONS [--config K=V]...
create_topic() { "$kafka_local" topic create "$1" --partitions "$2" "${@:3}" >/dev/null; }
# produce TOPIC < lines of KEY<TAB>VALUE ("null" as KEY or VALUE means null)
produce() { "$kafka_local" produce "$1" --null-marker null >/dev/null; }
# consume_committed TOPIC: PARTITION<TAB>OFFSET<TAB>KEY<TAB>VALUE, read_committed
consume_committed() { "$kafka_local" consume "$1" --committed; }
group_members() { "$kafka_local" members "$1"; }
# values_committed TOPIC: only the values, in partition then offset order
values_committed() { consume_committed "$1" | cut -f4; }
# committed_offset GROUP TOPIC PARTITION (prints "none" if nothing committed)
committed_offset() {
  local out
  out=$("$kafka_local" offsets "$1" 2>/dev/null) || { echo none; return; }
  awk -F'\t' -v t="$2" -v p="$3" '$1 == t && $2 == p { print $3; found=1 } END { if (!found) print "none" }' <<<"$out"
}

# compile SCHEMA_FILE APP_ID SINK_TOPIC SQL OUT_PLAN [COMPILE_OPTION...]
compile() { echo "$4" | "$STREAMT_BINARY" compile --schema "$1" --application-id "$2" --sink-topic "$3" --output "$5" "${@:6}" -; }
# orders_schema TOPIC FILE: the orders(id STRING, amount BIGINT) schema most
# tests compile against, reading TOPIC.
orders_schema() {
  cat >"$2" <<JSON
{"source": "orders", "topic": "$1",
 "columns": [{"name": "id", "type": "STRING", "nullable": false},
             {"name": "amount", "type": "BIGINT", "nullable": false}]}
JSON
}

# six_orders NAME SRC SINK APP: one-partition topics SRC and SINK, the plan
# $work/NAME.plan.json of `SELECT id, amount FROM orders WHERE amount >= 50`
# for APP (set as $plan), and six orders in SRC of which a, d and e pass.
six_orders() {
  create_topic "$2" 1
  create_topic "$3" 1
  orders_schema "$2" "$work/$1.schema.json"
  plan="$work/$1.plan.json"
  compile "$work/$1.schema.json" "$4" "$3" "SELECT id, amount FROM orders WHERE amount >= 50" "$plan"
  printf '%s\t%s\n' a '{"id":"a","amount":120}' b '{"id":"b","amount":20}' c '{"id":"c","amount":35}' \
    d '{"id":"d","amount":90}' e '{"id":"e","amount":110}' f '{"id":"f","amount":5}' | produce "$2"
}

# start_engine NAME PLAN STATE_DIR [ARGS...]: runs `streamt run` in the
# background, logging to $work/NAME.log; its pid goes to engine_pid[NAME].
# With STREAMT_ENGINE_BOOTSTRAP (and STREAMT_ENGINE_CONFIG, a --config file)
# the engine connects there instead, to a secured listener, while the checks
# keep reading through the broker's PLAINTEXT listener
# (test/package/deb_cluster_scram.sh runs the acceptance sequence that way).
declare -A engine_pid
start_engine() {
  local name=$1 plan=$2 state=$3 secured=()
  shift 3
  [[ -z ${STREAMT_ENGINE_CONFIG:-} ]] || secured=(--config "$STREAMT_ENGINE_CONFIG")
  "$STREAMT_BINARY" run "$plan" --bootstrap-servers "${STREAMT_ENGINE_BOOTSTRAP:-$STREAMT_BOOTSTRAP}" \
    --state-dir "$state" "${secured[@]+"${secured[@]}"}" "$@" >"$work/$name.log" 2>&1 &
  engine_pid[$name]=$!
  engine_pids+=("$!")
}
# wait_engine NAME [TIMEOUT_S]: waits for the engine to exit and sets
# engine_rc to its exit code (not printed: `wait` needs this shell, not a
# command substitution's subshell).
engine_rc=
wait_engine() {
  local name=$1 timeout=${2:-60} pid=${engine_pid[$1]}
  for ((i = 0; i < timeout * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "engine $name did not exit within ${timeout}s; log:" >&2
    cat "$work/$name.log" >&2
    kill -9 "$pid"
  fi
  wait "$pid" && engine_rc=0 || engine_rc=$?
}
# stop_engine NAME: SIGTERM (clean stop); sets engine_rc.
stop_engine() { kill -TERM "${engine_pid[$1]}"; wait_engine "$1" 60; }
# peak_rss_kib NAME: the engine's peak resident set so far (VmHWM).
peak_rss_kib() { awk '/^VmHWM:/ { print $2 }' "/proc/${engine_pid[$1]}/status"; }
# wait_for_committed GROUP TOPIC PARTITION OFFSET [TIMEOUT_S]: polls the
# group's committed offset (an observable condition of another process;
# there is no event to await from outside it).
wait_for_committed() {
  local deadline=$((SECONDS + ${5:-90})) got
  while ((SECONDS < deadline)); do
    got=$(committed_offset "$1" "$2" "$3")
    [[ $got == "$4" ]] && return 0
    sleep 0.5
  done
  echo "committed offset of $1 $2/$3 is $got, expected $4" >&2
  return 1
}
# numbered_orders FROM TO: records r FROM .. r TO-1 for produce, keyed k0..k6.
numbered_orders() { for ((i = $1; i < $2; i++)); do printf 'k%d\t{"id":"r%d","amount":%d}\n' "$((i % 7))" "$i" "$i"; done; }
# numbered_ids N: r0 .. rN-1, sorted as committed_ids sorts them.
numbered_ids() { for ((i = 0; i < $1; i++)); do printf 'r%d\n' "$i"; done | sort; }
# committed_ids SINK: the ids in the sink's read_committed view, sorted.
committed_ids() { values_committed "$1" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p' | sort; }
# wait_committed_total GROUP TOPIC N [TIMEOUT_S]: until the group's committed
# offsets of the topic's partitions 0 and 1 add up to N.
wait_committed_total() {
  local deadline=$((SECONDS + ${4:-90})) total
  while ((SECONDS < deadline)); do
    total=$(("$(committed_offset "$1" "$2" 0 | sed 's/none/0/')" + "$(committed_offset "$1" "$2" 1 | sed 's/none/0/')"))
    ((total == $3)) && return 0
    sleep 0.5
  done
  return 1
}
show_log() { echo "--- $1.log"; cat "$work/$1.log"; }
# await_line NAME TEXT TIMEOUT_S [POLL_S]: waits until engine NAME's log has
# a line with TEXT (fixed string), polling every POLL_S (0.1); fails with the
# log if it has none within TIMEOUT_S or the engine exited first. A line in
# another process's log is an outside event with nothing to await but it.
await_line() {
  local name=$1 text=$2 poll=${4:-0.1} deadline
  deadline=$((${EPOCHREALTIME/./} + $3 * 1000000))
  until grep -qsF -- "$text" "$work/$name.log"; do
    if ((${EPOCHREALTIME/./} > deadline)) || ! kill -0 "${engine_pid[$name]}" 2>/dev/null; then
      grep -qsF -- "$text" "$work/$name.log" && return 0
      show_log "$name"
      fail "$name: no line with '$text' within $3 s"
    fi
    sleep "$poll"
  done
}
# metrics_port NAME: the port NAME's log says it serves metrics on (empty
# while it has not said so yet).
metrics_port() {
  grep -oE 'serving metrics on http://127\.0\.0\.1:[0-9]+' "$work/$1.log" | grep -oE '[0-9]+$' | head -n1 || true
}

# --- added for multi_partition, two_instances, keys_headers_timestamps,
# bad_inputs ---

# wait_for_offsets GROUP TOPIC EXPECTED [TIMEOUT_S]: polls the group's
# committed offsets on TOPIC until they are EXPECTED, "PARTITION:OFFSET"
# pairs in partition order separated by spaces ("0:97 1:103 2:99 3:101").
# One kafka-local call a poll however many partitions there are.
wait_for_offsets() {
  local deadline=$((SECONDS + ${4:-120})) got=""
  while ((SECONDS < deadline)); do
    got=$(group_offsets "$1" "$2")
    [[ $got == "$3" ]] && return 0
    sleep 0.5
  done
  echo "committed offsets of $1 on $2 are '$got', expected '$3'" >&2
  return 1
}
# group_offsets GROUP TOPIC: the group's committed offsets on TOPIC in the
# form wait_for_offsets takes (empty if the group has none).
group_offsets() {
  { "$kafka_local" offsets "$1" 2>/dev/null || true; } |
    awk -F'\t' -v t="$2" '$1 == t { print $2 "\t" $3 }' | sort -n | awk -F'\t' '{ printf "%s%s:%s", sep, $1, $2; sep = " " }'
}
# check_each FILE: check_eq on every line WHAT<TAB>EXPECTED<TAB>ACTUAL of
# FILE (what a test's Python verifier writes).
check_each() {
  local what expected actual
  while IFS=$'\t' read -r what expected actual; do
    check_eq "$what" "$expected" "$actual"
  done <"$1"
}
# end_offsets_of TSV PARTITIONS: from a consume dump (PARTITION<TAB>OFFSET<TAB>...),
# the end offset of each of PARTITIONS partitions in wait_for_offsets' form.
end_offsets_of() {
  awk -F'\t' -v n="$2" '{ if ($2 + 1 > end[$1]) end[$1] = $2 + 1 }
    END { for (p = 0; p < n; p++) printf "%s%d:%d", (p ? " " : ""), p, end[p] + 0 }' "$1"
}

# refused NAME EXPECTED_RC MESSAGE PLAN [ARGS...]: runs `streamt run` in the
# foreground (bounded by timeout), checks its exit code, that its output
# contains MESSAGE, and that it logged no committed transaction.
refused() {
  local name=$1 expected_rc=$2 message=$3 plan=$4 rc=0
  shift 4
  timeout -k 5 90 "$STREAMT_BINARY" run "$plan" "$@" >"$work/$name.log" 2>&1 || rc=$?
  check_eq "$name: exit code" "$expected_rc" "$rc"
  grep -qF -- "$message" "$work/$name.log" || { show_log "$name"; fail "$name: the message does not contain: $message"; }
  ! grep -q "committed transaction" "$work/$name.log" || { show_log "$name"; fail "$name: committed a transaction"; }
  sed -n -e 's/^streamt run: /  /p' -e 's/^.* error engine \[[^]]*\]: /  /p' "$work/$name.log"
}

# build_record_tool: compiles RecordTool.java (byte-exact produce and dump
# with the Java client) and defines record_tool produce|dump TOPIC.
build_record_tool() {
  java=${STREAMT_JAVA:-java}
  javac=$(dirname "$(readlink -f "$(command -v "$java")")")/javac
  jars=${STREAMT_KAFKA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/streamt/kafka-4.3.1}/jars
  [[ -d $jars ]] || fail "no Kafka jars at $jars (tools/kafka-local fetch)"
  "$javac" --release 17 -cp "$jars/*" -d "$work/classes" "$(dirname "${BASH_SOURCE[0]}")/RecordTool.java"
}
record_tool() {
  "$java" -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    "-Dlog4j2.configurationFile=$root/tools/kafka/log4j2-tools.properties" \
    -cp "$work/classes:$jars/*" RecordTool "$1" "$STREAMT_BOOTSTRAP" "$2"
}
