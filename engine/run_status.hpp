// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// How a run of the Kafka runtime ended (contract §5): the session decides it,
// engine::run_report carries it, exit_code_of() maps it to the process's exit
// code (engine/kafka_runtime.hpp).

namespace streamt::engine {

enum class run_status {
  stopped,          // clean stop after a signal (exit 0)
  invalid_record,   // everything before it committed (exit 65)
  unavailable,      // brokers unreachable, topic missing, transactions refused (exit 69)
  failed,           // a fatal client error, or retries exhausted (exit 75)
  fenced,           // another instance took over this identity (exit 75)
  rejected_config,  // settings, identity change, offsets out of range (exit 78)
  state_dir,        // the state directory is locked or unusable (exit 73)
};

// The status's name as written above (the state directory's last-run.json,
// log fields).
constexpr const char* name_of(run_status s) noexcept {
  switch (s) {
    case run_status::stopped:
      return "stopped";
    case run_status::invalid_record:
      return "invalid_record";
    case run_status::unavailable:
      return "unavailable";
    case run_status::failed:
      return "failed";
    case run_status::fenced:
      return "fenced";
    case run_status::rejected_config:
      return "rejected_config";
    case run_status::state_dir:
      return "state_dir";
  }
  return "unknown";
}

}  // namespace streamt::engine
