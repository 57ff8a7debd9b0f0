// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Two plans side by side over the same records (`streamt diff`, contract
// §6): each record goes through both plans' stage pipelines, the very path
// it takes in `run` and `replay`, and the outcomes are compared. Nothing is
// written anywhere; where the records come from is the caller's business
// (the command reads them from Kafka, the tests hand them in).
//
// A record differs when one plan emits it and the other does not, when both
// emit different values, or when neither emits it but only one finds it
// invalid (such a record stops the one plan's run, or goes to its
// dead-letter topic, and not the other's). The key, timestamp and headers of
// an output are the input's in both plans, so only the values can differ.

#include "engine/pipeline.hpp"
#include "engine/record.hpp"
#include "operators/stage_pipeline.hpp"
#include "plan/plan.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::engine {

// What one plan did with the records.
// Each record is counted once in passed, filtered, tombstones or invalid, as
// the run counts it (process_batch.hpp's record_counts).
struct plan_tally {
  std::uint64_t passed = 0;      // emitted: an output record
  std::uint64_t filtered = 0;    // the predicate did not pass it
  std::uint64_t tombstones = 0;  // a null value (dropped, or forwarded by the plan)
  std::uint64_t invalid = 0;     // refused by the plan's schema (run stops there, or dead-letters it)
};

// A record "emitted" here is one the plan writes to its sink, a null value
// (plan_outcome::tombstone) included.
enum class difference_kind {
  old_only,        // only the old plan emits the record
  new_only,        // only the new plan emits it
  changed,         // both emit it, with different values
  invalid_in_one,  // neither emits it, and exactly one plan finds it invalid
};
std::string_view to_string(difference_kind k) noexcept;

// One plan's outcome for a differing record.
struct plan_outcome {
  std::optional<std::string> output;  // the emitted value; nullopt when none
  // The plan writes a null value under the record's key (a forwarded
  // tombstone, or a changelog upsert's deleted key): an output too, which
  // differs from no output and from any value.
  bool tombstone = false;
  // Set when the record is invalid for the plan: its stable code and message.
  std::optional<std::string> invalid_code;
  std::optional<std::string> invalid_message;
};

struct record_difference {
  difference_kind kind = difference_kind::changed;
  std::string topic;
  std::int32_t partition = 0;
  std::int64_t offset = 0;
  std::optional<std::string> key;
  plan_outcome old_outcome;
  plan_outcome new_outcome;
};

struct difference_counts {
  std::uint64_t old_only = 0;
  std::uint64_t new_only = 0;
  std::uint64_t changed = 0;
  std::uint64_t invalid_in_one = 0;
  std::uint64_t total() const noexcept { return old_only + new_only + changed + invalid_in_one; }
};

// Where `diff --from last:N` starts a partition whose log holds offsets
// `low` to `high` (exclusive): N offsets before its end, or its log start
// when fewer remain. Offsets, not records: in a topic written by
// transactions each commit marker takes one, so a little fewer records
// than N may follow.
std::int64_t last_records_start(std::int64_t low, std::int64_t high, std::uint64_t n) noexcept;

class plan_comparison {
 public:
  // Keeps the first `max_kept` differing records in full; the rest are
  // counted only, so memory does not grow with the number read. A plan with
  // an Avro sink is compared by the JSON its outputs hold (the values a
  // JSON sink would write of the same rows), so no registry id is needed
  // and a difference shows field values. A plan with an Avro source needs
  // `learn` (a record of it without one is a std::logic_error).
  plan_comparison(const plan::plan& old_plan, const plan::plan& new_plan, std::size_t max_kept,
                  schema_learner learn = {});

  // Once learning a writer schema failed (failure()), records are no longer
  // compared: the one it failed for is not counted.
  void compare(const record_view& r);
  const std::optional<diagnostic>& failure() const noexcept { return failure_; }

  std::uint64_t records() const noexcept { return records_; }
  // records() split by partition: a partition that gave no record is absent.
  // A gate reads it to see what it tested (none at all is diff's exit 4).
  const std::map<std::int32_t, std::uint64_t>& records_by_partition() const noexcept { return by_partition_; }
  const plan_tally& old_tally() const noexcept { return old_tally_; }
  const plan_tally& new_tally() const noexcept { return new_tally_; }
  const difference_counts& differences() const noexcept { return counts_; }
  // In the order the records were compared.
  const std::vector<record_difference>& kept() const noexcept { return kept_; }

 private:
  operators::step step_of(operators::stage_pipeline& stages, const record_view& r);

  operators::stage_pipeline old_;
  operators::stage_pipeline new_;
  std::size_t max_kept_;
  schema_learner learn_;
  std::optional<diagnostic> failure_;
  std::uint64_t records_ = 0;
  std::map<std::int32_t, std::uint64_t> by_partition_;
  plan_tally old_tally_;
  plan_tally new_tally_;
  difference_counts counts_;
  std::vector<record_difference> kept_;
};

}  // namespace streamt::engine
