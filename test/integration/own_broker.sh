# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Sourced by the tests whose broker is part of what they test (its
# listeners, users or authorizer), which start one of their own instead of
# using the fixture's. Source it, then lib.sh once the broker is up.
#
#   own_broker_init PREFIX     a scratch directory $own, removed at exit
#                              with the broker (trap; re-set it as
#                              'cleanup; stop_own_broker' after lib.sh)
#   start_own_broker ARGS...   tools/kafka-local start ARGS; its settings in
#                              $own/broker.env, exported as STREAMT_BROKER_ENV
#   rand                       24 hex digits: secrets unique to a run, so a
#                              match in a log can only be a leak
#   no_secret_in SECRET PATH...  fails if SECRET is in any PATH (recursive)

own=""
broker_dir=""
stop_own_broker() {
  [[ -z $broker_dir ]] || "$root/tools/kafka-local" stop --dir "$broker_dir" || true
  [[ -z $own ]] || rm -rf "$own"
}
own_broker_init() {
  own=$(mktemp -d "${TMPDIR:-/tmp}/streamt-$1-XXXXXX")
  trap stop_own_broker EXIT
}
start_own_broker() {
  "$root/tools/kafka-local" start "$@" >"$own/broker.env"
  # shellcheck disable=SC1091
  broker_dir=$(source "$own/broker.env" && echo "$STREAMT_KAFKA_DIR")
  export STREAMT_BROKER_ENV=$own/broker.env
}
rand() { head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
no_secret_in() {
  local secret=$1 rc=0 leaks
  shift
  leaks=$(grep -rlF -- "$secret" "$@") || rc=$?
  ((rc != 0)) || fail "a secret (${secret:0:8}...) appears in: $leaks"
  ((rc == 1)) || fail "searching for secrets failed (grep exit $rc)"
}
