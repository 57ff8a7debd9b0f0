// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The Avro sink through the binary: `compile --sink-format` chooses the
// sink's format (the source's by default), an Avro sink's plan pins its
// schema and subject, explain shows them, and the commands that write its
// records ask for the registry its schema is registered with.

#include "test/cli/run_process.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

#include <string>

using streamt::test::contains;
using streamt::test::process_result;
using streamt::test::read_text;
using streamt::test::run_streamt;
using streamt::test::temp_dir;

namespace {

const std::string orders = streamt::test::examples_dir("orders");
const std::string avro = streamt::test::examples_dir("avro");

process_result compile_orders(const std::string& plan, const std::string& format) {
  return run_streamt({"compile", "--schema", orders + "orders.schema.json", "--application-id", "orders-big",
                      "--sink-topic", "big-orders", "--sink-format", format, "--output", plan,
                      orders + "big_orders.sql"});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(avro_sink_cli)

BOOST_AUTO_TEST_CASE(sink_format_avro_pins_the_derived_schema_under_the_sink_topics_value_subject) {
  temp_dir dir;
  const std::string plan = dir.file("plan.json");
  process_result r = compile_orders(plan, "avro");
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  const auto p = boost::json::parse(read_text(plan));
  BOOST_TEST(p.at("plan_version").as_int64() == 2);
  BOOST_TEST(p.at("sink").at("format").as_string() == "avro");
  BOOST_TEST(p.at("sink").at("avro").at("subject").as_string() == "big-orders-value");
  BOOST_TEST(p.at("sink").at("avro").at("schema").at("name").as_string() == "big_orders");
  BOOST_TEST(p.at("sink").at("avro").at("fingerprint").as_string().size() == 16u);
  process_result checked = run_streamt({"check", plan});
  BOOST_TEST(checked.exit_code == 0);
  BOOST_TEST(
      contains(checked.out, "sink_format:    avro (subject big-orders-value, fingerprint " +
                                std::string(p.at("sink").at("avro").at("fingerprint").as_string()) + ")"),
      checked.out);
}

BOOST_AUTO_TEST_CASE(sink_format_json_for_a_json_source_writes_the_plan_it_always_did) {
  temp_dir dir;
  BOOST_TEST_REQUIRE(compile_orders(dir.file("chosen.json"), "json").exit_code == 0);
  process_result r = run_streamt({"compile", "--schema", orders + "orders.schema.json", "--application-id",
                                  "orders-big", "--sink-topic", "big-orders", "--output",
                                  dir.file("default.json"), orders + "big_orders.sql"});
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  BOOST_TEST(read_text(dir.file("chosen.json")) == read_text(dir.file("default.json")));
  BOOST_TEST(!contains(read_text(dir.file("chosen.json")), "\"sink\":"));
}

BOOST_AUTO_TEST_CASE(an_avro_source_gets_an_avro_sink_unless_told_otherwise) {
  temp_dir dir;
  auto compile = [&](const std::string& plan, std::vector<std::string> extra) {
    std::vector<std::string> args{"compile",
                                  "--schema",
                                  avro + "payments.avsc",
                                  "--source-topic",
                                  "shop.public.payments",
                                  "--application-id",
                                  "payments-big",
                                  "--sink-topic",
                                  "big-payments",
                                  "--output",
                                  plan};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(avro + "big_payments.sql");
    return run_streamt(args);
  };
  BOOST_TEST_REQUIRE(compile(dir.file("avro.json"), {}).exit_code == 0);
  BOOST_TEST(boost::json::parse(read_text(dir.file("avro.json"))).at("sink").at("format").as_string() ==
             "avro");
  BOOST_TEST_REQUIRE(compile(dir.file("json.json"), {"--sink-format", "json"}).exit_code == 0);
  BOOST_TEST(boost::json::parse(read_text(dir.file("json.json"))).at("sink").at("format").as_string() ==
             "json");
}

BOOST_AUTO_TEST_CASE(an_unknown_sink_format_is_a_usage_error_naming_the_formats) {
  temp_dir dir;
  process_result r = compile_orders(dir.file("plan.json"), "protobuf");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "--sink-format is 'protobuf'; it must be json or avro"), r.err);
  BOOST_TEST(!std::filesystem::exists(dir.file("plan.json")));
}

