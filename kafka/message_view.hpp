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
#include <string>
#include <string_view>

namespace streamt::kafka {

// A consumed librdkafka message, named but never defined here: a view
// points back at the message it was read from without this header
// including librdkafka (kafka/handles.hpp converts).
struct consumed_message;

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
  // The message a Kafka view was read from (kafka::view_messages), whose
  // headers stay in it: the producer copies them from there, for emitted
  // records only. Reading them costs librdkafka an allocation per record,
  // even for a record with none (0.27 us each, issue 16's profile), and
  // most consumed records are filtered out. Null for views made elsewhere
  // (replay, an embedding's own source), which carry theirs in `headers`.
  const consumed_message* consumed = nullptr;
};

// The value of the last header of `m` named `name` (byte for byte, as Kafka's
// own tools pick a header), whether `m` carries its headers in `headers` or
// in the consumed message; nullopt if it has none of that name, or that
// header's value is null.
std::optional<std::string_view> last_header_value(const message_view& m, const std::string& name);

}  // namespace streamt::kafka
