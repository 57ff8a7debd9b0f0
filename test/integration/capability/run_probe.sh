#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# ctest "capability": runs tools/kafka/probe/txn_probe (built from that C
# source against the same librdkafka the engine links) on the fixture's
# broker. It checks idempotent produce, init_transactions, begin, produce,
# send_offsets_to_transaction, commit, abort, that read_committed hides the
# aborted records, and fencing. Registered to run before the integration
# scripts: if it fails, the engine cannot be exactly-once with this
# librdkafka and broker, and the FAIL lines below say which call refused.
#   run_probe.sh PROBE_BINARY BROKER_ENV_FILE
set -euo pipefail
probe=$1 env_file=$2
# shellcheck disable=SC1090
source "$env_file"
: "${STREAMT_BOOTSTRAP:?$env_file sets no STREAMT_BOOTSTRAP}"
if "$probe" "$STREAMT_BOOTSTRAP"; then
  exit 0
else
  rc=$?
fi
echo "capability: the librdkafka linked here cannot run idempotent or transactional" \
  "produce against the broker at $STREAMT_BOOTSTRAP (exit $rc; the FAIL lines above give" \
  "librdkafka's error for each refused call); the engine's exactly-once tests cannot pass" >&2
exit "$rc"
