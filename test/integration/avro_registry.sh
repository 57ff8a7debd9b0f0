#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Issue 37 against the real Apicurio registry and a real broker, records
# written with confluent-kafka's AvroSerializer (and, while the registry is
# down, framed by hand with fastavro), the sink read with confluent-kafka;
# the Python side is avro_registry.py, its clients from tools/pyclients.
#
# 1. Three interleaved writer versions (v1; v2 adds a field with a default;
#    v3 removes a field and widens an int to a long), with decimal(12,2) and
#    timestamp-millis fields, filtered and projected by a plan compiled
#    against v3; through a SIGKILL of the engine and a restart, the sink
#    holds exactly the oracle's outputs (decimals exact), each once, as Avro
#    framed with the id the run registered under SINK-value, read back by
#    confluent-kafka's AvroDeserializer through the registry.
# 2. The registry killed while the engine runs and a record of a version the
#    engine has not read yet arrives: /readyz turns false naming the
#    registry, nothing is dead-lettered; the registry restarted, the run
#    goes on, nothing lost or duplicated.
# 3. The registry down past --stall-timeout-ms: exit 69, nothing at or after
#    the waiting record committed; a later run with the registry back
#    completes.
# 4. Each bad-record reason (not registry-framed, an unknown id, a schema
#    that cannot be resolved, a truncated body, Apicurio's 8-byte id)
#    dead-lettered at its offset with its code, and in fail mode the run
#    stops at each in turn (exit 65, the prefix committed).
source "$(dirname "$0")/lib.sh"
: "${STREAMT_REGISTRY_ENV:?set by ctest}"
# shellcheck disable=SC1090
source "$STREAMT_REGISTRY_ENV"
export STREAMT_REGISTRY_DIR STREAMT_REGISTRY_URL
registry_local="$root/tools/registry-local"
python=$("$root/tools/pyclients")
py() { "$python" "$(dirname "$0")/avro_registry.py" "$@"; }
registry=(--schema-registry "$STREAMT_REGISTRY_URL")
registry_requests() { # URL: the engine's streamt_registry_requests_total
  curl -s --max-time 5 -o "$work/metrics.requests" "$1/metrics"
  awk '$1 == "streamt_registry_requests_total" { print $2 }' "$work/metrics.requests"
}
# The registry's restart must not leave it down for the tests after this one.
trap '"$registry_local" restart >/dev/null 2>&1 || true; cleanup' EXIT

src=$(unique avro-in) sink=$(unique avro-out) dlq=$(unique avro-dlq) app=$(unique avro)
create_topic "$src" 2
create_topic "$sink" 2
create_topic "$dlq" 1
py schema 3 >"$work/v3.avsc"
echo "SELECT id, amount, quantity, channel, paid_at FROM payments WHERE amount >= 10.00" >"$work/q.sql"
"$STREAMT_BINARY" compile --schema "$work/v3.avsc" --source-topic "$src" --application-id "$app" \
  --sink-topic "$sink" --on-invalid dead-letter --dead-letter-topic "$dlq" --output "$work/plan.json" "$work/q.sql"

echo "== 1. three writer versions, interleaved, through a SIGKILL"
py write "$STREAMT_BOOTSTRAP" "$STREAMT_REGISTRY_URL" "$src" 0 600 "$work/ids.json"
start_engine first "$work/plan.json" "$work/state" "${registry[@]}" --commit-interval-ms 200 \
  --metrics-address 127.0.0.1:0
wait_committed_total "$app" "$src" 600 120 || { show_log first; fail "the first 600 records were not committed"; }
# 600 records of three writer versions: one request registers the sink's
# schema, one fetches each id; a request per record would be 601.
await_line first "serving metrics on" 10
check_eq "registry requests for 600 records of three writer schema ids" 4 \
  "$(registry_requests "http://127.0.0.1:$(metrics_port first)")"
py write "$STREAMT_BOOTSTRAP" "$STREAMT_REGISTRY_URL" "$src" 600 600 "$work/ids.json"
kill -9 "${engine_pid[first]}"
wait_engine first 10
start_engine second "$work/plan.json" "$work/state" "${registry[@]}" --commit-interval-ms 200 \
  --metrics-address 127.0.0.1:0
wait_committed_total "$app" "$src" 1200 120 || { show_log second; fail "the 1200 records were not committed"; }
py check-sink "$STREAMT_BOOTSTRAP" "$sink" --registry "$STREAMT_REGISTRY_URL" 0:1200 --dlq "$dlq" || { show_log second; fail "part 1"; }
checks_passed=$((checks_passed + 2))

echo "== 2. the registry killed mid-run, a new writer version meanwhile"
py register "$STREAMT_REGISTRY_URL" "$src-value" 4 "$work/ids.json"
await_line second "serving metrics on" 10
url="http://127.0.0.1:$(metrics_port second)"
"$registry_local" kill
py frames "$STREAMT_BOOTSTRAP" "$src" 1200 40 "$work/ids.json" 4
await_line second "waiting for the schema registry" 60
code=$(curl -s -o "$work/readyz.body" -w '%{http_code}' --max-time 5 "$url/readyz" || true)
check_eq "/readyz while the registry is down" 503 "$code"
grep -qF "waiting for the schema registry" "$work/readyz.body" ||
  fail "/readyz does not say it waits for the registry: $(cat "$work/readyz.body")"
# Read whole before grep: grep -q leaves at its first match, and curl,
# still writing, would fail the pipeline with SIGPIPE.
curl -s --max-time 5 -o "$work/metrics.down" "$url/metrics"
grep -qE '^streamt_registry_waiting 1$' "$work/metrics.down" ||
  fail "streamt_registry_waiting is not 1 during the outage"
