// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/diagnostic.hpp"

namespace streamt {

std::string format(const diagnostic& d) {
  std::string out;
  if (d.line != 0) {
    out += std::to_string(d.line) + ":" + std::to_string(d.column) + ": ";
  } else if (!d.path.empty()) {
    out += d.path + ": ";
  }
  out += d.message;
  return out;
}

}  // namespace streamt
