// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Record views for the session tests: a batch is a list of partition@offset,
// as a consumer would hand them over.

#include "engine/record.hpp"

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

namespace streamt::test {

inline std::vector<engine::record_view> records(
    std::initializer_list<std::pair<std::int32_t, std::int64_t>> at) {
  std::vector<engine::record_view> out;
  for (const auto& [partition, offset] : at) {
    engine::record_view v;
    v.topic = "orders";
    v.partition = partition;
    v.offset = offset;
    v.value = "{}";
    out.push_back(v);
  }
  return out;
}

}  // namespace streamt::test
