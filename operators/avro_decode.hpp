// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// decode for Avro: the body of a registry-framed record (the bytes after its
// five-byte header) → the typed row, for one writer schema read as the
// plan's pinned reader schema.
//
// An avro_decoder is built once per writer schema (once per registry id)
// from plan::avro::resolve's steps, and kept; per record it walks the bytes
// once. The plan's columns are the reader schema's fields
// (plan::avro::to_columns), so each reader field the plan reads has a slot:
// a scalar is read straight into it (an int promoted to a long or a double
// as the resolution says, rounded to 32 bits when the reader's is a float,
// a string viewed in place after its UTF-8 is checked, an enum as the
// reader's symbol, a decimal's two's-complement bytes as its unscaled value,
// a timestamp-micros floored to milliseconds); a JSON column (array, map,
// union, bytes, ...) is written as compact JSON into the slot's storage,
// which keeps its capacity, so a steady stream of records allocates nothing.
// Fields the plan does not read are skipped by their lengths; fields the
// writer lacks take the reader's defaults, prepared when the decoder is
// built.
//
// Failures fill a diagnostic (phase::record) naming the column's JSON path
// and the byte offset within the body:
//   malformed_avro        the bytes do not hold a datum of the writer's
//                         schema: a varint longer than its type allows or
//                         running past the end, a length beyond the bytes
//                         left, a union index out of range, a boolean byte
//                         other than 0 or 1, bytes left over after the
//                         record, nesting deeper than max_avro_datum_depth
//   schema_incompatible   a datum the reader cannot take although the
//                         schemas resolve: a union branch or an enum symbol
//                         the reader's schema lacks (the message says which)
//   invalid_utf8          a string that is not UTF-8
//   invalid_decimal       a decimal with more digits than the column's
//                         precision
//   invalid_timestamp     a time outside the years 0001 to 9999
//   double_out_of_range   a float or double that is NaN or infinite

#include "operators/row.hpp"
#include "plan/avro_resolve.hpp"
#include "plan/avro_schema.hpp"
#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::operators {

// How deep arrays, maps and records may nest inside one datum: a recursive
// schema (a linked list) allows any depth, and the walk is recursive. The
// JSON decoder's bound on a whole document (Boost.JSON's default), so a JSON
// column read from Avro nests no deeper than one read from JSON could.
inline constexpr unsigned max_avro_datum_depth = 32;

// What `p` reads of the reader's fields: whole for a column it filters on
// or projects, part for the ROWs above one, nothing else.
plan::avro::needs avro_needs(const plan::plan& p);

class avro_decoder {
 public:
  // The decoder of `writer`'s data for a plan whose schema was mapped from
  // `reader` (its value columns are `reader`'s fields, in order, with the
  // metadata columns anywhere among them). Refused with schema_incompatible
  // if the writer cannot be resolved to the reader for what `wanted` reads,
  // or with plan_schema_mismatch if the plan's columns are not `reader`'s.
  static result<avro_decoder> build(const plan::schema& plan_schema, const plan::avro::schema& reader,
                                    const plan::avro::schema& writer, const plan::avro::needs& wanted);

  // Reads `body` into `out` (whose slots are the plan's nodes). False with
  // `error` filled on a bad record.
  bool decode(std::string_view body, row& out, diagnostic& error) const;

  // decode's two paths, for the differential fuzzer and the tests: the
  // program (false, without a reason, where it gives up or has none:
  // has_program()) and the walk (the complete decode on its own).
  bool has_program() const noexcept { return has_fast_; }
  bool decode_by_program(std::string_view body, row& out) const {
    return has_fast_ && fast_decode(body, out);
  }
  bool decode_by_walk(std::string_view body, row& out, diagnostic& error) const;

  // One slot value a reader's default sets (prepared at build).
  struct assignment {
    std::size_t node = 0;
    bool is_null = true;
    std::int64_t bigint = 0;
    bool boolean = false;
    double dbl = 0;
    plan::int128 decimal = 0;
    std::size_t text = 0;  // index into texts_ (STRING and JSON), or none
  };

 private:
  avro_decoder() = default;

  struct node_info {
    plan::column_type type = plan::column_type::string;
    bool nullable = false;
    int precision = 0, scale = 0;
    std::size_t end = 0;               // one past its subtree's last node
    std::vector<std::size_t> fields;   // ROW: the node of each reader field, in reader order
    std::string json_path;             // for messages
    std::vector<assignment> defaults;  // what the reader's default of this field sets
  };

  // The common record, read without the walk: a top-level record whose
  // fields are scalars, or unions of null and a scalar, each skipped or read
  // straight into its slot (the walk reads anything else, and gives the
  // diagnostic of any record this program refuses).
  enum class fast_code : std::uint8_t {
    skip_varint,
    skip_sized,
    skip_fixed,
    read_long,  // BIGINT from int or long
    read_millis,
    read_micros,  // TIMESTAMP
    read_double_from_integer,
    read_float_from_integer,  // a reader's float: rounded to 32 bits
    read_float,
    read_double,
    read_boolean,
    read_string,
    read_decimal_sized,
    read_decimal_fixed,
    read_enum,
  };
  struct fast_op {
    fast_code code = fast_code::skip_varint;
    std::int8_t null_branch = -1;    // a union's branch that makes the slot null
    std::int8_t value_branch = -1;   // a union's branch that holds the value; -1: no union
    std::uint8_t varint_bytes = 10;  // the longest varint the writer's type allows: 5 for int and enum
    std::uint32_t size = 0;          // skip_fixed, read_decimal_fixed
    int precision = 0;               // decimals
    std::size_t node = 0;
    const std::vector<std::int32_t>* symbols = nullptr;  // read_enum: writer index to reader index
    const std::vector<std::string>* names = nullptr;     // read_enum: the reader's symbols
  };
  bool fast_decode(std::string_view body, row& out) const;
  void compile_fast();

  friend class avro_walk;
  std::vector<fast_op> fast_;
  bool has_fast_ = false;
  plan::avro::schema reader_;
  plan::avro::schema writer_;
  plan::avro::resolution steps_;
  std::vector<node_info> nodes_;
  std::vector<std::size_t> top_;    // the node of each root field, in reader order
  std::vector<std::string> texts_;  // defaults' strings and JSON texts
  // Per reader record type, each field's default as a JSON column writes it.
  std::vector<std::vector<std::string>> default_json_;
};

}  // namespace streamt::operators
