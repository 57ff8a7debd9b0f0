// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/commit_machine.hpp"

#include "engine/client_failure.hpp"

#define BOOST_TEST_MODULE commit_machine
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <utility>

namespace c = streamt::engine::commit;
namespace k = streamt::kafka;
using namespace std::chrono_literals;
using c::action;

using failure = streamt::engine::session::failure;

namespace {

// What the runtime hands the machine for an error librdkafka reported.
failure client(k::txn_error_info info, std::string message) {
  return streamt::engine::failure_of(k::error_report{info, std::move(message)});
}
failure ok() { return {}; }
failure timed_out() {
  return client(k::txn_error_info::retriable_error(RD_KAFKA_RESP_ERR__TIMED_OUT), "commit timed out");
}
failure coordinator_moved() {
  return client(k::txn_error_info::retriable_error(RD_KAFKA_RESP_ERR_NOT_COORDINATOR), "coordinator moved");
}
failure abortable() {
  return client(k::txn_error_info::abortable_error(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT), "message timed out");
}
failure fatal() {
  return client(k::txn_error_info::fatal_error(RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
                "not authorized");
}
failure fenced() {
  return client(k::txn_error_info::fatal_error(RD_KAFKA_RESP_ERR_PRODUCER_FENCED), "fenced by epoch 7");
}
failure unclassified() { return client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR__STATE), "wrong state"); }

// Walks a fresh machine through begin, produce and send_offsets; the next
// action it asked for is commit.
void walk_to_commit(c::machine& m) {
  BOOST_TEST_REQUIRE(m.step(c::batch_ready{}).kind == action::begin);
  BOOST_TEST_REQUIRE(m.step(c::begun{ok()}).kind == action::produce);
  BOOST_TEST_REQUIRE(m.step(c::produced_ok{}).kind == action::send_offsets);
  BOOST_TEST_REQUIRE(m.step(c::offsets_sent{ok()}).kind == action::commit);
}

// A machine with a transaction begun and records being produced: where most
// stop and commit cases start.
c::machine with_open_transaction() {
  c::machine m;
  m.step(c::batch_ready{});
  m.step(c::begun{ok()});
  return m;
}

}  // namespace

BOOST_AUTO_TEST_CASE(
    a_batch_is_begun_produced_its_offsets_sent_and_committed_then_the_next_batch_is_consumed) {
  c::machine m;
  walk_to_commit(m);
  BOOST_TEST(m.commit_started());
  BOOST_TEST(m.step(c::commit_result{ok()}).kind == action::consume);
  BOOST_TEST(m.transactions_committed() == 1u);
  BOOST_TEST(m.step(c::batch_ready{}).kind == action::begin);
}

BOOST_AUTO_TEST_CASE(a_retriable_send_offsets_is_retried_after_a_delay_and_then_the_commit_proceeds) {
  c::machine m = with_open_transaction();
  m.step(c::produced_ok{});
  const auto a = m.step(c::offsets_sent{coordinator_moved()});
  BOOST_TEST(a.kind == action::retry_after);
  BOOST_TEST(a.delay.count() == 100);
  BOOST_TEST(!m.commit_started());
  BOOST_TEST(m.step(c::retry_elapsed{}).kind == action::send_offsets);
  BOOST_TEST(m.step(c::offsets_sent{ok()}).kind == action::commit);
}

BOOST_AUTO_TEST_CASE(send_offsets_that_keeps_failing_retriably_aborts_because_the_commit_never_started) {
  c::machine m(c::policy{.max_commit_attempts = 3, .max_retries = 2});
  m.step(c::batch_ready{});
  m.step(c::begun{ok()});
  m.step(c::produced_ok{});
  BOOST_TEST(m.step(c::offsets_sent{coordinator_moved()}).kind == action::retry_after);
  BOOST_TEST(m.step(c::retry_elapsed{}).kind == action::send_offsets);
  BOOST_TEST(m.step(c::offsets_sent{coordinator_moved()}).kind == action::abort);
}

BOOST_AUTO_TEST_CASE(a_commit_timeout_is_retried_and_then_succeeds_without_any_abort) {
  c::machine m;
  walk_to_commit(m);
  BOOST_TEST(m.step(c::commit_result{timed_out()}).kind == action::retry_after);
  BOOST_TEST(m.commit_started());
  BOOST_TEST(m.step(c::retry_elapsed{}).kind == action::commit);
  BOOST_TEST(m.step(c::commit_result{ok()}).kind == action::consume);
  BOOST_TEST(m.transactions_aborted() == 0u);
  BOOST_TEST(m.transactions_committed() == 1u);
}

