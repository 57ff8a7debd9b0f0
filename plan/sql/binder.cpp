// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/sql/binder.hpp"

#include "plan/avro_schema.hpp"

#include "plan/spelling.hpp"
#include "plan/sql/keywords.hpp"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

namespace streamt::plan::sql {
namespace {

constexpr std::string_view timestamp_example = "TIMESTAMP '2026-12-05 10:00:00+00:00'";

std::string at_text(const position& p) { return std::to_string(p.line) + ":" + std::to_string(p.column); }

diagnostic error(std::string code, const position& at, std::string message) {
  return make_diagnostic(phase::bind, std::move(code), at, std::move(message));
}

// A name as messages show it: a plain one in single quotes as before, any
// other in the double-quoted form a query must write.
std::string shown(std::string_view name) {
  return is_valid_name(name) ? "'" + std::string(name) + "'" : sql_name(name);
}

// A path as messages show it, in single quotes: 'after.amount', 'user-id' (a
// lone name as meant, as before paths existed), 'payload."user-id"'.
std::string shown_path(const std::vector<std::string>& path) {
  return "'" + (path.size() == 1 ? path[0] : path_text(path)) + "'";
}

// The names a misspelt `word` may mean among `choices` (node indices), as a
// "did you mean" clause, or empty.
std::string did_you_mean(const std::vector<node>& nodes, const std::vector<std::size_t>& choices,
                         std::string_view word) {
  std::vector<std::string_view> names;
  names.reserve(choices.size());
  for (std::size_t i : choices) names.push_back(nodes[i].path.back());
  const std::optional<std::size_t> k = nearest(word, names);
  if (!k) return {};
  const std::string near = nodes[choices[*k]].path.back();
  std::string out = "; did you mean " + shown(near) + "?";
  if (equal_ignoring_case(near, word)) out += " (names are case-sensitive)";
  return out;
}

// "id, amount, ...": the first names among `choices`, as a query writes them.
std::string name_list(const std::vector<node>& nodes, const std::vector<std::size_t>& choices) {
  constexpr std::size_t listed = 16;
  std::string out;
  for (std::size_t i = 0; i < choices.size() && i < listed; ++i)
    out += (i == 0 ? "" : ", ") + sql_name(nodes[choices[i]].path.back());
  if (choices.size() > listed) out += ", ...";
  return out;
}

// The node a column reference names, or why there is none: the first
// segment that does not resolve is pointed at, with the names that are
// there.
result<std::size_t> resolve_column(const schema& s, const std::vector<node>& nodes, const name_ref& n) {
  if (auto i = find_path(nodes, n.path)) return *i;
  std::vector<std::size_t> top;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].depth == 1) top.push_back(i);

  // The longest prefix that resolves: segment k is the first that does not.
  std::vector<std::string> prefix;
  std::optional<std::size_t> parent;
  std::size_t k = 0;
  for (; k < n.path.size(); ++k) {
    prefix.push_back(n.path[k]);
    const auto i = find_path(nodes, prefix);
    if (!i) break;
    parent = i;
  }
  const position at = k < n.segment_pos.size() ? n.segment_pos[k] : n.pos;
  const std::string& missing = n.path[k];

  if (!parent) {
    // `orders.id` with orders the source: SQL's table qualification, which
    // the subset does not need (there is one source).
    if (n.path.size() > 1 && missing == s.source) {
      const std::vector<std::string> rest(n.path.begin() + 1, n.path.end());
      return error("source_qualified_column", at,
                   shown(s.source) + " is the source, not a column; the subset writes columns without it: " +
                       "write " + path_text(rest));
    }
    const std::string hint = did_you_mean(nodes, top, missing);
    if (!hint.empty()) return error("unknown_column", at, "unknown column '" + missing + "'" + hint);
    return error("unknown_column", at,
                 "unknown column '" + missing + "'; source " + shown(s.source) + " has columns " +
                     name_list(nodes, top));
  }
  const node& p = nodes[*parent];
  const std::vector<std::string> reached(n.path.begin(), n.path.begin() + static_cast<std::ptrdiff_t>(k));
  if (p.column->type != column_type::row)
    return error("path_into_non_row", at,
                 "column " + shown_path(reached) + " is " + type_name(*p.column) +
                     ", not a ROW: it has no field '" + missing + "'" +
                     (p.column->type == column_type::json
                          ? " (a JSON column is a value, not declared fields; declare it as a ROW to compare "
                            "its members)"
                          : ""));
  const std::string hint = did_you_mean(nodes, p.children, missing);
  if (!hint.empty())
    return error("unknown_column", at,
                 "ROW " + shown_path(reached) + " has no field '" + missing + "'" + hint);
  return error("unknown_column", at,
               "ROW " + shown_path(reached) + " has no field '" + missing + "'; its fields are " +
                   name_list(nodes, p.children));
}

