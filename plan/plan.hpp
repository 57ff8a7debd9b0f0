// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The plan model: what `streamt compile` produces and what the engine runs.
// It is plain data, validated once (by the compiler or by the plan loader) and
// immutable afterwards. Operators are built from it; nothing else is.
//
// Version 1 plans have flat schemas of STRING, BIGINT and BOOLEAN columns.
// Version 2 adds DOUBLE, DECIMAL(p,s), TIMESTAMP, JSON and nested ROW columns,
// the schema's tombstone and changelog choices, Avro sources and Avro sinks.
// A plan is written as version 2 only when it uses one of these
// (required_version), so every plan that version 1 could express keeps its
// version and its digest.

#include "plan/values.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace streamt::plan {

// The plan versions this engine runs, oldest to newest.
inline constexpr int oldest_plan_version = 1;
inline constexpr int newest_plan_version = 2;

enum class column_type { string, bigint, boolean, double_, decimal, timestamp, json, row };

// "STRING", "BIGINT", ...: the spelling used in schemas, plans and messages
// (a DECIMAL's precision and scale are added by type_name).
constexpr std::string_view to_string(column_type t) noexcept {
  switch (t) {
    case column_type::string:
      return "STRING";
    case column_type::bigint:
      return "BIGINT";
    case column_type::boolean:
      return "BOOLEAN";
    case column_type::double_:
      return "DOUBLE";
    case column_type::decimal:
      return "DECIMAL";
    case column_type::timestamp:
      return "TIMESTAMP";
    case column_type::json:
      return "JSON";
    case column_type::row:
      return "ROW";
  }
  return "?";
}

// Types whose values have an order: the ones `<`, `<=`, `>`, `>=` apply to.
constexpr bool is_ordered(column_type t) noexcept {
  return t == column_type::bigint || t == column_type::double_ || t == column_type::decimal ||
         t == column_type::timestamp;
}

// Types a comparison with a literal applies to at all (JSON and ROW only take
// IS [NOT] NULL).
constexpr bool is_comparable(column_type t) noexcept {
  return t != column_type::json && t != column_type::row;
}

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

// The deepest nesting of ROW columns a schema may declare: a top-level
// column is at depth 1.
inline constexpr int max_row_depth = 16;

// Where a top-level column's value comes from: the record's value (the
// default), or its metadata (version 2): the key's bytes, the last header of
// a name, its timestamp, partition or offset. A metadata column is not looked
// for in the value; it is filtered on and projected like any other.
enum class column_source { value, key, header, timestamp, partition, offset };

struct column {
  std::string name;
  column_type type = column_type::string;
  bool nullable = false;
  int precision = 0;  // DECIMAL only: 1..38
  int scale = 0;      // DECIMAL only: 0..precision
  // ROW only: its columns, at least one, in the order the output writes them.
  std::vector<column> fields{};
  // ROW only: its own policy for undeclared members; unset, it inherits its
  // parent's (the schema's at the top).
  std::optional<streamt::plan::unknown_fields> unknown_fields{};
  column_source from = column_source::value;
  std::string header{};  // the header's name when `from` is header
  friend bool operator==(const column&, const column&) = default;
};

// The schema's spelling of `from`: "key", "header:NAME", "timestamp", ...
inline std::string from_text(const column& c) {
  switch (c.from) {
    case column_source::value:
      return "value";
    case column_source::key:
      return "key";
    case column_source::header:
      return "header:" + c.header;
    case column_source::timestamp:
      return "timestamp";
    case column_source::partition:
      return "partition";
    case column_source::offset:
      return "offset";
  }
  return "?";
}

// "DECIMAL(10,2)" for a decimal, to_string(type) otherwise.
inline std::string type_name(const column& c) {
  return c.type == column_type::decimal ? decimal_type_name(c.precision, c.scale)
                                        : std::string(to_string(c.type));
}

// What the run does with a record whose value is null (a tombstone).
// `drop` skips it (its offset still advances); `forward` writes a null-value
// record with the same key and headers to the sink, in order, inside the same
// transaction. Predicates are never evaluated for it: there is no value.
enum class tombstones { drop, forward };

constexpr std::string_view to_string(tombstones t) noexcept {
  return t == tombstones::forward ? "forward" : "drop";
}

// What the source topic is. `append`: a stream of events (version 1's only
// meaning). `upsert`: a table's changelog by key, as a compacted topic is:
// tombstones are forwarded, a record that does not pass the predicate is
// written as a tombstone of its key, and a record without a key is invalid.
// Unset: the plan did not choose, and a compacted source is refused at start.
enum class changelog { append, upsert };

constexpr std::string_view to_string(changelog c) noexcept {
  return c == changelog::upsert ? "upsert" : "append";
}

