#pragma once
// The decoded, typed record: one slot per schema column, in schema order.
// A row is reused for every record of a pipeline: decode overwrites each slot,
// and a STRING slot keeps its std::string's capacity, so once the longest
// string seen so far fits, decoding allocates nothing.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace streamt::operators {

// Only the member matching the column's type is meaningful, and only when
// `is_null` is false. A tagged union would save bytes but would destroy the
// string (and its capacity) whenever a slot changes alternatives.
struct slot {
  bool is_null = true;
  std::int64_t bigint = 0;
  bool boolean = false;
  std::string string;
};

struct row {
  row() = default;
  explicit row(std::size_t columns) : slots(columns) {}

  std::vector<slot> slots;
};

}  // namespace streamt::operators