// The literal's kind in messages: "... but 5 is a BIGINT literal".
std::string_view kind_of(const literal_ref& l) {
  if (std::holds_alternative<std::int64_t>(l.value)) return "BIGINT";
  if (std::holds_alternative<bool>(l.value)) return "BOOLEAN";
  if (std::holds_alternative<decimal_text>(l.value)) return "DECIMAL";
  if (std::holds_alternative<timestamp_value>(l.value)) return "TIMESTAMP";
  return "STRING";
}

// Digits with an optional '-', point and exponent: a string literal that a
// number column would take unquoted.
bool looks_like_number(std::string_view s, bool integer_only) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  if (s.empty() || s.size() > 40 || s[0] < '0' || s[0] > '9') return false;
  bool point = false, exponent = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') continue;
    if (c == '.' && !point && !exponent && !integer_only && i + 1 < s.size()) {
      point = true;
    } else if ((c == 'e' || c == 'E') && !exponent && !integer_only && i + 1 < s.size()) {
      exponent = true;
      if (s[i + 1] == '+' || s[i + 1] == '-') ++i;
    } else {
      return false;
    }
  }
  return s.back() >= '0' && s.back() <= '9';
}

// What to write instead of a literal of the wrong type; `lhs` is
// "<column> <op> ".
std::string suggestion(const column& c, const std::string& lhs, const literal_ref& l) {
  const auto* s = std::get_if<std::string>(&l.value);
  switch (c.type) {
    case column_type::bigint:
      if (s && looks_like_number(*s, true) && s->size() <= 20) return "write " + lhs + *s;
      return "write an integer literal (" + lhs + "50)";
    case column_type::double_:
    case column_type::decimal:
      if (s && looks_like_number(*s, false)) return "write " + lhs + *s;
      return "write a number literal (" + lhs + "12.5)";
    case column_type::timestamp:
      if (s) {
        std::string problem;
        if (parse_timestamp(*s, problem)) return "write " + lhs + "TIMESTAMP " + l.text;
      }
      return "write a TIMESTAMP literal (" + lhs + std::string(timestamp_example) + ")";
    case column_type::boolean:
      if (s) {
        if (equal_ignoring_case(*s, "true")) return "write " + lhs + "TRUE";
        if (equal_ignoring_case(*s, "false")) return "write " + lhs + "FALSE";
      }
      return "write " + lhs + "TRUE or " + lhs + "FALSE";
    case column_type::string: {
      std::string quoted = "'";
      for (char ch : l.text) quoted += ch == '\'' ? std::string("''") : std::string(1, ch);
      return "write a single-quoted string (" + lhs + quoted + "')";
    }
    case column_type::json:
    case column_type::row:
      break;
  }
  return {};
}

// The number text of an integer or decimal literal, if it is one.
std::optional<std::string> number_text(const literal_ref& l) {
  if (std::holds_alternative<std::int64_t>(l.value)) return l.text;
  if (const auto* d = std::get_if<decimal_text>(&l.value)) return d->text;
  return std::nullopt;
}

