// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/start_up.hpp"

#include "engine/session/durations.hpp"
#include "engine/session/refusal.hpp"

#include <algorithm>
#include <utility>
#include <variant>

namespace streamt::engine::session {

namespace {

// A topic's ACL or the cluster's (CreateTopics) refused the plan log.
bool log_refused(const failure& e) {
  return e.refused == refused_resource::topic || e.refused == refused_resource::cluster;
}

// How often a start-up wait for the brokers says it still waits.
constexpr auto still_waiting_every = std::chrono::seconds(30);

// Whether a wait for the brokers that has lasted `waited` is worth a line
// now: from 5 s on, every 30 s (`warned` is when the last one was said).
bool say_still_waiting(clock::duration waited, clock::time_point now,
                       std::optional<clock::time_point>& warned) {
  if (waited < std::chrono::seconds(5) || (warned && now - *warned < still_waiting_every)) return false;
  warned = now;
  return true;
}

// That line: what the brokers have not done, for how long, and the bound.
std::string still_waiting_line(std::string_view not_done, clock::duration waited, const std::string& error,
                               clock::duration bound) {
  return "the brokers have not " + std::string(not_done) + " for " + whole_seconds(waited) + ": " + error +
         "; still waiting, up to " + whole_seconds(bound) + " (--stall-timeout-ms; stop it with SIGTERM)";
}

// A refused start: its status and its line, from parts.
template <class... Parts>
std::optional<ending> ends(run_status status, Parts&&... message) {
  return ending{status, (std::string() + ... + std::forward<Parts>(message)), {}};
}

}  // namespace

start_up::start_up(start_config c)
    : config_(std::move(c)), log_topic_(plan_log_topic(config_.application_id)) {}

start_step start_up::ask(act kind) {
  start_step s;
  s.next.kind = kind;
  return s;
}

start_step start_up::fail(run_status status, std::string message) {
  phase_ = phase::done;
  start_step s = ask(act::close);
  s.end = ending{status, std::move(message), {}};
  return s;
}

start_step start_up::begin() {
  phase_ = phase::preparing;
  return ask(act::prepare);
}

std::string start_up::where() const {
  switch (phase_) {
    case phase::preparing:
      return "before the brokers were asked anything";
    case phase::registering:
    case phase::registry_pause:
      return "while registering the sink's schema with the schema registry";
    case phase::listing:
    case phase::pausing:
      return "before the brokers answered";
    case phase::branches: {
      std::string producer;
      if (producer_ == producer_step::capping) producer = "reading the topics' limits";
      if (producer_ == producer_step::initialising) producer = "initialising transactions";
      const std::string log =
          log_ == log_step::ready ? std::string() : "claiming the application in its plan log";
      if (producer.empty()) return "while " + log;
      if (log.empty()) return "while " + producer;
      return "while " + producer + " and " + log;
    }
    case phase::committing:
    case phase::subscribing:
      return "before joining the group";
    case phase::done:
      return "at the end of start-up";
  }
  return "during start-up";
}

// ---- local checks --------------------------------------------------------------

start_step start_up::on(const prepared& e) {
  switch (e.refused) {
    case start_refusal::none:
      break;
    case start_refusal::settings:
    case start_refusal::identity:
      return fail(run_status::rejected_config, e.message);
    case start_refusal::state_dir:
      return fail(run_status::state_dir, e.message);
  }
  // A transaction stays open for the commit interval and then its commit;
  // the broker aborts one open past transaction.timeout.ms, and the next
  // call is refused as if another instance had fenced this one. Half leaves
  // the commit room under a slow broker.
  transaction_timeout_ = e.transaction_timeout;
  if (e.transaction_timeout.count() > 0 && config_.commit_interval * 2 > e.transaction_timeout)
    return fail(run_status::rejected_config,
                "--commit-interval-ms " + std::to_string(config_.commit_interval.count()) +
                    " leaves no room within transaction.timeout.ms " +
                    std::to_string(e.transaction_timeout.count()) +
                    ": the broker aborts a transaction open longer than that, and none would ever commit. "
                    "Give --commit-interval-ms at most half of it (" +
                    std::to_string(e.transaction_timeout.count() / 2) +
                    "), or raise -X transaction.timeout.ms (up to the brokers' transaction.max.timeout.ms, "
                    "900000 by default)");
  plan_ = e.plan;
  instance_id_ = e.instance_id;
  if (!config_.sink_schema_subject.empty()) return register_sink_schema();
  return list_topics();
}

// ---- an Avro sink's schema ----------------------------------------------------------

// Registering a schema the subject has already is idempotent (the registry
// answers its id), so every start registers: a restart after the subject's
// history was rewritten finds out at once, not at the first output.
start_step start_up::register_sink_schema() {
  phase_ = phase::registering;
  start_step s = ask(act::register_schema);
  s.next.subject = config_.sink_schema_subject;
  s.next.register_new = config_.register_sink_schema;
  return s;
}

start_step start_up::on(const sink_schema_registered& e) {
  const std::string& subject = config_.sink_schema_subject;
  switch (e.answer) {
    case schema_answer::found: {
      if (!e.id) return fail(run_status::failed, "the sink's schema was registered without an id: a bug");
      start_step s = list_topics();
      s.next.info = "the sink's schema is id " + std::to_string(*e.id) + " under subject '" + subject + "'";
      return s;
    }
    case schema_answer::misconfigured:
      return fail(run_status::rejected_config, "cannot register the sink's schema under subject '" + subject +
                                                   "': " + e.message +
                                                   "; fix --schema-registry or --registry-config");
    case schema_answer::refused:
    case schema_answer::unknown_id:
      return fail(run_status::rejected_config,
                  config_.register_sink_schema
                      ? "the schema registry refused the sink's schema under subject '" + subject +
                            "': " + e.message +
                            "; the subject's compatibility rules decide: register a compatible projection, "
                            "set the subject's compatibility, or write to another sink topic"
                      : "--no-register: subject '" + subject +
                            "' has no version that is the sink's schema (" + e.message +
                            "); register it (streamt explain shows it), or start without "
                            "--no-register");
    case schema_answer::unavailable:
    case schema_answer::cancelled:
      break;
  }
  if (!registry_unanswered_since_) registry_unanswered_since_ = e.called;
  if (e.now - *registry_unanswered_since_ >= config_.connect_timeout)
    return fail(run_status::unavailable, "the schema registry did not answer within --connect-timeout-ms (" +
                                             std::to_string(config_.connect_timeout.count()) +
                                             " ms) to register the sink's schema under "
                                             "subject '" +
                                             subject + "': " + e.message);
  phase_ = phase::registry_pause;
  start_step s = ask(act::retry_after);
  s.next.delay = backoff_delay(config_.registry_backoff, registry_failures_++, e.jitter);
  s.next.warning = "registering the sink's schema under subject '" + subject + "': " + e.message +
                   "; asking again in " + std::to_string(s.next.delay.count()) + " ms";
  return s;
}

// ---- the brokers' topics ----------------------------------------------------------

// Asked in slices of at most call_slice, so that a stop is seen between two
// (one blocking call for the whole --connect-timeout-ms could not be
// interrupted: a SIGTERM to an engine whose brokers are unreachable went
// unanswered for that long), until --connect-timeout-ms from the first.
start_step start_up::list_topics() {
  phase_ = phase::listing;
  start_step s = ask(act::list_topics);
  s.next.slice = config_.call_slice;
  return s;
}

start_step start_up::on(const topics_listed& e) {
  if (!listing_began_) listing_began_ = e.called;
  if (e.names) {
    std::vector<std::string> needed{config_.source_topic};
    needed.insert(needed.end(), config_.sink_topics.begin(), config_.sink_topics.end());
    if (!config_.dead_letter_topic.empty()) needed.push_back(config_.dead_letter_topic);
    for (const std::string& t : needed)
      if (!e.names->count(t))
        return fail(
            run_status::unavailable,
            // A broker with an authorizer leaves out of the topic list what
            // the principal may not Describe: the same answer as missing.
            "topic '" + t + "' does not exist on " + config_.bootstrap_servers +
                ", or this client's principal may not Describe it (brokers with ACLs list only what it may); "
                "streamt does not create topics: create it with the partitions and retention you want, or "
                "grant Describe on it");
    return branches(e.names->contains(log_topic_));
  }
  last_list_called_ = e.called;
  last_list_error_ = e.error;
  const clock::time_point deadline = *listing_began_ + config_.connect_timeout;
  if (e.now >= deadline)
    return fail(run_status::unavailable,
                // A refused TLS handshake or SASL login looks the same here
                // as an unreachable broker (librdkafka retries both); its
                // own error line above names the cause.
                "cannot reach the brokers at " + config_.bootstrap_servers + " within " +
                    std::to_string(config_.connect_timeout.count() / 1000) + " s: " + e.error.message +
                    "; check --bootstrap-servers, the network, and the TLS and SASL settings (a failed "
                    "certificate verification or authentication is logged above by librdkafka)");
  // A refusal that came back early waits out its slice (no busy loop), and
  // the next slice ends at the deadline at the latest.
  phase_ = phase::pausing;
  start_step s = ask(act::retry_after);
  const clock::time_point next = std::min(e.called + config_.call_slice, deadline);
  s.next.delay =
      std::max(std::chrono::milliseconds(0), std::chrono::ceil<std::chrono::milliseconds>(next - e.now));
  return s;
}

start_step start_up::waited() {
  if (phase_ == phase::registry_pause) return register_sink_schema();
  start_step s = list_topics();
  const clock::time_point deadline = *listing_began_ + config_.connect_timeout;
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(deadline - last_list_called_) - config_.call_slice;
  s.next.slice = std::clamp(left, std::chrono::milliseconds(1), config_.call_slice);
  return s;
}

// ---- the two branches -----------------------------------------------------------

// The producer's steps and the plan log's, at the same time: neither waits
// for the other, and the start is admitted when both are done. A log the
// topic list names exists (a restart, the common case), and is not created
// again.
start_step start_up::branches(bool log_listed) {
  phase_ = phase::branches;
  start_step s = ask(act::together);
  if (config_.cap_batches) {
    producer_ = producer_step::capping;
    action cap;
    cap.kind = act::cap_batches;
    s.next.steps.push_back(std::move(cap));
  } else {
    s.next.steps.push_back(init_transactions());
  }
  if (!config_.claim_plans) {
    log_ = log_step::ready;
  } else if (log_listed) {
    s.next.steps.push_back(read_log());
  } else {
    log_ = log_step::creating;
    s.next.steps.push_back(log_step_action(act::create_plan_log));
  }
  return s;
}

// One round's outcomes, each to its branch: the next round holds the
// branches' next steps; with none left, the start is admitted. A refusal in
// either branch ends the start (the other branch's step of the round is
// done too: nothing is left under way).
start_step start_up::on(const steps_done& e) {
  std::vector<action> next;
  std::string info;
  for (const step_outcome& o : e.outcomes) {
    branch_step b = std::visit([this](const auto& x) { return step(x); }, o);
    if (b.end) return fail(b.end->status, std::move(b.end->message));
    if (b.next) next.push_back(std::move(*b.next));
    if (!b.info.empty()) info = std::move(b.info);
  }
  start_step s = next.empty() ? commit_state() : ask(act::together);
  s.next.steps = std::move(next);
  s.next.info = std::move(info);
  return s;
}

// ---- the producer's branch -----------------------------------------------------------

// A compacted source is a table's changelog by key: its tombstones delete
// keys, and a later record of a key replaces the earlier. A plan that reads
// it as a stream drops the tombstones and, when a key's new value no longer
// passes, leaves its old row in the sink: the sink keeps keys the source
// deleted and rows the source changed. The plan must say which it means
// (plan::changelog); a version 1 plan cannot, and is refused too, the one
// case of a version 1 plan that ran before and is refused now.
std::optional<std::string> start_up::compacted_source(const batches_capped& e) const {
  if (config_.changelog || !e.source_cleanup_policy) return std::nullopt;
  if (e.source_cleanup_policy->find("compact") == std::string::npos) return std::nullopt;
  std::string line = "source topic '" + config_.source_topic +
                     "' is compacted (cleanup.policy=" + *e.source_cleanup_policy +
                     "), a table's changelog by key, and the plan does not say how to read it: as a stream, "
                     "its tombstones would be dropped and a key whose new value no longer passes the filter "
                     "would keep its old row, leaving deleted and stale keys in sink " +
                     topics_text(config_.sink_topics) + ". ";
  if (config_.plan_version < 2)
    return line +
           "This plan is version 1, which cannot say: to keep today's behaviour, recompile it with "
           "\"changelog\": \"append\" in the schema (or \"changelog\": \"upsert\" for table semantics), "
           "with --supersedes this plan so that the new one takes its partitions over";
  return line +
         "Declare \"changelog\": \"upsert\" in the schema for table semantics, or \"changelog\": "
         "\"append\" to keep treating it as a stream, and recompile (with --supersedes this plan if it "
         "ran before)";
}

start_up::branch_step start_up::step(const batches_capped& e) {
  if (std::optional<std::string> refused = compacted_source(e))
    return {.end = ends(run_status::rejected_config, std::move(*refused))};
  if (!e.refused.empty()) return {.end = ends(run_status::rejected_config, e.refused)};
  // Unread, the policy may be compact: said once, as the check is skipped.
  std::string warning;
  if (!e.source_cleanup_policy && !e.source_error.empty() && !config_.changelog)
    warning = "could not read the cleanup.policy of source topic '" + config_.source_topic + "' (" +
              e.source_error +
              "): if it is compacted, declare \"changelog\" in the schema, as a plan without one reads it as "
              "a stream, and deleted and stale keys stay in the sink (grant DescribeConfigs on the topic to "
              "have the engine check)";
  return {.next = init_transactions(std::move(warning))};
}

// init_transactions fences any older instance with our transactional id and
// resolves a transaction it left open, before anything is consumed. In
// slices: a slice that ends with the call under way returns a timeout, and
// the next call takes it up where it was (librdkafka's transactional calls
// resume after a timeout). The brokers answered the topic list, so a call
// that gets no answer is waited for as a running engine waits, up to
// --stall-timeout-ms: before the slices, one call waited 120 s and was
// tried five times, whatever the user had set, and a stop was not seen
// until it returned.
action start_up::init_transactions(std::string warning) {
  producer_ = producer_step::initialising;
  action a;
  a.kind = act::init_transactions;
  a.slice = config_.call_slice;
  a.warning = std::move(warning);
  return a;
}

std::optional<std::string> start_up::refusal(const failure& e, std::string_view call) const {
  return refusal_line(e.refused, std::string(call) + ": " + e.message, config_.source_topic,
                      config_.sink_topics, config_.application_id);
}

start_up::branch_step start_up::step(const transactions_initialised& e) {
  if (!init_began_) init_began_ = e.called;
  if (!e.result.failed()) {
    producer_ = producer_step::ready;
    return {};
  }
  if (e.result.transaction_timeout_refused)
    return {.end =
                ends(run_status::rejected_config, "the brokers refuse transaction.timeout.ms ",
                     std::to_string(transaction_timeout_.count()), " (init_transactions: ", e.result.message,
                     "): it must be at most the brokers' transaction.max.timeout.ms (900000 by default); "
                     "lower -X transaction.timeout.ms")};
  if (std::optional<std::string> line = refusal(e.result, "init_transactions"))
    return {.end = ends(run_status::unavailable, std::move(*line))};
  const bool no_answer = e.result.timed_out || e.result.what == condition::retriable;
  if (!no_answer)
    return {.end = ends(run_status::unavailable,
                        "the broker refused transactions (init_transactions: ", e.result.message,
                        "); exactly-once needs a broker with transactions enabled and "
                        "transaction.state.log.min.isr satisfiable")};
  const clock::duration waited = e.now - *init_began_;
  if (waited >= config_.stall_timeout)
    return {.end = ends(run_status::unavailable, "the brokers have not completed init_transactions for ",
                        whole_seconds(waited), " (the stall timeout, --stall-timeout-ms): ", e.result.message,
                        "; check that the brokers are up and that the transaction coordinator (the leader "
                        "of the __transaction_state partition of this transactional id) is available")};
  // A slice that ended with the call under way is no news; a wait that
  // lasts is, every 30 s, and so is a retriable error of the brokers'.
  if (!e.result.timed_out) {
    init_warned_ = e.now;
    return {.next = init_transactions("init_transactions: " + e.result.message + " (retrying)")};
  }
  std::string warning;
  if (say_still_waiting(waited, e.now, init_warned_))
    warning =
        still_waiting_line("completed init_transactions", waited, e.result.message, config_.stall_timeout);
  return {.next = init_transactions(std::move(warning))};
}

// ---- the plan log's branch ---------------------------------------------------------------

// Before anything is consumed, this plan must hold the application id in
// its plan log (claims.hpp): read the log to its end, and write a claim
// where succession allows one, then read it again, until this plan stands
// or is refused. A few rounds at most: each lost round means another
// instance's claim came first, and the next round decides against it.

namespace {
std::string grant_log(const std::string& topic) {
  return ". Grant its principal Read, Write and Describe on topic '" + topic +
         "', and Create on it unless an administrator creates it (1 partition, retention.ms=-1)";
}
}  // namespace

// A plan log step for one slice.
action start_up::log_step_action(act kind) {
  action a;
  a.kind = kind;
  a.topic = log_topic_;
  a.slice = config_.call_slice;
  return a;
}

// A plan log call the brokers did not answer within its slice (they
// answered the topic list a moment ago): asked again, as init_transactions
// is, until --stall-timeout-ms from the first unanswered one. One call
// bounded by --connect-timeout-ms instead kept a stop waiting that long, and
// a round ends only when its every step has.
std::optional<start_up::branch_step> start_up::unanswered(const failure& e, clock::time_point called,
                                                          clock::time_point now, action again) {
  if (!e.failed()) {
    log_unanswered_since_.reset();
    return std::nullopt;
  }
  if (!e.timed_out && !e.transient) return std::nullopt;
  if (!log_unanswered_since_) log_unanswered_since_ = called;
  const clock::duration waited = now - *log_unanswered_since_;
  if (waited >= config_.stall_timeout)
    return branch_step{.end = ends(run_status::unavailable, "the brokers have not answered for the plan log ",
                                   log_topic_, " for ", whole_seconds(waited),
                                   " (the stall timeout, --stall-timeout-ms): ", e.message,
                                   "; check that the brokers are up")};
  if (say_still_waiting(waited, now, log_warned_))
    again.warning = still_waiting_line("answered for the plan log " + log_topic_, waited, e.message,
                                       config_.stall_timeout);
  return branch_step{.next = std::move(again)};
}

start_up::branch_step start_up::step(const plan_log_created& e) {
  if (std::optional<branch_step> wait =
          unanswered(e.result, e.called, e.now, log_step_action(act::create_plan_log)))
    return std::move(*wait);
  const std::string& topic = log_topic_;
  // A principal without Create may still read and write a plan log an
  // administrator made; only a log that is missing too ends the start.
  create_refused_ = log_refused(e.result);
  if (e.result.failed() && !create_refused_)
    return {.end = ends(run_status::unavailable, "the plan log ", topic, ": ", e.result.message)};
  create_error_ = e.result.message;
  // Created by this call, the log is empty, as a read would find it: the
  // claim follows at once. Another instance's claim appended meanwhile puts
  // this one past offset 0, and then the log is read (claim_appended).
  if (e.created) {
    ++rounds_;
    return step(plan_log_read{std::vector<log_record>{}, {}, 0});
  }
  return {.next = read_log()};
}

action start_up::read_log() {
  log_ = log_step::reading;
  ++rounds_;
  action a = log_step_action(act::read_plan_log);
  a.must_exist = create_refused_;
  return a;
}

start_up::branch_step start_up::step(const plan_log_read& e) {
  const std::string& topic = log_topic_;
  action again = log_step_action(act::read_plan_log);
  again.must_exist = create_refused_;
  // A log just created may not be known to every broker yet.
  failure unknown_yet = e.error;
  if (!e.log && !create_refused_ && e.error.unknown_topic_or_partition) unknown_yet.transient = true;
  if (std::optional<branch_step> wait = unanswered(e.log ? failure{} : unknown_yet, e.called, e.now, again))
    return std::move(*wait);
  if (!e.log) {
    if (create_refused_ && e.error.unknown_topic_or_partition)
      return {.end = ends(run_status::unavailable, "the brokers refuse this client the plan log ", topic,
                          ": it does not exist, and creating it was refused (", create_error_, ")",
                          grant_log(topic))};
    if (log_refused(e.error))
      return {.end = ends(run_status::unavailable, "the brokers refuse this client the plan log ", topic,
                          ": ", e.error.message, grant_log(topic))};
    return {.end = ends(run_status::unavailable, "the plan log ", topic, ": ", e.error.message)};
  }
  read_end_ = e.end;
  const std::optional<logged_claim> standing = standing_claim(claims_in(*e.log));
  auto step = next_claim_step(config_.application_id, topic, standing, plan_, instance_id_);
  if (auto* refused = std::get_if<succession_refused>(&step))
    return {.end = ends(run_status::rejected_config, std::move(refused->message))};
  if (auto* stands = std::get_if<plan_stands>(&step)) {
    log_ = log_step::ready;
    return {.info = "plan " + plan_.digest + " holds " + config_.application_id + " in its plan log " +
                    topic + " (claimed at offset " + std::to_string(stands->since) + ")"};
  }
  if (rounds_ > config_.max_claim_rounds)
    return {.end = ends(run_status::unavailable, "the plan log ", topic, ": this plan's claim lost ",
                        std::to_string(config_.max_claim_rounds),
                        " times in a row to other instances' claims; restart to try again")};
  write_claim& w = std::get<write_claim>(step);
  log_ = log_step::appending;
  action a = log_step_action(act::append_claim);
  a.claim = to_claim_record(w.claim);
  pending_append_ = a;
  a.info = std::move(w.note);
  pending_replaces_ = w.claim.replaces;
  return {.next = std::move(a)};
}

start_up::branch_step start_up::step(const claim_appended& e) {
  // Asked again, the claim may be written twice: the second names a plan
  // that no longer stands as the one it replaces, so it is no claim, and
  // landing past the read's end sends this start to read the log again.
  if (std::optional<branch_step> wait =
          unanswered(e.at ? failure{} : e.error, e.called, e.now, pending_append_))
    return std::move(*wait);
  const std::string& topic = log_topic_;
  if (!e.at) {
    if (log_refused(e.error))
      return {.end = ends(run_status::unavailable, "the brokers refuse this client the plan log ", topic,
                          ": ", e.error.message, grant_log(topic))};
    return {.end = ends(run_status::unavailable, "the plan log ", topic, ": ", e.error.message)};
  }
  // "its plan log", not the topic's name: that is the application id again
  // (APP-streamt-plans), and the line was 250 characters long with it.
  const std::string claimed =
      "claimed " + config_.application_id + " for plan " + plan_.digest + " at offset " +
      std::to_string(*e.at) + " of its plan log" +
      (pending_replaces_.empty() ? std::string() : ", replacing plan " + pending_replaces_);
  // Landed where the read ended: the log is what was read plus this claim,
  // which replaces the claim that stood, so it stands. Anywhere later,
  // another claim came between, and only reading again tells which stands.
  if (*e.at == read_end_) {
    log_ = log_step::ready;
    return {.info = claimed + "; it stands"};
  }
  action again = read_log();
  again.info = claimed;
  return {.next = std::move(again)};
}

// ---- admitted ---------------------------------------------------------------------

// Kafka has admitted the run: only now is the state directory written, so a
// start refused before this point leaves it as it found it.
start_step start_up::commit_state() {
  phase_ = phase::committing;
  return ask(act::commit_state);
}

start_step start_up::on(const state_committed& e) {
  if (!e.error.empty()) return fail(run_status::state_dir, e.error);
  phase_ = phase::subscribing;
  return ask(act::subscribe);
}

start_step start_up::on(const subscribed& e) {
  if (e.result.failed()) return fail(run_status::failed, "subscribe: " + e.result.message);
  phase_ = phase::done;
  start_step s;
  s.running = true;
  s.next.info = "joined group " + config_.application_id + "; waiting for partitions";
  return s;
}

}  // namespace streamt::engine::session
