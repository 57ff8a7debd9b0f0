// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Plan lineage in Kafka: every transaction's offset commit carries, in each
// partition's offset metadata, the digest of the plan that produced the
// output up to that offset and the instance that ran it. Kafka then keeps,
// durably and per partition, which plan processed what, with no local state
// (`streamt offsets` shows it).
//
// The metadata is one compact JSON object, versioned so that later fields
// can be added without breaking an older reader:
//
//     {"streamt":1,"plan":"sha256:<64 hex>","instance":"<instance id>",
//      "shape":"sha256:<64 hex>","supersedes":["sha256:<64 hex>",...]}
//
// `shape` is the plan's output shape (plan::output_shape) and `supersedes`
// the first lineage_supersedes of the plans it succeeds: what another
// instance needs to tell, from the commit alone, whether this plan
// succeeds its own, is succeeded by it, or is unrelated
// (session/succession.hpp). The broker bounds offset metadata
// (offset.metadata.max.bytes, 4096 by default); this is at most about
// 1.5 KiB.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::engine {

// How many of a plan's predecessors its commits name.
inline constexpr std::size_t lineage_supersedes = 16;

struct lineage {
  std::string plan_digest;                // "sha256:<64 hex>"
  std::string instance;                   // the state directory's instance id
  std::string output_shape{};             // "sha256:<64 hex>", or empty when not recorded
  std::vector<std::string> supersedes{};  // nearest first, at most lineage_supersedes
  friend bool operator==(const lineage&, const lineage&) = default;
};

// The offset metadata that records `l`.
std::string to_commit_metadata(const lineage& l);

// The lineage an offset's metadata records, or nullopt for metadata that is
// not ours (empty, a Java client's, another tool's, a later version's with
// no plan digest), which says nothing about which plan committed it.
std::optional<lineage> from_commit_metadata(std::string_view metadata);

}  // namespace streamt::engine
