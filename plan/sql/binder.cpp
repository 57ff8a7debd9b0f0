// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/sql/binder.hpp"

#include "plan/spelling.hpp"
#include "plan/sql/keywords.hpp"

#include <vector>

#include <utility>
#include <variant>

#include <cstddef>
#include <string>
#include <string_view>

namespace streamt::plan::sql {
namespace {

std::string at_text(const position& p) { return std::to_string(p.line) + ":" + std::to_string(p.column); }

diagnostic error(std::string code, const position& at, std::string message) {
  return make_diagnostic(phase::bind, std::move(code), at, std::move(message));
}

// The declared column a misspelt name most likely means (plan/spelling.hpp).
const column* nearest_column(const schema& s, std::string_view name) {
  std::vector<std::string_view> names;
  names.reserve(s.columns.size());
  for (const auto& c : s.columns) names.push_back(c.name);
  const std::optional<std::size_t> i = nearest(name, names);
  return i ? &s.columns[*i] : nullptr;
}

// A name as messages show it: a plain one in single quotes as before, any
// other in the double-quoted form a query must write.
std::string shown(std::string_view name) {
  return is_valid_name(name) ? "'" + std::string(name) + "'" : sql_name(name);
}

result<std::size_t> resolve_column(const schema& s, const name_ref& n) {
  if (auto i = s.find(n.name)) return *i;
  if (const column* near = nearest_column(s, n.name)) {
    std::string message = "unknown column '" + n.name + "'; did you mean " + shown(near->name) + "?";
    if (equal_ignoring_case(near->name, n.name)) message += " (names are case-sensitive)";
    return error("unknown_column", n.pos, std::move(message));
  }
  std::string message = "unknown column '" + n.name + "'; source " + shown(s.source) + " has columns ";
  constexpr std::size_t listed = 16;
  for (std::size_t i = 0; i < s.columns.size() && i < listed; ++i)
    message += (i == 0 ? "" : ", ") + sql_name(s.columns[i].name);
  if (s.columns.size() > listed) message += ", ...";
  return error("unknown_column", n.pos, std::move(message));
}

column_type type_of(const literal_ref& l) {
  if (std::holds_alternative<std::int64_t>(l.value)) return column_type::bigint;
  if (std::holds_alternative<bool>(l.value)) return column_type::boolean;
  return column_type::string;
}

bool is_decimal_integer(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  if (s.empty() || s.size() > 19) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// What to write instead of a literal of the wrong type.
std::string suggestion(const column& c, compare_op op, const literal_ref& l) {
  const std::string lhs = sql_name(c.name) + " " + std::string(to_string(op)) + " ";
  switch (c.type) {
    case column_type::bigint:
      if (const auto* s = std::get_if<std::string>(&l.value); s && is_decimal_integer(*s))
        return "write " + lhs + *s;
      return "write an integer literal (" + lhs + "50)";
    case column_type::boolean:
      if (const auto* s = std::get_if<std::string>(&l.value)) {
        if (equal_ignoring_case(*s, "true")) return "write " + lhs + "TRUE";
        if (equal_ignoring_case(*s, "false")) return "write " + lhs + "FALSE";
      }
      return "write " + lhs + "TRUE or " + lhs + "FALSE";
    case column_type::string: {
      std::string quoted = "'";
      for (char ch : l.text) quoted += ch == '\'' ? std::string("''") : std::string(1, ch);
      return "write a single-quoted string (" + lhs + quoted + "')";
    }
    default:
      break;
  }
  return {};
}

}  // namespace

result<bound_query> bind(const query& q, const schema& source) {
  // The source first: when it is wrong, every column error would be noise.
  if (q.source.name != source.source) {
    std::string message = "unknown source '" + q.source.name + "'; ";
    if (equal_ignoring_case(q.source.name, source.source))
      message += "did you mean " + shown(source.source) + "? (names are case-sensitive)";
    else
      message += "the schema defines source " + shown(source.source);
    return error("unknown_source", q.source.pos, std::move(message));
  }

  bound_query out;
  // (output name, where it was written) to point back at the first use.
  std::vector<std::pair<std::string_view, position>> outputs;
  for (const auto& item : q.projection) {
    auto index = resolve_column(source, item.column);
    if (!index) return index.error();
    const name_ref& output = item.alias ? *item.alias : item.column;
    for (const auto& [name, where] : outputs)
      if (name == output.name)
        return error("duplicate_output_name", output.pos,
                     "output name '" + output.name + "' is used twice (first at " + at_text(where) +
                         "); output names must be unique: give one of them a different alias with AS");
    outputs.emplace_back(output.name, output.pos);
    out.projection.push_back(projection_item{*index, output.name});
  }

  for (const auto& p : q.predicate) {
    auto index = resolve_column(source, p.column);
    if (!index) return index.error();
    const column& c = source.columns[*index];
    condition cond{*index, p.op, std::monostate{}};
    // IS [NOT] NULL is accepted on every column, nullable or not. On a
    // non-nullable column it is constant (IS NULL never matches, IS NOT NULL
    // always does) but still correct, and refusing it would make a query
    // break when a column's nullability is tightened in the schema.
    if (p.op == compare_op::is_null || p.op == compare_op::is_not_null) {
      out.predicate.push_back(std::move(cond));
      continue;
    }
    const bool ordering =
        p.op == compare_op::lt || p.op == compare_op::le || p.op == compare_op::gt || p.op == compare_op::ge;
    if (ordering && c.type != column_type::bigint)
      return error("ordering_on_non_bigint", p.op_pos,
                   "operator " + std::string(to_string(p.op)) + " is not defined on " +
                       std::string(to_string(c.type)) + " column '" + c.name +
                       "'; ordering operators (< <= > >=) apply only to BIGINT columns; use = or <>");
    const literal_ref& l = *p.value;
    if (type_of(l) != c.type)
      return error("type_mismatch", l.pos,
                   "type mismatch: column '" + c.name + "' is " + std::string(to_string(c.type)) + " but " +
                       l.text + " is a " + std::string(to_string(type_of(l))) +
                       " literal, and there is no implicit conversion; " + suggestion(c, p.op, l));
    std::visit([&](const auto& v) { cond.value = v; }, l.value);
    out.predicate.push_back(std::move(cond));
  }
  return out;
}

}  // namespace streamt::plan::sql