// An Avro source (version 2): values in the Confluent wire format (a zero
// byte, a 4-byte schema id, the Avro body), each read by its writer's schema
// as this reader schema, whose fields are the schema's value columns
// (plan::avro::to_columns). Pinned in the plan, so that what a plan reads
// does not change when a producer registers a new version.
struct avro_source {
  std::string schema;          // the reader schema, compact JSON as the plan writes it
  std::string canonical_form;  // its Parsing Canonical Form
  std::string fingerprint;     // CRC-64-AVRO of canonical_form: 16 hex digits, little-endian bytes
  std::string subject;         // the registry subject it was taken from; empty from a file
  int version = 0;             // that subject's version; 0 from a file
  friend bool operator==(const avro_source&, const avro_source&) = default;
};

// How a JSON source's values are laid out. `json`: each value is the JSON
// object itself. `json_registry` (version 2): each value is framed as
// Confluent's JsonSchemaSerializer writes it, a zero byte and a 4-byte
// big-endian schema id before the JSON; the frame is checked and stripped,
// and the id is not looked up: the plan's schema decides what is read, as
// for plain JSON. Part of the digest (a plan reading framed values refuses
// plain ones, and the reverse).
enum class value_format { json, json_registry };

constexpr std::string_view to_string(value_format f) noexcept {
  return f == value_format::json_registry ? "json-registry" : "json";
}

