// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The run's decisions, start-up included, sans-io (in the manner of Boost.MySQL's
// connection algorithms): `session.on(event) -> action`. It never touches
// Kafka, a clock or a thread; the driver in engine/driver/ performs
// each action against kafka/ and feeds the outcome back as the next event:
//
//     action a = s.on(starting{});
//     for (;;) {
//       if (s.stop_news(facts) != stop_news::none) a = s.on(stop_seen{facts});
//       if (a.kind == act::close) break;
//       a = s.on(perform(a));
//     }
//
// Its parts, each with its own tests (test/unit/session/):
//   start_up          the start-up's steps, waits and refusals
//   commit::machine   the transactional commit (engine/commit_machine.hpp)
//   offset_ledger     owned partitions, next and committed offsets, went back
//   sink_tracker      generations, unproducible records, the aborted tail
//   stop_policy       graceful, terminal, deadline, start-up
//   position_policy   where an assigned partition starts; consumer errors
// What it adds on top of them is the protocol between them: a transaction's
// pace (commit interval, record bound), the invalid-record stop (commit what
// is before it, stop; redo if that transaction was aborted) or, with a
// dead-letter topic, the invalid record written there inside the
// transaction and the batch taken up again after it, revocations
// (end the transaction before giving partitions up), the sliced commit and
// abort calls, and how the run ends: session.cpp holds the protocol of a
// running session, session_ending.cpp how it ends (stop signals, the
// invalid-record stop, refusals, stalls, close and the outcome),
// session_refusals.cpp what it does when a topic written says no (a refused
// record found by halving its transaction, the bound on aborts that repeat
// one failure, the refused record's reason), session_schemas.cpp what it
// does when a record of an Avro source names a writer schema the stages do
// not know (ask the registry, wait out its outage, refuse its refusals).
// Beside the session, across the driver's attempts: restart_policy
// (restart_policy.hpp), whether an attempt that ended is restarted
// in-process.
//
// The events that are notes (the delivery-report coroutine's facts, one per
// record produced) go to sink_tracker through sink(), and producer_fatal():
// they ask nothing, and the next event sees them.

#include "engine/commit_machine.hpp"
#include "engine/process_batch.hpp"
#include "engine/record.hpp"
#include "engine/run_counters.hpp"
#include "engine/run_defaults.hpp"
#include "engine/run_status.hpp"
#include "engine/session/action.hpp"
#include "engine/session/backoff.hpp"
#include "engine/session/failure.hpp"
#include "engine/session/offset_ledger.hpp"
#include "engine/session/positions.hpp"
#include "engine/session/sink_tracker.hpp"
#include "engine/session/start_up.hpp"
#include "engine/session/stop_policy.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace streamt::engine::session {

