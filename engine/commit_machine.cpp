// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/commit_machine.hpp"

#include <algorithm>

namespace streamt::engine::commit {
namespace {

std::string condition_name(session::condition c) {
  switch (c) {
    case session::condition::none:
      return "success";
    case session::condition::retriable:
      return "retriable";
    case session::condition::abortable:
      return "abortable";
    case session::condition::fatal:
      return "fatal";
    case session::condition::fenced:
      return "fenced";
    case session::condition::configuration:
      return "configuration";
    case session::condition::unclassified:
      return "unclassified";
  }
  return "unknown";
}

std::string explain(std::string_view what, const session::failure& e) {
  std::string s(what);
  s += " failed (";
  s += condition_name(e.what);
  s += ")";
  if (!e.message.empty()) {
    s += ": ";
    s += e.message;
  }
  return s;
}

}  // namespace

std::string_view to_string(action a) noexcept {
  switch (a) {
    case action::consume:
      return "consume";
    case action::begin:
      return "begin";
    case action::produce:
      return "produce";
    case action::send_offsets:
      return "send_offsets";
    case action::commit:
      return "commit";
    case action::abort:
      return "abort";
    case action::rewind_to_committed:
      return "rewind_to_committed";
    case action::retry_after:
      return "retry_after";
    case action::wait:
      return "wait";
    case action::done:
      return "done";
    case action::fatal:
      return "fatal";
    case action::fenced:
      return "fenced";
  }
  return "unknown";
}

std::string_view to_string(machine::state s) noexcept {
  switch (s) {
    case machine::state::idle:
      return "idle";
    case machine::state::beginning:
      return "beginning";
    case machine::state::producing:
      return "producing";
    case machine::state::sending_offsets:
      return "sending_offsets";
    case machine::state::committing:
      return "committing";
    case machine::state::aborting:
      return "aborting";
    case machine::state::rewinding:
      return "rewinding";
    case machine::state::retry_wait:
      return "retry_wait";
    case machine::state::stopped:
      return "stopped";
  }
  return "unknown";
}

next_action machine::step(const event& e) {
  if (state_ == state::stopped) return final_;
  return std::visit([this](const auto& ev) { return on(ev); }, e);
}

bool machine::commit_started() const noexcept {
  return state_ == state::committing || (state_ == state::retry_wait && retry_state_ == state::committing);
}

bool machine::transaction_open_before_commit() const noexcept {
  return state_ == state::producing || state_ == state::sending_offsets ||
         (state_ == state::retry_wait && retry_state_ == state::sending_offsets);
}

next_action machine::start(state s, action a) {
  state_ = s;
  attempts_ = 1;
  return {a, {}, {}};
}

next_action machine::start_abort(const session::failure& cause) {
  aborting_for_ = cause;
  return start(state::aborting, action::abort);
}

next_action machine::stop(action kind, std::string reason) {
  state_ = state::stopped;
  final_ = {kind, {}, std::move(reason)};
  return final_;
}

next_action machine::stop_for(std::string_view what, const session::failure& e) {
  return stop(e.what == session::condition::fenced ? action::fenced : action::fatal, explain(what, e));
}

next_action machine::finish_or(action a, state s) {
  if (cancel_) return stop(action::done, {});
  state_ = s;
  attempts_ = 0;
  return {a, {}, {}};
}

next_action machine::unexpected(std::string_view event_name) {
  return stop(action::fatal, "internal error: event " + std::string(event_name) + " in state " +
                                 std::string(to_string(state_)));
}

next_action machine::retry(state target, action a, int limit, std::string_view what,
                           const session::failure& e) {
  if (attempts_ >= limit) {
    return stop(action::fatal,
                explain(what, e) + "; gave up after " + std::to_string(attempts_) + " attempts");
  }
  state_ = state::retry_wait;
  retry_state_ = target;
  retry_action_ = a;
  auto delay = policy_.initial_backoff;
  for (int i = 1; i < attempts_ && delay < policy_.max_backoff; ++i) delay *= 2;
  return {action::retry_after, std::min(delay, policy_.max_backoff), {}};
}

next_action machine::on(const batch_ready&) {
  if (state_ != state::idle) return unexpected("batch_ready");
  return start(state::beginning, action::begin);
}

next_action machine::on(const begun& e) {
  if (state_ != state::beginning) return unexpected("begun");
  if (!e.result.failed()) {
    state_ = state::producing;
    return {action::produce, {}, {}};
  }
  switch (e.result.what) {
    case session::condition::retriable:
      return retry(state::beginning, action::begin, policy_.max_retries, "begin_transaction", e.result);
    case session::condition::abortable:
      return start_abort(e.result);
    default:
      return stop_for("begin_transaction", e.result);
  }
}

next_action machine::on(const produced_ok&) {
  if (state_ != state::producing) return unexpected("produced_ok");
  return start(state::sending_offsets, action::send_offsets);
}

next_action machine::on(const delivery_failed& e) {
  const auto c = e.error.what;
  if (c == session::condition::fatal || c == session::condition::fenced) return stop_for("delivery", e.error);
  // A lost record dooms the open transaction: its commit would fail anyway.
  if (transaction_open_before_commit()) return start_abort(e.error);
  // During a commit, its result decides (it reports the failure itself);
  // during or after an abort, failures are the purged records. Nothing new.
  return {action::wait, {}, {}};
}

next_action machine::on(const offsets_sent& e) {
  if (state_ != state::sending_offsets) return unexpected("offsets_sent");
  if (!e.result.failed()) return start(state::committing, action::commit);
  switch (e.result.what) {
    case session::condition::retriable:
      // The commit has not started, so giving up here can still abort.
      if (attempts_ >= policy_.max_retries) return start_abort(e.result);
      return retry(state::sending_offsets, action::send_offsets, policy_.max_retries, "send_offsets",
                   e.result);
    case session::condition::abortable:
      return start_abort(e.result);
    default:
      return stop_for("send_offsets_to_transaction", e.result);
  }
}

next_action machine::on(const commit_result& e) {
  if (state_ != state::committing) return unexpected("commit_result");
  if (!e.result.failed()) {
    ++committed_;
    streak_ = {};
    return finish_or(action::consume, state::idle);
  }
  switch (e.result.what) {
    case session::condition::retriable:
      // Outcome unknown (often a timeout): only the same call can find out.
      return retry(state::committing, action::commit, policy_.max_commit_attempts, "commit_transaction",
                   e.result);
    case session::condition::abortable:
      return start_abort(e.result);
    default:
      return stop_for("commit_transaction", e.result);
  }
}

next_action machine::on(const abort_result& e) {
  if (state_ != state::aborting) return unexpected("abort_result");
  if (!e.result.failed()) {
    ++aborted_;
    ++streak_.count;
    streak_.cause = aborting_for_;
    // Stopping: no need to rewind, the next run starts from the committed offsets.
    return finish_or(action::rewind_to_committed, state::rewinding);
  }
  if (e.result.what == session::condition::retriable) {
    return retry(state::aborting, action::abort, policy_.max_retries, "abort_transaction", e.result);
  }
  return stop_for("abort_transaction", e.result);
}

next_action machine::on(const rewound& e) {
  if (state_ != state::rewinding) return unexpected("rewound");
  if (e.result.failed()) return stop(action::fatal, explain("rewind to the committed offsets", e.result));
  if (cancel_ || streak_.count < 2) return finish_or(action::consume, state::idle);
  // The same transaction aborted again: pause before taking it up again,
  // twice as long each time (initial_backoff from the second abort).
  state_ = state::retry_wait;
  retry_state_ = state::idle;
  retry_action_ = action::consume;
  auto delay = policy_.initial_backoff;
  for (int i = 2; i < streak_.count && delay < policy_.max_backoff; ++i) delay *= 2;
  return {action::retry_after, std::min(delay, policy_.max_backoff), {}};
}

next_action machine::on(const commit_pending&) {
  if (state_ != state::committing) return unexpected("commit_pending");
  return {action::commit, {}, {}};
}

next_action machine::on(const abort_pending&) {
  if (state_ != state::aborting) return unexpected("abort_pending");
  return {action::abort, {}, {}};
}

next_action machine::on(const retry_elapsed&) {
  if (state_ != state::retry_wait) return unexpected("retry_elapsed");
  // A terminal cancel that arrived while waiting to retry a pre-commit step
  // has already turned into an abort; here we only resume.
  state_ = retry_state_;
  ++attempts_;
  return {retry_action_, {}, {}};
}

next_action machine::on(const cancel_requested& e) {
  if (!cancel_ || e.kind == stop_kind::terminal) cancel_ = e.kind;
  // Idle, or pausing after aborts before consuming again: nothing is open.
  if (state_ == state::idle || (state_ == state::retry_wait && retry_state_ == state::idle))
    return stop(action::done, {});
  if (state_ == state::beginning || (state_ == state::retry_wait && retry_state_ == state::beginning)) {
    // begin_transaction failed or has not returned: nothing is open yet.
    if (*cancel_ == stop_kind::terminal || state_ == state::retry_wait) return stop(action::done, {});
    return {action::wait, {}, {}};
  }
  if (*cancel_ == stop_kind::terminal && transaction_open_before_commit()) return start_abort();
  // Graceful, with the transaction open and its records handed to the
  // producer: it commits now, not at the end of the commit interval (which
  // may be a minute away, past any stop timeout).
  if (state_ == state::producing) return start(state::sending_offsets, action::send_offsets);
  // Graceful otherwise: offsets being sent, commit started, or abort/rewind
  // under way: runs to its outcome, then stops.
  return {action::wait, {}, {}};
}

next_action machine::on(const deadline_passed&) {
  cancel_ = stop_kind::terminal;
  if (commit_started()) {
    return stop(action::done, "deadline passed during commit_transaction: its outcome is left to the broker");
  }
  if (state_ == state::aborting || (state_ == state::retry_wait && retry_state_ == state::aborting)) {
    return stop(action::done,
                "deadline passed during abort_transaction: left to the broker's transaction timeout");
  }
  if (transaction_open_before_commit()) return start_abort();
  return stop(action::done, {});
}

}  // namespace streamt::engine::commit
