#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# contract §5, operations.md (state directory): `streamt run` writes the state
# directory only once Kafka has admitted the start (brokers answered, topics
# exist, transactions initialised). A start refused before that (a missing
# topic, unreachable brokers, a setting librdkafka refuses) leaves an existing
# directory byte for byte as it was and leaves no new one behind, so the
# corrected start is a first start again (not exit 78 for a "changed"
# identity). A damaged identity.json is refused with exit 73, a
# message naming the file, what is wrong and what to do, never its content,
# and is left as it was.
source "$(dirname "$0")/lib.sh"

src=$(unique adm-in) sink=$(unique adm-out) doomed=$(unique adm-doomed) app=$(unique adm)
misspelled=$(unique adm-no-such-sink)
create_topic "$src" 1
create_topic "$sink" 1
create_topic "$doomed" 1
printf '%s\t%s\n' a '{"id":"a","amount":120}' | produce "$src"
orders_schema "$src" "$work/orders.schema.json"
compile "$work/orders.schema.json" "$app" "$sink" "SELECT id, amount FROM orders" "$work/good.json"
compile "$work/orders.schema.json" "$app" "$misspelled" "SELECT id, amount FROM orders" "$work/misspelled.json"
compile "$work/orders.schema.json" "$(unique adm-doomed)" "$doomed" "SELECT id, amount FROM orders" "$work/doomed.json"

