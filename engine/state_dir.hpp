// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The state directory (`streamt run --state-dir`, contract §5). It holds:
//   lock           an flock held while a process runs from this directory, so
//                  two processes can't run the same identity from it (it
//                  holds the holder's pid while held, and is empty after a
//                  committed run);
//   identity.json  the identity of the plan last run here, and this
//                  instance's id (part of its transactional id);
//   plan.json      the last plan run here (to tell a changed predicate, which
//                  is allowed, from a changed projection, which needs
//                  --allow-output-change);
//   history        one line per start: UTC time and plan digest;
//   last-run.json  the last run admitted here: when it started, its plan
//                  digest, and once it ended, how (exit code, status, and
//                  for an invalid record its position and reason code).
//                  Never a message or a record's bytes: nothing a user
//                  typed or a record held is kept.
//
// The instance id makes transactional ids stable across restarts of the same
// instance (same directory) and unique across concurrent instances (each
// has its own directory). Keeping it here rather than deriving it from the
// host name means a moved container keeps fencing its own zombie.

#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"

#include <string>
#include <vector>

namespace streamt::engine {

// What last-run.json says about a run. `ended` is false for a run that
// started and never recorded its end: killed (SIGKILL, the OOM killer), a
// crash, or the machine stopped.
struct run_record {
  std::string started_at;  // UTC, as in history
  std::string plan_digest;
  bool ended = false;
  std::string ended_at;
  int exit_code = 0;
  std::string status;  // run_status's name: "stopped", "invalid_record", ...
  // An invalid record's "topic/partition@offset" and diagnostic code
  // (empty otherwise).
  std::string stopped_at;
  std::string reason;
};

class state_dir {
 public:
  // Creates the directory if needed and takes its lock. Until commit(),
  // releasing the lock undoes this: a lock file (and directories) it made
  // are removed, an existing lock file gets its old bytes back. Errors (code):
  // `state_dir_unusable` (cannot create or write it), `state_dir_locked`
  // (another process holds it; the message names its pid).
  static result<state_dir> open(const std::string& path);

  // Compares `next` with the plan last run here, without writing anything.
  // Refused (code `identity_changed`): another application id, source or
  // sink topic, or operator names. Refused unless `allow_output_change`
  // (code `output_changed`): another projection or source schema. Allowed: a
  // changed predicate. Refused (code `state_dir_unusable`): a damaged
  // identity.json (empty, not JSON, not a streamt identity, control
  // characters, a malformed instance id, or naming other topics than
  // plan.json), an unreadable or invalid plan.json, or an identity.json
  // deleted from a directory with a history; the message names the file and
  // what to do, never its content. On the first run a new instance id is made.
  result<void> admit(const plan::plan& next, bool allow_output_change);

  // Records what admit() accepted: plan.json, on the first run identity.json
  // (each written durably: temporary file, fsync, rename, fsync of the
  // directory), and a history line. Called only once Kafka has admitted the
  // run (brokers and topics checked, transactions initialised), so a start
  // that fails before leaves the directory as it found it.
  //
  // Before it marks this run started in last-run.json, it reads what the
  // previous run left there (previous_run()). A damaged last-run.json is no
  // error: it tells nothing and is replaced.
  result<void> commit();

  // After commit(): records how this run ended in last-run.json, durably,
  // for the next start to report. Returns an error message; the run's own
  // outcome stands either way.
  std::optional<std::string> record_end(const run_record& end);

  // The run before this one, as commit() found it (nullopt on a first run,
  // or where last-run.json was missing or damaged).
  const std::optional<run_record>& previous_run() const noexcept { return previous_run_; }
  // Whether commit() succeeded: the directory's files are this run's.
  bool committed() const noexcept { return committed_; }

  // This instance's id: 16 lowercase hex digits, fixed once the first
  // admit() has been committed.
  const std::string& instance_id() const noexcept { return instance_id_; }
  const std::string& path() const noexcept { return path_; }
  // Whether admit() found no earlier plan here (a new instance).
  bool first_run() const noexcept { return first_run_; }
  // After admit(): the digest of the plan last run here, which admit()
  // compared the new one with (empty on a first run). The lineage check
  // takes it as a predecessor: a restart from this directory with a
  // changed predicate needs no --supersedes (contract §5).
  const std::string& previous_plan_digest() const noexcept { return previous_plan_digest_; }

  state_dir(state_dir&& other) noexcept;
  state_dir& operator=(state_dir&&) = delete;
  state_dir(const state_dir&) = delete;
  ~state_dir();  // releases the lock

 private:
  state_dir() = default;
  std::string path_;
  int lock_fd_ = -1;  // the open lock file; -1 once moved from
  std::string instance_id_;
  std::string previous_plan_digest_;
  bool first_run_ = false;
  bool admitted_ = false;               // admit() succeeded; commit() not yet done
  bool committed_ = false;              // commit() succeeded: the files are this run's
  bool made_lock_ = false;              // open() created the lock file
  std::vector<std::string> made_dirs_;  // the directories open() created, outermost first
  std::string lock_before_;             // the lock file's bytes before open()
  std::string pending_plan_;            // plan.json to write
  std::string pending_digest_;          // for the history line
  std::string pending_identity_;        // identity.json to write; empty unless a first run
  std::optional<run_record> previous_run_;
  run_record this_run_;  // as marked started by commit()
};

// The transactional id of an instance: "<application id>-<instance id>".
std::string transactional_id(const plan::plan& p, const state_dir& dir);

}  // namespace streamt::engine