// The explicit source schema: never inferred from data.
struct schema {
  std::string source;  // the name used in FROM
  std::string topic;   // the Kafka topic it is read from
  std::vector<column> columns;
  streamt::plan::unknown_fields unknown_fields = unknown_fields::reject;
  streamt::plan::tombstones tombstones = tombstones::drop;
  std::optional<streamt::plan::changelog> changelog{};
  // Set for an Avro source; the values are JSON objects otherwise.
  std::optional<avro_source> avro{};
  // A JSON source's framing; always json for an Avro source.
  streamt::plan::value_format value_format = value_format::json;

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
// The alternative always matches the column's type (the binder guarantees
// it): int64 for BIGINT, bool, string, double for DOUBLE, decimal_value at the
// column's scale, timestamp_value.
using literal =
    std::variant<std::monostate, std::int64_t, bool, std::string, double, decimal_value, timestamp_value>;

// One column of the schema tree, flattened: the schema's columns and their
// fields in pre-order (a ROW, then its fields, then the next column), so that
// the top-level columns of a flat schema keep their indices. Conditions and
// projection items refer to columns by this index; the decoded row has one
// slot per node.
struct node {
  const plan::column* column = nullptr;               // into the schema it was built from
  std::vector<std::string> path;                      // names from the top: {"after", "amount"}
  std::size_t parent = static_cast<std::size_t>(-1);  // none for a top-level column
  std::vector<std::size_t> children;                  // ROW only: its fields' nodes, in order
  int depth = 1;                                      // 1 for a top-level column
  bool ignore_unknown = false;                        // ROW only: its effective policy
};

// The flattened tree of `s`. It points into `s`: rebuild it if `s` moves.
std::vector<node> flatten(const schema& s);

// True if the column at `i` can be null in a record: it is nullable, or a
// ROW it is inside is (a null ROW's fields are null). An output that
// declares nullability (an Avro sink's schema) declares it from this, not
// from the column's own flag.
bool may_be_null(const std::vector<node>& nodes, std::size_t i);

// The node whose path is exactly `path`, if any.
std::optional<std::size_t> find_path(const std::vector<node>& nodes, const std::vector<std::string>& path);

// "after.amount"; a segment that is not a plain identifier is double-quoted
// as SQL writes it ("payload.after.\"user-id\"").
std::string path_text(const std::vector<std::string>& path);

// One conjunct of the WHERE clause: `column op value`.
struct condition {
  std::size_t column = 0;  // index into flatten(schema)
  compare_op op = compare_op::eq;
  literal value;
  friend bool operator==(const condition&, const condition&) = default;
};

struct projection_item {
  std::size_t column = 0;   // index into flatten(schema)
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

// What the sink's values are. `json`: one compact JSON object per output
// (contract §4). `avro`: the Avro body of the schema derived from the
// projection (plan::avro::sink_schema), framed with the id that schema is
// registered under (the Confluent wire format). Keys pass through unchanged
// either way.
enum class sink_format { json, avro };

constexpr std::string_view to_string(sink_format f) noexcept {
  return f == sink_format::avro ? "avro" : "json";
}

// An Avro sink's schema, pinned in the plan (version 2): what the run
// registers under `subject` at start and frames every output with. Derived
// from the plan (avro::pin_sink_schema), never written by hand: the loader
// refuses a plan whose pinned schema is not what its projection derives.
struct avro_sink {
  std::string schema;          // the writer schema, compact JSON (what is registered)
  std::string canonical_form;  // its Parsing Canonical Form
  std::string fingerprint;     // CRC-64-AVRO of canonical_form: 16 hex digits, little-endian bytes
  std::string subject;         // "<sink topic>-value": the registry's topic-name strategy
  friend bool operator==(const avro_sink&, const avro_sink&) = default;
};

struct sink {
  sink_format format = sink_format::json;
  std::optional<avro_sink> avro{};  // set exactly when format is avro
  friend bool operator==(const sink&, const sink&) = default;
};

// How a route's PARTITION BY column becomes the output record's key
// (version 2). A STRING column is always its UTF-8 bytes; a BIGINT column is
// its decimal text under `string`, and under `long` the 8 big-endian bytes
// Kafka's LongSerializer writes, so that Java consumers with that
// deserializer read it back.
enum class key_format { string, long_ };

constexpr std::string_view to_string(key_format k) noexcept {
  return k == key_format::long_ ? "long" : "string";
}

// One statement `INSERT INTO <sink> SELECT ... FROM <source> [WHERE ...]
// [PARTITION BY <column>]` of a routed plan (version 2): where the records it
// takes go, which it takes, and what of them it writes. A record goes to
// every route whose predicate it passes, each once.
struct route {
  std::string sink_topic;
  std::vector<condition> predicate;  // AND of all; empty takes every record
  std::vector<projection_item> projection;
  // The node whose value becomes the output key; unset, the input key passes
  // unchanged. Only a STRING or BIGINT column.
  std::optional<std::size_t> partition_by{};
  friend bool operator==(const route&, const route&) = default;
};

// How many routes a plan has at most: one transaction writes every output of
// a record, so each route costs every record a predicate; beyond this the
// plan is better split into applications.
inline constexpr std::size_t max_routes = 64;

// How many predecessors a plan names at most: enough for any history of
// updates a person reviews, small enough that the list stays readable.
inline constexpr std::size_t max_supersedes = 64;

struct plan {
  int version = oldest_plan_version;
  streamt::plan::identity identity;
  streamt::plan::schema schema;
  std::vector<condition> predicate;  // AND of all; empty means every record passes
  std::vector<projection_item> projection;
  // The plans this one succeeds on its application id, by digest, the one it
  // directly replaces first (`streamt compile --supersedes OLD`), then that
  // one's own predecessors, at most max_supersedes. Part of the digest: a
  // reviewer sees what a plan may take over from.
  std::vector<std::string> supersedes;
  // What the sink's values are. A plan with a JSON source and a JSON sink
  // does not write it (every plan compiled before it existed keeps its
  // digest); any other plan states it.
  streamt::plan::sink sink{};
  // A routed plan (version 2): its routes in the order written, at least one.
  // Empty for a plan of one SELECT, whose route is identity.sink_topic,
  // predicate and projection (routes_of gives either as routes). A routed
  // plan leaves those three empty.
  std::vector<route> routes{};
  // A routed plan's records that no route takes: written unchanged to this
  // topic inside the transaction, with headers saying why; empty, dropped
  // and counted.
  std::string unrouted_topic{};
  // How a BIGINT PARTITION BY column is written as a key.
  streamt::plan::key_format key_format = key_format::string;
  friend bool operator==(const plan&, const plan&) = default;
};

// The plan's routes: its own for a routed plan, else the one route its
// single SELECT is. What the stages, the sink and the reports work from, so
// that both kinds of plan take one path.
std::vector<route> routes_of(const plan& p);

// The distinct sink topics of the plan's routes, in the order first written.
std::vector<std::string> sink_topics(const plan& p);

// The sink topics joined by `separator`: one topic for a single SELECT.
// A topic name holds no ',' or ' ', so the text reads back unambiguously;
// what a state directory's identity file, metrics labels and messages show.
std::string sink_topics_text(const plan& p, std::string_view separator = ",");

// How reports, metrics and messages name route `i` of `routes`: its sink
// topic, or "<sink>#k" (k from 1, in the order written) when several routes
// write to that sink.
std::string route_name(const std::vector<route>& routes, std::size_t i);

// True for a plan written as INSERT INTO statements.
inline bool is_routed(const plan& p) noexcept { return !p.routes.empty(); }

// The lowest version that can express `p`: 2 if its schema uses a type,
// a ROW, a tombstone or changelog choice that version 1 lacks, or its source
// or sink is Avro, else 1. The compiler writes this version; the loader
// refuses a plan whose recorded version differs, so one meaning has one
// digest.
int required_version(const plan& p);

// Why `p` needs version 2, for messages: "column 'price' is DECIMAL(10,2)".
std::string version_2_reason(const plan& p);

}  // namespace streamt::plan
