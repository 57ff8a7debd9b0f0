#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# The installed .deb against a replicated cluster the way managed clusters
# are reached: SASL/SCRAM-SHA-512 over TLS. Starts a 3-node cluster
# (tools/kafka-local start --brokers 3: replication factor 3,
# min.insync.replicas 2) with a SASL_SSL listener per node and one SCRAM
# user, then runs the acceptance sequence of contract §7
# (test/integration/acceptance.sh) with /usr/bin/streamt logging in as that
# user, the password read through ${file:PATH}. The checks read through the
# PLAINTEXT listener with the Java client, independent of the engine.
#
# Also checked: the engine names the librdkafka the package links (2.15.1,
# static: the binary needs no librdkafka1), the acceptance topics have 3
# replicas; a second user logs in with SASL/PLAIN over TLS from a Java
# client's properties file (sasl.jaas.config) and its output appears once;
# neither password appears in a log or state file.
#
#   test/package/deb_cluster_scram.sh      after the .deb is installed
#                                          (tools/demo --from-package); CI runs it
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
streamt=${STREAMT_PACKAGED_BINARY:-/usr/bin/streamt}
[[ -x $streamt ]] || { echo "deb_cluster_scram: $streamt is not installed (tools/demo --from-package installs it)" >&2; exit 1; }
dpkg-query -S "$streamt" >/dev/null 2>&1 || { echo "deb_cluster_scram: $streamt belongs to no installed package" >&2; exit 1; }
if ldd "$streamt" | grep -q librdkafka; then
  echo "FAIL: the packaged binary links a shared librdkafka: $(ldd "$streamt" | grep librdkafka)" >&2
  exit 1
fi
depends=$(dpkg-query -W -f '${Depends}' "$(dpkg-query -S "$streamt" | cut -d: -f1)")
if grep -q librdkafka <<<"$depends"; then
  echo "FAIL: the package depends on a librdkafka package: $depends" >&2
  exit 1
fi
echo "ok: the packaged binary links no shared librdkafka, and the package depends on none ($depends)"

sec=$(mktemp -d "${TMPDIR:-/tmp}/streamt-deb-scram-XXXXXX")
cluster_dir=""
finish() {
  [[ -z $cluster_dir ]] || "$root/tools/kafka-local" stop --dir "$cluster_dir" >/dev/null 2>&1 || true
  rm -rf "$sec"
}
trap finish EXIT

password="deb-scram-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
plain_password="deb-plain-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
tls=$sec/tls
mkdir -p "$tls"
source "$root/test/integration/tls_certs.sh"
make_ca_and_broker_cert "$tls" 2>"$sec/openssl.log" || { cat "$sec/openssl.log" >&2; exit 1; }

echo "== a 3-node cluster with SASL_SSL listeners, a SCRAM user and a PLAIN user"
"$root/tools/kafka-local" start --brokers 3 --dir "$sec/cluster" --tls-dir "$tls" --scram-user "alice:$password" \
  --plain-user "paul:$plain_password" >"$sec/cluster.env"
cluster_dir=$sec/cluster
# shellcheck disable=SC1091
source "$sec/cluster.env"
: "${STREAMT_BOOTSTRAP_SASL:?kafka-local printed no SASL listener}"

printf '%s' "$password" >"$sec/scram-password"
chmod 600 "$sec/scram-password"
cat >"$sec/client.properties" <<EOF
# what a managed cluster asks for: SCRAM-SHA-512 over TLS, the CA's certificate
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.username=alice
sasl.password=\${file:$sec/scram-password}
ssl.ca.location=$tls/ca.pem
ssl.endpoint.identification.algorithm=https
EOF

evidence=${STREAMT_EVIDENCE_DIR:-$root/build/evidence}/deb-cluster-scram
mkdir -p "$evidence"
echo "== the acceptance sequence with $streamt over SASL_SSL (SCRAM-SHA-512)"
log=$sec/acceptance.log
if ! STREAMT_BINARY=$streamt STREAMT_BROKER_ENV=$sec/cluster.env STREAMT_EVIDENCE_DIR=$evidence \
  STREAMT_ENGINE_BOOTSTRAP=$STREAMT_BOOTSTRAP_SASL STREAMT_ENGINE_CONFIG=$sec/client.properties \
  STREAMT_KEEP_WORK=$sec/work bash "$root/test/integration/acceptance.sh" >"$log" 2>&1; then
  cat "$log" >&2
  echo "FAIL: the acceptance sequence failed on the cluster over SCRAM-SHA-512/TLS" >&2
  exit 1
