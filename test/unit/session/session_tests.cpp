// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#define BOOST_TEST_MODULE session
#include <boost/test/unit_test.hpp>

#include "engine/session/session.hpp"

#include "records.hpp"
#include "steps.hpp"

#include <chrono>
#include <set>

// engine/session/session.hpp, step by step: the events a run produces, and the
// action the session answers to each. The first suite walks the ordinary run
// and the stops; the second replays the event sequences of the fault
// harness's scenarios (tools/faults), one case each, as they reach the
// session when the fault happens.

using namespace streamt::test::steps;
using streamt::test::records;

BOOST_AUTO_TEST_SUITE(ordinary_runs)

BOOST_AUTO_TEST_CASE(records_are_begun_produced_and_committed_at_the_end_of_the_commit_interval) {
  run r;
  BOOST_TEST(r.owning({0, 1}).kind == act::poll);
  const ss::action waiting = r.open_with({{0, 5}, {0, 6}, {1, 2}});
  BOOST_TEST(waiting.kind == act::poll);
  BOOST_TEST_REQUIRE(waiting.commit_at.has_value());
  BOOST_TEST((*waiting.commit_at == r.now + 100ms));
  BOOST_TEST(r.pending(0) == 7);
  BOOST_TEST(r.pending(1) == 3);
  r.to_commit();
  const ss::action next = r.commit_returns(ok());
  BOOST_TEST(next.kind == act::poll);
  BOOST_TEST(!next.commit_at.has_value());  // no transaction open
  BOOST_TEST(r.committed(0) == 7);
  BOOST_TEST(r.committed(1) == 3);
  BOOST_TEST(r.s.ledger().pending().empty());
  BOOST_TEST(r.s.counters().transactions_committed == 1u);
  BOOST_TEST(r.s.last_transaction().consumed == 3u);
}

BOOST_AUTO_TEST_CASE(a_batch_that_reaches_the_record_bound_commits_without_waiting_for_the_interval) {
  ss::config c = config_with(60000ms);
  c.max_records_per_transaction = 3;
  run r(c);
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}}).kind == act::begin);
  const ss::action two = r.produce(r.s.on(ss::began{ok(), r.now}));
  BOOST_TEST(two.kind == act::poll);
  BOOST_TEST(two.max_records == 1u);  // never more than the bound allows
  BOOST_TEST(r.produce(r.arrive({{0, 2}})).kind == act::send_offsets);
}

BOOST_AUTO_TEST_CASE(a_batch_whose_first_record_is_invalid_still_sends_that_partition_s_offset) {
  run r;
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 0}}).kind == act::begin);
  const ss::action produce_it = r.s.on(ss::began{ok(), r.now});
  // The first record is invalid: nothing handed over, but its offset is
  // what the partition commits.
  const ss::action a = r.produce(produce_it, 0);
  BOOST_TEST(a.kind == act::send_offsets);
  BOOST_TEST(r.pending(0) == 0);
}

BOOST_AUTO_TEST_CASE(a_commit_that_failed_retriably_is_retried_as_an_unknown_outcome_never_aborted) {
  run r;
  r.owning({0});
  r.open_with({{0, 0}});
  r.to_commit();
  const ss::action again = r.commit_returns(coordinator_moved(), 100ms);
  BOOST_TEST(again.kind == act::retry_after);
  BOOST_TEST(again.commit_retry);
  BOOST_TEST(r.s.on(ss::retry_elapsed{}).kind == act::commit);
  BOOST_TEST(r.commit_returns(ok()).kind == act::poll);
  BOOST_TEST(r.s.counters().commit_retries == 1u);
  BOOST_TEST(r.committed(0) == 1);
}

BOOST_AUTO_TEST_CASE(a_commit_slice_that_ends_with_the_call_under_way_calls_again_and_counts_no_attempt) {
  run r;
  r.owning({0});
  r.open_with({{0, 0}});
  r.to_commit();
  const ss::action more = r.commit_returns(slice_ended(), 1000ms);
  BOOST_TEST(more.kind == act::commit);
  BOOST_TEST(!more.first_slice);
  BOOST_TEST(r.s.counters().commit_retries == 0u);
  // Once the call has taken as long as librdkafka gives it, the timeout is
  // an outcome: an unknown one, retried and counted.
  const ss::action retry = r.commit_returns(slice_ended(), 60000ms);
  BOOST_TEST(retry.kind == act::retry_after);
  BOOST_TEST(r.s.counters().commit_retries == 1u);
}

BOOST_AUTO_TEST_CASE(
    an_invalid_record_commits_the_records_before_it_and_ends_the_run_naming_the_offset_to_skip) {
  run r;
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 7}, {0, 8}, {0, 9}}).kind == act::begin);
  const ss::action a = r.produce(r.s.on(ss::began{ok(), r.now}), 2);
  BOOST_TEST(a.kind == act::send_offsets);
  BOOST_TEST(a.warning.find("invalid record at orders/0@9") != std::string::npos);
  // The record the warning is about, for the line's fields.
  BOOST_TEST_REQUIRE(a.record.has_value());
  BOOST_TEST(a.record->offset == 9);
  BOOST_TEST(a.record->error.code == "type_mismatch");
  BOOST_TEST(r.pending(0) == 9);
  BOOST_TEST(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  const ss::action end = r.commit_returns(ok());
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(end.leave_group);
  const ss::ending e = r.s.outcome();
  BOOST_TEST((e.status == run_status::invalid_record));
  BOOST_TEST(e.message.find("streamt offsets skip orders-app orders/0@9 --bootstrap-servers") !=
             std::string::npos);
  BOOST_TEST_REQUIRE(e.invalid.has_value());
  BOOST_TEST(e.invalid->offset == 9);
}

BOOST_AUTO_TEST_CASE(a_revocation_commits_the_open_transaction_before_the_partitions_are_given_up) {
  run r;
  r.owning({0, 1});
  r.open_with({{0, 3}, {1, 4}});
  BOOST_TEST(r.s.on(ss::revoked{{{1}}, false}).kind == act::send_offsets);
  BOOST_TEST(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  const ss::action give_up = r.commit_returns(ok());
  BOOST_TEST(give_up.kind == act::give_up);
  BOOST_TEST(give_up.partitions.size() == 1u);
  BOOST_TEST(give_up.partitions.at(0).value == 1);
  BOOST_TEST(r.committed(1) == 5);
  BOOST_TEST(r.s.on(ss::given_up{ok()}).kind == act::poll);
  BOOST_TEST(!r.s.ledger().owns(ss::partition_id{1}));
  BOOST_TEST(r.s.ledger().owns(ss::partition_id{0}));
}

BOOST_AUTO_TEST_CASE(a_revocation_with_nothing_open_gives_the_partitions_up_at_once) {
  run r;
  r.owning({0, 1});
  const ss::action a = r.s.on(ss::revoked{{{0}, {1}}, false});
  BOOST_TEST(a.kind == act::give_up);
  BOOST_TEST(a.partitions.size() == 2u);
  BOOST_TEST(r.s.on(ss::given_up{ok()}).kind == act::poll);
  BOOST_TEST(r.s.ledger().owned().empty());
}

BOOST_AUTO_TEST_CASE(a_failed_poll_or_refused_assignment_ends_the_run_with_the_driver_s_status) {
  run r;
  r.owning({0});
  const ss::action a = r.s.on(ss::run_failed{run_status::rejected_config, "offsets out of range"});
  BOOST_TEST(a.kind == act::close);
  BOOST_TEST((r.s.outcome().status == run_status::rejected_config));
  BOOST_TEST(r.s.outcome().message == "offsets out of range");
}

BOOST_AUTO_TEST_CASE(a_fatal_producer_error_noted_by_the_delivery_reports_turns_a_clean_stop_into_a_failure) {
  run r;
  r.owning({0});
  r.s.producer_fatal("_FATAL: idempotence broken");
  BOOST_TEST(r.s.on(ss::stop_seen{graceful}).kind == act::close);
  BOOST_TEST((r.s.outcome().status == run_status::failed));
  BOOST_TEST(r.s.outcome().message == "producer: _FATAL: idempotence broken");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(stops)

BOOST_AUTO_TEST_CASE(a_stop_before_the_run_started_ends_it_cleanly_without_leaving_a_group_it_never_joined) {
  run r;
  BOOST_TEST((r.s.stop_news_of(graceful) == ss::stop_news::graceful));
  const ss::action a = r.s.on(ss::stop_seen{graceful});
  BOOST_TEST(a.kind == act::close);
  BOOST_TEST(!a.leave_group);
  BOOST_TEST((r.s.outcome().status == run_status::stopped));
  BOOST_TEST((r.s.stop_news_of(graceful) == ss::stop_news::none));
}

// Subscribed, no assignment yet: librdkafka can neither destroy nor close
// such a member at once, so a graceful stop waits (bounded) for the
// assignment, gives it up and leaves.
BOOST_AUTO_TEST_CASE(a_graceful_stop_before_the_first_assignment_waits_for_it_then_gives_it_up_and_leaves) {
  run r;
  BOOST_TEST(r.s.on(ss::started{}).kind == act::poll);
  const ss::action wait = r.s.on(ss::stop_seen{graceful, r.now});
  BOOST_TEST(wait.kind == act::poll);
  BOOST_TEST_REQUIRE(wait.commit_at.has_value());
  BOOST_TEST((*wait.commit_at == r.now + 5000ms));
  BOOST_TEST(wait.info.find("waiting up to 5 s for the group's first assignment") != std::string::npos);
  BOOST_TEST(!r.s.closed());
  const ss::action end = r.s.on(ss::assigned{{{0}, {1}}});
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(end.leave_group);
  BOOST_TEST((end.partitions == std::vector<ss::partition_id>{{0}, {1}}));
  BOOST_TEST(r.s.ledger().owned().empty());
  BOOST_TEST((r.s.outcome().status == run_status::stopped));
}

BOOST_AUTO_TEST_CASE(a_graceful_stop_whose_first_assignment_does_not_come_in_time_ends_without_leaving) {
  run r;
  r.s.on(ss::started{});
  BOOST_TEST(r.s.on(ss::stop_seen{graceful, r.now}).kind == act::poll);
  const ss::action end = r.s.on(ss::commit_due{});
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(!end.leave_group);  // its LeaveGroup would queue behind the JoinGroup
  BOOST_TEST(end.warning.find("no assignment came within 5 s of the stop") != std::string::npos);
  BOOST_TEST((r.s.outcome().status == run_status::stopped));
}

BOOST_AUTO_TEST_CASE(a_terminal_stop_before_the_first_assignment_ends_at_once_without_leaving) {
  run r;
  r.s.on(ss::started{});
  const ss::action a = r.s.on(ss::stop_seen{terminal, r.now});
  BOOST_TEST(a.kind == act::close);
  BOOST_TEST(!a.leave_group);
  BOOST_TEST((r.s.outcome().status == run_status::stopped));
}

BOOST_AUTO_TEST_CASE(a_terminal_stop_during_the_wait_for_the_first_assignment_ends_it_without_leaving) {
  run r;
  r.s.on(ss::started{});
  BOOST_TEST(r.s.on(ss::stop_seen{graceful, r.now}).kind == act::poll);
  const ss::action a = r.s.on(ss::stop_seen{terminal, r.now});
  BOOST_TEST(a.kind == act::close);
  BOOST_TEST(!a.leave_group);
  BOOST_TEST((r.s.outcome().status == run_status::stopped));
}

BOOST_AUTO_TEST_CASE(a_first_assignment_refused_during_the_stop_ends_the_stop_cleanly_and_says_why) {
  run r;
  r.s.on(ss::started{});
  r.s.on(ss::stop_seen{graceful, r.now});
  const ss::action end =
      r.s.on(ss::assignment_refused{run_status::rejected_config, "plan may not take orders/0"});
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(end.leave_group);
  BOOST_TEST(end.warning.find("plan may not take orders/0") != std::string::npos);
  BOOST_TEST((r.s.outcome().status == run_status::stopped));
}

BOOST_AUTO_TEST_CASE(unanswered_offsets_of_the_awaited_first_assignment_end_the_stop_cleanly) {
  run r;
  r.s.on(ss::started{});
  r.s.on(ss::stop_seen{graceful, r.now});
  const ss::run_failed f = r.s.unanswered("reading the committed offsets failed", false);
  BOOST_TEST((f.status == run_status::stopped));
}

BOOST_AUTO_TEST_CASE(a_stop_after_all_partitions_were_revoked_still_leaves_the_group) {
  run r;
  r.owning({0});
  BOOST_TEST(r.s.on(ss::revoked{{{0}}, false}).kind == act::give_up);
  BOOST_TEST(r.s.on(ss::given_up{}).kind == act::poll);
  const ss::action a = r.s.on(ss::stop_seen{graceful});
  BOOST_TEST(a.kind == act::close);
  BOOST_TEST(a.leave_group);
}

BOOST_AUTO_TEST_CASE(a_stop_with_partitions_and_nothing_open_stops_at_once) {
  run r;
  r.owning({0, 1, 2});
  BOOST_TEST(r.s.on(ss::stop_seen{graceful}).kind == act::close);
  BOOST_TEST(r.s.counters().transactions_committed == 0u);
}

BOOST_AUTO_TEST_CASE(a_stop_while_begin_is_in_hand_commits_the_batch_as_soon_as_it_is_produced) {
  run r(config_with(60000ms));
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}}).kind == act::begin);
  // The stop came before begin_transaction was called: the call goes on,
  // nothing is open yet.
  BOOST_TEST(r.s.on(ss::stop_seen{graceful}).kind == act::begin);
  const ss::action produce_it = r.s.on(ss::began{ok(), r.now});
  BOOST_TEST(r.produce(produce_it).kind == act::send_offsets);  // not a poll for 60 s
  BOOST_TEST(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  const ss::action end = r.commit_returns(ok());
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(end.leave_group);
  BOOST_TEST(r.committed(0) == 2);
  BOOST_TEST((r.s.outcome().status == run_status::stopped));
}

