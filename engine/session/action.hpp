// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// What the session asks the driver to do next (run_session::on's answer),
// and how a run ended. One action at a time; each names the event that
// reports its outcome. The start-up's actions come first (start_up.hpp),
// then the run's.

#include "engine/process_batch.hpp"
#include "engine/record.hpp"
#include "engine/run_status.hpp"
#include "engine/session/positions.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::engine::session {

using clock = std::chrono::steady_clock;

enum class act {
  // start-up (start_up.hpp)
  prepare,            // check the settings, admit the state directory, make the clients → prepared
  list_topics,        // the cluster's topic names, within `slice` → topics_listed
  cap_batches,        // cap batch.size to the written topics' max.message.bytes, read the source's
                      //   cleanup.policy → batches_capped
  init_transactions,  // init_transactions for at most `slice` → transactions_initialised
  create_plan_log,    // create `topic` (the plan log) → plan_log_created
  read_plan_log,    // read `topic` to its end (`must_exist`: do not wait for it to appear) → plan_log_read
  append_claim,     // append `claim` to `topic` → claim_appended
  commit_state,     // write the state directory → state_committed
  register_schema,  // register the plan's sink schema under `subject` (find it there, when not
                    //   `register_new`) → sink_schema_registered
  subscribe,        // subscribe to the source topic → subscribed
  together,         // perform every one of `steps` at the same time; when all are done → steps_done
                    //   (their outcomes, in the order of `steps`)
  // the run
  poll,           // take up to max_records, waiting no longer than commit_at if set (→ commit_due:
                  //   an open transaction's deadline, or a stop's wait for the first assignment);
                  //   records → records_arrived
  begin,          // begin_transaction → began
  produce,        // process the first `take` records of the batch → batch_produced
  dead_letter,    // produce the batch's first record, unchanged, to the dead-letter topic with
                  //   `dead` as its reason → dead_lettered
  fetch_schema,   // ask the Schema Registry for writer schema `schema_id` (the batch's first record
                  //   is written with it) → schema_answered
  learn_schema,   // give the stages writer schema `schema_id`: `schema_text`, or, when not
                  //   `schema_known`, the registry's word that it has no such id → schema_learnt
  forget_schema,  // the stages forget `schema_id` (the registry's word that it had no such id is
                  //   old): the next record with it is fetched again → schema_learnt
  flush,          // wait for every delivery report → flushed
  send_offsets,   // send_offsets_to_transaction(ledger().pending()) → offsets_sent
  commit,         // commit_transaction for at most `slice` → commit_returned
  abort,          // abort_transaction for at most `slice` → abort_returned
  rewind,         // seek every owned partition to its committed offset → rewound
  retry_after,    // wait `delay` → retry_elapsed
  give_up,        // incremental_unassign(partitions) → given_up
  close,          // give up `partitions`, leave the group if leave_group; the run is over: outcome()
};

std::string_view to_string(act a) noexcept;
inline std::ostream& operator<<(std::ostream& os, act a) { return os << to_string(a); }

struct action {
  act kind = act::poll;
  std::size_t max_records = 0;                 // poll
  std::optional<clock::time_point> commit_at;  // poll: the open transaction's deadline, or a stop's
  std::size_t take = 0;                        // produce
  std::chrono::milliseconds slice{0};          // list_topics, init_transactions, commit, abort
  bool first_slice = false;                    // commit, abort: the call starts now
  std::chrono::milliseconds delay{0};          // retry_after
  bool commit_retry = false;                   // retry_after: of an unknown-outcome commit
  std::vector<partition_id> partitions;        // give_up, close, rewind (the owned ones)
  bool leave_group = false;                    // close
  std::optional<invalid_record> dead;          // dead_letter: why the record is invalid
  std::uint32_t schema_id = 0;                 // fetch_schema, learn_schema, forget_schema
  std::string subject;                         // register_schema
  bool register_new = true;                    // register_schema: false: it must be registered already
  std::string schema_text;                     // learn_schema: the writer schema, as the registry has it
  bool schema_known = true;                    // learn_schema: false when the registry has no such id
  std::string schema_type;                     // learn_schema: the registry's name of its type (AVRO, ...)
  std::string topic;                           // create_plan_log, read_plan_log, append_claim
  bool must_exist = false;                     // read_plan_log
  std::string claim;                           // append_claim: the claim record's value
  std::vector<action> steps;                   // together: start-up steps independent of each other
  // What the decision is worth a line in the log for (the driver logs it).
  std::string info;
  std::string warning;
  // The record the warning is about, for the line's fields (a dead_letter's
  // is `dead`).
  std::optional<invalid_record> record;
};

// The Schema Registry's answer to a request of the session's, as
// kafka/registry classified it (failure.hpp's verdicts): the session decides
// what each means.
enum class schema_answer {
  found,          // what was asked for (a writer schema, the sink schema's id)
  unknown_id,     // the registry has no schema with that id: the record's fault (unknown_schema_id)
  unavailable,    // unreachable, timing out or 5xx: nobody's fault but the registry's; wait
  misconfigured,  // refused our credentials or TLS, or is no registry at that URL: exit 78
  refused,        // refused what was asked (a schema its compatibility rules refuse, a subject
                  //   without it): exit 78
  cancelled,      // a stop cut the request short
};

struct ending {
  run_status status = run_status::stopped;
  std::string message;  // for every status but stopped: what happened and what to do
  std::optional<invalid_record> invalid;
};

}  // namespace streamt::engine::session
