// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The embedding API: what an Asio application includes to run a plan on its
// own io_context. Installed as <streamt/engine.hpp>; find_package(streamt)
// gives the target streamt::engine, pkg-config the module `streamt`.
//
// It adds nothing to the engine's semantics: the run is engine::async_run,
// exactly what `streamt run` awaits, and a plan is loaded by the same strict
// loader `streamt check` uses. What it adds is one name to include, plan
// loading from a file, and an initiating function that takes any Asio
// completion token.
//
//   asio::cancellation_signal stop;
//   asio::co_spawn(io, streamt::engine::async_run(std::move(p), std::move(o)),
//                  asio::bind_cancellation_slot(stop.slot(), on_done));
//   ...
//   stop.emit(asio::cancellation_type::total);     // graceful: the open transaction commits
//   stop.emit(asio::cancellation_type::terminal);  // at once: it is aborted
//
// Run each pipeline in a coroutine of its own (co_spawn it, or co_await it
// from a coroutine that does nothing else): async_run widens the cancellation
// filter of the coroutine stack that awaits it to let `total` in, and turns
// off throw_if_cancelled on it, and Asio keeps both per stack, not per frame.
//
// Metrics: pass a std::make_shared<engine::metrics>() as run_options::metrics
// and read it (prometheus_text(), ready()), or serve it over HTTP with
// engine::metrics_server on the same io_context (docs/metrics.md).
//
// Logging goes through Boost.Log (channels "engine" and "kafka"): call
// engine::init_console_logging() for the CLI's stderr format (text or JSON),
// or configure Boost.Log's core yourself. Each run's lines carry its
// application id, plan digest and transaction sequence as logger attributes
// (engine::log_attribute), so two pipelines in one process log apart.

#include "engine/exit_codes.hpp"
#include "engine/kafka_runtime.hpp"
#include "engine/log.hpp"
#include "engine/metrics.hpp"
#include "engine/metrics_server.hpp"
#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"
#include "plan/plan_json.hpp"

#include <boost/asio/co_spawn.hpp>

#include <exception>
#include <string>
#include <string_view>
#include <utility>

namespace streamt {

// The strict plan loader (contract §3), as `streamt check` runs it: a plan from
// a string (the text `streamt compile` wrote).
inline result<plan::plan> load_plan(std::string_view json_text) { return plan::load_plan(json_text); }

// The same from a file ("-": standard input), read by streamt::read_input: a
// file that can't be read (or is larger than 64 MiB) is a diagnostic with
// code `unreadable_input`; everything else the loader refuses carries the
// JSON path of the problem.
result<plan::plan> load_plan_file(const std::string& path);

// Runs the plan as engine::async_run does, initiated with an Asio completion
// token instead of awaited directly, so a callback application can use it.
// Completion signature: void(std::exception_ptr, engine::run_report); the
// exception is set only for a bug (expected failures are report statuses).
// Executor: the run and its completion use `ex`, which must be single-threaded
//   (an io_context run by one thread, or a strand).
// Cancellation: the completion token's associated slot, as for
//   engine::async_run: `total` is the graceful stop, `terminal` stops at once.
template <class Executor, class CompletionToken>
auto async_run(const Executor& ex, plan::plan p, engine::run_options options, CompletionToken&& token) {
  return boost::asio::co_spawn(ex, engine::async_run(std::move(p), std::move(options)),
                               std::forward<CompletionToken>(token));
}

}  // namespace streamt
