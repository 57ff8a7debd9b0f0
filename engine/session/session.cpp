// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/session.hpp"

#include "engine/session/durations.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

namespace streamt::engine::session {

std::string_view to_string(act a) noexcept {
  switch (a) {
    case act::prepare:
      return "prepare";
    case act::list_topics:
      return "list_topics";
    case act::cap_batches:
      return "cap_batches";
    case act::init_transactions:
      return "init_transactions";
    case act::create_plan_log:
      return "create_plan_log";
    case act::read_plan_log:
      return "read_plan_log";
    case act::append_claim:
      return "append_claim";
    case act::commit_state:
      return "commit_state";
    case act::register_schema:
      return "register_schema";
    case act::subscribe:
      return "subscribe";
    case act::together:
      return "together";
    case act::poll:
      return "poll";
    case act::begin:
      return "begin";
    case act::produce:
      return "produce";
    case act::dead_letter:
      return "dead_letter";
    case act::fetch_schema:
      return "fetch_schema";
    case act::learn_schema:
      return "learn_schema";
    case act::forget_schema:
      return "forget_schema";
    case act::flush:
      return "flush";
    case act::send_offsets:
      return "send_offsets";
    case act::commit:
      return "commit";
    case act::abort:
      return "abort";
    case act::rewind:
      return "rewind";
    case act::retry_after:
      return "retry_after";
    case act::give_up:
      return "give_up";
    case act::close:
      return "close";
  }
  return "?";
}

run_session::run_session(config c)
    : config_(std::move(c)),
      start_(start_of(config_)),
      machine_(config_.commit_policy),
      ledger_(config_.source_topic) {}

action run_session::on(const event& e) {
  if (closed_) {
    // The run is over: nothing more to decide, but a terminal stop that
    // came meanwhile still keeps the close from waiting to leave the group.
    if (const stop_seen* s = std::get_if<stop_seen>(&e)) {
      facts_ = s->facts;
      stop_.handled(stop_.news(s->facts));
      last_.leave_group = last_.leave_group && stop_.leaves_group(facts_);
    }
    return last_;
  }
  return std::visit([this](const auto& ev) { return handle(ev); }, e);
}

// ---- start -------------------------------------------------------------------

action run_session::handle(const started&) {
  running_ = true;
  return poll_or_commit({});
}

// ---- records ------------------------------------------------------------------

action run_session::handle(const records_arrived& e) {
  offset_ledger::dropped dropped;
  batch_ = ledger_.current(e.batch, kept_, dropped);
  refused_.reset();
  refused_dead_letter_ = false;
  std::string warning;
  if (dropped.total() > 0) {
    stale_dropped_ += dropped.total();
    warning = "dropped " + std::to_string(dropped.total()) + " record(s) the consumer handed over (first " +
              dropped.first + "): " + std::to_string(dropped.not_owned) +
              " of partitions this process no longer owns, " + std::to_string(dropped.before_position) +
              " from before the position a partition was assigned or rewound to";
  }
  if (batch_.empty()) return poll_or_commit(std::move(warning));
  forgetting_at_ = e.now;
  if (std::optional<action> a = forget_aged_schema(warning)) return std::move(*a);
  if (machine_.current() == commit::machine::state::idle)
    return follow(machine_.step(commit::batch_ready{}), std::move(warning));
  return follow({commit::action::produce, {}, {}}, std::move(warning));
}

// Nothing of the transaction is pending any more: ended, or given up.
void run_session::forget_transaction() {
  ledger_.clear_pending();
  txn_records_ = 0;
}

action run_session::handle(const began& e) {
  note_refusal(e.result);
  if (!e.result.failed()) {
    txn_started_ = e.now;
    txn_records_ = 0;
    sink_.new_transaction();
    txn_counts_ = {};
  }
  return follow(machine_.step(commit::begun{e.result}));
}

action run_session::handle(const batch_produced& e) {
  batch_result r = e.result;
  txn_counts_ += e.counts;
  // A record that waits for its writer schema stopped the batch before any
  // refused record was reached: the next produce finds that one again.
  const bool reached_refused = refused_ && !r.invalid && !r.needs_schema;
  const bool refused_dead_letter = reached_refused && refused_dead_letter_;
  if (reached_refused) r.invalid = std::move(refused_);
  refused_.reset();
  refused_dead_letter_ = false;
  ledger_.handed_over(batch_, r.handled);
  txn_records_ += r.handled;
  // What is left of the batch: the invalid record first, when there is one.
  const std::span<const record_view> rest = batch_.subspan(std::min(r.handled, batch_.size()));
  batch_ = {};
  if (std::optional<failure> failed = sink_.take_error()) {
    note_refusal(*failed);
    std::string warning = "producing failed: " + failed->message + "; aborting the transaction";
    return follow(machine_.step(commit::delivery_failed{std::move(*failed)}), std::move(warning));
  }
  if (r.needs_schema && !rest.empty()) {
    // The record at the head of the rest is written with a schema the
    // stages have not learnt: ask the registry, then take the rest up again.
    batch_ = rest;
    return fetch_schema(*r.needs_schema);
  }
  if (r.invalid && !config_.dead_letter_topic.empty() && !refused_dead_letter && !rest.empty()) {
    // Dead-lettered in this transaction, then the rest of the batch: the
    // record's offset commits with the dead-letter write or not at all.
    batch_ = rest;
    action a;
    a.kind = act::dead_letter;
    ++dead_letters_unlogged_;
    if (!dead_letter_logged_ || e.now - *dead_letter_logged_ >= config_.dead_letter_log_interval) {
      a.warning = "invalid record at " + r.invalid->describe() + " [" + r.invalid->error.code +
                  "]; writing it to dead-letter topic '" + config_.dead_letter_topic + "'";
      if (dead_letters_unlogged_ > 1)
        a.warning += " (" + std::to_string(dead_letters_unlogged_ - 1) + " more since the last such line)";
      dead_letters_unlogged_ = 0;
      dead_letter_logged_ = e.now;
    }
    a.dead = std::move(r.invalid);
    return emit(std::move(a));
  }
  if (r.invalid) return stop_at_invalid(std::move(*r.invalid));
  if (due(e.now)) return follow(machine_.step(commit::produced_ok{}));
  return poll_or_commit({});
}

action run_session::handle(const dead_lettered& e) {
  if (std::optional<failure> failed = sink_.take_error()) {
    batch_ = {};
    note_refusal(*failed);
    std::string warning = "writing to dead-letter topic '" + config_.dead_letter_topic +
                          "' failed: " + failed->message + "; aborting the transaction";
    return follow(machine_.step(commit::delivery_failed{std::move(*failed)}), std::move(warning));
  }
  // The record is handled: its offset is pending like an output's.
  ledger_.handed_over(batch_, 1);
  ++txn_records_;
  record_counts one;
  one.consumed = 1;
  one.dead_lettered = 1;
  txn_counts_ += one;
  batch_ = batch_.subspan(1);
  if (!batch_.empty()) return follow({commit::action::produce, {}, {}});
  if (due(e.now)) return follow(machine_.step(commit::produced_ok{}));
  return poll_or_commit({});
}

action run_session::handle(const commit_due&) {
  if (first_assignment_due_) return first_assignment_missed();
  if (machine_.current() != commit::machine::state::producing) return poll_or_commit({});
  return follow(machine_.step(commit::produced_ok{}));
}

// ---- the transaction ------------------------------------------------------------

action run_session::handle(const flushed& e) {
  note_refusal(e.result);
  if (e.result.failed()) {
    // Unknown whether every record landed: abort, never commit.
    failure f = failure::abortable("waiting for the delivery reports before committing: " + e.result.message,
                                   e.result);
    return follow(machine_.step(commit::offsets_sent{std::move(f)}));
  }
  return after_flush({});
}

// send_offsets, once every delivery report that matters is in: a record of
// an aborted transaction found inside this one aborts it (see
// aborted_tail.hpp); with nothing handed over there is nothing to send.
action run_session::after_flush(std::string warning) {
  if (std::optional<std::string> trailing = sink_.take_trailing()) {
    std::string w = *trailing + "; aborting the transaction and rewinding";
    return follow(machine_.step(commit::offsets_sent{failure::abortable(*trailing)}), std::move(w));
  }
  if (ledger_.pending().empty()) return follow(machine_.step(commit::offsets_sent{}), std::move(warning));
  action a;
  a.kind = act::send_offsets;
  a.warning = std::move(warning);
  return emit(std::move(a));
}

action run_session::handle(const offsets_sent& e) {
  note_refusal(e.result);
  std::string warning;
  if (e.result.failed()) warning = "send_offsets_to_transaction failed: " + e.result.message;
  return follow(machine_.step(commit::offsets_sent{e.result}), std::move(warning));
}

bool run_session::still_under_way(const failure& e, clock::time_point now) const {
  return e.timed_out && call_began_ && now - *call_began_ < config_.whole_call_limit;
}

// A slice of commit_transaction or abort_transaction that ended with the
// call still under way: call again (past the stop deadline, leave it to the
// broker). nullopt once the slice is an outcome.
std::optional<action> run_session::call_again(const failure& r, clock::time_point called,
                                              clock::time_point now, const commit::event& pending) {
  if (!call_began_) call_began_ = called;
  if (!still_under_way(r, now)) return std::nullopt;
  return follow(stop_.past_deadline() ? machine_.step(commit::deadline_passed{}) : machine_.step(pending));
}

action run_session::handle(const commit_returned& e) {
  if (!outcome_wait_began_) outcome_wait_began_ = e.called;
  if (std::optional<action> s = stalled("commit_transaction", e.result, e.now)) return *s;
  if (std::optional<action> again = call_again(e.result, e.called, e.now, commit::commit_pending{}))
    return *again;
  const clock::duration took = e.now - *std::exchange(call_began_, std::nullopt);
  note_refusal(e.result);
  std::string warning;
  if (!e.result.failed()) {
    sink_.committed();
    ledger_.committed();
    // The run's counts are of what committed, as /metrics has them: an
    // aborted attempt's records are counted again when they commit.
    counts_ += txn_counts_;
    last_transaction_ = std::exchange(txn_counts_, {});
    // Past the records that held the refused one: back to full transactions.
    if (isolating_ && (isolating_->left -= std::min(isolating_->left, txn_records_)) == 0) isolating_.reset();
  } else {
    warning = "commit_transaction failed after " + millis(took) + ": " + e.result.message;
  }
  return follow(machine_.step(commit::commit_result{e.result}), std::move(warning));
}

action run_session::handle(const abort_returned& e) {
  if (!outcome_wait_began_) outcome_wait_began_ = e.called;
  if (std::optional<action> s = stalled("abort_transaction", e.result, e.now)) return *s;
  if (std::optional<action> again = call_again(e.result, e.called, e.now, commit::abort_pending{}))
    return *again;
  const clock::time_point began = *std::exchange(call_began_, std::nullopt);
  std::string warning;
  bool found_cause = false;
  if (!e.result.failed()) {
    if (std::optional<std::string> unplaced = sink_.take_unplaced()) {
      found_cause = narrow(*unplaced, warning);
    }
    if (sink_.aborted()) {
      found_cause = true;
      isolating_.reset();  // found: the next attempt goes past it
    }
    last_transaction_ = std::exchange(txn_counts_, {});
    if (machine_.aborts_in_a_row().count == 0) abort_streak_began_ = began;
  } else {
    warning = "abort_transaction failed: " + e.result.message;
  }
  action next = follow(machine_.step(commit::abort_result{e.result}), std::move(warning));
  if (found_cause) machine_.abort_found_its_cause();
  if (next.kind != act::rewind) return next;
  if (std::optional<ending> over = abort_streak_over(e.now)) {
    forget_transaction();
    if (!machine_.aborts_in_a_row().cause.unknown_topic)
      return close(std::move(over), std::move(next.warning));
    stall_ = std::move(over);  // which topic is gone? (handle(topics_listed))
    return ask_for_topics(std::move(next.warning));
  }
  return next;
}

action run_session::handle(const rewound& e) {
  if (!e.result.failed())
    for (const auto& [p, at] : e.positions) ledger_.positioned(p, at);
  if (std::exchange(redo_rewind_, false)) {
    if (e.result.failed())
      return close(ending{run_status::failed, "rewind to the committed offsets: " + e.result.message, {}});
    return poll_or_commit({});
  }
  if (e.result.failed() && e.cut_short_by_stop) {
    // Nothing is open after the abort: stopping here loses nothing, the
    // next start resumes at the committed offsets.
    return close(ending{run_status::stopped,
                        "stopped while waiting for the brokers to rewind after an abort: " + e.result.message,
                        {}});
  }
  if (!e.result.failed()) ++rewinds_;
  return follow(machine_.step(commit::rewound{e.result}));
}

action run_session::handle(const retry_elapsed&) {
  if (!running_) return from_start(start_.waited());  // a pause between two topic lists
  if (std::exchange(schema_retry_due_, false) && schema_fetch_) return fetch_schema(schema_fetch_->id);
  return follow(machine_.step(commit::retry_elapsed{}));
}

// ---- rebalances -------------------------------------------------------------------

action run_session::handle(const revoked& e) {
  revoking_ = e.partitions;
  if (machine_.current() == commit::machine::state::producing) {
    // The open transaction holds offsets of the revoked partitions: it must
    // end before they are given up, or the next owner reprocesses them.
    // With a lost assignment another member may own them already: abort.
    if (e.lost)
      return follow(machine_.step(commit::delivery_failed{
          failure::abortable("partitions were lost to another member before the transaction committed")}));
    return follow(machine_.step(commit::produced_ok{}));
  }
  action a;
  a.kind = act::give_up;
  a.partitions = e.partitions;
  return emit(std::move(a));
}

action run_session::handle(const given_up& e) {
  if (revoking_)
    for (partition_id p : *revoking_) ledger_.give_up(p);
  revoking_.reset();
  if (e.result.failed())
    return close(ending{run_status::failed, "giving up partitions failed: " + e.result.message, {}});
  if (stop_.stopping()) return close(std::nullopt);
  return poll_or_commit({});
}

action run_session::handle(const assigned& e) {
  for (partition_id p : e.partitions) ledger_.take(p);
  for (const auto& [p, at] : e.positions) ledger_.positioned(p, at);
  established_ = true;
  // The first assignment a stop waited for: give it up and leave.
  if (std::exchange(first_assignment_due_, std::nullopt)) {
    revoking_ = e.partitions;
    return close(std::nullopt);
  }
  return poll_or_commit({});
}

// ---- the machine's answers ----------------------------------------------------------

action run_session::follow(commit::next_action a, std::string warning) {
  action next;
  next.warning = std::move(warning);
  switch (a.kind) {
    case commit::action::consume:
      // The transaction ended (committed, or aborted and rewound).
      forget_transaction();
      if (stop_.stopping()) return close(std::nullopt, std::move(next.warning));
      if (revoking_) {
        next.kind = act::give_up;
        next.partitions = *revoking_;
        return emit(std::move(next));
      }
      // Committed what came before a record that waits for the registry:
      // wait, then ask again (session_schemas.cpp).
      if (schema_fetch_ && !batch_.empty()) return retry_schema(std::move(next.warning));
      return poll_or_commit(std::move(next.warning));
    case commit::action::begin:
      next.kind = act::begin;
      return emit(std::move(next));
    case commit::action::produce: {
      // Begun with no batch in hand (after a retry of begin): poll for one.
      if (batch_.empty()) return poll_or_commit(std::move(next.warning));
      // Each partition's records must come in increasing offsets (see
      // offset_ledger.hpp): any step back aborts and rewinds.
      if (std::optional<std::string> back = ledger_.went_back(batch_)) {
        batch_ = {};
        return follow(
            machine_.step(commit::delivery_failed{failure::abortable("the consumer went back: " + *back)}),
            *back + "; aborting the transaction and rewinding");
      }
      next.kind = act::produce;
      next.take = batch_.size();
      // A record whose output the sink refused for good (found when an
      // earlier attempt of this transaction was aborted): process up to it,
      // commit, and stop there as at an invalid record.
      if (std::optional<unproducible_at> at = sink_.unproducible_in(batch_)) {
        const unproducible_record& u = at->record;
        diagnostic d;
        d.phase = phase::record;
        d.code = u.dead_letter ? "dead_letter_refused" : "output_refused_by_sink";
        d.message = refusal_reason(u);
        const record_view& v = batch_[at->index];
        // A dead-letter write the dead-letter topic refused: the record can
        // go nowhere, and the run stops at it.
        refused_dead_letter_ = u.dead_letter;
        refused_ = invalid_record{std::string(v.topic), v.partition, v.offset, d};
        next.take = at->index;
      }
      return emit(std::move(next));
    }
    case commit::action::send_offsets:
      if (sink_.commit_needs_reports()) {
        // commit_transaction would flush and end the transaction in one
        // call, too late to look at the reports (aborted_tail.hpp).
        next.kind = act::flush;
        return emit(std::move(next));
      }
      return after_flush(std::move(next.warning));
    case commit::action::commit:
      next.kind = act::commit;
      next.slice = config_.call_slice;
      next.first_slice = !call_began_;
      return emit(std::move(next));
    case commit::action::abort:
      next.kind = act::abort;
      next.slice = config_.call_slice;
      next.first_slice = !call_began_;
      return emit(std::move(next));
    case commit::action::rewind_to_committed:
      // Aborted for a refusal: nothing is open, and every retry would meet
      // the same ACL.
      if (!not_authorised_.empty()) {
        forget_transaction();
        return close_refused(std::move(next.warning));
      }
      return rewind(std::move(next.warning));
    case commit::action::retry_after:
      next.kind = act::retry_after;
      next.delay = a.delay;
      next.commit_retry = machine_.commit_started();
      ++(next.commit_retry ? commit_retries_ : retries_);
      return emit(std::move(next));
    case commit::action::wait:
      // Nothing new: the action in hand goes on.
      if (!next.warning.empty()) {
        action again = last_;
        again.warning = std::move(next.warning);
        return again;
      }
      return last_;
    case commit::action::done:
      return done(a.reason, std::move(next.warning));
    case commit::action::fenced:
      return close(ending{run_status::fenced, a.reason + "; another instance runs with this identity", {}},
                   std::move(next.warning));
    case commit::action::fatal:
      // A refusal made fatal (TRANSACTIONAL_ID_AUTHORIZATION_FAILED is): no
      // new producer would be let in either, so no in-process restart.
      if (!not_authorised_.empty()) return close_refused(std::move(next.warning));
      return close(ending{run_status::failed, a.reason, {}}, std::move(next.warning));
  }
  return close(ending{run_status::failed, "the commit machine asked for an unknown action", {}});
}

// Every owned partition back to its committed offset: nothing is pending.
action run_session::rewind(std::string warning) {
  forget_transaction();
  // The records in hand are read again from the committed offsets, and a
  // schema one of them waited for is asked for again when it comes back.
  batch_ = {};
  schema_fetch_.reset();
  schema_retry_due_ = false;
  action a;
  a.kind = act::rewind;
  a.partitions.assign(ledger_.owned().begin(), ledger_.owned().end());
  a.warning = std::move(warning);
  return emit(std::move(a));
}

// A stop that came while the transaction began (it was open, not yet
// producing) is acted on once it produces: the transaction commits now, not at
// the end of the commit interval, which may be a minute away.
action run_session::poll_or_commit(std::string warning) {
  if (machine_.current() == commit::machine::state::producing && stop_.stopping())
    return follow(machine_.step(commit::produced_ok{}), std::move(warning));
  action a = poll();
  a.warning = std::move(warning);
  return emit(std::move(a));
}

action run_session::poll() const {
  action a;
  a.kind = act::poll;
  // Never more than the transaction's record bound allows (due() ends the
  // transaction once the bound is reached, so this is at least 1).
  const std::size_t bound = record_bound();
  const std::size_t left = bound > txn_records_ ? bound - txn_records_ : std::size_t{1};
  a.max_records = std::min(config_.max_poll, left);
  if (machine_.current() == commit::machine::state::producing)
    a.commit_at = txn_started_ + config_.commit_interval;
  return a;
}

bool run_session::due(clock::time_point now) const {
  return txn_records_ >= record_bound() || now >= txn_started_ + config_.commit_interval;
}

std::size_t run_session::record_bound() const noexcept {
  return isolating_ ? std::min(isolating_->at_most, config_.max_records_per_transaction)
                    : config_.max_records_per_transaction;
}

action run_session::emit(action a) {
  last_ = a;
  last_.warning.clear();
  last_.info.clear();
  return a;
}

progress run_session::counters() const {
  progress p;
  p.counts = counts_;
  p.transactions_committed = committed_total();
  p.transactions_aborted = aborted_base_ + machine_.transactions_aborted();
  p.commit_retries = commit_retries_;
  p.retries = retries_;
  p.rewinds = rewinds_;
  p.stale_dropped = stale_dropped_;
  return p;
}

}  // namespace streamt::engine::session
