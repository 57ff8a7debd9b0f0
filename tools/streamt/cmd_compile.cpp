// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// streamt compile: SQL + schema → plan (contract §3); the schema from a file or,
// for an Avro source, from a Schema Registry; the plan it supersedes from a
// plan file, a digest, or the application's plan log in Kafka.

#include "engine/client_failure.hpp"
#include "engine/lineage.hpp"
#include "engine/session/claims.hpp"
#include "kafka/plan_log.hpp"
#include "plan/avro_sink.hpp"
#include "plan/coverage.hpp"
#include "plan/json_schema.hpp"
#include "plan/plan_json.hpp"
#include "plan/schema_file.hpp"
#include "plan/spelling.hpp"
#include "plan/sql/compile.hpp"
#include "plan/sql/parser.hpp"
#include "tools/streamt/cli.hpp"
#include "tools/streamt/registry_cli.hpp"

#include <unistd.h>

#include <boost/json/parse.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <limits>
#include <variant>

namespace streamt::cli {

namespace {
constexpr std::string_view help =
    "usage: streamt compile --schema FILE --application-id ID [--sink-topic TOPIC]\n"
    "                       [--value-format json|json-registry]\n"
    "                       [--unrouted drop | --unrouted-topic TOPIC]\n"
    "                       [--key-format string|long]\n"
    "                       [--require-disjoint] [--require-total]\n"
    "                       [--source-topic TOPIC] [--sink-format json|avro]\n"
    "                       [--on-invalid fail|dead-letter --dead-letter-topic TOPIC]\n"
    "                       [--supersedes OLD_PLAN|DIGEST | --supersedes-standing\n"
    "                        --bootstrap-servers HOSTS [--config FILE] [-X KEY=VALUE]\n"
    "                        [--timeout-ms N]] [--output FILE] [SQL_FILE | -]\n"
    "       streamt compile --schema-registry URL [--registry-config FILE]\n"
    "                       [--subject SUBJECT] [--schema-version N]\n"
    "                       --application-id ID [--sink-topic TOPIC] [...as above]\n"
    "\n"
    "Compile one SELECT statement of the streamt SQL subset, or INSERT INTO <sink>\n"
    "SELECT ... statements (routes, each with its own sink, predicate, projection\n"
    "and optional PARTITION BY key column), against an explicit source schema\n"
    "into a plan (JSON), written to stdout or atomically to --output.\n"
    "The SQL is read from SQL_FILE, or from standard input if it is '-' or absent.\n"
    "\n"
    "  --schema FILE          the source schema: {\"source\", \"topic\", \"columns\"}, or\n"
    "                         an Avro record schema (.avsc) for a topic of Avro in\n"
    "                         the Confluent wire format: its fields are the columns,\n"
    "                         the FROM name is the source, and the topic is the FROM\n"
    "                         name or --source-topic\n"
    "  --schema-registry URL  instead of --schema: take the Avro schema from this\n"
    "                         Schema Registry (its Confluent-compatible API, e.g.\n"
    "                         http://host:8080/apis/ccompat/v7): the subject\n"
    "                         TOPIC-value, its latest version; the plan pins the\n"
    "                         schema, the subject and the version, not the URL.\n"
    "                         A JSON Schema subject gives a json-registry source\n"
    "                         whose columns the JSON Schema maps to\n"
    "  --registry-config FILE the registry's settings (Java properties: basic auth,\n"
    "                         TLS files, the request timeout)\n"
    "  --subject SUBJECT      the registry subject, if not TOPIC-value\n"
    "  --schema-version N     the subject's version N instead of its latest\n"
    "  --value-format FORMAT  with a streamt schema file: json (each value a JSON\n"
    "                         object; the default) or json-registry (each value a\n"
    "                         zero byte, a 4-byte schema id, then the JSON object,\n"
    "                         as Confluent's JsonSchemaSerializer writes it; the\n"
    "                         frame is checked and stripped, the id not looked up);\n"
    "                         with --schema-registry, json-registry requires the\n"
    "                         subject to hold a JSON Schema\n"
    "  --source-topic TOPIC   with an Avro schema: the topic, if not the FROM name\n"
    "  --application-id ID    consumer group id and transactional id prefix\n"
    "  --sink-topic TOPIC     the topic a single SELECT's results are written to\n"
    "                         (required for it; refused with INSERT INTO\n"
    "                         statements, which name their sinks)\n"
    "  --unrouted drop        with INSERT INTO statements: records no statement\n"
    "                         takes are dropped and counted (the default)\n"
    "  --unrouted-topic T     with INSERT INTO statements: records no statement\n"
    "                         takes are written unchanged to T, in the same\n"
    "                         transaction, with headers saying why\n"
    "  --key-format FORMAT    how a BIGINT PARTITION BY column becomes the key:\n"
    "                         string (its decimal text; the default) or long (8\n"
    "                         big-endian bytes, as Kafka's LongSerializer); only\n"
    "                         with a BIGINT PARTITION BY column\n"
    "  --require-disjoint     with INSERT INTO statements: refuse the query (exit 1)\n"
    "                         when two statements can take the same record\n"
    "  --require-total        with INSERT INTO statements: refuse the query (exit 1)\n"
    "                         when some record is taken by no statement (nulls\n"
    "                         included)\n"
    "  --sink-format FORMAT   json (each output a JSON object) or avro (Avro in the\n"
    "                         Confluent wire format, its schema derived from the\n"
    "                         projection, pinned in the plan and registered under\n"
    "                         TOPIC-value when the run starts); the default is the\n"
    "                         source's format\n"
    "  --on-invalid POLICY    what the run does with an invalid record: fail (stop\n"
    "                         at it, exit 65; the default) or dead-letter (write it\n"
    "                         unchanged to --dead-letter-topic, in the same\n"
    "                         transaction as the outputs, and go on)\n"
    "  --dead-letter-topic T  the topic of invalid records (with dead-letter)\n"
    "  --supersedes OLD_PLAN  the new plan succeeds OLD_PLAN (same application id,\n"
    "                         source and sink): it records OLD_PLAN's digest and\n"
    "                         OLD_PLAN's own predecessors, so that a fleet can\n"
    "                         tell an update from an unrelated plan\n"
    "  --supersedes DIGEST    the same from the old plan's digest alone (a value\n"
    "                         that starts with sha256:, then 64 lowercase hex\n"
    "                         digits, as check and status show it): nothing is\n"
    "                         checked and no older predecessor recorded; the run\n"
    "                         checks it against the plan log and the commits\n"
    "  --supersedes-standing  the new plan succeeds the plan that holds its\n"
    "                         application id in the plan log, read from Kafka;\n"
    "                         a plan that is the standing one is written as it\n"
    "                         stands\n"
    "  --bootstrap-servers HOSTS  with --supersedes-standing: the Kafka brokers\n"
    "                         (also --bootstrap-server or -b)\n"
    "  --config FILE          librdkafka settings in Java properties syntax (TLS, SASL)\n"
    "  -X KEY=VALUE           a librdkafka setting (repeatable)\n"
    "  --timeout-ms N         bound on each request (default 30000; 1..3600000)\n"
    "  --output FILE          write the plan here instead of stdout\n"
    "\n"
    "exit codes: 0 plan written; 1 SQL or schema rejected (nothing written), the\n"
    "            registry has no such subject or version, or no plan stands in\n"
    "            the plan log; 2 usage (also --sink-topic missing for a\n"
    "            SELECT or given with INSERT INTO, --unrouted or --unrouted-topic\n"
    "            for a SELECT, --key-format without a BIGINT PARTITION BY);\n"
    "            1 also when --require-disjoint or --require-total is not met\n"
    "            (the coverage report on stderr names each record it found);\n"
    "            69 the registry or the brokers unreachable, timed out or failing;\n"
    "            73 --output not writable; 74 standard output not writable;\n"
    "            78 the registry refused the settings (credentials, TLS, URL) or\n"
    "            a --registry-config, --config or -X setting is refused\n";
// The coverage of a routed plan's statements on stderr, a line each, and
// whether --require-disjoint or --require-total refuses it: 0 to go on, else
// the exit code. An overlap or a gap is not an error by itself (a record
// written to two sinks, or dropped, may be what the user means); the
// options make it one. A report the analysis could not finish refuses
// either option: nothing unproven is promised.
int report_coverage(const plan::plan& p, const std::string& sql_name, bool require_disjoint,
                    bool require_total) {
  result<plan::coverage_report> c = plan::analyse_coverage(p.schema, p.routes);
  if (!c) {
    say_error("compile", sql_name + ": coverage: " + c.error().message);
    return engine::to_int(engine::exit_code::rejected);
  }
  const std::string routes = std::to_string(p.routes.size()) + (p.routes.size() == 1 ? " route" : " routes");
  if (c->complete && c->overlaps.empty() && c->gaps.empty())
    std::cerr << "streamt compile: " << sql_name << ": coverage: the " << routes
              << " are disjoint and take every record\n";
  for (const std::string& line : plan::report_lines(p.schema, p.routes, *c))
    std::cerr << "streamt compile: " << sql_name << ": coverage: " << line << '\n';
  const std::string unrouted =
      p.unrouted_topic.empty() ? "dropped and counted" : "written to " + p.unrouted_topic;
  if (!c->gaps.empty() && !require_total)
    std::cerr << "streamt compile: " << sql_name << ": coverage: records no route takes are " << unrouted
              << '\n';
  std::cerr << std::flush;
  if (require_disjoint && (!c->complete || !c->overlaps.empty())) {
    say_error("compile", sql_name + ": --require-disjoint: " +
                             (c->complete ? "routes overlap (above): make their predicates exclusive, e.g. "
                                            "with the opposite comparison on one column"
                                          : "the overlap could not be decided within the analysis bound"));
    return engine::to_int(engine::exit_code::rejected);
  }
  if (require_total && (!c->complete || !c->gaps.empty())) {
    say_error("compile", sql_name + ": --require-total: " +
                             (c->complete ? "some records no route takes (above): add a route that takes "
                                            "them (a column's nulls need an IS NULL route), or choose "
                                            "--unrouted drop or --unrouted-topic and leave --require-total "
                                            "out"
                                          : "the coverage could not be decided within the analysis bound"));
    return engine::to_int(engine::exit_code::rejected);
  }
  return 0;
}

// An Avro schema file is a JSON object with a "type" member (a streamt
// schema file has none); anything else is left to load_schema's messages.
bool is_avro_schema(std::string_view text) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(text, ec);
  return !ec && v.is_object() && v.get_object().contains("type") && !v.get_object().contains("columns");
}

// Whether the query is INSERT INTO statements; nullopt if it does not lex
// and parse (the compiler then says why).
std::optional<bool> routed_query(std::string_view sql) {
  auto tokens = plan::sql::lex(sql);
  if (!tokens) return std::nullopt;
  auto q = plan::sql::parse(*tokens);
  if (!q) return std::nullopt;
  return q->front().sink.has_value();
}

// The query's FROM name, or empty if it does not lex and parse.
std::string from_name(std::string_view sql) {
  auto tokens = plan::sql::lex(sql);
  if (!tokens) return {};
  auto q = plan::sql::parse(*tokens);
  return q ? q->front().source.name : std::string();
}

// The source schema taken from the registry: `subject` (the topic's value
// subject unless --subject) at --schema-version or the latest. The plan
// pins what was read, and the version it was (the latest's number too), so
// that a version registered later changes nothing the plan reads. A JSON
// Schema's subject gives a json-registry source, whose columns are what the
// plan keeps of it. On failure prints why and returns the exit code.
std::variant<plan::schema, int> schema_from_registry(const registry_flags& flags, bool json_registry,
                                                     const std::string& from, const std::string& topic) {
  auto settings = read_registry_config("compile", flags);
  if (const int* code = std::get_if<int>(&settings)) return *code;
  const std::string subject = flags.subject.value_or(plan::avro::value_subject(topic));
  const std::string context = "the source schema from the registry (subject '" + subject + "')";
  auto session = registry_session::open(std::move(std::get<kafka::registry::config>(settings)));
  if (!session) return report_registry_failure("compile", context, session.error(), subject, flags.version);
  auto got = (*session)->subject_version(subject, flags.version);
  if (!got) {
    const int code = report_registry_failure("compile", context, got.error(), subject, flags.version);
    // A version that does not exist: say which do, when the registry says.
    if (got.error().what_missing == kafka::registry::missing::version)
      if (auto versions = (*session)->subject_versions(subject); versions && !versions->empty()) {
        std::string listed;
        for (std::int64_t v : *versions) listed += (listed.empty() ? "" : ", ") + std::to_string(v);
        say_error("compile", "the subject '" + subject + "' has the versions " + listed);
      }
    return code;
  }
  const int rejected = engine::to_int(engine::exit_code::rejected);
  const std::string where = "schema registry " + (*session)->url() + ", subject '" + subject + "' version " +
                            std::to_string(got->version);
  const bool json_schema = got->schema.type == kafka::registry::schema_type::json;
  if (!json_schema && got->schema.type != kafka::registry::schema_type::avro) {
    say_error("compile",
              where + ": the schema is " + std::string(kafka::registry::to_string(got->schema.type)) +
                  "; streamt reads Avro, and JSON framed by a JSON Schema serializer, in the Confluent wire "
                  "format",
              rejected);
    return rejected;
  }
  if (json_registry && !json_schema) {
    say_error("compile",
              where +
                  ": the schema is Avro, not a JSON Schema; drop --value-format json-registry to read "
                  "the topic as Avro",
              rejected);
    return rejected;
  }
  if (!got->schema.references.empty()) {
    say_error("compile",
              where + ": the schema refers to other subjects' schemas (the reference '" +
                  got->schema.references.front().name +
                  "'), which this version of streamt does not resolve; register the schema with its named "
                  "types inline",
              rejected);
    return rejected;
  }
  if (got->version < 1 || got->version > std::numeric_limits<int>::max()) {
    say_error("compile", where + ": the registry answered a version outside 1 to 2147483647", rejected);
    return rejected;
  }
  result<plan::schema> schema = json_schema ? plan::schema_from_json_schema(got->schema.text, from, topic)
                                            : plan::schema_from_avro(got->schema.text, from, topic, subject,
                                                                     static_cast<int>(got->version));
  if (!schema) {
    print_diagnostic("compile", where, schema.error());
    return rejected;
  }
  return std::move(*schema);
}

// What a new plan succeeds: the plan it replaces, that plan's own
// predecessors (nearest first), and its output shape when known.
struct predecessor {
  std::string digest;
  std::vector<std::string> chain;
  std::string output_shape;  // empty when not known (a digest given alone)
  std::string described;     // how the messages name it
};

// A --supersedes value names a plan by its digest when it starts with
// "sha256:", in any case (a plan file of such a name is given as
// ./sha256:...); anything else is a plan file. The prefix decides, not
// whether a file exists, so a command line means the same in any directory.
bool names_a_digest(std::string_view value) {
  return value.size() >= plan::digest_prefix.size() &&
         plan::equal_ignoring_case(value.substr(0, plan::digest_prefix.size()), plan::digest_prefix);
}

bool is_hex_digest_without_prefix(std::string_view v) {
  return v.size() == 64 && v.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// The plan a --supersedes value names: a digest (nothing to check it
// against: the engine checks at start, against the plan log and each
// partition's last commit), or a plan file, which must be on the same
// application id, source and sink. On failure prints why and returns the
// exit code.
std::variant<predecessor, int> predecessor_named(const std::string& value, const std::string& application_id,
                                                 const std::string& source_topic,
                                                 const std::vector<std::string>& sinks) {
  if (names_a_digest(value)) {
    if (std::optional<std::string> why = plan::digest_problem(value))
      return usage_error("compile", "--supersedes '" + value + "' is not a plan digest: " + *why +
                                        " ('sha256:' and 64 lowercase hex digits, as streamt check and "
                                        "streamt status show it)");
    return predecessor{value, {}, {}, "the plan " + value};
  }
  // The hex without its prefix, and no file of that name: say how to write it.
  if (is_hex_digest_without_prefix(value) && !std::filesystem::exists(value))
    return usage_error("compile", "--supersedes '" + value +
                                      "' is no plan file; to name a plan by its digest, write it as "
                                      "sha256:" +
                                      value);
  engine::exit_code code{};
  std::optional<plan::plan> old = load_plan_file("compile", value, code);
  if (!old) return engine::to_int(code);
  // Offsets mean something only on the same group and source, and a
  // successor writing elsewhere would leave the old sink half-written.
  const auto differs = [&](std::string_view what, const std::string& theirs, const std::string& ours) {
    say_error("compile",
              "--supersedes " + value + ": its " + std::string(what) + " is '" + theirs + "', this plan's '" +
                  ours +
                  "'; a plan succeeds one on the same application id, source and sink topics only "
                  "(a new application id starts a new application instead)",
              engine::to_int(engine::exit_code::rejected));
    return engine::to_int(engine::exit_code::rejected);
  };
  if (old->identity.application_id != application_id)
    return differs("application id", old->identity.application_id, application_id);
  if (old->identity.source_topic != source_topic)
    return differs("source topic", old->identity.source_topic, source_topic);
  // A routed plan's sinks are all of its sink topics, in order.
  const auto listed = [](const std::vector<std::string>& topics) {
    std::string out;
    for (const std::string& t : topics) out += (out.empty() ? "" : ", ") + t;
    return out;
  };
  if (plan::sink_topics(*old) != sinks)
    return differs(sinks.size() == 1 ? "sink topic" : "sink topics", listed(plan::sink_topics(*old)),
                   listed(sinks));
  return predecessor{plan::digest(*old), old->supersedes, plan::output_shape(*old), "the plan " + value};
}

// The plan that holds `application_id` in its plan log, read as an instance
// reads it at start (engine/session/claims.hpp). Nothing standing is an
// error: there is nothing to supersede. On failure prints why and returns
// the exit code.
std::variant<predecessor, int> standing_predecessor(const kafka_access& k,
                                                    const std::string& application_id) {
  const std::string topic = engine::session::plan_log_topic(application_id);
  const int rejected = engine::to_int(engine::exit_code::rejected);
  const std::string nothing_stands =
      ": no plan holds the application, so there is nothing to supersede; compile without "
      "--supersedes-standing (the first plan of an application supersedes none)";
  auto log = kafka::read_log(k.bootstrap_servers, k.user, topic, engine::session::max_plan_log_records, false,
                             k.timeout);
  if (!log) {
    const auto code = log.error().info.code;
    if (kafka::is_unknown_topic_or_partition(code)) {
      say_error("compile",
                "--supersedes-standing: application '" + application_id + "' has no plan log (" + topic +
                    ") at " + k.bootstrap_servers + nothing_stands +
                    "; or check --application-id, --bootstrap-servers, and that these credentials may "
                    "describe and read " +
                    topic,
                rejected);
      return rejected;
    }
    // The reader's settings refused (a --config or -X key librdkafka rejects).
    if (kafka::is_refused_setting(code)) {
      const int config = engine::to_int(engine::exit_code::config);
      say_error("compile", "--supersedes-standing: " + log.error().message, config);
      return config;
    }
    const int unavailable = engine::to_int(engine::exit_code::unavailable);
    say_error("compile",
              "--supersedes-standing: " + log.error().message +
                  "; check --bootstrap-servers and that the brokers are up, then try again",
              unavailable);
    return unavailable;
  }
  const std::vector<engine::session::log_record> records = engine::log_of(std::move(log->records));
  const std::optional<engine::session::logged_claim> standing =
      engine::session::standing_claim(engine::session::claims_in(records));
  if (!standing) {
    say_error("compile",
              "--supersedes-standing: the plan log " + topic + " holds no claim that stands (" +
                  std::to_string(records.size()) + " record" + (records.size() == 1 ? "" : "s") + ")" +
                  nothing_stands,
              rejected);
    return rejected;
  }
  const engine::lineage& l = standing->claim.plan;
  const std::string claim =
      "the plan log " + topic + "'s standing claim (offset " + std::to_string(standing->offset) + ")";
  // Every instance keys its claim with its application id: another key
  // means the log is not this application's, whatever its name says.
  for (const engine::session::log_record& r : records)
    if (r.offset == standing->offset && r.key != application_id) {
      say_error("compile",
                "--supersedes-standing: " + claim + " is keyed '" + r.key +
                    "', not this plan's application id '" + application_id +
                    "'; the log is not this application's: check --application-id, or give "
                    "--supersedes OLD_PLAN",
                rejected);
      return rejected;
    }
  // A claim of ours holds well-formed digests; anything else was written by
  // another tool, and must not become part of a plan.
  std::vector<std::string> named{l.plan_digest};
  named.insert(named.end(), l.supersedes.begin(), l.supersedes.end());
  for (const std::string& d : named)
    if (std::optional<std::string> why = plan::digest_problem(d)) {
      say_error("compile",
                "--supersedes-standing: " + claim + " names '" + d.substr(0, 80) +
                    "', which is not a plan digest (" + *why + "); give --supersedes OLD_PLAN instead",
                rejected);
      return rejected;
    }
  return predecessor{l.plan_digest, l.supersedes, l.output_shape,
                     "the plan standing in " + topic + ", " + l.plan_digest + " (claimed at offset " +
                         std::to_string(standing->offset) +
                         (l.instance.empty() ? std::string() : " by instance " + l.instance) + ")"};
}

// The chain of a plan that succeeds `old`: `old` first, then its
// predecessors, the oldest dropped past `bound` (it is still named by the
// plans in between).
std::vector<std::string> chain_after(const predecessor& old, std::size_t bound) {
  std::vector<std::string> chain{old.digest};
  for (const std::string& d : old.chain)
    if (chain.size() < bound && std::find(chain.begin(), chain.end(), d) == chain.end()) chain.push_back(d);
  return chain;
}

}  // namespace

int cmd_compile(std::span<char* const> args) {
  option_spec spec{{"--schema",         "--application-id",    "--sink-topic",        "--output",
                    "--on-invalid",     "--dead-letter-topic", "--supersedes",        "--source-topic",
                    "--sink-format",    "--schema-registry",   "--registry-config",   "--subject",
                    "--schema-version", "--value-format",      "--bootstrap-servers", "-X",
                    "--config",         "--timeout-ms",        "--unrouted",          "--unrouted-topic",
                    "--key-format"},
                   {"--help", "--supersedes-standing", "--require-disjoint", "--require-total"},
                   {"-X"},
                   {{"--bootstrap-server", "--bootstrap-servers"}, {"-b", "--bootstrap-servers"}}};
  arguments a;
  if (auto done = parse_command("compile", args, spec, help, a)) return *done;
  auto registry = read_registry_flags("compile", a);
  if (const int* code = std::get_if<int>(&registry)) return *code;
  const std::optional<registry_flags>& from_registry = std::get<std::optional<registry_flags>>(registry);
  if (from_registry && a.get("--schema"))
    return usage_error("compile", "--schema and --schema-registry are two sources of the schema; give one");
  if (!from_registry && !a.get("--schema"))
    return usage_error("compile", "missing --schema (or --schema-registry)");
  // --sink-topic is required for a SELECT only: checked once the query is read.
  if (!a.get("--application-id")) return usage_error("compile", "missing --application-id");
  if (a.positionals.size() > 1) return usage_error("compile", "expected at most one SQL file");
  // --supersedes-standing reads the plan log: the brokers and their settings,
  // which mean nothing without it.
  const bool standing = a.has("--supersedes-standing");
  if (standing && a.get("--supersedes"))
    return usage_error("compile",
                       "--supersedes and --supersedes-standing are two ways to name the plan this one "
                       "succeeds; give one");
  if (standing && !a.get("--bootstrap-servers"))
    return usage_error("compile",
                       "--supersedes-standing reads the application's plan log from Kafka; give "
                       "--bootstrap-servers HOSTS");
  if (!standing)
    for (const char* kafka_option : {"--bootstrap-servers", "--config", "-X", "--timeout-ms"})
      if (a.options.count(kafka_option))
        return usage_error("compile", std::string(kafka_option) + " is used only with --supersedes-standing");
  std::optional<kafka_access> brokers;
  if (standing) {
    std::variant<kafka_access, int> access = read_kafka_access("compile", a);
    if (const int* failed = std::get_if<int>(&access)) return *failed;
    brokers = std::move(std::get<kafka_access>(access));
  }
  plan::compile_options options{*a.get("--application-id"), a.get("--sink-topic").value_or("")};
  const std::optional<std::string> unrouted = a.get("--unrouted");
  const std::optional<std::string> unrouted_topic = a.get("--unrouted-topic");
  if (unrouted && *unrouted != "drop" && *unrouted != "topic")
    return usage_error("compile",
                       "--unrouted is '" + *unrouted + "'; it must be drop, or give --unrouted-topic TOPIC");
  if (unrouted == "drop" && unrouted_topic)
    return usage_error(
        "compile",
        "--unrouted drop and --unrouted-topic are two choices for records no statement takes; give "
        "one");
  if (unrouted == "topic" && !unrouted_topic)
    return usage_error("compile", "--unrouted topic needs the topic: give --unrouted-topic TOPIC");
  if (unrouted_topic)
    options.unrouted_topic = *unrouted_topic;
  else if (unrouted)
    options.unrouted_topic = std::string();
  if (std::optional<std::string> key = a.get("--key-format")) {
    if (*key == "long")
      options.key_format = plan::key_format::long_;
    else if (*key == "string")
      options.key_format = plan::key_format::string;
    else
      return usage_error("compile", "--key-format is '" + *key + "'; it must be string or long");
  }
  if (std::optional<std::string> policy = a.get("--on-invalid")) {
    if (*policy == "dead-letter")
      options.on_invalid = plan::on_invalid::dead_letter;
    else if (*policy != "fail")
      return usage_error("compile", "--on-invalid is '" + *policy + "'; it must be fail or dead-letter");
  }
  if (std::optional<std::string> format = a.get("--sink-format")) {
    if (*format == "avro")
      options.sink_format = plan::sink_format::avro;
    else if (*format == "json")
      options.sink_format = plan::sink_format::json;
    else
      return usage_error("compile", "--sink-format is '" + *format + "'; it must be json or avro");
  }
  const std::optional<std::string> value_format = a.get("--value-format");
  if (value_format && *value_format != "json" && *value_format != "json-registry")
    return usage_error("compile",
                       "--value-format is '" + *value_format + "'; it must be json or json-registry");
  // From a registry the subject's schema type decides; a topic read
  // through one is framed, so only json-registry can be asked for.
  if (value_format == "json" && from_registry)
    return usage_error("compile",
                       "--value-format json reads plain JSON, described by a streamt schema file (--schema "
                       "FILE); a subject's values are registry-framed");
  const std::optional<std::string> dead_letter_topic = a.get("--dead-letter-topic");
  if (options.on_invalid == plan::on_invalid::dead_letter && !dead_letter_topic)
    return usage_error("compile", "--on-invalid dead-letter needs --dead-letter-topic");
  if (options.on_invalid == plan::on_invalid::fail && dead_letter_topic)
    return usage_error("compile", "--dead-letter-topic is used only with --on-invalid dead-letter");
  options.dead_letter_topic = dead_letter_topic.value_or("");
  const std::string sql_path = a.positionals.empty() ? "-" : a.positionals[0];
  const std::string sql_name = sql_path == "-" ? "<stdin>" : sql_path;
  // Without a file the query is read from standard input; on a terminal
  // that looks like a hang unless something says so.
  if (sql_path == "-" && isatty(STDIN_FILENO))
    std::cerr << "streamt compile: reading the SQL statement from standard input (end it with Ctrl-D); "
                 "give a SQL_FILE to read it from a file\n";

  std::optional<std::string> schema_text;
  if (!from_registry) {
    result<std::string> read = read_input(*a.get("--schema"), 1u << 20);
    if (!read) {
      std::cerr << "streamt compile: " << read.error().message << '\n';
      return engine::to_int(engine::exit_code::usage);
    }
    schema_text = std::move(*read);
  }
  result<std::string> sql = read_input(sql_path, sql_file_read_limit);
  if (!sql) {
    std::cerr << "streamt compile: " << sql.error().message << '\n';
    // A query too large to read is rejected SQL (1); a missing file, usage (2).
    return engine::to_int(sql.error().code == "input_too_large" ? engine::exit_code::rejected
                                                                : engine::exit_code::usage);
  }
  // Which options the query takes depends on what it is: told before a
  // registry or the brokers are asked anything.
  if (const std::optional<bool> routed = routed_query(*sql)) {
    if (*routed && a.get("--sink-topic"))
      return usage_error("compile",
                         "--sink-topic is for a single SELECT; " + sql_name +
                             " holds INSERT INTO statements, which name their sinks: leave --sink-topic out");
    if (!*routed && !a.get("--sink-topic"))
      return usage_error("compile", "missing --sink-topic (" + sql_name +
                                        " is a SELECT; INSERT INTO <sink> SELECT ... statements name their "
                                        "sinks instead)");
    if (!*routed && (a.has("--require-disjoint") || a.has("--require-total")))
      return usage_error("compile",
                         std::string(a.has("--require-disjoint") ? "--require-disjoint" : "--require-total") +
                             " is for INSERT INTO statements (whether they overlap or leave records "
                             "untaken); " +
                             sql_name + " is a single SELECT: leave it out");
    if (!*routed && (unrouted || unrouted_topic))
      return usage_error("compile", std::string(unrouted ? "--unrouted" : "--unrouted-topic") +
                                        " is for INSERT INTO statements (records none of them takes); " +
                                        sql_name + " is a single SELECT: leave it out");
  }
  const bool avro = from_registry || is_avro_schema(*schema_text);
  if (avro && !from_registry && value_format)
    return usage_error("compile",
                       "--value-format is for a streamt schema file; " + *a.get("--schema") +
                           " is an Avro schema, whose values are Avro in the Confluent wire format");
  if (!avro && a.get("--source-topic"))
    return usage_error("compile",
                       "--source-topic is for an Avro schema; a streamt schema file names its topic");
  // The source is the query's FROM name; a query that does not parse gets
  // its diagnostic from the compiler below, against an empty name.
  const std::string from = avro ? from_name(*sql) : std::string();
  result<plan::schema> schema = plan::schema{};
  if (from_registry) {
    if (from.empty()) {
      // The subject follows from the FROM name: a query that does not parse
      // gets its diagnostic before anything is asked of the registry.
      result<plan::plan> unparsed = plan::compile(*sql, plan::schema{}, options);
      if (!unparsed) {
        print_diagnostic("compile", sql_name, unparsed.error(), *sql);
        return engine::to_int(engine::exit_code::rejected);
      }
    }
    const std::string topic = a.get("--source-topic").value_or(from);
    if (!plan::is_valid_topic_name(topic))
      return usage_error("compile", "the source topic '" + topic +
                                        "' is not a valid topic name; name the topic with --source-topic");
    auto taken = schema_from_registry(*from_registry, value_format.has_value(), from, topic);
    if (const int* code = std::get_if<int>(&taken)) return *code;
    schema = std::move(std::get<plan::schema>(taken));
  } else if (avro) {
    schema = plan::schema_from_avro(*schema_text, from.empty() ? "source" : from,
                                    a.get("--source-topic").value_or(from.empty() ? "source" : from));
  } else {
    schema = plan::load_schema(*schema_text);
  }
  if (!schema) {
    print_diagnostic("compile", *a.get("--schema"), schema.error());
    return engine::to_int(engine::exit_code::rejected);
  }
  if (value_format) {
    const auto chosen =
        *value_format == "json-registry" ? plan::value_format::json_registry : plan::value_format::json;
    if (schema->value_format != plan::value_format::json && schema->value_format != chosen)
      return usage_error("compile", "--value-format is " + *value_format + " but " + *a.get("--schema") +
                                        " says \"value_format\": \"" +
                                        std::string(plan::to_string(schema->value_format)) + "\"; give one");
    schema->value_format = chosen;
  }
  result<plan::plan> compiled = plan::compile(*sql, *schema, options);
  if (!compiled) {
    diagnostic d = compiled.error();
    // The Avro sink was not asked for: say how to do without it.
    if (d.code == "invalid_avro_name" && !options.sink_format)
      d.message += "; or write the sink as JSON, whose member names may be any: --sink-format json";
    print_diagnostic("compile", sql_name, d, *sql);
    // An option the query cannot take is a wrong command line.
    return engine::to_int(plan::is_option_error(d.code) ? engine::exit_code::usage
                                                        : engine::exit_code::rejected);
  }
  // A routed plan's coverage is told before anything is asked of the
  // brokers: a query the user must change is known at once.
  if (plan::is_routed(*compiled)) {
    if (const int refused =
            report_coverage(*compiled, sql_name, a.has("--require-disjoint"), a.has("--require-total")))
      return refused;
  }
  // The plan superseded is looked up once the query compiles: a mistake in
  // the query is told at once, not after a wait for the brokers.
  std::optional<predecessor> old;
  if (std::optional<std::string> value = a.get("--supersedes")) {
    auto named =
        predecessor_named(*value, options.application_id, schema->topic, plan::sink_topics(*compiled));
    if (const int* code = std::get_if<int>(&named)) return *code;
    old = std::move(std::get<predecessor>(named));
    compiled->supersedes = chain_after(*old, plan::max_supersedes);
  } else if (brokers) {
    auto got = standing_predecessor(*brokers, options.application_id);
    if (const int* code = std::get_if<int>(&got)) return *code;
    old = std::move(std::get<predecessor>(got));
    // The plan standing may be this very plan (the same query, schema and
    // options, superseding what it superseded): another instance of the
    // fleet compiled it from the log and claimed the application first, or
    // this one restarts. It is written as it stands: a successor of itself
    // would take the application from the instances running it.
    compiled->supersedes = old->chain;
    if (plan::digest(*compiled) == old->digest) {
      std::cerr << "streamt compile: --supersedes-standing: " << old->described
                << " is this plan (the same query, schema and options); it is written as it stands\n";
    } else {
      // A claim names at most lineage_supersedes predecessors; a plan
      // compiled here names no more, so that its own claim names them all
      // and the comparison above holds for it when it stands.
      compiled->supersedes = chain_after(*old, engine::lineage_supersedes);
    }
  }
  // The engine refuses a successor whose output has another shape unless it
  // runs with --allow-output-change: better known before the rollout.
  if (old && !old->output_shape.empty() && plan::digest(*compiled) != old->digest &&
      old->output_shape != plan::output_shape(*compiled))
    say_warning("compile", old->described +
                               " writes output of another shape (projection or schema) than this plan: "
                               "run it with --allow-output-change if consumers of the sink topic may see "
                               "records of the new shape");
  // Validate what we are about to write with the engine's own loader: the
  // identity options (application id, sink topic) are only checked there,
  // and a plan the engine would refuse must never be written.
  const std::string text = plan::write_plan(*compiled);
  if (result<plan::plan> reloaded = plan::load_plan(text); !reloaded) {
    diagnostic d = reloaded.error();
    if (d.path == "$.identity.application_id") d.path = "--application-id";
    if (d.path == "$.identity.sink_topic") d.path = "--sink-topic";
    if (d.path == "$.identity.dead_letter_topic") d.path = "--dead-letter-topic";
    if (d.path == "$.unrouted_topic") d.path = "--unrouted-topic";
    print_diagnostic("compile", "", d);
    return engine::to_int(engine::exit_code::rejected);
  }
  if (auto out = a.get("--output")) {
    if (auto err = write_file_atomically(*out, text)) {
      std::cerr << "streamt compile: " << *err << '\n';
      return engine::to_int(engine::exit_code::cannot_write);
    }
    return 0;
  }
  std::cout << text;
  std::cout.flush();
  return std::cout ? 0 : engine::to_int(engine::exit_code::io_error);
}

}  // namespace streamt::cli
