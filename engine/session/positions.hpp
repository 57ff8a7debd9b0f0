// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Strong types for where the session stands in the source topic. A plan has
// one source topic, so a partition is its number; an offset is a real record
// offset, never a sentinel: "no offset" is an empty std::optional, and "the
// next offset to consume" is next_offset(o), not o + 1 written by hand. They
// keep a partition from being passed as an offset, and -1 (librdkafka's
// "invalid") from being compared as if it were a position.

#include <compare>
#include <cstdint>
#include <string>

namespace streamt::engine::session {

struct partition_id {
  std::int32_t value = 0;
  friend constexpr auto operator<=>(partition_id, partition_id) = default;
};

struct offset {
  std::int64_t value = 0;
  friend constexpr auto operator<=>(offset, offset) = default;
};

// The offset a consumer takes after `o`, and the offset a commit stores for
// a partition whose last handled record is `o`.
// A partition's log as the brokers last described it.
struct watermarks {
  offset low;   // the first record retained
  offset high;  // the offset after the last record
};

constexpr offset next_offset(offset o) noexcept { return offset{o.value + 1}; }
// The record before `next` (the last one handled when `next` is committed).
constexpr offset previous_offset(offset next) noexcept { return offset{next.value - 1}; }

inline std::string to_string(partition_id p) { return std::to_string(p.value); }
inline std::string to_string(offset o) { return std::to_string(o.value); }

}  // namespace streamt::engine::session
