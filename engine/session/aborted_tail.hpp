// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once

// Finds a record of an aborted transaction that the broker left outside the
// abort, inside the transaction that follows.
//
// Seen in tools/faults broker_pause (Kafka 4.1, librdkafka 2.0.2): a record
// produced just before the broker froze was appended only when it came back,
// after the coordinator had already aborted its transaction. Its delivery
// report said success (offset 181 of the sink partition), the abort marker
// did not cover it, and the next transaction of the same producer id and
// epoch wrote its own copy right behind it (offset 182) and committed both:
// one record twice under read_committed.
//
// The check is exact for the sink partition's own writes: an abort leaves a
// control record after the aborted records of every partition it covers, so
// the next record this producer writes there lands at least two offsets past
// the aborted transaction's last one. Landing right behind it means no marker
// came between: that record is still open and the current transaction would
// commit it. (Records of other writers in between hide the gap; the check
// then says nothing, never something false.)
//
// Pure bookkeeping over delivery reports, no Kafka: tested in
// test/unit/session/aborted_tail_tests.cpp.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace streamt::engine::session {

class aborted_tail {
 public:
  // A record of the open transaction was written at `offset` of sink
  // partition `partition`. Returns a description when it shows that a record
  // of an aborted transaction is part of the open one: the open transaction
  // must then be aborted too (its marker ends both), never committed.
  std::optional<std::string> delivered(std::int32_t partition, std::int64_t offset) {
    auto& last = written_[partition];
    if (offset > last) last = offset;
    const auto armed = after_abort_.find(partition);
    if (armed == after_abort_.end()) return std::nullopt;
    const std::int64_t aborted_last = armed->second;
    after_abort_.erase(armed);
    if (offset != aborted_last + 1) return std::nullopt;
    return "sink partition " + std::to_string(partition) + ": offset " + std::to_string(offset) +
           " follows offset " + std::to_string(aborted_last) +
           " of an aborted transaction with no abort marker between: that record was written after "
           "its transaction was aborted and belongs to the open one";
  }

  // The open transaction was aborted (every delivery report of it is in:
  // abort_transaction returns only then). Its last offsets arm the check for
  // the next record written to each of its partitions.
  void aborted() {
    for (const auto& [partition, offset] : written_) after_abort_[partition] = offset;
    written_.clear();
  }

  // The open transaction committed: nothing of it can trail into the next.
  void committed() { written_.clear(); }

  // Whether a delivery report still has to be seen before a commit can be
  // known safe: true while some partition of an aborted transaction has not
  // been written to again.
  bool armed() const noexcept { return !after_abort_.empty(); }

 private:
  std::map<std::int32_t, std::int64_t> written_;      // open transaction: last offset per partition
  std::map<std::int32_t, std::int64_t> after_abort_;  // aborted transaction: last offset per partition
};

}  // namespace streamt::engine::session
