#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# `streamt compile --schema-registry` and `streamt check --schema-registry`
# against the real Apicurio Registry 3.0.9 of the `registry` fixture
# (issue 37). Versions are registered with curl, an independent client:
#   v1  id, amount, note (nullable, default null)
#   v2  v1 and a channel with a default (compatible)
#   v3  amount removed (the plan reads it, and the reader's has no default);
#       the subject's compatibility set to NONE first, so the registry takes it
#   v4  amount a union of long and string (resolves partly)
# and a subject of JSON Schema, a --registry-config file, and a URL without
# the API's path (78).
# The plan is compiled from the registry's latest (v1) and pins the subject
# and the version, not the registry's address; check passes with v1 and v2,
# and once v3 is registered exits 1 naming version 3 and the field amount.
# No broker: nothing here reads a topic.
source "$(dirname "$0")/lib.sh"

# A topic and subject of this run only: the fixture's registry outlives one run.
topic="orders-$(date +%s%N | tail -c 9)-$RANDOM"
subject="$topic-value"
v1='{"type":"record","name":"order","namespace":"shop","fields":[
  {"name":"id","type":"string"},{"name":"amount","type":"long"},
  {"name":"note","type":["null","string"],"default":null}]}'
v2='{"type":"record","name":"order","namespace":"shop","fields":[
  {"name":"id","type":"string"},{"name":"amount","type":"long"},
  {"name":"note","type":["null","string"],"default":null},
  {"name":"channel","type":"string","default":"web"}]}'
v3='{"type":"record","name":"order","namespace":"shop","fields":[
  {"name":"id","type":"string"},
  {"name":"note","type":["null","string"],"default":null}]}'
echo 'SELECT id, amount FROM orders WHERE amount >= 100' >"$work/q.sql"
compile=(compile --schema-registry "$url" --source-topic "$topic" --application-id orders-big
  --sink-topic big-orders "$work/q.sql")

# Nothing registered yet: the subject is named, and what to do.
streamt "${compile[@]}"
check_eq "compile from a subject that does not exist exits 1" 1 "$rc"
check_has "... naming the subject" "'$subject'" "$err"
check_has "... and --subject" "--subject" "$err"

