// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/restart_policy.hpp"

namespace streamt::engine::session {

namespace {

// The window as the advice says it: "ten minutes" for the default.
std::string in_words(std::chrono::steady_clock::duration window) {
  using std::chrono::duration_cast;
  const auto minutes = duration_cast<std::chrono::minutes>(window);
  if (minutes == std::chrono::minutes(10) && window == minutes) return "ten minutes";
  if (minutes == std::chrono::minutes(1) && window == minutes) return "a minute";
  if (minutes.count() > 0 && window == minutes) return std::to_string(minutes.count()) + " minutes";
  return std::to_string(duration_cast<std::chrono::milliseconds>(window).count()) + " ms";
}

}  // namespace

restart_policy::restart_policy(std::size_t max_restarts, std::chrono::steady_clock::duration window)
    : max_restarts_(max_restarts), window_(window) {}

restart_decision restart_policy::after_attempt(bool restartable, bool stop_asked,
                                               std::chrono::steady_clock::time_point now) {
  if (!restartable || stop_asked) return {};
  // A restart exactly `window` ago still counts.
  while (!recent_.empty() && now - recent_.front() > window_) recent_.pop_front();
  if (recent_.size() >= max_restarts_)
    return {restart_verdict::give_up,
            std::to_string(max_restarts_) +
                (max_restarts_ == 1 ? " in-process restart" : " in-process restarts") + " within " +
                in_words(window_) +
                " did not help: restart the engine, and if it fails again look at the brokers' "
                "transaction coordinator"};
  recent_.push_back(now);
  ++granted_;
  return {restart_verdict::restart, {}};
}

std::size_t restart_policy::restarts() const noexcept { return granted_; }

}  // namespace streamt::engine::session
