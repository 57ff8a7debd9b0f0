#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# TLS and SASL/SCRAM against a real Kafka 4.3.1 broker, and no secret in any
# output (issue 4; contract §6 "Secrets never appear in logs").
#
# Runs its own broker (tools/kafka-local start --tls-dir --scram-user), not
# the fixture's: the listeners and users are part of what is tested. The CA,
# the broker's certificate and the client's certificate (its key encrypted
# with a password) are made here with openssl; the SCRAM user is created by
# Kafka's own StorageTool. Seeding and reading go through the PLAINTEXT
# listener with the Java client, independent of the librdkafka under test.
#
#   mTLS (SSL listener, client certificate, https endpoint check), --config
#   SASL_SSL SCRAM-SHA-256 with -X, SCRAM-SHA-512 with --config
#     each: exact read_committed output, committed offset 6, exit 0 on SIGTERM
#   wrong SCRAM password -> exit 69, librdkafka's authentication error logged
#   a CA that did not sign the broker -> exit 69, certificate verify failure logged
#   secrets given inline, through ${file:PATH} (SCRAM-SHA-512's password) and
#   through ${env:NAME} (the untrusted-CA run's key password) alike:
#   every secret (SCRAM password, wrong password, key password, key material)
#   is absent from every engine log (stdout and stderr) and every state dir,
#   with the engine at --log-level trace and librdkafka's debug contexts on.
#
# SCRAM against Kafka 4.x needs librdkafka 2.12.0 or newer (measured: 2.0.2
# fails with "invalid credentials" where the Java client succeeds; the
# default build links 2.15.1). With an older librdkafka (the floor build,
# Debian's 2.0.2) the SCRAM runs are skipped with that reason; TLS and the
# negative checks still run. CI runs this test in both builds (.ci/run).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${STREAMT_BINARY:?set by ctest}"
source "$root/test/integration/own_broker.sh"
own_broker_init sec
sec=$own
# Secrets unique to this run, so a match can only be a leak.
scram_pw="scrampw-$(rand)"
wrong_pw="wrongpw-$(rand)"
key_pw="keypw-$(rand)"

echo "== certificates (openssl)"
tls=$sec/tls
mkdir -p "$tls"
source "$root/test/integration/tls_certs.sh"
(
  make_ca_and_broker_cert "$tls" || exit 1
  cd "$tls"
  # The client's key is encrypted: ssl.key.password is a secret to keep out of logs.
  openssl req -newkey rsa:2048 -keyout client.key -passout "pass:$key_pw" -out client.csr -subj "/CN=streamt-client"
  printf 'extendedKeyUsage=clientAuth\n' >client.ext
  openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 2 -extfile client.ext
  # A CA that signed nothing here: a client trusting only it must refuse the broker.
  openssl req -x509 -newkey rsa:2048 -nodes -keyout other-ca.key -out other-ca.pem -days 2 -subj "/CN=other CA"
) 2>"$sec/openssl.log" || { cat "$sec/openssl.log" >&2; exit 1; }
# A line of the encrypted key's base64: key material must not be logged either.
key_material=$(sed -n 2p "$tls/client.key")

echo "== broker with SSL and SASL_SSL listeners"
start_own_broker --tls-dir "$tls" --scram-user "alice:$scram_pw"
source "$root/test/integration/lib.sh"
trap 'cleanup; stop_own_broker' EXIT
: "${STREAMT_BOOTSTRAP_SSL:?} ${STREAMT_BOOTSTRAP_SASL:?}"

seed_and_plan() {  # seed_and_plan NAME: six_orders (lib.sh) on fresh names; sets src sink app plan
  src=$(unique "sec-$1-in") sink=$(unique "sec-$1-out") app=$(unique "sec-$1")
  six_orders "$1" "$src" "$sink" "$app"
}
# run_on NAME BOOTSTRAP ARGS...: streamt run on another listener, most verbose.
run_on() {
  local name=$1 bootstrap=$2
  shift 2
  "$STREAMT_BINARY" run "$plan" --bootstrap-servers "$bootstrap" --state-dir "$work/state-$name" \
    --log-level trace "$@" >"$work/$name.log" 2>&1 &
  engine_pid[$name]=$!
  engine_pids+=("$!")
}
# exactly_once NAME: the engine's output and offsets are exactly right, and
# it stops cleanly.
exactly_once() {
  wait_for_committed "$app" "$src" 0 6 || { show_log "$1"; fail "$1: committed offset"; }
  stop_engine "$1"
  check_eq "$1: exits 0 on SIGTERM" 0 "$engine_rc"
  check_eq "$1: read_committed output" \
    '{"id":"a","amount":120} {"id":"d","amount":90} {"id":"e","amount":110}' \
    "$(values_committed "$sink" | paste -sd' ')"
  check_eq "$1: committed offset" 6 "$(committed_offset "$app" "$src" 0)"
}

echo "== mTLS on the SSL listener, settings from --config"
seed_and_plan tls
cat >"$work/tls.properties" <<EOF
# client TLS: the test CA, a client certificate and its encrypted key
security.protocol=SSL
ssl.ca.location=$tls/ca.pem
ssl.certificate.location=$tls/client.pem
ssl.key.location=$tls/client.key
ssl.key.password=$key_pw
ssl.endpoint.identification.algorithm=https
EOF
run_on tls "$STREAMT_BOOTSTRAP_SSL" --config "$work/tls.properties" -X debug=security,broker,protocol
exactly_once tls
grep -q 'ssl.key.password=\[redacted\]' "$work/tls.log" || fail "tls: the client settings line does not show ssl.key.password redacted"
rdkafka=$(sed -n 's/.*, librdkafka \([0-9][0-9.]*\),.*/\1/p' "$work/tls.log" | head -n 1)
[[ -n $rdkafka ]] || fail "the engine's start line does not name its librdkafka version"
echo "engine links librdkafka $rdkafka"