BOOST_AUTO_TEST_CASE(a_graceful_stop_with_a_minute_long_commit_interval_commits_now) {
  run r(config_with(60000ms));
  r.owning({0});
  const ss::action waiting = r.open_with({{0, 0}});
  BOOST_TEST((*waiting.commit_at == r.now + 60000ms));
  const ss::action a = r.s.on(ss::stop_seen{graceful});
  BOOST_TEST(a.kind == act::send_offsets);
  BOOST_TEST(a.info == "stopping: finishing the open transaction");
  BOOST_TEST(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  BOOST_TEST(r.commit_returns(ok()).kind == act::close);
  BOOST_TEST(r.committed(0) == 1);
}

BOOST_AUTO_TEST_CASE(a_terminal_stop_aborts_the_open_transaction_and_does_not_wait_to_leave_the_group) {
  run r;
  r.owning({0});
  r.open_with({{0, 0}});
  const ss::action a = r.s.on(ss::stop_seen{terminal});
  BOOST_TEST(a.kind == act::abort);
  BOOST_TEST(a.first_slice);
  const ss::action end = r.abort_returns(ok());
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(!end.leave_group);
  BOOST_TEST(r.committed(0) == -1);
  BOOST_TEST(r.s.counters().transactions_aborted == 1u);
}

BOOST_AUTO_TEST_CASE(a_terminal_stop_during_a_commit_lets_the_commit_finish) {
  run r;
  r.owning({0});
  r.open_with({{0, 0}});
  r.to_commit();
  BOOST_TEST(r.s.on(ss::stop_seen{graceful}).kind == act::commit);  // in hand: goes on
  BOOST_TEST(r.s.on(ss::stop_seen{terminal}).kind == act::commit);
  const ss::action end = r.commit_returns(ok());
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(!end.leave_group);
  BOOST_TEST(r.committed(0) == 1);
}

BOOST_AUTO_TEST_CASE(the_stop_deadline_during_a_hanging_commit_leaves_its_outcome_to_the_broker) {
  run r;
  r.owning({0});
  r.open_with({{0, 0}});
  BOOST_TEST(r.s.on(ss::stop_seen{graceful}).kind == act::send_offsets);
  BOOST_TEST(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  BOOST_TEST(r.commit_returns(slice_ended(), 1000ms).kind == act::commit);
  BOOST_TEST(r.commit_returns(slice_ended(), 1000ms).kind == act::commit);
  const ss::action end = r.s.on(ss::stop_seen{deadline});
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(!end.leave_group);
  BOOST_TEST(end.warning.find("left to the broker") != std::string::npos);
  BOOST_TEST((r.s.outcome().status == run_status::stopped));
}

BOOST_AUTO_TEST_CASE(a_terminal_stop_that_comes_while_closing_still_keeps_the_close_from_leaving_the_group) {
  run r;
  r.owning({0});
  BOOST_TEST(r.s.on(ss::stop_seen{graceful}).leave_group);
  BOOST_TEST(!r.s.on(ss::stop_seen{terminal}).leave_group);
}

BOOST_AUTO_TEST_SUITE_END()

// The fault harness's scenarios (tools/faults), as the session meets them.
BOOST_AUTO_TEST_SUITE(fault_scenarios)

// kill9: the engine is killed with a transaction open; its successor's
// init_transactions aborts it, and the new session resumes at the committed
// offsets, so the killed transaction's records are produced once, by it.
BOOST_AUTO_TEST_CASE(kill9_the_successor_resumes_at_the_committed_offset_and_commits_the_replay_once) {
  run killed;
  killed.owning({0});
  killed.open_with({{0, 0}, {0, 1}});
  killed.to_commit();
  killed.commit_returns(ok());
  killed.open_with({{0, 2}, {0, 3}});  // killed here: never committed
  run successor;
  successor.owning({0});  // the driver assigned it at committed offset 2
  successor.open_with({{0, 2}, {0, 3}});
  successor.to_commit();
  BOOST_TEST(successor.commit_returns(ok()).kind == act::poll);
  BOOST_TEST(successor.committed(0) == 4);
}

// restarts: SIGTERM while records flow. The batch in hand is produced, the
// open transaction commits at once (not at the end of its interval), the
// group is left, and the next run resumes right after the last record.
BOOST_AUTO_TEST_CASE(
    restarts_a_stop_while_records_flow_commits_what_was_produced_and_the_next_run_resumes_after_it) {
  run first(config_with(5000ms));
  first.owning({0, 1});
  first.open_with({{0, 0}, {1, 0}});
  BOOST_TEST(first.arrive({{0, 1}, {1, 1}}).kind == act::produce);
  BOOST_TEST(first.s.on(ss::stop_seen{graceful}).kind == act::send_offsets);
  BOOST_TEST(first.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  const ss::action end = first.commit_returns(ok());
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(end.leave_group);
  // The second batch was stopped before it was produced: not committed.
  BOOST_TEST(first.committed(0) == 1);
  BOOST_TEST(first.committed(1) == 1);
  run next(config_with(5000ms));
  next.owning({0, 1});  // assigned at the committed offsets, 1 and 1
  BOOST_TEST(next.open_with({{0, 1}, {1, 1}}).kind == act::poll);
  next.to_commit();
  next.commit_returns(ok());
  BOOST_TEST(next.committed(0) == 2);
}

// rebalance: a second instance joins mid-transaction; the partitions it
// takes are revoked from this one, whose open transaction commits first.
BOOST_AUTO_TEST_CASE(
    rebalance_a_joining_instance_gets_its_partitions_only_after_their_transaction_committed) {
  run r;
  r.owning({0, 1, 2});
  r.open_with({{0, 7}, {1, 7}, {2, 7}});
  BOOST_TEST(r.s.on(ss::revoked{{{1}, {2}}, false}).kind == act::send_offsets);
  BOOST_TEST(r.s.ledger().pending().size() == 3u);  // all three commit together
  BOOST_TEST(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  BOOST_TEST(r.commit_returns(ok()).kind == act::give_up);
  BOOST_TEST(r.committed(2) == 8);
  BOOST_TEST(r.s.on(ss::given_up{ok()}).kind == act::poll);
  BOOST_TEST(r.s.ledger().owned().size() == 1u);
  // It leaves again: its partitions come back.
  BOOST_TEST(r.s.on(ss::assigned{{{1}, {2}}}).kind == act::poll);
  BOOST_TEST(r.s.ledger().owned().size() == 3u);
}

// rebalance, with batches: librdkafka may still hand over records it had
// fetched for partitions this process gave up. Processing them would
// duplicate what the next owner writes; the session drops them, says so,
// and hands the driver only the rest.
BOOST_AUTO_TEST_CASE(rebalance_records_of_a_partition_given_up_are_dropped_never_produced) {
  run r;
  r.owning({0, 1});
  r.open_with({{0, 7}, {1, 7}});
  BOOST_TEST(r.s.on(ss::revoked{{{1}}, false}).kind == act::send_offsets);
  BOOST_TEST(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  BOOST_TEST(r.commit_returns(ok()).kind == act::give_up);
  BOOST_TEST(r.s.on(ss::given_up{ok()}).kind == act::poll);
  // Only records of the given-up partition: nothing to do, poll again.
  const ss::action only_stale = r.arrive({{1, 8}, {1, 9}});
  BOOST_TEST(only_stale.kind == act::poll);
  BOOST_TEST(only_stale.warning.find("dropped 2 record(s)") != std::string::npos, only_stale.warning);
  BOOST_TEST(only_stale.warning.find("orders/1@8") != std::string::npos, only_stale.warning);
  // Mixed: the owned partition's record alone is produced and committed.
  BOOST_TEST_REQUIRE(r.arrive({{1, 10}, {0, 8}}).kind == act::begin);
  const ss::action produce_it = r.s.on(ss::began{ok(), r.now});
  BOOST_TEST(produce_it.take == 1u);
  BOOST_TEST_REQUIRE(r.s.batch().size() == 1u);
  BOOST_TEST(r.s.batch()[0].partition == 0);
  r.produce(produce_it);
  r.to_commit();
  BOOST_TEST(r.commit_returns(ok()).kind == act::poll);
  BOOST_TEST(r.committed(0) == 9);
  BOOST_TEST(r.committed(1) == 8);  // what the revocation's commit stored, untouched since
  BOOST_TEST(r.s.ledger().pending().empty());
  BOOST_TEST(r.s.counters().stale_dropped == 3u);
}

// rebalance, with batches: a partition comes back at the offset another
// member committed meanwhile; records fetched before (from this process's
// earlier assignment) are older than that and were processed already by
// the other member. Dropped.
BOOST_AUTO_TEST_CASE(rebalance_records_from_before_the_position_a_partition_came_back_at_are_dropped) {
  run r;
  r.owning({0});
  BOOST_TEST(r.s.on(ss::revoked{{{0}}, false}).kind == act::give_up);
  BOOST_TEST(r.s.on(ss::given_up{ok()}).kind == act::poll);
  BOOST_TEST(r.s.on(ss::assigned{{{0}}, {{ss::partition_id{0}, ss::offset{200}}}}).kind == act::poll);
  const ss::action begin = r.arrive({{0, 151}, {0, 152}, {0, 200}});
  BOOST_TEST_REQUIRE(begin.kind == act::begin);
  BOOST_TEST(begin.warning.find("2 from before the position") != std::string::npos, begin.warning);
  const ss::action produce_it = r.s.on(ss::began{ok(), r.now});
  BOOST_TEST(produce_it.take == 1u);
  BOOST_TEST(r.s.batch()[0].offset == 200);
}

// An abort rewinds to the committed offsets: a record older than where its
// partition was sought to is from before the rewind, and dropped.
BOOST_AUTO_TEST_CASE(a_record_from_before_a_rewind_is_dropped_and_the_records_after_it_are_produced) {
  run r;
  r.owning({0});
  r.open_with({{0, 5}, {0, 6}});
  BOOST_TEST(r.s.on(ss::commit_due{}).kind == act::send_offsets);
  BOOST_TEST(r.s.on(ss::offsets_sent{abortable()}).kind == act::abort);
  BOOST_TEST(r.abort_returns(ok()).kind == act::rewind);
  BOOST_TEST(r.s.on(ss::rewound{ok(), false, {{ss::partition_id{0}, ss::offset{5}}}}).kind == act::poll);
  BOOST_TEST_REQUIRE(r.arrive({{0, 4}, {0, 5}, {0, 6}}).kind == act::begin);
  const ss::action produce_it = r.s.on(ss::began{ok(), r.now});
  BOOST_TEST(produce_it.take == 2u);
  BOOST_TEST(r.s.batch()[0].offset == 5);
  r.produce(produce_it);
  r.to_commit();
  BOOST_TEST(r.commit_returns(ok()).kind == act::poll);
  BOOST_TEST(r.committed(0) == 7);
}

// zombie: a paused instance resumes after its successor fenced it; its
// transactional calls answer "fenced", and it stops (exit 75) with nothing
// of its open transaction committed.
BOOST_AUTO_TEST_CASE(zombie_a_fenced_commit_ends_the_run_as_fenced_with_nothing_committed) {
  run r;
  r.owning({0, 1});
  r.open_with({{0, 10}, {1, 10}});
  r.to_commit();
  const ss::action end = r.commit_returns(fenced());
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST((r.s.outcome().status == run_status::fenced));
  BOOST_TEST(r.s.outcome().message.find("another instance runs with this identity") != std::string::npos);
  BOOST_TEST(r.committed(0) == -1);
}

BOOST_AUTO_TEST_CASE(zombie_that_rejoined_idle_is_fenced_on_its_first_begin) {
  run r;
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 40}}).kind == act::begin);
  BOOST_TEST(r.s.on(ss::began{fenced(), r.now}).kind == act::close);
  BOOST_TEST((r.s.outcome().status == run_status::fenced));
}

// broker_pause: the paused broker times the commit out (unknown outcome:
// retried), and librdkafka 2.0.2 later hands a record over again after a
// rewind: the step back aborts and rewinds instead of committing it twice.
BOOST_AUTO_TEST_CASE(broker_pause_a_record_delivered_again_aborts_and_rewinds_instead_of_committing_twice) {
  run r;
  r.owning({0});
  r.open_with({{0, 5}, {0, 6}, {0, 7}});
  const ss::action a = r.arrive({{0, 6}, {0, 7}, {0, 8}});
  BOOST_TEST(a.kind == act::abort);
  BOOST_TEST(a.warning.find("orders/0@6 was delivered again after offset 7") != std::string::npos);
  const ss::action rewind = r.abort_returns(ok());
  BOOST_TEST(rewind.kind == act::rewind);
  BOOST_TEST(rewind.partitions.size() == 1u);
  BOOST_TEST(r.s.ledger().pending().empty());
  BOOST_TEST(r.s.on(ss::rewound{ok()}).kind == act::poll);
  BOOST_TEST(r.s.counters().rewinds == 1u);
  // From the committed offset again: no step back now.
  r.open_with({{0, 5}, {0, 6}, {0, 7}, {0, 8}});
  r.to_commit();
  BOOST_TEST(r.commit_returns(timed_out(), 1000ms).kind == act::commit);        // a slice: still under way
  BOOST_TEST(r.commit_returns(timed_out(), 60000ms).kind == act::retry_after);  // the whole call timed out
  BOOST_TEST(r.s.on(ss::retry_elapsed{}).kind == act::commit);
  BOOST_TEST(r.commit_returns(ok()).kind == act::poll);
  BOOST_TEST(r.committed(0) == 9);
}

// broker_pause, the aborted tail: a record of an aborted transaction landed
// right behind the abort, inside the next transaction; its delivery report
// gives it away, and the next transaction is aborted too, never committed.
BOOST_AUTO_TEST_CASE(
    broker_pause_a_record_of_an_aborted_transaction_inside_the_next_one_aborts_that_one_too) {
  run r;
  r.owning({0});
  r.open_with({{0, 0}});
  r.s.sink().delivered((std::uint64_t{1} << 32) | 0, 0, 181);
  BOOST_TEST(r.s.on(ss::commit_due{}).kind == act::send_offsets);
  BOOST_TEST(r.s.on(ss::offsets_sent{abortable()}).kind == act::abort);
  BOOST_TEST(r.abort_returns(ok()).kind == act::rewind);
  BOOST_TEST(r.s.on(ss::rewound{ok()}).kind == act::poll);
  r.open_with({{0, 0}});
  const ss::action flush = r.s.on(ss::commit_due{});
  BOOST_TEST(flush.kind == act::flush);  // the abort armed the check: every report first
  r.s.sink().delivered((std::uint64_t{2} << 32) | 0, 0, 182);  // right behind 181
  const ss::action a = r.s.on(ss::flushed{ok()});
  BOOST_TEST(a.kind == act::abort);
  BOOST_TEST(a.warning.find("offset 182 follows offset 181") != std::string::npos);
}

// ACLs: a sink this principal may not write to. librdkafka makes the
// refusal abortable, and an abort and retry would meet it every time (it
// flooded the log and ended in exit 75 after in-process restarts): one
// abort, then exit 69 naming what to grant.
BOOST_AUTO_TEST_CASE(a_sink_the_acls_refuse_ends_the_run_unavailable_after_one_abort_naming_the_grant) {
  run r;
  r.owning({0});
  r.open_with({{0, 0}});
  BOOST_TEST(r.s.on(ss::commit_due{}).kind == act::send_offsets);
  BOOST_TEST(r.s.on(ss::offsets_sent{abortable(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED)}).kind ==
             act::abort);
  const ss::action end = r.abort_returns(ok());
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(r.s.outcome().message.find("Write and Describe on topic 'big-orders'") != std::string::npos,
             r.s.outcome().message);
  BOOST_TEST(r.s.ledger().pending().empty());
}

BOOST_AUTO_TEST_CASE(a_transactional_id_the_acls_refuse_is_unavailable_not_a_fatal_error_to_restart_from) {
  run r;
  r.owning({0});
  r.open_with({{0, 0}});
  r.to_commit();
  const ss::action end = r.commit_returns(
      client(k::txn_error_info::fatal_error(RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
             "not allowed"));
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(r.s.outcome().message.find("prefix 'orders-app-'") != std::string::npos, r.s.outcome().message);
}

BOOST_AUTO_TEST_CASE(an_ordinary_abortable_error_still_aborts_rewinds_and_goes_on) {
  run r;
  r.owning({0});
  r.open_with({{0, 0}});
  BOOST_TEST(r.s.on(ss::commit_due{}).kind == act::send_offsets);
  BOOST_TEST(r.s.on(ss::offsets_sent{abortable()}).kind == act::abort);
  BOOST_TEST(r.abort_returns(ok()).kind == act::rewind);
  BOOST_TEST(r.s.on(ss::rewound{ok()}).kind == act::poll);
}

// broker_kill: a restarted coordinator answers a stale committed offset; the
// ledger says so (the driver asks again), and a stop while waiting ends the
// run cleanly, nothing being open after the abort.
BOOST_AUTO_TEST_CASE(broker_kill_a_stale_coordinator_answer_is_refused_and_a_stop_while_waiting_is_clean) {
  run r;
  r.owning({0});
  r.open_with({{0, 279}});
  r.to_commit();
  r.commit_returns(ok());
  BOOST_TEST(r.s.ledger().behind(ss::partition_id{0}, ss::offset{260}).has_value());
  r.open_with({{0, 280}});
  r.to_commit();
  BOOST_TEST(r.commit_returns(abortable()).kind == act::abort);
  BOOST_TEST(r.abort_returns(ok()).kind == act::rewind);
  BOOST_TEST(r.s.on(ss::stop_seen{graceful}).kind == act::rewind);  // the rewind in hand goes on
  const ss::action end =
      r.s.on(ss::rewound{client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR__INCONSISTENT), "behind"), true});
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST((r.s.outcome().status == run_status::stopped));
  BOOST_TEST(r.committed(0) == 280);
}