# snapshot DIR: every entry's path, type, mode and size, and every file's
# sha256, or "absent".
snapshot() {
  [[ -e $1 ]] || { echo absent; return; }
  (cd "$1" && find . -printf '%p %y %m %s\n' | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}
# unchanged_by NAME DIR EXPECTED_RC MESSAGE PLAN [ARGS...]: `refused`, and DIR
# is byte for byte what it was before.
unchanged_by() {
  local name=$1 dir=$2 before
  shift 2
  before=$(snapshot "$dir")
  refused "$name" "$@" --state-dir "$dir"
  check_eq "$name: the state directory is unchanged" "$before" "$(snapshot "$dir")"
}
# no_identity_in NAME DIR: a failed first start into a directory that did
# not exist left none behind.
no_identity_in() { check_eq "$1: the state directory still does not exist" absent "$(snapshot "$2")"; }
# wait_joined NAME: the engine got past admission (fails if it exited first).
wait_joined() { await_line "$1" "joined group" 60; }
unreachable=(--bootstrap-servers 127.0.0.1:1 --connect-timeout-ms 3000)
broker=(--bootstrap-servers "$STREAMT_BOOTSTRAP")

echo "== a failed first start into a new directory leaves no identity"
refused new-unreachable 69 "cannot reach the brokers at 127.0.0.1:1" "$work/good.json" "${unreachable[@]}" \
  --state-dir "$work/new-unreachable"
no_identity_in new-unreachable "$work/new-unreachable"
refused new-refused-setting 78 "no.such.setting" "$work/good.json" "${broker[@]}" \
  --state-dir "$work/new-setting" -X no.such.setting=1
no_identity_in new-refused-setting "$work/new-setting"
refused new-missing-topic 69 "topic '$misspelled' does not exist" "$work/misspelled.json" "${broker[@]}" \
  --state-dir "$work/state"
no_identity_in new-missing-topic "$work/state"

echo "== the corrected plan then starts as a new instance from the same directory"
start_engine first "$work/good.json" "$work/state"
wait_joined first
grep -q "(new instance)" "$work/first.log" || { show_log first; fail "the corrected start is not a new instance"; }
stop_engine first
check_eq "the corrected start exits 0 on SIGTERM" 0 "$engine_rc"
for f in identity.json plan.json history lock; do
  [[ -f $work/state/$f ]] || fail "the admitted start did not write $f"
done
check_eq "the lock file is empty once released" 0 "$(stat -c %s "$work/state/lock")"

echo "== a failed restart leaves an existing directory byte for byte"
unchanged_by old-unreachable "$work/state" 69 "cannot reach the brokers at 127.0.0.1:1" "$work/good.json" \
  "${unreachable[@]}"
unchanged_by old-refused-setting "$work/state" 78 "no.such.setting" "$work/good.json" "${broker[@]}" \
  -X no.such.setting=1
unchanged_by old-misspelled "$work/state" 78 "sink topic was '$sink', is now '$misspelled'" \
  "$work/misspelled.json" "${broker[@]}"
mkdir "$work/foreign"
echo "not ours" >"$work/foreign/notes.txt"
unchanged_by foreign-missing-topic "$work/foreign" 69 "topic '$misspelled' does not exist" \
  "$work/misspelled.json" "${broker[@]}"
# A directory admitted once, whose sink topic is then deleted.
start_engine doomed "$work/doomed.json" "$work/doomed-state"
wait_joined doomed
stop_engine doomed
check_eq "the doomed engine exits 0 on SIGTERM" 0 "$engine_rc"
"$kafka_local" topic delete "$doomed" >/dev/null 2>&1
for ((i = 0; i < 100; i++)); do
  "$kafka_local" topic list | grep -qxF "$doomed" || break
  sleep 0.2
done
unchanged_by old-missing-topic "$work/doomed-state" 69 "topic '$doomed' does not exist" "$work/doomed.json" \
  "${broker[@]}"

echo "== a damaged identity.json is refused with exit 73 and left as it is"
# damaged NAME WHAT: a copy of the admitted directory whose identity.json is
# stdin; the start is refused naming the file and WHAT, quotes none of it,
# and changes nothing.
damaged() {
  local name=$1 what=$2 dir=$work/damaged-$1
  cp -a "$work/state" "$dir"
  cat >"$dir/identity.json"
  unchanged_by "damaged-$name" "$dir" 73 "'$dir/identity.json' is damaged: $what" "$work/good.json" "${broker[@]}"
  grep -qF "move the directory '$dir' aside (or point --state-dir at a new one)" "$work/damaged-$name.log" ||
    { show_log "damaged-$name"; fail "damaged-$name: no advice"; }
  ! grep -q "hunter2" "$work/damaged-$name.log" || { show_log "damaged-$name"; fail "damaged-$name: printed the content"; }
}
id=$(sed -n 's/.*"instance_id":"\([0-9a-f]*\)".*/\1/p' "$work/state/identity.json")
[[ ${#id} == 16 ]] || fail "no instance id in identity.json"
# (Fed by redirection, not a pipe, so each runs in this shell and counts.)
damaged empty "it is empty" </dev/null
damaged truncated "it is not valid JSON" < <(head -c 40 "$work/state/identity.json")
damaged foreign "it holds fields streamt does not write" <<<'{"user":"admin","password":"hunter2"}'
damaged not-an-object "it does not hold a JSON object" <<<'["hunter2"]'
damaged raw-control "it is not valid JSON" < <(printf \
  '{"application_id":"%s","source_topic":"%s","sink_topic":"%s","instance_id":"%s\001hunter2"}\n' \
  "$app" "$src" "$sink" "$id")
damaged escaped-control "its field 'application_id' is empty or holds control characters" < <(printf \
  '{"application_id":"%s\\u001bhunter2","source_topic":"%s","sink_topic":"%s","instance_id":"%s"}\n' \
  "$app" "$src" "$sink" "$id")
damaged empty-instance-id "its field 'instance_id' is empty or holds control characters" < <(printf \
  '{"application_id":"%s","source_topic":"%s","sink_topic":"%s","instance_id":""}\n' "$app" "$src" "$sink")
damaged other-topics "it names another application or other topics than plan.json" < <(printf \
  '{"application_id":"%s","source_topic":"%s","sink_topic":"hunter2","instance_id":"%s"}\n' "$app" "$src" "$id")

echo "$checks_passed passed, 0 failed"
