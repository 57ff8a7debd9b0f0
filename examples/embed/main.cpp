// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// embed: runs a streamt plan on the application's own io_context, beside the
// application's own work (here a timer that ticks), and stops it cleanly with
// Asio cancellation: on SIGTERM or SIGINT, or once N records were consumed.
//
//   embed PLAN --bootstrap-servers HOSTS --state-dir DIR [--stop-after N] [--tick-ms MS]
//         [--stop-timeout-ms MS]
//
// The stop is the engine's two-phase stop: a graceful one (`total`) that
// becomes terminal by itself after run_options::stop_timeout, and a
// terminal one (`terminal`) on a second signal.
//
// Exits with the engine's exit code (0 after a clean stop; see streamt(1)).

#include <streamt/engine.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

namespace asio = boost::asio;
namespace engine = streamt::engine;

namespace {

struct arguments {
  std::string plan_file;
  std::string bootstrap_servers;
  std::string state_dir;
  std::uint64_t stop_after = 0;  // 0: run until a signal
  std::chrono::milliseconds tick{100};
  std::chrono::milliseconds stop_timeout{engine::run_options{}.stop_timeout};
};

std::optional<arguments> parse(int argc, char** argv) {
  arguments a;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--bootstrap-servers" && has_value)
      a.bootstrap_servers = argv[++i];
    else if (arg == "--state-dir" && has_value)
      a.state_dir = argv[++i];
    else if (arg == "--stop-after" && has_value)
      a.stop_after = std::strtoull(argv[++i], nullptr, 10);
    else if (arg == "--tick-ms" && has_value)
      a.tick = std::chrono::milliseconds(std::strtoll(argv[++i], nullptr, 10));
    else if (arg == "--stop-timeout-ms" && has_value)
      a.stop_timeout = std::chrono::milliseconds(std::strtoll(argv[++i], nullptr, 10));
    else if (!arg.starts_with("-") && a.plan_file.empty())
      a.plan_file = arg;
    else
      return std::nullopt;
  }
  if (a.plan_file.empty() || a.bootstrap_servers.empty() || a.state_dir.empty() || a.tick.count() <= 0 ||
      a.stop_timeout.count() <= 0)
    return std::nullopt;
  return a;
}

// The application's own work: a timer that ticks until it is cancelled.
asio::awaitable<void> tick(std::chrono::milliseconds period, std::uint64_t& ticks) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (;;) {
    timer.expires_after(period);
    co_await timer.async_wait(asio::use_awaitable);  // throws operation_aborted when cancelled
    ++ticks;
  }
}

// The engine's coroutine. It does nothing but await the run, because
// async_run changes the cancellation filter of the coroutine stack awaiting it
// (to let the graceful `total` stop in).
asio::awaitable<engine::run_report> run_pipeline(streamt::plan::plan p, engine::run_options options) {
  engine::run_report report = co_await engine::async_run(std::move(p), std::move(options));
  co_return report;
}

}  // namespace

int main(int argc, char** argv) {
  const std::optional<arguments> args = parse(argc, argv);
  if (!args) {
    std::cerr
        << "usage: embed PLAN --bootstrap-servers HOSTS --state-dir DIR [--stop-after N] [--tick-ms MS]\n"
           "             [--stop-timeout-ms MS]\n";
    return engine::to_int(engine::exit_code::usage);
  }
  // The same strict loader as `streamt check`: nothing touches Kafka before
  // the plan is known to be valid.
  streamt::result<streamt::plan::plan> p = streamt::load_plan_file(args->plan_file);
  if (!p) {
    std::cerr << "embed: " << args->plan_file << ": " << streamt::format(p.error()) << '\n';
    return engine::to_int(engine::exit_code::rejected);
  }
  engine::init_console_logging(engine::severity::info);

  asio::io_context io(1);  // one thread: the engine needs a single-threaded executor
  asio::cancellation_signal stop_engine;
  asio::cancellation_signal stop_ticker;
  asio::signal_set signals(io, SIGINT, SIGTERM);
  std::uint64_t ticks = 0;
  std::uint64_t ticks_when_done = 0;
  bool stop_requested = false;
  int exit_status = engine::to_int(engine::exit_code::internal);

  engine::run_options options;
  options.bootstrap_servers = args->bootstrap_servers;
  options.state_dir = args->state_dir;
  // A graceful stop that has not ended the run by then becomes terminal:
  // the engine's own deadline, so the application needs no timer for it.
  options.stop_timeout = args->stop_timeout;
  // After each committed transaction. The stop is posted, not emitted here:
  // this runs inside the engine, and the stop should arrive once it waits.
  options.on_commit = [&](const engine::run_report& so_far) {
    if (args->stop_after == 0 || stop_requested || so_far.counts.consumed < args->stop_after) return;
    stop_requested = true;
    std::cout << "embed: " << so_far.counts.consumed << " records consumed; stopping gracefully\n";
    asio::post(io, [&] { stop_engine.emit(asio::cancellation_type::total); });
  };

  asio::co_spawn(io, tick(args->tick, ticks),
                 asio::bind_cancellation_slot(stop_ticker.slot(), [](std::exception_ptr e) {
                   // Cancellation ends the ticker with operation_aborted; anything else is a bug.
                   try {
                     if (e) std::rethrow_exception(e);
                   } catch (const boost::system::system_error& err) {
                     if (err.code() != asio::error::operation_aborted) throw;
                   }
                 }));

  asio::co_spawn(
      io, run_pipeline(std::move(*p), std::move(options)),
      asio::bind_cancellation_slot(stop_engine.slot(), [&](std::exception_ptr e, engine::run_report r) {
        signals.cancel();
        stop_ticker.emit(asio::cancellation_type::terminal);
        if (e) std::rethrow_exception(e);  // a bug in the engine: out of io.run()
        ticks_when_done = ticks;
        exit_status = engine::to_int(engine::exit_code_of(r.status));
        std::cout << "embed: engine stopped: consumed " << r.counts.consumed << ", emitted "
                  << r.counts.emitted << ", filtered " << r.counts.filtered << ", transactions "
                  << r.transactions_committed << '\n';
        if (r.status != engine::run_status::stopped) std::cerr << "embed: " << r.message << '\n';
      }));

  // First signal: graceful (the open transaction commits, the group is left);
  // second: at once (the open transaction is aborted).
  int signals_seen = 0;
  std::function<void(boost::system::error_code, int)> on_signal = [&](boost::system::error_code ec, int) {
    if (ec) return;
    ++signals_seen;
    std::cout << "embed: signal " << signals_seen << "; stopping "
              << (signals_seen == 1 ? "gracefully" : "now") << '\n';
    stop_engine.emit(signals_seen == 1 ? asio::cancellation_type::total : asio::cancellation_type::terminal);
    if (signals_seen == 1) signals.async_wait(on_signal);
  };
  signals.async_wait(on_signal);

  io.run();
  std::cout << "embed: the timer ticked " << ticks_when_done << " times while the engine ran\n";
  return exit_status;
}
