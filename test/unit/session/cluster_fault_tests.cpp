// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include <boost/test/unit_test.hpp>

#include "engine/session/position_policy.hpp"

#include "steps.hpp"

// The cluster scenarios of the fault harness (tools/faults --brokers 3), as
// their events reach the session: one case each, named after the scenario.
// What the harness proves against three real brokers (every record once),
// these prove step by step: which calls are made again, which transaction is
// aborted and rewound, and that nothing is committed twice.

using namespace streamt::test::steps;

namespace {

ss::failure not_coordinator() {
  return client(k::txn_error_info::retriable_error(RD_KAFKA_RESP_ERR_NOT_COORDINATOR),
                "Broker: Not coordinator");
}
ss::failure coordinator_unavailable() {
  return client(k::txn_error_info::retriable_error(RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE),
                "Broker: Coordinator not available");
}
ss::failure delivery_timed_out() {
  return client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT), "Local: Message timed out");
}

// The open transaction's commit slices end with the call under way `slices`
// times (a leader or coordinator that does not answer yet), then it commits.
void commit_after_slices(run& r, int slices) {
  r.to_commit();
  for (int i = 0; i < slices; ++i) {
    const ss::action more = r.commit_returns(slice_ended(), 1000ms);
    BOOST_TEST_REQUIRE(more.kind == act::commit);
    BOOST_TEST(!more.first_slice);
  }
  BOOST_TEST_REQUIRE(r.commit_returns(ok()).kind == act::poll);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cluster_fault_scenarios)

// output_leader_kill: the leader of an output partition is killed mid-stream.
// librdkafka sends the transaction's records again to the new leader
// (idempotently) and the commit waits for them: a few slices, then the
// commit; nothing aborted, nothing counted as a retry.
BOOST_AUTO_TEST_CASE(output_leader_kill_the_commit_waits_for_the_new_leader_and_commits_once) {
  run r;
  r.owning({0, 1});
  r.open_with({{0, 10}, {1, 20}});
  commit_after_slices(r, 4);
  BOOST_TEST(r.committed(0) == 11);
  BOOST_TEST(r.committed(1) == 21);
  BOOST_TEST(r.s.counters().transactions_committed == 1u);
  BOOST_TEST(r.s.counters().transactions_aborted == 0u);
  BOOST_TEST(r.s.counters().commit_retries == 0u);
}

// input_leader_kill: the leader of an input partition is killed. The consumer
// logs transport errors and goes on from its position; a fetch that hands a
// record over again (an offset already produced in the open transaction)
// aborts and rewinds instead of producing it twice.
BOOST_AUTO_TEST_CASE(
    input_leader_kill_transport_errors_are_lines_and_a_record_fetched_again_is_never_produced_twice) {
  k::consumer_error cut;
  cut.error = {k::txn_error_info::plain(RD_KAFKA_RESP_ERR__TRANSPORT), "Local: Broker transport failure"};
  const ss::consumer_error_effect effect =
      ss::effect_of(streamt::engine::consumer_error_of(cut), "orders", {"big-orders"}, "orders-app");
  BOOST_TEST(!effect.end.has_value());
  BOOST_TEST(!effect.warning.empty());
  run r;
  r.owning({0});
  r.open_with({{0, 40}, {0, 41}});
  BOOST_TEST_REQUIRE(r.arrive({{0, 41}, {0, 42}}).kind == act::abort);
  BOOST_TEST_REQUIRE(r.abort_returns(ok()).kind == act::rewind);
  BOOST_TEST_REQUIRE(r.s.on(ss::rewound{ok(), false, {{ss::partition_id{0}, ss::offset{40}}}}).kind ==
                     act::poll);
  r.open_with({{0, 40}, {0, 41}, {0, 42}});
  commit_after_slices(r, 0);
  BOOST_TEST(r.committed(0) == 43);
  BOOST_TEST(r.s.counters().transactions_committed == 1u);
  BOOST_TEST(r.s.counters().transactions_aborted == 1u);
}