BOOST_AUTO_TEST_CASE(a_commit_that_times_out_on_every_attempt_becomes_fatal_and_is_never_aborted) {
  c::machine m(c::policy{.max_commit_attempts = 4});
  walk_to_commit(m);
  for (int attempt = 1; attempt < 4; ++attempt) {
    const auto a = m.step(c::commit_result{timed_out()});
    BOOST_TEST_REQUIRE(a.kind == action::retry_after);
    BOOST_TEST_REQUIRE(m.step(c::retry_elapsed{}).kind == action::commit);
  }
  const auto last = m.step(c::commit_result{timed_out()});
  BOOST_TEST(last.kind == action::fatal);
  BOOST_TEST(last.reason.find("4 attempts") != std::string::npos);
  BOOST_TEST(m.transactions_aborted() == 0u);
}

BOOST_AUTO_TEST_CASE(retry_delays_double_from_the_initial_backoff_up_to_the_maximum) {
  c::machine m(c::policy{
      .max_commit_attempts = 10, .max_retries = 10, .initial_backoff = 100ms, .max_backoff = 500ms});
  walk_to_commit(m);
  const long expected[] = {100, 200, 400, 500, 500};
  for (long ms : expected) {
    const auto a = m.step(c::commit_result{timed_out()});
    BOOST_TEST(a.kind == action::retry_after);
    BOOST_TEST(a.delay.count() == ms);
    m.step(c::retry_elapsed{});
  }
}

BOOST_AUTO_TEST_CASE(an_abortable_delivery_failure_during_produce_aborts_then_rewinds_then_consumes_again) {
  c::machine m = with_open_transaction();
  BOOST_TEST(m.step(c::delivery_failed{abortable()}).kind == action::abort);
  BOOST_TEST(m.step(c::abort_result{ok()}).kind == action::rewind_to_committed);
  BOOST_TEST(m.step(c::rewound{ok()}).kind == action::consume);
  BOOST_TEST(m.transactions_aborted() == 1u);
  BOOST_TEST(m.step(c::batch_ready{}).kind == action::begin);
}

BOOST_AUTO_TEST_CASE(an_abortable_commit_error_aborts_and_rewinds) {
  c::machine m;
  walk_to_commit(m);
  BOOST_TEST(m.step(c::commit_result{abortable()}).kind == action::abort);
  BOOST_TEST(m.step(c::abort_result{ok()}).kind == action::rewind_to_committed);
  BOOST_TEST(m.step(c::rewound{ok()}).kind == action::consume);
}

BOOST_AUTO_TEST_CASE(an_abortable_answer_to_a_commit_retry_aborts_because_librdkafka_settled_the_outcome) {
  c::machine m;
  walk_to_commit(m);
  m.step(c::commit_result{timed_out()});
  m.step(c::retry_elapsed{});
  BOOST_TEST(m.step(c::commit_result{abortable()}).kind == action::abort);
}

BOOST_AUTO_TEST_CASE(a_fenced_producer_stops_with_fenced_and_stays_stopped) {
  c::machine m;
  walk_to_commit(m);
  const auto a = m.step(c::commit_result{fenced()});
  BOOST_TEST(a.kind == action::fenced);
  BOOST_TEST(a.reason.find("fenced by epoch 7") != std::string::npos);
  BOOST_TEST(m.step(c::batch_ready{}).kind == action::fenced);
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::terminal}).kind == action::fenced);
}

BOOST_AUTO_TEST_CASE(a_fenced_delivery_report_stops_with_fenced_even_before_the_commit) {
  c::machine m = with_open_transaction();
  BOOST_TEST(m.step(c::delivery_failed{fenced()}).kind == action::fenced);
}

