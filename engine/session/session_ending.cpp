// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// How a run_session (session.hpp) ends, apart from how it runs
// (session.cpp): stop signals, the invalid-record stop and its redo, the
// authorisation refusal that ends a run with exit 69, the driver's failures
// and refused assignments, the stall bound on an answer from the brokers, the
// producer's fatal error, and close() with the ending it records and
// outcome(). session.cpp calls close() where the protocol meets an end (a
// fenced producer, a failed give-up); what a close carries (the partitions
// to give up, whether to leave the group, the ending's status and message) is
// decided here. A file of its own so that each of the two reads whole (the
// session was one file of 700 lines).

#include "engine/session/durations.hpp"
#include "engine/session/refusal.hpp"
#include "engine/session/session.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace streamt::engine::session {

namespace {

// What a stalled run's message ends with: why stopping is safe, what a
// supervisor does.
constexpr std::string_view restart_gets_new_clients =
    "; stopping so that a restart gets new clients (nothing is lost or duplicated: the transaction "
    "coordinator completes or aborts what was open, and the restarted engine resumes from the committed "
    "offsets)";

}  // namespace

void run_session::producer_fatal(std::string message) {
  if (producer_failure_.empty()) producer_failure_ = "producer: " + std::move(message);
}

// ---- stop signals ------------------------------------------------------------

action run_session::handle(const stop_seen& e) {
  facts_ = e.facts;
  const stop_news n = stop_.news(e.facts);
  if (n == stop_news::none) return last_;
  stop_.handled(n);
  if (!running_) return stopped_starting();
  // Subscribed, but no assignment yet: the member's JoinGroup is under way.
  // librdkafka can neither destroy such a consumer (before 2.3.0 it fails
  // an assertion, later ones spin in rd_kafka_destroy) nor close it at
  // once (its LeaveGroup queues behind the JoinGroup). So a graceful stop
  // polls on until the assignment comes (then gives it up and leaves,
  // handle(assigned)) or first_assignment_wait has passed (then ends
  // without leaving, handle(commit_due)). Nothing is open meanwhile.
  if (n == stop_news::graceful && !established_ && machine_.current() == commit::machine::state::idle) {
    first_assignment_due_ = e.now + config_.first_assignment_wait;
    action a = poll();
    a.commit_at = first_assignment_due_;
    a.info = "stopping: waiting up to " + whole_seconds(config_.first_assignment_wait) +
             " for the group's first assignment, so that this member leaves the group cleanly";
    return emit(std::move(a));
  }
  action a =
      n == stop_news::deadline
          ? follow(machine_.step(commit::deadline_passed{}),
                   "the graceful stop did not end within the stop timeout (" +
                       std::to_string(config_.stop_timeout.count()) + " ms); stopping now")
          : follow(machine_.step(commit::cancel_requested{
                n == stop_news::terminal ? commit::stop_kind::terminal : commit::stop_kind::graceful}));
  if (n != stop_news::deadline)
    a.info = n == stop_news::terminal ? "stopping now (terminal stop)"
                                      : "stopping: finishing the open transaction";
  // A produce (or a dead-letter write) in hand that the stop supersedes is
  // not performed: those records were not handed over, and the next run
  // takes them again.
  if (a.kind != act::produce && a.kind != act::begin && a.kind != act::dead_letter) batch_ = {};
  return a;
}

// ---- the invalid-record stop ----------------------------------------------------

// The invalid-record stop (no dead-letter topic). Everything before the
// invalid record commits; its own offset is the committed offset of its
// partition, so nothing at or after it is consumed, and a restart stops at
// it again until it is dealt with.
action run_session::stop_at_invalid(invalid_record r) {
  ledger_.stop_before(partition_id{r.partition}, offset{r.offset});
  std::string warning = "invalid record at " + r.describe() + " [" + r.error.code +
                        "]; committing the records before it and stopping";
  stop_.stop_at_record();
  invalid_ = std::move(r);
  committed_before_invalid_ = machine_.transactions_committed();
  action next =
      follow(machine_.step(commit::cancel_requested{commit::stop_kind::graceful}), std::move(warning));
  next.record = invalid_;
  return next;
}

// The commit machine is done: the run ends (follow's commit::action::done).
action run_session::done(const std::string& reason, std::string warning) {
  // Stopping at an invalid (or unproducible) record, but the transaction
  // holding the records before it was aborted (librdkafka 2.0.2 fails
  // the first transaction after an epoch-bumping abort with
  // OUT_OF_ORDER_SEQUENCE_NUMBER, seen in tools/faults too_large):
  // ending with exit 65 now would claim a commit that did not happen.
  // Rewind and process up to the record again.
  if (invalid_ && !stop_.terminal() && machine_.transactions_committed() == committed_before_invalid_ &&
      redos_ < config_.max_redos) {
    ++redos_;
    std::string redo_warning = "the transaction before the record at " + invalid_->describe() +
                               " was aborted; processing up to it again";
    committed_base_ += machine_.transactions_committed();
    aborted_base_ += machine_.transactions_aborted();
    machine_ = commit::machine{config_.commit_policy};
    std::optional<invalid_record> record = std::exchange(invalid_, std::nullopt);
    stop_.resume_at_record();
    redo_rewind_ = true;
    action again = rewind(std::move(redo_warning));
    again.record = std::move(record);
    return again;
  }
  if (!reason.empty()) warning = reason;
  return close(std::nullopt, std::move(warning));
}

