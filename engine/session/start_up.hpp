// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// How a run starts, step by step, sans-io like the rest of the session
// (test/unit/session/start_up_tests.cpp). The driver performs each step and
// reports what came of it; this part decides what comes next, how long a
// wait for the brokers may last, and which status a refused start ends with:
//
//   prepare            settings checked, the state directory admitted, the
//                      clients made (nothing reaches a broker)
//   register_schema    an Avro sink's schema registered under its subject
//                      (or, with --no-register, found there): its id frames
//                      every output. An outage is waited out (backoff.hpp)
//                      up to --connect-timeout-ms; a refusal ends the start
//   list_topics        in slices, until the brokers answer or
//                      --connect-timeout-ms has passed
//   then two branches at the same time (act::together, one round after
//   another; a round ends when each of its steps has):
//     the producer     cap_batches (batch.size capped to the topics'
//                      max.message.bytes; the source's cleanup.policy
//                      read too: a compacted source is refused unless the
//                      plan chose a changelog), then init_transactions in
//                      slices: a stop is seen within one, and once the
//                      brokers have answered the start waits for them as a
//                      running engine does, up to --stall-timeout-ms
//     the plan log     created (unless the topic list names it), read,
//                      claimed, and read again unless the claim landed
//                      where the read ended (claims.hpp); a few rounds at
//                      most. Each call in slices too: one the brokers do
//                      not answer is asked again, up to --stall-timeout-ms
//   commit_state       the state directory written, now that Kafka admitted
//                      the start (both branches done)
//   subscribe          the group joined: the run begins
//
// The branches do not depend on each other (the plan log has clients and a
// thread of its own), and the topic list comes first: no plan log is
// created for a start whose topics are missing, and no step of a branch
// waits on brokers that have not answered. A stop signal at any step ends
// the start there, cleanly: nothing is under way between two rounds,
// nothing is open and no group was joined (run_session::handle(stop_seen));
// where() names the steps for the line that says so.

#include "engine/session/action.hpp"
#include "engine/session/backoff.hpp"
#include "engine/session/claims.hpp"
#include "engine/session/failure.hpp"
#include "engine/session/succession.hpp"
#include "plan/plan.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace streamt::engine::session {

struct start_config {
  std::string application_id;
  std::string source_topic;
  std::vector<std::string> sink_topics;  // config::sink_topics
  std::string dead_letter_topic;         // empty: the plan stops at an invalid record
  std::string bootstrap_servers;         // for the messages
  std::chrono::milliseconds connect_timeout{30000};
  std::chrono::milliseconds stall_timeout{300000};
  std::chrono::milliseconds commit_interval{100};
  // The longest a start-up call blocks, so that a stop is seen between two.
  std::chrono::milliseconds call_slice{1000};
  bool cap_batches = true;
  bool claim_plans = true;
  // Rounds of claim-and-read before giving up (each lost round means
  // another instance's claim came first, decided against in the next).
  int max_claim_rounds = 5;
  // What the plan says its source is (plan::schema::changelog; unset: it
  // did not say), and the plan's version, for the refusal of a compacted
  // source and what it tells to do.
  std::optional<plan::changelog> changelog;
  int plan_version = plan::oldest_plan_version;
  // An Avro sink: the subject its schema is registered under (empty: the
  // sink is JSON), whether the start registers it (false: it must be there
  // already, --no-register), and the pause between attempts while the
  // registry does not answer.
  std::string sink_schema_subject;
  bool register_sink_schema = true;
  backoff_policy registry_backoff{};
};

// ---- events ----------------------------------------------------------------

// What the local checks found before any broker was asked. A refusal names
// what was refused; the session chooses the status.
enum class start_refusal {
  none,
  settings,   // client settings, a secret reference, the lineage header, a client refused them
  state_dir,  // locked, unreadable, unwritable
  identity,   // the state directory belongs to another application, or its output changed
};
struct prepared {
  start_refusal refused = start_refusal::none;
  std::string message;  // what was refused, and what to do
  our_plan plan;        // with the state directory's last plan
  std::string instance_id;
  // The producer's transaction.timeout.ms (0: not known).
  std::chrono::milliseconds transaction_timeout{0};
};
struct topics_listed {
  std::optional<std::set<std::string>> names;  // nullopt: not answered (`error` says why)
  failure error;
  clock::time_point called;
  clock::time_point now;
};
struct batches_capped {
  std::string refused;  // a producer with the capped batch.size could not be made: why
  // The source topic's cleanup.policy as the brokers describe it; nullopt:
  // not read, `source_error` saying why (empty: not asked).
  std::optional<std::string> source_cleanup_policy{};
  std::string source_error{};
};
struct transactions_initialised {
  failure result;
  clock::time_point called;
  clock::time_point now;
};
// The plan log's steps each ask the brokers for at most one slice
// (action::slice): `called` and `now` bound the wait for an answer.
struct plan_log_created {
  failure result;
  bool created = false;  // by this call: the log is empty, and needs no read
  clock::time_point called{};
  clock::time_point now{};
};
struct plan_log_read {
  std::optional<std::vector<log_record>> log;  // nullopt: `error` says why
  failure error;
  std::int64_t end = 0;  // the offset the log was read to
  clock::time_point called{};
  clock::time_point now{};
};
struct claim_appended {
  std::optional<std::int64_t> at;  // the claim's offset; nullopt: `error` says why
  failure error;
  clock::time_point called{};
  clock::time_point now{};
};
// The outcomes of one act::together round, in the order of its steps.
using step_outcome =
    std::variant<batches_capped, transactions_initialised, plan_log_created, plan_log_read, claim_appended>;