BOOST_AUTO_TEST_CASE(a_fatal_error_stops_with_fatal_naming_the_call_that_failed) {
  c::machine m = with_open_transaction();
  m.step(c::produced_ok{});
  const auto a = m.step(c::offsets_sent{fatal()});
  BOOST_TEST(a.kind == action::fatal);
  BOOST_TEST(a.reason.find("send_offsets_to_transaction") != std::string::npos);
  BOOST_TEST(a.reason.find("not authorized") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_unclassified_commit_error_is_fatal) {
  c::machine m;
  walk_to_commit(m);
  BOOST_TEST(m.step(c::commit_result{unclassified()}).kind == action::fatal);
}

BOOST_AUTO_TEST_CASE(a_fatal_delivery_report_stops_even_while_the_commit_runs) {
  c::machine m;
  walk_to_commit(m);
  BOOST_TEST(m.step(c::delivery_failed{fatal()}).kind == action::fatal);
}

BOOST_AUTO_TEST_CASE(an_abortable_delivery_report_during_the_commit_waits_for_the_commit_result) {
  c::machine m;
  walk_to_commit(m);
  BOOST_TEST(m.step(c::delivery_failed{abortable()}).kind == action::wait);
  BOOST_TEST(m.step(c::commit_result{abortable()}).kind == action::abort);
}

BOOST_AUTO_TEST_CASE(delivery_failures_of_records_purged_by_an_abort_are_ignored) {
  c::machine m = with_open_transaction();
  m.step(c::delivery_failed{abortable()});
  BOOST_TEST(m.step(c::delivery_failed{abortable()}).kind == action::wait);
  BOOST_TEST(m.step(c::abort_result{ok()}).kind == action::rewind_to_committed);
  BOOST_TEST(m.step(c::delivery_failed{abortable()}).kind == action::wait);
  BOOST_TEST(m.step(c::rewound{ok()}).kind == action::consume);
}

BOOST_AUTO_TEST_CASE(a_graceful_cancel_while_idle_stops_at_once) {
  c::machine m;
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::graceful}).kind == action::done);
}

// The open transaction commits when the stop arrives, not at the end of the
// commit interval (which may be longer than any stop timeout): the machine
// itself asks for send_offsets, no produced_ok from the runtime needed.
BOOST_AUTO_TEST_CASE(a_graceful_cancel_while_producing_commits_the_open_transaction_now_and_then_stops) {
  c::machine m = with_open_transaction();
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::graceful}).kind == action::send_offsets);
  BOOST_TEST((m.current() == c::machine::state::sending_offsets));
  BOOST_TEST(m.step(c::offsets_sent{ok()}).kind == action::commit);
  BOOST_TEST(m.step(c::commit_result{ok()}).kind == action::done);
  BOOST_TEST(m.transactions_committed() == 1u);
  BOOST_TEST(m.transactions_aborted() == 0u);
}

BOOST_AUTO_TEST_CASE(a_graceful_cancel_while_the_offsets_are_sent_waits_for_them_then_commits_and_stops) {
  c::machine m = with_open_transaction();
  m.step(c::produced_ok{});
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::graceful}).kind == action::wait);
  BOOST_TEST(m.step(c::offsets_sent{ok()}).kind == action::commit);
  BOOST_TEST(m.step(c::commit_result{ok()}).kind == action::done);
  BOOST_TEST(m.transactions_committed() == 1u);
}

BOOST_AUTO_TEST_CASE(a_second_graceful_cancel_during_the_stops_commit_changes_nothing) {
  c::machine m = with_open_transaction();
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::graceful}).kind == action::send_offsets);
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::graceful}).kind == action::wait);
  BOOST_TEST(m.step(c::offsets_sent{ok()}).kind == action::commit);
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::graceful}).kind == action::wait);
  BOOST_TEST(m.step(c::commit_result{ok()}).kind == action::done);
}

BOOST_AUTO_TEST_CASE(the_commit_of_a_graceful_stop_is_retried_on_an_unknown_outcome_then_stops) {
  c::machine m = with_open_transaction();
  m.step(c::cancel_requested{c::stop_kind::graceful});
  m.step(c::offsets_sent{ok()});
  BOOST_TEST(m.step(c::commit_result{timed_out()}).kind == action::retry_after);
  BOOST_TEST(m.step(c::retry_elapsed{}).kind == action::commit);
  BOOST_TEST(m.step(c::commit_result{ok()}).kind == action::done);
  BOOST_TEST(m.transactions_committed() == 1u);
}

BOOST_AUTO_TEST_CASE(an_abortable_commit_of_a_graceful_stop_aborts_and_stops_without_rewinding) {
  c::machine m = with_open_transaction();
  m.step(c::cancel_requested{c::stop_kind::graceful});
  m.step(c::offsets_sent{ok()});
  BOOST_TEST(m.step(c::commit_result{abortable()}).kind == action::abort);
  BOOST_TEST(m.step(c::abort_result{ok()}).kind == action::done);
  BOOST_TEST(m.transactions_aborted() == 1u);
}

BOOST_AUTO_TEST_CASE(a_terminal_cancel_before_the_commit_aborts_and_stops_without_rewinding) {
  c::machine m = with_open_transaction();
  m.step(c::produced_ok{});
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::terminal}).kind == action::abort);
  BOOST_TEST(m.step(c::abort_result{ok()}).kind == action::done);
}

