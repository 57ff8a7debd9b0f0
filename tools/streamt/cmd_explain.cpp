// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// streamt explain: the pipeline a plan runs, stage by stage, in words a
// reviewer can check against the SQL they meant.

#include "plan/coverage.hpp"
#include "plan/plan_json.hpp"
#include "plan/sql/compile.hpp"
#include "plan/sql/keywords.hpp"
#include "tools/streamt/cli.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace streamt::cli {

namespace {

// The decode stage of an Avro source: where the reader schema came from and
// how each record is read.
std::string avro_decode_line(const plan::avro_source& a) {
  return "1. decode   Avro in the Confluent wire format (a zero byte, the writer schema's id, the body): "
         "each "
         "writer schema, fetched once by its id, is resolved to the pinned reader schema (" +
         (a.subject.empty() ? std::string("from a file")
                            : "subject " + a.subject + " version " + std::to_string(a.version)) +
         ", fingerprint " + a.fingerprint + ") by Avro's rules; its fields are these columns:\n";
}

constexpr std::string_view help =
    "usage: streamt explain PLAN\n"
    "\n"
    "Print the pipeline a plan runs, stage by stage: decode, filter, project,\n"
    "encode, with the source and sink topics and the plan's digest.\n"
    "\n"
    "exit codes: 0 printed; 1 invalid plan; 2 usage; 74 standard output not writable\n";

// Every name is shown as a query writes it (quoted when it must be), so the
// explanation reads as the SQL it came from; the encoded member as JSON.
std::string name(std::string_view n) { return plan::sql::sql_name(n); }
std::string json_member(std::string_view n) { return boost::json::serialize(boost::json::string(n)); }

// One declared column and, for a ROW, its fields below it, each level
// indented two more spaces, so the decoded shape reads as the schema file.
void write_column(std::ostream& os, const plan::column& c, int depth) {
  os << "             " << std::string(static_cast<std::size_t>(depth) * 2, ' ') << name(c.name) << ' '
     << plan::type_name(c) << (c.nullable ? " NULL" : " NOT NULL");
  if (c.type == plan::column_type::row && c.unknown_fields)
    os << " (unknown_fields: " << plan::to_string(*c.unknown_fields) << ')';
  // Not a member of the value: said, since the line above lists members.
  if (c.from != plan::column_source::value)
    os << " (from the record's " << plan::from_text(c) << ", not the value)";
  os << '\n';
  for (const plan::column& f : c.fields) write_column(os, f, depth + 1);
}

// The Avro type an output column is written as (plan/avro_sink.hpp's
// mapping), in words: "long", "bytes (decimal(10,2))", "union [null, string]".
// `may_be_null`: the column, or a ROW it is inside, is nullable.
std::string avro_type_words(const plan::column& c, bool may_be_null) {
  std::string t;
  switch (c.type) {
    case plan::column_type::bigint:
      t = "long";
      break;
    case plan::column_type::double_:
      t = "double";
      break;
    case plan::column_type::boolean:
      t = "boolean";
      break;
    case plan::column_type::string:
      t = "string";
      break;
    case plan::column_type::json:
      t = "string (its JSON text)";
      break;
    case plan::column_type::timestamp:
      t = "long (timestamp-millis)";
      break;
    case plan::column_type::decimal:
      t = "bytes (decimal(" + std::to_string(c.precision) + "," + std::to_string(c.scale) + "))";
      break;
    case plan::column_type::row:
      t = "record";
      break;
  }
  return may_be_null ? "union [null, " + t + "]" : t;
}

// A column reference as the query writes it (after.amount), or the damage.
std::string path(const std::vector<plan::node>& nodes, std::size_t i) {
  return i < nodes.size() ? plan::path_text(nodes[i].path) : "<column #" + std::to_string(i) + ">";
}
// A routed plan's statements, one a line, under the first.
std::string indented(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

}  // namespace

int cmd_explain(std::span<char* const> args) {
  option_spec spec{{}, {"--help"}, {}};
  arguments a;
  if (auto done = parse_command("explain", args, spec, help, a)) return *done;
  if (a.positionals.size() != 1) return usage_error("explain", "expected one PLAN file");
  engine::exit_code code{};
  std::optional<plan::plan> p = load_plan_file("explain", a.positionals[0], code);
  if (!p) return engine::to_int(code);

  // Conditions and projection items refer to the flattened schema tree.
  const std::vector<plan::node> nodes = plan::flatten(p->schema);
  std::ostringstream os;
  os << "plan " << p->identity.application_id << " (plan_version " << p->version << ", " << plan::digest(*p)
     << ")\n"
     << "  " << indented(plan::to_sql(*p)) << "\n\n"
     << "source  topic " << p->identity.source_topic
     << ", read_committed; key, timestamp and headers pass through\n"
     << (p->schema.avro ? avro_decode_line(*p->schema.avro)
                        : std::string("1. decode   ") +
                              (p->schema.value_format == plan::value_format::json_registry
                                   ? "a zero byte and a 4-byte schema id (Confluent's framing, checked and "
                                     "stripped; the id is not looked up), then a "
                                   : "") +
                              (p->schema.unknown_fields == plan::unknown_fields::ignore
                                   ? "JSON object with these members; any other member is checked as JSON "
                                     "and skipped (unknown_fields: ignore):\n"
                                   : "JSON object with exactly these members; any other makes the record "
                                     "invalid (unknown_fields: reject):\n"));
  for (const auto& c : p->schema.columns) write_column(os, c, 0);
  // What the schema's tombstones and changelog choices change (plan
  // version 2): said where the record's path changes, not as a footnote.
  const bool upsert = p->schema.changelog == plan::changelog::upsert;
  if (upsert)
    os << "             a record without a key is invalid (changelog: upsert: a row is known by its key)\n";
  if (upsert || p->schema.tombstones == plan::tombstones::forward)
    os << "             a null value (tombstone) is written to the sink as one, with its key and headers ("
       << (upsert ? "changelog: upsert" : "tombstones: forward") << ")\n";
  else
    os << "             a null value (tombstone) is dropped and its offset committed\n";
  // Stages 2 to 4 of one route: the plan's single SELECT, or each INSERT INTO.
  const auto write_route = [&](const std::vector<plan::condition>& predicate,
                               const std::vector<plan::projection_item>& projection) {
    os << "2. filter   ";
    if (predicate.empty()) {
      os << "(none: every record passes)\n";
    } else {
      for (std::size_t i = 0; i < predicate.size(); ++i) {
        const auto& c = predicate[i];
        os << (i ? "\n             AND " : "") << path(nodes, c.column) << ' ' << plan::to_string(c.op);
        if (c.op != plan::compare_op::is_null && c.op != plan::compare_op::is_not_null &&
            c.column < nodes.size())
          os << ' ' << plan::literal_sql(c.value, *nodes[c.column].column);
      }
      os << "\n             a comparison with a null value (or a null ROW on its path) is not true: the "
            "record "
         << (upsert                ? "does not pass\n"
             : plan::is_routed(*p) ? "is not taken by this route\n"
                                   : "is dropped\n");
      if (upsert)
        os << "             a record that does not pass is written as a tombstone of its key (changelog: "
              "upsert)\n";
    }
    os << "3. project  ";
    for (std::size_t i = 0; i < projection.size(); ++i) {
      const auto& item = projection[i];
      os << (i ? ", " : "") << path(nodes, item.column);
      if (item.column >= nodes.size() || item.output_name != nodes[item.column].path.back())
        os << " AS " << name(item.output_name);
    }
    if (p->sink.avro) {
      // The subject and fingerprint are what a reviewer checks in the
      // registry; the field types are the schema's, one per output column.
      os << "\n4. encode   Avro in the Confluent wire format (a zero byte, the schema id, the body) of the "
            "pinned sink schema, registered under subject "
         << p->sink.avro->subject << " when the run starts (fingerprint " << p->sink.avro->fingerprint
         << "): record {";
      for (std::size_t i = 0; i < projection.size(); ++i) {
        const auto& item = projection[i];
        os << (i ? ", " : "") << item.output_name << ": "
           << (item.column >= nodes.size()
                   ? std::string("?")
                   : avro_type_words(*nodes[item.column].column, plan::may_be_null(nodes, item.column)));
      }
      os << "}\n";
    } else {
      os << "\n4. encode   compact JSON {";
      for (std::size_t i = 0; i < projection.size(); ++i) {
        const auto& item = projection[i];
        os << (i ? ", " : "") << json_member(item.output_name) << ": "
           << (item.column >= nodes.size() ? std::string("?")
               : nodes[item.column].column->type == plan::column_type::row
                   ? "ROW (a JSON object)"
                   : plan::type_name(*nodes[item.column].column));
      }
      os << "}\n";
    }
  };
  if (!plan::is_routed(*p)) {
    write_route(p->predicate, p->projection);
    os << "sink    topic " << p->identity.sink_topic << ", " << plan::to_string(p->sink.format) << " values"
       << ", transactional (exactly once); partition by murmur2 of the unchanged key\n";
  } else {
    const std::vector<plan::route>& routes = p->routes;
    os << "routes  " << routes.size() << (routes.size() == 1 ? " route" : " routes")
       << "; a record goes to every route whose predicate it passes, once to each\n";
    for (std::size_t r = 0; r < routes.size(); ++r) {
      os << "route " << plan::route_name(routes, r) << ": topic " << routes[r].sink_topic << '\n';
      write_route(routes[r].predicate, routes[r].projection);
      os << "5. key      ";
      if (const std::optional<std::size_t> key = routes[r].partition_by; key && *key < nodes.size()) {
        const plan::column& c = *nodes[*key].column;
        os << "PARTITION BY " << path(nodes, *key) << " (" << plan::type_name(c) << "): "
           << (c.type == plan::column_type::string ? "its UTF-8 bytes"
               : p->key_format == plan::key_format::long_
                   ? "8 big-endian bytes, as Kafka's LongSerializer (key_format: long)"
                   : "its decimal text (key_format: string)")
           << "; a null key makes the record invalid\n";
      } else {
        os << "the input key, unchanged\n";
      }
    }
    os << "sinks   topics ";
    const std::vector<std::string> sinks = plan::sink_topics(*p);
    for (std::size_t i = 0; i < sinks.size(); ++i) os << (i ? ", " : "") << sinks[i];
    os << "; " << plan::to_string(p->sink.format)
       << " values, transactional (exactly once); partition by murmur2 of each output's key\n";
    if (p->unrouted_topic.empty())
      os << "unrouted dropped and counted: a record no route takes is written nowhere, its offset "
            "committed\n";
    else
      os << "unrouted to topic " << p->unrouted_topic
         << " in the same transaction: a record no route takes, unchanged, with streamt.* headers saying "
            "why\n";
    // What the compiler proved of the routes, as compile reported it: the
    // reviewer of a plan sees which records go to two sinks or to none.
    if (result<plan::coverage_report> c = plan::analyse_coverage(p->schema, routes); c) {
      const std::vector<std::string> lines = plan::report_lines(p->schema, routes, *c);
      if (lines.empty()) os << "coverage the routes are disjoint and take every record\n";
      for (std::size_t i = 0; i < lines.size(); ++i)
        os << (i ? "         " : "coverage ") << lines[i] << '\n';
    } else {
      os << "coverage not decided: " << c.error().message << '\n';
    }
  }
  if (p->identity.on_invalid == plan::on_invalid::dead_letter)
    os << "invalid to topic " << p->identity.dead_letter_topic
       << " in the same transaction (on_invalid: dead-letter): key, value, headers and timestamp unchanged,\n"
          "             plus streamt.* headers naming the source record, the reason and the plan digest; "
          "the run goes on\n";
  else
    os << "invalid stops the run at the record, exit 65, the records before it committed (on_invalid: "
          "fail)\n";
  for (std::size_t i = 0; i < p->supersedes.size(); ++i)
    os << (i ? "             " : "succeeds   ") << p->supersedes[i]
       << (i ? "" : " (the plan it replaces; then that plan's predecessors)") << '\n';
  std::cout << os.str();
  return 0;
}

}  // namespace streamt::cli
