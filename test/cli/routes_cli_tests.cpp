// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// `streamt compile` of INSERT INTO statements (routes, issue 39) through the
// binary: the plan it writes, what explain and check show of it, and every
// refusal with its message and exit code.

#include "test/cli/run_process.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using streamt::test::contains;
using streamt::test::process_result;
using streamt::test::run_streamt;
using streamt::test::temp_dir;
using streamt::test::write_text;

namespace {

constexpr std::string_view schema_text = R"({"source": "orders", "topic": "orders", "columns": [
  {"name": "id", "type": "STRING", "nullable": false},
  {"name": "tenant", "type": "STRING", "nullable": true},
  {"name": "amount", "type": "BIGINT", "nullable": false}]})";

constexpr std::string_view two_routes =
    "INSERT INTO \"orders.acme\" SELECT id, amount FROM orders WHERE tenant = 'acme' PARTITION BY amount;\n"
    "INSERT INTO others SELECT id FROM orders WHERE tenant <> 'acme';\n";

// `streamt compile` of `sql` with `extra` options, in `dir`.
process_result compile(const temp_dir& dir, std::string_view sql, const std::vector<std::string>& extra) {
  write_text(dir.file("schema.json"), std::string(schema_text));
  write_text(dir.file("query.sql"), std::string(sql));
  std::vector<std::string> args{"compile", "--schema", dir.file("schema.json"), "--application-id", "router"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(dir.file("query.sql"));
  return run_streamt(args);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compile_routes)

BOOST_AUTO_TEST_CASE(two_insert_statements_compile_to_a_plan_naming_both_sinks_and_its_routes) {
  temp_dir dir;
  const process_result r = compile(dir, two_routes, {"--output", dir.file("plan.json")});
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  const std::string plan = streamt::test::read_text(dir.file("plan.json"));
  BOOST_TEST(contains(plan, "\"plan_version\": 2"), plan);
  BOOST_TEST(contains(plan, "\"sink_topics\": [\n      \"orders.acme\",\n      \"others\"\n    ]"), plan);
  BOOST_TEST(contains(plan, "\"routes\": ["), plan);
  BOOST_TEST(contains(plan, "\"partition_by\": \"amount\""), plan);
  // The default key format is written: a BIGINT key's bytes are explicit.
  BOOST_TEST(contains(plan, "\"key_format\": \"string\""), plan);
  BOOST_TEST(!contains(plan, "\"unrouted_topic\""), plan);

  const process_result check = run_streamt({"check", dir.file("plan.json")});
  BOOST_TEST(check.exit_code == 0, check.err);
  BOOST_TEST(contains(check.out, "sink_topics:    orders.acme, others\n"), check.out);
  BOOST_TEST(contains(check.out, "routes:         2\n"), check.out);
  BOOST_TEST(contains(check.out, "unrouted:       drop\n"), check.out);

  const process_result explain = run_streamt({"explain", dir.file("plan.json")});
  BOOST_TEST(explain.exit_code == 0, explain.err);
  BOOST_TEST(contains(explain.out,
                      "  INSERT INTO \"orders.acme\" SELECT id, amount FROM orders WHERE tenant = "
                      "'acme' PARTITION BY amount;\n  INSERT INTO others SELECT id FROM orders"),
             explain.out);
  BOOST_TEST(contains(explain.out, "route orders.acme: topic orders.acme\n"), explain.out);
  BOOST_TEST(contains(explain.out, "unrouted dropped and counted"), explain.out);
}

BOOST_AUTO_TEST_CASE(partition_by_a_bigint_with_key_format_long_and_an_unrouted_topic_are_in_the_plan) {
  temp_dir dir;
  const process_result r = compile(dir, two_routes, {"--key-format", "long", "--unrouted-topic", "unrouted"});
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  BOOST_TEST(contains(r.out, "\"unrouted_topic\": \"unrouted\",\n  \"key_format\": \"long\""), r.out);
}

BOOST_AUTO_TEST_CASE(sink_topic_with_insert_statements_is_a_usage_error) {
  temp_dir dir;
  const process_result r = compile(dir, two_routes, {"--sink-topic", "out"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "--sink-topic is for a single SELECT"), r.err);
  BOOST_TEST(r.out.empty());
}

BOOST_AUTO_TEST_CASE(a_select_without_sink_topic_is_a_usage_error) {
  temp_dir dir;
  const process_result r = compile(dir, "SELECT id FROM orders", {});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "missing --sink-topic"), r.err);
}

