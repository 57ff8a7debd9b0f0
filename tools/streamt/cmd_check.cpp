// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// streamt check: validate a plan on its own and print what a reviewer needs
// to pin it: identity and digest.

#include "plan/plan_json.hpp"
#include "tools/streamt/cli.hpp"

#include <iostream>

namespace streamt::cli {

namespace {
constexpr std::string_view help =
    "usage: streamt check PLAN\n"
    "\n"
    "Validate a plan exactly as the engine does before it contacts Kafka\n"
    "(fields, types, version, consistency, digest) and print its identity and\n"
    "digest. Pin the digest with 'streamt run --expect-digest'.\n"
    "\n"
    "exit codes: 0 valid; 1 invalid (the JSON path of the problem is printed); 2 usage;\n"
    "            74 standard output not writable\n";
}  // namespace

int cmd_check(std::span<char* const> args) {
  option_spec spec{{}, {"--help"}, {}};
  arguments a;
  if (auto done = parse_command("check", args, spec, help, a)) return *done;
  if (a.positionals.size() != 1) return usage_error("check", "expected one PLAN file");
  engine::exit_code code{};
  std::optional<plan::plan> p = load_plan_file("check", a.positionals[0], code);
  if (!p) return engine::to_int(code);
  std::cout << "plan_version:   " << p->version << '\n'
            << "application_id: " << p->identity.application_id << '\n'
            << "source_topic:   " << p->identity.source_topic << '\n'
            << "sink_topic:     " << p->identity.sink_topic << '\n'
            << "on_invalid:     " << plan::to_string(p->identity.on_invalid)
            << (p->identity.on_invalid == plan::on_invalid::dead_letter
                    ? " to " + p->identity.dead_letter_topic
                    : std::string())
            << '\n'
            << "operators:      ";
  for (std::size_t i = 0; i < p->identity.operators.size(); ++i)
    std::cout << (i ? ", " : "") << p->identity.operators[i];
  std::cout << '\n';
  // Said only for an Avro sink, so that the lines of every other plan stay
  // as scripts read them; the subject is what the run registers.
  if (p->sink.avro)
    std::cout << "sink_format:    avro (subject " << p->sink.avro->subject << ", fingerprint "
              << p->sink.avro->fingerprint << ")\n";
  if (!p->supersedes.empty())
    std::cout << "supersedes:     " << p->supersedes.front()
              << (p->supersedes.size() > 1
                      ? " (and " + std::to_string(p->supersedes.size() - 1) + " before it)"
                      : std::string())
              << '\n';
  std::cout << "digest:         " << plan::digest(*p) << '\n';
  return 0;
}

}  // namespace streamt::cli
