// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// process_batch with a sink that records what it is given, under the
// schema's tombstones and changelog choices: which records reach the sink
// (null values included), in order, and how each is counted; then the same
// through replay, where a null value is the envelope's "payload":null.

#include "engine/process_batch.hpp"

#include "engine/plan_diff.hpp"
#include "engine/replay.hpp"
#include "test/support/orders_plan.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace streamt;

struct written {
  std::optional<std::string> key;
  std::optional<std::string> value;  // nullopt: a null value
  std::int64_t offset = 0;
  std::size_t headers = 0;
  friend bool operator==(const written&, const written&) = default;
};

std::ostream& operator<<(std::ostream& os, const written& w) {
  return os << w.key.value_or("<null>") << '=' << w.value.value_or("<null>") << '@' << w.offset << " ("
            << w.headers << " headers)";
}

// process_batch's sink, remembering each output.
struct recording_sink {
  std::vector<written> out;
  void emit(const engine::record_view& in, const operators::route_output& o) {
    out.push_back({in.key ? std::optional<std::string>(*in.key) : std::nullopt,
                   o.value ? std::optional<std::string>(*o.value) : std::nullopt, in.offset,
                   in.headers.size()});
  }
  void unrouted(const engine::record_view&) { throw std::logic_error("a single SELECT routes every record"); }
};
static_assert(engine::record_sink<recording_sink>);

plan::plan orders(plan::tombstones t, std::optional<plan::changelog> c) {
  plan::plan p = test::orders_plan(50);
  p.schema.tombstones = t;
  p.schema.changelog = c;
  return p;
}

const engine::header_view trace{"trace", "abc"};

// A STRING NOT NULL column, built member by member: the version 2 column's
// ROW members have no business in a flat schema's initializer.
plan::column string_column(std::string name) {
  plan::column c;
  c.name = std::move(name);
  c.type = plan::column_type::string;
  return c;
}

engine::record_view record(std::int64_t offset, std::optional<std::string_view> key,
                           std::optional<std::string_view> value) {
  engine::record_view r;
  r.topic = "orders";
  r.partition = 0;
  r.offset = offset;
  r.key = key;
  r.value = value;
  r.headers = std::span(&trace, 1);
  return r;
}

// a passes, b does not, a tombstone of c, then d passes.
std::vector<engine::record_view> four() {
  return {record(0, "a", R"({"id":"a","amount":120})"), record(1, "b", R"({"id":"b","amount":20})"),
          record(2, "c", std::nullopt), record(3, "d", R"({"id":"d","amount":90})")};
}

struct run {
  recording_sink sink;
  engine::record_counts counts;
  engine::batch_result result;

