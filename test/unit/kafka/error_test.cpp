// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/error.hpp"

#define BOOST_TEST_MODULE kafka
#include <boost/test/unit_test.hpp>

#include "kafka/handles.hpp"

#include <array>

namespace k = streamt::kafka;
using k::condition;

BOOST_TEST_DONT_PRINT_LOG_VALUE(condition)

namespace {

struct row {
  rd_kafka_resp_err_t code;
  bool retriable, abort, fatal;
  condition expected;
};

constexpr rd_kafka_resp_err_t ordinary = RD_KAFKA_RESP_ERR__TIMED_OUT;

// Every combination of the three flags, for an ordinary code: the flag with
// the highest precedence (fatal > abort > retriable) wins.
constexpr std::array<row, 8> flag_table{{
    {ordinary, false, false, false, condition::unclassified},
    {ordinary, true, false, false, condition::retriable},
    {ordinary, false, true, false, condition::abortable},
    {ordinary, true, true, false, condition::abortable},
    {ordinary, false, false, true, condition::fatal},
    {ordinary, true, false, true, condition::fatal},
    {ordinary, false, true, true, condition::fatal},
    {ordinary, true, true, true, condition::fatal},
}};

constexpr std::array<rd_kafka_resp_err_t, 4> fencing_codes{
    RD_KAFKA_RESP_ERR__FENCED, RD_KAFKA_RESP_ERR_PRODUCER_FENCED, RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH,
    RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID};

// The classification is usable at compile time.
static_assert(k::classify(k::txn_error_info::fatal_error(RD_KAFKA_RESP_ERR_PRODUCER_FENCED)) ==
              condition::fenced);
static_assert(k::classify({ordinary, true, true, false}) == condition::abortable);
static_assert(k::unpack(k::pack({RD_KAFKA_RESP_ERR__BEGIN, true, false, true})) ==
              k::txn_error_info{RD_KAFKA_RESP_ERR__BEGIN, true, false, true});

}  // namespace