// `l` as a value of column `c` (of node path `path`, written `where`), or why
// it is not one: no coercion between types, and a number only where it is
// exactly representable (DOUBLE takes the nearest double, as every reader of
// such a column does).
result<literal> typed_literal(const column& c, const std::string& where, const std::string& lhs,
                              const literal_ref& l) {
  const std::string column_is = "column " + where + " is " + type_name(c);
  auto mismatch = [&] {
    return error("type_mismatch", l.pos,
                 "type mismatch: " + column_is + " but " + l.text + " is a " + std::string(kind_of(l)) +
                     " literal, and there is no implicit conversion; " + suggestion(c, lhs, l));
  };
  switch (c.type) {
    case column_type::bigint:
      if (const auto* i = std::get_if<std::int64_t>(&l.value)) return literal{*i};
      if (const auto* d = std::get_if<decimal_text>(&l.value)) {
        std::string message = d->text + " is not an integer; " + column_is;
        // 1e3 or 2.0 are integers written otherwise: say how.
        const decimal_verdict whole = parse_decimal(d->text, 19, 0);
        if (whole.problem.empty() && whole.value.unscaled >= std::numeric_limits<std::int64_t>::min() &&
            whole.value.unscaled <= std::numeric_limits<std::int64_t>::max())
          message += "; write " + lhs + format_decimal(whole.value, 0);
        else
          message += ", which takes integer literals only (use a DECIMAL or DOUBLE column for fractions)";
        return error("not_an_integer", l.pos, std::move(message));
      }
      return mismatch();
    case column_type::double_: {
      const std::optional<std::string> text = number_text(l);
      if (!text) return mismatch();
      double v = 0;
      const char* first = text->data();
      const char* last = first + text->size();
      const auto [end, ec] = std::from_chars(first, last, v);
      if (ec != std::errc{} || end != last || !std::isfinite(v))
        return error(
            "double_out_of_range", l.pos,
            *text + " is outside the range of DOUBLE (about 2.2e-308 to 1.8e308 in magnitude); " + column_is);
      // -0.0 and 0.0 compare equal in every operator: one meaning, one
      // plan (and one digest).
      if (v == 0) v = 0.0;
      return literal{v};
    }
    case column_type::decimal: {
      const std::optional<std::string> text = number_text(l);
      if (!text) return mismatch();
      const decimal_verdict verdict = parse_decimal(*text, c.precision, c.scale);
      if (!verdict.problem.empty())
        return error("decimal_does_not_fit", l.pos,
                     *text + " " + verdict.problem + " (" + column_is + "; nothing is rounded)");
      return literal{verdict.value};
    }
    case column_type::timestamp:
      if (const auto* t = std::get_if<timestamp_value>(&l.value)) return literal{*t};
      return mismatch();
    case column_type::boolean:
      if (const auto* b = std::get_if<bool>(&l.value)) return literal{*b};
      return mismatch();
    case column_type::string:
      if (const auto* s = std::get_if<std::string>(&l.value)) return literal{*s};
      return mismatch();
    case column_type::json:
    case column_type::row:
      break;
  }
  return mismatch();
}

// The output name a projection item gets without AS, and a name to suggest
// when two of them clash: after.id → after_id.
std::string joined(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& s : path) out += (out.empty() ? "" : "_") + s;
  return out;
}

}  // namespace

// For a JSON column of an Avro source, what the Avro field is (" (the Avro
// field is an array of string, kept as JSON: it may be projected)"), else "".
std::string avro_origin(const schema& source, const std::vector<std::string>& path) {
  if (!source.avro) return {};
  auto parsed = avro::parse_schema(source.avro->schema);
  if (!parsed) return {};
  auto mapped = avro::to_columns(*parsed);
  if (!mapped) return {};
  for (const avro::mapped_column& n : mapped->notes)
    if (n.path == path && !n.comparable)
      return " (its Avro type, " + n.avro_type + ", is kept as JSON: it may be projected, not compared)";
  return {};
}