// rebalance: a second instance joins while a transaction is open; the
// revoked partitions' transaction commits first. A lost assignment (session
// timeout) aborts it instead: another member may own them already.
BOOST_AUTO_TEST_CASE(rebalance_a_lost_assignment_aborts_the_open_transaction_and_gives_the_partitions_up) {
  run r;
  r.owning({0, 1});
  r.open_with({{0, 1}, {1, 1}});
  BOOST_TEST(r.s.on(ss::revoked{{{0}, {1}}, true}).kind == act::abort);
  BOOST_TEST(r.abort_returns(ok()).kind == act::rewind);
  const ss::action give_up = r.s.on(ss::rewound{ok()});
  BOOST_TEST(give_up.kind == act::give_up);
  BOOST_TEST(give_up.partitions.size() == 2u);
  BOOST_TEST(r.s.on(ss::given_up{ok()}).kind == act::poll);
  BOOST_TEST(r.committed(0) == -1);
}

// txn_timeout: the broker aborted the transaction itself; the commit says
// so (abortable), and the session aborts and rewinds. Fenced while aborting
// a revocation's transaction, the close gives the partitions up first
// (librdkafka 2.0.2 cannot close a consumer with a revocation unanswered).
BOOST_AUTO_TEST_CASE(
    txn_timeout_fenced_while_ending_a_revocation_s_transaction_gives_the_partitions_up_on_close) {
  run r;
  r.owning({0});
  r.open_with({{0, 1}});
  r.to_commit();
  BOOST_TEST(r.commit_returns(abortable(RD_KAFKA_RESP_ERR_INVALID_TXN_STATE)).kind == act::abort);
  BOOST_TEST(r.abort_returns(ok()).kind == act::rewind);
  BOOST_TEST(r.s.on(ss::rewound{ok()}).kind == act::poll);
  r.open_with({{0, 1}});
  BOOST_TEST(r.s.on(ss::revoked{{{0}}, true}).kind == act::abort);
  const ss::action end = r.abort_returns(fenced());
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(end.partitions.size() == 1u);
  BOOST_TEST((r.s.outcome().status == run_status::fenced));
}