  run(const plan::plan& p, const std::vector<engine::record_view>& batch) {
    operators::stage_pipeline stages(p);
    result = engine::process_batch(std::span(batch), stages, sink, counts);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(changelog)

BOOST_AUTO_TEST_CASE(a_stream_drops_tombstones_and_filtered_records) {
  run r(orders(plan::tombstones::drop, std::nullopt), four());
  BOOST_TEST(!r.result.invalid.has_value());
  BOOST_TEST(r.result.handled == 4u);
  const std::vector<written> expected{{"a", R"({"id":"a","amount":120})", 0, 1},
                                      {"d", R"({"id":"d","amount":90})", 3, 1}};
  BOOST_TEST(r.sink.out == expected, boost::test_tools::per_element());
  BOOST_TEST(r.counts.consumed == 4u);
  BOOST_TEST(r.counts.emitted == 2u);
  BOOST_TEST(r.counts.filtered == 1u);
  BOOST_TEST(r.counts.tombstones == 1u);
  BOOST_TEST(r.counts.tombstones_forwarded == 0u);
  BOOST_TEST(r.counts.deleted == 0u);
}

BOOST_AUTO_TEST_CASE(forwarded_tombstones_reach_the_sink_in_order_with_key_and_headers) {
  run r(orders(plan::tombstones::forward, plan::changelog::append), four());
  BOOST_TEST(r.result.handled == 4u);
  const std::vector<written> expected{{"a", R"({"id":"a","amount":120})", 0, 1},
                                      {"c", std::nullopt, 2, 1},
                                      {"d", R"({"id":"d","amount":90})", 3, 1}};
  BOOST_TEST(r.sink.out == expected, boost::test_tools::per_element());
  BOOST_TEST(r.counts.consumed == 4u);
  BOOST_TEST(r.counts.emitted == 2u);
  BOOST_TEST(r.counts.filtered == 1u);
  BOOST_TEST(r.counts.tombstones == 1u);
  BOOST_TEST(r.counts.tombstones_forwarded == 1u);
  BOOST_TEST(r.counts.deleted == 0u);
}

BOOST_AUTO_TEST_CASE(upsert_writes_a_tombstone_for_a_record_that_does_not_pass) {
  run r(orders(plan::tombstones::drop, plan::changelog::upsert), four());
  BOOST_TEST(r.result.handled == 4u);
  const std::vector<written> expected{{"a", R"({"id":"a","amount":120})", 0, 1},
                                      {"b", std::nullopt, 1, 1},
                                      {"c", std::nullopt, 2, 1},
                                      {"d", R"({"id":"d","amount":90})", 3, 1}};
  BOOST_TEST(r.sink.out == expected, boost::test_tools::per_element());
  // Each record counted once among emitted, filtered and tombstones.
  BOOST_TEST(r.counts.consumed == 4u);
  BOOST_TEST(r.counts.emitted == 2u);
  BOOST_TEST(r.counts.filtered == 1u);
  BOOST_TEST(r.counts.deleted == 1u);
  BOOST_TEST(r.counts.tombstones == 1u);
  BOOST_TEST(r.counts.tombstones_forwarded == 1u);
}

BOOST_AUTO_TEST_CASE(upsert_stops_at_a_record_without_a_key) {
  std::vector<engine::record_view> batch = four();
  batch[2].key = std::nullopt;
  run r(orders(plan::tombstones::drop, plan::changelog::upsert), batch);
  BOOST_TEST(r.result.handled == 2u);
  BOOST_TEST_REQUIRE(r.result.invalid.has_value());
  BOOST_TEST(r.result.invalid->offset == 2);
  BOOST_TEST(r.result.invalid->error.code == "missing_key");
  BOOST_TEST(r.result.invalid->describe().starts_with(
                 "orders/0@2: changelog upsert needs a key; this record has none"),
             r.result.invalid->describe());
  BOOST_TEST(r.sink.out.size() == 2u);
  BOOST_TEST(r.counts.consumed == 2u);
}

// The integration test's customers, offline: a compacted topic read as a
// table, WHERE tier = 'gold'.
BOOST_AUTO_TEST_CASE(replay_writes_a_null_value_as_a_null_payload) {
  plan::plan p;
  p.identity.application_id = "gold-customers";
  p.identity.source_topic = "customers";
  p.identity.sink_topic = "gold";
  p.schema.source = "customers";
  p.schema.topic = "customers";
  p.schema.columns = {string_column("id"), string_column("tier")};
  p.schema.changelog = plan::changelog::upsert;
  p.predicate = {{1, plan::compare_op::eq, std::string("gold")}};
  p.projection = {{0, "id"}, {1, "tier"}};
  std::istringstream in(R"({"key":"c1","payload":"{\"id\":\"c1\",\"tier\":\"gold\"}"})"
                        "\n"
                        R"({"key":"c2","payload":"{\"id\":\"c2\",\"tier\":\"silver\"}"})"
                        "\n"
                        R"({"key":"c1","payload":null})"
                        "\n");
  std::ostringstream out;
  engine::run_result r = engine::replay(p, in, out);
  BOOST_TEST(!r.invalid.has_value());
  BOOST_TEST(r.counts.emitted == 1u);
  BOOST_TEST(r.counts.deleted == 1u);
  BOOST_TEST(r.counts.tombstones_forwarded == 1u);
  BOOST_TEST(
      out.str() ==
      R"({"topic":"gold","key":"c1","payload":"{\"id\":\"c1\",\"tier\":\"gold\"}",)"
      R"("source":{"topic":"customers","partition":0,"offset":0}})"
      "\n"
      R"({"topic":"gold","key":"c2","payload":null,"source":{"topic":"customers","partition":0,"offset":1}})"
      "\n"
      R"({"topic":"gold","key":"c1","payload":null,"source":{"topic":"customers","partition":0,"offset":2}})"
      "\n");
}

// streamt diff of a stream and the same query over a changelog: a null value
// written is an output, unlike nothing written and unlike any value.
BOOST_AUTO_TEST_CASE(diff_sees_a_null_value_written_as_an_output) {
  engine::plan_comparison c(orders(plan::tombstones::drop, std::nullopt),
                            orders(plan::tombstones::drop, plan::changelog::upsert), 10);
  const std::vector<engine::record_view> records = four();
  for (const engine::record_view& r : records) c.compare(r);
  BOOST_TEST(c.differences().new_only == 2u);  // b deleted, c's tombstone forwarded
  BOOST_TEST(c.differences().total() == 2u);
  BOOST_TEST_REQUIRE(c.kept().size() == 2u);
  BOOST_TEST(c.kept()[0].offset == 1);
  BOOST_TEST(!c.kept()[0].old_outcome.tombstone);
  BOOST_TEST(c.kept()[0].new_outcome.tombstone);
  BOOST_TEST(!c.kept()[0].new_outcome.output.has_value());
  BOOST_TEST(c.kept()[1].offset == 2);
  // Counted as the run counts them.
  BOOST_TEST(c.new_tally().filtered == 1u);
  BOOST_TEST(c.new_tally().tombstones == 1u);
  BOOST_TEST(c.new_tally().passed == 2u);
}

BOOST_AUTO_TEST_CASE(diff_tells_a_value_from_a_null_value) {
  // The old plan passes b (amount 20 >= 10); the upsert at 50 deletes it.
  plan::plan old_plan = test::orders_plan(10);
  old_plan.schema.changelog = plan::changelog::upsert;
  engine::plan_comparison c(old_plan, orders(plan::tombstones::drop, plan::changelog::upsert), 10);
  c.compare(record(1, "b", R"({"id":"b","amount":20})"));
  c.compare(record(2, "c", std::nullopt));
  BOOST_TEST(c.differences().changed == 1u);
  BOOST_TEST(c.differences().total() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