struct steps_done {
  std::vector<step_outcome> outcomes;
};
// The register_schema step's answer: the sink schema's id, or why not.
struct sink_schema_registered {
  std::optional<std::uint32_t> id;
  schema_answer answer = schema_answer::found;
  std::string message;  // unless found: what failed, naming the registry (never a credential)
  clock::time_point called{};
  clock::time_point now{};
  double jitter = 0.0;  // in [0, 1), the backoff's spread
};
struct state_committed {
  std::string error;  // empty: written
};
struct subscribed {
  failure result;
};

// ---- the part ----------------------------------------------------------------

// What a start-up event leads to: the next action, or the end of the run
// (`end`, with `next` the close), or the run itself (`running`).
struct start_step {
  action next;
  std::optional<ending> end;
  bool running = false;
};

class start_up {
 public:
  explicit start_up(start_config c);

  start_step begin();
  start_step on(const prepared& e);
  start_step on(const sink_schema_registered& e);
  start_step on(const topics_listed& e);
  start_step waited();  // the pause between two topic lists ended
  start_step on(const steps_done& e);
  start_step on(const state_committed& e);
  start_step on(const subscribed& e);

  // The steps under way, for the line a stop during start-up gets.
  std::string where() const;
  // This plan and instance, once prepared: what succession compares each
  // partition's lineage with.
  const our_plan& plan() const noexcept { return plan_; }
  const std::string& instance_id() const noexcept { return instance_id_; }

 private:
  enum class phase {
    preparing,
    registering,
    registry_pause,
    listing,
    pausing,
    branches,  // the producer's and the plan log's steps (act::together)
    committing,
    subscribing,
    done,
  };
  enum class producer_step { capping, initialising, ready };
  enum class log_step { creating, reading, appending, ready };

  // What one outcome means for its branch: its next step, none (the branch
  // is done, `info` its line), or the end of the start.
  struct branch_step {
    std::optional<action> next{};
    std::optional<ending> end{};
    std::string info{};
  };

  start_step register_sink_schema();
  start_step list_topics();
  start_step branches(bool log_listed);
  start_step commit_state();
  start_step ask(act kind);
  start_step fail(run_status s, std::string message);
  std::optional<std::string> refusal(const failure& e, std::string_view call) const;

  // The producer's branch.
  branch_step step(const batches_capped& e);
  std::optional<std::string> compacted_source(const batches_capped& e) const;
  branch_step step(const transactions_initialised& e);
  action init_transactions(std::string warning = {});
  // The plan log's branch.
  branch_step step(const plan_log_created& e);
  branch_step step(const plan_log_read& e);
  branch_step step(const claim_appended& e);
  action read_log();
  action log_step_action(act kind);
  std::optional<branch_step> unanswered(const failure& e, clock::time_point called, clock::time_point now,
                                        action again);

  start_config config_;
  std::string log_topic_;  // the plan log's (claims.hpp)
  phase phase_ = phase::preparing;
  producer_step producer_ = producer_step::capping;
  log_step log_ = log_step::creating;
  our_plan plan_;
  std::string instance_id_;
  std::chrono::milliseconds transaction_timeout_{0};
  // The first topic list was asked then: --connect-timeout-ms counts from it.
  std::optional<clock::time_point> listing_began_;
  // The sink schema's registration: its first unanswered attempt, and how
  // many there were.
  std::optional<clock::time_point> registry_unanswered_since_;
  unsigned registry_failures_ = 0;
  clock::time_point last_list_called_{};
  failure last_list_error_;
  // init_transactions: its first slice, and its last warning line.
  std::optional<clock::time_point> init_began_;
  std::optional<clock::time_point> init_warned_;
  // The plan log: creating it was refused (an administrator may have made
  // it), and the claim rounds so far.
  bool create_refused_ = false;
  std::string create_error_;
  int rounds_ = 0;
  // The plan log's brokers have not answered since then (a step asked again
  // each slice, up to --stall-timeout-ms), and the last line that said so.
  std::optional<clock::time_point> log_unanswered_since_;
  std::optional<clock::time_point> log_warned_;
  action pending_append_;         // the claim being appended, asked again if unanswered
  std::string pending_replaces_;  // the plan the claim being appended replaces
  std::int64_t read_end_ = 0;     // where the last read of the log ended
};

}  // namespace streamt::engine::session
