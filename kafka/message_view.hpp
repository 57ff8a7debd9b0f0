// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// A Kafka record as plain views, the one shape in which records cross the
// kafka/ boundary both ways: consumed records come out as message_view
// (kafka::view_messages reads librdkafka's messages, nothing else does) and
// their headers go back into the producer as the same header_view. No
// librdkafka type appears here, so the engine's own record view can be this
// one (engine/record.hpp) and the offline replay fills it too.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace streamt::kafka {

struct header_view {
  std::string_view name;
  std::optional<std::string_view> value;  // nullopt: a null header value
};

struct message_view {
  std::string_view topic;
  std::int32_t partition = 0;
  std::int64_t offset = 0;
  std::optional<std::string_view> key;    // nullopt: null key (kept null on output)
  std::optional<std::string_view> value;  // nullopt: tombstone; "" is an empty, non-null value
  std::optional<std::int64_t> timestamp;  // milliseconds since the epoch, if the record has one
  std::span<const header_view> headers;
};

}  // namespace streamt::kafka
