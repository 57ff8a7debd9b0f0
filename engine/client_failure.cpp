// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/client_failure.hpp"

#include <string>
#include <utility>

namespace streamt::engine {

namespace {

session::condition condition_of(kafka::condition c) noexcept {
  switch (c) {
    case kafka::condition::retriable:
      return session::condition::retriable;
    case kafka::condition::abortable:
      return session::condition::abortable;
    case kafka::condition::fatal:
      return session::condition::fatal;
    case kafka::condition::fenced:
      return session::condition::fenced;
    case kafka::condition::configuration:
      return session::condition::configuration;
    case kafka::condition::unclassified:
      return session::condition::unclassified;
  }
  return session::condition::unclassified;
}

session::refused_resource refused_of(kafka::refused_resource r) noexcept {
  switch (r) {
    case kafka::refused_resource::none:
      return session::refused_resource::none;
    case kafka::refused_resource::topic:
      return session::refused_resource::topic;
    case kafka::refused_resource::group:
      return session::refused_resource::group;
    case kafka::refused_resource::transactional_id:
      return session::refused_resource::transactional_id;
    case kafka::refused_resource::cluster:
      return session::refused_resource::cluster;
  }
  return session::refused_resource::none;
}

}  // namespace

session::failure failure_of(const kafka::error_report& e) {
  session::failure f;
  if (!e.failed()) return f;
  const auto code = e.info.code;
  f.what = condition_of(e.what());
  f.message = e.message;
  f.timed_out = kafka::is_timed_out(code);
  f.transient = kafka::is_transient_code(code);
  f.unknown_topic_or_partition = kafka::is_unknown_topic_or_partition(code);
  f.unknown_topic = kafka::is_unknown_topic(code);
  f.never_accepted = kafka::is_never_accepted(code);
  f.too_large = kafka::is_too_large(code);
  f.partition_eof = kafka::is_partition_eof(code);
  f.offset_out_of_range = kafka::is_offset_out_of_range(code);
  f.instance_fenced = kafka::is_instance_fenced(code);
  f.transaction_timeout_refused = kafka::is_transaction_timeout_refused(code);
  f.refused = refused_of(kafka::refused_for(code));
  return f;
}

session::consumer_error consumer_error_of(const kafka::consumer_error& e) {
  session::consumer_error c{failure_of(e.error), {}};
  if (e.partition) c.partition = e.partition->topic + "/" + std::to_string(e.partition->partition);
  return c;
}

session::watermarks watermarks_of(const kafka::watermarks& w) noexcept {
  return {session::offset{w.low}, session::offset{w.high}};
}

std::vector<session::log_record> log_of(std::vector<kafka::log_record> log) {
  std::vector<session::log_record> out;
  out.reserve(log.size());
  for (kafka::log_record& r : log) out.push_back({r.offset, std::move(r.key), std::move(r.value)});
  return out;
}

}  // namespace streamt::engine
