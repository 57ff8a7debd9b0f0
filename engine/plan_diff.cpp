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
    case operators::outcome::needs_schema:  // an Avro source: diff refuses its plans before (contract §3)
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

namespace {

// An Avro sink's outputs are framed with the id a registry gives its schema;
// diff registers nothing, so it compares JSON outputs only.
const plan::plan& json_sink(const plan::plan& p) {
  if (p.sink.format == plan::sink_format::avro)
    throw std::invalid_argument(
        "streamt::engine::plan_comparison: a plan's sink is Avro in the Confluent wire format; diff compares "
        "plans whose outputs are JSON");
  return p;
}

}  // namespace

plan_comparison::plan_comparison(const plan::plan& old_plan, const plan::plan& new_plan, std::size_t max_kept)
    : old_(json_sink(old_plan)), new_(json_sink(new_plan)), max_kept_(max_kept) {}

void plan_comparison::compare(const record_view& r) {
  ++records_;
  // Each pipeline keeps its output in its own buffer, so the old plan's
  // step stays readable while the new plan processes the same value.
  const operators::step a = run_stages(old_, r);
  const operators::step b = run_stages(new_, r);
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
