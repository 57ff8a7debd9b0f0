// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The plan log: one single-partition topic per application id in which the
// instances of a fleet append their claims to run a plan
// (engine/session/claims.hpp decides what they mean). The partition's
// offsets are the total order of claims that offset metadata alone cannot
// give: two instances of unrelated plans starting on a new group both see
// nothing committed, but only one claim can come first in the log.
//
// Three blocking calls, each with its own deadline; run them off the
// io_context: plan_log_client (below) runs them on a thread of its own, so a
// start claims its plan while the producer initialises transactions.

#include "kafka/config.hpp"
#include "kafka/consumer.hpp"
#include "kafka/error.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace streamt::kafka {

struct log_record {
  std::int64_t offset = 0;
  std::string key;
  std::string value;
};

// A read of the whole log: its records, and the offset it was read to (the
// offset the next record appended lands at, unless another came first).
struct log_contents {
  std::vector<log_record> records;
  std::int64_t end = 0;
};

// Creates `topic` with one partition, the brokers' replication factor, and
// retention unbounded in time and size (the log is read whole: compaction
// or deletion would take back claims the order depends on; it grows by one
// record per claim, a few hundred bytes). An existing topic is left as it
// is. `rk` is any client handle (the admin request rides on it).
// A refusal (no Create ACL) is an error like any other: the caller decides
// whether a topic an administrator made may still be there. True: this call
// created it (so it is empty, and nothing was appended before this answer);
// false: it was there.
kafka_result<bool> create_log_topic(rd_kafka_t* rk, const std::string& topic,
                                    std::chrono::milliseconds timeout);

// Every record of partition 0 of `topic` from its start to its end as of
// the read (under read_committed, through partition_reader: no group), in
// offset order. More than `max_records` fails the read. With
// `wait_for_topic` (the caller just created it) a topic the brokers do not
// know yet is waited for until the deadline; without it, it is an error at
// once (UNKNOWN_TOPIC_OR_PART), as is a topic the ACLs hide.
kafka_result<log_contents> read_log(const std::string& bootstrap_servers, const settings& user,
                                    const std::string& topic, std::size_t max_records, bool wait_for_topic,
                                    std::chrono::milliseconds timeout);

// Appends one record to partition 0 of `topic` (acks=all) and returns its
// offset once the brokers acknowledged it. Not idempotent on purpose: an
// idempotent producer's first write waits for its producer id, which
// librdkafka asks for on a timer (500 ms), and that was most of a start's
// time to its first output. A claim written twice by a retry changes
// nothing: the second names a plan that no longer stands as the one it
// replaces, so it is no claim (engine/session/claims.hpp).
kafka_result<std::int64_t> append_log(const std::string& bootstrap_servers, const settings& user,
                                      const std::string& topic, const std::string& key,
                                      const std::string& value, std::chrono::milliseconds timeout);

// The three calls as awaitables for a start-up: each runs on this client's
// one pool thread and completes on the awaiting coroutine's executor. The
// topic is created through `admin_via`'s handle (the admin request rides on
// any client's; the consumer's is made before and kept after start-up), which
// must outlive this client; reads and writes make clients of their own with
// `user`'s settings. Destruction waits for a call under way.
class plan_log_client {
 public:
  plan_log_client(const consumer& admin_via, std::string bootstrap_servers, settings user);
  ~plan_log_client();
  plan_log_client(const plan_log_client&) = delete;
  plan_log_client& operator=(const plan_log_client&) = delete;

  boost::asio::awaitable<kafka_result<bool>> async_create(std::string topic,
                                                          std::chrono::milliseconds timeout);
  boost::asio::awaitable<kafka_result<log_contents>> async_read(std::string topic, std::size_t max_records,
                                                                bool wait_for_topic,
                                                                std::chrono::milliseconds timeout);
  boost::asio::awaitable<kafka_result<std::int64_t>> async_append(std::string topic, std::string key,
                                                                  std::string value,
                                                                  std::chrono::milliseconds timeout);

 private:
  rd_kafka_t* admin_;
  std::string bootstrap_servers_;
  settings user_;
  boost::asio::thread_pool pool_{1};
};

}  // namespace streamt::kafka
