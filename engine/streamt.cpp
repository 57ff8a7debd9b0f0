// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/streamt.hpp"

#include "plan/read_input.hpp"

namespace streamt {

result<plan::plan> load_plan_file(const std::string& path) {
  result<std::string> text = read_input(path, plan_file_read_limit);
  if (!text) return text.error();
  return plan::load_plan(*text);
}

}  // namespace streamt
