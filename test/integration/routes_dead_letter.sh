#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Routes (issue 39) with on_invalid dead-letter, on the real broker: a record
# whose PARTITION BY column is null on a route that takes it is invalid, so
# it goes whole to the dead-letter topic and none of its outputs is written
# (not even the other route's, which could have taken it); a record no route
# takes is dropped and counted, whether its key column is null or not; the
# re-keyed outputs are on the partition Java's partitioner picks for the new
# key; the stop line counts per route and the unrouted records.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

src=$(unique rdl-in) big=$(unique rdl-big) bycust=$(unique rdl-cust) dlq=$(unique rdl-dead)
app=$(unique routes-dead-letter)
create_topic "$src" 2
create_topic "$big" 1
create_topic "$bycust" 3
create_topic "$dlq" 1
cat >"$work/schema.json" <<JSON
{"source": "orders", "topic": "$src",
 "columns": [{"name": "id", "type": "STRING", "nullable": false},
             {"name": "amount", "type": "BIGINT", "nullable": false},
             {"name": "customer", "type": "STRING", "nullable": true}]}
JSON
cat >"$work/routes.sql" <<SQL
INSERT INTO "$big" SELECT id, amount FROM orders WHERE amount >= 100;
INSERT INTO "$bycust" SELECT id, customer FROM orders WHERE amount >= 10 PARTITION BY customer;
SQL
"$STREAMT_BINARY" compile --schema "$work/schema.json" --application-id "$app" \
  --on-invalid dead-letter --dead-letter-topic "$dlq" --output "$work/plan.json" "$work/routes.sql" \
  2>"$work/compile.err" || { cat "$work/compile.err"; fail "compile"; }
grep -q 'coverage: no route takes {"amount": 0}' "$work/compile.err" ||
  { cat "$work/compile.err"; fail "compile does not report the amounts below 10 that no route takes"; }

# a and f go to both routes, b to bycust only, c and e to none (e with a
# null customer: no route takes it, so its key does not matter), d to both
# but its customer is null: invalid, dead-lettered whole.
printf '%s\t%s\n' k1 '{"id":"a","amount":150,"customer":"c1"}' k2 '{"id":"b","amount":50,"customer":"c2"}' \
  k3 '{"id":"c","amount":5,"customer":"c3"}' k4 '{"id":"d","amount":200,"customer":null}' \
  k5 '{"id":"e","amount":7,"customer":null}' k6 '{"id":"f","amount":120,"customer":"c1"}' | produce "$src"
consume_committed "$src" >"$work/input.tsv"
start_engine routes "$work/plan.json" "$work/state"
wait_for_offsets "$app" "$src" "$(end_offsets_of "$work/input.tsv" 2)" 120 || { show_log routes; fail "committed offsets"; }
stop_engine routes
check_eq "engine exits 0 on SIGTERM" 0 "$engine_rc"
grep -q 'unrouted: 2 dropped, 0 written; routes: '"$big"' 2, '"$bycust"' 3' "$work/routes.log" ||
  { show_log routes; fail "the stop line does not count the routes and the unrouted records"; }

consume_committed "$big" >"$work/big.tsv"
consume_committed "$bycust" >"$work/bycust.tsv"
"$kafka_local" consume "$dlq" --committed --json >"$work/dead.jsonl"
python3 - "$here" "$work/big.tsv" "$work/bycust.tsv" "$work/dead.jsonl" >"$work/checks.tsv" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
from kafka_partition import partition_for

def rows(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t", 3) for line in f]

def check(what, expected, actual):
    print(f"{what}\t{expected}\t{actual}")

big, bycust = rows(sys.argv[2]), rows(sys.argv[3])
check("big: a and f, with their input keys",
      "k1 {\"id\":\"a\",\"amount\":150} k6 {\"id\":\"f\",\"amount\":120}",
      " ".join(sorted(f"{k} {v}" for _, _, k, v in big)))
check("bycust: a, b and f, keyed by their customer",
      "c1 {\"id\":\"a\",\"customer\":\"c1\"} c1 {\"id\":\"f\",\"customer\":\"c1\"} c2 {\"id\":\"b\",\"customer\":\"c2\"}",
      " ".join(sorted(f"{k} {v}" for _, _, k, v in bycust)))
check("bycust: each output on Java's partition for its new key", "none",
      " ".join(f"{k}@{p}" for p, _, k, _ in bycust if int(p) != partition_for(k.encode(), 3)) or "none")
with open(sys.argv[4], encoding="utf-8") as f:
    dead = [json.loads(line) for line in f if line.strip()]
check("dead-letter: d alone, unchanged", "k4 {\"id\":\"d\",\"amount\":200,\"customer\":null}",
      " ".join(f"{d['key']} {d['payload']}" for d in dead))
headers = dead[0]["headers"] if dead else []
named = dict(zip(headers[0::2], headers[1::2]))
check("dead-letter: its error code", "null_key", named.get("streamt.error.code"))
check("dead-letter: its message names the route and the column", "True",
      str("customer" in named.get("streamt.error.message", "") and "route" in named.get("streamt.error.message", "")))
PY
check_each "$work/checks.tsv"
echo "routes_dead_letter: ok"
