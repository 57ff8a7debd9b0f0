// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#define BOOST_TEST_MODULE operators
#include "operators/stage_pipeline.hpp"

#include "orders_fixture.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace ops = streamt::operators;
namespace plan = streamt::plan;
namespace t = streamt::operators::test;

namespace {

ops::stage_pipeline big_orders() {
  return ops::stage_pipeline(t::orders_plan_where({{t::amount, plan::compare_op::ge, std::int64_t{50}}}));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stage_pipeline)

BOOST_AUTO_TEST_CASE(drops_a_null_value_as_a_tombstone) {
  auto p = big_orders();
  auto s = p.process(std::nullopt);
  BOOST_TEST((s.outcome == ops::outcome::tombstone));
  BOOST_TEST(s.output.empty());
  BOOST_TEST(s.error == nullptr);
}

BOOST_AUTO_TEST_CASE(refuses_an_empty_value_as_invalid_not_as_a_tombstone) {
  auto p = big_orders();
  auto s = p.process(std::string_view());
  BOOST_TEST_REQUIRE((s.outcome == ops::outcome::invalid));
  BOOST_TEST_REQUIRE(s.error != nullptr);
  BOOST_TEST(s.error->code == "empty_value");
  BOOST_TEST((s.error->phase == streamt::phase::record));
}

BOOST_AUTO_TEST_CASE(emits_a_passing_record_encoded_in_projection_order) {
  auto p = big_orders();
  auto s = p.process(R"({"id":"a","amount":120,"note":null,"flag":true})");
  BOOST_TEST_REQUIRE((s.outcome == ops::outcome::emitted));
  BOOST_TEST(s.output == R"({"amount":120,"order_id":"a","flag":true,"note":null})");
  BOOST_TEST(s.error == nullptr);
}

BOOST_AUTO_TEST_CASE(filters_a_record_the_predicate_rejects) {
  auto p = big_orders();
  auto s = p.process(R"({"id":"b","amount":49,"note":null,"flag":true})");
  BOOST_TEST((s.outcome == ops::outcome::filtered));
  BOOST_TEST(s.output.empty());
}

BOOST_AUTO_TEST_CASE(validates_before_filtering) {
  // A record the predicate would drop is still invalid if it breaks the schema.
  auto p = big_orders();
  auto s = p.process(R"({"id":"b","amount":1,"note":null,"flag":true,"extra":0})");
  BOOST_TEST_REQUIRE((s.outcome == ops::outcome::invalid));
  BOOST_TEST(s.error->code == "unknown_field");
}

BOOST_AUTO_TEST_CASE(reports_an_invalid_record_and_keeps_working_afterwards) {
  auto p = big_orders();
  auto bad = p.process(R"({"id":"c","amount":"120","note":null,"flag":null})");
  BOOST_TEST_REQUIRE((bad.outcome == ops::outcome::invalid));
  BOOST_TEST(bad.error->code == "wrong_type");
  BOOST_TEST(bad.error->message == "column 'amount' expects BIGINT, found a string at byte 19");
  auto good = p.process(R"({"id":"d","amount":90,"note":"n","flag":false})");
  BOOST_TEST_REQUIRE((good.outcome == ops::outcome::emitted));
  BOOST_TEST(good.output == R"({"amount":90,"order_id":"d","flag":false,"note":"n"})");
}

BOOST_AUTO_TEST_CASE(runs_the_acceptance_phase_one_sequence) {
  // contract §7 phase 1: a120, b?, c?, d90, e110, f? with amount >= 50.
  plan::plan pl = t::orders_plan_where({{t::amount, plan::compare_op::ge, std::int64_t{50}}});
  pl.projection = {{t::id, "id"}, {t::amount, "amount"}};
  ops::stage_pipeline p(pl);
  const std::pair<const char*, std::int64_t> inputs[] = {{"a", 120}, {"b", 10},  {"c", 49},
                                                         {"d", 90},  {"e", 110}, {"f", 0}};
  std::string emitted;
  for (auto [id, amount] : inputs) {
    std::string v = std::string(R"({"id":")") + id + R"(","amount":)" + std::to_string(amount) +
                    R"(,"note":null,"flag":null})";
    auto s = p.process(v);
    if (s.outcome == ops::outcome::emitted) emitted += std::string(s.output) + "\n";
  }
  BOOST_TEST(emitted ==
             "{\"id\":\"a\",\"amount\":120}\n{\"id\":\"d\",\"amount\":90}\n{\"id\":\"e\",\"amount\":110}\n");
}

BOOST_AUTO_TEST_CASE(keeps_the_output_view_valid_until_the_next_call) {
  auto p = big_orders();
  auto s = p.process(R"({"id":"a","amount":120,"note":null,"flag":true})");
  std::string copy(s.output);
  BOOST_TEST(s.output == copy);
}

BOOST_AUTO_TEST_SUITE_END()
