// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/sql/compile.hpp"

#include "plan/avro_sink.hpp"
#include "plan/schema_file.hpp"
#include "plan/sql/binder.hpp"
#include "plan/sql/keywords.hpp"
#include "plan/sql/lexer.hpp"
#include "plan/sql/parser.hpp"
#include "plan/strict_json.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <variant>

namespace streamt::plan {

namespace {

// A declared name such as `user-id`, `@timestamp` or `order` written without
// its quotes breaks the lexer or the parser somewhere inside it, and the
// message there ("operator '-'", "unexpected character '@'") does not say
// why. When an unquoted occurrence of such a name covers the error's
// position, the message says how to write it.
void suggest_quoting(std::string_view sql, const schema& s, diagnostic& d) {
  auto covers = [&](std::string_view name) {
    for (std::size_t at = sql.find(name); at != std::string_view::npos; at = sql.find(name, at + 1)) {
      if (at > 0 && sql[at - 1] == '"') continue;
      const text_position first = position_at(sql, at);
      const text_position last = position_at(sql, at + name.size());
      if (first.line == d.line && last.line == d.line && first.column <= d.column && d.column <= last.column)
        return true;
    }
    return false;
  };
  // `full` is how the whole reference is written: the path for a field of a
  // ROW (payload.after."user-id"), the name itself otherwise.
  auto offer = [&](std::string_view what, std::string_view name, const std::string& full) {
    const std::string written = sql::sql_name(name);
    if (sql::is_valid_name(name) || d.message.find(written) != std::string::npos || !covers(name))
      return false;
    d.message += "; " + std::string(what) + " " + written + " must be written in double quotes: " + full;
    return true;
  };
  // Every declared name, nested ones too: `payload.after.user-id` breaks the
  // same way.
  const std::vector<node> nodes = flatten(s);
  for (const node& n : nodes)
    if (offer(n.depth == 1 ? "the column" : "the field", n.column->name, path_text(n.path))) return;
  offer("the source", s.source, sql::sql_name(s.source));
}

diagnostic bind_error(std::string code, const sql::position& at, std::string message) {
  return sql::make_diagnostic(phase::bind, std::move(code), at, std::move(message));
}

// What every plan of `source` compiled with `options` holds.
plan plan_shell(const schema& source, const compile_options& options) {
  plan p;
  p.identity.application_id = options.application_id;
  p.identity.source_topic = source.topic;
  p.identity.operators = operator_names();
  p.identity.on_invalid = options.on_invalid;
  p.identity.dead_letter_topic = options.dead_letter_topic;
  p.schema = source;
  p.supersedes = options.supersedes;
  return p;
}

// INSERT INTO statements → a routed plan (version 2).
result<plan> compile_routes(const sql::statements& statements, const schema& source,
                            const compile_options& options) {
  const sql::query& first = statements.front();
  if (!options.sink_topic.empty())
    return bind_error("sink_topic_with_routes", first.sink->pos,
                      "--sink-topic is for a single SELECT; INSERT INTO statements name their sinks: leave "
                      "--sink-topic out");
  // What a deletion means per sink is not decided yet: one key may pass one
  // route and fail another, and a tombstone would have to go to some sinks.
  constexpr std::string_view one_plan_per_sink =
      "compile one plan per sink instead (a SELECT with --sink-topic each, on its own application id)";
  if (source.changelog == changelog::upsert)
    return bind_error("routes_with_changelog", first.start,
                      "routes are not supported yet on a changelog (upsert) source: what a deleted key means "
                      "for each sink is not decided; " +
                          std::string(one_plan_per_sink));
  if (source.tombstones == tombstones::forward)
    return bind_error(
        "routes_with_tombstones", first.start,
        "routes are not supported yet with \"tombstones\": \"forward\": which sinks a tombstone "
        "goes to is not decided; declare \"tombstones\": \"drop\" in the schema, or " +
            std::string(one_plan_per_sink));
  const sink_format format =
      options.sink_format.value_or(source.avro ? sink_format::avro : sink_format::json);
  if (format == sink_format::avro)
    return bind_error("routes_with_avro_sink", first.start,
                      "routes write JSON values only for now (each route would need its own pinned Avro "
                      "schema); " +
                          std::string(options.sink_format ? "drop --sink-format avro"
                                                          : "the Avro source would make the sink Avro: add "
                                                            "--sink-format json"));
  const std::string unrouted = options.unrouted_topic.value_or("");
  if (!unrouted.empty()) {
    if (!is_valid_topic_name(unrouted))
      return bind_error("invalid_unrouted_topic", first.start,
                        "--unrouted-topic '" + unrouted +
                            "' is not a valid topic name; use 1 to 249 characters of [a-zA-Z0-9._-], not "
                            "\".\" or \"..\"");
    if (unrouted == source.topic || unrouted == options.dead_letter_topic)
      return bind_error("unrouted_topic_reused", first.start,
                        "--unrouted-topic '" + unrouted + "' is also the " +
                            (unrouted == source.topic ? "source" : "dead-letter") +
                            " topic; records no route takes need a topic of their own");
  }

  plan p = plan_shell(source, options);
  bool bigint_key = false;
  const std::vector<node> nodes = flatten(source);
  for (const sql::query& q : statements) {
    auto bound = sql::bind(q, source);
    if (!bound) return bound.error();
    const std::string& sink = q.sink->name;
    // Writing into the topic it reads would feed every output back in; the
    // dead-letter and unrouted topics hold records a reader of a sink must
    // not take for outputs.
    if (sink == source.topic)
      return bind_error(
          "sink_is_source", q.sink->pos,
          "the sink topic " + sql::sql_name(sink) +
              " is also the source topic; a sink must be another topic, or every output is read "
              "again");
    if (options.on_invalid == on_invalid::dead_letter && sink == options.dead_letter_topic)
      return bind_error("sink_is_dead_letter_topic", q.sink->pos,
                        "the sink topic " + sql::sql_name(sink) +
                            " is also --dead-letter-topic; invalid records need a topic of their own");
    if (!unrouted.empty() && sink == unrouted)
      return bind_error("sink_is_unrouted_topic", q.sink->pos,
                        "the sink topic " + sql::sql_name(sink) +
                            " is also --unrouted-topic; records no route takes need a topic of their own");
    if (bound->partition_by && nodes[*bound->partition_by].column->type == column_type::bigint)
      bigint_key = true;
    p.routes.push_back(
        route{sink, std::move(bound->predicate), std::move(bound->projection), bound->partition_by});
  }
  if (options.key_format && !bigint_key)
    return bind_error("needless_key_format", first.start,
                      "--key-format says how a BIGINT PARTITION BY column becomes the key, and no statement "
                      "has one (a STRING column is always its UTF-8 bytes): leave --key-format out");
  p.key_format = options.key_format.value_or(key_format::string);
  p.unrouted_topic = unrouted;
  p.sink.format = sink_format::json;
  p.version = required_version(p);
  return p;
}

}  // namespace

bool is_option_error(std::string_view code) noexcept {
  return code == "missing_sink_topic" || code == "sink_topic_with_routes" ||
         code == "unrouted_without_routes" || code == "needless_key_format";
}

result<plan> compile(std::string_view sql, const schema& source, const compile_options& options) {
  // Checked before lexing so that the cost of a rejected input is bounded by
  // the limit, not by what the caller happened to read.
  if (sql.size() > max_sql_bytes) {
    // Pointing at the first byte past the limit keeps every SQL diagnostic
    // positioned, as the CLI's caret display and the fuzz invariant expect.
    const text_position at = position_at(sql, max_sql_bytes);
    diagnostic d;
    d.phase = phase::lex;
    d.code = "sql_too_large";
    d.line = at.line;
    d.column = at.column;
    d.message = "the SQL text is " + std::to_string(sql.size()) + " bytes; the limit is " +
                std::to_string(max_sql_bytes) +
                " bytes (a statement of the subset is far shorter: is this the right file?)";
    return d;
  }
  auto tokens = sql::lex(sql);
  if (!tokens) {
    diagnostic d = tokens.error();
    suggest_quoting(sql, source, d);
    return d;
  }
  auto parsed = sql::parse(*tokens);
  if (!parsed) {
    diagnostic d = parsed.error();
    suggest_quoting(sql, source, d);
    return d;
  }
  const sql::statements& statements = *parsed;
  if (statements.front().sink) return compile_routes(statements, source, options);

  const sql::query& query = statements.front();
  if (options.sink_topic.empty())
    return bind_error("missing_sink_topic", query.start,
                      "a SELECT writes to the topic --sink-topic names, and none is given: give --sink-topic "
                      "TOPIC, or write INSERT INTO <sink> SELECT ... to name the sink in the query");
  if (options.unrouted_topic)
    return bind_error("unrouted_without_routes", query.start,
                      "--unrouted and --unrouted-topic choose what becomes of records no INSERT INTO "
                      "statement takes; a single SELECT has no routes: leave them out");
  if (options.key_format)
    return bind_error("needless_key_format", query.start,
                      "--key-format says how a BIGINT PARTITION BY column becomes the key; a single SELECT "
                      "keeps the input key: leave it out");
  auto bound = sql::bind(query, source);
  if (!bound) return bound.error();

  plan p = plan_shell(source, options);
  p.identity.sink_topic = options.sink_topic;
  p.predicate = std::move(bound->predicate);
  p.projection = std::move(bound->projection);
  p.sink.format = options.sink_format.value_or(source.avro ? sink_format::avro : sink_format::json);
  if (p.sink.format == sink_format::avro) {
    auto pinned = avro::pin_sink_schema(p);
    if (!pinned) return pinned.error();
    p.sink.avro = std::move(*pinned);
  }
  p.version = required_version(p);
  return p;
}

namespace {

// The shortest text that reads back as exactly `v` (std::to_chars), in a
// form the lexer takes: an integral value too large for BIGINT's literal
// range is written with an exponent, and -0 keeps its sign with a fraction.
std::string double_text(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string out(buf, end);
  if (out.find_first_of(".e") == std::string::npos) {
    if (std::fabs(v) >= 1e18) {
      end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific).ptr;
      out.assign(buf, end);
    } else if (v == 0 && std::signbit(v)) {
      out = "-0.0";
    }
  }
  return out;
}

// A plan from the strict loader always has valid indices; this keeps to_sql
// total anyway, so that printing a damaged plan shows the damage instead of
// reading out of bounds.
std::string column_name(const std::vector<node>& nodes, std::size_t index) {
  if (index < nodes.size()) return path_text(nodes[index].path);
  return "<column #" + std::to_string(index) + ">";
}

}  // namespace

