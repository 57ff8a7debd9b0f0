// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The engine's view of one input record, whatever its origin: a line of a
// kcat envelope file (replay) or an rd_kafka_message_t (Kafka). Views only:
// the bytes belong to the batch that produced them and stay valid until the
// source is asked for the next batch. Nothing on the per-record path copies.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace streamt::engine {

struct header_view {
  std::string_view name;
  std::optional<std::string_view> value;  // Kafka headers may have null values
};

struct record_view {
  std::string_view topic;
  std::int32_t partition = 0;
  std::int64_t offset = 0;
  std::optional<std::string_view> key;    // nullopt: null key (kept null on output)
  std::optional<std::string_view> value;  // nullopt: tombstone
  std::optional<std::int64_t> timestamp;  // milliseconds since the epoch
  std::span<const header_view> headers;
};

// Where a record is, as users name it in Kafka tools: "orders/0@9"
// (topic/partition@offset), used in every message about one record.
inline std::string position(std::string_view topic, std::int32_t partition, std::int64_t offset) {
  std::string s(topic);
  s += '/';
  s += std::to_string(partition);
  s += '@';
  s += std::to_string(offset);
  return s;
}

}  // namespace streamt::engine