id1=$(register "$subject" "$v1")
streamt "${compile[@]}" --output "$work/plan.json"
check_eq "compile from the registry exits 0" 0 "$rc"
plan=$(<"$work/plan.json")
pinned() { python3 -c 'import json, sys; a = json.load(open(sys.argv[1]))["schema"]["avro"]; print(a["subject"], a["version"], len(a["fingerprint"]))' "$1"; }
check_eq "the plan pins the subject, its version and the fingerprint" "$subject 1 16" "$(pinned "$work/plan.json")"
check_eq "the plan is version 2" 2 "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["plan_version"])' "$work/plan.json")"
port=${url#http://127.0.0.1:}
port=${port%%/*}
[[ $plan != *"127.0.0.1"* && $plan != *":$port"* && $plan != *ccompat* ]] ||
  fail "the plan holds the registry's address"
checks=$((checks + 1))
echo "ok: the plan holds no part of the registry's address"
streamt check "$work/plan.json"
check_eq "check accepts the plan (its digest covers the pinned schema)" 0 "$rc"

# The same version named explicitly gives the same plan, byte for byte.
streamt "${compile[@]}" --schema-version 1 --subject "$subject" --output "$work/plan-v1.json"
check_eq "compile --schema-version 1 exits 0" 0 "$rc"
check_eq "--schema-version 1 gives the same plan as the latest was" "$plan" "$(<"$work/plan-v1.json")"
streamt "${compile[@]}" --schema-version 9
check_eq "a version the subject lacks exits 1" 1 "$rc"
check_has "... naming the subject and the version" "'$subject' has no version 9" "$err"
check_has "... and the versions it has" "has the versions 1" "$err"

id2=$(register "$subject" "$v2")
[[ $id2 != "$id1" ]] || fail "v2 got v1's id"
streamt check "$work/plan.json" --schema-registry "$url"
check_eq "check with v1 and v2 registered exits 0" 0 "$rc"
check_has "... listing version 1 with its id" "version 1 (id $id1): resolves [the plan's version]" "$out"
check_has "... and version 2 with its id" "version 2 (id $id2): resolves" "$out"
check_has "... and saying every version resolves" "every registered version" "$out"

curl -fsS --max-time 30 -X PUT -H 'Content-Type: application/vnd.schemaregistry.v1+json' \
  --data '{"compatibility":"NONE"}' "$url/config/$subject" >/dev/null
id3=$(register "$subject" "$v3")
streamt check "$work/plan.json" --schema-registry "$url"
check_eq "check once v3 drops a field the plan reads exits 1" 1 "$rc"
check_has "... v1 still resolves" "version 1 (id $id1): resolves" "$out"
check_has "... v3 does not, naming the field and why" \
  "version 3 (id $id3): does not resolve: field \$.amount: the writer's record shop.order has no field 'amount'" "$out"
check_has "... and saying not every version resolves" "not every registered version (1 not, 0 partly)" "$out"
check_has "... and the plan's field amount in the verdict" "field \$.amount" "$out"

# v4 makes amount a union of long and string: the schemas resolve, but a
# record holding a string is invalid.
v4='{"type":"record","name":"order","namespace":"shop","fields":[
  {"name":"id","type":"string"},{"name":"amount","type":["long","string"]}]}'
id4=$(register "$subject" "$v4")
streamt check "$work/plan.json" --schema-registry "$url"
check_eq "check once v4 lets amount be a string exits 1" 1 "$rc"
check_has "... v4 resolves partly, saying why" \
  "version 4 (id $id4): resolves partly (a record holding such a value is invalid): the writer's string cannot be read as the reader's long at the field 'amount'" "$out"
check_has "... and counting both" "(1 not, 1 partly)" "$out"

# A plan compiled from v3 (amount gone) fails where the query reads amount.
streamt "${compile[@]}" --schema-version 3
check_eq "compile from v3 (without amount) exits 1" 1 "$rc"
check_has "... naming the column" "unknown column 'amount'" "$err"

# --registry-config is read: credentials (this registry asks for none, and
# takes them) and a request timeout; the password is printed nowhere.
printf '%s\n' basic.auth.credentials.source=USER_INFO basic.auth.user.info=alice:pa55word-x7 \
  streamt.registry.request.timeout.ms=20000 >"$work/registry.properties"
streamt check "$work/plan.json" --schema-registry "$url" --registry-config "$work/registry.properties"
check_eq "check with --registry-config reaches the registry (exit 1 for v3, v4)" 1 "$rc"
check_has "... and lists the versions" "version 4 (id $id4)" "$out"
[[ "$out$err" != *pa55word-x7* ]] || fail "the password is in check's output"
checks=$((checks + 1))
echo "ok: ... and prints no password"

# A subject whose schema is JSON Schema, not Avro: compile maps it to a
# json-registry source, refuses a property it cannot map at its path, and
# check says of its version that it is no Avro.
json_subject="$topic-json-value"
register "$json_subject" '{"type": "object", "required": ["id", "amount"], "properties": {"id": {"type": "string"},
  "amount": {"type": "integer"}, "at": {"type": "string", "format": "date-time"}}}' JSON >/dev/null
streamt "${compile[@]}" --subject "$json_subject"
check_eq "compile from a subject of JSON Schema exits 0" 0 "$rc"
check_has "... with a json-registry source" '"value_format": "json-registry"' "$out"
check_eq "... its properties as columns (not required: nullable; date-time: TIMESTAMP)" \
  "id:STRING:False amount:BIGINT:False at:TIMESTAMP:True" \
  "$(python3 -c 'import json, sys; print(" ".join("%s:%s:%s" % (c["name"], c["type"], c["nullable"])
    for c in json.load(sys.stdin)["schema"]["columns"]))' <<<"$out")"
register "$json_subject" '{"type": "object", "properties": {"id": {"type": "string"},
  "amount": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}}' JSON >/dev/null
streamt "${compile[@]}" --subject "$json_subject"
check_eq "compile from a JSON Schema it cannot map exits 1" 1 "$rc"
check_has "... naming the property and what is not supported" '$.properties.amount.oneOf: error: is not supported' "$err"
streamt check "$work/plan.json" --schema-registry "$url" --subject "$json_subject"
check_eq "check against a subject of JSON Schema exits 1" 1 "$rc"
check_has "... saying so of its version" "): does not resolve: the schema is JSON, not Avro" "$out"

# The URL without the compatibility API's path: a 404 without a registry
# code is the settings' fault.
streamt check "$work/plan.json" --schema-registry "${url%%/apis/*}"
check_eq "check against the registry's root, not its API, exits 78" 78 "$rc"
check_has "... pointing at the path prefix" "/apis/ccompat/v7" "$err"

echo "registry_check_against_apicurio: $checks checks passed"
