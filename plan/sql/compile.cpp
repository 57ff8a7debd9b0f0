// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/sql/compile.hpp"

#include "plan/avro_sink.hpp"
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

}  // namespace

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
  auto query = sql::parse(*tokens);
  if (!query) {
    diagnostic d = query.error();
    suggest_quoting(sql, source, d);
    return d;
  }
  auto bound = sql::bind(*query, source);
  if (!bound) return bound.error();

  plan p;
  p.identity.application_id = options.application_id;
  p.identity.source_topic = source.topic;
  p.identity.sink_topic = options.sink_topic;
  p.identity.operators = operator_names();
  p.identity.on_invalid = options.on_invalid;
  p.identity.dead_letter_topic = options.dead_letter_topic;
  p.schema = source;
  p.predicate = std::move(bound->predicate);
  p.projection = std::move(bound->projection);
  p.supersedes = options.supersedes;
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

std::string to_sql(const plan& p) {
  const std::vector<node> nodes = flatten(p.schema);
  std::string out = "SELECT ";
  for (std::size_t i = 0; i < p.projection.size(); ++i) {
    const auto& item = p.projection[i];
    if (i != 0) out += ", ";
    out += column_name(nodes, item.column);
    // Without AS a path's output name is its last segment.
    if (item.column >= nodes.size() || item.output_name != nodes[item.column].path.back())
      out += " AS " + sql::sql_name(item.output_name);
  }
  out += " FROM " + sql::sql_name(p.schema.source);
  for (std::size_t i = 0; i < p.predicate.size(); ++i) {
    const auto& c = p.predicate[i];
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

}  // namespace streamt::plan