BOOST_AUTO_TEST_CASE(an_output_name_that_is_no_avro_name_is_refused_with_an_alias_or_a_json_sink_to_use) {
  temp_dir dir;
  process_result r = run_streamt(
      {"compile", "--schema", avro + "payments.avsc", "--application-id", "a", "--sink-topic", "b", "-"},
      R"(SELECT op AS "op-code" FROM payments)");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(contains(r.err, "'op-code' is not an Avro name"), r.err);
  BOOST_TEST(contains(r.err, "AS op_code"), r.err);
  BOOST_TEST(contains(r.err, "--sink-format json"), r.err);
  // Asked for explicitly, the Avro sink is not argued with.
  r = run_streamt({"compile", "--schema", avro + "payments.avsc", "--application-id", "a", "--sink-topic",
                   "b", "--sink-format", "avro", "-"},
                  R"(SELECT op AS "op-code" FROM payments)");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(!contains(r.err, "--sink-format json"), r.err);
}

BOOST_AUTO_TEST_CASE(explain_shows_the_sink_format_and_for_avro_the_subject_and_fingerprint) {
  temp_dir dir;
  const std::string plan = dir.file("plan.json");
  BOOST_TEST_REQUIRE(compile_orders(plan, "avro").exit_code == 0);
  const auto fingerprint =
      std::string(boost::json::parse(read_text(plan)).at("sink").at("avro").at("fingerprint").as_string());
  process_result r = run_streamt({"explain", plan});
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  BOOST_TEST(contains(r.out, "registered under subject big-orders-value"), r.out);
  BOOST_TEST(contains(r.out, "fingerprint " + fingerprint), r.out);
  BOOST_TEST(contains(r.out, "record {id: string, amount: long}"), r.out);
  BOOST_TEST(contains(r.out, "sink    topic big-orders, avro values"), r.out);

  BOOST_TEST_REQUIRE(compile_orders(plan, "json").exit_code == 0);
  r = run_streamt({"explain", plan});
  BOOST_TEST(contains(r.out, "sink    topic big-orders, json values"), r.out);
}

BOOST_AUTO_TEST_CASE(explain_types_a_field_of_a_nullable_row_as_a_union_with_null) {
  temp_dir dir;
  const std::string plan = dir.file("plan.json");
  process_result r = run_streamt({"compile", "--schema", avro + "payments.avsc", "--source-topic",
                                  "shop.public.payments", "--application-id", "payments-big", "--sink-topic",
                                  "big-payments", "--output", plan, avro + "big_payments.sql"});
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  r = run_streamt({"explain", plan});
  BOOST_TEST(contains(r.out,
                      "record {id: union [null, long], amount: union [null, bytes (decimal(10,2))], "
                      "status: union [null, string], op: string}"),
             r.out);
}

BOOST_AUTO_TEST_CASE(replay_run_and_diff_ask_for_the_registry_an_avro_plan_needs) {
  temp_dir dir;
  const std::string plan = dir.file("plan.json");
  BOOST_TEST_REQUIRE(compile_orders(plan, "avro").exit_code == 0);
  // replay and run frame an Avro sink's outputs with the id the registry
  // gives its schema: without a registry, a usage error before any record
  // is read or anything touches Kafka.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"replay", plan, "--input", orders + "orders.jsonl"},
        std::vector<std::string>{"run", plan, "--bootstrap-servers", "127.0.0.1:9"}}) {
    process_result r = run_streamt(args);
    BOOST_TEST(r.exit_code == 2, args[0]);
    BOOST_TEST(contains(r.err, "give --schema-registry URL"), args[0] << ": " << r.err);
    BOOST_TEST(r.out.empty(), args[0] << ": " << r.out);
  }
  // diff reads an Avro source's writer schemas from the registry.
  const std::string avro_plan = dir.file("avro-plan.json");
  BOOST_TEST_REQUIRE(run_streamt({"compile", "--schema", avro + "payments.avsc", "--source-topic",
                                  "shop.public.payments", "--application-id", "payments-big", "--sink-topic",
                                  "big-payments", "--output", avro_plan, avro + "big_payments.sql"})
                         .exit_code == 0);
  process_result r = run_streamt({"diff", avro_plan, avro_plan, "--bootstrap-servers", "127.0.0.1:9"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(
      contains(r.err, "a plan's source is Avro in the Confluent wire format: give --schema-registry URL"),
      r.err);
}

BOOST_AUTO_TEST_SUITE_END()
