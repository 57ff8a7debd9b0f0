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

}  // namespace streamt::engine
