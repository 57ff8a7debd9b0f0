// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/sink_rules.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using streamt::engine::rough_duration;
using streamt::engine::sink_rules;

namespace {
constexpr std::int64_t now = 1'780'000'000'000;  // 2026-05-28
constexpr std::int64_t hour = 3'600'000;
constexpr std::int64_t day = 24 * hour;
}  // namespace

BOOST_AUTO_TEST_SUITE(sink_rules_of_a_topic)

BOOST_AUTO_TEST_CASE(a_topic_with_the_brokers_defaults_refuses_only_far_future_timestamps) {
  // Kafka 4's defaults: before = Long.MAX_VALUE (no bound), after = 1 h.
  const sink_rules r = sink_rules::of("out", {{"cleanup.policy", "delete"},
                                              {"message.timestamp.type", "CreateTime"},
                                              {"message.timestamp.before.max.ms", "9223372036854775807"},
                                              {"message.timestamp.after.max.ms", "3600000"}});
  BOOST_TEST(!r.compacted);
  BOOST_TEST(!r.before_max_ms.has_value());
  BOOST_TEST(r.after_max_ms.value_or(0) == hour);
  BOOST_TEST(!r.refusal(false, now - 3650 * day, now).has_value());
  BOOST_TEST(!r.refusal(true, now + hour - 1, now).has_value());
  BOOST_TEST(r.refusal(true, now + 2 * hour, now).has_value());
}

BOOST_AUTO_TEST_CASE(a_ten_day_old_record_is_refused_by_a_one_hour_bound_naming_the_setting) {
  const sink_rules r = sink_rules::of(
      "dstT", {{"message.timestamp.type", "CreateTime"}, {"message.timestamp.before.max.ms", "3600000"}});
  const std::optional<std::string> why = r.refusal(true, now - 10 * day, now);
  BOOST_TEST_REQUIRE(why.has_value());
  BOOST_TEST(why->find("is 10 d before this engine's clock") != std::string::npos, *why);
  BOOST_TEST(why->find("sink topic 'dstT' takes no record more than 1 h old") != std::string::npos, *why);
  BOOST_TEST(why->find("message.timestamp.before.max.ms=3600000") != std::string::npos, *why);
  BOOST_TEST(!r.refusal(true, now - hour + 1, now).has_value());
}

BOOST_AUTO_TEST_CASE(a_record_without_a_timestamp_gets_the_producers_clock_and_is_never_refused_for_it) {
  const sink_rules r = sink_rules::of(
      "dst", {{"message.timestamp.before.max.ms", "1000"}, {"message.timestamp.after.max.ms", "1000"}});
  BOOST_TEST(!r.refusal(true, std::nullopt, now).has_value());
  BOOST_TEST(!r.refusal(true, 0, now).has_value());
}

BOOST_AUTO_TEST_CASE(log_append_time_checks_no_timestamp) {
  const sink_rules r = sink_rules::of(
      "dst", {{"message.timestamp.type", "LogAppendTime"}, {"message.timestamp.before.max.ms", "1000"}});
  BOOST_TEST(!r.any());
  BOOST_TEST(!r.refusal(true, now - day, now).has_value());
}

BOOST_AUTO_TEST_CASE(an_older_brokers_difference_bound_applies_both_ways) {
  const sink_rules r = sink_rules::of("dst", {{"message.timestamp.difference.max.ms", "60000"}});
  BOOST_TEST(r.refusal(true, now - 61'000, now).has_value());
  BOOST_TEST(r.refusal(true, now + 61'000, now).has_value());
  BOOST_TEST(!r.refusal(true, now - 59'000, now).has_value());
}

BOOST_AUTO_TEST_CASE(a_compacted_topic_refuses_a_record_without_a_key_first) {
  const sink_rules r = sink_rules::of("dstK", {{"cleanup.policy", "compact,delete"}});
  BOOST_TEST(r.compacted);
  const std::optional<std::string> why = r.refusal(false, now, now);
  BOOST_TEST_REQUIRE(why.has_value());
  BOOST_TEST(why->find("it has no key, and sink topic 'dstK' is compacted") == 0u, *why);
  BOOST_TEST(!r.refusal(true, now, now).has_value());
}

BOOST_AUTO_TEST_CASE(an_unreadable_bound_makes_no_rule) {
  const sink_rules r = sink_rules::of(
      "dst", {{"message.timestamp.before.max.ms", "soon"}, {"message.timestamp.after.max.ms", "-5"}});
  BOOST_TEST(!r.any());
}

BOOST_AUTO_TEST_CASE(durations_are_said_in_their_largest_whole_unit) {
  BOOST_TEST(rough_duration(3'600'000) == "1 h");
  BOOST_TEST(rough_duration(10 * day + 5000) == "10 d");
  BOOST_TEST(rough_duration(90'000) == "90 s");
  BOOST_TEST(rough_duration(1500) == "1500 ms");
  BOOST_TEST(rough_duration(2 * day) == "2 d");
}

BOOST_AUTO_TEST_SUITE_END()
