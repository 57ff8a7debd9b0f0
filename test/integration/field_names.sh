#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# contract §2 and §3: a topic whose fields are named as real producers name
# them (user-id, order, @timestamp, non-ASCII) is compiled with quoted names,
# replayed offline and run on the broker, and both give the same records,
# with the output members spelt exactly as the query says. The schema says
# unknown_fields: ignore, so a record carrying a member the schema does not
# declare passes (that member dropped), while a malformed one still stops
# the run with exit 65 and nothing after it.
source "$(dirname "$0")/lib.sh"

src=$(unique names-in) sink=$(unique names-out) app=$(unique field-names)
create_topic "$src" 1
create_topic "$sink" 1
schema="$work/events.schema.json"
cat >"$schema" <<JSON
{"source": "events", "topic": "$src", "unknown_fields": "ignore",
 "columns": [{"name": "user-id", "type": "STRING", "nullable": false},
             {"name": "order", "type": "BIGINT", "nullable": false},
             {"name": "@timestamp", "type": "BIGINT", "nullable": false},
             {"name": "Grüße", "type": "STRING", "nullable": true}]}
JSON
sql='SELECT "user-id" AS user_id, "order", "@timestamp" AS "ts", "Grüße" FROM events WHERE "order" >= 10'
compile "$schema" "$app" "$sink" "$sql" "$work/plan.json"

# The unquoted form is refused, and the message says how to write the name.
set +e
unquoted=$(echo 'SELECT user-id FROM events' |
  "$STREAMT_BINARY" compile --schema "$schema" --application-id "$app" --sink-topic "$sink" - 2>&1)
unquoted_rc=$?
set -e
check_eq "compiling user-id unquoted exits 1" 1 "$unquoted_rc"
[[ $unquoted == *'the column "user-id" must be written in double quotes: "user-id"'* ]] ||
  fail "the unquoted name's message does not suggest the quoted form: $unquoted"

explained=$("$STREAMT_BINARY" explain "$work/plan.json")
[[ $explained == *'(unknown_fields: ignore)'* ]] || fail "explain does not show the unknown_fields policy: $explained"
[[ $explained == *'"user-id" AS user_id, "order", "@timestamp" AS ts, "Grüße"'* ]] ||
  fail "explain does not show the quoted names: $explained"

values=(
  '{"user-id":"u1","order":12,"@timestamp":1700000000000,"Grüße":"hallo"}'
  '{"order":3,"user-id":"u2","@timestamp":1700000000001,"Grüße":null}'
  '{"user-id":"u3","order":40,"@timestamp":1700000000002,"Grüße":null,"added":{"later":[1,2]}}'
  '{"user-id":"u4","order":10,"@timestamp":1700000000003,"Gr\u00fc\u00dfe":"escaped key"}'
)
expected='{"user_id":"u1","order":12,"ts":1700000000000,"Grüße":"hallo"}
{"user_id":"u3","order":40,"ts":1700000000002,"Grüße":null}
{"user_id":"u4","order":10,"ts":1700000000003,"Grüße":"escaped key"}'

echo "== replay"
for i in "${!values[@]}"; do
  python3 -c 'import json,sys; print(json.dumps({"topic": sys.argv[1], "partition": 0, "offset": int(sys.argv[2]), "key": "k", "payload": sys.argv[3]}, ensure_ascii=False))' \
    "$src" "$i" "${values[$i]}"
done >"$work/input.jsonl"
"$STREAMT_BINARY" replay "$work/plan.json" --input "$work/input.jsonl" >"$work/replayed.jsonl" 2>"$work/replay.err" ||
  { cat "$work/replay.err"; fail "replay exited $?"; }
replayed=$(python3 -c 'import json,sys; [print(json.loads(l)["payload"]) for l in open(sys.argv[1])]' "$work/replayed.jsonl")
check_eq "replay output" "$expected" "$replayed"

echo "== run"
for v in "${values[@]}"; do printf 'k\t%s\n' "$v"; done | produce "$src"
start_engine names "$work/plan.json" "$work/state"
wait_for_committed "$app" "$src" 0 "${#values[@]}" || { show_log names; fail "committed offsets"; }
check_eq "run output is the replay's" "$expected" "$(values_committed "$sink")"

# A malformed undeclared member is still an invalid record: ignore skips
# members, never bad JSON.
printf 'k\t%s\n' '{"user-id":"u5","order":50,"@timestamp":1,"Grüße":null,"added":01}' \
  '{"user-id":"u6","order":60,"@timestamp":2,"Grüße":null}' | produce "$src"
wait_engine names 120
check_eq "a malformed undeclared member stops the run with exit 65" 65 "$engine_rc"
grep -q 'malformed_json' "$work/names.log" || { show_log names; fail "the log does not name malformed_json"; }
check_eq "nothing after the invalid record is visible" "$expected" "$(values_committed "$sink")"
check_eq "committed offset stays before the invalid record" "${#values[@]}" "$(committed_offset "$app" "$src" 0)"
echo "$checks_passed passed, 0 failed"