// retention: the committed position was deleted before it was processed.
// The position policy refuses it (tested there); the session ends the run
// with that status and nothing committed.
BOOST_AUTO_TEST_CASE(retention_a_refused_start_position_ends_the_run_with_exit_78_and_nothing_committed) {
  run r;
  BOOST_TEST(r.s.on(ss::started{}).kind == act::poll);
  BOOST_TEST(
      r.s.on(ss::run_failed{run_status::rejected_config, "orders/0: committed offset 12 is out of range"})
          .kind == act::close);
  BOOST_TEST((r.s.outcome().status == run_status::rejected_config));
  BOOST_TEST(r.s.counters().transactions_committed == 0u);
}

// A plan refused the partitions it was assigned (plan_succession.sh): the
// member acknowledged them, so it leaves the group and they move to the
// other members at once. A run that fails before any assignment does not
// leave: its LeaveGroup would queue behind its own JoinGroup.
BOOST_AUTO_TEST_CASE(
    a_refused_assignment_ends_the_run_with_exit_78_and_leaves_the_group_a_failed_start_does_not) {
  run refused;
  BOOST_TEST(refused.s.on(ss::started{}).kind == act::poll);
  const ss::action a = refused.s.on(
      ss::assignment_refused{run_status::rejected_config, "orders/0 was last committed by plan sha256:b"});
  BOOST_TEST(a.kind == act::close);
  BOOST_TEST(a.leave_group);
  BOOST_TEST((refused.s.outcome().status == run_status::rejected_config));
  BOOST_TEST(refused.s.outcome().message == "orders/0 was last committed by plan sha256:b");

  run failed;
  BOOST_TEST(failed.s.on(ss::started{}).kind == act::poll);
  const ss::action b =
      failed.s.on(ss::run_failed{run_status::unavailable, "the committed offsets: timed out"});
  BOOST_TEST(b.kind == act::close);
  BOOST_TEST(!b.leave_group);
}

// A partition refused while the member's own partitions have a transaction
// open: it is aborted first (their next owners would otherwise wait for it
// to time out), then the run ends with the refusal and leaves the group.
BOOST_AUTO_TEST_CASE(a_refusal_with_a_transaction_open_aborts_it_then_leaves_with_exit_78) {
  run r;
  r.owning({0});
  r.open_with({{0, 0}, {0, 1}});
  const ss::action a = r.s.on(ss::assignment_refused{run_status::rejected_config, "orders/1 is B's"});
  BOOST_TEST(a.kind == act::abort);
  const ss::action end = r.abort_returns(ok());
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(end.leave_group);
  BOOST_TEST((r.s.outcome().status == run_status::rejected_config));
  BOOST_TEST(r.s.outcome().message == "orders/1 is B's");
  BOOST_TEST(r.s.counters().transactions_committed == 0u);
}

// aborted upstream input: read_committed leaves out the aborted records and
// their markers, so offsets jump; that is no step back, and the committed
// offset is past the last record handed over.
BOOST_AUTO_TEST_CASE(aborted_input_gaps_of_filtered_records_commit_past_the_last_record_handed_over) {
  run r;
  r.owning({0});
  r.open_with({{0, 0}, {0, 1}, {0, 5}});
  BOOST_TEST(r.produce(r.arrive({{0, 6}, {0, 9}})).kind == act::poll);
  r.to_commit();
  r.commit_returns(ok());
  BOOST_TEST(r.committed(0) == 10);
}

// too_large: the sink refuses a record's output for good. Its transaction
// fails and is aborted; the replay processes up to it, commits, and stops
// there as at an invalid record. If that commit is aborted too (librdkafka
// 2.0.2 after an epoch bump), the records before it are processed again
// rather than claimed committed.
BOOST_AUTO_TEST_CASE(too_large_an_unproducible_record_stops_the_run_after_the_records_before_it_commit) {
  run r;
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}, {0, 2}}).kind == act::begin);
  const ss::action produce_it = r.s.on(ss::began{ok(), r.now});
  BOOST_TEST(r.produce(produce_it).kind == act::poll);
  r.refused_for_good_and_taken_again(1, {{0, 0}, {0, 1}, {0, 2}});
  const ss::action up_to_it = r.s.on(ss::began{ok(), r.now});
  BOOST_TEST(up_to_it.kind == act::produce);
  BOOST_TEST(up_to_it.take == 1u);
  BOOST_TEST(r.produce(up_to_it).kind == act::send_offsets);
  BOOST_TEST(r.pending(0) == 1);
  BOOST_TEST(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  // Aborted by librdkafka 2.0.2's sequence error: redo, don't claim exit 65.
  BOOST_TEST(r.commit_returns(abortable(RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER)).kind == act::abort);
  const ss::action redo = r.abort_returns(ok());
  BOOST_TEST(redo.kind == act::rewind);
  BOOST_TEST(redo.warning.find("processing up to it again") != std::string::npos);
  BOOST_TEST(r.s.on(ss::rewound{ok()}).kind == act::poll);
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}, {0, 2}}).kind == act::begin);
  BOOST_TEST(r.produce(r.s.on(ss::began{ok(), r.now})).kind == act::send_offsets);
  r.commits_and_stops_at("output_refused_by_sink", 1);
  BOOST_TEST(r.s.counters().transactions_committed == 1u);
  BOOST_TEST(r.s.counters().transactions_aborted == 2u);
}

