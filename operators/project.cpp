// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/project.hpp"

#include <stdexcept>

namespace streamt::operators {

project_definition::project_definition(const plan::schema& schema,
                                       const std::vector<plan::projection_item>& items) {
  columns_.reserve(items.size());
  const std::vector<plan::node> nodes = plan::flatten(schema);
  for (const auto& item : items) {
    if (item.column >= nodes.size())
      throw std::invalid_argument("projection of column index " + std::to_string(item.column) +
                                  " outside the schema");
    const plan::column& c = *nodes[item.column].column;
    columns_.push_back({item.column, c.type, item.output_name, c, plan::may_be_null(nodes, item.column)});
  }
}

}  // namespace streamt::operators