// ---- authorisation -------------------------------------------------------------

// After an abort for a refusal nothing is open, and every retry would meet
// the same ACL: the run ends, exit 69.
action run_session::close_refused(std::string warning) {
  return close(ending{run_status::unavailable, not_authorised_, {}}, std::move(warning));
}

void run_session::note_refusal(const failure& e) {
  if (!not_authorised_.empty() || !e.failed()) return;
  if (std::optional<std::string> line = refusal_line(e.refused, e.message, config_.source_topic,
                                                     config_.sink_topics, config_.application_id))
    not_authorised_ = std::move(*line);
}

// ---- failures ----------------------------------------------------------------------

action run_session::handle(const client_failed& e) {
  return handle(run_failed{run_status::failed, e.message});
}

action run_session::handle(const run_failed& e) { return close(ending{e.status, e.message, {}}); }

// A stop's wait for the first assignment ran out: the member cannot leave
// the group cleanly; it ends without (close() leaves only established
// members) and the group drops it after its session timeout.
action run_session::first_assignment_missed() {
  first_assignment_due_.reset();
  return close(std::nullopt, "stopping without leaving the group: no assignment came within " +
                                 whole_seconds(config_.first_assignment_wait) +
                                 " of the stop; the group drops this member after its session timeout");
}

action run_session::handle(const assignment_refused& e) {
  established_ = true;  // the refused partitions were acknowledged: the member has joined
  // The first assignment a stop waited for: nothing was to be consumed from
  // it anyway, so the stop ends as asked; the refusal is said.
  if (std::exchange(first_assignment_due_, std::nullopt))
    return close(std::nullopt, "stopping without taking the assigned partitions: " + e.message);
  if (machine_.current() == commit::machine::state::idle) return close(ending{e.status, e.message, {}});
  // A transaction is open on the partitions this member keeps (a
  // cooperative rebalance added the refused ones). Leaving with it open
  // would make their next owners wait for it (their committed offsets stay
  // unstable until the transaction coordinator times it out): abort it as
  // a terminal stop does, then close with the refusal.
  refusal_ = ending{e.status, e.message, {}};
  stop_.stop_at_record();
  return follow(machine_.step(commit::cancel_requested{commit::stop_kind::terminal}),
                "stopping: " + e.message);
}

// ---- stalls ------------------------------------------------------------------------

// A commit or abort without an outcome for stall_timeout, across its slices
// and unknown-outcome retries: the run fails (exit 75) instead of asking a
// client that may never answer (config::stall_timeout). Stopping is safe
// there: an unknown outcome is the broker's to decide, and the next
// producer's init_transactions waits for that decision. A stop under way
// has its own deadline and is left to it.
std::optional<action> run_session::stalled(std::string_view call, const failure& r, clock::time_point now) {
  const bool no_outcome = r.failed() && (r.timed_out || r.what == condition::retriable);
  if (!no_outcome) {
    outcome_wait_began_.reset();
    return std::nullopt;
  }
  if (stop_.stopping() || now - *outcome_wait_began_ < config_.stall_timeout) return std::nullopt;
  stalled_ = true;
  stall_ = ending{run_status::failed,
                  std::string(call) + " has had no outcome for " + whole_seconds(now - *outcome_wait_began_) +
                      " (the stall timeout, --stall-timeout-ms): " + r.message +
                      std::string(restart_gets_new_clients),
                  {}};
  // A commit that waits on records for a topic deleted under it never
  // hears why (librdkafka retries them until they time out): the topics
  // that exist tell, and a topic that is gone is no restart's to mend.
  return ask_for_topics({});
}

// The run ends with stall_, once the topic list says whether a topic
// written is gone.
action run_session::ask_for_topics(std::string warning) {
  action a;
  a.kind = act::list_topics;
  a.slice = config_.stall_check;
  a.warning = std::move(warning);
  return emit(std::move(a));
}

// The answer to a stalled run's question: do the topics written still
// exist? (Before the run started, the start-up's own.)
action run_session::handle(const topics_listed& e) {
  if (running_ && stall_) {
    ending end = std::move(*stall_);
    stall_.reset();
    std::vector<std::string> gone;
    if (e.names) {
      for (const std::string& t : config_.sink_topics)
        if (!e.names->contains(t)) gone.push_back(t);
      if (!config_.dead_letter_topic.empty() && !e.names->contains(config_.dead_letter_topic))
        gone.push_back(config_.dead_letter_topic);
    }
    if (!gone.empty()) {
      end.status = run_status::unavailable;
      end.message = "topic '" + gone.front() + "', written by this run, does not exist any more (" +
                    end.message.substr(0, end.message.find(restart_gets_new_clients)) +
                    "); create it, then start the engine again";
    }
    return close(std::move(end));
  }
  return from_start(start_.on(e));
}

