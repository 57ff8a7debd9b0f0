// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// decode: record value bytes → typed row, enforcing contract §4.
//
// The value must be one UTF-8 JSON object holding exactly the declared
// columns, each once, each with its declared JSON type (null only where the
// column is nullable). A ROW column's value is an object held to the same
// rules, with its own fields, to any depth the schema declares; a JSON
// column's value may be any JSON, kept compactly in its slot. No DOM is built.
//
// Two paths, one verdict. A scanner specialised to the schema reads the
// common case in one pass: keys written plainly (no escapes), each matched
// first against the member the schema expects next; BIGINT digits parsed
// directly; strings checked (for the closing quote, a backslash, control
// characters and UTF-8) 16 bytes at a time and unescaped only when they hold
// a backslash; a ROW's object read by the same loop with its own fields;
// DECIMAL and DOUBLE values computed exactly from a plain number's digits
// (else by parse_decimal and from_chars, as the reference path does),
// TIMESTAMP by parse_timestamp; a JSON column's value checked and kept as
// its own bytes when it is already compact; an ignored member's value of any
// shape checked and skipped. It accepts only what the reference path accepts, with
// the same row, and gives up at the first thing it does not handle: any
// error, or an unusual but valid spelling such as an escaped key, a JSON
// value with whitespace or a DOUBLE below the least subnormal (giving up on
// an error costs at most one more pass over the bytes read). Then the
// reference path, Boost.JSON's SAX basic_parser (kept in decode_state, reset
// per record), reads the value from the start and accepts it or produces the
// diagnostic. So every diagnostic comes from one place, and the first
// offending token stops the parse: an unknown field fails as soon as its key
// has been read, even if a syntax error follows.
//
// Failures fill a diagnostic (phase::record) with one of these stable codes:
//   empty_value          the value has zero bytes (a tombstone is a null value, not an empty one)
//   malformed_json       not JSON (syntax error, truncated document, nesting
//                        deeper than 32 levels, ...)
//   invalid_utf8         bytes that are not UTF-8, or a \u escape naming a lone
//                        UTF-16 surrogate (\ud800 alone, \udc00): such a string
//                        has no UTF-8 form, so it is refused rather than replaced
//   not_an_object        the document is an array, string, number, boolean or null
//   unknown_field        a key that is not a declared column (unless the plan
//                        says unknown_fields: ignore for that level; then the
//                        member's value must be well-formed JSON and is skipped)
//   duplicate_field      a declared column given twice
//   missing_column       a declared column absent
//   unexpected_null      null for a column that is not nullable
//   wrong_type           a JSON type other than the column's: for BIGINT only a JSON
//                        integer (no fraction, no exponent: 120.0, 1e2, -0.0 are
//                        refused); for BOOLEAN only true/false; for STRING only a
//                        string; for DOUBLE and DECIMAL a number (and for DECIMAL
//                        a string too); for TIMESTAMP an integer or a string; for
//                        ROW an object; objects and arrays for no other type
//                        but JSON
//   bigint_out_of_range  an integer outside [-9223372036854775808, 9223372036854775807]
//   invalid_decimal      a DECIMAL(p,s) value with more than s fraction digits,
//                        more than p - s digits before the point, or a string
//                        that is not a decimal number
//   double_out_of_range  a number beyond DOUBLE's finite range (1e400)
//   invalid_timestamp    a TIMESTAMP string that is not RFC 3339 with an offset,
//                        finer than milliseconds, or outside the years 0001-9999
//                        (epoch milliseconds likewise)
//   trailing_data        anything but whitespace after the object, including a
//                        second JSON document
//   value_too_large      more than the definition's value limit (default
//                        max_record_value_bytes, 1 MiB); checked before parsing
//
// Nesting is bounded by the schema: an object is read only where a ROW is
// declared, so the first other `{` or `[` is refused where it begins
// (wrong_type, or unknown_field at the key of an undeclared member,
// not_an_object for a top-level array), and a value of a million `[` costs one
// byte of parsing. Values walked without being declared (a JSON column's, an
// ignored member's) may be any JSON nested up to Boost.JSON's default depth of
// 32 for the whole document (deeper is malformed_json); the parser is
// iterative, never recursive.
//
// `-0` is a valid JSON integer whose value is zero: a BIGINT column accepts it
// and decodes it to 0 (its sign cannot be represented in int64 and carries no
// meaning for an integer). `-0.0` is a fraction and is refused.
//
// Messages are short and name the column (by its path inside ROWs,
// 'after.amount'), what was expected and what was found, with the 0-based
// byte offset within the value where it helps ("column 'amount' expects
// BIGINT, found a string at byte 17"; a version 2 value's refusal starts with
// its JSON path: "$.after.amount: 12.345 has 3 fraction digits, DECIMAL(10,2)
// allows 2 at byte 40"). They never name topic, partition or offset: the
// engine adds those.

