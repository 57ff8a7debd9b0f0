// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/message_view.hpp"

#include "kafka/handles.hpp"

#include <librdkafka/rdkafka.h>

namespace streamt::kafka {

std::optional<std::string_view> last_header_value(const message_view& m, const std::string& name) {
  if (m.consumed != nullptr) {
    // librdkafka parses the consumed message's headers on first use and
    // keeps them with the message; a plan reading headers pays that once
    // per record, a plan that does not never does.
    rd_kafka_headers_t* headers = nullptr;
    if (rd_kafka_message_headers(as_native(m.consumed), &headers) != RD_KAFKA_RESP_ERR_NO_ERROR)
      return std::nullopt;
    const void* value = nullptr;
    std::size_t size = 0;
    if (rd_kafka_header_get_last(headers, name.c_str(), &value, &size) != RD_KAFKA_RESP_ERR_NO_ERROR ||
        value == nullptr)
      return std::nullopt;
    return std::string_view(static_cast<const char*>(value), size);
  }
  for (auto h = m.headers.rbegin(); h != m.headers.rend(); ++h)
    if (h->name == name) return h->value;
  return std::nullopt;
}

}  // namespace streamt::kafka
