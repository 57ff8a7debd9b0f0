#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# The fault harness's dead-letter checks (tools/harness/README.md, "Bad
# records and the dead-letter topic") find what they exist to find. A
# dead-letter plan runs over input that `streamt-verify seed --bad-every 7`
# wrote; `streamt-verify check --bad-every 7 --dead-letter-topic T` passes on
# what it wrote, and fails, counting each fault exactly, on a dead-letter
# topic forged from it with one bad record missing, one twice, one whose
# source offset header is wrong, one whose value bytes differ and one good
# record in it; and on an output holding the bad records.
#
# The forged topic is written with the Java client (RecordTool.java), so
# the headers are byte-exact and nothing of the checker writes its own test.
source "$(dirname "$0")/lib.sh"
verify=$(dirname "$STREAMT_BINARY")/streamt-verify
[[ -x $verify ]] || fail "no streamt-verify beside $STREAMT_BINARY"

src=$(unique vdl-in) sink=$(unique vdl-out) dlq=$(unique vdl-dead) forged=$(unique vdl-forged)
app=$(unique verify-dead-letter)
for t in "$src" "$sink"; do create_topic "$t" 3; done
for t in "$dlq" "$forged"; do create_topic "$t" 1; done
# 30 sequences a partition; bad: 6, 13, 20, 27 (4 x 3 partitions).
"$verify" seed --topic "$src" --count 30 --bad-every 7 --bootstrap-servers "$STREAMT_BOOTSTRAP" >"$work/seed.json"
check_eq "the seeder wrote 12 bad records" 12 "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["bad_records"])' <"$work/seed.json")"

cat >"$work/schema.json" <<EOF
{"source": "src", "topic": "$src", "columns": [
  {"name": "id", "type": "STRING", "nullable": false}, {"name": "p", "type": "BIGINT", "nullable": false},
  {"name": "seq", "type": "BIGINT", "nullable": false}, {"name": "keep", "type": "BOOLEAN", "nullable": false},
  {"name": "pad", "type": "STRING", "nullable": false}]}
EOF
echo "SELECT id, p, seq, pad FROM src WHERE keep = TRUE" |
  "$STREAMT_BINARY" compile --schema "$work/schema.json" --application-id "$app" --sink-topic "$sink" \
    --on-invalid dead-letter --dead-letter-topic "$dlq" --output "$work/plan.json" -
start_engine run "$work/plan.json" "$work/state"
wait_for_offsets "$app" "$src" "0:30 1:30 2:30" 120 || { show_log run; fail "the input was not all committed"; }
stop_engine run
check_eq "the engine stops cleanly" 0 "$engine_rc"

# check ARGS...: runs the check, keeps its JSON in $work/check.json, sets check_rc.
check() {
  check_rc=0
  "$verify" check --input "$src" --group "$app" --seeded 0=30,1=30,2=30 --bad-every 7 \
    --bootstrap-servers "$STREAMT_BOOTSTRAP" "$@" >"$work/check.json" || check_rc=$?
}
# fields NAME...: the check's values of NAME..., space-separated.
fields() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(" ".join(json.dumps(j.get(k)) for k in sys.argv[2:]))' "$work/check.json" "$@"; }
counts="dead_letter_expected dead_letter_lost dead_letter_duplicated dead_letter_unexpected dead_letter_mismatched bad_in_output"

check --output "$sink" --dead-letter-topic "$dlq"
check_eq "the real run passes" 0 "$check_rc"
check_eq "the real run: expected, lost, duplicated, unexpected, mismatched, bad in output" \
  "12 0 0 0 0 0" "$(fields $counts)"
check_eq "the real run: expected good records, lost, duplicated" "60 0 0" "$(fields expected lost duplicated)"

build_record_tool
record_tool dump "$dlq" >"$work/dead.jsonl"
record_tool dump "$src" >"$work/input.jsonl"
python3 - "$work/dead.jsonl" "$work/input.jsonl" >"$work/forged.jsonl" <<'PY'
import json, sys
dead = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
good = next(json.loads(l) for l in open(sys.argv[2]) if b'"id":"p' in bytes.fromhex(json.loads(l)["value"]))
assert len(dead) == 12, len(dead)
def set_header(r, name, text):
    r["headers"] = [[k, text.encode().hex() if k == name else v] for k, v in r["headers"]]
out = dead[1:]                                  # dead[0] lost
out.append(dict(dead[1]))                       # dead[1] twice
set_header(out[2], "streamt.source.offset", "999")  # dead[3]: wrong position
v = bytearray(bytes.fromhex(out[3]["value"]))   # dead[4]: a byte of its pad changed
v[v.rindex(b"x")] = ord("y")
out[3]["value"] = v.hex()
out.append(good)                                # a good record dead-lettered
for r in out:
    r.pop("partition", None)
    print(json.dumps(r))
PY
record_tool produce "$forged" <"$work/forged.jsonl"
check --output "$sink" --dead-letter-topic "$forged"
check_eq "the forged dead-letter topic fails the check" 1 "$check_rc"
check_eq "forged: expected, lost, duplicated, unexpected, mismatched, bad in output" \
  "12 1 1 1 2 0" "$(fields $counts)"
grep -q 'streamt.source.offset' "$work/check.json" || fail "the mismatches do not name the offset header"

# The input as the output: every bad record is in it.
check --output "$src" --dead-letter-topic "$dlq"
check_eq "bad records in the output fail the check" 1 "$check_rc"
check_eq "input as output: bad records in it" 12 "$(fields bad_in_output)"

# The output as the dead-letter topic: all bad records lost, all 60 outputs unexpected.
check --output "$sink" --dead-letter-topic "$sink"
check_eq "the output as the dead-letter topic fails the check" 1 "$check_rc"
check_eq "output as dead-letter topic: lost, unexpected" "12 60" "$(fields dead_letter_lost dead_letter_unexpected)"
echo "$checks_passed passed, 0 failed"
