// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Avro schemas in their JSON form, as an .avsc file or a Schema Registry
// holds them (the Avro 1.11 specification): parsed into a graph of types,
// written in Parsing Canonical Form, fingerprinted with CRC-64-AVRO, and
// mapped onto the plan's typed columns.
//
// The parser is as strict as the specification allows and no stricter: a
// schema a registry accepts must load. Attributes the specification does not
// define are metadata and are kept out of the way; a defined attribute of the
// wrong JSON type, an invalid name, a redefined or unknown name, a union
// holding a union or two branches of one type, or a default that does not
// match its field's type is refused with the JSON path of the problem. A
// logical type the specification does not know, or one whose parameters are
// invalid, is ignored, as the specification requires: the value is read as
// its underlying type.

#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::plan::avro {

enum class type_kind : std::uint8_t {
  null,
  boolean,
  int_,
  long_,
  float_,
  double_,
  bytes,
  string,
  record,
  enum_,
  array,
  map,
  union_,
  fixed
};

// "int", "record", ...: the specification's spelling.
std::string_view to_string(type_kind k) noexcept;

// The logical types of the specification that the mapping distinguishes;
// any other `logicalType` is ignored (`none`).
enum class logical_type : std::uint8_t {
  none,
  decimal,           // bytes or fixed
  uuid,              // string
  date,              // int: days since the epoch
  time_millis,       // int
  time_micros,       // long
  timestamp_millis,  // long: UTC
  timestamp_micros,  // long: UTC
  local_timestamp_millis,
  local_timestamp_micros,
  duration  // fixed(12)
};

std::string_view to_string(logical_type l) noexcept;

struct field {
  std::string name;
  std::vector<std::string> aliases;
  std::size_t type = 0;  // index into schema::types
  // The default, already checked against `type` (against its first branch
  // when it is a union), as the JSON the schema wrote.
  std::optional<boost::json::value> default_value{};
};

// One type of the graph. Named types (record, enum, fixed) appear once and
// are referred to by index wherever the schema names them, so a recursive
// record refers to itself; every other occurrence of a type is its own entry.
struct type {
  type_kind kind = type_kind::null;
  std::string name;                  // named types: the full name
  std::vector<std::string> aliases;  // named types: full names
  bool error = false;                // a record declared as "error"
  std::vector<field> fields;         // record
  std::vector<std::string> symbols;  // enum
  std::optional<std::string> enum_default{};
  std::size_t size = 0;               // fixed: bytes
  std::size_t items = 0;              // array: its items; map: its values
  std::vector<std::size_t> branches;  // union
  logical_type logical = logical_type::none;
  int precision = 0;  // decimal
  int scale = 0;      // decimal
};

struct schema {
  std::vector<type> types;  // types[0] is the schema itself
  const type& root() const { return types.front(); }
  const type& at(std::size_t i) const { return types.at(i); }
};

// How deep an Avro schema's JSON may nest: three levels per nested record
// ({"type": {"type": "record", "fields": [...]}}), and a real schema may
// nest records deeper than a plan's ROWs (those become JSON columns).
inline constexpr std::size_t max_schema_json_depth = 160;

// How many types a schema may hold: far beyond any real record, small enough
// that a hostile registry answer cannot make the engine allocate much.
inline constexpr std::size_t max_types = 10000;

// The schema in `json_text` (an .avsc file or a registry's `schema` member).
// Diagnostics have phase `schema` and a JSON path from `$`.
result<schema> parse_schema(std::string_view json_text);
result<schema> schema_from_json(const boost::json::value& v);

// The type at `i` for messages: "long (timestamp-millis)", "record
// shop.Payment", "union [null, string]", "bytes (decimal(10,2))".
std::string describe(const schema& s, std::size_t i);

// The Parsing Canonical Form of the specification: full names, only the
// attributes that matter for reading (name, type, fields, symbols, items,
// values, size) in that order, no whitespace. Logical types, defaults and
// aliases are not part of it.
std::string canonical_form(const schema& s);

// The CRC-64-AVRO (Rabin) fingerprint of `canonical`, the 64-bit value the
// specification defines (single-object encoding writes it little-endian).
std::uint64_t fingerprint(std::string_view canonical) noexcept;

// The fingerprint as 16 lowercase hex digits of its little-endian bytes: the
// order single-object encoding writes and Avro's own tools print.
std::string fingerprint_hex(std::uint64_t fp);

// How one Avro type became a column: `comparable` is false for the types
// the plan keeps as JSON (arrays, maps, unions other than [null, T], bytes
// and fixed without a decimal type, a decimal wider than 38 digits, a
// recursive reference, a record nested deeper than a ROW may be), and
// `avro_type` names the Avro type for messages ("array", "union [int,
// string]", "bytes (decimal(40,2))").
struct mapped_column {
  std::vector<std::string> path;
  std::string avro_type;
  bool comparable = true;
};

struct mapping {
  std::vector<column> columns;
  std::vector<mapped_column> notes;  // one per column and nested field, pre-order
};

// The columns of the record `s` is (the root must be a record: a Kafka
// value the plan reads is a row): record -> ROW, [null, T] -> nullable T,
// int/long -> BIGINT (date, time-* and local-timestamp-* too: their
// underlying number),
// float/double -> DOUBLE, decimal -> DECIMAL(p,s) up to 38 digits,
// timestamp-millis/micros -> TIMESTAMP, string/enum -> STRING (uuid too),
// boolean -> BOOLEAN, everything else -> JSON.
result<mapping> to_columns(const schema& s);

}  // namespace streamt::plan::avro