struct config {
  std::string application_id;
  std::string source_topic;
  // Every topic the run writes but the dead-letter topic: the plan's sink
  // topics, then its unrouted topic if it has one (engine::topics_written).
  // Start-up needs each, a stall checks each is still there, and the sink
  // tracker's topic indexes are into this list.
  std::vector<std::string> sink_topics;
  std::chrono::milliseconds commit_interval = defaults::commit_interval;
  std::size_t max_records_per_transaction = defaults::max_records_per_transaction;
  std::size_t max_poll = 1000;  // records asked of one poll
  // commit_transaction and abort_transaction are called in slices of
  // call_slice, so that the stop deadline is seen while one hangs. A slice
  // that ends with the call under way is not an outcome until the call has
  // taken as long as librdkafka itself would give it (the remaining
  // transaction timeout, 60 s by default): then the timeout is one, an
  // unknown outcome the machine retries and counts.
  std::chrono::milliseconds call_slice{1000};
  std::chrono::milliseconds whole_call_limit{60000};
  // run_options::stall_timeout: how long a running engine waits for one
  // answer from its brokers (an offsets query, a commit's or an abort's
  // outcome) before the run fails. Before the bound, a run whose committed
  // offsets a hanging transaction held unstable (tools/faults broker_pause)
  // waited in silence for as long as it ran.
  std::chrono::milliseconds stall_timeout = defaults::stall_timeout;
  // How long the topic list a stall asks for may take (stalled()).
  std::chrono::milliseconds stall_check{5000};
  // run_options::stop_timeout, for the line that says it passed (the timer
  // is async_run's; the session hears of it as stop_facts::deadline).
  std::chrono::milliseconds stop_timeout = defaults::stop_timeout;
  // How long a graceful stop that came between subscribing and the first
  // assignment waits for that assignment (never past stop_timeout's
  // deadline): a member can leave its group cleanly only once it has one
  // (handle(stop_seen)). A fresh or stable group assigns within a tenth of
  // a second; one that waits for a departed member's session does not, and
  // the stop then ends without leaving, as before this wait.
  std::chrono::milliseconds first_assignment_wait{5000};
  // How often the transaction before an invalid record may be aborted and
  // redone before the run fails.
  int max_redos = 5;
  // How many transactions may abort in a row (none committed between, each
  // after a longer pause: commit::machine) for a cause that is a record's or
  // the client's before the run fails (exit 75). A cause that is the
  // brokers' (a sink topic that is gone, brokers not answering) is a stall
  // instead, bounded by stall_timeout (exit 69).
  int max_aborts_in_a_row = 10;
  // The plan's on_invalid dead-letter: an invalid (or unproducible) record
  // goes to this topic in the open transaction instead of stopping the run.
  // Empty: the run stops at it.
  std::string dead_letter_topic{};
  // At most one log line per this long about dead-lettered records (the
  // count of the others is in the next line and in the metrics): a topic
  // full of bad records must not flood the log.
  std::chrono::milliseconds dead_letter_log_interval{1000};
  commit::policy commit_policy;
  // How long a wait for the Schema Registry pauses between attempts
  // (backoff.hpp; --registry-config's
  // streamt.registry.backoff.*). The wait as a whole is bounded by
  // stall_timeout, as a wait for the brokers is.
  backoff_policy registry_backoff{};
  // How long the registry's word that it has no schema with an id
  // (unknown_schema_id) stands: records with that id meanwhile are judged
  // without asking again (one request per record is what a topic full of
  // them would otherwise cost), and the first after it asks again (a
  // registry whose replica had not yet seen a new schema answers it then).
  std::chrono::milliseconds unknown_schema_ttl{60000};
  // How the run starts (start_up.hpp); the names above are copied into it.
  start_config start;
};

// ---- events ----------------------------------------------------------------

// The run begins: the session answers with the first start-up step
// (start_up.hpp, whose events follow this one in `event`).
struct starting {};
// The start-up is over (subscribed): records may come. The session feeds it
// to itself; a test starts a session here, past the start-up.
struct started {};
struct stop_seen {
  stop_facts facts;
  clock::time_point now{};  // when the driver saw it: a stop's own waits start then
};
// A polled batch with records; the views stay valid until the next poll.
struct records_arrived {
  std::span<const record_view> batch;
  clock::time_point now;
};
// The produce action's records went through the stages into the producer.
struct batch_produced {
  batch_result result;  // handled records, and the invalid one if any
  record_counts counts;
  clock::time_point now;
};
// The poll's commit_at passed with nothing new: the open transaction's
// commit interval ended, or a stop's wait for the first assignment did.
struct commit_due {};
struct began {
  failure result;
  clock::time_point now;
};
struct flushed {
  failure result;
};
struct offsets_sent {
  failure result;
};
// One slice of commit_transaction / abort_transaction returned.
struct commit_returned {
  failure result;
  clock::time_point called;  // when this slice was called
  clock::time_point now;     // when it returned
};
struct abort_returned {
  failure result;
  clock::time_point called;
  clock::time_point now;
};
struct rewound {
  failure result;
  // The wait for the brokers was ended by a stop signal, not by a failure.
  bool cut_short_by_stop = false;
  // Where each partition was sought to (those with a committed offset).
  std::map<partition_id, offset> positions{};
};
struct retry_elapsed {};
// The dead_letter action's record went to the producer (or was refused at
// once: the sink tracker has the error).
struct dead_lettered {
  clock::time_point now;
};
// The registry's answer to fetch_schema (schema_answer, action.hpp).
struct schema_answered {
  std::uint32_t id = 0;
  schema_answer answer = schema_answer::found;
  std::string text;           // found: the writer schema
  std::string type = "AVRO";  // found: its type, as the registry names it (AVRO, JSON, PROTOBUF)
  std::string message;        // otherwise: what failed, naming the registry (never a credential)
  clock::time_point now{};
  // A number in [0, 1) from the driver's random source, for the backoff's
  // spread (backoff_delay).
  double jitter = 0.0;
};
// The learn_schema action's schema is in the stages: the batch in hand is
// taken up again at the record that waited for it.
struct schema_learnt {};
struct revoked {
  std::vector<partition_id> partitions;
  bool lost = false;  // another member may own them already
};
struct given_up {
  failure result;
};
struct assigned {
  std::vector<partition_id> partitions;
  // Where the consumer starts each one, when it is a known offset (not
  // "the beginning").
  std::map<partition_id, offset> positions{};
};
// The driver found the run cannot go on (a failed poll, a consumer error,
// unreachable brokers).
struct run_failed {
  run_status status = run_status::failed;
  std::string message;
};

