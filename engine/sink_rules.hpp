// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// What the sink topic refuses of a record, known before the record is
// produced: read from the topic's configuration at start. The broker
// refuses such a record with its whole batch and says nothing of which
// record it meant, so a refusal found afterwards can blame a valid
// neighbour; checked first, the refusal names its own record (an invalid
// record at its own offset, or one dead-lettered with this reason).
// Pure: the clock is the caller's.

#include "plan/plan.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::engine {

struct sink_rules {
  std::string topic;
  // cleanup.policy holds "compact": every record needs a key.
  bool compacted = false;
  // That rule as describe() says it, and the start-up line at info.
  static constexpr std::string_view compacted_rule =
      "a record without a key is refused (cleanup.policy compact)";
  // With message.timestamp.type=CreateTime, how far a record's timestamp
  // may lie before (after) the broker's clock: message.timestamp.before.max.ms
  // and .after.max.ms (brokers before 3.6: message.timestamp.difference.max.ms,
  // both ways). nullopt: no bound.
  std::optional<std::int64_t> before_max_ms;
  std::optional<std::int64_t> after_max_ms;

  // From the topic's configuration as the brokers describe it; a setting
  // that is absent or unreadable makes no rule.
  static sink_rules of(std::string topic, const std::map<std::string, std::string>& settings);
  // The configuration keys `of` reads.
  static const std::vector<std::string>& keys();

  bool any() const noexcept { return compacted || before_max_ms || after_max_ms; }

  // Why the topic refuses a record with this key and timestamp when
  // produced at `now_ms`, said as an invalid record's diagnostic says it
  // (the rule, the setting, and what to do); nullopt: no rule against it.
  // A record without a timestamp (or one at or before the epoch) is given
  // the producer's clock, which no bound refuses.
  std::optional<std::string> refusal(bool has_key, std::optional<std::int64_t> timestamp_ms,
                                     std::int64_t now_ms) const;

  // The rules in one line, for the start-up log ("" when there are none).
  std::string describe() const;
};

// The topics a plan writes besides its dead-letter topic, each once: its
// sink topics (plan::sink_topics), then its unrouted topic if it has one.
// The session checks, refuses and names these (session::config::sink_topics),
// and the sink indexes its outputs' topics by this order.
std::vector<std::string> topics_written(const plan::plan& p);

// A duration in the largest whole unit that says it ("10 d", "1 h",
// "1500 ms"), for messages about bounds.
std::string rough_duration(std::int64_t ms);

}  // namespace streamt::engine
