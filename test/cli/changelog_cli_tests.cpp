// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The schema's "changelog": "upsert" through the binary: compile writes a
// version 2 plan, explain says what upsert does, replay writes a null value
// as "payload":null and counts it within filtered and tombstones.

#include "test/cli/run_process.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using streamt::test::contains;
using streamt::test::process_result;
using streamt::test::run_streamt;
using streamt::test::temp_dir;
using streamt::test::write_text;

namespace {

// customers(id, tier) as a changelog: `SELECT id, tier ... WHERE tier = 'gold'`.
std::string compile_gold_customers(const temp_dir& dir) {
  const std::string schema = dir.file("customers.schema.json");
  write_text(schema, R"({"source": "customers", "topic": "customers", "changelog": "upsert",
 "columns": [{"name": "id", "type": "STRING", "nullable": false},
             {"name": "tier", "type": "STRING", "nullable": false}]})");
  const std::string plan = dir.file("plan.json");
  process_result r = run_streamt({"compile", "--schema", schema, "--application-id", "gold-customers",
                                  "--sink-topic", "gold", "--output", plan, "-"},
                                 "SELECT id, tier FROM customers WHERE tier = 'gold'");
  BOOST_TEST_REQUIRE(r.exit_code == 0, "compile failed: " << r.err);
  return plan;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(changelog_cli)

BOOST_AUTO_TEST_CASE(explain_says_what_an_upsert_writes) {
  temp_dir dir;
  process_result r = run_streamt({"explain", compile_gold_customers(dir)});
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(contains(r.out, "a record without a key is invalid (changelog: upsert"), r.out);
  BOOST_TEST(contains(r.out,
                      "a null value (tombstone) is written to the sink as one, with its key and headers "
                      "(changelog: upsert)"),
             r.out);
  BOOST_TEST(contains(r.out, "a record that does not pass is written as a tombstone of its key"), r.out);
}

BOOST_AUTO_TEST_CASE(replay_writes_the_changelog_of_the_filtered_table) {
  temp_dir dir;
  const std::string plan = compile_gold_customers(dir);
  process_result r =
      run_streamt({"replay", plan}, R"({"key":"c1","payload":"{\"id\":\"c1\",\"tier\":\"gold\"}"})"
                                    "\n"
                                    R"({"key":"c2","payload":"{\"id\":\"c2\",\"tier\":\"silver\"}"})"
                                    "\n"
                                    R"({"key":"c1","payload":null})"
                                    "\n");
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(
      r.out ==
      R"({"topic":"gold","key":"c1","payload":"{\"id\":\"c1\",\"tier\":\"gold\"}","source":{"topic":"customers","partition":0,"offset":0}})"
      "\n"
      R"({"topic":"gold","key":"c2","payload":null,"source":{"topic":"customers","partition":0,"offset":1}})"
      "\n"
      R"({"topic":"gold","key":"c1","payload":null,"source":{"topic":"customers","partition":0,"offset":2}})"
      "\n");
  BOOST_TEST(contains(r.err, "3 consumed, 1 emitted, 1 filtered (1 deleted), 1 tombstones (1 forwarded)"),
             r.err);
}

BOOST_AUTO_TEST_CASE(replay_stops_at_a_record_without_a_key) {
  temp_dir dir;
  process_result r = run_streamt({"replay", compile_gold_customers(dir)},
                                 R"({"key":"c1","payload":"{\"id\":\"c1\",\"tier\":\"gold\"}"})"
                                 "\n"
                                 R"({"key":null,"payload":"{\"id\":\"c0\",\"tier\":\"gold\"}"})"
                                 "\n");
  BOOST_TEST(r.exit_code == 65, r.err);
  BOOST_TEST(
      contains(r.err, "invalid record at customers/0@1: changelog upsert needs a key; this record has none"),
      r.err);
  BOOST_TEST(contains(r.err, "[missing_key]"), r.err);
}

BOOST_AUTO_TEST_SUITE_END()
