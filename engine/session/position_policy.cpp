// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/position_policy.hpp"

namespace streamt::engine::session {

std::variant<start_at, start_refused> start_position(std::string_view name, std::optional<offset> committed,
                                                     const std::optional<kafka::watermarks>& marks,
                                                     reset_policy reset) {
  if (!committed)
    return start_at{std::nullopt, std::string(name) +
                                      ": no committed offset (a new application id): starting "
                                      "from the earliest offset"};
  if (!marks)  // a bug in the driver: the marks are asked whenever there is a committed offset
    return start_refused{std::string(name) + ": the log's offsets are not known"};
  const offset low{marks->low};
  const offset high{marks->high};
  if (*committed >= low && *committed <= high)
    return start_at{committed, std::string(name) + ": resuming at committed offset " + to_string(*committed)};
  const std::string what = std::string(name) + ": committed offset " + to_string(*committed) +
                           " is out of range (log start " + to_string(low) + ", end " + to_string(high) + ")";
  switch (reset) {
    case reset_policy::none:
      return start_refused{what +
                           "; records were deleted before they were processed. Restart with --reset-offsets "
                           "earliest (process what is left) or latest (skip to the end)"};
    case reset_policy::earliest:
      return start_at{low, what + "; --reset-offsets: starting at " + to_string(low), true};
    case reset_policy::latest:
      return start_at{high, what + "; --reset-offsets: starting at " + to_string(high), true};
  }
  return start_refused{what};
}

consumer_error_verdict classify(const kafka::consumer_error& e) noexcept {
  const rd_kafka_resp_err_t code = e.error.info.code;
  if (kafka::is_partition_eof(code)) return consumer_error_verdict::ignore;
  // Static membership: a newer member with our group.instance.id took over
  // (a copy of this state directory runs); its producer fences ours too.
  if (kafka::is_instance_fenced(code)) return consumer_error_verdict::fenced;
  if (kafka::is_offset_out_of_range(code)) return consumer_error_verdict::out_of_range;
  const kafka::refused_resource refused = kafka::refused_for(code);
  if (kafka::is_unknown_topic_or_partition(code) || refused == kafka::refused_resource::topic ||
      refused == kafka::refused_resource::group || e.error.info.fatal)
    return consumer_error_verdict::unavailable;
  return consumer_error_verdict::keep_going;
}

}  // namespace streamt::engine::session
