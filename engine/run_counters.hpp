// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// What a run has done, counted once: the session counts it
// (session::run_session::counters), the run report carries it (run_report
// is one), and the in-process restarts of a run add theirs up (+=).

#include "engine/process_batch.hpp"

#include <cstdint>

namespace streamt::engine {

struct run_counters {
  record_counts counts;
  std::uint64_t transactions_committed = 0;
  std::uint64_t transactions_aborted = 0;
  // How the commit protocol got there, for tests and diagnostics:
  std::uint64_t commit_retries = 0;  // commit_transaction called again after an unknown outcome
  std::uint64_t retries = 0;         // begin, send_offsets or abort called again after a retriable error
  std::uint64_t rewinds = 0;         // owned partitions sought back to their committed offsets after an abort

  run_counters& operator+=(const run_counters& o) noexcept {
    counts += o.counts;
    transactions_committed += o.transactions_committed;
    transactions_aborted += o.transactions_aborted;
    commit_retries += o.commit_retries;
    retries += o.retries;
    rewinds += o.rewinds;
    return *this;
  }
};

}  // namespace streamt::engine