result<bound_query> bind(const query& q, const schema& source) {
  // The source first: when it is wrong, every column error would be noise.
  if (q.source.name != source.source) {
    std::string message = "unknown source '" + q.source.name + "'; ";
    if (equal_ignoring_case(q.source.name, source.source))
      message += "did you mean " + shown(source.source) + "? (names are case-sensitive)";
    else
      message += "the schema defines source " + shown(source.source);
    // A file of routes reads one source: each statement names the schema's.
    if (q.sink) message += " (every INSERT INTO statement reads the schema's source)";
    return error("unknown_source", q.source.pos, std::move(message));
  }

  const std::vector<node> nodes = flatten(source);
  bound_query out;
  // (output name, where it was written) to point back at the first use.
  std::vector<std::pair<std::string_view, position>> outputs;
  for (const auto& item : q.projection) {
    auto index = resolve_column(source, nodes, item.column);
    if (!index) return index.error();
    // Without AS a path's output member is its last segment, as a JSON
    // reader of the output expects (after.amount → "amount").
    const name_ref& output = item.alias ? *item.alias : item.column;
    const std::string& output_name = output.name;
    for (const auto& [name, where] : outputs)
      if (name == output_name) {
        std::string message = "output name '" + output_name + "' is used twice (first at " + at_text(where) +
                              "); output names must be unique: give one of them a different alias with AS";
        if (!item.alias && item.column.path.size() > 1)
          message += " (" + item.column.written() + " AS " + sql_name(joined(item.column.path)) + ")";
        return error("duplicate_output_name", output.pos, std::move(message));
      }
    outputs.emplace_back(output_name, output.pos);
    out.projection.push_back(projection_item{*index, output_name});
  }

  for (const auto& p : q.predicate) {
    auto index = resolve_column(source, nodes, p.column);
    if (!index) return index.error();
    const column& c = *nodes[*index].column;
    const std::string where = shown_path(nodes[*index].path);
    condition cond{*index, p.op, std::monostate{}};
    // IS [NOT] NULL is accepted on every column, nullable or not. On a
    // non-nullable column it is constant (IS NULL never matches, IS NOT NULL
    // always does) but still correct, and refusing it would make a query
    // break when a column's nullability is tightened in the schema.
    if (p.op == compare_op::is_null || p.op == compare_op::is_not_null) {
      out.predicate.push_back(std::move(cond));
      continue;
    }
    if (!is_comparable(c.type))
      return error(
          "not_comparable", p.op_pos,
          "operator " + std::string(to_string(p.op)) + " is not defined on " + type_name(c) + " column " +
              where + "; a " + type_name(c) + " column takes only IS NULL and IS NOT NULL" +
              (c.type == column_type::row ? " (compare one of its fields: " + path_text(nodes[*index].path) +
                                                "." + sql_name(c.fields.front().name) + ")"
                                          : avro_origin(source, nodes[*index].path)));
    const bool ordering =
        p.op == compare_op::lt || p.op == compare_op::le || p.op == compare_op::gt || p.op == compare_op::ge;
    if (ordering && !is_ordered(c.type))
      return error("ordering_on_unordered", p.op_pos,
                   "operator " + std::string(to_string(p.op)) + " is not defined on " + type_name(c) +
                       " column " + where +
                       "; ordering operators (< <= > >=) apply only to BIGINT, DOUBLE, DECIMAL and TIMESTAMP "
                       "columns; use = or <>");
    const std::string lhs = path_text(nodes[*index].path) + " " + std::string(to_string(p.op)) + " ";
    auto value = typed_literal(c, where, lhs, *p.value);
    if (!value) return value.error();
    cond.value = std::move(*value);
    out.predicate.push_back(std::move(cond));
  }

  if (q.partition_by) {
    auto index = resolve_column(source, nodes, *q.partition_by);
    if (!index) return index.error();
    // A key is bytes: a STRING's UTF-8 or a BIGINT in the --key-format
    // chosen. Any other type would need a text form nobody agreed on.
    const column& c = *nodes[*index].column;
    if (c.type != column_type::string && c.type != column_type::bigint)
      return error("unsupported_key_type", q.partition_by->pos,
                   "PARTITION BY column " + shown_path(nodes[*index].path) + " is " + type_name(c) +
                       "; the key column must be STRING (written as its UTF-8 bytes) or BIGINT (written as "
                       "--key-format says: its decimal text, or 8 big-endian bytes with long)");
    out.partition_by = *index;
  }
  return out;
}

}  // namespace streamt::plan::sql
