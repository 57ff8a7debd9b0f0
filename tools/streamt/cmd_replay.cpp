// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// streamt replay: the plan's pipeline offline, over kcat -J envelopes.

#include "engine/replay.hpp"
#include "tools/streamt/cli.hpp"

#include <fstream>
#include <iostream>

namespace streamt::cli {

namespace {
constexpr std::string_view help =
    "usage: streamt replay PLAN [--input FILE]\n"
    "\n"
    "Run a plan offline over records in kcat's -J envelope, one JSON object a line\n"
    "(partition, offset, key, payload; optional topic, ts, headers), read from\n"
    "--input or standard input, e.g.\n"
    "    kcat -C -J -e -b localhost:9092 -t orders | streamt replay plan.json\n"
    "Output records are written to stdout one envelope a line:\n"
    "    {\"topic\":SINK,\"key\":K,\"payload\":VALUE,[\"ts\":T,][\"headers\":[...],]\n"
    "     \"source\":{\"topic\":T,\"partition\":P,\"offset\":O}}\n"
    "A summary goes to stderr. Records follow exactly the path they take in 'run'.\n"
    "\n"
    "exit codes: 0 all input processed; 1 invalid plan; 2 usage;\n"
    "            65 invalid record or envelope (outputs before it are written, none after);\n"
    "            74 writing the output failed\n";
}  // namespace

int cmd_replay(std::span<char* const> args) {
  option_spec spec{{"--input"}, {"--help"}, {}};
  arguments a;
  if (auto done = parse_command("replay", args, spec, help, a)) return *done;
  if (a.positionals.size() != 1) return usage_error("replay", "expected one PLAN file");
  engine::exit_code code{};
  std::optional<plan::plan> p = load_plan_file("replay", a.positionals[0], code);
  if (!p) return engine::to_int(code);
  if (auto refused = refuse_unreadable_source("replay", *p)) return *refused;

  std::ifstream file;
  std::istream* in = &std::cin;
  if (auto input = a.get("--input"); input && *input != "-") {
    if (std::optional<std::string> why = not_a_file(*input)) return usage_error("replay", "--input: " + *why);
    file.open(*input, std::ios::binary);
    if (!file) {
      std::cerr << "streamt replay: cannot read '" << *input << "'\n";
      return engine::to_int(engine::exit_code::usage);
    }
    in = &file;
  }
  std::ios::sync_with_stdio(false);
  const engine::run_result r = engine::replay(*p, *in, std::cout);
  const auto& c = r.counts;
  std::cerr << "streamt replay: " << c.consumed << " consumed, " << c.emitted << " emitted, "
            << engine::filtered_and_tombstones(c) << "\n";
  if (r.invalid) {
    std::cerr << "streamt replay: invalid record at " << r.invalid->describe() << " ["
              << r.invalid->error.code << "]\n"
              << "  nothing after it was processed; fix or remove the record and replay from its offset\n";
    return engine::to_int(engine::exit_code::invalid_record);
  }
  if (r.failure) {
    std::cerr << "streamt replay: " << r.failure->message << " [" << r.failure->code << "]\n";
    return engine::to_int(r.failure->code == "write_failed" ? engine::exit_code::io_error
                                                            : engine::exit_code::invalid_record);
  }
  return 0;
}

}  // namespace streamt::cli
