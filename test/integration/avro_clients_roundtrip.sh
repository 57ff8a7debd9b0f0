#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# The independent Avro clients round-trip through the real registry and
# broker, and the registry keeps its ids through kill -9: the ground later
# registry tests (issue 37) stand on. confluent-kafka's AvroSerializer writes
# records of a schema with a decimal(10,2), a timestamp-millis, a nullable
# string and an int; its AvroDeserializer reads them back equal; the bytes
# are checked by hand (magic byte, the subject's id from the registry's
# HTTP API, a body fastavro decodes); a compatible second version gets a new
# id and both resolve; then the registry is SIGKILLed, restarted on its port
# and data, and every id still resolves. The Python side is
# avro_clients_roundtrip.py; its clients come from tools/pyclients.
source "$(dirname "$0")/lib.sh"
: "${STREAMT_REGISTRY_ENV:?set by ctest}"
# shellcheck disable=SC1090
source "$STREAMT_REGISTRY_ENV"
export STREAMT_REGISTRY_DIR STREAMT_REGISTRY_URL
registry_local="$root/tools/registry-local"
script="$(dirname "$0")/avro_clients_roundtrip.py"

python=$("$root/tools/pyclients")
topic=$(unique avro-roundtrip)
create_topic "$topic" 1
"$python" "$script" write-read "$STREAMT_BOOTSTRAP" "$STREAMT_REGISTRY_URL" "$topic" "$work/ids.json"

# The registry dies without a chance to flush anything, and comes back where
# its clients expect it.
pid_before=$(<"$STREAMT_REGISTRY_DIR/registry.pid")
"$registry_local" kill
if curl -fsS --max-time 5 -o /dev/null "$STREAMT_REGISTRY_URL/subjects" 2>/dev/null; then
  fail "the registry still answers after kill"
fi
check_eq "the killed registry's process is gone" gone "$(kill -0 "$pid_before" 2>/dev/null && echo alive || echo gone)"
"$registry_local" restart
check_eq "the restarted registry is a new process" yes \
  "$([[ $(<"$STREAMT_REGISTRY_DIR/registry.pid") != "$pid_before" ]] && echo yes || echo no)"
check_eq "the restarted registry reports version 3.0.9" 3.0.9 "$("$registry_local" version)"
"$python" "$script" after-restart "$STREAMT_REGISTRY_URL" "$topic" "$work/ids.json"
echo "avro_clients_roundtrip: all checks passed"
