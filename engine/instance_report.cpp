// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/instance_report.hpp"

#include <algorithm>
#include <map>

namespace streamt::engine {

std::vector<instance_report> report_instances(const std::vector<committed_partition>& partitions,
                                              std::int64_t now, std::chrono::milliseconds silent_after) {
  std::map<std::string, instance_report> by_id;
  std::map<std::string, std::optional<std::int64_t>> newest;
  for (const committed_partition& p : partitions) {
    if (p.instance.empty()) continue;
    instance_report& r = by_id[p.instance];
    r.instance = p.instance;
    r.partitions.push_back(p.where);
    r.lag += p.lag;
    std::optional<std::int64_t>& n = newest[p.instance];
    if (p.committed_at && (!n || *p.committed_at > *n)) n = p.committed_at;
  }
  std::vector<instance_report> out;
  out.reserve(by_id.size());
  for (auto& [id, r] : by_id) {
    if (const std::optional<std::int64_t>& n = newest[id])
      // A clock behind the committer's reads as "just now", not negative.
      r.since_last_commit = std::chrono::milliseconds(std::max<std::int64_t>(0, now - *n));
    r.silent = r.lag > 0 && r.since_last_commit && *r.since_last_commit > silent_after;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace streamt::engine
