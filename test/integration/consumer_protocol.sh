#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# group.protocol=consumer (KIP-848: the broker assigns; docs/operations.md
# "The consumer group protocol") with transactions, on a 3-node cluster
# of its own (replication factor 3, min.insync.replicas 2):
#   1. the acceptance sequence, the multi-partition test, the two-instance
#      hand-over and plan succession (the plan log on a replicated cluster:
#      an unrelated plan refused, a successor taking over, a roll-back, and
#      two unrelated plans started at the same moment, one refused), each
#      as in the default suite, with group.protocol=consumer in the
#      engine's --config;
#   2. a copy of a static member's state directory: KIP-848 refuses the copy
#      (UNRELEASED_INSTANCE_ID, exit 75, naming the cause), and the copy's
#      producer has fenced the running instance's, which exits 75 at its next
#      transaction. A restart of the original resumes: every record once.
# On a build whose librdkafka predates 2.12.0 (the 2.0.2 floor) the engine
# refuses group.protocol=consumer with exit 78 before any client exists, and
# that is what is checked instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${STREAMT_BINARY:?set by ctest}"
source "$root/test/integration/own_broker.sh"
own_broker_init kip848
echo "group.protocol=consumer" >"$own/consumer.properties"

echo "== a 3-node cluster"
start_own_broker --brokers 3
source "$root/test/integration/lib.sh"
trap 'cleanup; stop_own_broker' EXIT

src=$(unique kip848-src) sink=$(unique kip848-sink) app=$(unique kip848)
create_topic "$src" 2
create_topic "$sink" 2
schema="$work/orders.schema.json"
orders_schema "$src" "$schema"
compile "$schema" "$app" "$sink" "SELECT id, amount FROM orders" "$work/plan.json"

# Nothing listens on port 1: a build that takes the setting gets as far as
# the connect check (exit 69) without joining the cluster's groups.
"$STREAMT_BINARY" run "$work/plan.json" --bootstrap-servers 127.0.0.1:1 --state-dir "$work/probe" \
  --config "$own/consumer.properties" --connect-timeout-ms 1000 >"$work/probe.log" 2>&1 && rc=0 || rc=$?
if grep -q "needs librdkafka 2.12.0 or newer" "$work/probe.log"; then
  check_eq "group.protocol=consumer is refused by a build that $(grep -o 'links librdkafka [^:]*' "$work/probe.log") (exit 78)" 78 "$rc"
  [[ ! -e $work/probe ]] || fail "the refusal touched the state directory"
  echo "consumer_protocol: $checks_passed checks passed (KIP-848 needs librdkafka 2.12.0: the rest skipped)"
  exit 0
fi
check_eq "group.protocol=consumer is taken (exit 69: nothing listens on port 1)" 69 "$rc"

# The group coordinator logs each member that joins with the consumer
# protocol; a sub-test whose engines fell back to the classic protocol adds
# none. Counted per sub-test: one match anywhere in the logs would let every
# later sub-test pass unseen.
consumer_joins() {
  cat "$broker_dir"/node-*/logs/server.log* 2>/dev/null |
    grep -c "joins the consumer group using the consumer protocol" || true
}

echo "== 1. the default suite's exactly-once tests, with group.protocol=consumer"
for t in acceptance multi_partition two_instances plan_succession; do
  echo "-- $t"
  joins_before=$(consumer_joins)
  if ! STREAMT_ENGINE_CONFIG=$own/consumer.properties STREAMT_EVIDENCE_DIR=$work/evidence \
    bash "$root/test/integration/$t.sh" >"$work/$t.out" 2>&1; then
    tail -n 40 "$work/$t.out" >&2
    fail "$t failed with group.protocol=consumer"
  fi
  joins=$(($(consumer_joins) - joins_before))
  ((joins > 0)) || fail "$t: no member joined with the consumer protocol (server.log)"
  checks_passed=$((checks_passed + 1))
  echo "ok: $t passes with group.protocol=consumer, $joins consumer-protocol joins ($(tail -n 1 "$work/$t.out"))"
done

echo "== 2. a copy of a static member's state directory"
kip848() { start_engine "$1" "$work/plan.json" "$2" --static-membership --config "$own/consumer.properties"; }
kip848 a "$work/state-a"
numbered_orders 0 40 | produce "$src"
wait_committed_total "$app" "$src" 40 120 || { show_log a; fail "the first batch was not committed"; }
cp -a "$work/state-a" "$work/state-copy"
kip848 copy "$work/state-copy"
wait_engine copy 60
check_eq "the copy is refused: exit 75" 75 "$engine_rc"
grep -q "UNRELEASED_INSTANCE_ID" "$work/copy.log" || { show_log copy; fail "the copy's log does not name UNRELEASED_INSTANCE_ID"; }
grep -q "another instance runs with this group.instance.id" "$work/copy.log" ||
  { show_log copy; fail "the copy's log does not say what to do"; }
numbered_orders 40 80 | produce "$src"
wait_engine a 90
check_eq "the running instance, its producer fenced by the copy's start, exits 75 at its next transaction" \
  75 "$engine_rc"
grep -qi "fenced" "$work/a.log" || { show_log a; fail "a's log does not say it was fenced"; }
kip848 a2 "$work/state-a"
wait_committed_total "$app" "$src" 80 120 || { show_log a2; fail "the restarted original did not commit the second batch"; }
stop_engine a2
check_eq "the restarted original exits 0 on SIGTERM" 0 "$engine_rc"
check_eq "every record once across the refusal and the fence" "$(numbered_ids 80)" "$(committed_ids "$sink")"
echo "consumer_protocol: $checks_passed checks passed"