version_at_least() { [[ $(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1) == "$2" ]]; }
if version_at_least "$rdkafka" 2.12.0; then
  echo "== SASL_SSL SCRAM-SHA-256, settings with -X"
  seed_and_plan scram256
  run_on scram256 "$STREAMT_BOOTSTRAP_SASL" -X security.protocol=SASL_SSL -X "ssl.ca.location=$tls/ca.pem" \
    -X sasl.mechanisms=SCRAM-SHA-256 -X sasl.username=alice -X "sasl.password=$scram_pw" \
    -X debug=security,broker,protocol
  exactly_once scram256
  grep -q 'sasl.password=\[redacted\]' "$work/scram256.log" || fail "scram256: sasl.password not shown redacted"

  echo "== SASL_SSL SCRAM-SHA-512, settings from --config, every librdkafka debug context"
  seed_and_plan scram512
  cat >"$work/scram512.properties" <<EOF
security.protocol=SASL_SSL
ssl.ca.location=$tls/ca.pem
sasl.mechanisms=SCRAM-SHA-512
sasl.username=alice
sasl.password=\${file:$work/scram.password}
debug=all
EOF
  # The password reaches the engine through a ${file:} reference: the
  # substituted value must be as absent from the logs as an inline one.
  (umask 077 && printf '%s\n' "$scram_pw" >"$work/scram.password")
  run_on scram512 "$STREAMT_BOOTSTRAP_SASL" --config "$work/scram512.properties"
  exactly_once scram512
  grep -q 'SCRAM-SHA-512' "$work/scram512.log" || fail "scram512: librdkafka's debug lines do not show the SASL exchange"
  grep -q 'sasl.password=\[redacted\]' "$work/scram512.log" || fail "scram512: sasl.password from \${file:} not shown redacted"
else
  echo "SKIP: SASL/SCRAM runs: librdkafka $rdkafka fails SCRAM against Kafka 4.x (measured with 2.0.2);" \
    "it needs 2.12.0 or newer (the default build, STREAMT_RDKAFKA=bundled, links 2.15.1)"
fi

echo "== wrong SCRAM password"
seed_and_plan badpw
run_on badpw "$STREAMT_BOOTSTRAP_SASL" --connect-timeout-ms 10000 -X security.protocol=SASL_SSL \
  -X "ssl.ca.location=$tls/ca.pem" -X sasl.mechanisms=SCRAM-SHA-256 -X sasl.username=alice \
  -X "sasl.password=$wrong_pw" -X debug=security,broker,protocol
wait_engine badpw 90
check_eq "wrong password: exit code (69, unavailable)" 69 "$engine_rc"
grep -q 'SASL authentication error: Authentication failed' "$work/badpw.log" ||
  { show_log badpw; fail "wrong password: librdkafka's authentication error is not in the log"; }
echo "  librdkafka: $(grep -m 1 'SASL authentication error' "$work/badpw.log")"
# The engine's closing error (librdkafka's debug lines of the clients'
# destruction may follow it).
grep -q 'authentication' <(grep ' error engine ' "$work/badpw.log" | tail -n 1) ||
  { show_log badpw; fail "wrong password: the final error does not name authentication as a cause"; }
check_eq "wrong password: nothing committed" none "$(committed_offset "$app" "$src" 0)"
echo "  engine: $(grep ' error engine ' "$work/badpw.log" | tail -n 1)"

echo "== broker certificate from an untrusted CA, the key password from \${env:}"
seed_and_plan badca
export STREAMT_SEC_KEY_PW=$key_pw
run_on badca "$STREAMT_BOOTSTRAP_SSL" --connect-timeout-ms 10000 -X security.protocol=SSL \
  -X "ssl.ca.location=$tls/other-ca.pem" -X "ssl.certificate.location=$tls/client.pem" \
  -X "ssl.key.location=$tls/client.key" -X 'ssl.key.password=${env:STREAMT_SEC_KEY_PW}' \
  -X debug=security,broker,protocol
wait_engine badca 90
check_eq "untrusted CA: exit code (69, unavailable)" 69 "$engine_rc"
grep -q 'certificate verify failed' "$work/badca.log" ||
  { show_log badca; fail "untrusted CA: the certificate verification failure is not in the log"; }
check_eq "untrusted CA: nothing committed" none "$(committed_offset "$app" "$src" 0)"
grep -q 'ssl.key.password=\[redacted\]' "$work/badca.log" ||
  fail "untrusted CA: ssl.key.password from \${env:} not shown redacted"
grep -q 'warning: -X' "$work/badca.log" && fail "untrusted CA: a \${env:} reference was warned about as an inline secret"
echo "  librdkafka: $(grep -m 1 'certificate verify failed' "$work/badca.log")"

echo "== no secret in any log or state directory"
lines=$(cat "$work"/*.log | wc -l)
((lines > 200)) || fail "only $lines log lines: the logs are not verbose enough for this check to mean anything"
for secret in "$scram_pw" "$wrong_pw" "$key_pw" "$key_material"; do
  no_secret_in "$secret" "$work"/*.log "$work"/state-*
  checks_passed=$((checks_passed + 1))
done
echo "ok: no secret in $lines log lines and $(find "$work"/state-* -type f | wc -l) state files"
echo "security: $checks_passed checks passed (librdkafka $rdkafka)"
