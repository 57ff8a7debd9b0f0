// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Whether this plan may process a partition it was given, from the lineage
// of the partition's last commit (engine/lineage.hpp): the plan-succession
// policy, a pure function of what the brokers answered
// (test/unit/session/succession_tests.cpp). It holds for every instance,
// whatever its state directory: the lineage is in Kafka.
//
//  - No lineage (nothing committed, or metadata not ours): take it.
//  - Committed by this plan: take it.
//  - By a plan this one supersedes (directly or along the chain it
//    carries), or by the plan this state directory last ran (a restart with
//    a changed predicate, contract §5): a hand-over, logged with both
//    digests and the offset. A changed output shape needs
//    --allow-output-change, whatever the state directory says.
//  - By a plan that supersedes this one: refused. An older plan must never
//    overwrite a newer one's progress.
//  - By an unrelated plan on the same application id: refused, with both
//    digests and what to do.
// A refusal ends the run with exit 78 before anything of the partition is
// consumed.

#include "engine/lineage.hpp"
#include "engine/session/positions.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace streamt::engine::session {

struct our_plan {
  std::string digest;
  std::string output_shape;
  std::vector<std::string> supersedes;  // the plan's own list, nearest first
  std::string ran_here;                 // the plan the state directory last ran, if another
  bool allow_output_change = false;
};

struct take_partition {
  std::string note;  // a hand-over worth a log line; empty when there is nothing to say
};

struct succession_refused {
  std::string message;  // what happened and what to do (exit 78)
};

// `name` is "topic/partition"; `committed` the partition's committed offset
// and `last` the lineage its metadata records. `done` is how `last` came to
// be there, for the messages ("committed"; the plan log, claims.hpp, says
// "claimed in its plan log T").
std::variant<take_partition, succession_refused> succession(std::string_view name,
                                                            std::optional<offset> committed,
                                                            const std::optional<lineage>& last,
                                                            const our_plan& ours,
                                                            std::string_view done = "committed");

}  // namespace streamt::engine::session
