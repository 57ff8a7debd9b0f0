// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// A routed plan through process_batch (issue 39): each output to its
// route's sink with its key, what no route takes dropped or written to the
// unrouted topic, and counts that add up.
#include "engine/metrics.hpp"
#include "engine/process_batch.hpp"
#include "engine/replay.hpp"
#include "engine/sink_rules.hpp"

#include "test/support/orders_plan.hpp"
#include "test/support/routed_plan.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdint>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace engine = streamt::engine;
namespace ops = streamt::operators;
namespace plan = streamt::plan;

namespace {

struct written {
  std::string topic;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::int64_t offset = 0;
  friend bool operator==(const written&, const written&) = default;
};

std::ostream& operator<<(std::ostream& os, const written& w) {
  return os << w.topic << ": " << w.key.value_or("<null>") << '=' << w.value.value_or("<null>") << '@'
            << w.offset;
}

// process_batch's sink, remembering what each output's topic and key would
// be (the Kafka sink's choice: the route's sink topic, its key or the
// input's).
struct routing_sink {
  std::vector<std::string> route_topics;
  std::string unrouted_topic;
  std::vector<written> out;
  void emit(const engine::record_view& in, const ops::route_output& o) {
    const std::optional<std::string_view> key = o.key ? o.key : in.key;
    out.push_back({route_topics.at(o.route), key ? std::optional<std::string>(*key) : std::nullopt,
                   o.value ? std::optional<std::string>(*o.value) : std::nullopt, in.offset});
  }
  void unrouted(const engine::record_view& in) {
    out.push_back({unrouted_topic, in.key ? std::optional<std::string>(*in.key) : std::nullopt,
                   in.value ? std::optional<std::string>(*in.value) : std::nullopt, in.offset});
  }
};
static_assert(engine::record_sink<routing_sink>);

// orders: id STRING, amount BIGINT. Route 0 "big" takes amount >= 100;
// route 1 "keyed" takes amount >= 10, keyed by id.
plan::plan two_routes(std::string unrouted_topic) {
  plan::plan p = streamt::test::routed(
      streamt::test::orders_plan(0),
      {{"big", {{1, plan::compare_op::ge, std::int64_t{100}}}, {{0, "id"}, {1, "amount"}}, std::nullopt},
       {"keyed", {{1, plan::compare_op::ge, std::int64_t{10}}}, {{1, "amount"}}, 0}});
  p.unrouted_topic = std::move(unrouted_topic);
  return p;
}

engine::record_view record(std::int64_t offset, std::string_view key, std::string_view value) {
  engine::record_view r;
  r.topic = "orders";
  r.partition = 0;
  r.offset = offset;
  r.key = key;
  r.value = value;
  return r;
}

std::vector<engine::record_view> orders() {
  return {
      record(0, "k0", R"({"id":"a","amount":120})"),  // both routes
      record(1, "k1", R"({"id":"b","amount":50})"),   // keyed only
      record(2, "k2", R"({"id":"c","amount":5})"),    // neither
      record(3, "k3", R"({"id":"d","amount":7})"),    // neither
  };
}

// The invariant process_batch.hpp states, for any plan.
void check_adds_up(const engine::record_counts& c) {
  BOOST_TEST(c.consumed == c.emitted + c.filtered + c.tombstones + c.dead_lettered);
  const std::uint64_t outputs =
      std::accumulate(c.route_outputs.begin(), c.route_outputs.end(), std::uint64_t{0});
  BOOST_TEST(outputs >= c.emitted);
  for (std::uint64_t r : c.route_outputs) BOOST_TEST(r <= c.emitted);
  if (c.routed) BOOST_TEST(c.filtered == c.unrouted_dropped + c.unrouted_written);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(routed_process_batch)

BOOST_AUTO_TEST_CASE(
    each_output_goes_to_its_routes_sink_with_its_key_and_unrouted_records_are_dropped_and_counted) {
  ops::stage_pipeline stages(two_routes(""));
  routing_sink sink{{"big", "keyed"}, "", {}};
  engine::record_counts counts;
  const std::vector<engine::record_view> batch = orders();
  const engine::batch_result r = engine::process_batch(batch, stages, sink, counts);
  BOOST_TEST(r.handled == 4u);
  BOOST_TEST(!r.invalid.has_value());
  const std::vector<written> expected{
      {"big", "k0", R"({"id":"a","amount":120})", 0},
      {"keyed", "a", R"({"amount":120})", 0},
      {"keyed", "b", R"({"amount":50})", 1},
  };
  BOOST_TEST(sink.out == expected, boost::test_tools::per_element());
  BOOST_TEST(counts.consumed == 4u);
  BOOST_TEST(counts.emitted == 2u);
  BOOST_TEST(counts.filtered == 2u);
  BOOST_TEST(counts.unrouted_dropped == 2u);
  BOOST_TEST(counts.unrouted_written == 0u);
  BOOST_TEST(counts.route_outputs == (std::vector<std::uint64_t>{1, 2}), boost::test_tools::per_element());
  check_adds_up(counts);
  BOOST_TEST(
      engine::count_text(counts, false, engine::route_names(two_routes(""))) ==
      "4 consumed, 2 emitted, 2 filtered, 0 tombstones; unrouted: 2 dropped, 0 written; routes: big 1, "
      "keyed 2");
}

BOOST_AUTO_TEST_CASE(with_an_unrouted_topic_a_record_no_route_takes_is_written_there_unchanged) {
  ops::stage_pipeline stages(two_routes("orders-unrouted"));
  BOOST_TEST(stages.writes_unrouted());
  routing_sink sink{{"big", "keyed"}, "orders-unrouted", {}};
  engine::record_counts counts;
  const std::vector<engine::record_view> batch = orders();
  engine::process_batch(batch, stages, sink, counts);
  BOOST_TEST_REQUIRE(sink.out.size() == 5u);
  BOOST_TEST(sink.out[3] == (written{"orders-unrouted", "k2", R"({"id":"c","amount":5})", 2}));
  BOOST_TEST(sink.out[4] == (written{"orders-unrouted", "k3", R"({"id":"d","amount":7})", 3}));
  BOOST_TEST(counts.filtered == 2u);
  BOOST_TEST(counts.unrouted_written == 2u);
  BOOST_TEST(counts.unrouted_dropped == 0u);
  check_adds_up(counts);
}

BOOST_AUTO_TEST_CASE(a_record_with_a_null_key_column_stops_the_batch_before_any_of_its_outputs) {
  plan::plan p = two_routes("");
  p.schema.columns[0].nullable = true;
  ops::stage_pipeline stages(p);
  routing_sink sink{{"big", "keyed"}, "", {}};
  engine::record_counts counts;
  const std::vector<engine::record_view> batch{record(0, "k0", R"({"id":"a","amount":120})"),
                                               record(1, "k1", R"({"id":null,"amount":120})"),
                                               record(2, "k2", R"({"id":"c","amount":120})")};
  const engine::batch_result r = engine::process_batch(batch, stages, sink, counts);
  BOOST_TEST(r.handled == 1u);
  BOOST_TEST_REQUIRE(r.invalid.has_value());
  BOOST_TEST(r.invalid->offset == 1);
  BOOST_TEST(r.invalid->error.code == "null_key");
  // Offset 1 takes route "big" (no key) too: none of its outputs is written.
  for (const written& w : sink.out) BOOST_TEST(w.offset == 0);
  BOOST_TEST(sink.out.size() == 2u);
  BOOST_TEST(counts.consumed == 1u);
  check_adds_up(counts);
}

BOOST_AUTO_TEST_CASE(a_single_select_counts_as_it_always_did_and_its_count_line_keeps_its_words) {
  const plan::plan p = streamt::test::orders_plan(50);
  ops::stage_pipeline stages(p);
  routing_sink sink{{"big-orders"}, "", {}};
  engine::record_counts counts;
  const std::vector<engine::record_view> batch = orders();
  engine::process_batch(batch, stages, sink, counts);
  BOOST_TEST(counts.consumed == 4u);
  BOOST_TEST(counts.emitted == 2u);
  BOOST_TEST(counts.filtered == 2u);
  BOOST_TEST(!counts.routed);
  BOOST_TEST(counts.unrouted_dropped == 0u);
  BOOST_TEST(counts.route_outputs == (std::vector<std::uint64_t>{2}), boost::test_tools::per_element());
  check_adds_up(counts);
  BOOST_TEST(engine::count_text(counts, false, engine::route_names(p)) ==
             "4 consumed, 2 emitted, 2 filtered, 0 tombstones");
  BOOST_TEST(sink.out[0] == (written{"big-orders", "k0", R"({"id":"a","amount":120})", 0}));
}

BOOST_AUTO_TEST_CASE(counts_of_two_runs_add_up_route_by_route) {
  engine::record_counts a, b;
  a.route_outputs = {1, 2};
  a.routed = true;
  b.route_outputs = {3, 4, 5};
  b.unrouted_written = 6;
  a += b;
  BOOST_TEST(a.route_outputs == (std::vector<std::uint64_t>{4, 6, 5}), boost::test_tools::per_element());
  BOOST_TEST(a.unrouted_written == 6u);
  BOOST_TEST(a.routed);
}

BOOST_AUTO_TEST_CASE(the_topics_a_routed_plan_writes_are_its_sinks_once_each_then_its_unrouted_topic) {
  plan::plan p = two_routes("orders-unrouted");
  p.routes.push_back({"big", {}, {{0, "id"}}, std::nullopt});
  BOOST_TEST(engine::topics_written(p) == (std::vector<std::string>{"big", "keyed", "orders-unrouted"}),
             boost::test_tools::per_element());
  BOOST_TEST(
      engine::topics_written(streamt::test::orders_plan(1)) == (std::vector<std::string>{"big-orders"}),
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(replay_writes_each_output_envelope_under_its_routes_sink_and_key) {
  std::istringstream in(
      R"({"topic":"orders","partition":0,"offset":0,"key":"k0","payload":"{\"id\":\"a\",\"amount\":120}"})"
      "\n"
      R"({"topic":"orders","partition":0,"offset":1,"key":"k1","payload":"{\"id\":\"b\",\"amount\":1}"})"
      "\n");
  std::ostringstream out;
  const engine::run_result r = engine::replay(two_routes("rest"), in, out);
  BOOST_TEST(!r.failure.has_value());
  const std::string text = out.str();
  BOOST_TEST(text.find(R"({"topic":"big","key":"k0",)") != std::string::npos);
  BOOST_TEST(text.find(R"({"topic":"keyed","key":"a",)") != std::string::npos);
  BOOST_TEST(text.find(R"({"topic":"rest","key":"k1",)") != std::string::npos);
  BOOST_TEST(text.find(R"(["streamt.reason","unrouted"])") != std::string::npos);
  BOOST_TEST(r.counts.route_outputs == (std::vector<std::uint64_t>{1, 1}), boost::test_tools::per_element());
  BOOST_TEST(r.counts.unrouted_written == 1u);
}

BOOST_AUTO_TEST_CASE(a_routed_plans_metrics_count_outputs_by_route_and_unrouted_records_by_outcome) {
  engine::metrics m;
  m.set_identity({"orders-routes", "sha256:0", "orders", "big,keyed", {"big", "keyed"}});
  engine::record_counts c;
  c.consumed = 4;
  c.emitted = 2;
  c.filtered = 2;
  c.unrouted_dropped = 2;
  c.route_outputs = {1, 2};
  c.routed = true;
  m.committed(c, std::chrono::milliseconds(5));
  const std::string text = m.prometheus_text();
  BOOST_TEST(text.find("streamt_route_records_produced_total{route=\"big\"} 1\n") != std::string::npos, text);
  BOOST_TEST(text.find("streamt_route_records_produced_total{route=\"keyed\"} 2\n") != std::string::npos);
  BOOST_TEST(text.find("streamt_records_unrouted_total{outcome=\"dropped\"} 2\n") != std::string::npos);
  BOOST_TEST(text.find("streamt_records_unrouted_total{outcome=\"written\"} 0\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_single_selects_metrics_have_no_route_series) {
  engine::metrics m;
  m.set_identity({"orders-big", "sha256:0", "orders", "big-orders"});
  engine::record_counts c;
  c.consumed = 1;
  c.emitted = 1;
  c.route_outputs = {1};
  m.committed(c, std::chrono::milliseconds(5));
  const std::string text = m.prometheus_text();
  BOOST_TEST(text.find("streamt_route_records_produced_total") == std::string::npos);
  BOOST_TEST(text.find("streamt_records_unrouted_total") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
