// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/instance_report.hpp"

#include <algorithm>
#include <map>

namespace streamt::engine {

namespace {

// From a commit at `at` to `now`; a clock behind the committer's reads as
// "just now", not negative.
std::chrono::milliseconds since(std::int64_t now, std::int64_t at) {
  return std::chrono::milliseconds(std::max<std::int64_t>(0, now - at));
}

}  // namespace

std::vector<instance_report> report_instances(const std::vector<committed_partition>& partitions,
                                              std::int64_t now, std::chrono::milliseconds silent_after) {
  // Each report with the newest commit time among its partitions.
  std::map<std::string, std::pair<instance_report, std::optional<std::int64_t>>> by_id;
  for (const committed_partition& p : partitions) {
    if (p.instance.empty()) continue;
    auto& [r, newest] = by_id[p.instance];
    r.instance = p.instance;
    r.partitions.push_back(p.where);
    r.lag += p.lag;
    if (p.committed_at && (!newest || *p.committed_at > *newest)) newest = p.committed_at;
  }
  std::vector<instance_report> out;
  out.reserve(by_id.size());
  for (auto& [id, entry] : by_id) {
    auto& [r, newest] = entry;
    if (newest) r.since_last_commit = since(now, *newest);
    r.silent = r.lag > 0 && r.since_last_commit && *r.since_last_commit > silent_after;
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<std::chrono::milliseconds> longest_wait(const std::vector<committed_partition>& partitions,
                                                      std::int64_t now) {
  std::optional<std::chrono::milliseconds> longest;
  for (const committed_partition& p : partitions)
    if (p.lag > 0 && p.committed_at && (!longest || since(now, *p.committed_at) > *longest))
      longest = since(now, *p.committed_at);
  return longest;
}

}  // namespace streamt::engine