// A client call failed in a way no retry mends (a failed poll, an
// assignment the consumer would not take): the run fails (exit 75).
struct client_failed {
  std::string message;
};

// A running engine's wait for one answer from its brokers, asked again
// until it gets one or run_session::broker_wait_ends() says the run fails.
struct broker_wait {
  std::string what;          // "the committed offsets", "the offsets of T/P"
  clock::duration waited{};  // since the wait began
  failure last;              // the last unanswered attempt's error
};

// The group coordinator's committed offsets for partitions being taken or
// rewound (nullopt: none), `waited` after the driver first asked for them,
// and whether a stop signal came meanwhile (the driver's record of one).
struct committed_answer {
  std::map<partition_id, std::optional<offset>> offsets;
  clock::duration waited{};
  bool stop_requested = false;
};

// What the driver does with a committed_answer (run_session::judge).
struct committed_verdict {
  enum class kind {
    take,       // start there
    ask_again,  // in a second: the coordinator is behind this process
    end,        // the run ends, `line` says why
  };
  kind what = kind::take;
  // ask_again: a warning to log (at most one every 30 s, else empty);
  // end: the message the run fails (or stops) with.
  std::string line;
};

// The driver refused partitions it was assigned (a committed position out
// of range, a plan that may not take them over), after acknowledging them
// at their end so that nothing of them is consumed. Unlike a run that
// fails before its first assignment, this member holds an assignment: its
// LeaveGroup queues behind nothing, and leaving moves the partitions to the
// other members at once instead of after the session timeout (45 s by
// default), which a fleet being updated would spend waiting.
struct assignment_refused {
  run_status status = run_status::rejected_config;
  std::string message;
};

using event = std::variant<starting, prepared, topics_listed, steps_done, state_committed, subscribed,
                           started, stop_seen, records_arrived, batch_produced, commit_due, began, flushed,
                           offsets_sent, commit_returned, abort_returned, rewound, retry_elapsed, revoked,
                           given_up, assigned, run_failed, client_failed, assignment_refused, dead_lettered,
                           schema_answered, schema_learnt, sink_schema_registered>;

// ---- actions ---------------------------------------------------------------

// The run's counters so far (engine/run_counters.hpp), and what only the
// session sees.
struct progress : run_counters {
  // Records the consumer handed over that were not this process's to
  // process (offset_ledger::current), dropped unprocessed.
  std::uint64_t stale_dropped = 0;
};

// A wait for the Schema Registry under way: the record at the head of the
// batch in hand needs writer schema `schema_id`, and the registry has not
// answered since `since`.
struct registry_wait {
  std::uint32_t schema_id = 0;
  clock::time_point since{};
  std::string reason;  // the last attempt's failure
};

// The start-up's settings, from the session's (the names, the stall timeout).
start_config start_of(const config& c);

class run_session {
 public:
  explicit run_session(config c);

  action on(const event& e);

  // The stop facts the session has not acted on yet (cheap: asked before
  // every action).
  stop_news stop_news_of(stop_facts f) const noexcept { return stop_.news(f); }
  const stop_policy& stop() const noexcept { return stop_; }
  // Whether the brokers answered once (partitions taken): from then on the
  // driver waits for them up to stall_timeout (broker_wait_ends).
  bool established() const noexcept { return established_; }
  bool closed() const noexcept { return closed_; }
  // How the run ended; valid once an action was close.
  ending outcome() const;
  progress counters() const;
  // The records of the transaction that last committed or aborted.
  const record_counts& last_transaction() const noexcept { return last_transaction_; }
  commit::machine::state commit_state() const noexcept { return machine_.current(); }

