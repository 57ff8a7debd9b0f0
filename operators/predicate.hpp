// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// predicate: the WHERE clause, an AND of conditions (empty: every row passes),
// evaluated on the decoded row with SQL's three-valued logic collapsed to
// "passes or not": a comparison whose column value is null is unknown, hence
// never true (`note <> 'x'` drops rows whose note is null); only IS NULL
// matches a null, and a column inside a null ROW is null. STRING equality is
// byte-for-byte (case-sensitive, no normalisation); ordering operators are on
// BIGINT, DOUBLE, DECIMAL (exact, on unscaled values) and TIMESTAMP (the plan
// guarantees it).

#include "operators/row.hpp"
#include "plan/plan.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace streamt::operators {

class predicate_definition {
 public:
  // Throws std::invalid_argument if a condition names a column outside the
  // schema, or its literal's type differs from the column's (or is missing for
  // a comparison): a validated plan never does, so that is a caller bug.
  explicit predicate_definition(const plan::plan& p) : predicate_definition(p.schema, p.predicate) {}
  // One route's WHERE over the plan's schema (a routed plan has one per
  // route; a single SELECT's is the plan's own).
  predicate_definition(const plan::schema& schema, const std::vector<plan::condition>& conditions);

  struct condition {
    std::size_t slot = 0;
    plan::compare_op op = plan::compare_op::eq;
    plan::column_type type = plan::column_type::bigint;
    std::int64_t bigint = 0;  // BIGINT, and TIMESTAMP as epoch milliseconds
    bool boolean = false;
    std::string string;
    double dbl = 0;
    plan::int128 decimal = 0;  // unscaled, at the column's scale
    // op and type folded into one when the definition is built, so that
    // evaluate takes one switch per condition; `other` (BOOLEAN, and STRING
    // ordering, which the plan never asks for) takes the general path.
    enum class test : std::uint8_t {
      is_null,
      is_not_null,
      bigint_eq,
      bigint_ne,
      bigint_lt,
      bigint_le,
      bigint_gt,
      bigint_ge,
      string_eq,
      string_ne,
      other
    };
    test kind = test::other;
  };
  const std::vector<condition>& conditions() const noexcept { return conditions_; }

 private:
  std::vector<condition> conditions_;
};

// True if the row satisfies every condition. Stateless and allocation-free.
[[nodiscard]] bool evaluate(const predicate_definition& def, const row& r) noexcept;

}  // namespace streamt::operators
