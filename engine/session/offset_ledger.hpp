// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Where each partition of the source topic stands, for the exactly-once
// protocol (contract §5): which partitions this process owns, the next offset
// of each that the open transaction has handed over (what
// send_offsets_to_transaction stores), and the offsets this process's
// committed transactions stored. Pure bookkeeping, no Kafka, no clock:
// test/unit/session/offset_ledger_tests.cpp.
//
// Two checks live here because only the ledger knows the positions:
//  - went_back(): a record at or below one already handed over in the open
//    transaction. librdkafka 2.0.2 has delivered a record twice after a
//    rewind and a lost assignment (tools/faults broker_pause); committing
//    both would duplicate its output, skipping the repeat could lose
//    records, so the session aborts and rewinds.
//  - current(): records the consumer hands over that are not this
//    process's to process: of a partition it gave up (librdkafka may still
//    hold what it fetched before the unassign), or from before the position
//    a partition was last assigned or rewound to (fetched before the seek).
//    Dropped, never processed: the first would duplicate the next owner's
//    output, the second this process's own.
//  - behind(): the group coordinator answering a committed offset older than
//    one this process committed (seen for minutes after a broker restart,
//    tools/faults broker_kill). Resuming there would replay committed
//    records; run_session::judge has the driver ask again, up to the stall
//    timeout.

#include "engine/record.hpp"
#include "engine/session/positions.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace streamt::engine::session {

class offset_ledger {
 public:
  // The source topic's name, for the descriptions only.
  explicit offset_ledger(std::string source_topic) : topic_(std::move(source_topic)) {}

  // ---- ownership (the group's assignments) ----
  void take(partition_id p) { owned_.insert(p); }
  // Given up (revoked or lost): its pending offset goes too, it is no longer
  // this process's to commit.
  void give_up(partition_id p);
  bool owns(partition_id p) const { return owned_.count(p) != 0; }
  const std::set<partition_id>& owned() const noexcept { return owned_; }

  // ---- what the consumer may hand over ----
  // `p` was assigned at, or rewound to, `at`: its records start there.
  void positioned(partition_id p, offset at) { positions_[p] = at; }
  // Where `p` was last assigned or rewound to; nullopt for the earliest
  // offset (only the broker knows it) or a partition not owned.
  std::optional<offset> positioned_at(partition_id p) const {
    auto it = positions_.find(p);
    return it == positions_.end() ? std::nullopt : std::optional<offset>(it->second);
  }
  struct dropped {
    std::size_t not_owned = 0;        // of a partition this process does not own
    std::size_t before_position = 0;  // older than where the partition was positioned
    std::string first;                // the first dropped record, as topic/partition@offset
    std::size_t total() const noexcept { return not_owned + before_position; }
  };
  // The records of `batch` this process may process, in their order:
  // `batch` itself when all may (the usual case, no copy), else the kept
  // ones, copied into `kept` (reused). `d` counts the others.
  std::span<const record_view> current(std::span<const record_view> batch, std::vector<record_view>& kept,
                                       dropped& d) const;

  // ---- the open transaction ----
  // The first record of `batch` (in delivery order) that is at or below a
  // record already handed over for its partition, in this batch or an
  // earlier one of the open transaction: a description of the repeat.
  std::optional<std::string> went_back(std::span<const record_view> batch) const;
  // The first `handled` records of `batch` were processed into the open
  // transaction: their partitions' next offsets move past them.
  void handed_over(std::span<const record_view> batch, std::size_t handled);
  // The transaction ends right before the record at `o` (an invalid or
  // unproducible record): the committed offset of `p` will be `o` itself, so
  // a restart stops at that record again.
  void stop_before(partition_id p, offset o) { pending_[p] = o; }
  // What send_offsets_to_transaction stores: the next offset per partition.
  const std::map<partition_id, offset>& pending() const noexcept { return pending_; }
  // The open transaction committed: its pending offsets are now this
  // process's committed ones.
  void committed();
  // The open transaction ended without a commit (aborted, rewound), or the
  // next one starts: nothing is pending.
  void clear_pending() noexcept { pending_.clear(); }

  // ---- the coordinator's answers ----
  std::optional<offset> committed_by_us(partition_id p) const;
  // Why the coordinator's committed offset for `p` (nullopt: none) cannot be
  // taken: it is behind what this process committed. nullopt if it can (an
  // offset ahead of ours is fine: another instance went on).
  std::optional<std::string> behind(partition_id p, std::optional<offset> coordinator) const;

 private:
  std::string topic_;
  std::set<partition_id> owned_;
  std::map<partition_id, offset> positions_;
  std::map<partition_id, offset> pending_;
  std::map<partition_id, offset> committed_by_us_;
};

}  // namespace streamt::engine::session
