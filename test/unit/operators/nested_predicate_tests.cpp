// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The predicate on plan version 2's types and nested columns, through the
// whole stage pipeline (decode fills the slots the predicate reads).

#include "operators/stage_pipeline.hpp"

#include "payments_fixture.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace ops = streamt::operators;
namespace t = streamt::operators::test;
namespace n = streamt::operators::test::payments;
using namespace streamt::plan;

namespace {

std::string record(std::string_view op, std::string_view after) {
  return R"({"before":null,"after":)" + std::string(after) + R"(,"source":{"db":"x"},"op":")" +
         std::string(op) + R"(","ts_ms":"2026-12-05T10:00:00Z"})";
}

std::string change(std::string_view amount, std::string_view score) {
  return R"({"id":1,"amount":)" + std::string(amount) + R"(,"score":)" + std::string(score) +
         R"(,"paid_at":null,"tags":null})";
}

ops::outcome run(const std::vector<condition>& where, const std::string& value) {
  plan p = t::payments_plan();
  p.predicate = where;
  ops::stage_pipeline pipeline(p);
  const ops::step s = pipeline.process(std::string_view(value));
  BOOST_TEST_REQUIRE((s.outcome != ops::outcome::invalid), (s.error ? s.error->message : ""));
  return s.outcome;
}

constexpr auto passes = ops::outcome::emitted;
constexpr auto drops = ops::outcome::filtered;

}  // namespace

BOOST_AUTO_TEST_SUITE(nested_predicate)

BOOST_AUTO_TEST_CASE(a_decimal_is_compared_exactly_at_its_scale) {
  const std::vector<condition> at_least_12_50{{n::after_amount, compare_op::ge, decimal_value{1250}}};
  BOOST_TEST((run(at_least_12_50, record("c", change("12.5", "null"))) == passes));
  BOOST_TEST((run(at_least_12_50, record("c", change("\"12.50\"", "null"))) == passes));
  BOOST_TEST((run(at_least_12_50, record("c", change("12.49", "null"))) == drops));
  BOOST_TEST((run(at_least_12_50, record("c", change("-99999999.99", "null"))) == drops));
  const std::vector<condition> equal{{n::after_amount, compare_op::eq, decimal_value{1250}}};
  BOOST_TEST((run(equal, record("c", change("1.25e1", "null"))) == passes));
}

BOOST_AUTO_TEST_CASE(a_double_is_ordered_and_a_null_one_is_never_true) {
  const std::vector<condition> below_half{{n::after_score, compare_op::lt, 0.5}};
  BOOST_TEST((run(below_half, record("c", change("1", "0.25"))) == passes));
  BOOST_TEST((run(below_half, record("c", change("1", "0.5"))) == drops));
  BOOST_TEST((run(below_half, record("c", change("1", "null"))) == drops));
}

BOOST_AUTO_TEST_CASE(a_timestamp_compares_the_instant_whatever_offset_wrote_it) {
  // 2026-12-05T10:00:00Z written as 11:00 at +01:00 is the same instant.
  const std::vector<condition> at{{n::ts_ms, compare_op::eq, timestamp_value{1796464800000}}};
  BOOST_TEST((run(at, record("c", change("1", "null"))) == passes));
  const std::vector<condition> after_it{{n::ts_ms, compare_op::gt, timestamp_value{1796464800000}}};
  BOOST_TEST((run(after_it, record("c", change("1", "null"))) == drops));
}

BOOST_AUTO_TEST_CASE(a_comparison_under_a_null_row_is_not_true_and_is_null_sees_it) {
  const std::string deleted = record("d", "null");
  BOOST_TEST((run({{n::after_amount, compare_op::ge, decimal_value{0}}}, deleted) == drops));
  BOOST_TEST((run({{n::after_amount, compare_op::ne, decimal_value{0}}}, deleted) == drops));
  BOOST_TEST((run({{n::after_amount, compare_op::is_null, {}}}, deleted) == passes));
  BOOST_TEST((run({{n::after, compare_op::is_null, {}}}, deleted) == passes));
  BOOST_TEST((run({{n::after, compare_op::is_not_null, {}}}, record("c", change("1", "null"))) == passes));
}

BOOST_AUTO_TEST_CASE(conditions_on_op_and_a_nested_decimal_combine_as_and) {
  const std::vector<condition> where{{n::op, compare_op::eq, std::string("c")},
                                     {n::after_amount, compare_op::ge, decimal_value{5000}}};
  BOOST_TEST((run(where, record("c", change("50", "null"))) == passes));
  BOOST_TEST((run(where, record("u", change("50", "null"))) == drops));
  BOOST_TEST((run(where, record("c", change("49.99", "null"))) == drops));
}

BOOST_AUTO_TEST_SUITE_END()