std::string literal_sql(const literal& value, const column& of) {
  std::string out;
  if (const auto* i = std::get_if<std::int64_t>(&value)) {
    out += std::to_string(*i);
  } else if (const auto* b = std::get_if<bool>(&value)) {
    out += *b ? "TRUE" : "FALSE";
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    out += '\'';
    for (char c : *s) {
      if (c == '\'') out += '\'';
      out += c;
    }
    out += '\'';
  } else if (const auto* d = std::get_if<double>(&value)) {
    out += double_text(*d);
  } else if (const auto* dec = std::get_if<decimal_value>(&value)) {
    out += format_decimal(*dec, of.scale);
    // Digits alone beyond BIGINT's literal range would not lex back as a
    // literal; a zero fraction makes them a decimal number of the same value.
    constexpr int128 bigint_min = std::numeric_limits<std::int64_t>::min();
    constexpr int128 bigint_max = std::numeric_limits<std::int64_t>::max();
    if (of.scale == 0 && (dec->unscaled < bigint_min || dec->unscaled > bigint_max)) out += ".0";
  } else if (const auto* t = std::get_if<timestamp_value>(&value)) {
    out += "TIMESTAMP '" + format_timestamp(*t) + "'";
  }
  return out;
}

namespace {

// SELECT ... FROM ... [WHERE ...] of one route.
std::string select_sql(const plan& p, const std::vector<node>& nodes, const std::vector<condition>& predicate,
                       const std::vector<projection_item>& projection) {
  std::string out = "SELECT ";
  for (std::size_t i = 0; i < projection.size(); ++i) {
    const auto& item = projection[i];
    if (i != 0) out += ", ";
    out += column_name(nodes, item.column);
    // Without AS a path's output name is its last segment.
    if (item.column >= nodes.size() || item.output_name != nodes[item.column].path.back())
      out += " AS " + sql::sql_name(item.output_name);
  }
  out += " FROM " + sql::sql_name(p.schema.source);
  for (std::size_t i = 0; i < predicate.size(); ++i) {
    const auto& c = predicate[i];
    out += i == 0 ? " WHERE " : " AND ";
    out += column_name(nodes, c.column);
    out += ' ';
    out += to_string(c.op);
    if (c.op != compare_op::is_null && c.op != compare_op::is_not_null) {
      out += ' ';
      static const column unknown{};
      out += literal_sql(c.value, c.column < nodes.size() ? *nodes[c.column].column : unknown);
    }
  }
  return out;
}

}  // namespace

std::string to_sql(const plan& p) {
  const std::vector<node> nodes = flatten(p.schema);
  if (!is_routed(p)) return select_sql(p, nodes, p.predicate, p.projection);
  std::string out;
  for (const route& r : p.routes) {
    if (!out.empty()) out += ";\n";
    out +=
        "INSERT INTO " + sql::sql_name(r.sink_topic) + " " + select_sql(p, nodes, r.predicate, r.projection);
    if (r.partition_by) out += " PARTITION BY " + column_name(nodes, *r.partition_by);
  }
  return out;
}

}  // namespace streamt::plan
