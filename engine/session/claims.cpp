// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/claims.hpp"

namespace streamt::engine::session {

std::string to_claim_record(const plan_claim& c) { return to_lineage_record(c.plan, "replaces", c.replaces); }

std::optional<plan_claim> from_claim_record(std::string_view value) {
  auto r = from_lineage_record(value, "replaces");
  if (!r) return std::nullopt;
  return plan_claim{std::move(r->first), std::move(r->second)};
}

std::vector<logged_claim> claims_in(const std::vector<log_record>& log) {
  std::vector<logged_claim> claims;
  for (const log_record& r : log)
    if (std::optional<plan_claim> c = from_claim_record(r.value)) claims.push_back({r.offset, std::move(*c)});
  return claims;
}

std::optional<logged_claim> standing_claim(const std::vector<logged_claim>& log) {
  std::optional<logged_claim> standing;
  for (const logged_claim& c : log) {
    const std::string_view holder = standing ? std::string_view(standing->claim.plan.plan_digest) : "";
    if (c.claim.replaces == holder && c.claim.plan.plan_digest != holder) standing = c;
  }
  return standing;
}

std::variant<plan_stands, write_claim, succession_refused> next_claim_step(
    std::string_view application, std::string_view log_topic, const std::optional<logged_claim>& standing,
    const our_plan& ours, const std::string& instance) {
  // The record names the first lineage_supersedes predecessors, as a commit does.
  plan_claim mine{lineage{ours.digest, instance, ours.output_shape, ours.supersedes}, {}};
  if (!standing) return write_claim{std::move(mine), {}};
  if (standing->claim.plan.plan_digest == ours.digest) return plan_stands{standing->offset};
  // The same rule as for a partition's last commit, with the log's offset.
  const std::string subject = "application " + std::string(application);
  auto decided = succession(subject, offset{standing->offset}, standing->claim.plan, ours,
                            "claimed in its plan log " + std::string(log_topic));
  if (auto* refused = std::get_if<succession_refused>(&decided)) return std::move(*refused);
  mine.replaces = standing->claim.plan.plan_digest;
  return write_claim{std::move(mine), std::move(std::get<take_partition>(decided).note)};
}

std::string plan_log_topic(std::string_view application_id) {
  return std::string(application_id) + "-streamt-plans";
}

}  // namespace streamt::engine::session
