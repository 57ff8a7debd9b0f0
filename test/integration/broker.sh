#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# ctest fixture: starts one real Kafka 4.3.1 broker (tools/kafka-local) for
# the integration tests of a run, and stops it afterwards.
#   broker.sh start ENV_FILE   writes STREAMT_KAFKA_DIR=... STREAMT_BOOTSTRAP=...
#   broker.sh stop ENV_FILE    stops that broker and removes only its directory
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
action=$1 env_file=$2
case $action in
  start)
    if [[ -f $env_file ]]; then "$0" stop "$env_file" || true; fi
    "$root/tools/kafka-local" start > "$env_file.tmp"
    mv "$env_file.tmp" "$env_file"
    cat "$env_file"
    ;;
  stop)
    [[ -f $env_file ]] || exit 0
    # shellcheck disable=SC1090
    source "$env_file"
    "$root/tools/kafka-local" stop --dir "$STREAMT_KAFKA_DIR"
    rm -f "$env_file"
    ;;
  *) echo "usage: broker.sh start|stop ENV_FILE" >&2; exit 2 ;;
esac
