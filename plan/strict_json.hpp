// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Parsing user-written JSON (schemas, plans) strictly: one document, no
// duplicate keys anywhere, no comments, valid UTF-8, bounded depth and size.
// Boost.JSON's DOM parser silently keeps one of two duplicate keys; a plan
// that says `"op": ">=", "op": "<"` must be refused, not half-read.

#include "plan/diagnostic.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <string_view>

namespace streamt::plan {

inline constexpr std::size_t max_document_bytes = 1 << 20;  // 1 MiB
// A schema of ROW columns nested max_row_depth (16) deep nests 33 levels,
// and a plan holding it one more; a few to spare, and no more.
inline constexpr std::size_t max_document_depth = 40;

// Parses `text` into a DOM. Errors carry line:column and `code` values
// `malformed_json`, `duplicate_key` (with the JSON path of the key),
// `too_large`, `too_deep`. `what` names the document in messages ("schema",
// "plan") and sets the diagnostic's phase.
// `max_depth` is raised only for documents whose format nests deeper by
// nature (an Avro schema spends three levels on each nested record).
result<boost::json::value> parse_strict_json(std::string_view text, streamt::phase what,
                                             std::size_t max_depth = max_document_depth);

// A 1-based position in a text. `column` counts UTF-8 characters (not bytes)
// from the start of the line, so it matches what an editor shows.
struct text_position {
  std::size_t line = 1;
  std::size_t column = 1;
};

// The position of byte `offset` in `text` (offset == text.size() is the end).
text_position position_at(std::string_view text, std::size_t offset) noexcept;

}  // namespace streamt::plan