// A record the sink's rules refuse (the driver refuses it before producing,
// engine/sink_rules.hpp: here a compacted sink and a record without a key):
// that record, not a neighbour, is the one the run stops at, after the
// records before it commit, with the rule as its reason.
BOOST_AUTO_TEST_CASE(
    a_record_the_sinks_rules_refuse_is_named_at_its_own_offset_after_the_ones_before_commit) {
  run r;
  r.owning({0});
  BOOST_TEST_REQUIRE(r.arrive({{0, 0}, {0, 1}, {0, 2}}).kind == act::begin);
  BOOST_TEST_REQUIRE(r.s.on(ss::began{ok(), r.now}).kind == act::produce);
  const std::span<const streamt::engine::record_view> in_hand = r.s.batch();
  ss::failure keyless;
  keyless.what = ss::condition::abortable;
  keyless.never_accepted = true;
  keyless.message = "refused before producing, for sink topic 'big-orders'";
  keyless.broken_rule = "it has no key, and sink topic 'big-orders' is compacted (cleanup.policy)";
  // Record 0 is larger: a size guess would have blamed it.
  r.s.sink().producing(in_hand[0], 5000);
  r.s.sink().producing(in_hand[1], 10);
  r.s.sink().refused_at_once(keyless);
  r.s.sink().producing(in_hand[2], 10);
  batch_result produced;
  produced.handled = 3;
  record_counts counts;
  counts.consumed = counts.emitted = 3;
  const ss::action abort = r.s.on(ss::batch_produced{produced, counts, r.now});
  BOOST_TEST_REQUIRE(abort.kind == act::abort);
  BOOST_TEST_REQUIRE(r.abort_returns(ok()).kind == act::rewind);
  BOOST_TEST_REQUIRE(r.s.on(ss::rewound{ok()}).kind == act::poll);
  BOOST_TEST_REQUIRE(r.arrive({{0, 0}, {0, 1}, {0, 2}}).kind == act::begin);
  const ss::action up_to_it = r.s.on(ss::began{ok(), r.now});
  BOOST_TEST(up_to_it.take == 1u);
  BOOST_TEST(r.produce(up_to_it).kind == act::send_offsets);
  r.commits_and_stops_at("output_refused_by_sink", 1);
  BOOST_TEST(r.s.outcome().invalid->error.message.find(
                 "it has no key, and sink topic 'big-orders' is compacted") == 0,
             r.s.outcome().invalid->error.message);
}

BOOST_AUTO_TEST_SUITE_END()

// on_invalid dead-letter: an invalid record goes to the dead-letter topic
// inside the open transaction, and the batch goes on after it.
BOOST_AUTO_TEST_SUITE(dead_letter)

ss::config dead_lettering() {
  ss::config c = config_with();
  c.dead_letter_topic = "orders-dlq";
  return c;
}

// The driver's side of a dead_letter action: the record announced to the
// sink tracker as the producer adapter does, then the event.
ss::action dead_letter_it(run& r, const ss::action& a) {
  BOOST_TEST_REQUIRE(a.kind == act::dead_letter);
  BOOST_TEST_REQUIRE(!r.s.batch().empty());
  r.s.sink().producing_dead_letter(r.s.batch().front(), 20);
  return r.s.on(ss::dead_lettered{r.now});
}

BOOST_AUTO_TEST_CASE(
    an_invalid_record_is_dead_lettered_and_the_rest_of_the_batch_produced_in_the_same_transaction) {
  run r(dead_lettering());
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}, {0, 2}}).kind == act::begin);
  const ss::action produce_it = r.s.on(ss::began{ok(), r.now});
  const ss::action dead = r.produce(produce_it, 1);
  BOOST_TEST_REQUIRE(dead.kind == act::dead_letter);
  BOOST_TEST_REQUIRE(dead.dead.has_value());
  BOOST_TEST(dead.dead->offset == 1);
  BOOST_TEST(dead.dead->error.code == "type_mismatch");
  // The record in hand is the invalid one itself.
  BOOST_TEST(r.s.batch().front().offset == 1);
  BOOST_TEST(dead.warning.find("writing it to dead-letter topic 'orders-dlq'") != std::string::npos,
             dead.warning);
  BOOST_TEST(r.pending(0) == 1);  // the record before it
  const ss::action rest = dead_letter_it(r, dead);
  BOOST_TEST_REQUIRE(rest.kind == act::produce);
  BOOST_TEST(rest.take == 1u);
  BOOST_TEST(r.s.batch().front().offset == 2);
  BOOST_TEST(r.pending(0) == 2);  // the dead-lettered record's offset is pending like an output's
  BOOST_TEST(r.produce(rest).kind == act::poll);
  BOOST_TEST(r.pending(0) == 3);
  r.to_commit();
  BOOST_TEST(r.commit_returns(ok()).kind == act::poll);
  BOOST_TEST(r.committed(0) == 3);
  BOOST_TEST(r.s.last_transaction().dead_lettered == 1u);
  BOOST_TEST(r.s.last_transaction().consumed == 3u);
  BOOST_TEST(!r.s.closed());
}

BOOST_AUTO_TEST_CASE(an_invalid_last_record_is_dead_lettered_and_the_run_polls_on) {
  run r(dead_lettering());
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}}).kind == act::begin);
  const ss::action after = dead_letter_it(r, r.produce(r.s.on(ss::began{ok(), r.now}), 1));
  BOOST_TEST(after.kind == act::poll);
  BOOST_TEST(r.pending(0) == 2);
}

BOOST_AUTO_TEST_CASE(a_dead_letter_write_refused_at_once_aborts_the_transaction_and_rewinds) {
  run r(dead_lettering());
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}}).kind == act::begin);
  const ss::action dead = r.produce(r.s.on(ss::began{ok(), r.now}), 0);
  BOOST_TEST_REQUIRE(dead.kind == act::dead_letter);
  r.s.sink().producing_dead_letter(r.s.batch().front(), 20);
  r.s.sink().refused_at_once(abortable(RD_KAFKA_RESP_ERR__QUEUE_FULL));
  const ss::action a = r.s.on(ss::dead_lettered{r.now});
  BOOST_TEST(a.kind == act::abort);
  BOOST_TEST(a.warning.find("writing to dead-letter topic 'orders-dlq' failed") != std::string::npos,
             a.warning);
  BOOST_TEST(r.abort_returns(ok()).kind == act::rewind);
  BOOST_TEST(r.committed(0) == -1);
}

BOOST_AUTO_TEST_CASE(kill9_with_bad_records_an_aborted_transaction_dead_letters_them_again_on_the_replay) {
  // The transaction holding a dead-letter write aborts (as when the engine
  // is killed and the coordinator aborts it): the write is rolled back with
  // the outputs, and the replay after the rewind writes it once more.
  run r(dead_lettering());
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}}).kind == act::begin);
  BOOST_TEST(dead_letter_it(r, r.produce(r.s.on(ss::began{ok(), r.now}), 0)).kind == act::produce);
  BOOST_TEST(r.s.on(ss::commit_due{}).kind == act::send_offsets);
  BOOST_TEST(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  BOOST_TEST(r.commit_returns(abortable()).kind == act::abort);
  BOOST_TEST(r.abort_returns(ok()).kind == act::rewind);
  BOOST_TEST(r.s.on(ss::rewound{ok()}).kind == act::poll);
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}}).kind == act::begin);
  const ss::action again = r.produce(r.s.on(ss::began{ok(), r.now}), 0);
  BOOST_TEST_REQUIRE(again.kind == act::dead_letter);
  BOOST_TEST(again.dead->offset == 0);
  BOOST_TEST(r.produce(dead_letter_it(r, again)).kind == act::poll);
  r.to_commit();
  BOOST_TEST(r.commit_returns(ok()).kind == act::poll);
  BOOST_TEST(r.committed(0) == 2);
  BOOST_TEST(r.s.counters().counts.dead_lettered == 1u);  // attempted twice, counted once: as committed
  BOOST_TEST(r.s.last_transaction().dead_lettered == 1u);
}

BOOST_AUTO_TEST_CASE(dead_letter_lines_are_bounded_to_one_per_interval_naming_how_many_were_not_logged) {
  run r(dead_lettering());
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}, {0, 2}}).kind == act::begin);
  const ss::action first = r.produce(r.s.on(ss::began{ok(), r.now}), 0);
  BOOST_TEST(!first.warning.empty());
  const ss::action second = r.produce(dead_letter_it(r, first), 0);
  BOOST_TEST(second.kind == act::dead_letter);
  BOOST_TEST(second.warning.empty());  // within the interval: counted, not logged
  r.now += 1s;
  const ss::action third = r.produce(dead_letter_it(r, second), 0);
  BOOST_TEST(third.warning.find("(1 more since the last such line)") != std::string::npos, third.warning);
}

BOOST_AUTO_TEST_CASE(
    a_stop_while_a_dead_letter_write_is_in_hand_keeps_the_record_uncommitted_for_the_next_run) {
  run r(dead_lettering());
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}}).kind == act::begin);
  const ss::action dead = r.produce(r.s.on(ss::began{ok(), r.now}), 1);
  BOOST_TEST_REQUIRE(dead.kind == act::dead_letter);
  const ss::action stop = r.s.on(ss::stop_seen{graceful});
  BOOST_TEST(stop.kind == act::send_offsets);
  BOOST_TEST(r.pending(0) == 1);  // the invalid record is not part of what commits
}

BOOST_AUTO_TEST_CASE(a_record_the_dead_letter_topic_refuses_for_good_stops_the_run_there) {
  run r(dead_lettering());
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}}).kind == act::begin);
  const ss::action dead = r.produce(r.s.on(ss::began{ok(), r.now}), 1);
  BOOST_TEST_REQUIRE(dead.kind == act::dead_letter);
  // Its write is the transaction's second record (opaque index 1).
  BOOST_TEST(dead_letter_it(r, dead).kind == act::poll);
  r.s.sink().delivery_failed((std::uint64_t{1} << 32) | 1, too_large());
  r.to_commit();
  BOOST_TEST(r.commit_returns(abortable(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE)).kind == act::abort);
  BOOST_TEST(r.abort_returns(ok()).kind == act::rewind);
  BOOST_TEST(r.s.on(ss::rewound{ok()}).kind == act::poll);
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}}).kind == act::begin);
  const ss::action up_to_it = r.s.on(ss::began{ok(), r.now});
  BOOST_TEST(up_to_it.kind == act::produce);
  BOOST_TEST(up_to_it.take == 1u);
  BOOST_TEST(r.produce(up_to_it).kind == act::send_offsets);
  r.commits_and_stops_at("dead_letter_refused", 1);
}

BOOST_AUTO_TEST_CASE(too_large_with_dead_letter_an_output_the_sink_refuses_goes_to_the_dead_letter_topic) {
  run r(dead_lettering());
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}, {0, 2}}).kind == act::begin);
  BOOST_TEST(r.produce(r.s.on(ss::began{ok(), r.now})).kind == act::poll);
  r.refused_for_good_and_taken_again(1, {{0, 0}, {0, 1}, {0, 2}});
  const ss::action up_to_it = r.s.on(ss::began{ok(), r.now});
  BOOST_TEST(up_to_it.take == 1u);
  const ss::action dead = r.produce(up_to_it);
  BOOST_TEST_REQUIRE(dead.kind == act::dead_letter);
  BOOST_TEST(dead.dead->error.code == "output_refused_by_sink");
  BOOST_TEST(dead.dead->offset == 1);
  const ss::action rest = dead_letter_it(r, dead);
  BOOST_TEST(rest.kind == act::produce);
  BOOST_TEST(rest.take == 1u);
  BOOST_TEST(r.produce(rest).kind == act::poll);
  r.to_commit();
  BOOST_TEST(r.commit_returns(ok()).kind == act::poll);
  BOOST_TEST(r.committed(0) == 3);
}