  const offset_ledger& ledger() const noexcept { return ledger_; }
  // This plan, as succession compares it with each partition's lineage
  // (known once the start-up's prepare step reported it).
  const our_plan& plan() const noexcept { return start_.plan(); }
  // The records in hand, as the produce action means them: the last
  // records_arrived batch less those offset_ledger::current dropped.
  std::span<const record_view> batch() const noexcept { return batch_; }
  // Whether the run waits for the Schema Registry (for /readyz and the
  // wait's metric): from the first failed attempt until the schema came or
  // the run ended.
  std::optional<registry_wait> waiting_for_registry() const;
  // For the notes: the producer adapter announces each record and its
  // immediate refusals, the delivery-report coroutine its reports.
  sink_tracker& sink() noexcept { return sink_; }
  const sink_tracker& sink() const noexcept { return sink_; }
  // The producer reported a fatal error: whatever the run's last step says,
  // it failed (a transactional call returns the error too, and stops it).
  void producer_fatal(std::string message);
  // Whether a wait for the brokers goes on (nullopt: ask again) or ends,
  // with the message the run fails with. Before partitions were first taken
  // it always ends (--connect-timeout-ms bounded the call); a permanent
  // error ends it; a transient one is asked again until stall_timeout has
  // passed. The driver feeds a run_failed with the message; a stall ends
  // the run without leaving the group (the coordinator is one of the
  // brokers that stopped answering: LeaveGroup would wait for it too).
  std::optional<std::string> broker_wait_ends(const broker_wait& w);
  // Whether the driver may start from the committed offsets the group
  // coordinator answered: not while one is behind an offset this process
  // committed (offset_ledger::behind; resuming there would replay records
  // whose output committed). After a single broker was killed and
  // restarted, the coordinator has answered that way for minutes while the
  // brokers wrote the last commit's markers late, and for good when they
  // skipped them (tools/faults broker_kill; docs/operations.md, "A commit
  // the brokers lost"). So the driver asks again, once a second, up to
  // stall_timeout; then the run ends without leaving the group (exit 69 or
  // 75), and the restarted engine's init_transactions settles this
  // transactional id's last transaction before it reads the offsets again.
  // A stop while waiting ends the run cleanly: nothing is open then.
  committed_verdict judge(const committed_answer& a);
  // A query the brokers did not answer (`message` says which): exit 69,
  // unless a stop signal cut the wait short (`stop_requested`: the driver's
  // record of one the session may not have heard yet), which is a clean
  // stop once the run is established.
  run_failed unanswered(std::string message, bool stop_requested) const;

 private:
  action handle(const starting&);
  // Each start-up event goes to the start-up part (start_up.hpp).
  template <class E>
  requires requires(start_up& s, const E& e) { s.on(e); }
  action handle(const E& e) { return from_start(start_.on(e)); }
  action handle(const topics_listed& e);
  action ask_for_topics(std::string warning);
  action from_start(start_step s);
  action stopped_starting();
  action first_assignment_missed();
  action handle(const started&);
  action handle(const stop_seen&);
  action handle(const records_arrived&);
  action handle(const batch_produced&);
  action handle(const commit_due&);
  action handle(const began&);
  action handle(const flushed&);
  action handle(const offsets_sent&);
  action handle(const commit_returned&);
  action handle(const abort_returned&);
  action handle(const rewound&);
  action handle(const retry_elapsed&);
  action handle(const revoked&);
  action handle(const given_up&);
  action handle(const assigned&);
  action handle(const run_failed&);
  action handle(const client_failed&);
  action handle(const assignment_refused&);
  action handle(const dead_lettered&);
  action handle(const schema_answered&);
  action handle(const schema_learnt&);

  // The machine's answer, as the driver's next action.
  action follow(commit::next_action a, std::string warning = {});
  action after_flush(std::string warning);
  action rewind(std::string warning);
  std::optional<action> call_again(const failure& r, clock::time_point called, clock::time_point now,
                                   const commit::event& pending);
  action poll() const;
  action poll_or_commit(std::string warning);
  action close(std::optional<ending> failure, std::string warning = {});
  // The invalid-record stop, and follow()'s commit::action::done: the run
  // ends, or the transaction before the invalid record is redone.
  action stop_at_invalid(invalid_record r);
  action done(const std::string& reason, std::string warning);
  action emit(action a);
  bool due(clock::time_point now) const;
  std::size_t record_bound() const noexcept;
  std::string refusal_reason(const unproducible_record& u) const;
  bool narrow(const std::string& refusal, std::string& warning);
  bool still_under_way(const failure& e, clock::time_point now) const;
  std::optional<action> stalled(std::string_view call, const failure& r, clock::time_point now);
  std::optional<ending> abort_streak_over(clock::time_point now) const;
  std::uint64_t committed_total() const noexcept {
    return committed_base_ + machine_.transactions_committed();
  }

  config config_;
  start_up start_;
  commit::machine machine_;
  offset_ledger ledger_;
  sink_tracker sink_;
  stop_policy stop_;
  stop_facts facts_;  // the last ones seen

