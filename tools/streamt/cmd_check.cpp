// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// streamt check: validate a plan on its own and print what a reviewer needs
// to pin it: identity and digest. With --schema-registry, also whether
// every version registered under an Avro source's subject can be read as
// the plan's reader schema, for what the plan reads: a producer's schema
// change is caught before a record written with it reaches the engine.

#include "operators/avro_decode.hpp"
#include "plan/avro_resolve.hpp"
#include "plan/avro_schema.hpp"
#include "plan/avro_sink.hpp"
#include "plan/plan_json.hpp"
#include "tools/streamt/cli.hpp"
#include "tools/streamt/registry_cli.hpp"

#include <iostream>
#include <set>
#include <sstream>
#include <variant>

namespace streamt::cli {

namespace {
constexpr std::string_view help =
    "usage: streamt check PLAN\n"
    "       streamt check PLAN --schema-registry URL [--registry-config FILE]\n"
    "                          [--subject SUBJECT]\n"
    "\n"
    "Validate a plan exactly as the engine does before it contacts Kafka\n"
    "(fields, types, version, consistency, digest) and print its identity and\n"
    "digest. Pin the digest with 'streamt run --expect-digest'.\n"
    "\n"
    "  --schema-registry URL  for a plan with an Avro source: list every version\n"
    "                         registered under its subject and say, for each,\n"
    "                         whether records written with it can be read as the\n"
    "                         plan's reader schema for the columns the plan reads\n"
    "                         (and if not, which field and why)\n"
    "  --registry-config FILE the registry's settings (Java properties: basic auth,\n"
    "                         TLS files, the request timeout)\n"
    "  --subject SUBJECT      the subject to check, if not the plan's (the one it\n"
    "                         was compiled from, else SOURCE_TOPIC-value)\n"
    "\n"
    "exit codes: 0 valid (and, with --schema-registry, every version resolves);\n"
    "            1 invalid (the JSON path of the problem is printed), or a\n"
    "            registered version that does not resolve, or no such subject;\n"
    "            2 usage; 69 the registry unreachable, timed out or failing (5xx);\n"
    "            74 standard output not writable; 78 the registry refused the\n"
    "            settings (credentials, TLS, URL) or a --registry-config setting\n"
    "            is refused\n";

// What a registered version means to the plan.
struct verdict_line {
  enum { resolves, partly, refused } outcome = resolves;
  std::string why;  // partly, refused: what the resolver or the parser said
};

// Whether `registered` (one version's answer) resolves to `reader` for what
// the plan reads (`needs`). "partly": the schemas resolve, but some datum
// the writer's schema allows (a union branch, an enum symbol) the reader
// can't take, and a record holding one would be invalid.
verdict_line judge(const kafka::registry::subject_schema& registered, const plan::avro::schema& reader,
                   const plan::avro::needs& needs) {
  verdict_line v;
  v.outcome = verdict_line::refused;
  if (registered.schema.type != kafka::registry::schema_type::avro) {
    v.why = "the schema is " + std::string(kafka::registry::to_string(registered.schema.type)) + ", not Avro";
    return v;
  }
  if (!registered.schema.references.empty()) {
    v.why = "the schema refers to another subject's schema (the reference '" +
            registered.schema.references.front().name + "'), which this version of streamt does not resolve";
    return v;
  }
  result<plan::avro::schema> writer = plan::avro::parse_schema(registered.schema.text);
  if (!writer) {
    v.why = "the schema is refused: " + writer.error().path + ": " + writer.error().message;
    return v;
  }
  result<plan::avro::resolution> resolved = plan::avro::resolve(*writer, reader, needs);
  if (!resolved) {
    v.why = "field " + resolved.error().path + ": " + resolved.error().message;
    return v;
  }
  std::set<std::string> partial;  // each reason once, in a stable order
  for (const plan::avro::step& s : resolved->steps)
    if (s.kind == plan::avro::step_kind::unresolvable ||
        (s.kind == plan::avro::step_kind::enum_ && !s.why.empty()))
      partial.insert(s.why);
  v.outcome = partial.empty() ? verdict_line::resolves : verdict_line::partly;
  for (const std::string& why : partial) v.why += (v.why.empty() ? "" : "; ") + why;
  return v;
}

// The registry part of check: one line per registered version. Returns the
// exit code: 0 when every version resolves, 1 when one does not, or the
// registry failure's.
int check_registered_versions(const plan::plan& p, const registry_flags& flags) {
  auto settings = read_registry_config("check", flags);
  if (const int* code = std::get_if<int>(&settings)) return *code;
  const plan::avro_source& avro = *p.schema.avro;
  const std::string subject =
      flags.subject.value_or(avro.subject.empty() ? plan::avro::value_subject(p.schema.topic) : avro.subject);
  const std::string context = "the versions registered under the subject '" + subject + "'";
  auto session = registry_session::open(std::move(std::get<kafka::registry::config>(settings)));
  if (!session) return report_registry_failure("check", context, session.error(), subject, std::nullopt);
  auto versions = (*session)->subject_versions(subject);
  if (!versions) return report_registry_failure("check", context, versions.error(), subject, std::nullopt);
  result<plan::avro::schema> reader = plan::avro::parse_schema(avro.schema);
  // The plan loader parsed this very text: a failure here is a bug.
  if (!reader) throw std::logic_error("the plan's reader schema does not parse: " + reader.error().message);
  const plan::avro::needs needs = operators::avro_needs(p);

  std::ostringstream out;
  out << "registry:       " << (*session)->url() << '\n'
      << "subject:        " << subject << " (" << versions->size()
      << (versions->size() == 1 ? " version" : " versions") << " registered)\n";
  std::size_t refused = 0, partly = 0;
  for (std::int64_t version : *versions) {
    auto got = (*session)->subject_version(subject, version);
    if (!got)
      return report_registry_failure("check", "version " + std::to_string(version) + " of " + context,
                                     got.error(), subject, version);
    const verdict_line v = judge(*got, *reader, needs);
    out << "  version " << version << " (id " << got->id << "): ";
    switch (v.outcome) {
      case verdict_line::resolves:
        out << "resolves";
        break;
      case verdict_line::partly:
        ++partly;
        out << "resolves partly (a record holding such a value is invalid): " << v.why;
        break;
      case verdict_line::refused:
        ++refused;
        out << "does not resolve: " << v.why;
        break;
    }
    if (avro.subject == subject && avro.version == version) out << " [the plan's version]";
    out << '\n';
  }
  if (refused + partly == 0) {
    out << "resolves:       every registered version\n";
    std::cout << out.str();
    return 0;
  }
  out << "resolves:       not every registered version (" << refused << " not, " << partly
      << " partly): a record written with such a version stops the run, or is dead-lettered\n";
  std::cout << out.str();
  return engine::to_int(engine::exit_code::rejected);
}

}  // namespace

int cmd_check(std::span<char* const> args) {
  option_spec spec{{"--schema-registry", "--registry-config", "--subject"}, {"--help"}, {}};
  arguments a;
  if (auto done = parse_command("check", args, spec, help, a)) return *done;
  if (a.positionals.size() != 1) return usage_error("check", "expected one PLAN file");
  auto registry = read_registry_flags("check", a);
  if (const int* failed = std::get_if<int>(&registry)) return *failed;
  const std::optional<registry_flags>& flags = std::get<std::optional<registry_flags>>(registry);
  engine::exit_code code{};
  std::optional<plan::plan> p = load_plan_file("check", a.positionals[0], code);
  if (!p) return engine::to_int(code);
  if (flags && !p->schema.avro)
    return usage_error("check",
                       "--schema-registry checks the registered versions of an Avro source's schema; " +
                           a.positionals[0] +
                           "'s source is JSON (its schema has no \"avro\" member): compile the "
                           "plan against an Avro schema, or leave out --schema-registry");
  std::cout << "plan_version:   " << p->version << '\n'
            << "application_id: " << p->identity.application_id << '\n'
            << "source_topic:   " << p->identity.source_topic << '\n'
            << (plan::is_routed(*p) ? "sink_topics:    " : "sink_topic:     ")
            << plan::sink_topics_text(*p, ", ") << '\n'
            << "on_invalid:     " << plan::to_string(p->identity.on_invalid)
            << (p->identity.on_invalid == plan::on_invalid::dead_letter
                    ? " to " + p->identity.dead_letter_topic
                    : std::string())
            << '\n'
            << "operators:      ";
  for (std::size_t i = 0; i < p->identity.operators.size(); ++i)
    std::cout << (i ? ", " : "") << p->identity.operators[i];
  std::cout << '\n';
  // Said only for a routed plan, so that the lines of every plan of one
  // SELECT stay as scripts read them.
  if (plan::is_routed(*p)) {
    std::cout << "routes:         " << p->routes.size() << '\n'
              << "unrouted:       " << (p->unrouted_topic.empty() ? "drop" : "to " + p->unrouted_topic)
              << '\n';
    if (plan::canonical_json(*p).find("\"key_format\"") != std::string::npos)
      std::cout << "key_format:     " << plan::to_string(p->key_format) << '\n';
  }
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
  if (!flags) return 0;
  if (!p->schema.avro->subject.empty())
    std::cout << "avro_source:    subject " << p->schema.avro->subject << " version "
              << p->schema.avro->version << ", fingerprint " << p->schema.avro->fingerprint << '\n';
  else
    std::cout << "avro_source:    from a file, fingerprint " << p->schema.avro->fingerprint << '\n';
  std::cout.flush();
  return check_registered_versions(*p, *flags);
}

}  // namespace streamt::cli