// txn_coordinator_kill: the transaction coordinator is killed while the
// offsets are sent and the commit is called. Both are asked again of the new
// coordinator: the offsets after a pause, the commit as an unknown outcome
// (never aborted: it may have committed).
BOOST_AUTO_TEST_CASE(txn_coordinator_kill_offsets_and_commit_are_asked_again_of_the_new_coordinator) {
  run r;
  r.owning({0});
  r.open_with({{0, 7}});
  BOOST_TEST_REQUIRE(r.s.on(ss::commit_due{}).kind == act::send_offsets);
  const ss::action pause = r.s.on(ss::offsets_sent{coordinator_unavailable()});
  BOOST_TEST_REQUIRE(pause.kind == act::retry_after);
  BOOST_TEST(!pause.commit_retry);
  BOOST_TEST_REQUIRE(r.s.on(ss::retry_elapsed{}).kind == act::send_offsets);
  BOOST_TEST_REQUIRE(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  const ss::action again = r.commit_returns(not_coordinator(), 30ms);
  BOOST_TEST_REQUIRE(again.kind == act::retry_after);
  BOOST_TEST(again.commit_retry);
  BOOST_TEST_REQUIRE(r.s.on(ss::retry_elapsed{}).kind == act::commit);
  BOOST_TEST_REQUIRE(r.commit_returns(ok()).kind == act::poll);
  BOOST_TEST(r.committed(0) == 8);
  BOOST_TEST(r.s.counters().commit_retries == 1u);
  BOOST_TEST(r.s.counters().transactions_aborted == 0u);
}

// group_coordinator_kill: the group's coordinator is killed. The offsets are
// sent again once it moved; and the new coordinator's answer for a partition
// this process committed a moment ago can be stale, which the session never
// starts from (the driver asks again until it is not behind).
BOOST_AUTO_TEST_CASE(
    group_coordinator_kill_offsets_go_to_the_new_coordinator_and_its_stale_answer_is_refused) {
  run r;
  r.owning({0});
  r.open_with({{0, 99}});
  BOOST_TEST_REQUIRE(r.s.on(ss::commit_due{}).kind == act::send_offsets);
  BOOST_TEST_REQUIRE(r.s.on(ss::offsets_sent{not_coordinator()}).kind == act::retry_after);
  BOOST_TEST_REQUIRE(r.s.on(ss::retry_elapsed{}).kind == act::send_offsets);
  BOOST_TEST_REQUIRE(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  BOOST_TEST_REQUIRE(r.commit_returns(ok()).kind == act::poll);
  BOOST_TEST(r.committed(0) == 100);
  BOOST_TEST(r.s.ledger().behind(ss::partition_id{0}, std::nullopt).has_value());
  BOOST_TEST(r.s.ledger().behind(ss::partition_id{0}, ss::offset{90}).has_value());
  BOOST_TEST(!r.s.ledger().behind(ss::partition_id{0}, ss::offset{100}).has_value());
}

// rolling_restart: every node in turn, input flowing. A node that leads the
// coordinator hands it over (the commit asked again), and the rebalance its
// restart causes revokes a partition while a transaction is open: that
// transaction commits before the partition is given up, and when it comes
// back it starts at the offset this process committed.
BOOST_AUTO_TEST_CASE(
    rolling_restart_a_revocation_mid_transaction_commits_first_and_the_partition_comes_back_where_it_was) {
  run r;
  r.owning({0, 1});
  r.open_with({{0, 5}, {1, 5}});
  commit_after_slices(r, 2);
  r.open_with({{0, 6}, {1, 6}});
  BOOST_TEST_REQUIRE(r.s.on(ss::revoked{{{1}}, false}).kind == act::send_offsets);
  BOOST_TEST_REQUIRE(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  const ss::action give_up = r.commit_returns(ok());
  BOOST_TEST_REQUIRE(give_up.kind == act::give_up);
  BOOST_TEST(give_up.partitions.size() == 1u);
  BOOST_TEST_REQUIRE(r.s.on(ss::given_up{ok()}).kind == act::poll);
  BOOST_TEST(r.committed(1) == 7);
  BOOST_TEST_REQUIRE(r.s.on(ss::assigned{{{1}}, {{ss::partition_id{1}, ss::offset{7}}}}).kind == act::poll);
  // A record fetched before the partition went is older than its position
  // now: dropped, never produced again.
  const ss::action next = r.arrive({{1, 6}, {1, 7}});
  BOOST_TEST_REQUIRE(next.kind == act::begin);
  BOOST_TEST(r.s.batch().size() == 1u);
  BOOST_TEST(r.s.counters().stale_dropped == 1u);
}

// leader_pause: the leader of an output partition is SIGSTOPped for up to
// 25 s, until leadership moves. The commit's slices end with the call under
// way for all that time (below the whole call's limit and the stall bound):
// the session keeps calling, and the transaction commits once.
BOOST_AUTO_TEST_CASE(leader_pause_a_commit_under_way_for_25_s_is_called_again_each_second_and_commits_once) {
  run r;
  r.owning({0});
  r.open_with({{0, 3}});
  commit_after_slices(r, 25);
  BOOST_TEST(r.committed(0) == 4);
  BOOST_TEST(r.s.counters().commit_retries == 0u);
  BOOST_TEST(r.s.counters().transactions_aborted == 0u);
}

// client_cut_off: the engine loses one node for 10 to 45 s while the others
// answer. Records to it time out in the producer's queue: the transaction
// cannot commit, so it is aborted (the abort too waits in slices) and
// rewound, and its records are produced again once the node is back.
BOOST_AUTO_TEST_CASE(client_cut_off_timed_out_deliveries_abort_and_rewind_and_the_replay_commits_once) {
  run r;
  r.owning({0});
  r.open_with({{0, 50}, {0, 51}});
  r.s.sink().delivery_failed((std::uint64_t{1} << 32) | 0, delivery_timed_out());
  r.to_commit();
  BOOST_TEST_REQUIRE(r.commit_returns(abortable(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT)).kind == act::abort);
  BOOST_TEST_REQUIRE(r.abort_returns(slice_ended(), 1000ms).kind == act::abort);
  BOOST_TEST_REQUIRE(r.abort_returns(ok()).kind == act::rewind);
  BOOST_TEST_REQUIRE(r.s.on(ss::rewound{ok(), false, {{ss::partition_id{0}, ss::offset{50}}}}).kind ==
                     act::poll);
  BOOST_TEST(r.committed(0) == -1);  // nothing of the aborted transaction committed
  r.open_with({{0, 50}, {0, 51}});
  commit_after_slices(r, 0);
  BOOST_TEST(r.committed(0) == 52);
  BOOST_TEST(r.s.counters().transactions_aborted == 1u);
  BOOST_TEST(r.s.counters().transactions_committed == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
