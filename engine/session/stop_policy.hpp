// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The two-phase stop (contract §5) as the session sees it: which stop is new
// and not yet acted on, and what the stops so far allow. Pure state
// (test/unit/session/stop_policy_tests.cpp).
//
// The facts come from outside, as plain data: a stop asked for (graceful),
// made terminal (a second signal, or the caller's terminal cancellation), and
// the stop deadline passed (async_run's timer, run_options::stop_timeout
// after the graceful stop; it comes with a terminal stop). Each is acted on
// once, in that order of precedence: the deadline, then the first stop, then
// a terminal stop after a graceful one. Start-up asks the same question as
// the loop, so a signal in the first millisecond is honoured like any other.

namespace streamt::engine::session {

struct stop_facts {
  bool requested = false;
  bool terminal = false;
  bool deadline = false;
};

enum class stop_news {
  none,      // nothing new
  graceful,  // commit the open transaction now, then stop
  terminal,  // abort the open transaction (unless its commit started), then stop
  deadline,  // the graceful stop took too long: leave what is under way to the broker
};

class stop_policy {
 public:
  stop_news news(stop_facts f) const noexcept {
    if (f.deadline && !deadline_handled_) return stop_news::deadline;
    if (!f.requested) return stop_news::none;
    if (!signalled_) return f.terminal ? stop_news::terminal : stop_news::graceful;
    if (f.terminal && !terminal_) return stop_news::terminal;
    return stop_news::none;
  }

  void handled(stop_news n) noexcept {
    if (n == stop_news::none) return;
    signalled_ = true;
    stopping_ = true;
    if (n == stop_news::terminal || n == stop_news::deadline) terminal_ = true;
    if (n == stop_news::deadline) deadline_handled_ = true;
  }

  // Stopping at an invalid (or unproducible) record: the records before it
  // commit first, as on a graceful stop, but no signal came.
  void stop_at_record() noexcept { stopping_ = true; }
  // That stop's transaction was aborted: the records before the record are
  // processed again, and the run goes on until they commit.
  void resume_at_record() noexcept { stopping_ = signalled_; }

  // A stop signal came (graceful or terminal).
  bool signalled() const noexcept { return signalled_; }
  // Whatever the reason, the run ends once nothing is open.
  bool stopping() const noexcept { return stopping_; }
  bool terminal() const noexcept { return terminal_; }
  bool past_deadline() const noexcept { return deadline_handled_; }
  // Leaving the group waits for the coordinator; a terminal stop does not
  // wait for anything more (the session timeout moves the partitions).
  bool leaves_group(stop_facts f) const noexcept { return !terminal_ && !f.terminal; }

 private:
  bool signalled_ = false;
  bool stopping_ = false;
  bool terminal_ = false;
  bool deadline_handled_ = false;
};

}  // namespace streamt::engine::session
