#include "operators/predicate.hpp"

#include <compare>
#include <stdexcept>
#include <string_view>
#include <variant>

namespace streamt::operators {

predicate_definition::predicate_definition(const plan::plan& p) {
  conditions_.reserve(p.predicate.size());
  for (const auto& c : p.predicate) {
    if (c.column >= p.schema.columns.size())
      throw std::invalid_argument("predicate on column index " + std::to_string(c.column) +
                                  " outside the schema");
    condition out;
    out.slot = c.column;
    out.op = c.op;
    out.type = p.schema.columns[c.column].type;
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
      }
      if (!matches)
        throw std::invalid_argument("predicate literal does not match the type of column '" +
                                    p.schema.columns[c.column].name + "'");
    }
    conditions_.push_back(std::move(out));
  }
}

namespace {

bool holds(std::strong_ordering cmp, plan::compare_op op) noexcept {
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

bool test(const predicate_definition::condition& c, const slot& s) noexcept {
  if (c.op == plan::compare_op::is_null) return s.is_null;
  if (c.op == plan::compare_op::is_not_null) return !s.is_null;
  // Unknown is not true: the row does not pass.
  if (s.is_null) return false;
  switch (c.type) {
    case plan::column_type::bigint:
      return holds(s.bigint <=> c.bigint, c.op);
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
  for (const auto& c : def.conditions())
    if (!test(c, r.slots[c.slot])) return false;
  return true;
}

}  // namespace streamt::operators