"$registry_local" restart >/dev/null
wait_committed_total "$app" "$src" 1240 120 || { show_log second; fail "the records after the outage were not committed"; }
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url/readyz" || true)
check_eq "/readyz once the registry is back" 200 "$code"
waited=$(curl -s --max-time 5 "$url/metrics" | awk '$1 == "streamt_registry_wait_seconds_total" { print $2 }')
python3 -c "import sys; sys.exit(0 if float('$waited') > 0 else 1)" ||
  fail "streamt_registry_wait_seconds_total is '$waited' after an outage"
requests=$(registry_requests "$url")
stop_engine second
check_eq "the second run stops cleanly" 0 "$engine_rc"
py check-sink "$STREAMT_BOOTSTRAP" "$sink" --registry "$STREAMT_REGISTRY_URL" 0:1200 1200:40:4 --dlq "$dlq" || fail "part 2"
# Ids 1-3 once each after the SIGKILL, id 4 once answered: the failed
# attempts while it was down come on top.
((requests >= 4)) || fail "only $requests registry requests for four schema ids"
checks_passed=$((checks_passed + 3))

echo "== 3. the registry down past the stall timeout: exit 69"
# A new process knows no writer schema yet: it registers the sink's schema,
# joins, and then the registry goes away before the next records come.
start_engine third "$work/plan.json" "$work/state" "${registry[@]}" --stall-timeout-ms 5000
await_line third "the sink's schema is id" 60
await_line third "joined group" 60
"$registry_local" kill
before=$(group_offsets "$app" "$src")
py frames "$STREAMT_BOOTSTRAP" "$src" 1240 10 "$work/ids.json" 3
wait_engine third 60
check_eq "a run whose registry stays down exits" 69 "$engine_rc"
grep -qF "the schema registry has not answered for writer schema id" "$work/third.log" ||
  { show_log third; fail "the exit-69 line does not say what it waited for"; }
check_eq "nothing at or after the waiting record committed" "$before" "$(group_offsets "$app" "$src")"
# A start while it is down waits for it up to --connect-timeout-ms, to
# register the sink's schema, then exits 69 too.
refused registry_down_at_start 69 "to register the sink's schema" "$work/plan.json" \
  --bootstrap-servers "$STREAMT_BOOTSTRAP" --state-dir "$work/state" "${registry[@]}" --connect-timeout-ms 2000
"$registry_local" restart >/dev/null
start_engine fourth "$work/plan.json" "$work/state" "${registry[@]}" --commit-interval-ms 200
wait_committed_total "$app" "$src" 1250 120 || { show_log fourth; fail "the records after the stall were not committed"; }
stop_engine fourth
py check-sink "$STREAMT_BOOTSTRAP" "$sink" --registry "$STREAMT_REGISTRY_URL" 0:1200 1200:40:4 1240:10:3 --dlq "$dlq" || fail "part 3"

echo "== 4. bad records: dead-lettered each with its code, and failing in turn"
bad=$(unique avro-bad) bad_out=$(unique avro-bad-out) bad_dlq=$(unique avro-bad-dlq)
create_topic "$bad" 1
create_topic "$bad_out" 1
create_topic "$bad_dlq" 1
py register "$STREAMT_REGISTRY_URL" "$(unique other)-value" without-amount "$work/ids.json"
py bad "$STREAMT_BOOTSTRAP" "$bad" "$work/ids.json"
"$STREAMT_BINARY" compile --schema "$work/v3.avsc" --source-topic "$bad" --application-id "$app-dl" \
  --sink-topic "$bad_out" --sink-format json --on-invalid dead-letter --dead-letter-topic "$bad_dlq" --output "$work/dl.json" "$work/q.sql"
start_engine dl "$work/dl.json" "$work/state-dl" "${registry[@]}" --commit-interval-ms 200
wait_for_committed "$app-dl" "$bad" 0 8 || { show_log dl; fail "the bad records were not all handled"; }
stop_engine dl
check_eq "dead-lettered: partition, offset and code of each bad record" \
  "0 1 not_registry_framed|0 3 unknown_schema_id|0 4 schema_incompatible|0 5 malformed_avro|0 6 not_registry_framed" \
  "$(py dead "$STREAMT_BOOTSTRAP" "$bad_dlq" | paste -sd'|')"

"$STREAMT_BINARY" compile --schema "$work/v3.avsc" --source-topic "$bad" --application-id "$app-fail" \
  --sink-topic "$bad_out" --sink-format json --output "$work/fail.json" "$work/q.sql"
for expect in 1:not_registry_framed 3:unknown_schema_id 4:schema_incompatible 5:malformed_avro 6:not_registry_framed; do
  at=${expect%%:*} reason=${expect#*:}
  start_engine "fail-$at" "$work/fail.json" "$work/state-fail" "${registry[@]}" --commit-interval-ms 200
  wait_engine "fail-$at" 90
  check_eq "fail mode: the run stops at offset $at" 65 "$engine_rc"
  grep -qF "$bad/0@$at" "$work/fail-$at.log" && grep -qF "[$reason]" "$work/fail-$at.log" ||
    { show_log "fail-$at"; fail "the exit-65 line does not name $bad/0@$at [$reason]"; }
  check_eq "fail mode: the prefix before offset $at is committed" "$at" "$(committed_offset "$app-fail" "$bad" 0)"
  if ((at == 6)); then
    grep -qF "apicurio.registry.as-confluent" "$work/fail-$at.log" ||
      { show_log "fail-$at"; fail "the Apicurio-framed record's reason does not name the setting that fixes it"; }
  fi
  "$STREAMT_BINARY" offsets skip "$app-fail" "$bad/0@$at" --bootstrap-servers "$STREAMT_BOOTSTRAP" >/dev/null
done
echo "avro_registry: all checks passed"
