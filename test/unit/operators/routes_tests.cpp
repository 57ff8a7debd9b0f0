// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// A routed plan (INSERT INTO routes) through the stage pipeline: one decode,
// then each route's predicate, projection and key (issue 39).
#include "operators/stage_pipeline.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ops = streamt::operators;
namespace plan = streamt::plan;

namespace {

constexpr std::size_t id = 0, amount = 1, region = 2;

// id STRING NOT NULL, amount BIGINT NULL, region STRING NULL.
plan::plan routed(std::vector<plan::route> routes, plan::key_format keys = plan::key_format::string) {
  plan::plan p;
  p.identity = {"orders-routes", "orders", ""};
  p.schema.source = "orders";
  p.schema.topic = "orders";
  p.schema.columns = {{"id", plan::column_type::string, false},
                      {"amount", plan::column_type::bigint, true},
                      {"region", plan::column_type::string, true}};
  p.routes = std::move(routes);
  p.key_format = keys;
  return p;
}

plan::route route_to(std::string sink, std::vector<plan::condition> where,
                     std::vector<plan::projection_item> select,
                     std::optional<std::size_t> partition_by = std::nullopt) {
  return {std::move(sink), std::move(where), std::move(select), partition_by};
}

std::vector<std::uint32_t> routes_of(const ops::step& s) {
  std::vector<std::uint32_t> out;
  for (const ops::route_output& o : s.outputs) out.push_back(o.route);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(routed_stage_pipeline)

BOOST_AUTO_TEST_CASE(a_record_two_overlapping_routes_take_is_one_step_with_an_output_for_each) {
  ops::stage_pipeline p(routed({
      route_to("big", {{amount, plan::compare_op::ge, std::int64_t{100}}}, {{id, "id"}, {amount, "amount"}}),
      route_to("eu", {{region, plan::compare_op::eq, std::string("eu")}}, {{id, "order"}}),
  }));
  BOOST_TEST(p.route_count() == 2u);
  BOOST_TEST(p.routed());

  ops::step both = p.process(std::string_view(R"({"id":"a","amount":120,"region":"eu"})"));
  BOOST_TEST((both.outcome == ops::outcome::emitted));
  BOOST_TEST(routes_of(both) == (std::vector<std::uint32_t>{0, 1}), boost::test_tools::per_element());
  // Each output in its own buffer: both stay valid together.
  BOOST_TEST(*both.outputs[0].value == R"({"id":"a","amount":120})");
  BOOST_TEST(*both.outputs[1].value == R"({"order":"a"})");
  BOOST_TEST(!both.outputs[0].key.has_value());
  BOOST_TEST(!both.outputs[1].key.has_value());

  ops::step second_only = p.process(std::string_view(R"({"id":"b","amount":5,"region":"eu"})"));
  BOOST_TEST(routes_of(second_only) == (std::vector<std::uint32_t>{1}), boost::test_tools::per_element());
  BOOST_TEST(*second_only.outputs[0].value == R"({"order":"b"})");

  ops::step none = p.process(std::string_view(R"({"id":"c","amount":5,"region":"us"})"));
  BOOST_TEST((none.outcome == ops::outcome::filtered));
  BOOST_TEST(none.outputs.empty());
}

BOOST_AUTO_TEST_CASE(partition_by_writes_a_string_as_its_bytes_and_a_bigint_as_eight_big_endian_bytes) {
  ops::stage_pipeline p(routed(
      {
          route_to("all", {}, {{id, "id"}}),
          route_to("by-region", {}, {{id, "id"}}, region),
          route_to("by-amount", {}, {{id, "id"}}, amount),
      },
      plan::key_format::long_));
  ops::step s = p.process(std::string_view(R"({"id":"a","amount":258,"region":"eu"})"));
  BOOST_TEST_REQUIRE(s.outputs.size() == 3u);
  BOOST_TEST(!s.outputs[0].key.has_value());
  BOOST_TEST(*s.outputs[1].key == "eu");
  BOOST_TEST(*s.outputs[2].key == std::string("\0\0\0\0\0\0\x01\x02", 8));

  // Kafka's LongSerializer writes a negative value in two's complement.
  ops::step negative = p.process(std::string_view(R"({"id":"b","amount":-2,"region":"us"})"));
  BOOST_TEST(*negative.outputs[2].key == std::string("\xff\xff\xff\xff\xff\xff\xff\xfe", 8));
  BOOST_TEST(*negative.outputs[1].key == "us");
}

BOOST_AUTO_TEST_CASE(partition_by_a_bigint_under_key_format_string_writes_its_decimal_text) {
  ops::stage_pipeline p(routed({route_to("by-amount", {}, {{id, "id"}}, amount)}, plan::key_format::string));
  ops::step lowest = p.process(std::string_view(R"({"id":"a","amount":-9223372036854775807,"region":"eu"})"));
  BOOST_TEST_REQUIRE(lowest.outputs.size() == 1u);
  BOOST_TEST(*lowest.outputs[0].key == "-9223372036854775807");
  ops::step small = p.process(std::string_view(R"({"id":"a","amount":42,"region":"eu"})"));
  BOOST_TEST_REQUIRE(small.outputs.size() == 1u);
  BOOST_TEST(*small.outputs[0].key == "42");
}

BOOST_AUTO_TEST_CASE(a_null_partition_by_column_makes_the_record_invalid_with_no_output_on_any_route) {
  ops::stage_pipeline p(routed({
      route_to("all", {}, {{id, "id"}}),
      route_to("by-region", {}, {{id, "id"}}, region),
  }));
  ops::step s = p.process(std::string_view(R"({"id":"a","amount":1,"region":null})"));
  BOOST_TEST((s.outcome == ops::outcome::invalid));
  BOOST_TEST(s.outputs.empty());
  BOOST_TEST_REQUIRE(s.error != nullptr);
  BOOST_TEST(s.error->code == "null_key");
  // Names the route, the column, and what to do.
  BOOST_TEST(s.error->message.find("route 'by-region'") != std::string::npos);
  BOOST_TEST(s.error->message.find("'region'") != std::string::npos);
  BOOST_TEST(s.error->message.find("IS NOT NULL") != std::string::npos);
  BOOST_TEST(s.error->message.find("dead-letter") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_null_partition_by_column_of_a_route_that_does_not_take_the_record_is_no_fault) {
  ops::stage_pipeline p(routed({
      route_to("all", {}, {{id, "id"}}),
      route_to("by-region", {{region, plan::compare_op::is_not_null, {}}}, {{id, "id"}}, region),
  }));
  ops::step s = p.process(std::string_view(R"({"id":"a","amount":1,"region":null})"));
  BOOST_TEST((s.outcome == ops::outcome::emitted));
  BOOST_TEST(routes_of(s) == (std::vector<std::uint32_t>{0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_single_select_is_one_route_whose_output_keeps_the_input_key) {
  plan::plan one = routed({});
  one.identity.sink_topic = "big";
  one.predicate = {{amount, plan::compare_op::ge, std::int64_t{100}}};
  one.projection = {{id, "id"}};
  ops::stage_pipeline p(one);
  BOOST_TEST(p.route_count() == 1u);
  BOOST_TEST(!p.routed());
  BOOST_TEST(!p.writes_unrouted());
  ops::step s = p.process(std::string_view(R"({"id":"a","amount":120,"region":null})"));
  BOOST_TEST_REQUIRE(s.outputs.size() == 1u);
  BOOST_TEST(s.outputs[0].route == 0u);
  BOOST_TEST(s.output == R"({"id":"a"})");
  BOOST_TEST(*s.outputs[0].value == s.output);
  BOOST_TEST(!s.outputs[0].key.has_value());
}

BOOST_AUTO_TEST_CASE(a_routed_plan_that_forwards_tombstones_is_refused_as_a_caller_bug) {
  plan::plan p = routed({route_to("all", {}, {{id, "id"}})});
  p.schema.tombstones = plan::tombstones::forward;
  BOOST_CHECK_THROW(ops::stage_pipeline{p}, std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
