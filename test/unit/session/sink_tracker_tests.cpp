// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/sink_tracker.hpp"

#include "client.hpp"
#include "records.hpp"

#include <boost/test/unit_test.hpp>

// engine/session/sink_tracker.hpp: what the producer's answers say about the
// open transaction's records.

namespace ss = streamt::engine::session;
namespace k = streamt::kafka;
using streamt::test::client;
using streamt::test::records;

namespace {

ss::failure too_large() {
  return client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE),
                "Broker: Message size too large");
}
ss::failure invalid_timestamp() {
  return client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP), "Broker: Invalid timestamp");
}
ss::failure queue_full() {
  return client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR__QUEUE_FULL), "Local: Queue full");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sink_tracker)

BOOST_AUTO_TEST_CASE(a_failed_delivery_the_sink_never_accepts_names_the_largest_input_record_of_the_batch) {
  ss::sink_tracker t;
  t.new_transaction();
  const auto in = records({{0, 7}, {0, 8}, {1, 3}});
  const std::uint64_t a = t.producing(in[0], 100);
  const std::uint64_t b = t.producing(in[1], 2000000);
  const std::uint64_t c = t.producing(in[2], 50);
  t.delivery_failed(a, too_large());
  t.delivery_failed(b, too_large());
  t.delivery_failed(c, too_large());
  BOOST_TEST_REQUIRE(t.suspect().has_value());
  BOOST_TEST(t.suspect()->partition.value == 0);
  BOOST_TEST(t.suspect()->at.value == 8);
  BOOST_TEST(t.suspect()->size == 2000000u);
  BOOST_TEST(t.suspect()->reason == "Broker: Message size too large");
}

BOOST_AUTO_TEST_CASE(a_refusal_not_for_the_size_reported_by_several_records_names_none_of_them) {
  ss::sink_tracker t;
  t.new_transaction();
  const auto in = records({{0, 7}, {0, 8}, {0, 9}});
  t.producing(in[0], 10);  // delivered, in an earlier batch
  const std::uint64_t b = t.producing(in[1], 2000);
  const std::uint64_t c = t.producing(in[2], 10);
  t.delivery_failed(b, invalid_timestamp());
  t.delivery_failed(c, invalid_timestamp());
  BOOST_TEST(!t.suspect());  // the largest is not the one to blame
  BOOST_TEST(t.take_unplaced().value_or("") == "Broker: Invalid timestamp");
  BOOST_TEST(!t.aborted());
  BOOST_TEST(t.known_unproducible() == 0u);
}

BOOST_AUTO_TEST_CASE(a_refusal_not_for_the_size_reported_by_one_record_alone_names_it) {
  ss::sink_tracker t;
  t.new_transaction();
  const auto in = records({{0, 7}, {0, 8}, {0, 9}});
  t.producing(in[0], 10);
  const std::uint64_t b = t.producing(in[1], 10);
  t.producing(in[2], 10);
  t.delivery_failed(b, invalid_timestamp());
  BOOST_TEST(!t.take_unplaced().has_value());
  BOOST_TEST_REQUIRE(t.suspect().has_value());
  BOOST_TEST(t.suspect()->at.value == 8);
  BOOST_TEST(t.aborted());
  BOOST_TEST(t.known_unproducible() == 1u);
}

BOOST_AUTO_TEST_CASE(a_refused_records_size_counts_its_key_and_headers_when_the_refusal_says_them) {
  ss::sink_tracker t;
  t.new_transaction();
  const auto in = records({{0, 7}});
  const std::uint64_t a = t.producing(in[0], 27);  // a 27-byte value, a 1.5 MB key
  ss::failure refused = too_large();
  refused.record_bytes = 1'500'027;
  t.delivery_failed(a, refused);
  BOOST_TEST_REQUIRE(t.suspect().has_value());
  BOOST_TEST(t.suspect()->size == 1'500'027u);
}

BOOST_AUTO_TEST_CASE(a_delivery_failure_a_retry_can_cure_is_not_an_unproducible_record) {
  ss::sink_tracker t;
  t.new_transaction();
  const auto in = records({{0, 7}});
  t.delivery_failed(t.producing(in[0], 10), queue_full());
  BOOST_TEST(!t.suspect());
}

BOOST_AUTO_TEST_CASE(a_report_of_an_earlier_transaction_is_not_taken_for_a_record_of_the_open_one) {
  ss::sink_tracker t;
  t.new_transaction();
  const auto in = records({{0, 7}});
  const std::uint64_t old = t.producing(in[0], 10);
  t.new_transaction();
  t.producing(in[0], 10);
  t.delivery_failed(old, too_large());
  BOOST_TEST(!t.suspect());
}

