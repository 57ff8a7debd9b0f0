// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/offset_ledger.hpp"

#include <algorithm>
#include <utility>

namespace streamt::engine::session {

void offset_ledger::give_up(partition_id p) {
  owned_.erase(p);
  pending_.erase(p);
  positions_.erase(p);
}

std::span<const record_view> offset_ledger::current(std::span<const record_view> batch,
                                                    std::vector<record_view>& kept, dropped& d) const {
  // Why a record is not this process's to process: the counter it adds
  // to, or none. A set and a map look-up per record: a batch from a
  // backlog holds few partitions, and this is cheap next to decoding.
  const auto reason = [&](const record_view& v) -> std::size_t dropped::* {
    const partition_id p{v.partition};
    if (!owns(p)) return &dropped::not_owned;
    if (const auto at = positions_.find(p); at != positions_.end() && offset{v.offset} < at->second)
      return &dropped::before_position;
    return nullptr;
  };
  std::size_t i = 0;
  while (i < batch.size() && !reason(batch[i])) ++i;
  if (i == batch.size()) return batch;
  kept.assign(batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(i));
  for (; i < batch.size(); ++i) {
    const auto why = reason(batch[i]);
    if (!why) {
      kept.push_back(batch[i]);
      continue;
    }
    ++(d.*why);
    if (d.first.empty())
      d.first = std::string(batch[i].topic) + "/" + to_string(partition_id{batch[i].partition}) + "@" +
                std::to_string(batch[i].offset);
  }
  return kept;
}

std::optional<std::string> offset_ledger::went_back(std::span<const record_view> batch) const {
  // One map look-up per partition and batch, not per record: a batch holds
  // few partitions, so a small vector beats the map here.
  struct expected {
    partition_id partition;
    std::optional<offset> next;
  };
  std::vector<expected> next;
  for (const record_view& v : batch) {
    const partition_id p{v.partition};
    auto it = std::find_if(next.begin(), next.end(), [&](const expected& e) { return e.partition == p; });
    if (it == next.end()) {
      const auto known = pending_.find(p);
      next.push_back({p, known == pending_.end() ? std::nullopt : std::optional<offset>(known->second)});
      it = std::prev(next.end());
    }
    const offset o{v.offset};
    if (it->next && o < *it->next)
      return std::string(v.topic) + "/" + to_string(p) + "@" + to_string(o) +
             " was delivered again after offset " + to_string(previous_offset(*it->next));
    it->next = next_offset(o);
  }
  return std::nullopt;
}

void offset_ledger::handed_over(std::span<const record_view> batch, std::size_t handled) {
  // One map update per run of records from the same partition.
  for (std::size_t i = 0; i < handled; ++i) {
    const bool last_of_run = i + 1 == handled || batch[i + 1].partition != batch[i].partition;
    if (last_of_run) pending_[partition_id{batch[i].partition}] = next_offset(offset{batch[i].offset});
  }
}

void offset_ledger::committed() {
  for (const auto& [p, next] : pending_) committed_by_us_[p] = next;
  pending_.clear();
}

std::optional<offset> offset_ledger::committed_by_us(partition_id p) const {
  const auto it = committed_by_us_.find(p);
  if (it == committed_by_us_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> offset_ledger::behind(partition_id p, std::optional<offset> coordinator) const {
  const std::optional<offset> ours = committed_by_us(p);
  if (!ours || (coordinator && *coordinator >= *ours)) return std::nullopt;
  return topic_ + "/" + to_string(p) + ": the group coordinator answered committed offset " +
         (coordinator ? to_string(*coordinator) : std::string("none")) + ", behind offset " +
         to_string(*ours) + " that this process committed";
}

}  // namespace streamt::engine::session
