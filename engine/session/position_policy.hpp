// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Where an assigned partition starts, and what a consumer error means: the
// rebalance, retention and reset policy (contract §5), as pure functions of
// the brokers' answers (test/unit/session/position_policy_tests.cpp).
//
//  - No committed offset: a new application id, start at the earliest
//    offset.
//  - A committed offset inside the log: resume there.
//  - A committed offset outside it (retention deleted records before they
//    were processed, or the topic was recreated): refused with exit 78 and
//    what to do, unless --reset-offsets says earliest or latest; never a
//    silent skip or replay.

#include "engine/session/action.hpp"
#include "engine/session/failure.hpp"
#include "engine/session/positions.hpp"
#include "engine/session/succession.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace streamt::engine {

enum class reset_policy { none, earliest, latest };

}  // namespace streamt::engine

namespace streamt::engine::session {

struct start_at {
  std::optional<offset> at;  // nullopt: the earliest offset retained
  std::string note;          // for the log: why there
  bool reset = false;        // moved by --reset-offsets (worth a warning)
};

struct start_refused {
  std::string message;  // what happened and what to do (exit 78)
};

// `name` is "topic/partition", for the messages. `marks` is needed only when
// there is a committed offset (the driver asks for them only then).
std::variant<start_at, start_refused> start_position(std::string_view name, std::optional<offset> committed,
                                                     const std::optional<watermarks>& marks,
                                                     reset_policy reset);

enum class consumer_error_verdict {
  ignore,        // end of partition: nothing happened
  keep_going,    // transport and the like: librdkafka reconnects by itself (logged)
  out_of_range,  // the position was deleted: exit 78 and what to do
  unavailable,   // topic gone, not authorised, or a fatal consumer: exit 69
  fenced,        // another consumer runs with our group.instance.id: exit 75
};

// An error the consumer reported while polling.
struct consumer_error {
  failure error;
  std::string partition;  // "topic/partition" for an error of one partition, else empty
};

consumer_error_verdict classify(const consumer_error& e) noexcept;

// What a consumer error does to the run: nothing, a line (`warning`), or the
// end of the run (`end`, with the status and what to do). The names are for
// the messages: the source and sink topics and the application id an ACL
// refusal names.
struct consumer_error_effect {
  std::string warning;
  std::optional<ending> end;
};
consumer_error_effect effect_of(const consumer_error& e, std::string_view source_topic,
                                const std::vector<std::string>& sink_topics, std::string_view application_id);

// Whether this plan takes a partition it was assigned, and where it starts,
// from what the brokers said of it: the lineage of its last commit
// (succession.hpp), then its committed offset against the log's watermarks
// (start_position). A refusal is the run's end (exit 78).
struct partition_start {
  start_at at;
  std::string handover;  // succession's note, when the partition changes plan
};
std::variant<partition_start, ending> partition_start_of(
    std::string_view name, std::optional<offset> committed, const std::optional<lineage>& last,
    const our_plan& ours, const std::optional<watermarks>& marks, reset_policy reset);

}  // namespace streamt::engine::session
