// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/sql/binder.hpp"

#include <utility>
#include <variant>

#include <cstddef>
#include <string>
#include <string_view>

namespace streamt::plan::sql {
namespace {

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string at_text(const position& p) { return std::to_string(p.line) + ":" + std::to_string(p.column); }

diagnostic error(std::string code, const position& at, std::string message) {
  return make_diagnostic(phase::bind, std::move(code), at, std::move(message));
}

// Names are case-sensitive (contract §2), so `ID` is not `id`; but saying so
// beats a bare "unknown column" when that is the only difference.
result<std::size_t> resolve_column(const schema& s, const name_ref& n) {
  if (auto i = s.find(n.name)) return *i;
  for (const auto& c : s.columns)
    if (equal_ignoring_case(c.name, n.name))
      return error(
          "unknown_column", n.pos,
          "unknown column '" + n.name + "'; did you mean '" + c.name + "'? (names are case-sensitive)");
  std::string message = "unknown column '" + n.name + "'; source '" + s.source + "' has columns ";
  constexpr std::size_t listed = 16;
  for (std::size_t i = 0; i < s.columns.size() && i < listed; ++i)
    message += (i == 0 ? "" : ", ") + s.columns[i].name;
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
  const std::string lhs = c.name + " " + std::string(to_string(op)) + " ";
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
  }
  return {};
}

}  // namespace

result<bound_query> bind(const query& q, const schema& source) {
  // The source first: when it is wrong, every column error would be noise.
  if (q.source.name != source.source) {
    std::string message = "unknown source '" + q.source.name + "'; ";
    if (equal_ignoring_case(q.source.name, source.source))
      message += "did you mean '" + source.source + "'? (names are case-sensitive)";
    else
      message += "the schema defines source '" + source.source + "'";
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
