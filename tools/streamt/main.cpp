// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// streamt: compile a SQL transform into a reviewed plan and run it.
// Each subcommand lives in its own cmd_*.cpp; this file only dispatches.

#include "tools/streamt/cli.hpp"

#include "engine/version.hpp"
#include "kafka/consumer.hpp"
#include "plan/plan.hpp"
#include "plan/spelling.hpp"

#include <boost/log/core/core.hpp>

#include <pthread.h>
#include <signal.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <string_view>

namespace {

sigset_t inherited_mask;

// Runs before the initialisers of the shared libraries and before main():
// the earliest a program can hold a signal (see release_stop_signals).
void hold_stop_signals(int, char**, char**) {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, &inherited_mask);
}
[[gnu::section(".preinit_array"), gnu::used]] void (*hold_stop_signals_entry)(int, char**,
                                                                              char**) = hold_stop_signals;

constexpr std::string_view top_help =
    "usage: streamt COMMAND [ARGS]\n"
    "\n"
    "Run one SQL-defined, strictly typed transform from a Kafka topic to another.\n"
    "\n"
    "commands:\n"
    "  compile   turn a SQL statement and a source schema into a plan (JSON)\n"
    "  check     validate a plan; print its identity and digest\n"
    "  explain   print a plan's pipeline stage by stage\n"
    "  replay    run a plan offline over records in kcat's -J envelope\n"
    "  run       run a plan against Kafka, exactly once\n"
    "  offsets   show an application's committed offsets and lag; skip a poisoned record\n"
    "  status    summarise a fleet: which plan holds the application, partitions, lag\n"
    "  diff      preview a plan change on live data: run two plans over the same records\n"
    "\n"
    "'streamt COMMAND --help' describes a command and its exit codes.\n";

// The end of `streamt run`. A consumer handle left to the process's exit
// (kafka::consumer::left_to_exit) keeps librdkafka's threads running; exit()
// would run the static destructors under them, so the output is flushed and
// the process ends at once instead.
int run_ended(int code) {
  if (streamt::kafka::consumer::left_to_exit() == 0) return code;
  boost::log::core::get()->flush();
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

// What a command that printed its result ends with: its own exit code, or
// 74 when that result could not be written (a full disk, a closed pipe): a
// script must not read 0 for a report nobody got. (diff and replay check
// their own output; run writes only to stderr.)
int output_written(std::string_view command, int code) {
  std::cout.flush();
  if (std::cout || code != 0) return code;
  const int io = streamt::engine::to_int(streamt::engine::exit_code::io_error);
  streamt::cli::say_error(command, "writing to standard output failed", io);
  return io;
}

}  // namespace

void streamt::cli::release_stop_signals() { pthread_sigmask(SIG_SETMASK, &inherited_mask, nullptr); }

int main(int argc, char** argv) {
  // Only `streamt run` handles stop signals; the other commands keep the
  // default action (and a stop held since start-up is delivered now).
  if (argc < 2 || std::string_view(argv[1]) != "run") streamt::cli::release_stop_signals();
  try {
    if (argc < 2) {
      std::cerr << top_help;
      return streamt::engine::to_int(streamt::engine::exit_code::usage);
    }
    const std::string_view command = argv[1];
    std::span<char* const> rest(argv + 2, static_cast<std::size_t>(argc - 2));
    if (command == "compile") return output_written(command, streamt::cli::cmd_compile(rest));
    if (command == "check") return output_written(command, streamt::cli::cmd_check(rest));
    if (command == "explain") return output_written(command, streamt::cli::cmd_explain(rest));
    if (command == "replay") return streamt::cli::cmd_replay(rest);
    if (command == "run") return run_ended(streamt::cli::cmd_run(rest));
    if (command == "offsets") return output_written(command, streamt::cli::cmd_offsets(rest));
    if (command == "status") return output_written(command, streamt::cli::cmd_status(rest));
    if (command == "diff") return streamt::cli::cmd_diff(rest);
    if (command == "--help" || command == "-h" || command == "help") {
      std::cout << top_help;
      return 0;
    }
    if (command == "--version" || command == "version") {
      std::cout << "streamt " << streamt::engine::version << " (plan versions "
                << streamt::plan::oldest_plan_version << " to " << streamt::plan::newest_plan_version
                << ")\n";
      return 0;
    }
    std::cerr << "streamt: unknown command '" << command << "'";
    constexpr std::array<std::string_view, 8> commands{"compile", "check",   "explain", "replay",
                                                       "run",     "offsets", "status",  "diff"};
    if (std::optional<std::size_t> i = streamt::plan::nearest(command, commands))
      std::cerr << "; did you mean '" << commands[*i] << "'?";
    std::cerr << "\n\n" << top_help;
    return streamt::engine::to_int(streamt::engine::exit_code::usage);
  } catch (const std::exception& e) {
    // Expected failures are values; reaching here is a bug in streamt.
    const int code = streamt::engine::to_int(streamt::engine::exit_code::internal);
    if (streamt::cli::log_lines())
      streamt::cli::say_error(argv[1], std::string("internal error: ") + e.what() + " (please report this)",
                              code);
    else
      std::cerr << "streamt: internal error: " << e.what() << " (please report this)\n";
    return code;
  }
}
