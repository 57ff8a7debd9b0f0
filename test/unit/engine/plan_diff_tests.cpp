// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/plan_diff.hpp"
#include "plan/avro_sink.hpp"
#include "test/support/orders_plan.hpp"

#include <boost/test/unit_test.hpp>

#include <optional>
#include <stdexcept>
#include <string>

namespace {

using namespace streamt;

using test::orders_plan;

engine::record_view record(std::int64_t offset, std::optional<std::string_view> value,
                           std::optional<std::string_view> key = "k") {
  engine::record_view r;
  r.topic = "orders";
  r.partition = 2;
  r.offset = offset;
  r.key = key;
  r.value = value;
  return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(plan_diff)

BOOST_AUTO_TEST_CASE(a_record_both_plans_pass_alike_or_drop_alike_is_no_difference) {
  engine::plan_comparison c(orders_plan(50), orders_plan(100), 10);
  c.compare(record(0, R"({"id":"a","amount":120})"));
  c.compare(record(1, R"({"id":"b","amount":20})"));
  c.compare(record(2, std::nullopt));
  BOOST_TEST(c.records() == 3u);
  BOOST_TEST(c.differences().total() == 0u);
  BOOST_TEST(c.old_tally().passed == 1u);
  BOOST_TEST(c.old_tally().filtered == 1u);
  BOOST_TEST(c.old_tally().tombstones == 1u);
  BOOST_TEST(c.new_tally().passed == 1u);
  BOOST_TEST(c.kept().empty());
}

BOOST_AUTO_TEST_CASE(a_record_only_one_plan_passes_is_kept_with_both_outcomes_and_its_position) {
  engine::plan_comparison c(orders_plan(50), orders_plan(100), 10);
  c.compare(record(7, R"({"id":"d","amount":90})", "kd"));
  c.compare(record(8, R"({"id":"e","amount":99})", std::nullopt));
  BOOST_TEST(c.differences().old_only == 2u);
  BOOST_TEST(c.differences().new_only == 0u);
  BOOST_TEST_REQUIRE(c.kept().size() == 2u);
  const engine::record_difference& d = c.kept()[0];
  BOOST_TEST((d.kind == engine::difference_kind::old_only));
  BOOST_TEST(d.topic == "orders");
  BOOST_TEST(d.partition == 2);
  BOOST_TEST(d.offset == 7);
  BOOST_TEST(d.key.value() == "kd");
  BOOST_TEST(d.old_outcome.output.value() == R"({"id":"d","amount":90})");
  BOOST_TEST(!d.new_outcome.output.has_value());
  BOOST_TEST(!c.kept()[1].key.has_value());
}

BOOST_AUTO_TEST_CASE(a_different_projection_of_a_record_both_pass_is_a_changed_value) {
  plan::plan renamed = orders_plan(50);
  renamed.projection = {{0, "order_id"}};
  engine::plan_comparison c(orders_plan(50), renamed, 10);
  c.compare(record(0, R"({"id":"a","amount":120})"));
  BOOST_TEST(c.differences().changed == 1u);
  BOOST_TEST_REQUIRE(c.kept().size() == 1u);
  BOOST_TEST((c.kept()[0].kind == engine::difference_kind::changed));
  BOOST_TEST(c.kept()[0].new_outcome.output.value() == R"({"order_id":"a"})");
}

BOOST_AUTO_TEST_CASE(a_record_invalid_for_one_plan_only_differs_and_names_the_reason) {
  // The new plan declares a nullable note the old one does not know.
  plan::plan with_note = orders_plan(50);
  with_note.schema.columns.push_back({"note", plan::column_type::string, true});
  engine::plan_comparison c(orders_plan(50), with_note, 10);
  c.compare(record(0, R"({"id":"a","amount":5,"note":null})"));
  BOOST_TEST(c.old_tally().invalid == 1u);
  BOOST_TEST(c.new_tally().filtered == 1u);
  BOOST_TEST(c.differences().invalid_in_one == 1u);
  BOOST_TEST_REQUIRE(c.kept().size() == 1u);
  BOOST_TEST(c.kept()[0].old_outcome.invalid_code.value() == "unknown_field");
  BOOST_TEST(!c.kept()[0].new_outcome.invalid_code.has_value());
  // Invalid for both: no difference, counted for each.
  c.compare(record(1, R"({"id":"b"})"));
  BOOST_TEST(c.differences().total() == 1u);
  BOOST_TEST(c.old_tally().invalid == 2u);
  BOOST_TEST(c.new_tally().invalid == 1u);
}

BOOST_AUTO_TEST_CASE(only_the_first_differences_are_kept_and_all_are_counted) {
  engine::plan_comparison c(orders_plan(50), orders_plan(100), 2);
  for (std::int64_t o = 0; o < 5; ++o) c.compare(record(o, R"({"id":"d","amount":90})"));
  BOOST_TEST(c.differences().old_only == 5u);
  BOOST_TEST_REQUIRE(c.kept().size() == 2u);
  BOOST_TEST(c.kept()[1].offset == 1);
}

BOOST_AUTO_TEST_CASE(a_plan_with_an_avro_sink_on_either_side_is_refused) {
  plan::plan avro = orders_plan(50);
  avro.sink.format = plan::sink_format::avro;
  avro.sink.avro = *plan::avro::pin_sink_schema(avro);
  BOOST_CHECK_THROW(engine::plan_comparison(avro, orders_plan(50), 10), std::invalid_argument);
  BOOST_CHECK_THROW(engine::plan_comparison(orders_plan(50), avro, 10), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
