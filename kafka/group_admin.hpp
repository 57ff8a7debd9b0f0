// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// A consumer group seen from outside: its state and members, its committed
// offsets, the partitions' ends, and moving a committed offset. For the
// operators' command `streamt offsets`, which runs no event loop: every
// call here blocks the calling thread, bounded by the timeout it is given,
// and must never be made from an io_context's thread (the engine uses
// consumer and producer instead).
//
// The ends are asked read_committed: the "end" of a partition is its last
// stable offset, the offset a read_committed consumer (the engine) can
// reach now, not the high watermark an open upstream transaction is ahead
// of.

#include "kafka/config.hpp"
#include "kafka/error.hpp"
#include "kafka/handles.hpp"
#include "kafka/topic_partition.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace streamt::kafka {

struct group_description {
  std::string state;  // librdkafka's name: Empty, Stable, PreparingRebalance, Dead, ...
  std::size_t members = 0;
  // PreparingRebalance or CompletingRebalance: the members are being
  // assigned their partitions anew.
  bool rebalancing = false;
  // Whether no member holds the group: a committed offset can be moved only
  // then (the coordinator refuses an offset commit from outside a live group).
  bool inactive() const noexcept { return members == 0; }
};

struct group_offset {
  topic_partition partition;
  std::int64_t offset = no_offset;  // the next offset the group consumes
  std::string metadata;             // the commit's metadata string, as stored
};

class group_admin {
 public:
  // A client for the brokers in `bootstrap_servers` with the user's settings
  // (TLS, SASL; references already resolved, engine-owned keys refused).
  static config_result<group_admin> connect(const std::string& bootstrap_servers, const settings& user);

  kafka_result<group_description> describe(const std::string& group, std::chrono::milliseconds timeout) const;
  // Every partition the group has an offset for, sorted. A group with open
  // transactional offsets answers UNSTABLE_OFFSET_COMMIT (asked with
  // require_stable, KIP-447), as the engine would be answered at start.
  kafka_result<std::vector<group_offset>> committed(const std::string& group,
                                                    std::chrono::milliseconds timeout) const;
  // The partition count of `topic` (error UNKNOWN_TOPIC_OR_PART if none).
  kafka_result<std::int32_t> partition_count(const std::string& topic,
                                             std::chrono::milliseconds timeout) const;
  // The last stable offset of a partition (see above).
  kafka_result<std::int64_t> end_offset(const topic_partition& p, std::chrono::milliseconds timeout) const;
  // Stores `offsets` as the group's committed offsets (AlterConsumerGroupOffsets).
  // The coordinator refuses while the group has members.
  error_report alter(const std::string& group, const std::vector<group_offset>& offsets,
                     std::chrono::milliseconds timeout) const;

 private:
  explicit group_admin(kafka_ptr rk) : rk_(std::move(rk)) {}
  kafka_ptr rk_;
};

}  // namespace streamt::kafka
