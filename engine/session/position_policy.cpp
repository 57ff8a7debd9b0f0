// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/position_policy.hpp"

#include "engine/session/refusal.hpp"

namespace streamt::engine::session {

std::variant<start_at, start_refused> start_position(std::string_view name, std::optional<offset> committed,
                                                     const std::optional<watermarks>& marks,
                                                     reset_policy reset) {
  if (!committed)
    return start_at{std::nullopt, std::string(name) +
                                      ": no committed offset (a new application id): starting "
                                      "from the earliest offset"};
  if (!marks)  // a bug in the driver: the marks are asked whenever there is a committed offset
    return start_refused{std::string(name) + ": the log's offsets are not known"};
  const offset low = marks->low;
  const offset high = marks->high;
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

consumer_error_verdict classify(const consumer_error& e) noexcept {
  const failure& f = e.error;
  if (f.partition_eof) return consumer_error_verdict::ignore;
  // Static membership: a newer member with our group.instance.id took over
  // (a copy of this state directory runs); its producer fences ours too.
  if (f.instance_fenced) return consumer_error_verdict::fenced;
  if (f.offset_out_of_range) return consumer_error_verdict::out_of_range;
  if (f.unknown_topic_or_partition || f.refused == refused_resource::topic ||
      f.refused == refused_resource::group || f.fatal())
    return consumer_error_verdict::unavailable;
  return consumer_error_verdict::keep_going;
}

consumer_error_effect effect_of(const consumer_error& e, std::string_view source_topic,
                                const std::vector<std::string>& sink_topics,
                                std::string_view application_id) {
  const std::string where = e.partition.empty() ? std::string("a partition") : e.partition;
  switch (classify(e)) {
    case consumer_error_verdict::ignore:
      return {};
    case consumer_error_verdict::keep_going:
      return {"consumer: " + e.error.message, std::nullopt};
    case consumer_error_verdict::out_of_range:
      return {{},
              ending{run_status::rejected_config,
                     "the position of " + where +
                         " is out of range (records were deleted by retention?): " + e.error.message +
                         ". Restart with --reset-offsets earliest|latest to continue; records are skipped or "
                         "replayed",
                     {}}};
    case consumer_error_verdict::unavailable:
      if (std::optional<std::string> line = refusal_line(e.error.refused, "consumer: " + e.error.message,
                                                         source_topic, sink_topics, application_id))
        return {{}, ending{run_status::unavailable, std::move(*line), {}}};
      return {{}, ending{run_status::unavailable, "consumer: " + e.error.message, {}}};
    case consumer_error_verdict::fenced:
      return {
          {},
          ending{run_status::fenced,
                 "consumer: " + e.error.message +
                     "; another instance runs with this group.instance.id (a copy of this state directory?): "
                     "give each instance a state directory of its own",
                 {}}};
  }
  return {};
}

std::variant<partition_start, ending> partition_start_of(
    std::string_view name, std::optional<offset> committed, const std::optional<lineage>& last,
    const our_plan& ours, const std::optional<watermarks>& marks, reset_policy reset) {
  // Whether this plan may take the partition at all, before anything of it
  // is consumed.
  auto inherited = succession(name, committed, last, ours);
  if (auto* refused = std::get_if<succession_refused>(&inherited))
    return ending{run_status::rejected_config, std::move(refused->message), {}};
  auto decided = start_position(name, committed, marks, reset);
  if (auto* refused = std::get_if<start_refused>(&decided))
    return ending{run_status::rejected_config, std::move(refused->message), {}};
  return partition_start{std::move(std::get<start_at>(decided)),
                         std::move(std::get<take_partition>(inherited).note)};
}

}  // namespace streamt::engine::session
