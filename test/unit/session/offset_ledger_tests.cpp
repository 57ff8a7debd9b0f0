// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/offset_ledger.hpp"

#include "records.hpp"

#include <boost/test/unit_test.hpp>

// engine/session/offset_ledger.hpp: owned partitions, the open transaction's
// next offsets, the offsets this process committed, and the two checks made
// on them.

namespace ss = streamt::engine::session;
using streamt::test::records;

BOOST_AUTO_TEST_SUITE(offset_ledger)

BOOST_AUTO_TEST_CASE(handing_over_records_moves_each_partition_past_its_last_handled_record) {
  ss::offset_ledger l("orders");
  const auto batch = records({{0, 5}, {0, 6}, {1, 2}, {0, 7}, {1, 3}});
  l.handed_over(batch, 4);  // the fifth record (1@3) was not handled
  BOOST_TEST(l.pending().size() == 2u);
  BOOST_TEST(l.pending().at(ss::partition_id{0}).value == 8);
  BOOST_TEST(l.pending().at(ss::partition_id{1}).value == 3);
}

BOOST_AUTO_TEST_CASE(a_record_below_one_already_handed_over_in_the_open_transaction_is_a_step_back) {
  ss::offset_ledger l("orders");
  l.handed_over(records({{0, 5}, {0, 6}, {0, 7}}), 3);
  const std::optional<std::string> back = l.went_back(records({{1, 0}, {0, 6}}));
  BOOST_TEST_REQUIRE(back.has_value());
  BOOST_TEST(*back == "orders/0@6 was delivered again after offset 7");
  BOOST_TEST(!l.went_back(records({{0, 8}, {0, 9}})));
}

BOOST_AUTO_TEST_CASE(a_repeat_inside_one_batch_is_a_step_back_and_gaps_of_control_records_are_not) {
  ss::offset_ledger l("orders");
  // read_committed skips an aborted upstream transaction and its marker:
  // the offsets jump, which is no step back.
  BOOST_TEST(!l.went_back(records({{0, 0}, {0, 1}, {0, 4}, {0, 5}})));
  BOOST_TEST(l.went_back(records({{0, 0}, {0, 1}, {0, 1}})).has_value());
  BOOST_TEST(!l.went_back(records({{0, 3}, {1, 0}, {0, 4}, {1, 1}})));
}

BOOST_AUTO_TEST_CASE(stopping_before_a_record_leaves_its_partition_committing_at_its_own_offset) {
  ss::offset_ledger l("orders");
  l.handed_over(records({{0, 10}, {0, 11}}), 2);
  l.stop_before(ss::partition_id{0}, ss::offset{12});
  BOOST_TEST(l.pending().at(ss::partition_id{0}).value == 12);
}

BOOST_AUTO_TEST_CASE(a_commit_makes_the_pending_offsets_this_process_s_and_leaves_nothing_pending) {
  ss::offset_ledger l("orders");
  l.handed_over(records({{0, 10}, {2, 4}}), 2);
  l.committed();
  BOOST_TEST(l.pending().empty());
  BOOST_TEST(l.committed_by_us(ss::partition_id{0})->value == 11);
  BOOST_TEST(l.committed_by_us(ss::partition_id{2})->value == 5);
  BOOST_TEST(!l.committed_by_us(ss::partition_id{1}));
  l.handed_over(records({{0, 11}}), 1);
  l.clear_pending();  // aborted: the committed offsets stay
  BOOST_TEST(l.committed_by_us(ss::partition_id{0})->value == 11);
}

BOOST_AUTO_TEST_CASE(a_coordinator_answer_behind_what_this_process_committed_is_refused_with_both_offsets) {
  ss::offset_ledger l("orders");
  l.handed_over(records({{0, 279}}), 1);
  l.committed();
  const auto stale = l.behind(ss::partition_id{0}, ss::offset{260});
  BOOST_TEST_REQUIRE(stale.has_value());
  BOOST_TEST(
      *stale ==
      "orders/0: the group coordinator answered committed offset 260, behind offset 280 that this process "
      "committed");
  BOOST_TEST(l.behind(ss::partition_id{0}, std::nullopt).has_value());  // "none" after a restart
  BOOST_TEST(!l.behind(ss::partition_id{0}, ss::offset{280}));
  BOOST_TEST(!l.behind(ss::partition_id{0}, ss::offset{900}));  // another instance went on
  BOOST_TEST(!l.behind(ss::partition_id{1}, std::nullopt));     // never committed here
}

