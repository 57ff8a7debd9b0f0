// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/plan_diff.hpp"

#include "engine/process_batch.hpp"

#include <algorithm>
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

// The null value a single SELECT writes under the input's key (a forwarded
// tombstone, a deleted key), as an output of its one route.
const operators::route_output null_value_output{0, std::nullopt, std::nullopt};

// Each route's output of the step (`out` is sized to the plan's routes):
// null where the route took nothing.
void outputs_by_route(const operators::step& s, std::vector<const operators::route_output*>& out) {
  std::fill(out.begin(), out.end(), nullptr);
  if (s.outcome == operators::outcome::emitted) {
    for (const operators::route_output& o : s.outputs) out.at(o.route) = &o;
  } else if (writes_tombstone(s) && !out.empty()) {
    out.front() = &null_value_output;
  }
}

// The key an output is written under: its route's PARTITION BY key, or the
// input's.
std::optional<std::string_view> key_of(const operators::route_output& o, const record_view& r) {
  return o.key ? o.key : r.key;
}

// outcome_of for one route's output (null: none).
plan_outcome route_outcome_of(const operators::step& s, const operators::route_output* o,
                              const record_view& r) {
  plan_outcome p;
  if (o) {
    if (o->value)
      p.output = std::string(*o->value);
    else
      p.tombstone = true;
    if (std::optional<std::string_view> k = key_of(*o, r)) p.key = std::string(*k);
  }
  if (s.outcome == operators::outcome::invalid && s.error) {
    p.invalid_code = s.error->code;
    p.invalid_message = s.error->message;
  }
  return p;
}

void count(difference_counts& c, difference_kind k) {
  switch (k) {
    case difference_kind::old_only:
      ++c.old_only;
      break;
    case difference_kind::new_only:
      ++c.new_only;
      break;
    case difference_kind::changed:
      ++c.changed;
      break;
    case difference_kind::invalid_in_one:
      ++c.invalid_in_one;
      break;
  }
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
      learn_(std::move(learn)),
      routed_(plan::is_routed(old_plan) || plan::is_routed(new_plan)) {
  if (!routed_) return;
  // Routes are matched by name: the old plan's in order, then the new
  // plan's that the old one lacks.
  const std::vector<plan::route> old_routes = plan::routes_of(old_plan);
  const std::vector<plan::route> new_routes = plan::routes_of(new_plan);
  for (std::size_t i = 0; i < old_routes.size(); ++i) {
    routes_.push_back({.name = plan::route_name(old_routes, i), .in_old = true});
    old_index_.push_back(i);
    new_index_.push_back(no_route);
  }
  for (std::size_t i = 0; i < new_routes.size(); ++i) {
    const std::string name = plan::route_name(new_routes, i);
    const auto same = std::find_if(routes_.begin(), routes_.end(),
                                   [&name](const route_tally& t) { return t.name == name; });
    if (same != routes_.end()) {
      same->in_new = true;
      new_index_[static_cast<std::size_t>(same - routes_.begin())] = i;
      continue;
    }
    routes_.push_back({.name = name, .in_new = true});
    old_index_.push_back(no_route);
    new_index_.push_back(i);
  }
  old_outputs_.resize(old_routes.size());
  new_outputs_.resize(new_routes.size());
}

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
  if (routed_) return compare_routes(r, a, b);
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
  count(counts_, *kind);
  ++counts_.records;
  keep(r, *kind, a, b);
}

void plan_comparison::compare_routes(const record_view& r, const operators::step& a,
                                     const operators::step& b) {
  outputs_by_route(a, old_outputs_);
  outputs_by_route(b, new_outputs_);
  bool differs = false;
  for (std::size_t i = 0; i < routes_.size(); ++i) {
    route_tally& t = routes_[i];
    const operators::route_output* x = old_index_[i] == no_route ? nullptr : old_outputs_[old_index_[i]];
    const operators::route_output* y = new_index_[i] == no_route ? nullptr : new_outputs_[new_index_[i]];
    if (x) ++t.old_outputs;
    if (y) ++t.new_outputs;
    difference_kind kind;
    if (x && y) {
      // A value and a null value differ; two null values do not. The key
      // is compared too: a PARTITION BY column places the output.
      if (x->value == y->value && key_of(*x, r) == key_of(*y, r)) continue;
      kind = difference_kind::changed;
      ++t.changed;
    } else if (x) {
      kind = difference_kind::old_only;
      ++t.old_only;
    } else if (y) {
      kind = difference_kind::new_only;
      ++t.new_only;
    } else {
      continue;
    }
    differs = true;
    count(counts_, kind);
    keep(r, kind, a, b, &t, x, y);
  }
  // Taken by no route of either plan: a difference only when one plan
  // finds the record invalid (it stops that plan's run, or goes to its
  // dead-letter topic), and then the whole record's.
  if (!differs && !writes(a) && !writes(b) &&
      (a.outcome == operators::outcome::invalid) != (b.outcome == operators::outcome::invalid)) {
    differs = true;
    count(counts_, difference_kind::invalid_in_one);
    keep(r, difference_kind::invalid_in_one, a, b);
  }
  if (differs) ++counts_.records;
}

void plan_comparison::keep(const record_view& r, difference_kind kind, const operators::step& a,
                           const operators::step& b, const route_tally* route,
                           const operators::route_output* old_output,
                           const operators::route_output* new_output) {
  if (kept_.size() >= max_kept_) return;
  record_difference d;
  d.kind = kind;
  d.topic = std::string(r.topic);
  d.partition = r.partition;
  d.offset = r.offset;
  if (r.key) d.key = std::string(*r.key);
  if (route) {
    d.route = route->name;
    d.old_outcome = route_outcome_of(a, old_output, r);
    d.new_outcome = route_outcome_of(b, new_output, r);
  } else {
    d.old_outcome = outcome_of(a);
    d.new_outcome = outcome_of(b);
  }
  kept_.push_back(std::move(d));
}

}  // namespace streamt::engine
