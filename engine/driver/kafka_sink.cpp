// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/driver/kafka_sink.hpp"

#include "engine/client_failure.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <stdexcept>
#include <utility>

namespace streamt::engine::driver {

namespace {

std::uint32_t index_of(const std::vector<std::string>& written, const std::string& topic) {
  const auto it = std::find(written.begin(), written.end(), topic);
  if (it == written.end())
    throw std::logic_error("kafka_sink: topic '" + topic + "' is not among the topics the plan writes");
  return static_cast<std::uint32_t>(it - written.begin());
}

}  // namespace

kafka_sink::kafka_sink(kafka::producer& p, const std::vector<std::string>& written,
                       const std::vector<std::string>& route_topics, std::string unrouted_topic,
                       session::sink_tracker& tracker, std::string dead_letter_topic, std::string plan_digest,
                       const std::string& lineage_header)
    : producer_(&p),
      tracker_(&tracker),
      dead_letter_topic_(std::move(dead_letter_topic)),
      plan_digest_(std::move(plan_digest)) {
  for (const std::string& t : written)
    topics_.push_back({t, sink_rules{t, false, std::nullopt, std::nullopt}});
  for (const std::string& t : route_topics) route_topic_.push_back(index_of(written, t));
  if (!unrouted_topic.empty()) unrouted_ = index_of(written, unrouted_topic);
  if (!lineage_header.empty()) stamp_.emplace(lineage_header, plan_digest_);
}

void kafka_sink::rules(const std::vector<sink_rules>& by_topic) {
  any_rules_ = false;
  for (topic& t : topics_) {
    t.rules = sink_rules{t.name, false, std::nullopt, std::nullopt};
    for (const sink_rules& r : by_topic)
      if (r.topic == t.name) t.rules = r;
    any_rules_ = any_rules_ || t.rules.any();
  }
}

// The producer refused the record at once (larger than its
// message.max.bytes, a queue full): its size, for the message, counts what
// the limit counts.
void kafka_sink::refused(const kafka::outgoing_record& out, const kafka::error_report& e) {
  session::failure f = failure_of(e);
  if (f.never_accepted) f.record_bytes = kafka::record_bytes(out);
  tracker_->refused_at_once(std::move(f));
}

void kafka_sink::produce(std::uint32_t t, const record_view& in, const kafka::outgoing_record& out) {
  const topic& to = topics_[t];
  if (any_rules_ && to.rules.any()) {
    if (std::optional<std::string> rule = to.rules.refusal(out.key.has_value(), in.timestamp, now_ms_)) {
      session::failure refused;
      refused.what = session::condition::abortable;
      refused.never_accepted = true;
      refused.message = "refused before producing, for sink topic '" + to.name + "'";
      refused.broken_rule = std::move(*rule);
      tracker_->refused_at_once(std::move(refused));
      return;
    }
  }
  if (kafka::error_report e = producer_->produce(to.name, out); e.failed()) refused(out, e);
}

// A null value goes as librdkafka's null payload (kafka::outgoing_record),
// never as zero bytes: a compacted topic deletes the key only for that.
void kafka_sink::emit(const record_view& in, const operators::route_output& output) {
  const std::uint32_t t = route_topic_[output.route];
  kafka::outgoing_record out;
  out.key = output.key ? output.key : in.key;
  out.value = output.value;
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
  out.opaque = tracker_->producing(in, output.value ? output.value->size() : 0, t);
  produce(t, in, out);
}

void kafka_sink::unrouted(const record_view& in) {
  if (!unrouted_) throw std::logic_error("kafka_sink::unrouted: the plan has no unrouted topic");
  const std::string partition = std::to_string(in.partition);
  const std::string offset = std::to_string(in.offset);
  std::array<kafka::header_view, 6> reason{{
      {"streamt.reason", "unrouted"},
      {"streamt.source.topic", in.topic},
      {"streamt.source.partition", partition},
      {"streamt.source.offset", offset},
      {"streamt.plan.digest", plan_digest_},
      {},
  }};
  kafka::outgoing_record out = as_consumed(in, reason);
  out.opaque = tracker_->producing(in, in.value ? in.value->size() : 0, *unrouted_);
  produce(*unrouted_, in, out);
}

// Key, value, headers and timestamp as consumed, then `reason` (all but its
// last slot), then the lineage header in that last slot: every record a run
// writes carries it, so a reader tracing lineage by it needs no case of its
// own for the dead-letter or unrouted topic (it repeats what the streamt.*
// headers say).
kafka::outgoing_record kafka_sink::as_consumed(const record_view& in, std::span<kafka::header_view> reason) {
  std::size_t headers = reason.size() - 1;
  if (stamp_) reason[headers++] = stamp_->header(in.partition, in.offset);
  kafka::outgoing_record out;
  out.key = in.key;
  out.value = in.value;
  out.headers = in.headers;
  out.headers_of = in.consumed;
  out.extra_headers = reason.first(headers);
  out.timestamp_ms = in.timestamp.value_or(0);
  return out;
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
  kafka::outgoing_record out = as_consumed(in, reason);
  out.opaque = tracker_->producing_dead_letter(in, in.value ? in.value->size() : 0);
  if (kafka::error_report e = producer_->produce(dead_letter_topic_, out); e.failed()) refused(out, e);
}

}  // namespace streamt::engine::driver
