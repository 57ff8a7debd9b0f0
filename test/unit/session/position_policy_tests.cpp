// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/position_policy.hpp"

#include "engine/client_failure.hpp"
#include "kafka/consumer.hpp"

#include <boost/test/unit_test.hpp>

// engine/session/position_policy.hpp: where an assigned partition starts
// (rebalance, retention, --reset-offsets) and what a consumer error means.

namespace ss = streamt::engine::session;
namespace k = streamt::kafka;
using streamt::engine::reset_policy;

namespace {

const ss::watermarks log_0_to_100{.low = ss::offset{40}, .high = ss::offset{100}};

ss::start_at started(const std::variant<ss::start_at, ss::start_refused>& v) {
  BOOST_TEST_REQUIRE(std::holds_alternative<ss::start_at>(v));
  return std::get<ss::start_at>(v);
}

// What the driver hands the policy for a consumer error librdkafka reported.
ss::consumer_error error_of(rd_kafka_resp_err_t code, bool fatal = false) {
  k::consumer_error e;
  e.error.info = fatal ? k::txn_error_info::fatal_error(code) : k::txn_error_info::plain(code);
  e.error.message = "test";
  return streamt::engine::consumer_error_of(e);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(position_policy)

BOOST_AUTO_TEST_CASE(a_partition_without_a_committed_offset_starts_at_the_earliest_offset) {
  const ss::start_at s =
      started(ss::start_position("orders/0", std::nullopt, std::nullopt, reset_policy::none));
  BOOST_TEST(!s.at.has_value());
  BOOST_TEST(s.note.find("a new application id") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_committed_offset_inside_the_log_is_resumed_at_including_both_ends) {
  BOOST_TEST(
      started(ss::start_position("orders/0", ss::offset{40}, log_0_to_100, reset_policy::none)).at->value ==
      40);
  BOOST_TEST(started(ss::start_position("orders/0", ss::offset{100}, log_0_to_100, reset_policy::latest))
                 .at->value == 100);
}

BOOST_AUTO_TEST_CASE(a_committed_offset_deleted_by_retention_is_refused_naming_the_offsets_and_the_way_out) {
  const auto v = ss::start_position("orders/3", ss::offset{12}, log_0_to_100, reset_policy::none);
  BOOST_TEST_REQUIRE(std::holds_alternative<ss::start_refused>(v));
  const std::string& m = std::get<ss::start_refused>(v).message;
  BOOST_TEST(m.find("orders/3: committed offset 12 is out of range (log start 40, end 100)") == 0u);
  BOOST_TEST(m.find("--reset-offsets earliest") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(reset_offsets_moves_an_out_of_range_position_to_the_log_start_or_end_and_says_so) {
  const ss::start_at e =
      started(ss::start_position("orders/0", ss::offset{12}, log_0_to_100, reset_policy::earliest));
  BOOST_TEST(e.at->value == 40);
  BOOST_TEST(e.reset);
  const ss::start_at l =
      started(ss::start_position("orders/0", ss::offset{500}, log_0_to_100, reset_policy::latest));
  BOOST_TEST(l.at->value == 100);
  BOOST_TEST(l.note.find("--reset-offsets: starting at 100") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(consumer_errors_are_ignored_logged_refused_unavailable_or_fenced_by_their_code) {
  using v = ss::consumer_error_verdict;
  BOOST_TEST((ss::classify(error_of(RD_KAFKA_RESP_ERR__PARTITION_EOF)) == v::ignore));
  BOOST_TEST((ss::classify(error_of(RD_KAFKA_RESP_ERR__TRANSPORT)) == v::keep_going));
  BOOST_TEST((ss::classify(error_of(RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE)) == v::out_of_range));
  BOOST_TEST((ss::classify(error_of(RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET)) == v::out_of_range));
  BOOST_TEST((ss::classify(error_of(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)) == v::unavailable));
  BOOST_TEST((ss::classify(error_of(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED)) == v::unavailable));
  BOOST_TEST((ss::classify(error_of(RD_KAFKA_RESP_ERR__FATAL, true)) == v::unavailable));
  // A duplicate group.instance.id is fatal to the consumer, and it is a
  // fence (exit 75), not an unavailable cluster.
  BOOST_TEST((ss::classify(error_of(RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID, true)) == v::fenced));
  // KIP-848 refuses the second member with the id instead (UNRELEASED_INSTANCE_ID).
  BOOST_TEST((ss::classify(error_of(static_cast<rd_kafka_resp_err_t>(111), true)) == v::fenced));
}

BOOST_AUTO_TEST_CASE(each_consumer_error_ends_the_run_with_the_status_its_verdict_means_or_only_a_line) {
  using streamt::engine::run_status;
  const auto effect = [](rd_kafka_resp_err_t code, bool fatal = false) {
    return ss::effect_of(error_of(code, fatal), "orders", {"big-orders"}, "orders-app");
  };
  BOOST_TEST(effect(RD_KAFKA_RESP_ERR__PARTITION_EOF).warning.empty());
  BOOST_TEST(!effect(RD_KAFKA_RESP_ERR__PARTITION_EOF).end);
  BOOST_TEST(effect(RD_KAFKA_RESP_ERR__TRANSPORT).warning == "consumer: test");
  BOOST_TEST(!effect(RD_KAFKA_RESP_ERR__TRANSPORT).end);
  BOOST_TEST_REQUIRE(effect(RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE).end.has_value());
  BOOST_TEST((effect(RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE).end->status == run_status::rejected_config));
  BOOST_TEST(effect(RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE).end->message.find("--reset-offsets") !=
             std::string::npos);
  BOOST_TEST((effect(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART).end->status == run_status::unavailable));
  const ss::consumer_error_effect acl = effect(RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED);
  BOOST_TEST_REQUIRE(acl.end.has_value());
  BOOST_TEST((acl.end->status == run_status::unavailable));
  BOOST_TEST(acl.end->message.find("Grant its principal Read on group 'orders-app'") != std::string::npos);
  BOOST_TEST((effect(RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID).end->status == run_status::fenced));
}

BOOST_AUTO_TEST_CASE(a_partition_is_taken_where_its_offsets_say_unless_succession_or_retention_refuse_it) {
  using streamt::engine::run_status;
  ss::our_plan ours;
  ours.digest = "sha256:" + std::string(64, 'a');
  ours.output_shape = "sha256:" + std::string(64, 'b');
  const auto taken = ss::partition_start_of("orders/0", ss::offset{50}, std::nullopt, ours, log_0_to_100,
                                            reset_policy::none);
  BOOST_TEST_REQUIRE(std::holds_alternative<ss::partition_start>(taken));
  BOOST_TEST((std::get<ss::partition_start>(taken).at.at == ss::offset{50}));
  BOOST_TEST(std::get<ss::partition_start>(taken).handover.empty());
  // Committed by an unrelated plan: refused before anything is consumed.
  const streamt::engine::lineage theirs{"sha256:" + std::string(64, 'c'), "i-9", ours.output_shape, {}};
  const auto unrelated =
      ss::partition_start_of("orders/0", ss::offset{50}, theirs, ours, log_0_to_100, reset_policy::none);
  BOOST_TEST_REQUIRE(std::holds_alternative<ss::ending>(unrelated));
  BOOST_TEST((std::get<ss::ending>(unrelated).status == run_status::rejected_config));
  // Deleted by retention: refused too.
  const auto deleted = ss::partition_start_of("orders/0", ss::offset{10}, std::nullopt, ours, log_0_to_100,
                                              reset_policy::none);
  BOOST_TEST_REQUIRE(std::holds_alternative<ss::ending>(deleted));
  BOOST_TEST(std::get<ss::ending>(deleted).message.find("out of range") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
