// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/schema_file.hpp"

#include "case_files.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

using streamt::phase;
using namespace streamt::plan;
namespace data = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(schema_file)

BOOST_DATA_TEST_CASE(each_schema_case_loads_or_fails_as_its_sidecar_says,
                     data::make(streamt::test::case_names("schemas")), name) {
  BOOST_TEST_CONTEXT("test/data/schemas/" << name << ".json") {
    auto text = streamt::test::read_file(streamt::test::data_dir("schemas") / (name + ".json"));
    auto expected = streamt::test::read_expectation("schemas", name);
    auto r = load_schema(text);
    if (expected) {
      BOOST_TEST_REQUIRE(r.has_error(), "the schema loaded but the sidecar expects an error");
      streamt::test::check_diagnostic(r.error(), *expected, phase::schema);
      BOOST_TEST(streamt::format(r.error()).find(r.error().message) != std::string::npos);
    } else {
      BOOST_TEST_REQUIRE(name.rfind("valid_", 0) == 0u,
                         "a case without an .error sidecar must be named valid_*");
      BOOST_TEST_REQUIRE(r.has_value(), (r.has_error() ? streamt::format(r.error()) : std::string()));
      BOOST_TEST(!r->columns.empty());
      auto again = schema_from_json(schema_to_json(*r), "$", phase::schema);
      BOOST_TEST_REQUIRE(again.has_value());
      BOOST_TEST((*again == *r));
    }
  }
}

BOOST_AUTO_TEST_CASE(loads_the_documented_orders_schema) {
  auto r = load_schema(streamt::test::read_file(streamt::test::data_dir("schemas") / "valid_orders.json"));
  BOOST_TEST_REQUIRE(r.has_value());
  schema expected{"orders",
                  "orders",
                  {{"id", column_type::string, false},
                   {"amount", column_type::bigint, false},
                   {"note", column_type::string, true}}};
  BOOST_TEST((*r == expected));
}

BOOST_AUTO_TEST_CASE(writes_members_in_the_documented_order) {
  schema s{"orders", "orders", {{"id", column_type::string, false}, {"ok", column_type::boolean, true}}};
  BOOST_TEST(
      boost::json::serialize(schema_to_json(s)) ==
      R"({"source":"orders","topic":"orders","columns":[{"name":"id","type":"STRING","nullable":false},)"
      R"({"name":"ok","type":"BOOLEAN","nullable":true}]})");
}

BOOST_AUTO_TEST_CASE(prefixes_paths_and_sets_the_phase_of_the_caller) {
  auto v = boost::json::parse(R"({"source": "s", "topic": "t", "columns": [{"name": "a", "type": "INT"}]})");
  auto r = schema_from_json(v, "$.schema", phase::plan);
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().path == "$.schema.columns[0].type");
  BOOST_TEST(static_cast<int>(r.error().phase) == static_cast<int>(phase::plan));
}

BOOST_AUTO_TEST_CASE(formats_semantic_errors_with_their_path) {
  auto r = load_schema(R"({"source": "s", "topic": "t", "columns": [{"name": "a", "type": "BIGINT"}]})");
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(streamt::format(r.error()).rfind("$.columns[0].nullable: ", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(accepts_only_kafka_topic_names) {
  BOOST_TEST(is_valid_topic_name("orders"));
  BOOST_TEST(is_valid_topic_name("a.b_c-D9"));
  BOOST_TEST(is_valid_topic_name("..."));
  BOOST_TEST(is_valid_topic_name(std::string(249, 'x')));
  BOOST_TEST(!is_valid_topic_name(std::string(250, 'x')));
  BOOST_TEST(!is_valid_topic_name(""));
  BOOST_TEST(!is_valid_topic_name("."));
  BOOST_TEST(!is_valid_topic_name(".."));
  BOOST_TEST(!is_valid_topic_name("a b"));
  BOOST_TEST(!is_valid_topic_name("a/b"));
  BOOST_TEST(!is_valid_topic_name("caf\xC3\xA9"));
}

BOOST_AUTO_TEST_SUITE_END()
