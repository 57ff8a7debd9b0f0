#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Static membership, the default with the classic protocol (docs/operations.md
# "Group membership"), on a real broker:
#   1. the member's group.instance.id is the instance's transactional id
#      with no option given, none with --dynamic-membership, and -X cannot
#      set one;
#   2. a restart from the same state directory resumes where the last one
#      committed: every record exactly once across it;
#   3. a second process from a copy of the state directory (same instance
#      id) fences the first: it exits 75 saying it was fenced, the copy
#      goes on, and the output stays exactly once.
source "$(dirname "$0")/lib.sh"

src=$(unique sm-src) sink=$(unique sm-sink) app=$(unique static)
create_topic "$src" 2
create_topic "$sink" 2
schema="$work/orders.schema.json"
orders_schema "$src" "$schema"
compile "$schema" "$app" "$sink" "SELECT id, amount FROM orders" "$work/plan.json"

echo "== 1. the instance id is the group.instance.id"
"$STREAMT_BINARY" run "$work/plan.json" --bootstrap-servers "$STREAMT_BOOTSTRAP" --state-dir "$work/refused" \
  -X group.instance.id=mine >"$work/refused.log" 2>&1 && rc=0 || rc=$?
check_eq "-X group.instance.id is refused (exit 78)" 78 "$rc"
grep -q "owned by the engine" "$work/refused.log" || { show_log refused; fail "no 'owned by the engine'"; }
start_engine dyn "$work/plan.json" "$work/state-dyn" --dynamic-membership
await_line dyn "assigned " 60
check_eq "a dynamic member has no group.instance.id" "-" "$("$kafka_local" instances "$app")"
stop_engine dyn
check_eq "dyn exits 0 on SIGTERM" 0 "$engine_rc"
start_engine a "$work/plan.json" "$work/state-a"
numbered_orders 0 40 | produce "$src"
wait_committed_total "$app" "$src" 40 || { show_log a; fail "first batch not committed"; }
txn=$(grep -o 'transactional id [^,]*' "$work/a.log" | head -n1)
txn=${txn#transactional id }
[[ -n $txn ]] || fail "no transactional id in the log"
check_eq "the member's group.instance.id is its transactional id, by default" "$txn" "$("$kafka_local" instances "$app")"

echo "== 2. a restart from the same state directory"
stop_engine a
check_eq "a exits 0 on SIGTERM" 0 "$engine_rc"
start_engine a2 "$work/plan.json" "$work/state-a" --static-membership
numbered_orders 40 80 | produce "$src"
wait_committed_total "$app" "$src" 80 || { show_log a2; fail "second batch not committed after the restart"; }
check_eq "every record once across the restart" "$(numbered_ids 80)" "$(committed_ids "$sink")"

echo "== 3. a copy of the state directory fences the running instance"
cp -a "$work/state-a" "$work/state-copy"
start_engine copy "$work/plan.json" "$work/state-copy" --static-membership
# The older member is fenced by the broker (FENCED_INSTANCE_ID on its next
# heartbeat) or by the copy's init_transactions (its producer's next call):
# either way it must end, 75, saying so.
wait_engine a2 60
check_eq "the older instance exits 75 (fenced)" 75 "$engine_rc"
grep -qi "fenced" "$work/a2.log" || { show_log a2; fail "a2's log does not say it was fenced"; }
numbered_orders 80 120 | produce "$src"
wait_committed_total "$app" "$src" 120 || { show_log copy; fail "the copy did not commit the third batch"; }
stop_engine copy
check_eq "the copy exits 0 on SIGTERM" 0 "$engine_rc"
check_eq "every record once across the fence" "$(numbered_ids 120)" "$(committed_ids "$sink")"
echo "static_membership: $checks_passed checks passed"
