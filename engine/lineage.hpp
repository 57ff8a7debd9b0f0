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

#include "kafka/message_view.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
// `metadata` (to_commit_metadata's) with the time of the commit added, as
// member "at" (milliseconds since the epoch): what lets `streamt status`
// tell an instance that stopped committing from one that commits, with
// nothing but the group's offsets to go by. Added at each commit, so the
// text computed once at start is copied, never parsed again.
std::string stamp_commit_metadata(std::string_view metadata, std::int64_t unix_ms);
// What a commit's metadata records: its lineage, and when the commit was
// made (its "at"; nullopt when written before the field was added). One
// parse for both; nullopt for metadata that is not ours.
struct commit_metadata {
  lineage plan;
  std::optional<std::int64_t> at;
};
std::optional<commit_metadata> read_commit_metadata(std::string_view metadata);

// The lineage an offset's metadata records, or nullopt for metadata that is
// not ours (empty, a Java client's, another tool's, a later version's with
// no plan digest), which says nothing about which plan committed it.
std::optional<lineage> from_commit_metadata(std::string_view metadata);

// The same object with one string member more, for a record that is a
// lineage and one fact besides (the plan log's claims add "replaces",
// session/claims.hpp), and reading it back: nullopt when the text is no
// lineage or the member is missing or not a string. One parse each way.
std::string to_lineage_record(const lineage& l, std::string_view key, std::string_view value);
std::optional<std::pair<lineage, std::string>> from_lineage_record(std::string_view text,
                                                                   std::string_view key);

// ---- the lineage header (`streamt run --lineage-header NAME`) -------------
//
// The same fact per record: each output record (and dead-letter record)
// carries one header NAME whose value is
//
//     sha256:<64 hex>;p=<source partition>;o=<source offset>
//
// the plan that produced it and the input record it came from, so a reader
// of the sink can tell, record by record, which plan of a rolling update
// wrote what, with no access to the group's offsets. One header, not three
// (NAME, NAME-partition, NAME-offset): librdkafka allocates every header it
// is given, so one costs a third of the allocations and of the header
// framing on the wire, and the three facts never travel apart. Parsing it is
// splitting at ';'.

// The bound on a header name: a name is a label, and a mistake (a pasted
// value) should not become kilobytes on every record.
inline constexpr std::size_t lineage_header_name_max = 128;

// Why `name` cannot name the lineage header, if it cannot: empty, longer
// than lineage_header_name_max, a character that is not printable ASCII or
// is a space, or the prefix "streamt." that the engine's dead-letter headers
// use. `suggestion` is a name that would do, when there is an obvious one
// (the bad characters replaced by '-'), for the "did you mean" of a usage
// error.
struct header_name_problem {
  std::string message;
  std::string suggestion{};
};
std::optional<header_name_problem> lineage_header_name_problem(std::string_view name);

// Makes the lineage header of each record. The constant part (the name, the
// digest and ";p=") is built once; a record's header is then two integers
// written into a buffer sized once for the longest value, so the per-record
// path allocates nothing (the producer copies the header as it produces).
class lineage_stamp {
 public:
  lineage_stamp(std::string name, std::string_view plan_digest);

  // The header for the output of the record at `partition` and `offset`:
  // views into this stamp, valid until the next call.
  kafka::header_view header(std::int32_t partition, std::int64_t offset) noexcept;

 private:
  std::string name_;
  std::string value_;        // the prefix, then room for the longest numbers
  std::size_t prefix_size_;  // "sha256:...;p="
};

}  // namespace streamt::engine
