// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// What `streamt status` says of each instance, from the group's committed
// offsets alone: every commit's metadata names the instance that made it and
// when (engine/lineage.hpp). An instance that holds partitions with records
// waiting and has not committed for a while is one the group has not heard
// from: crashed, hung, or cut off. Pure: the caller reads Kafka and the clock.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace streamt::engine {

// One partition as the group's committed offset shows it.
struct committed_partition {
  std::string where;                         // "topic/partition"
  std::string instance;                      // from the commit's lineage; empty if none
  std::optional<std::int64_t> committed_at;  // milliseconds since the epoch, if recorded
  std::int64_t lag = 0;
};

struct instance_report {
  std::string instance;
  std::vector<std::string> partitions;  // its partitions' "topic/partition", in the order given
  std::int64_t lag = 0;
  // Since its newest commit, over its partitions; nullopt when no commit of
  // it recorded a time (written by an engine older than the field).
  std::optional<std::chrono::milliseconds> since_last_commit;
  // Records wait on its partitions and its newest commit is older than the
  // threshold: the group has not heard from it.
  bool silent = false;
};

// The instances that last committed `partitions`, by instance id (partitions
// whose commit names none are left out), judged against `now` (milliseconds
// since the epoch) and `silent_after`.
std::vector<instance_report> report_instances(const std::vector<committed_partition>& partitions,
                                              std::int64_t now, std::chrono::milliseconds silent_after);

// The longest any partition with records waiting has gone without a commit,
// as of `now`; nullopt when none has both. Per partition, not per instance:
// a partition moving from a live instance to a new one keeps the live one's
// last commit until the new owner commits, while the live one's other
// partitions commit on.
std::optional<std::chrono::milliseconds> longest_wait(const std::vector<committed_partition>& partitions,
                                                      std::int64_t now);

}  // namespace streamt::engine
