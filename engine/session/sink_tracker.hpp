// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// What the session knows about the records the open transaction wrote to the
// sink topic, from the producer's answers: pure bookkeeping, no Kafka
// (test/unit/session/sink_tracker_tests.cpp).
//
//  - Transaction generations. Each output record carries an opaque naming
//    its input record: the generation in the high half, so a late report of
//    an aborted transaction is never taken for a record of the open one, and
//    its index in the transaction in the low half.
//  - Unproducible records: an input record whose output the sink will never
//    accept (larger than the topic's max.message.bytes, refused as invalid).
//    Aborting and replaying it would loop forever, so the session processes
//    up to it and stops there as at an invalid input record, or, with a
//    dead-letter topic, writes it there and goes on. Each aborted attempt
//    blames at most one record (its suspect), and every record blamed stays
//    known across the attempts that follow: when only the last was
//    remembered, a transaction holding two such records blamed them in turn
//    and aborted forever (seen with eight oversized records on a real
//    broker, test/integration/dead_letter_oversized.sh).
//  - The aborted tail (aborted_tail.hpp): a record of an aborted transaction
//    that landed inside the open one, found in a delivery report.
//  - The first error a produce call returned at once (queue full, too
//    large): it fails the transaction after the batch.

#include "engine/record.hpp"
#include "engine/session/aborted_tail.hpp"
#include "engine/session/failure.hpp"
#include "engine/session/positions.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace streamt::engine::session {

// An input record whose output the sink refused for good.
struct unproducible_record {
  partition_id partition;
  offset at;
  std::size_t size = 0;  // of the output value
  std::string reason;
  bool dead_letter = false;  // the write was the record itself, to the dead-letter topic
  bool too_large = false;    // refused for its size (failure::too_large)
  std::string rule{};        // the sink's rule it breaks, known before producing (failure::broken_rule)
  // The topic it was written to: an index into the topics the plan writes
  // (config::sink_topics), unless dead_letter.
  std::uint32_t topic = 0;
};

// A known unproducible record found in a batch: where, and which.
struct unproducible_at {
  std::size_t index = 0;
  unproducible_record record;
};

class sink_tracker {
 public:
  // A transaction begins: reports of earlier ones no longer count.
  void new_transaction();

  // The output of `in`, `size` bytes, is about to be produced to topic
  // `topic` (an index into config::sink_topics): the opaque it must carry.
  std::uint64_t producing(const record_view& in, std::size_t size, std::uint32_t topic = 0);
  // The same for `in` itself, `size` bytes, written to the dead-letter
  // topic. Its reports are checked against that topic's partitions.
  std::uint64_t producing_dead_letter(const record_view& in, std::size_t size);
  // The produce call of the record just announced failed at once.
  void refused_at_once(failure e);

  // A delivery report.
  void delivered(std::uint64_t opaque, std::int32_t sink_partition, std::int64_t sink_offset);
  void delivery_failed(std::uint64_t opaque, const failure& e);

  // Whether the record of `opaque` (of the open transaction) is a write to
  // the dead-letter topic.
  bool dead_letter_write(std::uint64_t opaque) const noexcept {
    const std::size_t index = opaque & 0xffffffffu;
    return (opaque >> 32) == generation_ && index < sources_.size() && sources_[index].dead_letter;
  }
  // The topic the record of `opaque` (of the open transaction, not a
  // dead-letter write) went to: an index into config::sink_topics.
  std::uint32_t topic_of(std::uint64_t opaque) const noexcept {
    const std::size_t index = opaque & 0xffffffffu;
    return (opaque >> 32) == generation_ && index < sources_.size() ? sources_[index].topic : 0;
  }

  // The open transaction ended. aborted() says whether the abort named a
  // record the sink refuses (known_unproducible grew, or a record's blame
  // changed): the next attempt goes past it.
  bool aborted();
  void committed();

  // Whether a commit must first wait for every delivery report (flush): a
  // record landing right behind an aborted one is found only in its report.
  bool commit_needs_reports() const noexcept {
    for (const aborted_tail& t : tails_)
      if (t.armed()) return true;
    return dead_letter_tail_.armed();
  }
  // A record of an aborted transaction found inside the open one.
  std::optional<std::string> take_trailing();
  // The error of a produce call since the last take.
  std::optional<failure> take_error();
  // The record the open transaction's refusals blame so far: the largest
  // of those the sink refused for good (the broker refuses a whole batch
  // when it is too large, so every record of it reports the error). It
  // becomes known when the transaction aborts.
  const std::optional<unproducible_record>& suspect() const noexcept { return suspect_; }
  // The aborted transaction's refusals for a reason other than the size
  // (an invalid record, a timestamp out of bounds). Reported by one record
  // alone, that record is the one: it becomes the suspect, and this says
  // nothing. Reported by several (a batch refused whole names none of
  // them): the reason, once; the session then finds the record by taking
  // the records up again in smaller transactions. Call before aborted().
  std::optional<std::string> take_unplaced();
  // How many records are known to be unproducible.
  std::size_t known_unproducible() const noexcept { return known_.size(); }
  // The first known unproducible record in `batch`, if one is there.
  std::optional<unproducible_at> unproducible_in(std::span<const record_view> batch) const;

 private:
  void note_unproducible(unproducible_record r, const failure& why);

  std::uint32_t generation_ = 0;
  std::vector<unproducible_record> sources_;  // input record of each output of the open transaction
  std::optional<unproducible_record> suspect_;
  // Blamed by earlier attempts, until a committed transaction dead-letters
  // them (at most one more per aborted attempt, so this stays small).
  std::vector<unproducible_record> known_;
  std::optional<failure> error_;
  // One per topic written (config::sink_topics): partitions of two topics
  // share numbers, and a record of one says nothing of the other's offsets.
  std::vector<aborted_tail> tails_{1};
  aborted_tail dead_letter_tail_;  // the dead-letter topic's partitions
  std::optional<std::string> trailing_;
  // Refusals not for the size (take_unplaced): the first, and how many.
  std::optional<unproducible_record> first_unplaced_;
  std::size_t unplaced_reports_ = 0;
};

}  // namespace streamt::engine::session
