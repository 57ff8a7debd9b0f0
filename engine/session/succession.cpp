// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/succession.hpp"

#include <algorithm>

namespace streamt::engine::session {

namespace {

bool names(const std::vector<std::string>& list, const std::string& digest) {
  return std::find(list.begin(), list.end(), digest) != list.end();
}

std::string by(const lineage& l) {
  return "plan " + l.plan_digest + (l.instance.empty() ? std::string() : " (instance " + l.instance + ")");
}

std::string at(std::optional<offset> committed) {
  return committed ? " at offset " + std::to_string(committed->value) : std::string();
}

}  // namespace

std::variant<take_partition, succession_refused> succession(std::string_view name,
                                                            std::optional<offset> committed,
                                                            const std::optional<lineage>& last,
                                                            const our_plan& ours, std::string_view done) {
  if (!last || last->plan_digest == ours.digest) return take_partition{};
  const std::string where(name);
  const std::string was_last = " was last " + std::string(done);
  if (names(ours.supersedes, last->plan_digest) || last->plan_digest == ours.ran_here) {
    // The shape travels with each commit, so a fresh instance (a new pod,
    // an empty state directory) meets the same guard as a restarted one.
    if (!last->output_shape.empty() && last->output_shape != ours.output_shape && !ours.allow_output_change)
      return succession_refused{
          where + was_last + at(committed) + " by " + by(*last) + ", whose output has another " +
          "shape (projection or schema) than this plan's " + ours.digest +
          "; consumers of the sink topic would see records of a new shape. Run with --allow-output-change "
          "if that is intended"};
    return take_partition{
        "taking over " + where + at(committed) + " from " + by(*last) + ", which plan " + ours.digest +
        (names(ours.supersedes, last->plan_digest) ? " supersedes" : " replaces in this state directory")};
  }
  if (names(last->supersedes, ours.digest))
    return succession_refused{
        where + was_last + at(committed) + " by " + by(*last) + ", which supersedes this plan " +
        ours.digest +
        ": an older plan must never overwrite a newer one's progress. Run the newer plan; to roll back, "
        "compile this one again with --supersedes that plan"};
  return succession_refused{
      where + was_last + at(committed) + " by " + by(*last) + ", which this plan " + ours.digest +
      " does not supersede: two unrelated plans must not share an application id. Compile this plan with "
      "--supersedes the plan that runs (streamt offsets shows which), or give it another application id"};
}

}  // namespace streamt::engine::session