fi
grep '^ok:' "$log"
librdkafka=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["librdkafka"])' "$evidence/acceptance.json")
[[ $librdkafka == 2.15.1 ]] || { echo "FAIL: the engine reports librdkafka '$librdkafka', expected 2.15.1" >&2; exit 1; }
echo "ok: the packaged engine runs librdkafka $librdkafka"

# The engine did go through the secured listener with SCRAM-SHA-512 (its
# settings line), and never through the PLAINTEXT one the checks use.
grep -q 'security.protocol=SASL_SSL' "$sec/work/phase1.log" && grep -q 'sasl.mechanism=SCRAM-SHA-512' "$sec/work/phase1.log" ||
  { echo "FAIL: phase 1's log shows no SASL_SSL/SCRAM-SHA-512 client settings" >&2; exit 1; }
if grep -qF -- "$STREAMT_BOOTSTRAP " "$sec/work/phase1.log"; then
  echo "FAIL: the engine was given the PLAINTEXT bootstrap list" >&2
  exit 1
fi
echo "ok: the engine logged in over SASL_SSL with SCRAM-SHA-512"

# Every topic the sequence made, and the transaction and offsets logs it
# wrote to, have 3 replicas.
topics=$("$root/tools/kafka-local" topic list --dir "$cluster_dir" | grep -E '^(orders|big-orders)-' || true)
[[ $(wc -l <<<"$topics") -eq 2 ]] || { echo "FAIL: expected the 2 acceptance topics, found: $topics" >&2; exit 1; }
for t in $topics __transaction_state __consumer_offsets; do
  "$root/tools/kafka-local" topic describe --dir "$cluster_dir" "$t" | grep -q "ReplicationFactor: 3" ||
    { echo "FAIL: $t does not have 3 replicas" >&2; exit 1; }
done
echo "ok: the acceptance topics, __transaction_state and __consumer_offsets have 3 replicas each"

echo "== SASL/PLAIN over TLS, settings from a Java client's properties file (sasl.jaas.config)"
# What a team moving off a Java application already has: the JAAS line is
# translated into librdkafka's sasl.username and sasl.password.
cat >"$sec/java-client.properties" <<EOF
security.protocol=SASL_SSL
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\
  username="paul" password="$plain_password";
ssl.ca.location=$tls/ca.pem
EOF
chmod 600 "$sec/java-client.properties"
export STREAMT_BINARY=$streamt STREAMT_BROKER_ENV=$sec/cluster.env STREAMT_KEEP_WORK=$sec/plain-work
source "$root/test/integration/lib.sh"
trap 'cleanup; finish' EXIT
src=plain-in-$RANDOM sink=plain-out-$RANDOM app=plain-$RANDOM
create_topic "$src" 3
create_topic "$sink" 3
orders_schema "$src" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders WHERE amount >= 50" "$work/plain.plan.json"
printf '%s\t%s\n' a '{"id":"a","amount":120}' b '{"id":"b","amount":20}' d '{"id":"d","amount":90}' | produce "$src"
STREAMT_ENGINE_BOOTSTRAP=$STREAMT_BOOTSTRAP_SASL start_engine plain "$work/plain.plan.json" "$work/state-plain" \
  --config "$sec/java-client.properties"
deadline=$((SECONDS + 90))
until [[ $(values_committed "$sink" | sort | paste -sd' ') == '{"id":"a","amount":120} {"id":"d","amount":90}' ]]; do
  kill -0 "${engine_pid[plain]}" 2>/dev/null || { show_log plain; fail "PLAIN: the engine exited before its output appeared"; }
  ((SECONDS < deadline)) || { show_log plain; fail "PLAIN: the output did not appear within 90 s"; }
  sleep 0.5
done
stop_engine plain
check_eq "PLAIN: exits 0 on SIGTERM" 0 "$engine_rc"
grep -q 'security.protocol=SASL_SSL' "$work/plain.log" && grep -q 'sasl.mechanism=PLAIN' "$work/plain.log" &&
  grep -q 'sasl.username=paul' "$work/plain.log" ||
  { show_log plain; fail "PLAIN: the settings line shows no SASL_SSL/PLAIN login as paul"; }
echo "ok: the packaged engine logged in with SASL/PLAIN over TLS from sasl.jaas.config and wrote the output once"

# The passwords never left the process: not in the engine's logs (each
# phase's), the test's output, or a state directory.
for secret in "$password" "$plain_password"; do
  if grep -rqF -- "$secret" "$sec/work" "$sec/plain-work" "$log"; then
    echo "FAIL: a password appears in: $(grep -rlF -- "$secret" "$sec/work" "$sec/plain-work" "$log" | paste -sd' ')" >&2
    exit 1
  fi
done
echo "ok: neither password is in a log or a state file"
echo "deb_cluster_scram: passed"
