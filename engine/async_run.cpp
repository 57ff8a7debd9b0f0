// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// async_run: the run attempts (one driver each, engine/driver/runtime.hpp)
// and the two-phase stop that every caller gets.

#include "engine/kafka_runtime.hpp"

#include "engine/driver/runtime.hpp"
#include "engine/log.hpp"
#include "engine/session/restart_policy.hpp"
#include "plan/plan_json.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <optional>

namespace streamt::engine {
namespace asio = boost::asio;
using driver::recording_filter;
using driver::stop_request;
using std::chrono::steady_clock;

exit_code exit_code_of(run_status s) noexcept {
  switch (s) {
    case run_status::stopped:
      return exit_code::ok;
    case run_status::invalid_record:
      return exit_code::invalid_record;
    case run_status::unavailable:
      return exit_code::unavailable;
    case run_status::failed:
    case run_status::fenced:
      return exit_code::temporary_failure;
    case run_status::rejected_config:
      return exit_code::config;
    case run_status::state_dir:
      return exit_code::cannot_write;
  }
  return exit_code::internal;
}

namespace {

// Adds the counters of a run that ended to those of the runs before it.
run_report merged(const run_report& earlier, run_report last) {
  last += earlier;
  last.restarts += earlier.restarts;
  return last;
}

// The attempts of async_run: one runtime each, restarted in-process after a
// fatal producer error a new producer gets past.
asio::awaitable<run_report> run_attempts(plan::plan p, run_options options, logger log,
                                         transaction_sequence txn, stop_request& stop) {
  // A coroutine of its own (async_run spawns it): its stack lets only
  // terminal cancellation in, and throws when cancelled, until told
  // otherwise here, before anything is awaited. A graceful stop forwarded
  // before this line ran was filtered out, but async_run recorded it in
  // `stop`, which the runtime reads before it waits for anything.
  co_await asio::this_coro::reset_cancellation_state(recording_filter{&stop});
  co_await asio::this_coro::throw_if_cancelled(false);
  run_report total;
  session::restart_policy restarts;
  for (;;) {
    // One runtime per attempt: its destructor closes the clients and
    // releases the state directory's lock before the next one takes it.
    options.metrics->run_started();
    std::optional<driver::runtime> rt(std::in_place, p, options, log, txn, stop);
    run_report r = co_await rt->run();
    const bool restartable = rt->restartable();
    rt.reset();
    total = merged(std::move(total), std::move(r));
    const session::restart_decision next =
        restarts.after_attempt(restartable, stop.requested(), steady_clock::now());
    switch (next.verdict) {
      case session::restart_verdict::end:
        co_return total;
      case session::restart_verdict::give_up:
        // The attempt logged its own end; this is the run's (no caller
        // repeats the report's message).
        STREAMT_LOG(log, error) << next.advice;
        total.message += "; " + next.advice;
        co_return total;
      case session::restart_verdict::restart:
        break;
    }
    ++total.restarts;
    options.metrics->restarted();
    STREAMT_LOG(log, warning) << "restarting in-process after a fatal producer error (" << total.message
                              << "): new clients under the same identity resume from the committed offsets";
  }
}

}  // namespace

asio::awaitable<run_report> async_run(plan::plan p, run_options options) {
  logger log(boost::log::keywords::channel = "engine");
  add_pipeline_attributes(log, p.identity.application_id, plan::digest(p));
  // One sequence for all attempts: transaction numbers go on rising across
  // in-process restarts, so no two transactions of a run share one.
  transaction_sequence txn(0);
  log.add_attribute(log_attribute::transaction, txn);
  if (!options.metrics) options.metrics = std::make_shared<metrics>();
  options.metrics->set_identity(metrics::identity_of(p));
  // Whatever way the run ends (a status, or a bug's exception), it is no
  // longer live for /healthz. The guard owns a reference: `options` (and
  // its reference) is moved into the attempts below, and a caller that gave
  // no metrics object holds none, so a guard with a plain pointer would
  // mark a freed object at the end (ASan: heap-use-after-free).
  struct ended_guard {
    std::shared_ptr<metrics> m;
    ~ended_guard() { m->run_ended(); }
  } ended{options.metrics};
  // The stop signals this run is asked, recorded as they are emitted (see
  // stop_request); set before the first await, and not reset until the run
  // is over.
  stop_request stop;
  const recording_filter filter{&stop};
  co_await asio::this_coro::reset_cancellation_state(filter);
  co_await asio::this_coro::throw_if_cancelled(false);
  const auto ex = co_await asio::this_coro::executor;
  const std::chrono::milliseconds stop_timeout = options.stop_timeout;

  // The two-phase stop, here in the engine so that every caller gets it:
  // the run goes on in a coroutine of its own, and this one passes the
  // caller's stops on to it, graceful or terminal, and turns a graceful stop
  // that has not ended the run within stop_timeout into a terminal one (the
  // runtime then leaves what is under way to the broker, see
  // stop_request::deadline). Only a second signal of the caller's could do
  // that before, and an embedding application had no deadline at all.
  asio::cancellation_signal to_run;
  std::optional<run_report> report;
  std::exception_ptr crashed;
  // Woken by the run's end, by a stop of the caller's, and by the deadline.
  asio::steady_timer wake(ex, steady_clock::time_point::max());
  // Made before it is spawned (no temporaries: see recording_filter).
  auto attempts = run_attempts(std::move(p), std::move(options), log, txn, stop);
  asio::co_spawn(ex, std::move(attempts),
                 asio::bind_cancellation_slot(to_run.slot(), [&](std::exception_ptr e, run_report r) {
                   crashed = e;
                   if (!e) report = std::move(r);
                   wake.cancel();
                 }));
  asio::cancellation_type forwarded = asio::cancellation_type::none;
  bool deadline_armed = false;
  while (!report && !crashed) {
    const asio::cancellation_type fresh = stop.seen & ~forwarded;
    if (fresh != asio::cancellation_type::none) {
      forwarded = forwarded | fresh;
      if ((fresh & asio::cancellation_type::terminal) != asio::cancellation_type::none) {
        to_run.emit(asio::cancellation_type::terminal);
      } else {
        to_run.emit(asio::cancellation_type::total);
        if (!deadline_armed) {
          deadline_armed = true;
          wake.expires_after(stop_timeout);
        }
      }
    }
    auto [ec] = co_await wake.async_wait(asio::as_tuple(asio::use_awaitable));
    if (!ec && !report && !crashed && !stop.terminal()) {
      stop.deadline = true;
      stop.seen = stop.seen | asio::cancellation_type::terminal;
      wake.expires_at(steady_clock::time_point::max());
    }
  }
  // The filter points into this frame: detach it before the frame goes.
  co_await asio::this_coro::reset_cancellation_state(asio::enable_total_cancellation());
  if (crashed) std::rethrow_exception(crashed);  // a bug: the caller's completion gets it
  co_return std::move(*report);
}

}  // namespace streamt::engine