BOOST_AUTO_TEST_CASE(unrouted_options_with_a_single_select_are_usage_errors) {
  temp_dir dir;
  const process_result drop =
      compile(dir, "SELECT id FROM orders", {"--sink-topic", "out", "--unrouted", "drop"});
  BOOST_TEST(drop.exit_code == 2);
  BOOST_TEST(contains(drop.err, "--unrouted is for INSERT INTO statements"), drop.err);
  const process_result topic =
      compile(dir, "SELECT id FROM orders", {"--sink-topic", "out", "--unrouted-topic", "u"});
  BOOST_TEST(topic.exit_code == 2);
  BOOST_TEST(contains(topic.err, "--unrouted-topic is for INSERT INTO statements"), topic.err);
}

BOOST_AUTO_TEST_CASE(unrouted_drop_with_a_topic_and_unrouted_topic_without_one_are_usage_errors) {
  temp_dir dir;
  const process_result both = compile(dir, two_routes, {"--unrouted", "drop", "--unrouted-topic", "u"});
  BOOST_TEST(both.exit_code == 2);
  BOOST_TEST(contains(both.err, "give one"), both.err);
  const process_result bare = compile(dir, two_routes, {"--unrouted", "topic"});
  BOOST_TEST(bare.exit_code == 2);
  BOOST_TEST(contains(bare.err, "--unrouted topic needs the topic"), bare.err);
  const process_result other = compile(dir, two_routes, {"--key-format", "int"});
  BOOST_TEST(other.exit_code == 2);
  BOOST_TEST(contains(other.err, "it must be string or long"), other.err);
}

BOOST_AUTO_TEST_CASE(key_format_without_a_bigint_partition_by_column_is_a_usage_error_at_the_query) {
  temp_dir dir;
  const process_result r =
      compile(dir, "INSERT INTO a SELECT id FROM orders PARTITION BY id", {"--key-format", "long"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "query.sql:1:1: error: --key-format says how a BIGINT PARTITION BY column"),
             r.err);
}

BOOST_AUTO_TEST_CASE(a_sink_equal_to_the_source_dead_letter_or_unrouted_topic_is_rejected_at_the_name) {
  temp_dir dir;
  const process_result source = compile(dir, "INSERT INTO orders SELECT id FROM orders", {});
  BOOST_TEST(source.exit_code == 1);
  BOOST_TEST(contains(source.err, "1:13: error: the sink topic orders is also the source topic"), source.err);
  const process_result dlq =
      compile(dir, two_routes, {"--on-invalid", "dead-letter", "--dead-letter-topic", "others"});
  BOOST_TEST(dlq.exit_code == 1);
  BOOST_TEST(contains(dlq.err, "2:13: error: the sink topic others is also --dead-letter-topic"), dlq.err);
  const process_result unrouted = compile(dir, two_routes, {"--unrouted-topic", "others"});
  BOOST_TEST(unrouted.exit_code == 1);
  BOOST_TEST(contains(unrouted.err, "is also --unrouted-topic"), unrouted.err);
}

BOOST_AUTO_TEST_CASE(an_unrouted_topic_equal_to_the_source_or_dead_letter_topic_is_rejected) {
  temp_dir dir;
  const process_result source = compile(dir, two_routes, {"--unrouted-topic", "orders"});
  BOOST_TEST(source.exit_code == 1);
  BOOST_TEST(contains(source.err, "--unrouted-topic 'orders' is also the source topic"), source.err);
  const process_result dlq =
      compile(dir, two_routes,
              {"--on-invalid", "dead-letter", "--dead-letter-topic", "bad", "--unrouted-topic", "bad"});
  BOOST_TEST(dlq.exit_code == 1);
  BOOST_TEST(contains(dlq.err, "is also the dead-letter topic"), dlq.err);
}

BOOST_AUTO_TEST_CASE(routes_with_an_avro_sink_are_rejected_saying_what_to_do) {
  temp_dir dir;
  const process_result r = compile(dir, two_routes, {"--sink-format", "avro"});
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(contains(r.err, "routes write JSON values only for now"), r.err);
  BOOST_TEST(contains(r.err, "drop --sink-format avro"), r.err);
}

BOOST_AUTO_TEST_CASE(an_unquoted_dotted_sink_is_rejected_with_the_quoted_form) {
  temp_dir dir;
  const process_result r = compile(dir, "INSERT INTO orders.eu SELECT id FROM orders", {});
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(contains(r.err,
                      "1:13: error: the sink topic orders.eu is not a plain name; write it in double "
                      "quotes: INSERT INTO \"orders.eu\""),
             r.err);
}