BOOST_AUTO_TEST_CASE(a_terminal_cancel_after_a_graceful_one_aborts_a_transaction_not_yet_committing) {
  c::machine m = with_open_transaction();
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::graceful}).kind == action::send_offsets);
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::terminal}).kind == action::abort);
  BOOST_TEST(m.step(c::abort_result{ok()}).kind == action::done);
}

BOOST_AUTO_TEST_CASE(a_cancel_after_the_commit_started_is_honoured_only_after_the_commit_outcome) {
  for (auto kind : {c::stop_kind::graceful, c::stop_kind::terminal}) {
    c::machine m;
    walk_to_commit(m);
    BOOST_TEST(m.step(c::cancel_requested{kind}).kind == action::wait);
    BOOST_TEST(m.step(c::commit_result{ok()}).kind == action::done);
    BOOST_TEST(m.transactions_aborted() == 0u);
  }
}

BOOST_AUTO_TEST_CASE(a_terminal_cancel_while_waiting_to_retry_a_commit_still_retries_the_commit) {
  c::machine m;
  walk_to_commit(m);
  m.step(c::commit_result{timed_out()});
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::terminal}).kind == action::wait);
  BOOST_TEST(m.step(c::retry_elapsed{}).kind == action::commit);
  BOOST_TEST(m.step(c::commit_result{ok()}).kind == action::done);
}

BOOST_AUTO_TEST_CASE(a_terminal_cancel_during_an_abort_stops_once_the_abort_completes) {
  c::machine m;
  walk_to_commit(m);
  m.step(c::commit_result{abortable()});
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::terminal}).kind == action::wait);
  BOOST_TEST(m.step(c::abort_result{ok()}).kind == action::done);
}

BOOST_AUTO_TEST_CASE(a_passed_deadline_during_the_commit_stops_and_leaves_the_outcome_to_the_broker) {
  c::machine m;
  walk_to_commit(m);
  const auto a = m.step(c::deadline_passed{});
  BOOST_TEST(a.kind == action::done);
  BOOST_TEST(a.reason.find("left to the broker") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_passed_deadline_before_the_commit_aborts_the_open_transaction) {
  c::machine m = with_open_transaction();
  BOOST_TEST(m.step(c::deadline_passed{}).kind == action::abort);
  BOOST_TEST(m.step(c::abort_result{ok()}).kind == action::done);
}

BOOST_AUTO_TEST_CASE(
    a_commit_still_under_way_at_the_end_of_its_slice_is_called_again_without_counting_an_attempt) {
  c::machine m(c::policy{.max_commit_attempts = 2, .max_retries = 2});
  walk_to_commit(m);
  // Far more slices than attempts allowed: a slow commit is not a failed one.
  for (int i = 0; i < 10; ++i) BOOST_TEST_REQUIRE(m.step(c::commit_pending{}).kind == action::commit);
  BOOST_TEST(m.commit_started());
  BOOST_TEST(m.step(c::commit_result{ok()}).kind == action::consume);
  BOOST_TEST(m.transactions_committed() == 1u);
}

BOOST_AUTO_TEST_CASE(
    a_graceful_stop_during_a_slow_commit_waits_and_the_stop_deadline_ends_it_leaving_the_outcome_to_the_broker) {
  c::machine m;
  walk_to_commit(m);
  BOOST_TEST(m.step(c::commit_pending{}).kind == action::commit);
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::graceful}).kind == action::wait);
  BOOST_TEST(m.step(c::commit_pending{}).kind == action::commit);
  const auto a = m.step(c::deadline_passed{});
  BOOST_TEST(a.kind == action::done);
  BOOST_TEST(a.reason.find("left to the broker") != std::string::npos);
  BOOST_TEST(m.transactions_committed() == 0u);
}

BOOST_AUTO_TEST_CASE(
    an_abort_still_under_way_at_the_end_of_its_slice_is_called_again_and_the_deadline_leaves_it_to_the_broker) {
  c::machine m = with_open_transaction();
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::terminal}).kind == action::abort);
  BOOST_TEST(m.step(c::abort_pending{}).kind == action::abort);
  const auto a = m.step(c::deadline_passed{});
  BOOST_TEST(a.kind == action::done);
  BOOST_TEST(a.reason.find("transaction timeout") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_pending_commit_or_abort_outside_its_call_is_an_internal_error) {
  c::machine idle;
  BOOST_TEST(idle.step(c::commit_pending{}).kind == action::fatal);
  c::machine open = with_open_transaction();
  BOOST_TEST(open.step(c::abort_pending{}).kind == action::fatal);
}