  bool running_ = false;      // started: subscribed to the source topic
  bool established_ = false;  // partitions were taken once
  // A graceful stop that came between subscribing and the first
  // assignment waits for that assignment until then, so that the member
  // can leave (see handle(stop_seen)).
  std::optional<clock::time_point> first_assignment_due_;
  bool closed_ = false;
  std::optional<ending> ending_;
  // A refused assignment that waits for the open transaction's abort.
  std::optional<ending> refusal_;
  std::string producer_failure_;

  action last_;  // the action in hand (the machine's `wait` repeats it)
  // The batch in hand, from records_arrived until batch_produced.
  std::span<const record_view> batch_;
  std::optional<invalid_record> refused_;  // the unproducible record in the batch in hand
  // That record's output is a dead-letter write the dead-letter topic
  // refused for good: it cannot go there either, so the run stops at it.
  bool refused_dead_letter_ = false;
  // Dead-lettered records not yet named in a log line, and when the last
  // line was (config::dead_letter_log_interval).
  std::uint64_t dead_letters_unlogged_ = 0;
  std::optional<clock::time_point> dead_letter_logged_;
  // The first authorisation refusal a call met (ACLs): the run ends with
  // exit 69 once nothing is open, instead of aborting and retrying a
  // transaction the brokers will refuse every time.
  std::string not_authorised_;
  void note_refusal(const failure& e);
  // Waits for writer schemas (session_schemas.cpp).
  action fetch_schema(std::uint32_t id);
  action retry_schema(std::string warning);
  action end_run_at(ending e, std::string warning);
  std::string waiting_record() const;
  struct schema_fetch {
    std::uint32_t id = 0;
    std::optional<clock::time_point> failing_since;  // the first failed attempt's answer
    unsigned failures = 0;
    std::string last;                    // the last failure's message
    std::chrono::milliseconds delay{0};  // before the next attempt
  };
  // The schema the batch in hand waits for, from the fetch until learnt.
  std::optional<schema_fetch> schema_fetch_;
  // The retry_after in hand is the wait before fetching again.
  bool schema_retry_due_ = false;
  // The ids the registry said it had no schema for, and when it said so
  // (config::unknown_schema_ttl); at most max_unknown_ids, as the stages
  // keep at most so many ids.
  std::map<std::uint32_t, clock::time_point> unknown_ids_;
  static constexpr std::size_t max_unknown_ids = 1000;
  // When the batch in hand arrived: the ids whose word is older then are
  // forgotten, one forget_schema at a time, before it is processed.
  std::optional<clock::time_point> forgetting_at_;
  std::optional<action> forget_aged_schema(std::string warning);
  action close_refused(std::string warning);
  void forget_transaction();
  // Finding a record the sink refused without saying which (narrow()):
  // transactions of at most `at_most` records, until `left` more records
  // have committed.
  struct isolation {
    std::size_t at_most = 1;
    std::size_t left = 0;
  };
  std::optional<isolation> isolating_;
  // The open transaction's pace.
  clock::time_point txn_started_{};
  std::size_t txn_records_ = 0;
  // Partitions of a revocation whose transaction is ending, not yet given up.
  std::optional<std::vector<partition_id>> revoking_;
  // The invalid-record stop.
  std::optional<invalid_record> invalid_;
  std::uint64_t committed_before_invalid_ = 0;
  int redos_ = 0;
  bool redo_rewind_ = false;          // the rewind under way starts a redo
  std::uint64_t committed_base_ = 0;  // of machines replaced at a redo
  std::uint64_t aborted_base_ = 0;
  // The commit or abort call under way (it may take several slices).
  std::optional<clock::time_point> call_began_;
  // When the commit's (or abort's) first call began, kept across its
  // unknown-outcome retries until the call has an outcome: the stall bound.
  std::optional<clock::time_point> outcome_wait_began_;
  // The brokers stopped answering (stall_timeout): the run ends without
  // LeaveGroup.
  bool stalled_ = false;
  // When judge() last warned that the coordinator is behind (the time
  // waited then); reset once an answer is taken.
  std::optional<clock::duration> behind_warned_;
  // The ending of a stalled commit or abort, until the topic list says
  // whether a topic written is gone.
  std::optional<ending> stall_;
  // When the first abort of the current streak (machine::aborts_in_a_row)
  // was called.
  std::optional<clock::time_point> abort_streak_began_;

  record_counts counts_;
  record_counts txn_counts_;
  record_counts last_transaction_;
  std::uint64_t commit_retries_ = 0;
  std::uint64_t retries_ = 0;
  std::uint64_t rewinds_ = 0;
  std::uint64_t stale_dropped_ = 0;
  std::vector<record_view> kept_;  // offset_ledger::current's copy, reused
};

}  // namespace streamt::engine::session