// dead_letter_oversized.sh: two outputs of one batch the sink refuses for
// good. Each aborted attempt blames one of them, and the blames add up, so
// the third attempt dead-letters both and commits. (When only the last
// blame was kept, the attempts blamed the two in turn and aborted forever.)
BOOST_AUTO_TEST_CASE(too_large_twice_in_a_batch_each_abort_blames_one_and_the_third_attempt_commits_both) {
  run r(dead_lettering());
  r.owning({0});
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}, {0, 2}, {0, 3}}).kind == act::begin);
  BOOST_TEST(r.produce(r.s.on(ss::began{ok(), r.now})).kind == act::poll);
  // Attempt 1: the output of offset 1 is refused.
  r.refused_for_good_and_taken_again(1, {{0, 0}, {0, 1}, {0, 2}, {0, 3}});
  BOOST_TEST(r.s.sink().known_unproducible() == 1u);
  // Attempt 2: offset 1 goes to the dead-letter topic; then the output of
  // offset 3 (the transaction's fourth write) is refused.
  const ss::action up_to_1 = r.s.on(ss::began{ok(), r.now});
  BOOST_TEST(up_to_1.take == 1u);
  const ss::action rest = dead_letter_it(r, r.produce(up_to_1));
  BOOST_TEST(rest.take == 2u);  // nothing else known in the rest
  BOOST_TEST(r.produce(rest).kind == act::poll);
  r.s.sink().delivery_failed((std::uint64_t{2} << 32) | 3, too_large());
  r.to_commit();
  BOOST_TEST(r.commit_returns(abortable(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE)).kind == act::abort);
  BOOST_TEST(r.abort_returns(ok()).kind == act::rewind);
  // Without the first abort forgiven, this second one in a row would be
  // past the bound of 1 (and pause first).
  BOOST_TEST(r.s.on(ss::rewound{ok()}).kind == act::poll);
  BOOST_TEST(r.s.sink().known_unproducible() == 2u);
  // Attempt 3: both are known, both dead-lettered, and it commits.
  BOOST_TEST(r.arrive({{0, 0}, {0, 1}, {0, 2}, {0, 3}}).kind == act::begin);
  const ss::action first = r.produce(r.s.on(ss::began{ok(), r.now}));
  BOOST_TEST_REQUIRE(first.kind == act::dead_letter);
  BOOST_TEST(first.dead->offset == 1);
  const ss::action between = dead_letter_it(r, first);
  BOOST_TEST(between.take == 1u);  // offset 2, up to the second known record
  const ss::action second = r.produce(between);
  BOOST_TEST_REQUIRE(second.kind == act::dead_letter);
  BOOST_TEST(second.dead->offset == 3);
  BOOST_TEST(second.dead->error.code == "output_refused_by_sink");
  BOOST_TEST(dead_letter_it(r, second).kind == act::poll);
  r.to_commit();
  BOOST_TEST(r.commit_returns(ok()).kind == act::poll);
  BOOST_TEST(r.committed(0) == 4);
  BOOST_TEST(r.s.last_transaction().dead_lettered == 2u);
  BOOST_TEST(r.s.sink().known_unproducible() == 0u);  // behind the committed offset now
  BOOST_TEST(r.s.counters().transactions_aborted == 2u);
}

BOOST_AUTO_TEST_SUITE_END()

// broker_pause on librdkafka 2.15.1: after the broker came back, the client
// left a commit, the committed offsets or a partition's watermarks
// unanswered for minutes (tools/faults). A running engine waits for one
// answer up to the stall timeout, then ends the run without LeaveGroup so
// that a restart gets new clients.
BOOST_AUTO_TEST_SUITE(stalls)

ss::config stall_after(std::chrono::milliseconds limit) {
  ss::config c = config_with();
  c.stall_timeout = limit;
  return c;
}

// broker_kill: the coordinator, restarted, answers an offset behind the
// one this process committed (the brokers write the commit's markers late,
// or skipped them). The driver asks again, logging at most every 30 s; an
// answer that caught up is taken; past the stall timeout the run ends
// without leaving the group, for a restart to settle the last transaction.
BOOST_AUTO_TEST_CASE(
    broker_kill_a_coordinator_behind_is_asked_again_up_to_the_stall_timeout_then_the_run_ends) {
  using kind = ss::committed_verdict::kind;
  run r(stall_after(60s));
  r.owning({0, 1});
  r.open_with({{0, 279}});
  r.to_commit();
  r.commit_returns(ok());
  const auto answer = [&](std::optional<std::int64_t> at, ss::clock::duration waited) {
    ss::committed_answer a;
    a.offsets[ss::partition_id{0}] = at ? std::optional<ss::offset>(ss::offset{*at}) : std::nullopt;
    a.offsets[ss::partition_id{1}] = std::nullopt;  // never committed by this process: taken as it is
    a.waited = waited;
    return r.s.judge(a);
  };
  // At or past what this process committed (another instance went on): taken.
  BOOST_TEST((answer(280, 0s).what == kind::take));
  BOOST_TEST((answer(300, 0s).what == kind::take));

  r.open_with({{0, 280}});
  r.to_commit();
  BOOST_TEST(r.commit_returns(abortable()).kind == act::abort);
  BOOST_TEST(r.abort_returns(ok()).kind == act::rewind);
  const ss::committed_verdict first = answer(260, 0s);
  BOOST_TEST((first.what == kind::ask_again));
  BOOST_TEST(
      first.line ==
      "orders/0: the group coordinator answered committed offset 260, behind offset 280 that this process "
      "committed (for 0 s); not reprocessing from there (it would duplicate output): asking again every "
      "second, up to the stall timeout (--stall-timeout-ms)");
  const ss::committed_verdict quiet = answer(std::nullopt, 29s);  // "none" is behind too
  BOOST_TEST((quiet.what == kind::ask_again));
  BOOST_TEST(quiet.line.empty());
  BOOST_TEST(answer(260, 30s).line.find("(for 30 s)") != std::string::npos);
  const ss::committed_verdict end = answer(260, 60s);
  BOOST_TEST_REQUIRE((end.what == kind::end));
  BOOST_TEST(end.line.find("behind offset 280 that this process committed for 60 s (the stall timeout") !=
             std::string::npos);
  BOOST_TEST(end.line.find("init_transactions waits until the brokers complete or abort") !=
             std::string::npos);
  // The rewind that waited fails with that line: exit 75, the group not left
  // (a restart from the same state directory takes the partitions back).
  const ss::action close =
      r.s.on(ss::rewound{client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR__INCONSISTENT), end.line)});
  BOOST_TEST(close.kind == act::close);
  BOOST_TEST(!close.leave_group);
  BOOST_TEST((r.s.outcome().status == run_status::failed));
  BOOST_TEST(r.s.outcome().message.find("for 60 s (the stall timeout") != std::string::npos);
  BOOST_TEST(r.committed(0) == 280);
}