BOOST_AUTO_TEST_CASE(a_retriable_abort_is_retried_and_then_rewinds) {
  c::machine m = with_open_transaction();
  m.step(c::delivery_failed{abortable()});
  BOOST_TEST(m.step(c::abort_result{timed_out()}).kind == action::retry_after);
  BOOST_TEST(m.step(c::retry_elapsed{}).kind == action::abort);
  BOOST_TEST(m.step(c::abort_result{ok()}).kind == action::rewind_to_committed);
}

BOOST_AUTO_TEST_CASE(an_abortable_error_from_the_abort_itself_is_fatal) {
  c::machine m = with_open_transaction();
  m.step(c::delivery_failed{abortable()});
  BOOST_TEST(m.step(c::abort_result{abortable()}).kind == action::fatal);
}

BOOST_AUTO_TEST_CASE(a_failed_rewind_is_fatal_because_consuming_on_would_skip_records) {
  c::machine m = with_open_transaction();
  m.step(c::delivery_failed{abortable()});
  m.step(c::abort_result{ok()});
  BOOST_TEST(m.step(c::rewound{unclassified()}).kind == action::fatal);
}

BOOST_AUTO_TEST_CASE(a_fenced_begin_stops_with_fenced) {
  c::machine m;
  m.step(c::batch_ready{});
  BOOST_TEST(m.step(c::begun{fenced()}).kind == action::fenced);
}

BOOST_AUTO_TEST_CASE(an_event_out_of_order_is_a_fatal_internal_error_naming_event_and_state) {
  c::machine m;
  const auto a = m.step(c::commit_result{ok()});
  BOOST_TEST(a.kind == action::fatal);
  BOOST_TEST(a.reason.find("commit_result") != std::string::npos);
  BOOST_TEST(a.reason.find("idle") != std::string::npos);
}

// Aborts the open transaction of `m` for `why` and rewinds: what the
// machine asks for next.
c::next_action aborted_again(c::machine& m, const failure& why) {
  BOOST_TEST_REQUIRE(m.step(c::batch_ready{}).kind == action::begin);
  BOOST_TEST_REQUIRE(m.step(c::begun{ok()}).kind == action::produce);
  BOOST_TEST_REQUIRE(m.step(c::delivery_failed{why}).kind == action::abort);
  BOOST_TEST_REQUIRE(m.step(c::abort_result{ok()}).kind == action::rewind_to_committed);
  return m.step(c::rewound{ok()});
}

BOOST_AUTO_TEST_CASE(the_same_transaction_aborted_again_pauses_twice_as_long_each_time_before_consuming) {
  c::machine m;
  BOOST_TEST(aborted_again(m, abortable()).kind == action::consume);  // the first: at once
  std::chrono::milliseconds expected = 100ms;
  for (int n = 2; n <= 9; ++n) {
    const c::next_action a = aborted_again(m, abortable());
    BOOST_TEST_REQUIRE(a.kind == action::retry_after);
    BOOST_TEST(a.delay.count() == expected.count());
    BOOST_TEST(m.step(c::retry_elapsed{}).kind == action::consume);
    expected = std::min<std::chrono::milliseconds>(expected * 2, 5000ms);
  }
  BOOST_TEST(m.aborts_in_a_row().count == 9);
  BOOST_TEST(m.aborts_in_a_row().cause.message == "message timed out");
}

BOOST_AUTO_TEST_CASE(a_commit_ends_the_abort_streak_and_its_pause) {
  c::machine m;
  aborted_again(m, abortable());
  BOOST_TEST_REQUIRE(aborted_again(m, abortable()).kind == action::retry_after);
  BOOST_TEST_REQUIRE(m.step(c::retry_elapsed{}).kind == action::consume);
  walk_to_commit(m);
  BOOST_TEST(m.step(c::commit_result{ok()}).kind == action::consume);
  BOOST_TEST(m.aborts_in_a_row().count == 0);
  BOOST_TEST(aborted_again(m, abortable()).kind == action::consume);
}

BOOST_AUTO_TEST_CASE(an_abort_that_found_its_cause_is_progress_and_adds_no_pause) {
  c::machine m;
  aborted_again(m, abortable());
  m.abort_found_its_cause();
  BOOST_TEST(aborted_again(m, abortable()).kind == action::consume);
}

BOOST_AUTO_TEST_CASE(a_stop_during_the_pause_after_aborts_stops_at_once_with_nothing_open) {
  c::machine m;
  aborted_again(m, abortable());
  BOOST_TEST_REQUIRE(aborted_again(m, abortable()).kind == action::retry_after);
  BOOST_TEST(m.step(c::cancel_requested{c::stop_kind::graceful}).kind == action::done);
}
