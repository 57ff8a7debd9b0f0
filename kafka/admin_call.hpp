// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The parts every blocking admin request shares (options bounded by a
// timeout, the wait for the one result it posts), the one request the
// runtime makes outside group_admin: a setting of some topics, and the two
// questions about a topic both group_admin and partition_reader ask.
// Blocking: call them off the io_context (producer.cpp runs them on its
// transactional pool).

#include "kafka/error.hpp"
#include "kafka/handles.hpp"
#include "kafka/topic_partition.hpp"

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace streamt::kafka {

struct admin_options_deleter {
  void operator()(rd_kafka_AdminOptions_t* p) const noexcept { rd_kafka_AdminOptions_destroy(p); }
};
using admin_options_ptr = std::unique_ptr<rd_kafka_AdminOptions_t, admin_options_deleter>;

// A timeout as librdkafka's int milliseconds, at least 1.
int admin_ms(std::chrono::milliseconds t);

// Options bounding the request by `timeout`; an option librdkafka refuses
// here is a bug of ours (std::logic_error), not the user's.
admin_options_ptr options_for(rd_kafka_t* rk, rd_kafka_admin_op_t op, std::chrono::milliseconds timeout);

// Waits for the one result an admin call posts to `q`: the event, or a
// timed-out report when none came (the request's own timeout should come
// first; this is the backstop).
kafka_result<event_ptr> wait_result(rd_kafka_queue_t* q, std::chrono::milliseconds timeout);

// The values of the topic configurations `keys` (DescribeConfigs) for each
// of `topics`: by topic name, then by key (a key the brokers do not know is
// absent). A topic the brokers answer with an error (not authorised to
// DescribeConfigs, unknown) fails the whole request with it.
kafka_result<topic_settings> describe_topic_settings(rd_kafka_t* rk, const std::vector<std::string>& topics,
                                                     const std::vector<std::string>& keys,
                                                     std::chrono::milliseconds timeout);

// The partition count of `topic` (error UNKNOWN_TOPIC_OR_PART if none).
kafka_result<std::int32_t> topic_partition_count(rd_kafka_t* rk, const std::string& topic,
                                                 std::chrono::milliseconds timeout);
// A partition's log start and end, asked with the client's isolation level:
// under read_committed the end is the last stable offset.
kafka_result<watermarks> partition_watermarks(rd_kafka_t* rk, const topic_partition& p,
                                              std::chrono::milliseconds timeout);

}  // namespace streamt::kafka