#include "operators/row.hpp"
#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace streamt::operators {

// The default bound on a record value. Kafka's own defaults keep records
// below about 1 MB (the broker's message.max.bytes, 1048588, and librdkafka's
// producer message.max.bytes, 1000000), and a plan-independent bound keeps
// the cost of one record (and of the encoded output) predictable. A value
// above it is invalid: the engine stops there like at any invalid record.
inline constexpr std::size_t max_record_value_bytes = 1 << 20;  // 1 MiB

// Immutable after construction; one per plan, shareable by reference.
//
// Its columns are the schema's nodes (plan::flatten): the top-level columns
// and, in pre-order, the fields of every ROW column, each with a slot of its
// own in the row. A flat schema's nodes are its columns, in order.
class decode_definition {
 public:
  explicit decode_definition(const plan::schema& s, std::size_t max_value_bytes = max_record_value_bytes);

  static constexpr std::size_t top = static_cast<std::size_t>(-1);

  // The number of nodes: the slots a decoded row has.
  std::size_t column_count() const noexcept { return columns_.size(); }
  std::size_t max_value_bytes() const noexcept { return max_value_bytes_; }
  // Node i's column (a ROW's without its fields: children() lists them).
  const plan::column& column(std::size_t i) const noexcept { return columns_[i]; }
  // The nodes directly inside `parent` (a ROW's node, or `top`), in order.
  const std::vector<std::size_t>& children(std::size_t parent) const noexcept {
    return parent == top ? top_ : nodes_[parent].children;
  }
  // One past the last node of i's subtree (its fields, their fields, ...).
  std::size_t subtree_end(std::size_t i) const noexcept { return nodes_[i].end; }
  // Node i as a query names it ("amount", "after.amount") and as a JSON
  // path ("$.after.amount"), for messages.
  const std::string& name(std::size_t i) const noexcept { return nodes_[i].name; }
  const std::string& json_path(std::size_t i) const noexcept { return nodes_[i].json_path; }

  // The top-level column named exactly `key` (byte-for-byte). `hint` is tried first:
  // producers usually write fields in schema order, so passing the number of
  // fields seen so far makes the common lookup a single comparison.
  std::optional<std::size_t> find(std::string_view key, std::size_t hint) const noexcept {
    return find_child(top, key, hint);
  }
  // The same inside `parent` (a ROW's node, or `top`).
  std::optional<std::size_t> find_child(std::size_t parent, std::string_view key,
                                        std::size_t hint) const noexcept;

  // True if every column name is printable ASCII without `"` or `\`, so that
  // a key equals a name exactly when its raw bytes do. Only then does the
  // fast path run (the schema loader allows no other names; a definition
  // built by hand with others is decoded by the reference path alone).
  bool plain_names() const noexcept { return plain_names_; }

  // True if the schema has no ROW and no column from the record's metadata:
  // its nodes are the value's top-level members, in order (the fast path
  // reads such a schema with a loop of its own).
  bool flat() const noexcept { return flat_; }

  // The top-level columns taken from the record's metadata, not its value.
  const std::vector<std::size_t>& metadata_columns() const noexcept { return metadata_; }

  // True if the plan's schema says `unknown_fields: ignore`: an undeclared
  // member is parsed and skipped instead of making the record invalid.
  bool ignore_unknown() const noexcept { return ignore_unknown_; }
  // The same for the members of the ROW at node `row` (or `top`).
  bool ignore_unknown(std::size_t row) const noexcept {
    return row == top ? ignore_unknown_ : nodes_[row].ignore_unknown;
  }

