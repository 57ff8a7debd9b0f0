#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# The metrics endpoint cannot starve the engine of file descriptors: an
# engine limited to 128 descriptors (ulimit -n) serves /metrics while a
# client holds 300 idle connections to it, and meanwhile keeps committing,
# keeps its partitions, and never runs out ("Too many open files"). Before
# the endpoint was bounded, 1100 idle sockets against a limit of 1024 cut an
# engine off from Kafka and its partitions were lost.
source "$(dirname "$0")/lib.sh"

src=$(unique flood-in) sink=$(unique flood-out) app=$(unique metrics-flood)
create_topic "$src" 1
create_topic "$sink" 1
orders_schema "$src" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders" "$work/plan.json"
fd_limit=128 idle=300 records=500

(
  ulimit -n "$fd_limit"
  exec "$STREAMT_BINARY" run "$work/plan.json" --bootstrap-servers "$STREAMT_BOOTSTRAP" --state-dir "$work/state" \
    --metrics-address 127.0.0.1:0
) >"$work/engine.log" 2>&1 &
engine_pid[engine]=$!
engine_pids+=("$!")
port=
for ((i = 0; i < 600; i++)); do
  port=$(metrics_port engine)
  [[ -n $port ]] && grep -q "no committed offset" "$work/engine.log" && break
  sleep 0.1
done
[[ -n $port ]] || { show_log engine; fail "the engine never served metrics"; }
grep -q "no committed offset" "$work/engine.log" || { show_log engine; fail "the engine never took its partition"; }
echo "engine ${engine_pid[engine]} serves metrics on port $port, limited to $fd_limit descriptors"

# The flood: connections opened and left idle, held until killed.
python3 - "$port" "$idle" >"$work/flood.out" 2>&1 <<'PY' &
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
held = []
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    held.append(s)
print(f"open {len(held)}", flush=True)
while True:
    time.sleep(3600)
PY
flood=$!
for ((i = 0; i < 300; i++)); do grep -q "^open " "$work/flood.out" && break; sleep 0.1; done
grep -q "^open $idle" "$work/flood.out" || { cat "$work/flood.out"; kill "$flood"; fail "the flood did not open its connections"; }
echo "$idle idle connections open"

for ((i = 0; i < records; i++)); do printf 'k%d\t{"id":"r%d","amount":%d}\n' "$i" "$i" "$i"; done | produce "$src"
wait_for_committed "$app" "$src" 0 "$records" 120 || { show_log engine; kill "$flood"; fail "the engine stopped committing"; }
fds=$(find "/proc/${engine_pid[engine]}/fd" -mindepth 1 -maxdepth 1 | wc -l)
echo "all $records records committed during the flood; the engine holds $fds descriptors"
((fds < fd_limit)) || { kill "$flood"; fail "the engine holds $fds descriptors, its limit is $fd_limit"; }
kill "$flood"
wait "$flood" 2>/dev/null || true

if grep -q "Too many open files" "$work/engine.log"; then show_log engine; fail "the engine ran out of descriptors"; fi
if grep -qE "revoked|lost" "$work/engine.log"; then show_log engine; fail "the engine lost its partition"; fi
# Served again once the flood is gone (its connections drain at once: each
# reads end of file).
answer=$(python3 - "$port" <<'PY'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=60)
c.request("GET", "/metrics")
r = c.getresponse()
print(r.status)
print(r.read().decode())
PY
)
check_eq "/metrics after the flood" 200 "$(head -n1 <<<"$answer")"
grep -q "^streamt_records_consumed_total $records$" <<<"$answer" || { echo "$answer"; fail "/metrics does not count the $records records"; }
stop_engine engine
check_eq "exit 0 on SIGTERM" 0 "$engine_rc"
check_eq "every record once in the sink" "$records" "$(values_committed "$sink" | wc -l)"
echo "metrics_flood: $checks_passed checks passed"
