// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/claims.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>

namespace streamt::engine::session {

namespace json = boost::json;

std::string to_claim_record(const plan_claim& c) {
  json::value v = json::parse(to_commit_metadata(c.plan));
  v.as_object()["replaces"] = c.replaces;
  return json::serialize(v);
}

std::optional<plan_claim> from_claim_record(std::string_view value) {
  std::optional<lineage> l = from_commit_metadata(value);
  if (!l) return std::nullopt;
  boost::system::error_code ec;
  const json::value v = json::parse(value, ec);  // parsed once already: cannot fail here
  const json::value* replaces = ec ? nullptr : v.get_object().if_contains("replaces");
  if (!replaces || !replaces->is_string()) return std::nullopt;
  return plan_claim{std::move(*l), std::string(replaces->get_string())};
}

std::optional<logged_claim> standing_claim(const std::vector<logged_claim>& log) {
  std::optional<logged_claim> standing;
  for (const logged_claim& c : log) {
    const std::string holder = standing ? standing->claim.plan.plan_digest : std::string();
    if (c.claim.replaces == holder && c.claim.plan.plan_digest != holder) standing = c;
  }
  return standing;
}

std::variant<plan_stands, write_claim, succession_refused> next_claim_step(
    std::string_view application, std::string_view log_topic, const std::optional<logged_claim>& standing,
    const our_plan& ours, const std::string& instance) {
  plan_claim mine{lineage{ours.digest, instance, ours.output_shape, {}}, {}};
  for (std::size_t i = 0; i < ours.supersedes.size() && i < lineage_supersedes; ++i)
    mine.plan.supersedes.push_back(ours.supersedes[i]);
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
