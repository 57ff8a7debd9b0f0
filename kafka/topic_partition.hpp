// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Partitions and offsets as owned plain data, and conversion to and from
// librdkafka's rd_kafka_topic_partition_list_t.

#include "kafka/error.hpp"
#include "kafka/handles.hpp"

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::kafka {

// librdkafka's "no offset" (nothing committed yet).
inline constexpr std::int64_t no_offset = RD_KAFKA_OFFSET_INVALID;
// librdkafka's logical offsets, for assign and seek: a partition's first
// record, and the offset after its last.
inline constexpr std::int64_t offset_beginning = RD_KAFKA_OFFSET_BEGINNING;
inline constexpr std::int64_t offset_end = RD_KAFKA_OFFSET_END;

struct topic_partition {
  std::string topic;
  std::int32_t partition = 0;
  friend auto operator<=>(const topic_partition&, const topic_partition&) = default;
};

struct partition_offset {
  topic_partition partition;
  // An absolute offset, no_offset, or offset_beginning / offset_end when
  // used to assign or seek.
  std::int64_t offset = no_offset;
  friend bool operator==(const partition_offset&, const partition_offset&) = default;
};

// A group's committed offset of a partition: none (nullopt) for a group
// that never committed one there, never a sentinel mixed into the offset.
struct committed_offset {
  topic_partition partition;
  std::optional<std::int64_t> offset;
  std::string metadata{};  // the commit's metadata, as committed (empty: none)
  friend bool operator==(const committed_offset&, const committed_offset&) = default;
};

struct watermarks {
  std::int64_t low = 0;   // log start offset (first retained record)
  std::int64_t high = 0;  // end offset (next offset to be written)
};

// Topic configurations as the brokers describe them: by topic name, then by
// configuration key.
using topic_settings = std::map<std::string, std::map<std::string, std::string>>;

partition_list_ptr to_list(const std::vector<topic_partition>& partitions);
// Gives `p` a copy of `metadata` as its offset commit's metadata, allocated
// the way librdkafka frees it with the list (an empty one: none).
void set_commit_metadata(rd_kafka_t* rk, rd_kafka_topic_partition_t& p, std::string_view metadata);
partition_list_ptr to_list(const std::vector<partition_offset>& offsets);
std::vector<topic_partition> partitions_of(const rd_kafka_topic_partition_list_t* list);
std::vector<committed_offset> committed_of(const rd_kafka_topic_partition_list_t* list);
// The first per-partition error in the list, naming the partition; success if none.
error_report first_partition_error(const rd_kafka_topic_partition_list_t* list);

}  // namespace streamt::kafka
