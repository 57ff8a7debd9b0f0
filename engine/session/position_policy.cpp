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
  if (code == RD_KAFKA_RESP_ERR__PARTITION_EOF) return consumer_error_verdict::ignore;
  // Static membership: a newer member with our group.instance.id took over
  // (a copy of this state directory runs); its producer fences ours too.
  if (code == RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID) return consumer_error_verdict::fenced;
  // KIP-848 refuses the newcomer instead, while the member holding the id
  // lives: UNRELEASED_INSTANCE_ID (111; librdkafka 2.0.2's header predates it).
  if (code == static_cast<rd_kafka_resp_err_t>(111)) return consumer_error_verdict::fenced;
  if (code == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET || code == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE)
    return consumer_error_verdict::out_of_range;
  if (code == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
      code == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
      code == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED || e.error.info.fatal)
    return consumer_error_verdict::unavailable;
  return consumer_error_verdict::keep_going;
}

}  // namespace streamt::engine::session