BOOST_AUTO_TEST_CASE(a_produce_call_refused_at_once_fails_the_transaction_with_its_first_error) {
  ss::sink_tracker t;
  t.new_transaction();
  const auto in = records({{0, 1}, {0, 2}});
  t.producing(in[0], 10);
  t.refused_at_once(queue_full());
  t.producing(in[1], 3000000);
  t.refused_at_once(too_large());
  const std::optional<ss::failure> e = t.take_error();
  BOOST_TEST_REQUIRE(e.has_value());
  BOOST_TEST(e->message == queue_full().message);
  BOOST_TEST(!t.take_error());
  BOOST_TEST(t.suspect()->at.value == 2);  // the one refused for its size
}

BOOST_AUTO_TEST_CASE(the_unproducible_record_is_found_again_in_the_batch_that_replays_it) {
  ss::sink_tracker t;
  t.new_transaction();
  const auto first = records({{0, 4}, {0, 5}});
  t.producing(first[0], 10);
  t.delivery_failed(t.producing(first[1], 5000000), too_large());
  t.aborted();
  t.new_transaction();
  const std::optional<ss::unproducible_at> found = t.unproducible_in(records({{0, 4}, {0, 5}, {0, 6}}));
  BOOST_TEST_REQUIRE(found.has_value());
  BOOST_TEST(found->index == 1u);
  BOOST_TEST(found->record.size == 5000000u);
  BOOST_TEST(!t.unproducible_in(records({{1, 5}})));
}

BOOST_AUTO_TEST_CASE(records_blamed_by_successive_aborted_attempts_are_all_known_and_found_first_first) {
  ss::sink_tracker t;
  const auto in = records({{0, 1}, {0, 2}, {0, 3}});
  t.new_transaction();
  t.delivery_failed(t.producing(in[2], 4000), too_large());
  t.aborted();
  BOOST_TEST(!t.suspect());
  t.new_transaction();
  t.producing(in[0], 10);
  t.delivery_failed(t.producing(in[1], 3000), too_large());
  t.aborted();
  BOOST_TEST(t.known_unproducible() == 2u);
  const std::optional<ss::unproducible_at> found = t.unproducible_in(in);
  BOOST_TEST_REQUIRE(found.has_value());
  BOOST_TEST(found->record.at.value == 2);  // the first in the batch, whichever was blamed first
  BOOST_TEST(found->index == 1u);
  const std::optional<ss::unproducible_at> next = t.unproducible_in(std::span(in).subspan(2));
  BOOST_TEST_REQUIRE(next.has_value());
  BOOST_TEST(next->record.at.value == 3);
}

BOOST_AUTO_TEST_CASE(an_aborted_attempt_adds_at_most_one_record_however_many_reports_failed) {
  ss::sink_tracker t;
  const auto in = records({{0, 1}, {0, 2}, {0, 3}});
  t.new_transaction();
  for (const auto& r : in) t.delivery_failed(t.producing(r, 100), too_large());
  t.aborted();
  BOOST_TEST(t.known_unproducible() == 1u);
}

BOOST_AUTO_TEST_CASE(a_record_blamed_again_for_its_dead_letter_write_is_known_once_with_the_newer_blame) {
  ss::sink_tracker t;
  const auto in = records({{0, 1}});
  t.new_transaction();
  t.delivery_failed(t.producing(in[0], 3000), too_large());
  t.aborted();
  t.new_transaction();
  t.delivery_failed(t.producing_dead_letter(in[0], 2500), too_large());
  t.aborted();
  BOOST_TEST(t.known_unproducible() == 1u);
  BOOST_TEST(t.unproducible_in(in)->record.dead_letter);
}

BOOST_AUTO_TEST_CASE(a_known_record_is_forgotten_once_a_committed_transaction_dead_lettered_it) {
  ss::sink_tracker t;
  const auto in = records({{0, 1}, {0, 2}});
  t.new_transaction();
  t.delivery_failed(t.producing(in[0], 3000), too_large());
  t.aborted();
  t.new_transaction();
  t.producing(in[1], 10);  // an output of another record commits: still known
  t.committed();
  BOOST_TEST(t.known_unproducible() == 1u);
  t.new_transaction();
  t.producing_dead_letter(in[0], 3000);
  t.committed();
  BOOST_TEST(t.known_unproducible() == 0u);
}

BOOST_AUTO_TEST_CASE(a_record_landing_right_behind_an_aborted_one_is_a_trailing_record_until_taken) {
  ss::sink_tracker t;
  t.new_transaction();
  const auto in = records({{0, 1}, {0, 2}});
  t.delivered(t.producing(in[0], 10), 3, 180);
  t.delivered(t.producing(in[1], 10), 3, 181);
  t.aborted();
  BOOST_TEST(t.commit_needs_reports());
  t.new_transaction();
  t.delivered(t.producing(in[0], 10), 3, 182);
  const std::optional<std::string> trailing = t.take_trailing();
  BOOST_TEST_REQUIRE(trailing.has_value());
  BOOST_TEST(trailing->find("offset 182 follows offset 181") != std::string::npos);
  BOOST_TEST(!t.take_trailing());
}

BOOST_AUTO_TEST_SUITE_END()
