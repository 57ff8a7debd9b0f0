// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/plan_diff.hpp"
#include "plan/avro_sink.hpp"
#include "test/support/orders_plan.hpp"
#include "test/support/routed_plan.hpp"

#include <boost/test/unit_test.hpp>

#include <limits>
#include <map>
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

BOOST_AUTO_TEST_CASE(each_partition_counts_the_records_compared_on_it_and_an_unread_one_is_absent) {
  engine::plan_comparison c(orders_plan(50), orders_plan(50), 10);
  BOOST_TEST(c.records_by_partition().empty());
  engine::record_view r = record(0, R"({"id":"a","amount":120})");
  c.compare(r);
  r.partition = 5;
  c.compare(r);
  c.compare(r);
  const std::map<std::int32_t, std::uint64_t> expected{{2, 1u}, {5, 2u}};
  BOOST_TEST((c.records_by_partition() == expected));
  BOOST_TEST(c.records() == 3u);
}

BOOST_AUTO_TEST_CASE(the_last_n_records_start_n_offsets_before_the_end_or_at_the_log_start) {
  BOOST_TEST(engine::last_records_start(0, 1000, 10) == 990);
  BOOST_TEST(engine::last_records_start(400, 1000, 600) == 400);
  BOOST_TEST(engine::last_records_start(400, 1000, 601) == 400);  // fewer remain: the log start
  BOOST_TEST(engine::last_records_start(7, 7, 1) == 7);           // an empty partition
  constexpr std::int64_t far = std::numeric_limits<std::int64_t>::max();
  BOOST_TEST(engine::last_records_start(0, far, 1) == far - 1);
  BOOST_TEST(engine::last_records_start(5, 9, std::numeric_limits<std::uint64_t>::max()) == 5);
}

BOOST_AUTO_TEST_CASE(an_avro_sink_s_outputs_are_compared_as_the_json_of_their_values) {
  plan::plan avro = orders_plan(50);
  avro.sink.format = plan::sink_format::avro;
  avro.sink.avro = *plan::avro::pin_sink_schema(avro);
  // The same rows written as Avro or JSON: the values do not differ.
  engine::plan_comparison same(orders_plan(50), avro, 10);
  same.compare(record(0, R"({"id":"a","amount":120})"));
  BOOST_TEST(same.old_tally().passed == 1u);
  BOOST_TEST(same.differences().total() == 0u);
  // A changed value is shown as the fields' values, not as Avro bytes.
  engine::plan_comparison c(avro, orders_plan(100), 10);
  c.compare(record(0, R"({"id":"d","amount":90})"));
  BOOST_TEST_REQUIRE(c.kept().size() == 1u);
  BOOST_TEST(c.kept()[0].old_outcome.output.value() == R"({"id":"d","amount":90})");
}

BOOST_AUTO_TEST_CASE(a_plan_with_an_avro_source_needs_a_learner_and_stops_when_it_fails) {
  plan::plan avro = orders_plan(50);
  avro.version = 2;
  const std::string schema =
      R"({"type":"record","name":"order","fields":[{"name":"id","type":"string"},{"name":"amount","type":"long"}]})";
  avro.schema.avro = plan::avro_source{schema, "", "", "", 0};
  avro.sink.format = plan::sink_format::avro;
  avro.sink.avro = *plan::avro::pin_sink_schema(avro);
  // 00, id 7, then "a" and 120: a record of the writer schema 7.
  const std::string_view framed(
      "\0\0\0\0\x07\x02"
      "a\xF0\x01",
      9);
  int asked = 0;
  engine::plan_comparison c(
      avro, avro, 10, engine::learn_from([&](std::uint32_t id) {
        ++asked;
        BOOST_TEST(id == 7u);
        return result<std::optional<engine::registered_schema>>(engine::registered_schema{schema, "AVRO"});
      }));
  c.compare(record(0, framed));
  c.compare(record(1, framed));
  BOOST_TEST(c.old_tally().passed == 2u);
  BOOST_TEST(c.new_tally().passed == 2u);
  BOOST_TEST(asked == 2);  // once for each plan's stages; the command's fetcher keeps one answer per id
  BOOST_TEST(!c.failure().has_value());

  diagnostic down;
  down.code = "registry_failed";
  engine::plan_comparison failing(avro, avro, 10, engine::learn_from([&](std::uint32_t) {
                                    return result<std::optional<engine::registered_schema>>(down);
                                  }));
  failing.compare(record(0, framed));
  failing.compare(record(1, framed));
  BOOST_TEST_REQUIRE(failing.failure().has_value());
  BOOST_TEST(failing.failure()->code == "registry_failed");
  BOOST_TEST(failing.records() == 0u);  // the record it failed for is not counted, nor any after it
}

