// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/plan_diff.hpp"

#include "engine/process_batch.hpp"

#include <stdexcept>

namespace streamt::engine {
namespace {

bool writes_tombstone(const operators::step& s) {
  return s.outcome == operators::outcome::forward_tombstone || s.outcome == operators::outcome::delete_key;
}

// Whether the plan writes anything to its sink for the record.
bool writes(const operators::step& s) {
  return s.outcome == operators::outcome::emitted || writes_tombstone(s);
}

void count(plan_tally& t, const operators::step& s) {
  switch (s.outcome) {
    case operators::outcome::emitted:
      ++t.passed;
      break;
    case operators::outcome::filtered:
    case operators::outcome::delete_key:
      ++t.filtered;
      break;
    case operators::outcome::tombstone:
    case operators::outcome::forward_tombstone:
      ++t.tombstones;
      break;
    case operators::outcome::invalid:
    case operators::outcome::needs_schema:  // never counted: step_of learns the schema first
      ++t.invalid;
      break;
  }
}

// The step copied out: its views point into the pipeline's buffers, which
// the next record overwrites.
plan_outcome outcome_of(const operators::step& s) {
  plan_outcome o;
  if (s.outcome == operators::outcome::emitted) o.output = std::string(s.output);
  o.tombstone = writes_tombstone(s);
  if (s.outcome == operators::outcome::invalid && s.error) {
    o.invalid_code = s.error->code;
    o.invalid_message = s.error->message;
  }
  return o;
}

}  // namespace

std::string_view to_string(difference_kind k) noexcept {
  switch (k) {
    case difference_kind::old_only:
      return "old_only";
    case difference_kind::new_only:
      return "new_only";
    case difference_kind::changed:
      return "changed";
    case difference_kind::invalid_in_one:
      return "invalid_in_one";
  }
  return "changed";
}

std::int64_t last_records_start(std::int64_t low, std::int64_t high, std::uint64_t n) noexcept {
  if (high <= low) return low;
  // high - low is positive, so it fits; n may not fit an int64.
  if (n >= static_cast<std::uint64_t>(high - low)) return low;
  return high - static_cast<std::int64_t>(n);
}

namespace {

// An Avro sink's outputs are compared as the JSON the plan writes with a
// JSON sink: the same projected row, each field's value readable in a diff
// line (base64 of Avro bodies would show nothing a person can compare), and
// no registry id needed to frame values that never leave diff.
plan::plan compared_as_json(plan::plan p) {
  p.sink = plan::sink{};
  return p;
}

}  // namespace

plan_comparison::plan_comparison(const plan::plan& old_plan, const plan::plan& new_plan, std::size_t max_kept,
                                 schema_learner learn)
    : old_(compared_as_json(old_plan)),
      new_(compared_as_json(new_plan)),
      max_kept_(max_kept),
      learn_(std::move(learn)) {}

// The stages' step for `r`, once the writer schema an Avro record needs is
// learnt (at most once per id and plan: the stages keep it).
operators::step plan_comparison::step_of(operators::stage_pipeline& stages, const record_view& r) {
  operators::step s = run_stages(stages, r);
  while (s.outcome == operators::outcome::needs_schema && !failure_) {
    if (!learn_)
      throw std::logic_error("plan_comparison: a record needs a writer schema, and nothing learns one");
    if (result<void> learnt = learn_(stages, s.schema_id); !learnt)
      failure_ = std::move(learnt.error());
    else
      s = run_stages(stages, r);
  }
  return s;
}

void plan_comparison::compare(const record_view& r) {
  if (failure_) return;
  // Each pipeline keeps its output in its own buffer, so the old plan's
  // step stays readable while the new plan processes the same value.
  const operators::step a = step_of(old_, r);
  const operators::step b = step_of(new_, r);
  if (failure_) return;
  ++records_;
  ++by_partition_[r.partition];
  count(old_tally_, a);
  count(new_tally_, b);
  const bool a_emits = writes(a);
  const bool b_emits = writes(b);
  const bool a_invalid = a.outcome == operators::outcome::invalid;
  const bool b_invalid = b.outcome == operators::outcome::invalid;
  std::optional<difference_kind> kind;
  if (a_emits && b_emits) {
    // A value and a null value differ; two null values do not.
    if (writes_tombstone(a) != writes_tombstone(b) || a.output != b.output) kind = difference_kind::changed;
  } else if (a_emits) {
    kind = difference_kind::old_only;
  } else if (b_emits) {
    kind = difference_kind::new_only;
  } else if (a_invalid != b_invalid) {
    kind = difference_kind::invalid_in_one;
  }
  if (!kind) return;
  switch (*kind) {
    case difference_kind::old_only:
      ++counts_.old_only;
      break;
    case difference_kind::new_only:
      ++counts_.new_only;
      break;
    case difference_kind::changed:
      ++counts_.changed;
      break;
    case difference_kind::invalid_in_one:
      ++counts_.invalid_in_one;
      break;
  }
  if (kept_.size() >= max_kept_) return;
  record_difference d;
  d.kind = *kind;
  d.topic = std::string(r.topic);
  d.partition = r.partition;
  d.offset = r.offset;
  if (r.key) d.key = std::string(*r.key);
  d.old_outcome = outcome_of(a);
  d.new_outcome = outcome_of(b);
  kept_.push_back(std::move(d));
}

}  // namespace streamt::engine
