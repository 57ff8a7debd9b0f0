// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Owning handles for every librdkafka object we hold. A raw pointer that
// escapes its scope leaks a broker connection or a message buffer; with these
// the compiler closes them on every path, including early returns on error.

#include "kafka/message_view.hpp"

#include <librdkafka/rdkafka.h>

#include <memory>
#include <string_view>

namespace streamt::kafka {

// The librdkafka this process runs with (the shared library's, which may be
// newer than the headers it was built against).
inline std::string_view library_version() noexcept { return rd_kafka_version_str(); }

// message_view::consumed and the rd_kafka_message_t it is.
inline const consumed_message* as_consumed(const rd_kafka_message_t* m) noexcept {
  return reinterpret_cast<const consumed_message*>(m);
}
inline const rd_kafka_message_t* as_native(const consumed_message* m) noexcept {
  return reinterpret_cast<const rd_kafka_message_t*>(m);
}

struct kafka_deleter {
  void operator()(rd_kafka_t* p) const noexcept { rd_kafka_destroy(p); }
};
struct conf_deleter {
  void operator()(rd_kafka_conf_t* p) const noexcept { rd_kafka_conf_destroy(p); }
};
struct partition_list_deleter {
  void operator()(rd_kafka_topic_partition_list_t* p) const noexcept {
    rd_kafka_topic_partition_list_destroy(p);
  }
};
struct message_deleter {
  void operator()(rd_kafka_message_t* p) const noexcept { rd_kafka_message_destroy(p); }
};
struct queue_deleter {
  void operator()(rd_kafka_queue_t* p) const noexcept { rd_kafka_queue_destroy(p); }
};
struct error_deleter {
  void operator()(rd_kafka_error_t* p) const noexcept { rd_kafka_error_destroy(p); }
};
struct event_deleter {
  void operator()(rd_kafka_event_t* p) const noexcept { rd_kafka_event_destroy(p); }
};
struct topic_deleter {
  void operator()(rd_kafka_topic_t* p) const noexcept { rd_kafka_topic_destroy(p); }
};
struct headers_deleter {
  void operator()(rd_kafka_headers_t* p) const noexcept { rd_kafka_headers_destroy(p); }
};
struct group_metadata_deleter {
  void operator()(rd_kafka_consumer_group_metadata_t* p) const noexcept {
    rd_kafka_consumer_group_metadata_destroy(p);
  }
};

using kafka_ptr = std::unique_ptr<rd_kafka_t, kafka_deleter>;
using conf_ptr = std::unique_ptr<rd_kafka_conf_t, conf_deleter>;
using partition_list_ptr = std::unique_ptr<rd_kafka_topic_partition_list_t, partition_list_deleter>;
using message_ptr = std::unique_ptr<rd_kafka_message_t, message_deleter>;
using queue_ptr = std::unique_ptr<rd_kafka_queue_t, queue_deleter>;
using error_ptr = std::unique_ptr<rd_kafka_error_t, error_deleter>;
using event_ptr = std::unique_ptr<rd_kafka_event_t, event_deleter>;
using topic_ptr = std::unique_ptr<rd_kafka_topic_t, topic_deleter>;
using headers_ptr = std::unique_ptr<rd_kafka_headers_t, headers_deleter>;
using group_metadata_ptr = std::unique_ptr<rd_kafka_consumer_group_metadata_t, group_metadata_deleter>;

}  // namespace streamt::kafka
