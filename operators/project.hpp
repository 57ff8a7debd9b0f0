// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// project: which slots of the decoded row leave the pipeline, in which order,
// under which output names. It only describes; encode renders it, so a row is
// never copied into an intermediate projected row.

#include "plan/plan.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace streamt::operators {

struct projected_column {
  std::size_t slot = 0;  // index into row::slots (= the column's node, plan::flatten)
  plan::column_type type = plan::column_type::string;
  std::string output_name;
  // The column as the schema declares it: a ROW's fields are written as a
  // JSON object from the slots that follow its own, in pre-order.
  plan::column column;
  // The column can be null: it is nullable, or a ROW it is inside is
  // (plan::may_be_null). An Avro sink writes it as a union with null.
  bool may_be_null = false;
};

class project_definition {
 public:
  // Throws std::invalid_argument if an item names a column outside the schema:
  // a validated plan never does, so that is a bug in the caller, not bad input.
  explicit project_definition(const plan::plan& p) : project_definition(p.schema, p.projection) {}
  // One route's SELECT list over the plan's schema.
  project_definition(const plan::schema& schema, const std::vector<plan::projection_item>& items);

  std::span<const projected_column> columns() const noexcept { return columns_; }

 private:
  std::vector<projected_column> columns_;
};

}  // namespace streamt::operators
