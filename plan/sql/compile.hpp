// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// SQL text → plan (version 1, or 2 when the schema needs it; a file of
// INSERT INTO statements is a routed plan, version 2). The phases are
// lex → parse → bind (names and types against the schema) → plan. Each
// returns a diagnostic with line:column naming the construct and saying what
// the subset allows instead.

#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::plan {

struct compile_options {
  std::string application_id;
  std::string sink_topic;
  streamt::plan::on_invalid on_invalid = streamt::plan::on_invalid::fail;
  std::string dead_letter_topic{};  // with on_invalid dead_letter
  // The plans the new one succeeds, nearest first (plan::plan::supersedes).
  std::vector<std::string> supersedes{};
  // The sink's format; unset, it follows the source's (an Avro source, an
  // Avro sink). An Avro sink's schema is derived and pinned (plan::sink).
  std::optional<streamt::plan::sink_format> sink_format{};
  // INSERT INTO statements only (a single SELECT refuses them, code
  // unrouted_without_routes): what happens to a record no route takes.
  // Unset: not chosen, so dropped and counted; empty: dropped, chosen
  // explicitly (--unrouted drop); a topic: written there (--unrouted-topic).
  std::optional<std::string> unrouted_topic{};
  // How a BIGINT PARTITION BY column is written as a key; unset, string.
  // Refused (needless_key_format) without a BIGINT PARTITION BY column: the
  // plan would carry a choice that means nothing.
  std::optional<streamt::plan::key_format> key_format{};
};

// The compile errors that are about the options given for the query, not
// about the query: the command line is wrong for it (exit 2, usage).
// missing_sink_topic (a SELECT without a sink topic), sink_topic_with_routes
// (a sink topic for INSERT INTO statements), unrouted_without_routes,
// needless_key_format.
bool is_option_error(std::string_view code) noexcept;

// SQL text longer than this is refused (sql_too_large) before it is lexed, so
// the cost of a rejected input is bounded. The parser is a loop, not a
// recursive descent, so no input can exhaust the stack.
inline constexpr std::size_t max_sql_bytes = 64 * 1024;

result<plan> compile(std::string_view sql, const schema& source, const compile_options& options);

// The bound query written back as normalised SQL: keywords upper case,
// `AS alias` only where the alias differs, literals in canonical form
// (`'it''s'`, `-5`, `TRUE`), conditions joined by AND, no trailing `;`.
// Paths are written as dot paths (after.amount, quoted segments where
// needed); DECIMAL literals at the column's scale (12.50), DOUBLE literals in
// the shortest form that reads back as the same double, TIMESTAMP literals
// as TIMESTAMP '2026-12-05T10:00:00.000Z'.
// A routed plan is its statements, each INSERT INTO <sink> SELECT ... FROM
// ... [WHERE ...] [PARTITION BY <column>], joined by ";\n".
// Used by `streamt explain` and by the golden SQL tests.
std::string to_sql(const plan& p);

// One literal of a condition on column `of` as to_sql writes it.
std::string literal_sql(const literal& value, const column& of);

}  // namespace streamt::plan