BOOST_AUTO_TEST_CASE(diff_takes_routed_plans_and_still_refuses_two_that_read_different_topics) {
  // Checked before any broker is asked: a routed plan reaches the check.
  temp_dir dir;
  BOOST_TEST_REQUIRE(compile(dir, two_routes, {"--output", dir.file("plan.json")}).exit_code == 0);
  write_text(dir.file("other.json"),
             "{\"source\": \"payments\", \"topic\": \"payments\", \"columns\": [{\"name\": \"id\", "
             "\"type\": \"STRING\", \"nullable\": false}]}");
  write_text(dir.file("other.sql"), "SELECT id FROM payments");
  BOOST_TEST_REQUIRE(
      run_streamt({"compile", "--schema", dir.file("other.json"), "--application-id", "pay", "--sink-topic",
                   "out", "--output", dir.file("other_plan.json"), dir.file("other.sql")})
          .exit_code == 0);
  const process_result diff = run_streamt(
      {"diff", dir.file("plan.json"), dir.file("other_plan.json"), "--bootstrap-servers", "127.0.0.1:1"});
  BOOST_TEST(diff.exit_code == 1);
  BOOST_TEST(contains(diff.err, "the plans read different topics"), diff.err);
  BOOST_TEST(!contains(diff.err, "routed plan"), diff.err);
}

BOOST_AUTO_TEST_SUITE_END()

// The coverage report and the options that make it binding (issue 39's
// tenant split: `<>` does not take a null tenant).
BOOST_AUTO_TEST_SUITE(compile_route_coverage)

BOOST_AUTO_TEST_CASE(compile_reports_the_null_tenant_that_no_route_takes_and_still_writes_the_plan) {
  temp_dir dir;
  const process_result r = compile(dir, two_routes, {});
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  BOOST_TEST(contains(r.err, "coverage: no route takes {\"tenant\": null}\n"), r.err);
  BOOST_TEST(contains(r.err, "coverage: records no route takes are dropped and counted\n"), r.err);
  BOOST_TEST(contains(r.out, "\"routes\": ["), r.out);
}

BOOST_AUTO_TEST_CASE(require_total_refuses_the_tenant_split_until_a_route_takes_the_nulls) {
  temp_dir dir;
  const process_result refused = compile(dir, two_routes, {"--require-total"});
  BOOST_TEST(refused.exit_code == 1, refused.err);
  BOOST_TEST(refused.out.empty(), refused.out);
  BOOST_TEST(contains(refused.err, "coverage: no route takes {\"tenant\": null}\n"), refused.err);
  BOOST_TEST(contains(refused.err, "--require-total: some records no route takes (above)"), refused.err);

  const std::string with_nulls =
      std::string(two_routes) + "INSERT INTO others SELECT id FROM orders WHERE tenant IS NULL;\n";
  const process_result total = compile(dir, with_nulls, {"--require-total", "--require-disjoint"});
  BOOST_TEST(total.exit_code == 0, total.err);
  BOOST_TEST(contains(total.err, "coverage: the 3 routes are disjoint and take every record\n"), total.err);
  BOOST_TEST(contains(total.out, "\"routes\": ["), total.out);
}

BOOST_AUTO_TEST_CASE(require_disjoint_refuses_two_routes_that_can_take_one_record_and_names_it) {
  temp_dir dir;
  const std::string overlapping =
      "INSERT INTO big SELECT id FROM orders WHERE amount >= 100;\n"
      "INSERT INTO acme SELECT id FROM orders WHERE tenant = 'acme';\n";
  const process_result r = compile(dir, overlapping, {"--require-disjoint"});
  BOOST_TEST(r.exit_code == 1, r.err);
  BOOST_TEST(r.out.empty(), r.out);
  BOOST_TEST(
      contains(r.err, "coverage: routes 'big' and 'acme' both take {\"tenant\": \"acme\", \"amount\": 100}"),
      r.err);
  BOOST_TEST(contains(r.err, "--require-disjoint: routes overlap (above)"), r.err);
}

BOOST_AUTO_TEST_CASE(require_options_on_a_single_select_are_a_usage_error) {
  temp_dir dir;
  const process_result r = compile(dir, "SELECT id FROM orders", {"--sink-topic", "out", "--require-total"});
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(contains(r.err, "--require-total is for INSERT INTO statements"), r.err);
}

BOOST_AUTO_TEST_CASE(explain_shows_the_coverage_report_under_the_routes) {
  temp_dir dir;
  const process_result r = compile(dir, two_routes, {"--output", dir.file("plan.json")});
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  const process_result explain = run_streamt({"explain", dir.file("plan.json")});
  BOOST_TEST(explain.exit_code == 0, explain.err);
  BOOST_TEST(contains(explain.out, "coverage no route takes {\"tenant\": null}\n"), explain.out);
}

BOOST_AUTO_TEST_SUITE_END()

// `streamt replay` of a routed plan: one envelope per route that takes the
// record, naming the route's sink and carrying its key, and the records no
// route takes on the unrouted topic.
BOOST_AUTO_TEST_SUITE(replay_routes)

