// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The producer side of process_batch(): each output record goes to the sink
// topic with the input's key, timestamp and headers (a null value, the
// tombstone of that key, written the same way), and carries the opaque
// the session's sink tracker gives it. A record librdkafka refuses at once
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
#include <string>
#include <string_view>

namespace streamt::engine::driver {

class kafka_sink {
 public:
  // `lineage_header`: the name of the header that says which plan wrote a
  // record from which input (--lineage-header), or empty for none.
  kafka_sink(kafka::producer& p, std::string topic, session::sink_tracker& tracker,
             std::string dead_letter_topic, std::string plan_digest, const std::string& lineage_header);

  // process_batch's sink: one output of `in`, or with nullopt a null value.
  void emit(const record_view& in, std::optional<std::string_view> value);

  // The invalid record `in` itself to the dead-letter topic, in the open
  // transaction: key, value, headers and timestamp as consumed, then the
  // streamt.* headers a person (or a tool replaying the topic) needs to find
  // the record and know why it is there.
  void dead_letter(const record_view& in, const invalid_record& why);

  // What the sink topic refuses (a record without a key when compacted, a
  // timestamp outside its bounds): such a record is refused before it is
  // produced, as the broker would refuse it with its whole batch and leave
  // no way to tell which record it meant.
  void rules(sink_rules r) { rules_ = std::move(r); }
  // A batch is about to be emitted: the wall clock the rules compare
  // timestamps with, read once a batch, not once a record (the bounds are
  // hours; a batch takes milliseconds).
  void batch_begins() noexcept {
    if (rules_.any())
      now_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  }

 private:
  void refused(const kafka::outgoing_record& out, const kafka::error_report& e);

  kafka::producer* producer_;
  std::string topic_;
  session::sink_tracker* tracker_;
  std::string dead_letter_topic_;
  std::string plan_digest_;
  std::optional<lineage_stamp> stamp_;  // with --lineage-header
  sink_rules rules_;
  std::int64_t now_ms_ = 0;
};

}  // namespace streamt::engine::driver
