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
// an output are the input's in both plans of one SELECT, so only the values
// can differ there.
//
// When either plan is routed (INSERT INTO statements, plan::is_routed), the
// comparison is per route: the two plans' routes are matched by name
// (plan::route_name: the sink topic, "sink#k" when several statements write
// one sink; a single SELECT is one route named by its sink topic), and for
// each record and each route name of either plan, the old plan's output on
// that route (value and key: a PARTITION BY key, or the input's) is compared
// with the new plan's. Each differing pair is one difference naming its
// route: old_only, new_only or changed (a different value or key). A route
// of one plan only has no output in the other, so each of its outputs is
// old_only or new_only. A record no route of either plan takes is no
// difference, wherever each plan puts its unrouted records; one neither
// plan emits on any route and only one finds invalid is one invalid_in_one
// difference, naming no route.

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

// One plan's outcome for a differing record (on its route, when routed).
struct plan_outcome {
  std::optional<std::string> output;  // the emitted value; nullopt when none
  // Routed comparisons: the output's key (its route's PARTITION BY key, else
  // the input's; nullopt for a null key), set when the plan has an output.
  std::optional<std::string> key;
  bool has_output() const noexcept { return output.has_value() || tombstone; }
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
  std::optional<std::string> key;  // the input record's
  // The route compared (plan::route_name) in a routed comparison; nullopt
  // for an invalid_in_one difference, which is the whole record's, and in a
  // comparison of two single SELECTs.
  std::optional<std::string> route;
  plan_outcome old_outcome;
  plan_outcome new_outcome;
};

struct difference_counts {
  std::uint64_t old_only = 0;
  std::uint64_t new_only = 0;
  std::uint64_t changed = 0;
  std::uint64_t invalid_in_one = 0;
  // Records with at least one difference: total() for two single SELECTs;
  // fewer when a record differs on several routes.
  std::uint64_t records = 0;
  std::uint64_t total() const noexcept { return old_only + new_only + changed + invalid_in_one; }
};

// One route name of a routed comparison: what each plan wrote on it and how
// its outputs differ.
struct route_tally {
  std::string name;     // plan::route_name
  bool in_old = false;  // the old plan has the route
  bool in_new = false;
  std::uint64_t old_outputs = 0;  // outputs on the route, null values included
  std::uint64_t new_outputs = 0;
  std::uint64_t old_only = 0;
  std::uint64_t new_only = 0;
  std::uint64_t changed = 0;
  std::uint64_t differences() const noexcept { return old_only + new_only + changed; }
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
  // In the order the records were compared (a record's routes in routes()
  // order).
  const std::vector<record_difference>& kept() const noexcept { return kept_; }

  // Whether either plan is routed, so the comparison is per route.
  bool routed() const noexcept { return routed_; }
  // Routed comparisons: every route name of either plan, the old plan's in
  // its order, then the new plan's others in theirs. Empty otherwise.
  const std::vector<route_tally>& routes() const noexcept { return routes_; }

 private:
  operators::step step_of(operators::stage_pipeline& stages, const record_view& r);
  void compare_routes(const record_view& r, const operators::step& a, const operators::step& b);
  void keep(const record_view& r, difference_kind kind, const operators::step& a, const operators::step& b,
            const route_tally* route = nullptr, const operators::route_output* old_output = nullptr,
            const operators::route_output* new_output = nullptr);

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
  bool routed_ = false;
  std::vector<route_tally> routes_;
  // For routes_[i]: the route's index in each plan (plan::routes_of), or
  // no_route.
  static constexpr std::size_t no_route = static_cast<std::size_t>(-1);
  std::vector<std::size_t> old_index_;
  std::vector<std::size_t> new_index_;
  // Per record: each plan's output on each of its routes, or null.
  std::vector<const operators::route_output*> old_outputs_;
  std::vector<const operators::route_output*> new_outputs_;
};

}  // namespace streamt::engine