// Route "big" (amount >= 100) is keyed by amount as 8 big-endian bytes;
// route "acme" keeps the input's key.
constexpr std::string_view overlapping_routes =
    "INSERT INTO big SELECT id, amount FROM orders WHERE amount >= 100 PARTITION BY amount;\n"
    "INSERT INTO acme SELECT id FROM orders WHERE tenant = 'acme';\n";

BOOST_AUTO_TEST_CASE(each_output_names_its_routes_sink_and_key_and_an_untaken_record_goes_unrouted) {
  temp_dir dir;
  const process_result compiled = compile(
      dir, overlapping_routes,
      {"--key-format", "long", "--unrouted-topic", "orders.unrouted", "--output", dir.file("plan.json")});
  BOOST_TEST_REQUIRE(compiled.exit_code == 0, compiled.err);
  // 16706 is 0x4142: its long key is six zero bytes and "AB".
  const std::string input =
      R"({"partition":1,"offset":10,"key":"ka","payload":"{\"id\":\"a\",\"tenant\":\"acme\",\"amount\":16706}"})"
      "\n"
      R"({"partition":1,"offset":11,"key":"kb","payload":"{\"id\":\"b\",\"tenant\":\"acme\",\"amount\":5}"})"
      "\n"
      R"({"partition":1,"offset":12,"key":"kc","ts":7,"headers":["h","v"],)"
      R"("payload":"{\"id\":\"c\",\"tenant\":\"zed\",\"amount\":7}"})"
      "\n"
      R"({"partition":1,"offset":13,"key":null,"payload":"{\"id\":\"d\",\"tenant\":null,\"amount\":256}"})"
      "\n";
  const process_result r = run_streamt({"replay", dir.file("plan.json")}, input);
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  const std::string expected =
      // Two routes take a: one line each, in route order.
      R"({"topic":"big","key":"\u0000\u0000\u0000\u0000\u0000\u0000AB",)"
      R"("payload":"{\"id\":\"a\",\"amount\":16706}",)"
      R"("source":{"topic":"orders","partition":1,"offset":10}})"
      "\n"
      R"({"topic":"acme","key":"ka","payload":"{\"id\":\"a\"}",)"
      R"("source":{"topic":"orders","partition":1,"offset":10}})"
      "\n"
      // One takes b.
      R"({"topic":"acme","key":"kb","payload":"{\"id\":\"b\"}",)"
      R"("source":{"topic":"orders","partition":1,"offset":11}})"
      "\n"
      // None takes c: unchanged, with its headers and the reason last.
      R"({"topic":"orders.unrouted","key":"kc",)"
      R"("payload":"{\"id\":\"c\",\"tenant\":\"zed\",\"amount\":7}","ts":7,)"
      R"("headers":["h","v","streamt.reason","unrouted"],)"
      R"("source":{"topic":"orders","partition":1,"offset":12}})"
      "\n"
      // d has no key; its route gives it one (256: 0x0100).
      R"({"topic":"big","key":"\u0000\u0000\u0000\u0000\u0000\u0000\u0001\u0000",)"
      R"("payload":"{\"id\":\"d\",\"amount\":256}",)"
      R"("source":{"topic":"orders","partition":1,"offset":13}})"
      "\n";
  BOOST_TEST(r.out == expected);
  BOOST_TEST(contains(r.err,
                      "streamt replay: 4 consumed, 3 emitted, 1 filtered, 0 tombstones; unrouted: 0 "
                      "dropped, 1 written; routes: big 2, acme 2\n"),
             r.err);
}

BOOST_AUTO_TEST_CASE(without_an_unrouted_topic_an_untaken_record_is_dropped_and_counted) {
  temp_dir dir;
  BOOST_TEST_REQUIRE(compile(dir, overlapping_routes, {"--output", dir.file("plan.json")}).exit_code == 0);
  const process_result r =
      run_streamt({"replay", dir.file("plan.json")},
                  R"({"key":"kc","payload":"{\"id\":\"c\",\"tenant\":\"zed\",\"amount\":7}"})"
                  "\n"
                  R"({"key":"kd","payload":"{\"id\":\"d\",\"tenant\":\"zed\",\"amount\":120}"})"
                  "\n");
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  // The string key format writes a BIGINT key as its decimal text.
  BOOST_TEST(r.out == R"({"topic":"big","key":"120","payload":"{\"id\":\"d\",\"amount\":120}",)"
                      R"("source":{"topic":"orders","partition":0,"offset":1}})"
                      "\n");
  BOOST_TEST(contains(r.err, "unrouted: 1 dropped, 0 written; routes: big 1, acme 0"), r.err);
}

BOOST_AUTO_TEST_SUITE_END()
