// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The engine's view of one input record, whatever its origin: a line of a
// kcat envelope file (replay) or an rd_kafka_message_t (Kafka). Views only:
// the bytes belong to the batch that produced them and stay valid until the
// source is asked for the next batch. Nothing on the per-record path copies.

#include "kafka/message_view.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace streamt::engine {

// kafka/'s own view types: one header type and one record type from the
// consumer through the stages to the producer, with nothing to convert.
// They hold no librdkafka type, so the offline replay fills them too.
using header_view = kafka::header_view;
using record_view = kafka::message_view;

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
