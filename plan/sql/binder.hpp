// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Phase 3 of the SQL compiler: resolve the parsed query's names against the
// schema and check every predicate's types. What comes out can be put into a
// plan as is: column indices, typed literals, unique output names.

#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"
#include "plan/sql/parser.hpp"

#include <vector>

namespace streamt::plan::sql {

struct bound_query {
  std::vector<condition> predicate;
  std::vector<projection_item> projection;
};

// Errors (phase::bind): unknown_source, unknown_column, duplicate_output_name,
// ordering_on_non_bigint, type_mismatch.
result<bound_query> bind(const query& q, const schema& source);

}  // namespace streamt::plan::sql