BOOST_AUTO_TEST_CASE(
    broker_kill_a_stop_while_the_coordinator_is_behind_ends_the_wait_and_an_answer_that_caught_up_is_taken) {
  using kind = ss::committed_verdict::kind;
  run r(stall_after(60s));
  r.owning({0});
  r.open_with({{0, 279}});
  r.to_commit();
  r.commit_returns(ok());
  ss::committed_answer behind;
  behind.offsets[ss::partition_id{0}] = ss::offset{260};
  behind.waited = 5s;
  BOOST_TEST((r.s.judge(behind).what == kind::ask_again));
  ss::committed_answer caught_up = behind;
  caught_up.offsets[ss::partition_id{0}] = ss::offset{280};
  BOOST_TEST((r.s.judge(caught_up).what == kind::take));
  // A new wait warns again at once.
  behind.waited = 0s;
  BOOST_TEST(!r.s.judge(behind).line.empty());
  behind.stop_requested = true;
  const ss::committed_verdict stopped = r.s.judge(behind);
  BOOST_TEST((stopped.what == kind::end));
  BOOST_TEST(stopped.line.find("stopped while waiting for the coordinator to catch up") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(
    broker_pause_a_commit_without_an_outcome_for_the_stall_timeout_ends_the_run_with_exit_75) {
  run r(stall_after(90s));
  r.owning({0});
  r.open_with({{0, 0}});
  r.to_commit();
  // The whole call timed out: an unknown outcome, retried...
  BOOST_TEST(r.commit_returns(slice_ended(), 60000ms).kind == act::retry_after);
  BOOST_TEST(r.s.on(ss::retry_elapsed{}).kind == act::commit);
  // ...and still without one; the bound counts from the first call.
  BOOST_TEST(r.commit_returns(slice_ended(), 29000ms).kind == act::commit);
  // At the bound, the session asks whether the topics written still exist
  // (they do: the brokers stalled).
  BOOST_TEST_REQUIRE(r.commit_returns(slice_ended(), 1000ms).kind == act::list_topics);
  const ss::action end =
      r.s.on(ss::topics_listed{std::set<std::string>{"orders", "big-orders"}, ok(), r.now, r.now});
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(!end.leave_group);  // the coordinator is not answering: LeaveGroup would wait for it
  const ss::ending e = r.s.outcome();
  BOOST_TEST((e.status == run_status::failed));
  BOOST_TEST(e.message.find("commit_transaction has had no outcome for 90 s") != std::string::npos);
  BOOST_TEST(e.message.find("--stall-timeout-ms") != std::string::npos);
  BOOST_TEST(e.message.find("nothing is lost or duplicated") != std::string::npos);
  BOOST_TEST(r.committed(0) == -1);
}

// A sink deleted under a running engine: librdkafka retries the records
// for it until they time out, and the commit that waits for them has no
// outcome. The topic list says why, and a restart would not mend it.
BOOST_AUTO_TEST_CASE(a_commit_stalled_by_a_deleted_sink_ends_the_run_unavailable_naming_the_topic) {
  run r(stall_after(10s));
  r.owning({0});
  r.open_with({{0, 0}});
  r.to_commit();
  BOOST_TEST(r.commit_returns(slice_ended(), 5000ms).kind == act::commit);
  BOOST_TEST_REQUIRE(r.commit_returns(slice_ended(), 5000ms).kind == act::list_topics);
  const ss::action end = r.s.on(ss::topics_listed{std::set<std::string>{"orders"}, ok(), r.now, r.now});
  BOOST_TEST(end.kind == act::close);
  const ss::ending e = r.s.outcome();
  BOOST_TEST((e.status == run_status::unavailable));
  BOOST_TEST(e.message.find("topic 'big-orders', written by this run, does not exist any more") == 0u,
             e.message);
  BOOST_TEST(e.message.find("create it, then start the engine again") != std::string::npos, e.message);
  BOOST_TEST(e.message.find("a restart gets new clients") == std::string::npos, e.message);
}

BOOST_AUTO_TEST_CASE(each_commit_s_stall_bound_starts_at_its_own_first_call) {
  run r(stall_after(90s));
  r.owning({0});
  r.open_with({{0, 0}});
  r.to_commit();
  BOOST_TEST(r.commit_returns(slice_ended(), 50000ms).kind == act::commit);
  BOOST_TEST(r.commit_returns(ok(), 30000ms).kind == act::poll);
  r.open_with({{0, 1}});
  r.to_commit();
  BOOST_TEST(r.commit_returns(slice_ended(), 50000ms).kind == act::commit);
  BOOST_TEST(r.commit_returns(ok(), 30000ms).kind == act::poll);
  BOOST_TEST(r.committed(0) == 2);
}

BOOST_AUTO_TEST_CASE(an_abort_without_an_outcome_for_the_stall_timeout_ends_the_run_too) {
  run r(stall_after(30s));
  r.owning({0});
  r.open_with({{0, 0}});
  r.to_commit();
  BOOST_TEST(r.commit_returns(abortable()).kind == act::abort);
  BOOST_TEST(r.abort_returns(slice_ended(), 20000ms).kind == act::abort);
  BOOST_TEST_REQUIRE(r.abort_returns(slice_ended(), 10000ms).kind == act::list_topics);
  // No answer to that either: the stall's own ending.
  const ss::action end = r.s.on(ss::topics_listed{std::nullopt, timed_out(), r.now, r.now});
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(!end.leave_group);
  BOOST_TEST(r.s.outcome().message.find("abort_transaction has had no outcome for 30 s") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_stop_under_way_leaves_a_hanging_commit_to_the_stop_deadline_not_the_stall_bound) {
  run r(stall_after(10s));
  r.owning({0});
  r.open_with({{0, 0}});
  BOOST_TEST(r.s.on(ss::stop_seen{graceful}).kind == act::send_offsets);
  BOOST_TEST(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  BOOST_TEST(r.commit_returns(slice_ended(), 20000ms).kind == act::commit);
  const ss::action end = r.s.on(ss::stop_seen{deadline});
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST((r.s.outcome().status == run_status::stopped));
}

BOOST_AUTO_TEST_CASE(a_query_unanswered_before_any_partition_came_ends_at_once_with_its_own_error) {
  run r(stall_after(60s));
  BOOST_TEST_REQUIRE(r.s.on(ss::started{}).kind == act::poll);
  const std::optional<std::string> ends = r.s.broker_wait_ends({"the committed offsets", 1s, timed_out()});
  BOOST_TEST_REQUIRE(ends.has_value());
  BOOST_TEST(*ends == "timed out");  // --connect-timeout-ms bounded the call; the caller says which
}

BOOST_AUTO_TEST_CASE(
    broker_pause_a_query_unanswered_for_the_stall_timeout_ends_the_run_with_exit_69_without_leaving) {
  run r(stall_after(60s));
  r.owning({0});
  const ss::failure unknown =
      client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION), "Local: Unknown partition");
  BOOST_TEST(!r.s.broker_wait_ends({"the offsets of orders/0", 59s, unknown}).has_value());
  const std::optional<std::string> ends = r.s.broker_wait_ends({"the offsets of orders/0", 60s, unknown});
  BOOST_TEST_REQUIRE(ends.has_value());
  BOOST_TEST(ends->find("not answered for the offsets of orders/0 for 60 s") != std::string::npos);
  BOOST_TEST(ends->find("Local: Unknown partition") != std::string::npos);
  // The driver ends the run with the message; the group is not left.
  const ss::action end = r.s.on(ss::run_failed{run_status::unavailable, *ends});
  BOOST_TEST(end.kind == act::close);
  BOOST_TEST(!end.leave_group);
}

BOOST_AUTO_TEST_CASE(an_unanswered_query_is_exit_69_unless_a_stop_cut_the_wait_short_in_a_running_engine) {
  run r(stall_after(60s));
  // Before partitions came, a stop does not make a failure a clean stop.
  BOOST_TEST((r.s.unanswered("reading committed offsets failed", true).status == run_status::unavailable));
  r.owning({0});
  BOOST_TEST((r.s.unanswered("reading committed offsets failed", false).status == run_status::unavailable));
  const ss::run_failed stopped = r.s.unanswered("reading committed offsets failed", true);
  BOOST_TEST((stopped.status == run_status::stopped));
  BOOST_TEST(stopped.message == "stopped while waiting for the brokers (reading committed offsets failed)");
}

BOOST_AUTO_TEST_CASE(a_client_call_that_failed_for_good_ends_the_run_with_exit_75) {
  run r;
  r.owning({0});
  BOOST_TEST(r.s.on(ss::client_failed{"polling the consumer failed: bad"}).kind == act::close);
  BOOST_TEST((r.s.outcome().status == run_status::failed));
  BOOST_TEST(r.s.outcome().message == "polling the consumer failed: bad");
}

BOOST_AUTO_TEST_CASE(a_query_refused_for_good_ends_at_once_and_a_failed_run_still_leaves_the_group) {
  run r(stall_after(60s));
  r.owning({0});
  const ss::failure missing = client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART),
                                     "Broker: Unknown topic or partition");
  const std::optional<std::string> ends = r.s.broker_wait_ends({"the committed offsets", 1s, missing});
  BOOST_TEST_REQUIRE(ends.has_value());
  BOOST_TEST(*ends == "Broker: Unknown topic or partition");
  BOOST_TEST(r.s.on(ss::run_failed{run_status::unavailable, *ends}).leave_group);
}

BOOST_AUTO_TEST_SUITE_END()

// The same failure aborting every transaction, none committed between
// (commit::machine pauses longer each time): the run ends once the streak
// is past its bound, naming the cause once.
BOOST_AUTO_TEST_SUITE(abort_streaks)

// One round: `at` arrive, the producer refuses with `why`, the transaction
// is aborted; what the session asks for after the abort.
ss::action refused_again(run& r, const ss::failure& why, bool after_pause) {
  if (after_pause) BOOST_TEST_REQUIRE(r.s.on(ss::retry_elapsed{}).kind == act::poll);
  BOOST_TEST_REQUIRE(r.arrive({{0, 0}, {0, 1}}).kind == act::begin);
  const ss::action produce_it = r.s.on(ss::began{ok(), r.now});
  r.s.sink().refused_at_once(why);
  BOOST_TEST_REQUIRE(r.produce(produce_it).kind == act::abort);
  return r.abort_returns(ok());
}

ss::failure invalid_timestamp() {
  return client(k::txn_error_info::abortable_error(RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP),
                "Broker: Invalid timestamp");
}

BOOST_AUTO_TEST_CASE(a_refusal_that_comes_back_every_time_pauses_longer_each_time_then_ends_the_run) {
  ss::config c = config_with();
  c.max_aborts_in_a_row = 4;
  run r(c);
  r.owning({0});
  std::vector<long> pauses;
  bool paused = false;
  for (int round = 1; round <= 4; ++round) {
    BOOST_TEST_REQUIRE(refused_again(r, invalid_timestamp(), paused).kind == act::rewind);
    const ss::action next = r.s.on(ss::rewound{ok()});
    paused = next.kind == act::retry_after;
    if (paused)
      pauses.push_back(static_cast<long>(next.delay.count()));
    else
      BOOST_TEST_REQUIRE(next.kind == act::poll);
  }
  BOOST_TEST(pauses == (std::vector<long>{100, 200, 400}), boost::test_tools::per_element());
  const ss::action end = refused_again(r, invalid_timestamp(), true);
  BOOST_TEST_REQUIRE(end.kind == act::close);
  const ss::ending e = r.s.outcome();
  BOOST_TEST((e.status == run_status::failed));
  BOOST_TEST(e.message.find("5 transactions aborted in a row") == 0u, e.message);
  BOOST_TEST(e.message.find("Broker: Invalid timestamp") != std::string::npos, e.message);
  BOOST_TEST(r.s.counters().transactions_aborted == 5u);
}

BOOST_AUTO_TEST_CASE(a_sink_topic_that_is_gone_is_a_stall_bounded_by_the_stall_timeout_then_unavailable) {
  ss::config c = config_with();
  c.max_aborts_in_a_row = 2;  // not the bound for a missing topic: time is
  c.stall_timeout = 10s;
  run r(c);
  r.owning({0});
  const ss::failure gone =
      client(k::txn_error_info::abortable_error(RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC), "Local: Unknown topic");
  bool paused = false;
  int rounds = 0;
  const ss::clock::time_point start = r.now;
  ss::action a;
  for (;;) {
    ++rounds;
    a = refused_again(r, gone, paused);
    if (a.kind == act::list_topics) break;
    BOOST_TEST_REQUIRE(a.kind == act::rewind);
    const ss::action next = r.s.on(ss::rewound{ok()});
    paused = next.kind == act::retry_after;
    r.now += paused ? std::chrono::duration_cast<ss::clock::duration>(next.delay) : 0s;
    r.now += 1s;
    BOOST_TEST_REQUIRE(rounds < 20);
  }
  BOOST_TEST(rounds > c.max_aborts_in_a_row + 1);
  const bool within_the_bound = r.now - start >= c.stall_timeout && r.now - start < c.stall_timeout + 6s;
  BOOST_TEST(within_the_bound);
  // Which topic is gone: the list says.
  BOOST_TEST(r.s.on(ss::topics_listed{std::set<std::string>{"orders"}, ok(), r.now, r.now}).kind ==
             act::close);
  const ss::ending e = r.s.outcome();
  BOOST_TEST((e.status == run_status::unavailable));
  BOOST_TEST(e.message.find("topic 'big-orders', written by this run, does not exist any more") == 0u,
             e.message);
  BOOST_TEST(e.message.find("transactions aborted in a row") != std::string::npos, e.message);
}

