// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/refusal.hpp"

#include "engine/client_failure.hpp"
#include "kafka/error.hpp"

#include <boost/test/unit_test.hpp>

// engine/session/refusal.hpp: each ACL refusal names what to grant, on which
// resource; anything else is no refusal. The same codes from a real broker
// with an authorizer: test/integration/authorization.sh.

namespace ss = streamt::engine::session;

namespace {
// What the session is told of a failure with `code`: which grant it refused.
ss::refused_resource refused(rd_kafka_resp_err_t code) {
  return streamt::engine::failure_of(streamt::kafka::report_of(code)).refused;
}
std::optional<std::string> line(rd_kafka_resp_err_t code) {
  return ss::refusal_line(refused(code), "add partitions: refused", "orders", {"big-orders"}, "shop");
}
}  // namespace

BOOST_AUTO_TEST_SUITE(refusal)

BOOST_AUTO_TEST_CASE(a_topic_refusal_names_both_topics_and_the_operations_each_needs) {
  BOOST_TEST(
      line(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED).value() ==
      "the brokers refuse this client: add partitions: refused. Grant its principal Read and Describe on "
      "topic 'orders', Write and Describe on topic 'big-orders' (kafka-acls), then start it again");
}

BOOST_AUTO_TEST_CASE(a_group_refusal_names_the_application_id_as_the_group) {
  BOOST_TEST(line(RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED)
                 .value()
                 .find("Grant its principal Read on group "
                       "'shop' (kafka-acls)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_transactional_id_refusal_names_the_prefix_every_instance_uses) {
  BOOST_TEST(line(RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
                 .value()
                 .find("Write and Describe on the transactional ids with prefix 'shop-'") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_cluster_refusal_asks_for_idempotent_write) {
  BOOST_TEST(
      line(RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED).value().find("IdempotentWrite on the cluster") !=
      std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_brokers_full_stop_is_not_doubled) {
  BOOST_TEST(
      ss::refusal_line(refused(RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED), "Group authorization failed.",
                       "o", {"b"}, "shop")
          .value()
          .starts_with("the brokers refuse this client: Group authorization failed. Grant its principal"));
}

BOOST_AUTO_TEST_CASE(errors_that_are_no_refusal_get_no_grant) {
  for (rd_kafka_resp_err_t code :
       {RD_KAFKA_RESP_ERR_NO_ERROR, RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART,
        RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED, RD_KAFKA_RESP_ERR_PRODUCER_FENCED})
    BOOST_TEST(!line(code).has_value(), "code " << code);
}

BOOST_AUTO_TEST_SUITE_END()
