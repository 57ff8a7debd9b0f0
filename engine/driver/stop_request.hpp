// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// A stop asked for, as a fact: every stop signal that reaches async_run's
// coroutine is recorded here by the cancellation filter itself, at the
// moment it is emitted, whatever the coroutine is awaiting then (a blocking
// librdkafka call, a child coroutine not started yet) and however often the
// cancellation state is reset afterwards. The driver passes it to the
// session (stop_facts) before each action and checks it when a child
// coroutine starts; a cancellation signal alone is emitted once and lost if
// nothing cancellable is waiting.

#include "engine/session/stop_policy.hpp"

#include <boost/asio/cancellation_type.hpp>

namespace streamt::engine::driver {

struct stop_request {
  boost::asio::cancellation_type seen = boost::asio::cancellation_type::none;
  // run_options::stop_timeout passed since the graceful stop (async_run's
  // stop deadline sets it, with a terminal stop): whatever is still under
  // way (a commit, an abort) is left to the broker.
  bool deadline = false;
  bool requested() const noexcept { return seen != boost::asio::cancellation_type::none; }
  bool terminal() const noexcept {
    return (seen & boost::asio::cancellation_type::terminal) != boost::asio::cancellation_type::none;
  }
  session::stop_facts facts() const noexcept { return {requested(), terminal(), deadline}; }
};

// The cancellation filter of async_run's coroutine: lets terminal, partial
// and total cancellation in (as enable_total_cancellation does) and records
// each one in the stop request, which lives in async_run's frame (async_run
// detaches the filter before it returns). A plain pointer, trivially
// destructible: GCC 12 destroys some temporaries of a co_await expression
// twice, and a shared_ptr here was released early (seen: a stop "requested"
// by garbage in an unstopped run).
struct recording_filter {
  stop_request* stop;
  boost::asio::cancellation_type operator()(boost::asio::cancellation_type t) const noexcept {
    stop->seen = stop->seen | t;
    return t & (boost::asio::cancellation_type::terminal | boost::asio::cancellation_type::partial |
                boost::asio::cancellation_type::total);
  }
};

}  // namespace streamt::engine::driver
