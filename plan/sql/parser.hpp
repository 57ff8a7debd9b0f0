// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Phase 2 of the SQL compiler: tokens → a small AST of exactly the subset
//   SELECT <col> [AS <alias>], ... FROM <source> [WHERE <pred> AND ...] [;]
// or one or more routes (plan version 2)
//   INSERT INTO <sink> SELECT ... FROM <source> [WHERE ...] [PARTITION BY <col>] [; ...]
// where a column is a dot path of names (after.amount, payload."user-id").
// INSERT, INTO and PARTITION are not reserved words: they are recognised
// only where no name can stand (a statement's start, after INSERT, after
// the source or the predicate and before BY), so that columns named
// `partition` or `insert` keep working unquoted.
// Names are not resolved here (that is the binder's job); everything the
// subset does not have is rejected with a specific code and a message saying
// what to write instead, at the position of the construct.

#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"
#include "plan/sql/lexer.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace streamt::plan::sql {

struct name_ref {
  std::string name;  // as the query means it: a quoted name without its quotes; a path's last segment
  position pos;
  bool quoted = false;
  // A column reference's segments from the top, one for a top-level column
  // ({"after", "amount"} for after.amount), each where it was written; for a
  // source or an alias just `name`.
  std::vector<std::string> path{};
  std::vector<position> segment_pos{};

  // The reference as a query writes it ("after.amount", "\"user-id\"").
  std::string written() const { return path_text(path.empty() ? std::vector<std::string>{name} : path); }
};

struct select_item {
  name_ref column;
  std::optional<name_ref> alias;  // only when written with AS
};

// A number with a fraction or an exponent, exactly as written, sign included
// ("-12.50", "1e3"): whether it fits depends on the column (exactly for
// DECIMAL, to the nearest value for DOUBLE, not at all for BIGINT), which only
// the binder knows.
struct decimal_text {
  std::string text;
  friend bool operator==(const decimal_text&, const decimal_text&) = default;
};

// A literal as written; its type is checked against the column by the binder.
// TIMESTAMP '...' is read here (it means the same instant whatever the
// column), so its value arrives checked.
struct literal_ref {
  std::variant<std::int64_t, bool, std::string, decimal_text, timestamp_value> value;
  position pos;
  std::string text;  // source spelling, for messages ("'50'", "-3", "TRUE", "12.5", "TIMESTAMP '...'")
};

struct predicate_ref {
  name_ref column;
  compare_op op = compare_op::eq;
  position op_pos;
  std::optional<literal_ref> value;  // absent for IS [NOT] NULL
};

struct query {
  std::vector<select_item> projection;
  name_ref source;
  std::vector<predicate_ref> predicate;
  // INSERT INTO only: the sink topic as meant (unquoted), where it was
  // written, and where the statement starts (the INSERT).
  std::optional<name_ref> sink{};
  position start{};
  // INSERT INTO only: the PARTITION BY column, if any.
  std::optional<name_ref> partition_by{};
};

// The statements of a query file: one SELECT (its `sink` unset), or one to
// plan::max_routes INSERT INTO statements (each with its `sink`), never both.
using statements = std::vector<query>;

// Errors (phase::parse) include: empty_statement, unsupported_statement,
// unsupported_star, unsupported_distinct, unsupported_expression,
// unsupported_function, unsupported_aggregate, unsupported_cast,
// unsupported_case, unsupported_subquery, unsupported_window, unsupported_or,
// unsupported_not, unsupported_between, unsupported_in, unsupported_like,
// unsupported_is, unsupported_operator, unsupported_join,
// unsupported_table_alias, unsupported_qualified_name (a qualified source),
// missing_name (a path with no name after a '.'), unsupported_group_by,
// unsupported_having, unsupported_order_by, unsupported_limit,
// unsupported_set_operation, unsupported_with, missing_as, missing_from,
// missing_column, missing_predicate, missing_comparison, missing_literal,
// trailing_comma, keyword_as_name, column_comparison, literal_on_left,
// null_comparison, integer_out_of_range, invalid_timestamp (a TIMESTAMP '...'
// literal that is not an RFC 3339 time with an offset), multiple_statements,
// unexpected_token; and for INSERT INTO: mixed_statements (a SELECT and
// INSERT INTO in one file), missing_into, missing_sink, unquoted_topic_name
// (orders.eu or orders-eu without quotes), invalid_topic_name, too_many_routes,
// missing_semicolon (two INSERT statements without ';' between them),
// unsupported_column_list (INSERT INTO t (a, b)), unsupported_partition_by
// (PARTITION BY on a single SELECT, or of more than one column).
result<statements> parse(const std::vector<token>& tokens);

}  // namespace streamt::plan::sql