BOOST_AUTO_TEST_CASE(classification_follows_the_flag_precedence_table_for_every_flag_combination) {
  for (const auto& r : flag_table) {
    BOOST_TEST_CONTEXT("retriable=" << r.retriable << " abort=" << r.abort << " fatal=" << r.fatal) {
      BOOST_TEST(k::classify({r.code, r.retriable, r.abort, r.fatal}) == r.expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(fencing_codes_classify_as_fenced_whatever_their_flags) {
  for (auto code : fencing_codes) {
    for (unsigned flags = 0; flags < 8; ++flags) {
      BOOST_TEST_CONTEXT("code=" << code << " flags=" << flags) {
        BOOST_TEST(k::classify({code, (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0}) ==
                   condition::fenced);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(no_other_librdkafka_code_classifies_as_fenced) {
  for (int code = RD_KAFKA_RESP_ERR__BEGIN; code < RD_KAFKA_RESP_ERR_END_ALL; ++code) {
    const auto c = static_cast<rd_kafka_resp_err_t>(code);
    const bool listed = std::find(fencing_codes.begin(), fencing_codes.end(), c) != fencing_codes.end();
    BOOST_TEST_CONTEXT("code=" << code) { BOOST_TEST(k::is_fencing_code(c) == listed); }
  }
}

BOOST_AUTO_TEST_CASE(a_moving_leader_or_coordinator_is_transient_and_a_missing_topic_or_fence_is_not) {
  for (auto code : {RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE,
                    RD_KAFKA_RESP_ERR_NOT_COORDINATOR, RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS,
                    RD_KAFKA_RESP_ERR_UNSTABLE_OFFSET_COMMIT, RD_KAFKA_RESP_ERR__TIMED_OUT,
                    RD_KAFKA_RESP_ERR__TRANSPORT}) {
    BOOST_TEST_CONTEXT("code=" << code) { BOOST_TEST(k::is_transient_code(code)); }
  }
  for (auto code :
       {RD_KAFKA_RESP_ERR_NO_ERROR, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART,
        RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED,
        RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE, RD_KAFKA_RESP_ERR_PRODUCER_FENCED, RD_KAFKA_RESP_ERR__FATAL}) {
    BOOST_TEST_CONTEXT("code=" << code) { BOOST_TEST(!k::is_transient_code(code)); }
  }
  for (auto code : fencing_codes) BOOST_TEST(!k::is_transient_code(code));
}

BOOST_AUTO_TEST_CASE(packing_round_trips_every_code_and_flag_combination) {
  for (int code = RD_KAFKA_RESP_ERR__BEGIN; code < RD_KAFKA_RESP_ERR_END_ALL; ++code) {
    for (unsigned flags = 0; flags < 8; ++flags) {
      const k::txn_error_info info{static_cast<rd_kafka_resp_err_t>(code), (flags & 1) != 0, (flags & 2) != 0,
                                   (flags & 4) != 0};
      BOOST_TEST_REQUIRE((k::unpack(k::pack(info)) == info));
    }
  }
}

BOOST_AUTO_TEST_CASE(an_error_code_compares_equal_to_its_condition_and_to_no_other) {
  const auto ec = k::make_error_code(k::txn_error_info::abortable_error(ordinary));
  BOOST_TEST(ec.failed());
  BOOST_TEST((ec == condition::abortable));
  BOOST_TEST((ec != condition::retriable));
  BOOST_TEST((ec != condition::fatal));
  BOOST_TEST((k::make_error_code(k::txn_error_info::fatal_error(RD_KAFKA_RESP_ERR_PRODUCER_FENCED)) ==
              condition::fenced));
  BOOST_TEST(ec.message() == rd_kafka_err2str(ordinary));
}

BOOST_AUTO_TEST_CASE(a_success_matches_no_condition) {
  const auto ec = k::make_error_code(RD_KAFKA_RESP_ERR_NO_ERROR);
  BOOST_TEST(!ec.failed());
  for (int c = 1; c <= static_cast<int>(condition::unclassified); ++c) {
    BOOST_TEST((ec != static_cast<condition>(c)));
  }
}

BOOST_AUTO_TEST_CASE(our_configuration_codes_have_the_configuration_condition) {
  BOOST_TEST((boost::system::error_code(k::errc::engine_owned_setting) == condition::configuration));
  BOOST_TEST((boost::system::error_code(k::errc::properties_syntax) == condition::configuration));
  BOOST_TEST((boost::system::error_code(k::errc::client_creation_failed) == condition::fatal));
  BOOST_TEST(boost::system::error_code(k::errc::closed).message() == "the consumer is closed");
}

BOOST_AUTO_TEST_CASE(copying_a_null_error_gives_success_and_copying_a_real_one_keeps_code_and_message) {
  BOOST_TEST(!k::copy_error_info(nullptr).failed());
  k::error_ptr e(rd_kafka_error_new(RD_KAFKA_RESP_ERR__STATE, "txn %s", "in wrong state"));
  const auto info = k::copy_error_info(e.get());
  BOOST_TEST(info.code == RD_KAFKA_RESP_ERR__STATE);
  BOOST_TEST(!info.retriable);
  BOOST_TEST(!info.txn_requires_abort);
  BOOST_TEST(!info.fatal);
  const auto text = k::describe(e.get());
  BOOST_TEST(text.find("_STATE") != std::string::npos);
  BOOST_TEST(text.find("txn in wrong state") != std::string::npos);
  BOOST_TEST(text.find("unclassified") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(take_error_copies_then_destroys_the_librdkafka_error) {
  const auto report = k::take_error(rd_kafka_error_new(RD_KAFKA_RESP_ERR__TIMED_OUT, "commit took too long"));
  BOOST_TEST(report.failed());
  BOOST_TEST(report.message.find("commit took too long") != std::string::npos);
  BOOST_TEST(!k::take_error(nullptr).failed());
}

BOOST_AUTO_TEST_CASE(describing_plain_info_names_code_and_condition) {
  const auto text = k::describe(k::txn_error_info::fatal_error(RD_KAFKA_RESP_ERR_PRODUCER_FENCED));
  BOOST_TEST(text.find("PRODUCER_FENCED") != std::string::npos);
  BOOST_TEST(text.find("(fenced)") != std::string::npos);
  BOOST_TEST(k::describe(k::txn_error_info{}) == "success");
}

// ---- the questions code outside kafka/ asks instead of naming codes ----------

BOOST_AUTO_TEST_CASE(each_authorisation_failure_names_what_was_refused_and_nothing_else_is_one) {
  BOOST_TEST((k::refused_for(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED) == k::refused_resource::topic));
  BOOST_TEST((k::refused_for(RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED) == k::refused_resource::group));
  BOOST_TEST((k::refused_for(RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED) ==
              k::refused_resource::transactional_id));
  BOOST_TEST(
      (k::refused_for(RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED) == k::refused_resource::cluster));
  for (rd_kafka_resp_err_t other :
       {RD_KAFKA_RESP_ERR_NO_ERROR, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART,
        RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED, RD_KAFKA_RESP_ERR__TIMED_OUT})
    BOOST_TEST(!k::is_not_authorised(other), rd_kafka_err2name(other));
}

BOOST_AUTO_TEST_CASE(a_missing_topic_is_the_brokers_answer_or_also_the_clients_own_verdict) {
  BOOST_TEST(k::is_unknown_topic_or_partition(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART));
  BOOST_TEST(!k::is_unknown_topic_or_partition(RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC));
  BOOST_TEST(k::is_unknown_topic(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART));
  BOOST_TEST(k::is_unknown_topic(RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC));
  BOOST_TEST(!k::is_unknown_topic(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED));
}

BOOST_AUTO_TEST_CASE(a_static_member_is_fenced_by_either_group_protocols_code) {
  BOOST_TEST(k::is_instance_fenced(RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID));
  BOOST_TEST(k::is_instance_fenced(static_cast<rd_kafka_resp_err_t>(111)));  // UNRELEASED_INSTANCE_ID
  BOOST_TEST(!k::is_instance_fenced(RD_KAFKA_RESP_ERR_PRODUCER_FENCED));
}

BOOST_AUTO_TEST_CASE(a_group_with_live_members_refuses_an_outside_offset_change_by_any_of_four_codes) {
  for (rd_kafka_resp_err_t c :
       {RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID, RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION,
        RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS, RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC})
    BOOST_TEST(k::is_group_in_use(c), rd_kafka_err2name(c));
  BOOST_TEST(!k::is_group_in_use(RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED));
}

BOOST_AUTO_TEST_CASE(the_engines_own_errors_carry_librdkafkas_local_codes_and_classify_by_their_flags) {
  BOOST_TEST(k::is_timed_out(k::code_of(k::local_error::timed_out)));
  BOOST_TEST(k::code_of(k::local_error::inconsistent) == RD_KAFKA_RESP_ERR__INCONSISTENT);
  BOOST_TEST(k::code_of(k::local_error::assignment_lost) == RD_KAFKA_RESP_ERR__ASSIGNMENT_LOST);
  BOOST_TEST((k::classify(k::txn_error_info::abortable_error(k::code_of(k::local_error::assignment_lost))) ==
              condition::abortable));
  BOOST_TEST(k::is_offset_out_of_range(RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET));
  BOOST_TEST(k::is_offset_out_of_range(RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE));
  BOOST_TEST(k::is_partition_eof(RD_KAFKA_RESP_ERR__PARTITION_EOF));
  BOOST_TEST(k::is_unstable_offsets(RD_KAFKA_RESP_ERR_UNSTABLE_OFFSET_COMMIT));
}
