// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/project.hpp"

#include <stdexcept>

namespace streamt::operators {

project_definition::project_definition(const plan::plan& p) {
  columns_.reserve(p.projection.size());
  const std::vector<plan::node> nodes = plan::flatten(p.schema);
  for (const auto& item : p.projection) {
    if (item.column >= nodes.size())
      throw std::invalid_argument("projection of column index " + std::to_string(item.column) +
                                  " outside the schema");
    const plan::column& c = *nodes[item.column].column;
    columns_.push_back({item.column, c.type, item.output_name, c, plan::may_be_null(nodes, item.column)});
  }
}

}  // namespace streamt::operators
