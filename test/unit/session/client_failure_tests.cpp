// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/client_failure.hpp"

#include <boost/test/unit_test.hpp>

// engine/client_failure.hpp: the one place a librdkafka code is given the
// meanings the session decides on. Each meaning from the code that carries
// it, and the codes that must not carry it.

namespace ss = streamt::engine::session;
namespace k = streamt::kafka;
using streamt::engine::failure_of;

namespace {
ss::failure of(rd_kafka_resp_err_t code) { return failure_of(k::report_of(code)); }
ss::failure flagged(k::txn_error_info info) { return failure_of(k::error_report{info, "from librdkafka"}); }
}  // namespace

BOOST_AUTO_TEST_SUITE(client_failure)

BOOST_AUTO_TEST_CASE(a_success_is_no_failure_and_means_nothing) {
  const ss::failure f = failure_of(k::error_report{});
  BOOST_TEST(!f.failed());
  BOOST_TEST(!f.timed_out);
  BOOST_TEST(!f.transient);
  BOOST_TEST((f.refused == ss::refused_resource::none));
}

BOOST_AUTO_TEST_CASE(the_condition_follows_librdkafkas_flags_with_fencing_first) {
  BOOST_TEST((flagged(k::txn_error_info::retriable_error(RD_KAFKA_RESP_ERR__TIMED_OUT)).what ==
              ss::condition::retriable));
  BOOST_TEST((flagged(k::txn_error_info::abortable_error(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT)).what ==
              ss::condition::abortable));
  BOOST_TEST(
      (flagged(k::txn_error_info::fatal_error(RD_KAFKA_RESP_ERR__STATE)).what == ss::condition::fatal));
  BOOST_TEST((flagged(k::txn_error_info::fatal_error(RD_KAFKA_RESP_ERR_PRODUCER_FENCED)).what ==
              ss::condition::fenced));
  BOOST_TEST((of(RD_KAFKA_RESP_ERR__STATE).what == ss::condition::unclassified));
  BOOST_TEST(flagged(k::txn_error_info::fatal_error(RD_KAFKA_RESP_ERR_PRODUCER_FENCED)).fatal());
  BOOST_TEST(!flagged(k::txn_error_info::abortable_error(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT)).fatal());
}

BOOST_AUTO_TEST_CASE(the_message_is_the_clients_own_words) {
  BOOST_TEST(flagged(k::txn_error_info::plain(RD_KAFKA_RESP_ERR__TRANSPORT)).message == "from librdkafka");
}

BOOST_AUTO_TEST_CASE(only_the_clients_own_timeout_is_a_timeout_and_it_is_transient_too) {
  BOOST_TEST(of(RD_KAFKA_RESP_ERR__TIMED_OUT).timed_out);
  BOOST_TEST(of(RD_KAFKA_RESP_ERR__TIMED_OUT).transient);
  BOOST_TEST(!of(RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT).timed_out);
  BOOST_TEST(!of(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT).timed_out);
}

BOOST_AUTO_TEST_CASE(a_moving_leader_or_coordinator_is_transient_and_a_missing_topic_or_acl_is_not) {
  for (rd_kafka_resp_err_t code :
       {RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR_NOT_COORDINATOR,
        RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE, RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION})
    BOOST_TEST(of(code).transient, "code " << code);
  for (rd_kafka_resp_err_t code : {RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART,
                                   RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, RD_KAFKA_RESP_ERR__FATAL})
    BOOST_TEST(!of(code).transient, "code " << code);
}

BOOST_AUTO_TEST_CASE(a_record_the_sink_refuses_for_good_is_never_accepted_and_a_full_queue_is_not) {
  BOOST_TEST(of(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE).never_accepted);
  BOOST_TEST(of(RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE).never_accepted);
  BOOST_TEST(of(RD_KAFKA_RESP_ERR_INVALID_RECORD).never_accepted);
  BOOST_TEST(!of(RD_KAFKA_RESP_ERR__QUEUE_FULL).never_accepted);
  BOOST_TEST(!of(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT).never_accepted);
}

BOOST_AUTO_TEST_CASE(a_consumers_news_is_told_apart_from_its_failures) {
  BOOST_TEST(of(RD_KAFKA_RESP_ERR__PARTITION_EOF).partition_eof);
  BOOST_TEST(of(RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET).offset_out_of_range);
  BOOST_TEST(of(RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE).offset_out_of_range);
  BOOST_TEST(of(RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID).instance_fenced);
  BOOST_TEST(of(static_cast<rd_kafka_resp_err_t>(111)).instance_fenced);  // UNRELEASED_INSTANCE_ID (KIP-848)
  BOOST_TEST(of(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART).unknown_topic_or_partition);
  BOOST_TEST(!of(RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC)
                  .unknown_topic_or_partition);  // the client's guess, not a broker's
  BOOST_TEST(of(RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC).unknown_topic);
  BOOST_TEST(of(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART).unknown_topic);
}

BOOST_AUTO_TEST_CASE(only_invalid_transaction_timeout_is_a_refused_transaction_timeout) {
  BOOST_TEST(of(RD_KAFKA_RESP_ERR_INVALID_TRANSACTION_TIMEOUT).transaction_timeout_refused);
  BOOST_TEST(!of(RD_KAFKA_RESP_ERR__TIMED_OUT).transaction_timeout_refused);
  BOOST_TEST(!of(RD_KAFKA_RESP_ERR_PRODUCER_FENCED).transaction_timeout_refused);
}

BOOST_AUTO_TEST_CASE(each_acl_refusal_names_the_resource_refused) {
  BOOST_TEST((of(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED).refused == ss::refused_resource::topic));
  BOOST_TEST((of(RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED).refused == ss::refused_resource::group));
  BOOST_TEST((of(RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED).refused ==
              ss::refused_resource::transactional_id));
  BOOST_TEST((of(RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED).refused == ss::refused_resource::cluster));
  BOOST_TEST((of(RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED).refused == ss::refused_resource::none));
}

BOOST_AUTO_TEST_CASE(a_consumer_error_of_one_partition_names_it) {
  k::consumer_error e;
  e.error = k::report_of(RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE);
  BOOST_TEST(streamt::engine::consumer_error_of(e).partition.empty());
  e.partition = k::topic_partition{"orders", 3};
  BOOST_TEST(streamt::engine::consumer_error_of(e).partition == "orders/3");
  BOOST_TEST(streamt::engine::consumer_error_of(e).error.offset_out_of_range);
}

BOOST_AUTO_TEST_CASE(a_plan_log_read_keeps_each_records_offset_key_and_value) {
  std::vector<k::log_record> log{{0, "app", "claim-0"}, {7, "app", "claim-7"}};
  const std::vector<ss::log_record> ours = streamt::engine::log_of(std::move(log));
  BOOST_TEST_REQUIRE(ours.size() == 2u);
  BOOST_TEST(ours[1].offset == 7);
  BOOST_TEST(ours[1].key == "app");
  BOOST_TEST(ours[1].value == "claim-7");
}

BOOST_AUTO_TEST_SUITE_END()
