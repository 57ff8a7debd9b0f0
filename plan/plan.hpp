// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The plan v1 model: what `streamt compile` produces and what the engine runs.
// It is plain data, validated once (by the compiler or by the plan loader) and
// immutable afterwards. Operators are built from it; nothing else is.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace streamt::plan {

inline constexpr int plan_version = 1;

enum class column_type { string, bigint, boolean };

// "STRING", "BIGINT", "BOOLEAN": the spelling used in schemas, plans and messages.
constexpr std::string_view to_string(column_type t) noexcept {
  switch (t) {
    case column_type::string:
      return "STRING";
    case column_type::bigint:
      return "BIGINT";
    case column_type::boolean:
      return "BOOLEAN";
  }
  return "?";
}

struct column {
  std::string name;
  column_type type = column_type::string;
  bool nullable = false;
  friend bool operator==(const column&, const column&) = default;
};

// The explicit source schema: never inferred from data.
// What the decoder does with a record member the schema does not declare.
// `reject` makes the record invalid (the default: a producer that starts
// writing a new field is noticed); `ignore` skips the member, still checking
// that it is well-formed JSON, so that upstream can add fields before the
// schema declares them. It is part of the plan and its digest: nothing is
// ignored that the plan does not say.
enum class unknown_fields { reject, ignore };

constexpr std::string_view to_string(unknown_fields u) noexcept {
  return u == unknown_fields::ignore ? "ignore" : "reject";
}

struct schema {
  std::string source;  // the name used in FROM
  std::string topic;   // the Kafka topic it is read from
  std::vector<column> columns;
  streamt::plan::unknown_fields unknown_fields = unknown_fields::reject;

  // Index of the column with exactly this name (case-sensitive), if any.
  std::optional<std::size_t> find(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (columns[i].name == name) return i;
    return std::nullopt;
  }
  friend bool operator==(const schema&, const schema&) = default;
};

enum class compare_op { eq, ne, lt, le, gt, ge, is_null, is_not_null };

// "=", "<>", "<", "<=", ">", ">=", "IS NULL", "IS NOT NULL".
constexpr std::string_view to_string(compare_op op) noexcept {
  switch (op) {
    case compare_op::eq:
      return "=";
    case compare_op::ne:
      return "<>";
    case compare_op::lt:
      return "<";
    case compare_op::le:
      return "<=";
    case compare_op::gt:
      return ">";
    case compare_op::ge:
      return ">=";
    case compare_op::is_null:
      return "IS NULL";
    case compare_op::is_not_null:
      return "IS NOT NULL";
  }
  return "?";
}

// A typed literal. monostate only for IS [NOT] NULL, which has no operand.
// The alternative always matches the column's type (the binder guarantees it).
using literal = std::variant<std::monostate, std::int64_t, bool, std::string>;

// One conjunct of the WHERE clause: `column op value`.
struct condition {
  std::size_t column = 0;  // index into schema::columns
  compare_op op = compare_op::eq;
  literal value;
  friend bool operator==(const condition&, const condition&) = default;
};

struct projection_item {
  std::size_t column = 0;   // index into schema::columns
  std::string output_name;  // the alias, or the column name
  friend bool operator==(const projection_item&, const projection_item&) = default;
};

// The fixed operator names. They are part of the identity so that a future
// plan version that renames or reorders stages is recognised as a different
// application; a changed predicate keeps them (the filter stage always
// exists, possibly with no conditions).
inline const std::vector<std::string>& operator_names() {
  static const std::vector<std::string> names{"decode", "filter", "project", "encode"};
  return names;
}

// What the run does with a record the decode stage refuses, or whose output
// the sink topic can never take. `fail` stops the run at it (exit 65, the
// records before it committed). `dead_letter` writes it, unchanged and with
// headers saying why, to the dead-letter topic inside the same transaction as
// the outputs and offsets, and goes on. Part of the identity: every instance
// of a group must agree on it, and a reviewer of the plan sees where bad
// records go.
enum class on_invalid { fail, dead_letter };

constexpr std::string_view to_string(on_invalid o) noexcept {
  return o == on_invalid::dead_letter ? "dead-letter" : "fail";
}

struct identity {
  std::string application_id;  // consumer group id, transactional id prefix
  std::string source_topic;
  std::string sink_topic;
  std::vector<std::string> operators = operator_names();
  streamt::plan::on_invalid on_invalid = on_invalid::fail;
  std::string dead_letter_topic{};  // set exactly when on_invalid is dead_letter
  friend bool operator==(const identity&, const identity&) = default;
};

// How many predecessors a plan names at most: enough for any history of
// updates a person reviews, small enough that the list stays readable.
inline constexpr std::size_t max_supersedes = 64;

struct plan {
  int version = plan_version;
  streamt::plan::identity identity;
  streamt::plan::schema schema;
  std::vector<condition> predicate;  // AND of all; empty means every record passes
  std::vector<projection_item> projection;
  // The plans this one succeeds on its application id, by digest, the one it
  // directly replaces first (`streamt compile --supersedes OLD`), then that
  // one's own predecessors, at most max_supersedes. Part of the digest: a
  // reviewer sees what a plan may take over from.
  std::vector<std::string> supersedes;
  friend bool operator==(const plan&, const plan&) = default;
};

}  // namespace streamt::plan
