#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Settings that cannot work are refused at start, against a real broker,
# with exit 78 and a line naming both settings, before any record is read:
#   1. --commit-interval-ms 70000 with librdkafka's default transaction
#      timeout (60 s): no transaction could commit; before, the run went on
#      and ended after 70 s as "fenced by a newer instance" (exit 75).
#   2. -X transaction.timeout.ms above the broker's transaction.max.timeout.ms
#      (900000 by default): the broker refuses init_transactions; before, exit
#      69, which a supervisor retries forever.
source "$(dirname "$0")/lib.sh"

src=$(unique refused-in) sink=$(unique refused-out) app=$(unique refused-settings)
create_topic "$src" 1
create_topic "$sink" 1
orders_schema "$src" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders" "$work/plan.json"
printf '%s\t%s\n' a '{"id":"a","amount":1}' | produce "$src"

echo "== 1. a commit interval the transaction timeout cannot hold"
started=$SECONDS
start_engine interval "$work/plan.json" "$work/state-interval" --commit-interval-ms 70000
wait_engine interval 30
check_eq "exit code" 78 "$engine_rc"
((SECONDS - started <= 20)) || fail "refused after $((SECONDS - started)) s, not at start"
grep -q -- "--commit-interval-ms.*transaction.timeout.ms" "$work/interval.log" ||
  { show_log interval; fail "the refusal does not name both settings"; }

echo "== 2. a transaction timeout the broker refuses"
start_engine timeout "$work/plan.json" "$work/state-timeout" -X transaction.timeout.ms=2147483647
wait_engine timeout 60
check_eq "exit code" 78 "$engine_rc"
grep -q "transaction.timeout.ms" "$work/timeout.log" && grep -q "transaction.max.timeout.ms" "$work/timeout.log" ||
  { show_log timeout; fail "the refusal does not name the client's and the broker's settings"; }

check_eq "nothing committed" none "$(committed_offset "$app" "$src" 0)"
check_eq "sink" "" "$(values_committed "$sink")"
echo "refused_settings: ok"
