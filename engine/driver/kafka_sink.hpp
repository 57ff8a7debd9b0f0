// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The producer side of process_batch(): each output record goes to its
// route's sink topic with its route's key (PARTITION BY) or the input's, and
// the input's timestamp and headers (a null value, the tombstone of that
// key, written the same way), and carries the opaque the session's sink
// tracker gives it. No partition is named: the producer's partitioner
// (murmur2_random, kafka/producer.cpp) places every record by the key it is
// written with, so an output with a new key lands where a Java producer
// would put that key, not in the input's partition. A routed plan's record
// no route took goes, when the plan says so, to its unrouted topic
// unchanged, with headers saying why (unrouted()). A record librdkafka refuses at once
// (queue full, too large) is noted there too: the session fails the
// transaction after the batch. The invalid record itself goes to the
// dead-letter topic through dead_letter(), when the plan says so.

#include "engine/lineage.hpp"
#include "engine/process_batch.hpp"
#include "engine/record.hpp"
#include "engine/session/sink_tracker.hpp"
#include "engine/sink_rules.hpp"
#include "kafka/producer.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::engine::driver {

class kafka_sink {
 public:
  // `lineage_header`: the name of the header that says which plan wrote a
  // record from which input (--lineage-header), or empty for none.
  // `written`: the topics the plan writes besides the dead-letter topic
  // (session::config::sink_topics: its sink topics, then its unrouted
  // topic if it has one); `route_topics`: each route's sink topic
  // (plan::routes_of order); `unrouted_topic`: empty when the plan drops
  // what no route takes.
  kafka_sink(kafka::producer& p, const std::vector<std::string>& written,
             const std::vector<std::string>& route_topics, std::string unrouted_topic,
             session::sink_tracker& tracker, std::string dead_letter_topic, std::string plan_digest,
             const std::string& lineage_header);

  // process_batch's sink: one output of `in`.
  void emit(const record_view& in, const operators::route_output& output);
  // A record no route took, to the unrouted topic, in the open
  // transaction: key, value, headers and timestamp as consumed, then
  // streamt.reason=unrouted, the plan's digest and where the record was
  // (the dead-letter write's names), and the lineage header.
  void unrouted(const record_view& in);

  // The invalid record `in` itself to the dead-letter topic, in the open
  // transaction: key, value, headers and timestamp as consumed, then the
  // streamt.* headers a person (or a tool replaying the topic) needs to find
  // the record and know why it is there.
  void dead_letter(const record_view& in, const invalid_record& why);

  // What the sink topic refuses (a record without a key when compacted, a
  // timestamp outside its bounds): such a record is refused before it is
  // produced, as the broker would refuse it with its whole batch and leave
  // no way to tell which record it meant.
  // The rules of each topic written, by topic; a topic without any has none.
  void rules(const std::vector<sink_rules>& by_topic);
  // A batch is about to be emitted: the wall clock the rules compare
  // timestamps with, read once a batch, not once a record (the bounds are
  // hours; a batch takes milliseconds).
  void batch_begins() noexcept {
    if (any_rules_)
      now_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  }

 private:
  void refused(const kafka::outgoing_record& out, const kafka::error_report& e);
  // `in` as consumed, with `reason`'s headers and the lineage header after
  // its own: what the dead-letter and unrouted topics hold. `reason`'s last
  // slot is left free for the lineage header.
  kafka::outgoing_record as_consumed(const record_view& in, std::span<kafka::header_view> reason);
  // Produces `out` to topic `t` (an index into topics_) unless its rules
  // refuse it first.
  void produce(std::uint32_t t, const record_view& in, const kafka::outgoing_record& out);

  kafka::producer* producer_;
  // Each topic written (session::config::sink_topics) with its rules.
  struct topic {
    std::string name;
    sink_rules rules;
  };
  std::vector<topic> topics_;
  std::vector<std::uint32_t> route_topic_;  // each route's index into topics_
  std::optional<std::uint32_t> unrouted_;   // the unrouted topic's index into topics_
  session::sink_tracker* tracker_;
  std::string dead_letter_topic_;
  std::string plan_digest_;
  std::optional<lineage_stamp> stamp_;  // with --lineage-header
  bool any_rules_ = false;
  std::int64_t now_ms_ = 0;
};

}  // namespace streamt::engine::driver
