#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Secrets never leave the process (contract §8), whatever the user mistypes:
# every path that prints settings is run with one secret value, and all of
# its output (stderr, text and JSON logs with librdkafka's debug lines,
# /metrics, the state directory) is searched for it. The paths: a malformed
# -X (no '=', a ':' instead), a misspelled key, a key in the wrong case, an
# engine-owned key, an inline secret, a Java client's sasl.jaas.config (good
# and malformed), and a whole run with debug logging and the metrics
# endpoint.
source "$(dirname "$0")/lib.sh"

src=$(unique leak-in) sink=$(unique leak-out) app=$(unique secret-leaks)
create_topic "$src" 1
create_topic "$sink" 1
orders_schema "$src" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders" "$work/plan.json"
secret="hunter2-$RANDOM$RANDOM-s3cret"

# no_secret NAME FILE...: the secret appears in none of the files.
no_secret() {
  local name=$1
  shift
  if grep -rlF -- "$secret" "$@" >/dev/null 2>&1; then
    grep -rnF -- "$secret" "$@" | head -n 5
    fail "$name: the secret reached $(grep -rlF -- "$secret" "$@" | paste -sd' ')"
  fi
  checks_passed=$((checks_passed + 1))
  echo "ok: $name: no secret in the output"
}

# run_case NAME EXPECTED_RC ARGS...: a short run that must end by itself.
run_case() {
  local name=$1 expected=$2 rc=0
  shift 2
  timeout -k 5 60 "$STREAMT_BINARY" run "$work/plan.json" --bootstrap-servers "$STREAMT_BOOTSTRAP" \
    --state-dir "$work/state-$name" "$@" >"$work/$name.log" 2>&1 || rc=$?
  check_eq "$name: exit code" "$expected" "$rc"
  no_secret "$name" "$work/$name.log"
  [[ ! -d $work/state-$name ]] || no_secret "$name (state directory)" "$work/state-$name"
}

echo "== usage errors and refused settings"
run_case malformed-space 2 -X "sasl.password $secret"
run_case malformed-colon 2 -X "sasl.password:$secret"
run_case no-key 2 -X "=$secret"
run_case misspelled 78 -X "sasl.pasword=$secret"
run_case wrong-case 78 -X "SASL.PASSWORD=$secret"
run_case engine-owned 78 -X "isolation.level=$secret"
grep -q "sasl.pasword=\[withheld" "$work/misspelled.log" || { show_log misspelled; fail "misspelled: the key is not named"; }

echo "== a Java client's properties file"
cat >"$work/bad-jaas.properties" <<PROPS
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="$secret
PROPS
run_case jaas-malformed 78 --config "$work/bad-jaas.properties"
grep -q "no closing quote" "$work/jaas-malformed.log" || { show_log jaas-malformed; fail "jaas-malformed: no reason"; }
cat >"$work/other-jaas.properties" <<PROPS
sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientSecret="$secret";
PROPS
run_case jaas-oauth 78 --config "$work/other-jaas.properties"
grep -q "sasl.oauthbearer.method=oidc" "$work/jaas-oauth.log" || { show_log jaas-oauth; fail "jaas-oauth: no advice"; }

echo "== a whole run: debug logging, JSON logs, /metrics"
# PLAINTEXT ignores the SASL login, so the run works and every setting is
# printed the way a SASL cluster's run would print it.
cat >"$work/good-jaas.properties" <<PROPS
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="$secret";
PROPS
for format in text json; do
  name=run-$format
  start_engine "$name" "$work/plan.json" "$work/state-$name" --config "$work/good-jaas.properties" \
    -X "ssl.key.password=$secret" -X "debug=conf,security,broker" --log-level debug --log-format "$format" \
    --metrics-address 127.0.0.1:0
  printf 'k-%s\t{"id":"%s","amount":1}\n' "$format" "$format" | produce "$src"
  port=
  for ((i = 0; i < 600; i++)); do
    port=$(metrics_port "$name")
    [[ -n $port ]] && grep -q "committed transaction 1" "$work/$name.log" && break
    sleep 0.1
  done
  grep -q "committed transaction 1" "$work/$name.log" || { show_log "$name"; fail "$name: nothing committed"; }
  curl -s --max-time 10 "http://127.0.0.1:$port/metrics" >"$work/$name.metrics"
  [[ -s $work/$name.metrics ]] || fail "$name: /metrics answered nothing"
  stop_engine "$name"
  check_eq "$name: exit 0" 0 "$engine_rc"
  grep -qE 'sasl.password.{0,4}\[redacted\]|sasl\.password=\[redacted\]' "$work/$name.log" ||
    { show_log "$name"; fail "$name: the translated password is not shown redacted"; }
  no_secret "$name" "$work/$name.log" "$work/$name.metrics" "$work/state-$name"
done
echo "secret_leaks: $checks_passed checks passed"
