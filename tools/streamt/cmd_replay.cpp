// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// streamt replay: the plan's pipeline offline, over kcat -J envelopes.

#include "engine/replay.hpp"
#include "tools/streamt/cli.hpp"
#include "tools/streamt/registry_cli.hpp"

#include <fstream>
#include <iostream>
#include <memory>
#include <variant>

namespace streamt::cli {

namespace {
constexpr std::string_view help =
    "usage: streamt replay PLAN [--input FILE] [--schema-registry URL [--registry-config FILE]\n"
    "                                          [--no-register]]\n"
    "\n"
    "Run a plan offline over records in kcat's -J envelope, one JSON object a line\n"
    "(partition, offset, key, payload; optional topic, ts, headers), read from\n"
    "--input or standard input, e.g.\n"
    "    kcat -C -J -e -b localhost:9092 -t orders | streamt replay plan.json\n"
    "Output records are written to stdout one envelope a line:\n"
    "    {\"topic\":SINK,\"key\":K,\"payload\":VALUE,[\"ts\":T,][\"headers\":[...],]\n"
    "     \"source\":{\"topic\":T,\"partition\":P,\"offset\":O}}\n"
    "A routed plan (INSERT INTO statements) writes one envelope per route that\n"
    "takes the record, in route order, each naming that route's sink topic and\n"
    "with its PARTITION BY key (else the input's key); a record no route takes is\n"
    "written unchanged to the plan's unrouted topic, with a last header\n"
    "\"streamt.reason\":\"unrouted\", or dropped when the plan has none.\n"
    "A summary goes to stderr. Records follow exactly the path they take in 'run'.\n"
    "\n"
    "A binary value, such as Avro in the Confluent wire format, is given as\n"
    "\"payload_base64\" (its bytes in base64) instead of \"payload\"; an Avro sink's\n"
    "outputs are written so. A plan that reads or writes Avro needs its registry:\n"
    "  --schema-registry URL    the Schema Registry: each writer schema is fetched\n"
    "                           once per id; an Avro sink's schema is registered\n"
    "                           under its subject as 'run' does\n"
    "  --registry-config FILE   its client settings in Java properties syntax\n"
    "  --no-register            an Avro sink's schema must be registered already\n"
    "\n"
    "exit codes: 0 all input processed; 1 invalid plan, or the sink schema refused;\n"
    "            2 usage; 65 invalid record or envelope (outputs before it are\n"
    "            written, none after); 69 the registry unavailable; 74 writing the\n"
    "            output failed; 78 a registry setting refused\n";

// The registry of a plan that reads or writes Avro, with the sink schema's
// id; or the exit code after saying why there is none.
struct avro_access {
  std::unique_ptr<registry_session> session;
  std::unique_ptr<writer_schemas> schemas;
  engine::replay_registry registry;
};

std::variant<std::unique_ptr<avro_access>, int> open_registry(const arguments& a, const plan::plan& p) {
  std::variant<std::optional<registry_flags>, int> flags = read_registry_flags("replay", a);
  if (const int* code = std::get_if<int>(&flags)) return *code;
  const std::optional<registry_flags>& f = std::get<0>(flags);
  // As in `run`, the registry flags of a JSON plan are checked and unused.
  if (!p.schema.avro && !p.sink.avro) return std::unique_ptr<avro_access>();
  if (!f)
    return usage_error("replay", std::string("the plan's ") + (p.schema.avro ? "source" : "sink") +
                                     " is Avro in the Confluent wire format: give --schema-registry URL, "
                                     "the Schema Registry its schemas are in");
  std::variant<kafka::registry::config, int> c = read_registry_config("replay", *f);
  if (const int* code = std::get_if<int>(&c)) return *code;
  const std::string subject = p.schema.avro ? p.schema.avro->subject : p.sink.avro->subject;
  auto session = registry_session::open(std::move(std::get<0>(c)));
  if (!session) return report_registry_failure("replay", "the registry", session.error(), subject, {});
  auto access = std::make_unique<avro_access>();
  access->session = std::move(*session);
  if (p.sink.avro) {
    std::variant<std::uint32_t, int> id =
        sink_schema_id("replay", *access->session, *p.sink.avro, !a.has("--no-register"));
    if (const int* code = std::get_if<int>(&id)) return *code;
    access->registry.sink_schema_id = std::get<0>(id);
  }
  access->schemas = std::make_unique<writer_schemas>(*access->session);
  access->registry.writer_schema = access->schemas->source();
  return access;
}

}  // namespace

int cmd_replay(std::span<char* const> args) {
  option_spec spec{{"--input", "--schema-registry", "--registry-config"}, {"--help", "--no-register"}, {}};
  arguments a;
  if (auto done = parse_command("replay", args, spec, help, a)) return *done;
  if (a.positionals.size() != 1) return usage_error("replay", "expected one PLAN file");
  engine::exit_code code{};
  std::optional<plan::plan> p = load_plan_file("replay", a.positionals[0], code);
  if (!p) return engine::to_int(code);

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
  // After the command line is known good: registering an Avro sink's
  // schema is the first thing replay does to anything outside itself.
  std::variant<std::unique_ptr<avro_access>, int> avro = open_registry(a, *p);
  if (const int* failed = std::get_if<int>(&avro)) return *failed;
  const std::unique_ptr<avro_access>& registry = std::get<0>(avro);
  std::ios::sync_with_stdio(false);
  const engine::run_result r = engine::replay(*p, *in, std::cout, registry ? &registry->registry : nullptr);
  const auto& c = r.counts;
  std::cerr << "streamt replay: " << engine::count_text(c, false, engine::route_names(*p)) << "\n";
  if (r.invalid) {
    std::cerr << "streamt replay: invalid record at " << r.invalid->describe() << " ["
              << r.invalid->error.code << "]\n"
              << "  nothing after it was processed; fix or remove the record and replay from its offset\n";
    return engine::to_int(engine::exit_code::invalid_record);
  }
  if (registry && r.failure && p->schema.avro)
    if (std::optional<int> failed = registry->schemas->report("replay", p->schema.avro->subject))
      return *failed;
  if (r.failure) {
    std::cerr << "streamt replay: " << r.failure->message << " [" << r.failure->code << "]\n";
    return engine::to_int(r.failure->code == "write_failed" ? engine::exit_code::io_error
                                                            : engine::exit_code::invalid_record);
  }
  return 0;
}

}  // namespace streamt::cli
