#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# What the registry CLI tests share (sourced): the registry of the
# `registry` fixture ($url), a work directory ($work), checks that count
# themselves ($checks), the binary run with its outputs kept, and a schema
# registered with curl, a client independent of ours.
set -euo pipefail
: "${STREAMT_BINARY:?set by ctest}"
: "${STREAMT_REGISTRY_ENV:?set by ctest}"
# shellcheck disable=SC1090
source "$STREAMT_REGISTRY_ENV"
url=$STREAMT_REGISTRY_URL
work=$(mktemp -d "${TMPDIR:-/tmp}/streamt-registry-cli-XXXXXX")
trap 'rm -rf "$work"' EXIT

checks=0
fail() { echo "FAIL: $*" >&2; exit 1; }
check_eq() {  # check_eq WHAT EXPECTED ACTUAL
  [[ "$2" == "$3" ]] || { printf 'FAIL: %s\n  expected: %s\n  actual:   %s\n' "$1" "$2" "$3" >&2; exit 1; }
  checks=$((checks + 1))
  echo "ok: $1"
}
check_has() {  # check_has WHAT NEEDLE TEXT
  [[ "$3" == *"$2"* ]] || { printf 'FAIL: %s\n  wanted: %s\n  in:     %s\n' "$1" "$2" "$3" >&2; exit 1; }
  checks=$((checks + 1))
  echo "ok: $1"
}
# streamt ARGS...: runs the binary; sets rc, out and err (for the test that sources this).
# shellcheck disable=SC2034
streamt() {
  set +e
  "$STREAMT_BINARY" "$@" >"$work/out" 2>"$work/err"
  rc=$?
  set -e
  out=$(<"$work/out") err=$(<"$work/err")
}
# register SUBJECT SCHEMA_JSON [TYPE]: registers a version (of schemaType
# TYPE, AVRO by default); prints its id.
register() {
  local body
  body=$(python3 -c 'import json, sys; print(json.dumps({"schema": sys.argv[1], "schemaType": sys.argv[2]}))' \
    "$2" "${3:-AVRO}")
  curl -fsS --max-time 30 -X POST -H 'Content-Type: application/vnd.schemaregistry.v1+json' \
    --data "$body" "$url/subjects/$1/versions" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'
}

