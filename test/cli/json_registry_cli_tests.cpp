// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// `compile --value-format` through the binary: json-registry is written
// into the plan (version 2, a JSON sink stated), explain shows the frame,
// and the option is refused where it means nothing.

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

process_result compile_orders(const std::string& schema, const std::string& format, const std::string& plan) {
  return run_streamt({"compile", "--schema", schema, "--value-format", format, "--application-id",
                      "orders-big", "--sink-topic", "big-orders", "--output", plan,
                      orders + "big_orders.sql"});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(json_registry_cli)

BOOST_AUTO_TEST_CASE(value_format_json_registry_is_written_into_the_plan_and_explained) {
  temp_dir dir;
  const std::string plan = dir.file("plan.json");
  process_result r = compile_orders(orders + "orders.schema.json", "json-registry", plan);
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  const auto p = boost::json::parse(read_text(plan));
  BOOST_TEST(p.at("plan_version").as_int64() == 2);
  BOOST_TEST(p.at("schema").at("value_format").as_string() == "json-registry");
  BOOST_TEST(p.at("sink").at("format").as_string() == "json");
  BOOST_TEST(run_streamt({"check", plan}).exit_code == 0);
  process_result explained = run_streamt({"explain", plan});
  BOOST_TEST(explained.exit_code == 0);
  BOOST_TEST(contains(explained.out, "1. decode   a zero byte and a 4-byte schema id"), explained.out);
  // json, the default, writes the plan as it always was.
  BOOST_TEST_REQUIRE(
      compile_orders(orders + "orders.schema.json", "json", dir.file("plain.json")).exit_code == 0);
  BOOST_TEST(!contains(read_text(dir.file("plain.json")), "value_format"));
}

BOOST_AUTO_TEST_CASE(value_format_is_refused_where_it_means_nothing) {
  temp_dir dir;
  process_result r = compile_orders(orders + "orders.schema.json", "xml", dir.file("p.json"));
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "--value-format is 'xml'; it must be json or json-registry"), r.err);
  r = compile_orders(avro + "payments.avsc", "json-registry", dir.file("p.json"));
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "is an Avro schema, whose values are Avro"), r.err);
  r = run_streamt({"compile", "--schema-registry", "http://127.0.0.1:1", "--value-format", "json",
                   "--application-id", "a", "--sink-topic", "b", orders + "big_orders.sql"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "--value-format json reads plain JSON"), r.err);
}

BOOST_AUTO_TEST_SUITE_END()
