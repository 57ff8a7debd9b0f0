// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The transactional commit as a pure state machine (sans-io, in the manner of
// Boost.MySQL's connection algorithms): it never touches Kafka, a clock or a
// thread. A thin coroutine in the runtime performs each action it asks for
// and feeds the outcome back as an event:
//
//     auto a = m.step(commit::batch_ready{});
//     while (!a.is_terminal()) { event e = perform(a); a = m.step(e); }
//
// Rules it enforces (contract §5, STYLE.md "The transactional commit"):
//  - Once commit_transaction has started, it runs to an outcome: cancellation
//    is honoured only before it.
//  - A commit that failed retriably or timed out has an UNKNOWN outcome: it
//    is retried (up to policy::max_commit_attempts, then fatal), never
//    followed by an abort chosen by us. (If librdkafka itself then answers
//    "abortable", it has established the outcome, and we abort.)
//  - An abortable error → abort → rewind every owned partition to its
//    committed offset → consume again; from the second abort in a row (no
//    commit between) after a pause that doubles each time (retry_after
//    before consume), so that a failure that comes back every time is not
//    a tight loop. How long such a streak may last is the session's call
//    (abort_streak()).
//  - Fatal or fenced → stop with that outcome; unclassified errors are fatal
//    (as in librdkafka's examples/transactions.c).
//  - A graceful cancel commits the open transaction at once (while
//    producing: send_offsets now, whatever the commit interval), then stops; a
//    terminal cancel aborts it (unless its commit already started); a passed
//    deadline stops at once, leaving an in-flight commit or abort to the
//    broker's transaction timeout.
// One batch per transaction: the runtime makes a batch as large as its commit
// interval or record bound allows.

#include "engine/session/failure.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>

namespace streamt::engine::commit {

enum class stop_kind {
  graceful,  // first signal: finish the open transaction, then stop
  terminal,  // second signal: abort the open transaction, then stop
};

// Events: the outcome of the last action, or something from outside.
struct batch_ready {};  // consumed records are waiting
struct begun {
  session::failure result;
};                      // begin_transaction returned
struct produced_ok {};  // the batch's records were all enqueued
struct delivery_failed {
  session::failure error;
};  // a record of the transaction was lost
struct offsets_sent {
  session::failure result;
};  // send_offsets_to_transaction returned
struct commit_result {
  session::failure result;
};  // commit_transaction returned
struct abort_result {
  session::failure result;
};  // abort_transaction returned
struct rewound {
  session::failure result;
};                        // every owned partition was sought back
struct retry_elapsed {};  // the delay of retry_after passed
struct cancel_requested {
  stop_kind kind = stop_kind::graceful;
};
struct deadline_passed {};  // the bounded close time ran out
// commit_transaction (abort_transaction) came back at the end of its time
// slice with the call still under way inside librdkafka: the same call
// resumes it. Not an outcome, so it counts as no attempt. The runtime calls
// them in slices so that a stop deadline is seen while a commit hangs (a
// sink leader gone, a paused broker): a call without a timeout would hold
// the run until librdkafka gives up, minutes later.
struct commit_pending {};
struct abort_pending {};

using event =
    std::variant<batch_ready, begun, produced_ok, delivery_failed, offsets_sent, commit_result, abort_result,
                 rewound, retry_elapsed, cancel_requested, deadline_passed, commit_pending, abort_pending>;

enum class action {
  consume,              // poll the next batch and report batch_ready
  begin,                // begin_transaction → begun
  produce,              // transform and produce the batch → produced_ok / delivery_failed
  send_offsets,         // send_offsets_to_transaction(next offsets of the batch) → offsets_sent
  commit,               // commit_transaction → commit_result (commit_pending: call again)
  abort,                // abort_transaction → abort_result (abort_pending: call again)
  rewind_to_committed,  // seek every owned partition to its committed offset → rewound
  retry_after,          // wait next_action::delay → retry_elapsed
  wait,                 // nothing new: keep awaiting the outcome already in flight
  done,                 // stopped cleanly (reason may say what was left to the broker)
  fatal,                // stopped: the client or the transaction is unusable
  fenced,               // stopped: another instance owns our transactional id
};

std::string_view to_string(action a) noexcept;
inline std::ostream& operator<<(std::ostream& os, action a) { return os << to_string(a); }

struct next_action {
  action kind = action::wait;
  std::chrono::milliseconds delay{0};  // for retry_after
  std::string reason;                  // for done, fatal, fenced

  bool is_terminal() const noexcept {
    return kind == action::done || kind == action::fatal || kind == action::fenced;
  }
};

struct policy {
  // How often an unknown-outcome commit is retried before giving up (fatal:
  // the engine exits and a restart resolves the outcome from Kafka).
  int max_commit_attempts = 10;
  // Retries of send_offsets, begin and abort on retriable errors.
  int max_retries = 10;
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{5000};
};

// The transactions aborted since the last commit, and why the last one was.
struct abort_streak {
  int count = 0;
  session::failure cause{};  // none: a stop or a deadline aborted it
};

class machine {
 public:
  enum class state {
    idle,
    beginning,
    producing,
    sending_offsets,
    committing,
    aborting,
    rewinding,
    retry_wait,
    stopped
  };

  explicit machine(policy p = {}) : policy_(p) {}

  next_action step(const event& e);

  state current() const noexcept { return state_; }
  // True from the first commit_transaction call of a transaction until its
  // outcome: cancellation can no longer abort it.
  bool commit_started() const noexcept;
  std::uint64_t transactions_committed() const noexcept { return committed_; }
  std::uint64_t transactions_aborted() const noexcept { return aborted_; }
  const abort_streak& aborts_in_a_row() const noexcept { return streak_; }
  // The last abort found what failed (a record the sink refuses, named for
  // the next attempt to go past): progress, not a repeat, so it does not
  // count in the streak.
  void abort_found_its_cause() noexcept {
    if (streak_.count > 0) --streak_.count;
  }

 private:
  next_action on(const batch_ready&);
  next_action on(const begun&);
  next_action on(const produced_ok&);
  next_action on(const delivery_failed&);
  next_action on(const offsets_sent&);
  next_action on(const commit_result&);
  next_action on(const abort_result&);
  next_action on(const rewound&);
  next_action on(const retry_elapsed&);
  next_action on(const cancel_requested&);
  next_action on(const deadline_passed&);
  next_action on(const commit_pending&);
  next_action on(const abort_pending&);

  next_action start(state s, action a);
  next_action start_abort(const session::failure& cause = {});
  next_action retry(state target, action a, int limit, std::string_view what, const session::failure& e);
  next_action stop(action kind, std::string reason);
  next_action stop_for(std::string_view what, const session::failure& e);
  next_action finish_or(action a, state s);
  next_action unexpected(std::string_view event_name);
  bool transaction_open_before_commit() const noexcept;

  policy policy_;
  state state_ = state::idle;
  // While in retry_wait: the state and action to resume.
  state retry_state_ = state::idle;
  action retry_action_ = action::wait;
  int attempts_ = 0;  // calls made of the current action
  std::optional<stop_kind> cancel_;
  next_action final_;
  std::uint64_t committed_ = 0;
  std::uint64_t aborted_ = 0;
  abort_streak streak_;
  session::failure aborting_for_;  // the cause of the abort under way
};

std::string_view to_string(machine::state s) noexcept;

}  // namespace streamt::engine::commit
