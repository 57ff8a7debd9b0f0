// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/predicate.hpp"

#include <compare>
#include <stdexcept>
#include <string_view>
#include <variant>

namespace streamt::operators {

namespace {

using test = predicate_definition::condition::test;

test kind_of(plan::compare_op op, plan::column_type type) noexcept {
  using plan::compare_op;
  if (op == compare_op::is_null) return test::is_null;
  if (op == compare_op::is_not_null) return test::is_not_null;
  // A TIMESTAMP is its epoch milliseconds, in the same member as a BIGINT.
  if (type == plan::column_type::bigint || type == plan::column_type::timestamp) {
    switch (op) {
      case compare_op::eq:
        return test::bigint_eq;
      case compare_op::ne:
        return test::bigint_ne;
      case compare_op::lt:
        return test::bigint_lt;
      case compare_op::le:
        return test::bigint_le;
      case compare_op::gt:
        return test::bigint_gt;
      case compare_op::ge:
        return test::bigint_ge;
      default:
        return test::other;
    }
  }
  if (type == plan::column_type::string && op == compare_op::eq) return test::string_eq;
  if (type == plan::column_type::string && op == compare_op::ne) return test::string_ne;
  return test::other;
}

}  // namespace

predicate_definition::predicate_definition(const plan::schema& schema,
                                           const std::vector<plan::condition>& conditions) {
  conditions_.reserve(conditions.size());
  const std::vector<plan::node> nodes = plan::flatten(schema);
  for (const auto& c : conditions) {
    if (c.column >= nodes.size())
      throw std::invalid_argument("predicate on column index " + std::to_string(c.column) +
                                  " outside the schema");
    const plan::column& column = *nodes[c.column].column;
    condition out;
    out.slot = c.column;
    out.op = c.op;
    out.type = column.type;
    bool null_test = c.op == plan::compare_op::is_null || c.op == plan::compare_op::is_not_null;
    if (!null_test) {
      bool matches = false;
      switch (out.type) {
        case plan::column_type::bigint:
          if (auto v = std::get_if<std::int64_t>(&c.value)) {
            out.bigint = *v;
            matches = true;
          }
          break;
        case plan::column_type::boolean:
          if (auto v = std::get_if<bool>(&c.value)) {
            out.boolean = *v;
            matches = true;
          }
          break;
        case plan::column_type::string:
          if (auto v = std::get_if<std::string>(&c.value)) {
            out.string = *v;
            matches = true;
          }
          break;
        case plan::column_type::double_:
          if (auto v = std::get_if<double>(&c.value)) {
            out.dbl = *v;
            matches = true;
          }
          break;
        case plan::column_type::decimal:
          if (auto v = std::get_if<plan::decimal_value>(&c.value)) {
            out.decimal = v->unscaled;
            matches = true;
          }
          break;
        case plan::column_type::timestamp:
          if (auto v = std::get_if<plan::timestamp_value>(&c.value)) {
            out.bigint = v->millis;
            matches = true;
          }
          break;
        case plan::column_type::json:
        case plan::column_type::row:
          break;  // only IS [NOT] NULL tests them
      }
      if (!matches)
        throw std::invalid_argument("predicate literal does not match the type of column '" + column.name +
                                    "'");
    }
    out.kind = kind_of(out.op, out.type);
    conditions_.push_back(std::move(out));
  }
}

namespace {

template <class Ordering>
bool holds(Ordering cmp, plan::compare_op op) noexcept {
  switch (op) {
    case plan::compare_op::eq:
      return cmp == 0;
    case plan::compare_op::ne:
      return cmp != 0;
    case plan::compare_op::lt:
      return cmp < 0;
    case plan::compare_op::le:
      return cmp <= 0;
    case plan::compare_op::gt:
      return cmp > 0;
    case plan::compare_op::ge:
      return cmp >= 0;
    case plan::compare_op::is_null:
    case plan::compare_op::is_not_null:
      break;
  }
  return false;
}

// Any condition, by op and type; evaluate's fast cases must agree with it.
bool test_any(const predicate_definition::condition& c, const slot& s) noexcept {
  if (c.op == plan::compare_op::is_null) return s.is_null;
  if (c.op == plan::compare_op::is_not_null) return !s.is_null;
  // Unknown is not true: the row does not pass.
  if (s.is_null) return false;
  switch (c.type) {
    case plan::column_type::bigint:
    case plan::column_type::timestamp:
      return holds(s.bigint <=> c.bigint, c.op);
    // Both finite (decode refuses anything else), so the order is total.
    case plan::column_type::double_:
      return holds(s.dbl <=> c.dbl, c.op);
    // Unscaled values at the column's scale: integer comparison is exact.
    case plan::column_type::decimal:
      return holds(s.decimal < c.decimal   ? std::strong_ordering::less
                   : s.decimal > c.decimal ? std::strong_ordering::greater
                                           : std::strong_ordering::equal,
                   c.op);
    case plan::column_type::json:
    case plan::column_type::row:
      return false;
    // The plan allows only = and <> here; ordering (false < true, bytes
    // lexicographically) is defined anyway so no op is ever undefined.
    case plan::column_type::boolean:
      return holds(s.boolean <=> c.boolean, c.op);
    case plan::column_type::string:
      return holds(std::string_view(s.string) <=> std::string_view(c.string), c.op);
  }
  return false;
}

}  // namespace

bool evaluate(const predicate_definition& def, const row& r) noexcept {
  for (const auto& c : def.conditions()) {
    const slot& s = r.slots[c.slot];
    bool holds = false;
    switch (c.kind) {
      case test::is_null:
        holds = s.is_null;
        break;
      case test::is_not_null:
        holds = !s.is_null;
        break;
      // Unknown (a null value) is not true: the row does not pass.
      case test::bigint_eq:
        holds = !s.is_null && s.bigint == c.bigint;
        break;
      case test::bigint_ne:
        holds = !s.is_null && s.bigint != c.bigint;
        break;
      case test::bigint_lt:
        holds = !s.is_null && s.bigint < c.bigint;
        break;
      case test::bigint_le:
        holds = !s.is_null && s.bigint <= c.bigint;
        break;
      case test::bigint_gt:
        holds = !s.is_null && s.bigint > c.bigint;
        break;
      case test::bigint_ge:
        holds = !s.is_null && s.bigint >= c.bigint;
        break;
      case test::string_eq:
        holds = !s.is_null && s.string == c.string;
        break;
      case test::string_ne:
        holds = !s.is_null && s.string != c.string;
        break;
      case test::other:
        holds = test_any(c, s);
        break;
    }
    if (!holds) return false;
  }
  return true;
}

}  // namespace streamt::operators
