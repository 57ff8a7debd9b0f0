#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# JSON in the Confluent wire format (--value-format json-registry, issue 37)
# against the real Apicurio registry and a real broker; the Python side is
# json_registry.py, its clients from tools/pyclients.
#
# 1. A JSON Schema registered under SOURCE-value: compile from the registry
#    gives the plan a schema file of the same columns gives (one digest).
# 2. Values framed with the registry's id (by hand: the venv has no
#    jsonschema for confluent-kafka's JSONSerializer), among them plain
#    JSON, a value shorter than a frame and Apicurio's 8-byte id: run
#    without --schema-registry, the sink holds exactly the oracle's plain
#    JSON outputs, read by confluent-kafka, and the bad records are
#    dead-lettered unchanged with not_registry_framed at their offsets.
# 3. In fail mode the run stops at the first bad record: exit 65, its
#    reason names --value-format json, the prefix committed.
source "$(dirname "$0")/lib.sh"
: "${STREAMT_REGISTRY_ENV:?set by ctest}"
# shellcheck disable=SC1090
source "$STREAMT_REGISTRY_ENV"
python=$("$root/tools/pyclients")
py() { "$python" "$(dirname "$0")/json_registry.py" "$@"; }

src=$(unique jr-in) sink=$(unique jr-out) dlq=$(unique jr-dlq) app=$(unique jr)
create_topic "$src" 1
create_topic "$sink" 1
create_topic "$dlq" 1
id=$(py register "$STREAMT_REGISTRY_URL" "$src-value")
echo "SELECT id, amount FROM orders WHERE amount >= 50" >"$work/q.sql"

echo "== 1. compiled from the registry's JSON Schema, and from the same columns in a schema file"
"$STREAMT_BINARY" compile --schema-registry "$STREAMT_REGISTRY_URL" --source-topic "$src" --application-id "$app" \
  --sink-topic "$sink" --on-invalid dead-letter --dead-letter-topic "$dlq" --output "$work/plan.json" "$work/q.sql"
grep -qF '"value_format": "json-registry"' "$work/plan.json" || fail "the plan does not say json-registry"
cat >"$work/schema.json" <<JSON
{"source": "orders", "topic": "$src", "columns": [
  {"name": "id", "type": "STRING", "nullable": false},
  {"name": "amount", "type": "BIGINT", "nullable": false},
  {"name": "note", "type": "STRING", "nullable": true}]}
JSON
"$STREAMT_BINARY" compile --schema "$work/schema.json" --value-format json-registry --application-id "$app" \
  --sink-topic "$sink" --on-invalid dead-letter --dead-letter-topic "$dlq" --output "$work/file.json" "$work/q.sql"
check_eq "the JSON Schema's plan is the schema file's (its digest)" \
  "$(grep '"digest"' "$work/file.json")" "$(grep '"digest"' "$work/plan.json")"

echo "== 2. framed JSON read without a registry; bad values dead-lettered unchanged"
py write "$STREAMT_BOOTSTRAP" "$src" "$id" 40
start_engine dl "$work/plan.json" "$work/state" --commit-interval-ms 200
wait_for_committed "$app" "$src" 0 40 || { show_log dl; fail "the 40 records were not committed"; }
stop_engine dl
check_eq "the dead-lettering run stops cleanly" 0 "$engine_rc"
py check "$STREAMT_BOOTSTRAP" "$sink" "$dlq" "$id" 40 || { show_log dl; fail "part 2"; }
checks_passed=$((checks_passed + 2))

echo "== 3. fail mode stops at the first value without a frame"
fail_sink=$(unique jr-fail-out)
create_topic "$fail_sink" 1
"$STREAMT_BINARY" compile --schema "$work/schema.json" --value-format json-registry --application-id "$app-fail" \
  --sink-topic "$fail_sink" --output "$work/fail.json" "$work/q.sql"
start_engine fail "$work/fail.json" "$work/state-fail" --commit-interval-ms 200
wait_engine fail 90
check_eq "fail mode: the run stops at offset 3" 65 "$engine_rc"
grep -qF "$src/0@3" "$work/fail.log" && grep -qF "[not_registry_framed]" "$work/fail.log" &&
  grep -qF -- "--value-format json reads it" "$work/fail.log" ||
  { show_log fail; fail "the exit-65 line does not name $src/0@3 [not_registry_framed] and --value-format json"; }
check_eq "fail mode: the prefix before offset 3 is committed" 3 "$(committed_offset "$app-fail" "$src" 0)"
echo "json_registry: all $checks_passed checks passed"
