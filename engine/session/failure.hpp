// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// A failed call as the session sees it: what to do about it, and the few
// meanings its decisions turn on, never a client's error code. The driver
// translates each error of kafka/ into one of these where it comes in
// (engine/client_failure.hpp), so the session and its tests know nothing of
// librdkafka and every code is given its meaning in one place.

#include <cstddef>
#include <string>
#include <utility>

namespace streamt::engine::session {

// What the caller must do about a failure (kafka/'s classification).
enum class condition {
  none,           // success
  retriable,      // call again; the transaction is still healthy
  abortable,      // abort the transaction, rewind, carry on
  fatal,          // the client is unusable: stop
  fenced,         // another instance took over our identity: stop, do not retry
  configuration,  // a setting is wrong: fix it and restart
  unclassified,   // a failure without flags (a call in the wrong state): treat as fatal
};

// Which grant the brokers' ACLs refused.
enum class refused_resource { none, topic, group, transactional_id, cluster };

struct failure {
  condition what = condition::none;
  std::string message;  // the client's own words, with its code's name
  // Meanings; several can hold at once (a client timeout is transient too).
  bool timed_out = false;                    // the client's own bound ran out: an answer may still come
  bool transient = false;                    // "not now": a leader, a coordinator or a broker moving
  bool unknown_topic_or_partition = false;   // a broker says the topic or partition does not exist
  bool unknown_topic = false;                // that, or the client's metadata knows no such topic
  bool never_accepted = false;               // the sink will never take this record, however often sent
  bool too_large = false;                    // that, for its size: the largest record of a refused batch
  std::size_t record_bytes = 0;              // a refused record's key, value and header bytes, if known
  bool partition_eof = false;                // the consumer reached a partition's end: news, not a failure
  bool offset_out_of_range = false;          // the position is outside the log, and no reset applies
  bool instance_fenced = false;              // another member took over our group.instance.id
  bool transaction_timeout_refused = false;  // the brokers refuse the client's transaction.timeout.ms
  // A refusal the engine made itself before producing (engine/sink_rules.hpp):
  // the sink's rule the record breaks and what to do, as its diagnostic says it.
  std::string broken_rule{};
  refused_resource refused = refused_resource::none;

  bool failed() const noexcept { return what != condition::none; }
  // Stops the client for good: a fatal or fenced failure.
  bool fatal() const noexcept { return what == condition::fatal || what == condition::fenced; }

  // The session's own verdict that the open transaction must be aborted (the
  // group took the partitions, an offset the brokers contradict), keeping
  // the meanings of `cause` if it had any.
  static failure abortable(std::string message, failure cause);
  static failure abortable(std::string message);
};

inline failure failure::abortable(std::string message, failure cause) {
  cause.what = condition::abortable;
  cause.message = std::move(message);
  return cause;
}
inline failure failure::abortable(std::string message) { return abortable(std::move(message), failure{}); }

}  // namespace streamt::engine::session
