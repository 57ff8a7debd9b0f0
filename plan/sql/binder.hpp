// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Phase 3 of the SQL compiler: resolve the parsed query's names against the
// schema and check every predicate's types. What comes out can be put into a
// plan as is: column indices, typed literals, unique output names.

#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"
#include "plan/sql/parser.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace streamt::plan::sql {

struct bound_query {
  std::vector<condition> predicate;
  std::vector<projection_item> projection;
  std::optional<std::size_t> partition_by{};  // INSERT INTO ... PARTITION BY only
};

// Errors (phase::bind): unknown_source, unknown_column (also a field a ROW
// lacks), source_qualified_column (`orders.id` with orders the source),
// path_into_non_row, duplicate_output_name, not_comparable (a JSON or ROW
// column compared other than by IS [NOT] NULL), ordering_on_unordered,
// type_mismatch, not_an_integer (a decimal number on BIGINT),
// decimal_does_not_fit (a number DECIMAL(p,s) cannot hold exactly),
// double_out_of_range, unsupported_key_type (a PARTITION BY column that is
// not STRING or BIGINT). Every INSERT INTO statement is bound alone against
// the one schema, so all of them read its source.
result<bound_query> bind(const query& q, const schema& source);

}  // namespace streamt::plan::sql
