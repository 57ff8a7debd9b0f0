// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Whether the engine restarts in-process after a run attempt ended: pure
// state across the attempts of one async_run, with the time passed in
// (test/unit/session/restart_policy_tests.cpp). It reads no clock and knows
// nothing of Kafka: the driver says how the attempt ended.
//
//  - An attempt that did not end on a fatal producer error a new producer
//    gets past (the run failed otherwise, or ended well): the run ends.
//  - A stop signal was seen: the run ends, however the attempt ended. A
//    stopped run is never restarted.
//  - Otherwise a restart, with new clients under the same identity that
//    resume from the committed offsets, unless max_restarts were granted
//    within the window before this one (a sliding window: a restart older
//    than it no longer counts). Then the run gives up, with what the
//    operator should do: restarts that keep failing point at the brokers'
//    transaction coordinator, which a new process cannot fix either.

#include <chrono>
#include <cstddef>
#include <deque>
#include <string>

namespace streamt::engine::session {

enum class restart_verdict {
  end,      // the run ends as the attempt did
  restart,  // a new attempt, in-process
  give_up,  // restartable, but too many restarts within the window
};

struct restart_decision {
  restart_verdict verdict = restart_verdict::end;
  // give_up: what the operator should do, for the log and the run's message
  // ("3 in-process restarts within ten minutes did not help: ...").
  std::string advice;
};

class restart_policy {
 public:
  restart_policy(std::size_t max_restarts = 3,
                 std::chrono::steady_clock::duration window = std::chrono::minutes(10));

  // An attempt ended at `now`. restartable: its fatal producer error is one
  // a new producer gets past. stop_asked: a stop signal was seen (a stopped
  // run is never restarted).
  restart_decision after_attempt(bool restartable, bool stop_asked,
                                 std::chrono::steady_clock::time_point now);

  std::size_t restarts() const noexcept;  // restarts granted so far

 private:
  std::size_t max_restarts_;
  std::chrono::steady_clock::duration window_;
  // When the restarts still within the window were granted, oldest first.
  std::deque<std::chrono::steady_clock::time_point> recent_;
  std::size_t granted_ = 0;
};

}  // namespace streamt::engine::session
