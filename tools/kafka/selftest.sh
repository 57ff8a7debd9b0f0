#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Checks tools/kafka-local against a real broker it starts: jar verification,
# start/stop safety, the client commands, run-with-broker's exit code, and
# (when a C compiler and librdkafka-dev are present) the librdkafka
# transaction probe in probe/txn_probe.c. Prints one line per check and
# "N passed, N failed" last; exits non-zero if any check failed.
#
#   tools/kafka/selftest.sh
#
# Takes 2.5 to 5 minutes on a 2-core machine busy with compiles (two broker
# starts and a dozen short JVM runs).

# The sh -c '...' checks expand "$0" and "$1" in the inner shell on purpose.
# shellcheck disable=SC2016
set -uo pipefail

here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
readonly here
readonly kafka_local=$here/../kafka-local
passed=0
failed=0
work=$(mktemp -d "${TMPDIR:-/tmp}/kafka-local-selftest-XXXXXXXX")
STREAMT_KAFKA_DIR=""

cleanup() {
  [[ -z $STREAMT_KAFKA_DIR ]] || "$kafka_local" stop --dir "$STREAMT_KAFKA_DIR" >/dev/null 2>&1
  rm -rf -- "$work"
}
trap cleanup EXIT

check() {
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
    echo "PASS $name"
  else
    failed=$((failed + 1))
    echo "FAIL $name"
  fi
}

# Runs CMD and succeeds when it fails with exactly the expected status.
fails_with() {
  local expected=$1 status=0
  shift
  "$@" >/dev/null 2>&1 || status=$?
  [[ $status == "$expected" ]] || echo "  expected exit $expected, got $status: $*"
  [[ $status == "$expected" ]]
}

"$kafka_local" fetch || { echo "FAIL fetch"; echo "0 passed, 1 failed"; exit 1; }
cache=${STREAMT_KAFKA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/streamt/kafka-4.3.1}

# A tampered cache must stop start before any directory or process exists.
tampered_cache_is_refused() {
  local kind=$1 copy=$work/cache-$1
  mkdir -p "$copy"
  cp -r "$cache/jars" "$copy/jars"
  case $kind in
    changed) printf 'x' >>"$copy/jars/kafka-clients-4.3.1.jar" ;;
    missing) rm "$copy/jars/kafka-raft-4.3.1.jar" ;;
    extra) cp "$copy/jars/re2j-1.8.jar" "$copy/jars/extra-1.0.jar" ;;
  esac
  local before after
  before=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'streamt-kafka-*' | wc -l)
  STREAMT_KAFKA_CACHE=$copy fails_with 1 "$kafka_local" start || return 1
  after=$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'streamt-kafka-*' | wc -l)
  [[ $before == "$after" ]]
}
check start_refuses_a_changed_jar tampered_cache_is_refused changed
check start_refuses_a_missing_jar tampered_cache_is_refused missing
check start_refuses_an_extra_jar tampered_cache_is_refused extra

env_lines=$("$kafka_local" start) || { echo "FAIL start"; echo "$passed passed, $((failed + 1)) failed"; exit 1; }
eval "$env_lines"
export STREAMT_KAFKA_DIR STREAMT_BOOTSTRAP

check start_prints_a_loopback_bootstrap [ "${STREAMT_BOOTSTRAP%:*}" = 127.0.0.1 ]
check start_marks_its_directory test -f "$STREAMT_KAFKA_DIR/.streamt-kafka-local"
check broker_reports_version_4_3_1 sh -c '"$0" version | grep -q "^4\.3\.1 "' "$kafka_local"

check topic_create_succeeds "$kafka_local" topic create orders --partitions 3
check topic_create_twice_fails fails_with 1 "$kafka_local" topic create orders --partitions 3
check topic_list_shows_the_topic sh -c '"$0" topic list | grep -qx orders' "$kafka_local"

printf 'a\t{"id":"a","amount":120}\nb\tNULL\nNULL\t{"id":"n","amount":1}\n' >"$work/input"
check produce_succeeds sh -c '"$0" produce orders --null-marker NULL <"$1"' "$kafka_local" "$work/input"
check produce_to_a_missing_topic_fails fails_with 1 sh -c 'echo "k	v" | "$0" produce no-such-topic' "$kafka_local"

consume_returns_what_was_produced() {
  local out
  out=$("$kafka_local" consume orders --committed --null-marker NULL | cut -f3- | sort)
  [[ $out == "$(sort "$work/input")" ]] || { printf '  got:\n%s\n' "$out"; return 1; }
}
check consume_returns_what_was_produced consume_returns_what_was_produced
check consume_of_a_missing_topic_exits_3 fails_with 3 "$kafka_local" consume no-such-topic
check offsets_of_a_missing_group_exits_3 fails_with 3 "$kafka_local" offsets no-such-group

if command -v cc >/dev/null && [[ -f /usr/include/librdkafka/rdkafka.h ]]; then
  if cc -std=c11 -Wall -Wextra -Werror -O1 -o "$work/txn_probe" "$here/probe/txn_probe.c" -lrdkafka; then
    "$work/txn_probe" "$STREAMT_BOOTSTRAP" >"$work/probe.out" 2>"$work/probe.err"
    check librdkafka_probe_passes grep -qx '[0-9]* passed, 0 failed' "$work/probe.out"
    grep -E '^(librdkafka|FAIL)' "$work/probe.out" | sed 's/^/  /'
    read -r _ in_topic out_topic _ txn_group _ < <(sed -n 's/,//; 2p' "$work/probe.out")
    check java_sees_the_probes_committed_offset_6 \
      sh -c '[ "$("$0" offsets "$1")" = "$(printf "%s\t0\t6" "$2")" ]' "$kafka_local" "$txn_group" "$in_topic"
    java_read_committed_hides_aborted() {
      local out
      out=$("$kafka_local" consume "$out_topic" --committed)
      [[ $(wc -l <<<"$out") == 7 ]] && ! grep -q aborted <<<"$out"
    }
    check java_read_committed_hides_the_probes_aborted_records java_read_committed_hides_aborted
  else
    check txn_probe_builds false
  fi
else
  echo "SKIP librdkafka probe (no cc or librdkafka-dev)"
fi

mkdir -p "$work/not-ours"
touch "$work/not-ours/keep"
check stop_refuses_a_directory_without_marker fails_with 1 "$kafka_local" stop --dir "$work/not-ours"
check that_directory_is_left_intact test -f "$work/not-ours/keep"

broker_pid=$(<"$STREAMT_KAFKA_DIR/kafka.pid")
check stop_succeeds "$kafka_local" stop --dir "$STREAMT_KAFKA_DIR"
check stop_removes_the_directory test ! -e "$STREAMT_KAFKA_DIR"
check stop_ends_the_broker sh -c '! kill -0 "$0" 2>/dev/null' "$broker_pid"
STREAMT_KAFKA_DIR=""

run_with_broker_returns_the_commands_status() {
  local status=0 dir
  dir=$("$kafka_local" run-with-broker -- sh -c 'echo "$STREAMT_KAFKA_DIR"; exit 7') || status=$?
  [[ $status == 7 && -n $dir && ! -e $dir ]] || { echo "  status $status, dir '$dir'"; return 1; }
}
check run_with_broker_returns_the_commands_status_and_cleans_up run_with_broker_returns_the_commands_status

echo "$passed passed, $failed failed"
((failed == 0))
