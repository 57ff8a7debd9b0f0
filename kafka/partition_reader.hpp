// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Reading a topic's records from outside any consumer group, for the dry
// run `streamt diff`: it must neither join the application's group (a
// rebalance would take partitions from the running instances) nor commit an
// offset anywhere. librdkafka's group consumer wants a group.id even to
// assign() partitions by hand (it answers "Unknown group" without one), so
// this reader uses librdkafka's simple consumer instead, which has no group
// at all: no code path here can commit, because there is nothing to commit
// to.
//
// Fixed settings: isolation.level=read_committed (what the engine would
// read: aborted records are skipped, and the ends asked with it are last
// stable offsets), enable.auto.commit=false and enable.auto.offset.store=false
// (belt and braces: without a group they have no target anyway),
// auto.offset.reset=error (a start outside the log is reported, never moved
// to the log's end in silence), and enable.partition.eof=true (the reader
// knows it reached the end even when the last offsets below it hold
// transaction markers, which are never handed out).
//
// Like group_admin, every call blocks the calling thread, bounded by the
// timeout it is given; never call it from an io_context's thread.

#include "kafka/config.hpp"
#include "kafka/error.hpp"
#include "kafka/handles.hpp"
#include "kafka/message_view.hpp"
#include "kafka/topic_partition.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace streamt::kafka {

class partition_reader {
 public:
  // A client for the brokers in `bootstrap_servers` with the user's settings
  // (TLS, SASL; references already resolved, engine-owned keys refused).
  static config_result<partition_reader> connect(const std::string& bootstrap_servers, const settings& user);

  // The partition count of `topic` (error UNKNOWN_TOPIC_OR_PART if none).
  kafka_result<std::int32_t> partition_count(const std::string& topic,
                                             std::chrono::milliseconds timeout) const;
  // The log start and the last stable offset of a partition.
  kafka_result<watermarks> query_watermarks(const topic_partition& p,
                                            std::chrono::milliseconds timeout) const;

  // Hands the records of `p` from offset `from` up to `end` (exclusive) to
  // `take`, in offset order, a batch at a time, and at most `max_records`
  // of them; the views are valid during the call only. Completes with the
  // offset the partition was read to: `end` once the partition's end was
  // reached, else the offset after the last record handed (at
  // `max_records`). Fails on a consume error (naming the partition and the
  // offset), or when nothing at all arrives for `idle_timeout`.
  using batch_handler = std::function<void(std::span<const message_view>)>;
  kafka_result<std::int64_t> read(const topic_partition& p, std::int64_t from, std::int64_t end,
                                  std::uint64_t max_records, std::chrono::milliseconds idle_timeout,
                                  const batch_handler& take);

 private:
  explicit partition_reader(kafka_ptr rk) : rk_(std::move(rk)) {}
  kafka_ptr rk_;
};

}  // namespace streamt::kafka
