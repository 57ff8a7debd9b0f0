// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// How a run_session (session.hpp) starts: its start-up part (start_up.hpp)
// decides each step; this is where its answers become the session's actions,
// and where the run takes over once the group is joined.

#include "engine/session/session.hpp"

#include <utility>

namespace streamt::engine::session {

start_config start_of(const config& c) {
  start_config s = c.start;
  s.application_id = c.application_id;
  s.source_topic = c.source_topic;
  s.sink_topics = c.sink_topics;
  s.dead_letter_topic = c.dead_letter_topic;
  s.stall_timeout = c.stall_timeout;
  s.commit_interval = c.commit_interval;
  return s;
}

action run_session::handle(const starting&) { return from_start(start_.begin()); }

action run_session::from_start(start_step s) {
  if (s.end) return close(std::move(s.end), std::move(s.next.warning));
  if (s.running) {
    action a = handle(started{});
    a.info = std::move(s.next.info);
    return a;
  }
  return emit(std::move(s.next));
}

// A stop during start-up: nothing is open and no group was joined, so the
// run ends at once, cleanly (exit 0), wherever the start-up was.
action run_session::stopped_starting() {
  action a = close(ending{run_status::stopped, "stopped during start-up", {}}, {});
  a.info = "stopping: a stop signal arrived during start-up (" + std::string(start_.where()) +
           "); no transaction was opened";
  return a;
}

}  // namespace streamt::engine::session
