#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# ctest fixture: starts one real Apicurio Registry 3.0.9
# (tools/registry-local) for the tests of a run that need a schema registry,
# and stops it afterwards.
#   schema_registry.sh start ENV_FILE   writes STREAMT_REGISTRY_DIR=... STREAMT_REGISTRY_URL=...
#   schema_registry.sh stop ENV_FILE    stops that registry and removes only its directory
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
action=$1 env_file=$2
case $action in
  start)
    if [[ -f $env_file ]]; then "$0" stop "$env_file" || true; fi
    "$root/tools/registry-local" start > "$env_file.tmp"
    mv "$env_file.tmp" "$env_file"
    cat "$env_file"
    ;;
  stop)
    [[ -f $env_file ]] || exit 0
    # shellcheck disable=SC1090
    source "$env_file"
    "$root/tools/registry-local" stop --dir "$STREAMT_REGISTRY_DIR"
    rm -f "$env_file"
    ;;
  *) echo "usage: schema_registry.sh start|stop ENV_FILE" >&2; exit 2 ;;
esac
