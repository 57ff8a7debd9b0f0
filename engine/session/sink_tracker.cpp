// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/sink_tracker.hpp"

#include <algorithm>
#include <utility>

namespace streamt::engine::session {

void sink_tracker::new_transaction() {
  ++generation_;
  sources_.clear();
  first_unplaced_.reset();
  unplaced_reports_ = 0;
}

std::uint64_t sink_tracker::producing(const record_view& in, std::size_t size, std::uint32_t topic) {
  const std::uint64_t opaque = (std::uint64_t{generation_} << 32) | sources_.size();
  if (topic >= tails_.size()) tails_.resize(topic + 1);  // once per topic, at its first record
  sources_.push_back({partition_id{in.partition}, offset{in.offset}, size, {}, false, false, {}, topic});
  return opaque;
}

std::uint64_t sink_tracker::producing_dead_letter(const record_view& in, std::size_t size) {
  const std::uint64_t opaque = (std::uint64_t{generation_} << 32) | sources_.size();
  sources_.push_back({partition_id{in.partition}, offset{in.offset}, size, {}, true});
  return opaque;
}

void sink_tracker::refused_at_once(failure e) {
  if (e.never_accepted && !sources_.empty()) note_unproducible(sources_.back(), e);
  if (!error_) error_ = std::move(e);
}

void sink_tracker::delivered(std::uint64_t opaque, std::int32_t sink_partition, std::int64_t sink_offset) {
  // Every report of a transaction is polled before its commit or abort
  // returns, so a report of an earlier generation does not occur; it is
  // ignored rather than misfiled.
  if ((opaque >> 32) != generation_) return;
  const std::size_t index = opaque & 0xffffffffu;
  const bool dead_letter = index < sources_.size() && sources_[index].dead_letter;
  aborted_tail& tail =
      dead_letter ? dead_letter_tail_ : tails_[index < sources_.size() ? sources_[index].topic : 0];
  if (std::optional<std::string> s = tail.delivered(sink_partition, sink_offset); s && !trailing_)
    trailing_ = dead_letter ? "dead-letter topic: " + *s : std::move(*s);
}

void sink_tracker::delivery_failed(std::uint64_t opaque, const failure& e) {
  if (!e.never_accepted || (opaque >> 32) != generation_) return;
  const std::size_t index = opaque & 0xffffffffu;
  if (index < sources_.size()) note_unproducible(sources_[index], e);
}

bool sink_tracker::aborted() {
  for (aborted_tail& t : tails_) t.aborted();
  dead_letter_tail_.aborted();
  trailing_.reset();  // the abort just written ends that record too
  if (!suspect_) return false;
  // Blamed again (its dead-letter write was refused too): the newer blame
  // says more, so it replaces the older.
  const auto same = std::find_if(known_.begin(), known_.end(), [&](const unproducible_record& k) {
    return k.partition == suspect_->partition && k.at == suspect_->at;
  });
  if (same != known_.end())
    *same = std::move(*suspect_);
  else
    known_.push_back(std::move(*suspect_));
  suspect_.reset();
  return true;
}

std::optional<std::string> sink_tracker::take_unplaced() {
  const std::size_t reports = std::exchange(unplaced_reports_, 0);
  std::optional<unproducible_record> first = std::exchange(first_unplaced_, std::nullopt);
  if (!first || suspect_) return std::nullopt;  // a blame that is certain stands
  if (reports == 1) {
    suspect_ = std::move(first);  // it was alone in its refused batch: the one
    return std::nullopt;
  }
  return first->reason;
}

void sink_tracker::committed() {
  first_unplaced_.reset();
  unplaced_reports_ = 0;
  for (aborted_tail& t : tails_) t.committed();
  dead_letter_tail_.committed();
  suspect_.reset();
  // A record the committed transaction dead-lettered is behind its
  // partition's committed offset now: it is never consumed again.
  std::erase_if(known_, [&](const unproducible_record& k) {
    return std::any_of(sources_.begin(), sources_.end(), [&](const unproducible_record& s) {
      return s.dead_letter && s.partition == k.partition && s.at == k.at;
    });
  });
}

std::optional<std::string> sink_tracker::take_trailing() { return std::exchange(trailing_, std::nullopt); }

std::optional<failure> sink_tracker::take_error() { return std::exchange(error_, std::nullopt); }

std::optional<unproducible_at> sink_tracker::unproducible_in(std::span<const record_view> batch) const {
  if (known_.empty()) return std::nullopt;  // the per-batch cost of a healthy run
  for (std::size_t i = 0; i < batch.size(); ++i)
    for (const unproducible_record& k : known_)
      if (partition_id{batch[i].partition} == k.partition && offset{batch[i].offset} == k.at)
        return unproducible_at{i, k};
  return std::nullopt;
}

// The broker refuses a whole batch when it is too large, so every record of
// it reports the error: the largest of them is the one to blame. (The
// engine caps the producer's batch.size at the topics' max.message.bytes,
// so a refused batch holds that one record alone: engine/driver/start_steps.cpp.)
void sink_tracker::note_unproducible(unproducible_record r, const failure& why) {
  if (why.record_bytes != 0) r.size = why.record_bytes;  // key and headers counted
  // A refusal for a reason other than the size (an invalid record, a
  // timestamp out of bounds): every record of the refused batch reports it,
  // and nothing tells which one it meant, unless it was the only one.
  if (why.broken_rule.empty() && !why.too_large) {
    if (unplaced_reports_++ == 0) {
      r.reason = why.message;
      first_unplaced_ = std::move(r);
    }
    return;
  }
  // A refusal known before producing names its record for certain: it
  // stands against a size guess.
  if (suspect_ && (!suspect_->rule.empty() || (why.broken_rule.empty() && suspect_->size >= r.size))) return;
  r.reason = why.message;
  r.rule = why.broken_rule;
  r.too_large = why.too_large;
  suspect_ = std::move(r);
}

}  // namespace streamt::engine::session
