// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The decoded, typed record: one slot per schema column, in schema order.
// A row is reused for every record of a pipeline: decode overwrites each slot.
//
// A STRING value is a view. When the record wrote it without escapes (the
// common case), the view points into the value bytes given to decode, so it
// is valid only while those bytes are (stage_pipeline::process uses the row
// before it returns); otherwise decode unescapes it into the slot's `storage`,
// which keeps its capacity, so once the longest such string seen so far fits,
// decoding allocates nothing.

#include "plan/values.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::operators {

// Only the member matching the column's type is meaningful, and only when
// `is_null` is false. A tagged union would save bytes but would destroy the
// storage (and its capacity) whenever a slot changes alternatives.
//
// BIGINT and TIMESTAMP (epoch milliseconds) use `bigint`; DOUBLE `dbl`;
// DECIMAL `decimal`, the unscaled value at the column's scale; STRING and
// JSON (the value written compactly, in `storage`) `string`. A ROW's slot
// says only whether the object is null; its fields have slots of their own.
struct slot {
  bool is_null = true;
  std::int64_t bigint = 0;
  bool boolean = false;
  std::string_view string;  // into the decoded value's bytes or into `storage`
  std::string storage;
  double dbl = 0;
  plan::int128 decimal = 0;
};

struct row {
  row() = default;
  explicit row(std::size_t columns) : slots(columns) {}

  std::vector<slot> slots;
};

}  // namespace streamt::operators