  // What the fast path reads of node i, in one place: its name followed by
  // its closing quote and a colon, as 16 masked bytes, so that a key is
  // matched with one compare (when they fit in 16 bytes; else the name
  // itself is compared), and the column's type and bounds.
  struct fast_node {
    std::uint64_t word[2] = {};
    std::uint64_t mask[2] = {};
    std::uint32_t length = 0;  // the name's
    // The bytes a key must have left to be matched by the pattern: 16 if
    // the pattern holds the whole name, more than any value otherwise (so
    // that one comparison decides both).
    std::size_t pattern_room = static_cast<std::size_t>(-1);
    bool nullable = false;
    plan::column_type type = plan::column_type::string;
    int precision = 0, scale = 0;  // DECIMAL's
    std::size_t end = 0;           // subtree_end(i)
  };
  const fast_node& fast(std::size_t i) const noexcept { return fast_[i]; }
  // Bit n is set if a member directly inside `parent` (a ROW's node, or
  // `top`) has a name of n bytes (bit 63: 63 or more), so that most
  // undeclared keys are known as such by their length alone.
  std::uint64_t member_lengths(std::size_t parent) const noexcept {
    return parent == top ? top_lengths_ : nodes_[parent].member_lengths;
  }
  const fast_node* fast_nodes() const noexcept { return fast_.data(); }

 private:
  struct node {
    std::vector<std::size_t> children;
    std::size_t end = 0;
    std::string name, json_path;
    bool ignore_unknown = false;
    std::uint64_t member_lengths = 0;
  };
  std::vector<plan::column> columns_;
  std::vector<node> nodes_;
  std::vector<std::size_t> top_;
  std::vector<std::size_t> metadata_;
  std::vector<fast_node> fast_;
  std::size_t max_value_bytes_;
  bool ignore_unknown_ = false;
  bool plain_names_ = true;
  bool flat_ = true;
  std::uint64_t top_lengths_ = 0;
};

// What a record carries besides its value, for the columns a version 2 schema
// takes from it. Views, valid while the record is. Headers are asked for by
// name, only for plans that read them: reading a consumed record's headers
// costs librdkafka an allocation, so the caller looks them up on demand
// (`header(source, name)` returns the last header of that name's value,
// nullopt if there is none or its value is null).
struct record_metadata {
  std::optional<std::string_view> key;
  std::optional<std::int64_t> timestamp;
  std::int32_t partition = 0;
  std::int64_t offset = 0;
  const void* source = nullptr;
  std::optional<std::string_view> (*header)(const void* source, const std::string& name) = nullptr;
};

class decode_state;

// decode's two paths, exposed for the differential fuzzer
// (test/fuzz/fuzz_record.cpp) and for tests that check the fast path is
// taken; everything else calls decode. fast_decode returns false, without a
// diagnostic, wherever it gives up (including an empty or oversized value);
// reference_decode is the complete decode on its own.
namespace detail {
bool fast_decode(const decode_definition& def, decode_state& state, std::string_view value, row& out);
bool reference_decode(const decode_definition& def, decode_state& state, std::string_view value, row& out,
                      diagnostic& error);
}  // namespace detail

// Per-pipeline mutable state: the parser, its scratch buffers and the fast
// path's record of the columns seen. Movable (the
// parser lives behind a pointer allocated once), not copyable, not shareable
// between threads.
class decode_state {
 public:
  decode_state();
  ~decode_state();
  decode_state(decode_state&&) noexcept;
  decode_state& operator=(decode_state&&) noexcept;
  decode_state(const decode_state&) = delete;
  decode_state& operator=(const decode_state&) = delete;

 private:
  struct impl;
  friend bool detail::fast_decode(const decode_definition&, decode_state&, std::string_view, row&);
  friend bool detail::reference_decode(const decode_definition&, decode_state&, std::string_view, row&,
                                       diagnostic&);
  std::unique_ptr<impl> impl_;
};

// Decodes `value` into `out` (resized to the schema's column count if needed).
// Returns true on success. On false, `error` describes the first problem and
// `out` holds unspecified partial data. A STRING slot of `out` may view the
// bytes of `value`: use the row only while they live (see row.hpp). Allocates
// nothing in steady state on success (a string written without escapes is
// not copied; one with escapes reuses the capacity of its slot's storage).
[[nodiscard]] bool decode(const decode_definition& def, decode_state& state, std::string_view value, row& out,
                          diagnostic& error);

// Fills the slots of the metadata columns (decode_definition::metadata_columns)
// from `meta`. Refused, with these codes: unexpected_null (no key, or no
// such header, for a column that is not nullable), invalid_utf8 (a key or
// header read as STRING that is not UTF-8), wrong_type (a key read as BIGINT
// that is not a decimal integer in range, or as JSON that is not JSON).
[[nodiscard]] bool decode_metadata(const decode_definition& def, const record_metadata& meta, row& out,
                                   diagnostic& error);

}  // namespace streamt::operators
