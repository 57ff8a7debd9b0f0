#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Recovery in seconds at the defaults (docs/operations.md "Group
# membership"), on a real broker:
#   1. three instances share a 6-partition source that confluent-kafka
#      keeps writing to; the group's committed offsets, read with
#      confluent-kafka's AdminClient, show every partition committing again
#      within 5 s of a kill -9 of one instance and its restart from the same
#      state directory (a static member takes its partitions back), and
#      within 5 s of a SIGTERM to another one, not restarted (a stopped
#      static member leaves the group); a fourth instance started then
#      commits (its time is printed). recovery_times.py measures.
#   2. streamt status names an instance killed and not restarted as not
#      heard from, once records wait on its partition, and exits 0.
source "$(dirname "$0")/lib.sh"

echo "== 1. crash and scale-in within 5 s"
python=$("$root/tools/pyclients")
"$python" "$(dirname "$0")/recovery_times.py" --binary "$STREAMT_BINARY" --bootstrap "$STREAMT_BOOTSTRAP" \
  --work "$work/times" --candidate default --rounds 1 --check-seconds 5 --keep
checks_passed=$((checks_passed + 2))

echo "== 2. status names the instance it has not heard from"
src=$(unique fr-src) sink=$(unique fr-sink) app=$(unique silent)
create_topic "$src" 2
create_topic "$sink" 2
orders_schema "$src" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders" "$work/plan.json"
start_engine gone "$work/plan.json" "$work/state-gone"
numbered_orders 0 20 | produce "$src"
wait_committed_total "$app" "$src" 20 || { show_log gone; fail "the first records were not committed"; }
kill -9 "${engine_pid[gone]}"
wait_engine gone
numbered_orders 20 40 | produce "$src"
deadline=$((SECONDS + 30))
until "$STREAMT_BINARY" status "$app" -b "$STREAMT_BOOTSTRAP" --silent-after-ms 1000 >"$work/status.txt" 2>&1 &&
  grep -q "NOT HEARD FROM" "$work/status.txt"; do
  ((SECONDS < deadline)) || { cat "$work/status.txt"; fail "status never named the killed instance"; }
  sleep 0.5
done
grep -E "^instance [^ ]+: .*lag 20, last commit .* ago: NOT HEARD FROM" "$work/status.txt" >/dev/null ||
  { cat "$work/status.txt"; fail "no line naming the instance with its lag and last commit"; }
checks_passed=$((checks_passed + 1))
"$STREAMT_BINARY" status "$app" -b "$STREAMT_BOOTSTRAP" --silent-after-ms 1000 --format json >"$work/status.json"
"$python" - "$work/status.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
silent = [i for i in doc["instances"] if i["silent"]]
assert len(silent) == 1, doc["instances"]
assert silent[0]["lag"] == 20 and silent[0]["last_commit_ms_ago"] >= 1000, silent[0]
PY
checks_passed=$((checks_passed + 1))
echo "fast_recovery: $checks_passed checks passed"
