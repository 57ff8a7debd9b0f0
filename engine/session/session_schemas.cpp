// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// A record of an Avro source names its writer schema by a registry id; the
// stages learn each id once (operators::stage_pipeline::learn_schema), and
// a record whose id they do not know yet stops its batch there
// (batch_result::needs_schema). What the run does then is decided here:
//
//   fetch_schema → found        learn_schema, then the rest of the batch
//                → unknown_id   learn_schema (unknown): the record is invalid,
//                               unknown_schema_id, failed or dead-lettered as
//                               the plan says; so is every record with that
//                               id for config::unknown_schema_ttl, after
//                               which the stages forget it (forget_schema)
//                               and the next record with it asks again
//                → unavailable  the registry's fault, never the record's:
//                               commit what came before the record, wait
//                               (backoff), ask again; past stall_timeout the
//                               run ends, exit 69, with nothing at or after
//                               the record produced or committed
//                → misconfigured  exit 78, naming the registry
//
// Nothing after the waiting record is produced while it waits (the batch's
// rest is held in hand and the consumer is not polled), so the order of
// each partition's outputs is the order of its records.

#include "engine/session/durations.hpp"
#include "engine/session/session.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace streamt::engine::session {

action run_session::fetch_schema(std::uint32_t id) {
  if (!schema_fetch_ || schema_fetch_->id != id) schema_fetch_ = schema_fetch{id, {}, 0, {}, {}};
  action a;
  a.kind = act::fetch_schema;
  a.schema_id = id;
  return emit(std::move(a));
}

std::string run_session::waiting_record() const {
  if (batch_.empty()) return "a record";
  const record_view& v = batch_.front();
  return "the record at " + position(v.topic, v.partition, v.offset);
}

std::optional<registry_wait> run_session::waiting_for_registry() const {
  if (closed_ || !schema_fetch_ || !schema_fetch_->failing_since) return std::nullopt;
  return registry_wait{schema_fetch_->id, *schema_fetch_->failing_since, schema_fetch_->last};
}

action run_session::handle(const schema_answered& e) {
  if (!schema_fetch_ || schema_fetch_->id != e.id || batch_.empty())
    return close(ending{run_status::failed,
                        "the driver answered a schema fetch the session did not ask for (id " +
                            std::to_string(e.id) + "); this is a bug, please report it",
                        {}});
  schema_fetch& f = *schema_fetch_;
  switch (e.answer) {
    case schema_answer::found:
    case schema_answer::unknown_id: {
      if (e.answer == schema_answer::unknown_id) {
        if (unknown_ids_.size() >= max_unknown_ids && !unknown_ids_.contains(e.id))
          unknown_ids_.erase(
              std::min_element(unknown_ids_.begin(), unknown_ids_.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; }));
        unknown_ids_[e.id] = e.now;
      } else {
        unknown_ids_.erase(e.id);
      }
      action a;
      a.kind = act::learn_schema;
      a.schema_id = e.id;
      a.schema_known = e.answer == schema_answer::found;
      a.schema_text = e.text;
      a.schema_type = e.type;
      if (f.failing_since)
        a.info = "the schema registry answered for writer schema id " + std::to_string(e.id) + " after " +
                 whole_seconds(e.now - *f.failing_since) + "; going on at " + waiting_record();
      return emit(std::move(a));
    }
    case schema_answer::misconfigured:
    case schema_answer::refused:
      return end_run_at(ending{run_status::rejected_config,
                               "cannot read writer schema id " + std::to_string(e.id) + " for " +
                                   waiting_record() + ": " + e.message +
                                   "; fix --schema-registry or --registry-config, then start the engine "
                                   "again (nothing at or after that record was produced or committed)",
                               {}},
                        {});
    case schema_answer::unavailable:
    case schema_answer::cancelled:
      break;
  }
  if (!f.failing_since) f.failing_since = e.now;
  f.last = e.message;
  const clock::duration waited = e.now - *f.failing_since;
  if (waited >= config_.stall_timeout)
    return end_run_at(
        ending{run_status::unavailable,
               "the schema registry has not answered for writer schema id " + std::to_string(e.id) +
                   ", needed by " + waiting_record() + ", for " + whole_seconds(waited) +
                   " (the stall timeout, --stall-timeout-ms): " + e.message +
                   "; nothing at or after that record was produced or committed, and the next "
                   "start resumes there",
               {}},
        {});
  f.delay = backoff_delay(config_.registry_backoff, f.failures, e.jitter);
  ++f.failures;
  std::string warning;
  if (e.answer == schema_answer::unavailable)
    warning = "waiting for the schema registry (writer schema id " + std::to_string(e.id) + " of " +
              waiting_record() + "): " + e.message + "; asking again in " + millis(f.delay) + ", for up to " +
              whole_seconds(config_.stall_timeout - waited) + " more";
  // Commit what came before the waiting record first: the wait may be
  // long, and an open transaction would hold those records (and the
  // partitions' committed offsets) for all of it.
  if (machine_.current() == commit::machine::state::producing)
    return follow(machine_.step(commit::produced_ok{}), std::move(warning));
  return retry_schema(std::move(warning));
}

action run_session::retry_schema(std::string warning) {
  schema_retry_due_ = true;
  action a;
  a.kind = act::retry_after;
  a.delay = schema_fetch_ ? schema_fetch_->delay : std::chrono::milliseconds{0};
  a.warning = std::move(warning);
  return emit(std::move(a));
}

// The first id whose unknown_schema_id answer is older than
// config::unknown_schema_ttl when the batch in hand arrived, forgotten by
// the stages; nullopt when there is none left.
std::optional<action> run_session::forget_aged_schema(std::string warning) {
  if (!forgetting_at_) return std::nullopt;
  const clock::time_point now = *forgetting_at_;
  const auto aged = std::find_if(unknown_ids_.begin(), unknown_ids_.end(),
                                 [&](const auto& u) { return now - u.second >= config_.unknown_schema_ttl; });
  if (aged == unknown_ids_.end()) {
    forgetting_at_.reset();
    return std::nullopt;
  }
  action a;
  a.kind = act::forget_schema;
  a.schema_id = aged->first;
  a.info = "asking the schema registry again for writer schema id " + std::to_string(aged->first) +
           " when a record needs it: its answer that it has none is " + whole_seconds(now - aged->second) +
           " old";
  a.warning = std::move(warning);
  unknown_ids_.erase(aged);
  return emit(std::move(a));
}

action run_session::handle(const schema_learnt&) {
  schema_fetch_.reset();
  if (std::optional<action> a = forget_aged_schema({})) return std::move(*a);
  if (batch_.empty()) return poll_or_commit({});
  // After a wait the transaction before the record committed: a new one
  // begins with it.
  if (machine_.current() == commit::machine::state::idle) return follow(machine_.step(commit::batch_ready{}));
  return follow({commit::action::produce, {}, {}});
}

// Ends the run with `e` once the open transaction (what came before the
// waiting record) has committed, as an assignment refused mid-run does.
action run_session::end_run_at(ending e, std::string warning) {
  batch_ = {};
  schema_fetch_.reset();
  if (machine_.current() == commit::machine::state::idle) return close(std::move(e), std::move(warning));
  refusal_ = std::move(e);
  stop_.stop_at_record();
  return follow(machine_.step(commit::cancel_requested{commit::stop_kind::graceful}), std::move(warning));
}

}  // namespace streamt::engine::session
