// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/driver/kafka_sink.hpp"

#include "engine/client_failure.hpp"

#include <array>
#include <span>
#include <utility>

namespace streamt::engine::driver {

kafka_sink::kafka_sink(kafka::producer& p, std::string topic, session::sink_tracker& tracker,
                       std::string dead_letter_topic, std::string plan_digest,
                       const std::string& lineage_header)
    : producer_(&p),
      topic_(std::move(topic)),
      tracker_(&tracker),
      dead_letter_topic_(std::move(dead_letter_topic)),
      plan_digest_(std::move(plan_digest)) {
  if (!lineage_header.empty()) stamp_.emplace(lineage_header, plan_digest_);
}

// The producer refused the record at once (larger than its
// message.max.bytes, a queue full): its size, for the message, counts what
// the limit counts.
void kafka_sink::refused(const kafka::outgoing_record& out, const kafka::error_report& e) {
  session::failure f = failure_of(e);
  if (f.never_accepted) f.record_bytes = kafka::record_bytes(out);
  tracker_->refused_at_once(std::move(f));
}

// A null value goes as librdkafka's null payload (kafka::outgoing_record),
// never as zero bytes: a compacted topic deletes the key only for that.
void kafka_sink::emit(const record_view& in, std::optional<std::string_view> value) {
  kafka::outgoing_record out;
  out.key = in.key;
  out.value = value;
  out.headers = in.headers;
  out.headers_of = in.consumed;
  // After the input's own headers, which stay as they were (contract §4).
  // A tombstone is stamped too: which plan deleted a key is lineage as
  // much as which plan wrote it.
  kafka::header_view stamp;
  if (stamp_) {
    stamp = stamp_->header(in.partition, in.offset);
    out.extra_headers = std::span(&stamp, 1);
  }
  out.timestamp_ms = in.timestamp.value_or(0);
  out.opaque = tracker_->producing(in, value ? value->size() : 0);
  if (rules_.any()) {
    if (std::optional<std::string> rule = rules_.refusal(in.key.has_value(), in.timestamp, now_ms_)) {
      session::failure refused;
      refused.what = session::condition::abortable;
      refused.never_accepted = true;
      refused.message = "refused before producing, for sink topic '" + topic_ + "'";
      refused.broken_rule = std::move(*rule);
      tracker_->refused_at_once(std::move(refused));
      return;
    }
  }
  if (kafka::error_report e = producer_->produce(topic_, out); e.failed()) refused(out, e);
}

namespace {

// The reason as a header, bounded whatever a stage wrote: a dead-letter
// record is the size of the record it carries, not of the words about it.
std::string bounded_reason(const std::string& message) {
  constexpr std::size_t limit = 1024;
  if (message.size() <= limit) return message;
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(message[end]) & 0xC0) == 0x80) --end;  // a UTF-8 boundary
  return message.substr(0, end) + "... (" + std::to_string(message.size()) + " bytes)";
}

}  // namespace

void kafka_sink::dead_letter(const record_view& in, const invalid_record& why) {
  const std::string partition = std::to_string(in.partition);
  const std::string offset = std::to_string(in.offset);
  const std::string message = bounded_reason(why.error.message);
  std::array<kafka::header_view, 7> reason{{
      {"streamt.source.topic", in.topic},
      {"streamt.source.partition", partition},
      {"streamt.source.offset", offset},
      {"streamt.error.code", why.error.code},
      {"streamt.error.message", message},
      {"streamt.plan.digest", plan_digest_},
      {},
  }};
  // The lineage header too, last: every record a run writes carries it, so
  // a reader tracing lineage by it needs no case of its own for the
  // dead-letter topic (it repeats what the streamt.* headers say).
  std::size_t headers = reason.size() - 1;
  if (stamp_) reason[headers++] = stamp_->header(in.partition, in.offset);
  kafka::outgoing_record out;
  out.key = in.key;
  out.value = in.value;
  out.headers = in.headers;
  out.headers_of = in.consumed;
  out.extra_headers = std::span(reason.data(), headers);
  out.timestamp_ms = in.timestamp.value_or(0);
  out.opaque = tracker_->producing_dead_letter(in, in.value ? in.value->size() : 0);
  if (kafka::error_report e = producer_->produce(dead_letter_topic_, out); e.failed()) refused(out, e);
}

}  // namespace streamt::engine::driver