BOOST_AUTO_TEST_CASE(aborts_that_each_name_a_new_refused_record_are_progress_not_a_streak) {
  ss::config c = config_with();
  c.max_aborts_in_a_row = 1;
  c.dead_letter_topic = "orders-dlq";
  run r(c);
  r.owning({0});
  // Two refused records in turn, each found by its own abort: neither
  // pauses, and the run goes on.
  BOOST_TEST_REQUIRE(r.arrive({{0, 0}, {0, 1}}).kind == act::begin);
  BOOST_TEST_REQUIRE(r.produce(r.s.on(ss::began{ok(), r.now})).kind == act::poll);
  r.refused_for_good_and_taken_again(0, {{0, 0}, {0, 1}});
  const ss::action first = r.produce(r.s.on(ss::began{ok(), r.now}));
  const ss::action rest = dead_letter::dead_letter_it(r, first);  // the transaction's write 0
  BOOST_TEST_REQUIRE(rest.take == 1u);
  BOOST_TEST_REQUIRE(r.produce(rest).kind == act::poll);
  r.s.sink().delivery_failed((std::uint64_t{2} << 32) | 1, too_large());
  r.to_commit();
  BOOST_TEST_REQUIRE(r.commit_returns(abortable(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE)).kind == act::abort);
  BOOST_TEST_REQUIRE(r.abort_returns(ok()).kind == act::rewind);
  // Without the first abort forgiven, this second one in a row would be
  // past the bound of 1 (and pause first).
  BOOST_TEST(r.s.on(ss::rewound{ok()}).kind == act::poll);
  BOOST_TEST(r.s.sink().known_unproducible() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()

// The broker refuses a batch whole and names none of its records (an
// invalid record, a timestamp out of bounds: not a size, for which the
// largest record is the one): the session finds the record by halving.
BOOST_AUTO_TEST_SUITE(isolation)

ss::failure refused_timestamp() {
  return client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP), "Broker: Invalid timestamp");
}

// The open transaction's `count` outputs of generation `gen` are all
// refused; its commit fails, it is aborted: the session's next action.
ss::action all_refused(run& r, std::uint64_t gen, std::size_t count, std::string* warning = nullptr) {
  for (std::size_t i = 0; i < count; ++i) r.s.sink().delivery_failed((gen << 32) | i, refused_timestamp());
  BOOST_TEST_REQUIRE(r.commit_returns(abortable(RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP)).kind == act::abort);
  const ss::action rewind = r.abort_returns(ok());
  if (warning) *warning = rewind.warning;
  BOOST_TEST_REQUIRE(rewind.kind == act::rewind);
  return r.s.on(ss::rewound{ok()});
}

// `at` arrive, are produced to the end of the record bound and sent.
void produced_to_the_bound(run& r, std::initializer_list<std::pair<std::int32_t, std::int64_t>> at) {
  BOOST_TEST_REQUIRE(r.arrive(at).kind == act::begin);
  BOOST_TEST_REQUIRE(r.produce(r.s.on(ss::began{ok(), r.now})).kind == act::send_offsets);
  BOOST_TEST_REQUIRE(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
}

BOOST_AUTO_TEST_CASE(
    a_batch_refused_whole_is_halved_until_the_refused_record_is_alone_and_named_at_its_offset) {
  run r;
  r.owning({0});
  // Attempt 1: four records, refused whole.
  BOOST_TEST_REQUIRE(r.arrive({{0, 0}, {0, 1}, {0, 2}, {0, 3}}).kind == act::begin);
  BOOST_TEST_REQUIRE(r.produce(r.s.on(ss::began{ok(), r.now})).kind == act::poll);
  r.to_commit();
  std::string warning;
  ss::action next = all_refused(r, 1, 4, &warning);
  BOOST_TEST(
      warning.find("a topic written refused one record of the 4 in the transaction without saying which") !=
          std::string::npos,
      warning);
  BOOST_TEST_REQUIRE(next.kind == act::poll);
  BOOST_TEST(next.max_records == 2u);
  // Attempt 2: the first half commits.
  produced_to_the_bound(r, {{0, 0}, {0, 1}});
  next = r.commit_returns(ok());
  BOOST_TEST_REQUIRE(next.kind == act::poll);
  BOOST_TEST(next.max_records == 2u);
  BOOST_TEST(r.committed(0) == 2);
  // Attempt 3: the second half is refused: halved again.
  produced_to_the_bound(r, {{0, 2}, {0, 3}});
  next = all_refused(r, 3, 2);
  BOOST_TEST_REQUIRE(next.kind == act::poll);  // no pause: a halving is progress
  BOOST_TEST(next.max_records == 1u);
  // Attempt 4: record 2 alone commits.
  produced_to_the_bound(r, {{0, 2}});
  BOOST_TEST(r.commit_returns(ok()).max_records == 1u);
  // Attempt 5: record 3 alone is refused: known now.
  produced_to_the_bound(r, {{0, 3}});
  next = all_refused(r, 5, 1);
  BOOST_TEST(r.s.sink().known_unproducible() == 1u);
  BOOST_TEST_REQUIRE(next.kind == act::poll);
  BOOST_TEST(next.max_records > 1u);  // found: full transactions again
  // Attempt 6: the run stops at it, everything before it committed.
  BOOST_TEST_REQUIRE(r.arrive({{0, 3}}).kind == act::begin);
  const ss::action none = r.s.on(ss::began{ok(), r.now});
  BOOST_TEST(none.take == 0u);
  BOOST_TEST_REQUIRE(r.produce(none).kind == act::send_offsets);
  r.commits_and_stops_at("output_refused_by_sink", 3);
  const ss::ending e = r.s.outcome();
  BOOST_TEST(e.invalid->error.message.find("refused it, alone in a batch (Broker: Invalid timestamp)") !=
                 std::string::npos,
             e.invalid->error.message);
  BOOST_TEST(r.s.counters().transactions_aborted == 3u);
}

// A routed plan (issue 39): a second sink deleted while the run goes on is
// found by the stall's topic list, and named.
BOOST_AUTO_TEST_CASE(a_routed_plans_second_sink_deleted_while_running_ends_the_run_naming_it) {
  ss::config c = config_with();
  c.sink_topics = {"big-orders", "eu-orders"};
  c.max_aborts_in_a_row = 2;
  c.stall_timeout = 10s;
  run r(c);
  r.owning({0});
  const ss::failure gone =
      client(k::txn_error_info::abortable_error(RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC), "Local: Unknown topic");
  bool paused = false;
  ss::action a;
  for (int rounds = 0;; ++rounds) {
    a = abort_streaks::refused_again(r, gone, paused);
    if (a.kind == act::list_topics) break;
    BOOST_TEST_REQUIRE(a.kind == act::rewind);
    const ss::action next = r.s.on(ss::rewound{ok()});
    paused = next.kind == act::retry_after;
    r.now += paused ? std::chrono::duration_cast<ss::clock::duration>(next.delay) : 0s;
    r.now += 1s;
    BOOST_TEST_REQUIRE(rounds < 20);
  }
  BOOST_TEST(
      r.s.on(ss::topics_listed{std::set<std::string>{"orders", "big-orders"}, ok(), r.now, r.now}).kind ==
      act::close);
  const ss::ending e = r.s.outcome();
  BOOST_TEST((e.status == run_status::unavailable));
  BOOST_TEST(e.message.find("topic 'eu-orders', written by this run, does not exist any more") == 0u,
             e.message);
}

// The broker's refusal does not say which topic it means: the line names
// every topic the run writes, the second sink among them.
BOOST_AUTO_TEST_CASE(a_routed_plans_sink_the_acls_refuse_ends_the_run_naming_every_sink_to_grant) {
  ss::config c = config_with();
  c.sink_topics = {"big-orders", "eu-orders"};
  run r(c);
  r.owning({0});
  r.open_with({{0, 0}});
  BOOST_TEST(r.s.on(ss::commit_due{}).kind == act::send_offsets);
  BOOST_TEST(r.s.on(ss::offsets_sent{abortable(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED)}).kind ==
             act::abort);
  BOOST_TEST(r.abort_returns(ok()).kind == act::close);
  BOOST_TEST((r.s.outcome().status == run_status::unavailable));
  BOOST_TEST(r.s.outcome().message.find("Write and Describe on topics 'big-orders' and 'eu-orders'") !=
                 std::string::npos,
             r.s.outcome().message);
}

// A record the second sink refuses before it is produced (its rules) is
// blamed on that sink, by the topic index its output carried.
BOOST_AUTO_TEST_CASE(the_sink_tracker_keeps_apart_the_partitions_of_two_sinks) {
  ss::sink_tracker t;
  t.new_transaction();
  record_view in;
  in.partition = 0;
  in.offset = 5;
  const std::uint64_t first = t.producing(in, 10, 0);
  const std::uint64_t second = t.producing(in, 10, 1);
  BOOST_TEST(t.topic_of(first) == 0u);
  BOOST_TEST(t.topic_of(second) == 1u);
  t.delivered(first, 0, 181);
  BOOST_TEST(t.aborted() == false);
  t.new_transaction();
  // Offset 182 of the second sink's partition 0 follows nothing of its own:
  // the first sink's offset 181 says nothing of it.
  const std::uint64_t next = t.producing(in, 10, 1);
  t.delivered(next, 0, 182);
  BOOST_TEST(!t.take_trailing().has_value());
}

BOOST_AUTO_TEST_SUITE_END()
