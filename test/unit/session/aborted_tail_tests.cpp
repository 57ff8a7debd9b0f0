// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/aborted_tail.hpp"

#include <boost/test/unit_test.hpp>

// engine/session/aborted_tail.hpp: a record of an aborted transaction that the broker
// appended after the abort marker (or without one) sits right behind the next
// record the producer writes to that partition.

namespace session = streamt::engine::session;

BOOST_AUTO_TEST_SUITE(aborted_tail)

BOOST_AUTO_TEST_CASE(a_record_right_behind_an_aborted_one_is_reported_with_both_offsets) {
  session::aborted_tail tail;
  BOOST_TEST(!tail.delivered(2, 180));
  BOOST_TEST(!tail.delivered(2, 181));
  tail.aborted();
  BOOST_TEST(tail.armed());
  const std::optional<std::string> found = tail.delivered(2, 182);
  BOOST_TEST_REQUIRE(found.has_value());
  BOOST_TEST(found->find("sink partition 2") != std::string::npos);
  BOOST_TEST(found->find("offset 182") != std::string::npos);
  BOOST_TEST(found->find("offset 181") != std::string::npos);
  BOOST_TEST(!tail.armed());
}

BOOST_AUTO_TEST_CASE(a_record_past_the_abort_marker_is_fine) {
  session::aborted_tail tail;
  tail.delivered(2, 181);
  tail.aborted();
  BOOST_TEST(!tail.delivered(2, 183));  // 182 is the abort marker
  BOOST_TEST(!tail.armed());
}

BOOST_AUTO_TEST_CASE(only_the_first_record_per_partition_after_an_abort_is_checked) {
  session::aborted_tail tail;
  tail.delivered(0, 10);
  tail.delivered(1, 20);
  tail.aborted();
  BOOST_TEST(!tail.delivered(0, 12));
  BOOST_TEST(tail.armed());  // partition 1 not written again yet
  BOOST_TEST(!tail.delivered(0, 13));
  BOOST_TEST(tail.delivered(1, 21).has_value());
  BOOST_TEST(!tail.armed());
}

BOOST_AUTO_TEST_CASE(a_committed_transaction_arms_nothing) {
  session::aborted_tail tail;
  tail.delivered(0, 10);
  tail.committed();
  BOOST_TEST(!tail.armed());
  tail.aborted();  // an empty transaction aborted: nothing of it was written
  BOOST_TEST(!tail.armed());
  BOOST_TEST(!tail.delivered(0, 11));
}

BOOST_AUTO_TEST_CASE(the_last_offset_of_the_aborted_transaction_counts_whatever_the_report_order) {
  session::aborted_tail tail;
  tail.delivered(3, 7);
  tail.delivered(3, 5);
  tail.aborted();
  BOOST_TEST(!tail.delivered(3, 6));  // behind 7: not a trailing record
  session::aborted_tail again;
  again.delivered(3, 7);
  again.delivered(3, 5);
  again.aborted();
  BOOST_TEST(again.delivered(3, 8).has_value());
}

BOOST_AUTO_TEST_CASE(a_second_abort_rearms_with_the_newer_offsets) {
  session::aborted_tail tail;
  tail.delivered(0, 10);
  tail.aborted();
  BOOST_TEST(!tail.delivered(0, 12));
  tail.aborted();  // that transaction (offset 12) aborted as well
  BOOST_TEST(tail.delivered(0, 13).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