BOOST_AUTO_TEST_SUITE_END()

// Routed plans (issue 39): the comparison is per route, matched by name.
namespace {

// orders: id (node 0) STRING, amount (node 1) BIGINT. A route to `sink`
// taking amount >= min (or < min with `below`), keyed by node `key`.
plan::route route_to(std::string sink, std::int64_t min, std::optional<std::size_t> key = std::nullopt,
                     bool below = false) {
  return {std::move(sink),
          {{1, below ? plan::compare_op::lt : plan::compare_op::ge, min}},
          {{0, "id"}, {1, "amount"}},
          key};
}

plan::plan routed(std::vector<plan::route> routes) {
  return streamt::test::routed(orders_plan(0), std::move(routes));
}

const engine::route_tally& tally_of(const engine::plan_comparison& c, std::string_view name) {
  for (const engine::route_tally& t : c.routes())
    if (t.name == name) return t;
  throw std::logic_error("no route " + std::string(name));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(plan_diff_routes)

BOOST_AUTO_TEST_CASE(unchanged_routes_produce_no_difference_and_count_each_routes_outputs) {
  const plan::plan p = routed({route_to("big", 100), route_to("keyed", 10, 0)});
  engine::plan_comparison c(p, p, 10);
  BOOST_TEST(c.routed());
  c.compare(record(0, R"({"id":"a","amount":120})"));  // both routes
  c.compare(record(1, R"({"id":"b","amount":20})"));   // keyed
  c.compare(record(2, R"({"id":"c","amount":1})"));    // neither: unrouted in both
  c.compare(record(3, R"({"id":"d"})"));               // invalid in both
  BOOST_TEST(c.differences().total() == 0u);
  BOOST_TEST(c.differences().records == 0u);
  BOOST_TEST(c.kept().empty());
  BOOST_TEST_REQUIRE(c.routes().size() == 2u);
  BOOST_TEST(c.routes()[0].name == "big");
  BOOST_TEST(c.routes()[1].name == "keyed");
  BOOST_TEST(c.routes()[0].in_old);
  BOOST_TEST(c.routes()[0].in_new);
  BOOST_TEST(c.routes()[0].old_outputs == 1u);
  BOOST_TEST(c.routes()[1].new_outputs == 2u);
  BOOST_TEST(c.old_tally().passed == 2u);
  BOOST_TEST(c.old_tally().filtered == 1u);
  BOOST_TEST(c.old_tally().invalid == 1u);
}

BOOST_AUTO_TEST_CASE(an_added_route_makes_each_of_its_outputs_new_only_on_it) {
  engine::plan_comparison c(routed({route_to("big", 100)}),
                            routed({route_to("big", 100), route_to("small", 100, std::nullopt, true)}), 10);
  c.compare(record(0, R"({"id":"a","amount":120})"));
  c.compare(record(1, R"({"id":"b","amount":20})", "kb"));
  BOOST_TEST(c.differences().new_only == 1u);
  BOOST_TEST(c.differences().total() == 1u);
  BOOST_TEST_REQUIRE(c.kept().size() == 1u);
  const engine::record_difference& d = c.kept()[0];
  BOOST_TEST(d.route.value() == "small");
  BOOST_TEST((d.kind == engine::difference_kind::new_only));
  BOOST_TEST(d.offset == 1);
  BOOST_TEST(!d.old_outcome.has_output());
  BOOST_TEST(d.new_outcome.output.value() == R"({"id":"b","amount":20})");
  BOOST_TEST(d.new_outcome.key.value() == "kb");  // no PARTITION BY: the input's key
  const engine::route_tally& small = tally_of(c, "small");
  BOOST_TEST(!small.in_old);
  BOOST_TEST(small.in_new);
  BOOST_TEST(small.new_only == 1u);
  BOOST_TEST(tally_of(c, "big").differences() == 0u);
}

BOOST_AUTO_TEST_CASE(a_removed_route_makes_each_of_its_outputs_old_only_on_it) {
  engine::plan_comparison c(routed({route_to("big", 100), route_to("eu", 0)}), routed({route_to("big", 100)}),
                            10);
  c.compare(record(0, R"({"id":"a","amount":120})"));
  c.compare(record(1, R"({"id":"b","amount":20})"));
  BOOST_TEST(c.differences().old_only == 2u);
  BOOST_TEST(c.differences().records == 2u);
  BOOST_TEST_REQUIRE(c.kept().size() == 2u);
  BOOST_TEST(c.kept()[0].route.value() == "eu");
  BOOST_TEST(c.kept()[1].route.value() == "eu");
  BOOST_TEST(!tally_of(c, "eu").in_new);
  BOOST_TEST(tally_of(c, "eu").old_outputs == 2u);
  BOOST_TEST(tally_of(c, "eu").new_outputs == 0u);
}

BOOST_AUTO_TEST_CASE(a_changed_predicate_in_one_route_differs_on_that_route_only) {
  engine::plan_comparison c(routed({route_to("big", 100), route_to("eu", 10)}),
                            routed({route_to("big", 50), route_to("eu", 10)}), 10);
  c.compare(record(0, R"({"id":"a","amount":120})"));  // both routes in both plans
  c.compare(record(1, R"({"id":"b","amount":70})"));   // big in the new plan only
  c.compare(record(2, R"({"id":"c","amount":5})"));    // no route in either
  BOOST_TEST(c.differences().total() == 1u);
  BOOST_TEST(c.differences().new_only == 1u);
  BOOST_TEST_REQUIRE(c.kept().size() == 1u);
  BOOST_TEST(c.kept()[0].route.value() == "big");
  BOOST_TEST(c.kept()[0].offset == 1);
  BOOST_TEST(tally_of(c, "eu").differences() == 0u);
  BOOST_TEST(tally_of(c, "big").old_outputs == 1u);
  BOOST_TEST(tally_of(c, "big").new_outputs == 2u);
}

BOOST_AUTO_TEST_CASE(a_changed_key_column_is_a_changed_output_with_both_keys) {
  plan::plan by_id = routed({route_to("keyed", 0, 0)});
  plan::plan by_amount = routed({route_to("keyed", 0, 1)});
  engine::plan_comparison c(by_id, by_amount, 10);
  c.compare(record(0, R"({"id":"a","amount":120})"));
  BOOST_TEST(c.differences().changed == 1u);
  BOOST_TEST_REQUIRE(c.kept().size() == 1u);
  const engine::record_difference& d = c.kept()[0];
  BOOST_TEST((d.kind == engine::difference_kind::changed));
  BOOST_TEST(d.route.value() == "keyed");
  BOOST_TEST((d.old_outcome.output == d.new_outcome.output));  // the same value, placed by another key
  BOOST_TEST(d.old_outcome.key.value() == "a");
  BOOST_TEST(d.new_outcome.key.value() == "120");
  BOOST_TEST(d.key.value() == "k");  // the input's
  // The key's format is the key too: 120 as 8 big-endian bytes.
  plan::plan long_keys = by_amount;
  long_keys.key_format = plan::key_format::long_;
  engine::plan_comparison f(by_amount, long_keys, 10);
  f.compare(record(0, R"({"id":"a","amount":120})"));
  BOOST_TEST_REQUIRE(f.kept().size() == 1u);
  BOOST_TEST(f.kept()[0].new_outcome.key.value() == std::string("\0\0\0\0\0\0\0\x78", 8));
}

BOOST_AUTO_TEST_CASE(a_record_differing_on_two_routes_is_one_record_with_two_differences) {
  engine::plan_comparison c(routed({route_to("big", 100), route_to("eu", 10)}),
                            routed({route_to("big", 200), route_to("eu", 200)}), 10);
  c.compare(record(0, R"({"id":"a","amount":120})"));
  BOOST_TEST(c.differences().old_only == 2u);
  BOOST_TEST(c.differences().records == 1u);
  BOOST_TEST_REQUIRE(c.kept().size() == 2u);
  BOOST_TEST(c.kept()[0].route.value() == "big");  // the routes in order
  BOOST_TEST(c.kept()[1].route.value() == "eu");
}

BOOST_AUTO_TEST_CASE(a_select_compares_as_one_route_named_by_its_sink) {
  // orders_plan writes big-orders: a routed plan with one route there,
  // the same predicate and projection, does not differ.
  const plan::plan select = orders_plan(50);
  engine::plan_comparison same(select, routed({route_to("big-orders", 50)}), 10);
  same.compare(record(0, R"({"id":"a","amount":120})"));
  same.compare(record(1, R"({"id":"b","amount":20})"));
  BOOST_TEST(same.routed());
  BOOST_TEST_REQUIRE(same.routes().size() == 1u);
  BOOST_TEST(same.routes()[0].name == "big-orders");
  BOOST_TEST(same.differences().total() == 0u);
  // Keyed by id, every output it writes moves: a changed key.
  engine::plan_comparison keyed(select, routed({route_to("big-orders", 50, 0)}), 10);
  keyed.compare(record(0, R"({"id":"a","amount":120})"));
  BOOST_TEST(keyed.differences().changed == 1u);
  // To another sink: another route, so each output is on one side only.
  engine::plan_comparison moved(select, routed({route_to("other", 50)}), 10);
  moved.compare(record(0, R"({"id":"a","amount":120})"));
  BOOST_TEST(moved.differences().old_only == 1u);
  BOOST_TEST(moved.differences().new_only == 1u);
  BOOST_TEST(moved.differences().records == 1u);
}

BOOST_AUTO_TEST_CASE(routes_writing_one_sink_are_matched_by_their_number_among_its_statements) {
  engine::plan_comparison c(routed({route_to("out", 100), route_to("out", 10)}),
                            routed({route_to("out", 100), route_to("out", 20)}), 10);
  c.compare(record(0, R"({"id":"a","amount":15})"));
  BOOST_TEST_REQUIRE(c.routes().size() == 2u);
  BOOST_TEST(c.routes()[0].name == "out#1");
  BOOST_TEST(c.routes()[1].name == "out#2");
  BOOST_TEST_REQUIRE(c.kept().size() == 1u);
  BOOST_TEST(c.kept()[0].route.value() == "out#2");
  BOOST_TEST((c.kept()[0].kind == engine::difference_kind::old_only));
}

BOOST_AUTO_TEST_CASE(a_record_no_route_takes_and_one_plan_finds_invalid_is_the_records_difference) {
  plan::plan with_note = routed({route_to("big", 100)});
  with_note.schema.columns.push_back({"note", plan::column_type::string, true});
  engine::plan_comparison c(routed({route_to("big", 100)}), with_note, 10);
  c.compare(record(0, R"({"id":"a","amount":5,"note":null})"));  // old: invalid; new: no route
  BOOST_TEST(c.differences().invalid_in_one == 1u);
  BOOST_TEST_REQUIRE(c.kept().size() == 1u);
  BOOST_TEST(!c.kept()[0].route.has_value());
  BOOST_TEST(c.kept()[0].old_outcome.invalid_code.value() == "unknown_field");
  // Invalid in the old plan, taken in the new: new_only on the route, the
  // old plan's refusal kept with it.
  c.compare(record(1, R"({"id":"b","amount":500,"note":null})"));
  BOOST_TEST(c.differences().new_only == 1u);
  BOOST_TEST_REQUIRE(c.kept().size() == 2u);
  BOOST_TEST(c.kept()[1].route.value() == "big");
  BOOST_TEST(c.kept()[1].old_outcome.invalid_code.value() == "unknown_field");
  BOOST_TEST(tally_of(c, "big").new_only == 1u);
}

BOOST_AUTO_TEST_CASE(two_selects_are_no_routed_comparison) {
  engine::plan_comparison c(orders_plan(50), orders_plan(100), 10);
  c.compare(record(0, R"({"id":"a","amount":70})"));
  BOOST_TEST(!c.routed());
  BOOST_TEST(c.routes().empty());
  BOOST_TEST_REQUIRE(c.kept().size() == 1u);
  BOOST_TEST(!c.kept()[0].route.has_value());
  BOOST_TEST(!c.kept()[0].old_outcome.key.has_value());
  BOOST_TEST(c.differences().records == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