BOOST_AUTO_TEST_CASE(giving_up_a_partition_drops_its_ownership_and_its_pending_offset) {
  ss::offset_ledger l("orders");
  l.take(ss::partition_id{0});
  l.take(ss::partition_id{1});
  l.handed_over(records({{0, 1}, {1, 1}}), 2);
  l.give_up(ss::partition_id{1});
  BOOST_TEST(l.owns(ss::partition_id{0}));
  BOOST_TEST(!l.owns(ss::partition_id{1}));
  BOOST_TEST(l.pending().size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_batch_of_owned_records_at_or_past_their_positions_is_kept_as_it_is_without_a_copy) {
  ss::offset_ledger l("orders");
  l.take(ss::partition_id{0});
  l.take(ss::partition_id{1});
  l.positioned(ss::partition_id{0}, ss::offset{5});
  const auto batch = records({{0, 5}, {1, 0}, {0, 6}});
  std::vector<streamt::engine::record_view> kept;
  ss::offset_ledger::dropped d;
  const auto current = l.current(batch, kept, d);
  BOOST_TEST(current.data() == batch.data());
  BOOST_TEST(current.size() == 3u);
  BOOST_TEST(d.total() == 0u);
  BOOST_TEST(kept.empty());
}

BOOST_AUTO_TEST_CASE(records_of_a_partition_not_owned_or_from_before_its_position_are_dropped_and_counted) {
  ss::offset_ledger l("orders");
  l.take(ss::partition_id{0});
  l.take(ss::partition_id{1});
  l.positioned(ss::partition_id{0}, ss::offset{200});
  l.give_up(ss::partition_id{1});
  const auto batch = records({{0, 200}, {1, 7}, {0, 151}, {2, 0}, {0, 201}});
  std::vector<streamt::engine::record_view> kept;
  ss::offset_ledger::dropped d;
  const auto current = l.current(batch, kept, d);
  BOOST_TEST_REQUIRE(current.size() == 2u);
  BOOST_TEST(current[0].offset == 200);
  BOOST_TEST(current[1].offset == 201);
  BOOST_TEST(d.not_owned == 2u);
  BOOST_TEST(d.before_position == 1u);
  BOOST_TEST(d.first == "orders/1@7");
}

BOOST_AUTO_TEST_CASE(a_partition_given_up_and_taken_again_keeps_no_position_from_before) {
  ss::offset_ledger l("orders");
  l.take(ss::partition_id{0});
  l.positioned(ss::partition_id{0}, ss::offset{50});
  l.give_up(ss::partition_id{0});
  l.take(ss::partition_id{0});  // taken again from the beginning (no committed offset)
  std::vector<streamt::engine::record_view> kept;
  ss::offset_ledger::dropped d;
  BOOST_TEST(l.current(records({{0, 0}}), kept, d).size() == 1u);
  BOOST_TEST(d.total() == 0u);
}

BOOST_AUTO_TEST_CASE(where_a_partition_was_positioned_is_known_until_it_is_given_up) {
  ss::offset_ledger l("orders");
  l.take(ss::partition_id{0});
  BOOST_TEST(!l.positioned_at(ss::partition_id{0}).has_value());
  l.positioned(ss::partition_id{0}, ss::offset{42});
  BOOST_TEST_REQUIRE(l.positioned_at(ss::partition_id{0}).has_value());
  BOOST_TEST(l.positioned_at(ss::partition_id{0})->value == 42);
  l.give_up(ss::partition_id{0});
  BOOST_TEST(!l.positioned_at(ss::partition_id{0}).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
