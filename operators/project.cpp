// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/project.hpp"

#include <stdexcept>

namespace streamt::operators {

project_definition::project_definition(const plan::plan& p) {
  columns_.reserve(p.projection.size());
  for (const auto& item : p.projection) {
    if (item.column >= p.schema.columns.size())
      throw std::invalid_argument("projection of column index " + std::to_string(item.column) +
                                  " outside the schema");
    columns_.push_back({item.column, p.schema.columns[item.column].type, item.output_name});
  }
}

}  // namespace streamt::operators
