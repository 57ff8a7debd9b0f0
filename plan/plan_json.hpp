// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The plan file: its canonical JSON form, its digest, and the strict loader
// the engine runs before it constructs any Kafka client (contract §3).
//
// Canonical form: compact JSON, keys in the fixed order written by
// canonical_json(), no "digest" member. The digest is
// "sha256:" + lowercase hex of SHA-256 over that text. The file written by
// write_plan() is the same members pretty-printed (for review and diffs)
// followed by "digest".

#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace streamt::plan {

// An application id becomes the consumer group id and the transactional-id
// prefix: non-empty, [a-zA-Z0-9._-] only, at most 200 characters (room is left
// for the per-instance suffix of the transactional id).
inline constexpr std::size_t max_application_id_length = 200;
constexpr bool is_valid_application_id(std::string_view id) noexcept {
  if (id.empty() || id.size() > max_application_id_length) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string canonical_json(const plan& p);
std::string digest(const plan& p);  // "sha256:<64 hex>"
inline constexpr std::string_view digest_prefix = "sha256:";
// Why `d` is not a plan digest ("sha256:" and 64 lowercase hex digits), in
// words for an error message; nullopt when it is one.
std::optional<std::string> digest_problem(std::string_view d);
// The digest of what the plan's output looks like: each output member's
// name, type and nullability, in order, and the sink's format when it is
// Avro. Two plans with the same shape write
// records consumers of the sink read alike (the predicate may differ).
std::string output_shape(const plan& p);

// The plan file as written by `streamt compile`: pretty-printed, with digest.
std::string write_plan(const plan& p);

// Strict loader: unknown or duplicate fields, wrong types, an unsupported
// plan_version, inconsistent references (a predicate or projection on a
// missing column, a literal whose type differs from its column's, duplicate
// output names, operators other than the fixed ones, an identity whose
// source_topic differs from the schema's topic, an Avro sink's pinned schema
// that is not the one its projection derives, a "sink" member where both
// ends are JSON or none where the source is Avro) and a digest that does not
// match are all rejected with the JSON path of the problem (phase::plan).
result<plan> load_plan(std::string_view json_text);

}  // namespace streamt::plan