run_failed run_session::unanswered(std::string message, bool stop_requested) const {
  if ((established_ || first_assignment_due_) && (stop_.signalled() || stop_requested))
    return {run_status::stopped, "stopped while waiting for the brokers (" + message + ")"};
  return {run_status::unavailable, std::move(message)};
}

std::optional<std::string> run_session::broker_wait_ends(const broker_wait& w) {
  if (!established_ || !w.last.transient) return w.last.message;
  if (w.waited < config_.stall_timeout) return std::nullopt;
  stalled_ = true;
  return "the brokers have not answered for " + w.what + " for " + whole_seconds(w.waited) +
         " (the stall timeout, --stall-timeout-ms): " + w.last.message +
         std::string(restart_gets_new_clients);
}

committed_verdict run_session::judge(const committed_answer& a) {
  using kind = committed_verdict::kind;
  std::string behind;
  for (const auto& [p, at] : a.offsets) {
    if (std::optional<std::string> b = ledger_.behind(p, at)) {
      behind = std::move(*b);
      break;
    }
  }
  if (behind.empty()) {
    behind_warned_.reset();
    return {kind::take, {}};
  }
  if (a.stop_requested)
    return {kind::end, behind + "; stopped while waiting for the coordinator to catch up"};
  if (a.waited >= config_.stall_timeout) {
    stalled_ = true;
    behind_warned_.reset();
    return {
        kind::end,
        behind + " for " + whole_seconds(a.waited) +
            " (the stall timeout, --stall-timeout-ms): the brokers have not written that commit's markers, "
            "or skipped them (seen after a broker restart); stopping so that a restart settles it: its "
            "init_transactions waits until the brokers complete or abort this transactional id's last "
            "transaction, and it then resumes from the offsets the coordinator answers"};
  }
  // A wait that began after the last warning (waited is smaller) warns at once.
  if (behind_warned_ && a.waited >= *behind_warned_ && a.waited - *behind_warned_ < std::chrono::seconds(30))
    return {kind::ask_again, {}};
  behind_warned_ = a.waited;
  return {kind::ask_again, behind + " (for " + whole_seconds(a.waited) +
                               "); not reprocessing from there (it would duplicate output): asking again "
                               "every second, up to the stall timeout (--stall-timeout-ms)"};
}

// ---- close --------------------------------------------------------------------------

action run_session::close(std::optional<ending> failure, std::string warning) {
  action a;
  a.kind = act::close;
  a.warning = std::move(warning);
  // A revocation whose transaction was ending: librdkafka 2.0.2 cannot
  // close the consumer before it is acknowledged (consumer_close never
  // returns), so the driver gives the partitions up first.
  if (revoking_) {
    a.partitions = *revoking_;
    for (partition_id p : *revoking_) ledger_.give_up(p);
    revoking_.reset();
  }
  // Leaving the group explicitly moves the partitions at once, not after
  // the session timeout; a terminal stop does not wait for it. A member
  // that never got partitions does not leave either: its LeaveGroup would
  // queue behind its own JoinGroup, which the coordinator holds until the
  // rebalance completes (for as long as a departed member's session lasts,
  // 45 s by default). A graceful stop waits a little for that assignment
  // first (handle(stop_seen)); one that does not come is left to the
  // member's session (docs/operations.md, "Stopping"). Nor does a stalled
  // run leave: its coordinator stopped answering, and LeaveGroup would
  // wait for it too.
  a.leave_group = running_ && established_ && !stalled_ && stop_.leaves_group(facts_);
  if (failure) {
    ending_ = std::move(failure);
  } else if (refusal_) {
    ending_ = std::move(refusal_);
  } else if (invalid_) {
    ending e;
    e.status = run_status::invalid_record;
    e.message = "invalid record at " + invalid_->describe() + " [" + invalid_->error.code +
                "]; the records before it are committed. Fix the producer, then skip the record once every "
                "instance is stopped: streamt offsets skip " +
                config_.application_id + " " +
                engine::position(invalid_->topic, invalid_->partition, invalid_->offset) +
                " --bootstrap-servers HOSTS";
    e.invalid = invalid_;
    ending_ = std::move(e);
  } else {
    ending_ = ending{};
  }
  closed_ = true;
  return emit(std::move(a));
}

ending run_session::outcome() const {
  ending e = ending_.value_or(ending{});
  // What counts is the producer's fatal error, if it has one, whatever the
  // last step said (a stop signal, the brokers gone).
  if (!producer_failure_.empty() && e.status == run_status::stopped) {
    e.status = run_status::failed;
    e.message = producer_failure_;
  }
  return e;
}

}  // namespace streamt::engine::session
