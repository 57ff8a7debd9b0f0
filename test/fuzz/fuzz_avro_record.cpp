// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// fuzz_avro_record: Avro body bytes through the decoder of fixed writer and
// reader schema pairs: the same schema (records, unions, arrays, maps,
// enums, fixed, decimals, timestamps, a recursive record), and an older
// writer read with promotions, an alias and defaults.
//
// Invariants beyond "no crash, no sanitizer report, no exception":
// - a refusal is a phase::record diagnostic with a documented code and a
//   message that starts with the column's JSON path and ends with the byte;
// - an accepted body fills every column: a DECIMAL within its precision, a
//   TIMESTAMP within the years 0001 to 9999, a DOUBLE finite, a STRING
//   valid UTF-8, a JSON column text Boost.JSON parses;
// - the same input decodes the same way again after another (no state
//   carried between records);
// - for a flat record, the decoder's program and its walk agree: the same
//   verdict and the same slots.
#include "test/fuzz/fuzz_support.hpp"

#include "operators/avro_decode.hpp"
#include "plan/avro_resolve.hpp"
#include "plan/avro_schema.hpp"
#include "plan/utf8.hpp"

#include <boost/json/parse.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

namespace streamt::fuzz {

namespace {

namespace avro = plan::avro;

constexpr const char* every_type = R"({"type": "record", "name": "Every", "namespace": "f", "fields": [
  {"name": "id", "type": "long"},
  {"name": "small", "type": "int"},
  {"name": "ok", "type": "boolean"},
  {"name": "ratio", "type": ["null", "float"]},
  {"name": "score", "type": "double"},
  {"name": "name", "type": ["string", "null"]},
  {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
  {"name": "wide", "type": {"type": "fixed", "name": "W", "size": 9, "logicalType": "decimal", "precision": 20, "scale": 4}},
  {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
  {"name": "kind", "type": {"type": "enum", "name": "K", "symbols": ["A", "B", "C"]}},
  {"name": "raw", "type": "bytes"},
  {"name": "tags", "type": {"type": "array", "items": "string"}},
  {"name": "attrs", "type": {"type": "map", "values": ["null", "long", "string"]}},
  {"name": "inner", "type": ["null", {"type": "record", "name": "In", "fields": [
      {"name": "x", "type": "int"}, {"name": "f", "type": "W"}]}]},
  {"name": "list", "type": {"type": "record", "name": "Node", "fields": [
      {"name": "v", "type": "long"}, {"name": "next", "type": ["null", "Node"]}]}}
]})";

constexpr const char* old_writer = R"({"type": "record", "name": "Old", "namespace": "f", "fields": [
  {"name": "id", "type": "int"},
  {"name": "gone", "type": {"type": "array", "items": "double"}},
  {"name": "name", "type": ["null", "string"]},
  {"name": "kind", "type": {"type": "enum", "name": "K", "symbols": ["A", "B", "D"]}},
  {"name": "score", "type": "float"}
]})";

constexpr const char* new_reader =
    R"({"type": "record", "name": "New", "namespace": "f", "aliases": ["f.Old"], "fields": [
  {"name": "id", "type": "long"},
  {"name": "name", "type": ["null", "string"]},
  {"name": "kind", "type": {"type": "enum", "name": "K", "symbols": ["A", "B", "C"], "default": "C"}},
  {"name": "score", "type": "double"},
  {"name": "added", "type": ["null", "string"], "default": null},
  {"name": "fee", "type": {"type": "bytes", "logicalType": "decimal", "precision": 6, "scale": 2}, "default": "\u0001"}
]})";

// A flat record of scalars and nullable scalars, read with promotions, an
// enum default and an added field's default: what the decoder's program
// reads, compared with its walk.
constexpr const char* flat_writer = R"({"type": "record", "name": "Flat", "fields": [
  {"name": "id", "type": "string"},
  {"name": "n", "type": "int"},
  {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
  {"name": "big", "type": ["null", {"type": "fixed", "name": "B", "size": 3, "logicalType": "decimal", "precision": 6, "scale": 0}]},
  {"name": "at", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}]},
  {"name": "us", "type": {"type": "long", "logicalType": "timestamp-micros"}},
  {"name": "kind", "type": {"type": "enum", "name": "K", "symbols": ["A", "B", "D"]}},
  {"name": "ratio", "type": ["float", "null"]},
  {"name": "score", "type": "double"},
  {"name": "ok", "type": ["null", "boolean"]},
  {"name": "dropped", "type": "string"},
  {"name": "also_dropped", "type": "double"}
]})";

constexpr const char* flat_reader = R"({"type": "record", "name": "Flat", "fields": [
  {"name": "id", "type": "string"},
  {"name": "n", "type": "double"},
  {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
  {"name": "big", "type": ["null", {"type": "fixed", "name": "B", "size": 3, "logicalType": "decimal", "precision": 6, "scale": 0}]},
  {"name": "at", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}]},
  {"name": "us", "type": {"type": "long", "logicalType": "timestamp-micros"}},
  {"name": "kind", "type": {"type": "enum", "name": "K", "symbols": ["A", "B", "C"], "default": "C"}},
  {"name": "ratio", "type": ["null", "double"]},
  {"name": "score", "type": "double"},
  {"name": "ok", "type": ["null", "boolean"]},
  {"name": "added", "type": "long", "default": 42}
]})";

struct fixture {
  plan::schema columns;
  std::optional<operators::avro_decoder> decoder;
  std::size_t nodes = 0;
};

fixture make(const char* writer_text, const char* reader_text) {
  auto writer = avro::parse_schema(writer_text);
  auto reader = avro::parse_schema(reader_text);
  if (!writer || !reader) violated("a fixed schema of fuzz_avro_record does not parse", writer_text);
  fixture f;
  f.columns.columns = avro::to_columns(*reader)->columns;
  auto d = operators::avro_decoder::build(f.columns, *reader, *writer, avro::everything);
  if (!d) violated("a fixed decoder of fuzz_avro_record does not build", reader_text, d.error().message);
  f.decoder.emplace(std::move(*d));
  f.nodes = plan::flatten(f.columns).size();
  return f;
}

void check(const fixture& f, std::string_view input) {
  operators::row r(f.nodes);
  diagnostic e;
  const bool ok = f.decoder->decode(input, r, e);
  if (!ok) {
    check_diagnostic(e, input, {phase::record});
    static constexpr std::string_view codes[] = {"malformed_avro",    "schema_incompatible",
                                                 "invalid_utf8",      "invalid_decimal",
                                                 "invalid_timestamp", "double_out_of_range"};
    bool known = false;
    for (auto c : codes) known |= e.code == c;
    if (!known) violated("an Avro refusal has an undocumented code", input, e.code);
    if (e.message.rfind("$", 0) != 0 || e.message.find(" at byte ") == std::string::npos)
      violated("an Avro refusal does not name its column and byte", input, e.message);
  } else {
    const auto nodes = plan::flatten(f.columns);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const auto& s = r.slots[i];
      if (s.is_null) continue;
      const plan::column& c = *nodes[i].column;
      switch (c.type) {
        case plan::column_type::decimal: {
          plan::int128 limit = 1;
          for (int k = 0; k < c.precision; ++k) limit *= 10;
          if (s.decimal >= limit || s.decimal <= -limit)
            violated("a DECIMAL exceeds its precision", input, c.name);
          break;
        }
        case plan::column_type::timestamp:
          if (s.bigint < plan::min_timestamp_millis || s.bigint > plan::max_timestamp_millis)
            violated("a TIMESTAMP is out of range", input, c.name);
          break;
        case plan::column_type::double_:
          if (!std::isfinite(s.dbl)) violated("a DOUBLE is not finite", input, c.name);
          break;
        case plan::column_type::string:
          if (plan::first_invalid_utf8(s.string) != std::string_view::npos)
            violated("a STRING is not UTF-8", input, c.name);
          break;
        case plan::column_type::json: {
          // The column nests at most max_avro_datum_depth levels; the parse
          // allows a few more so that the bound itself is what is tested.
          boost::json::parse_options options;
          options.max_depth = operators::max_avro_datum_depth + 2;
          boost::system::error_code ec;
          (void)boost::json::parse(s.string, ec, {}, options);
          if (ec) violated("a JSON column's text does not parse", input, std::string(s.string));
          break;
        }
        default:
          break;
      }
    }
  }
  // Again, after another record: the same verdict.
  operators::row other(f.nodes);
  diagnostic e2;
  (void)f.decoder->decode(std::string_view("\x02", 1), other, e2);
  diagnostic e3;
  if (f.decoder->decode(input, other, e3) != ok || e3.message != (ok ? std::string() : e.message))
    violated("the same Avro body decodes differently the second time", input);
}

// The program against the walk: the same verdict and the same slots.
void differential(const fixture& f, std::string_view input) {
  if (!f.decoder->has_program()) violated("the flat fixture has no program", input);
  operators::row by_program(f.nodes), by_walk(f.nodes);
  diagnostic e;
  const bool program = f.decoder->decode_by_program(input, by_program);
  const bool walk = f.decoder->decode_by_walk(input, by_walk, e);
  if (program != walk)
    violated(
        program ? "the program accepts what the walk refuses" : "the program refuses what the walk accepts",
        input, e.message);
  if (!walk) return;
  for (std::size_t i = 0; i < f.nodes; ++i) {
    const auto& a = by_program.slots[i];
    const auto& b = by_walk.slots[i];
    const bool same =
        a.is_null == b.is_null &&
        (a.is_null || (a.bigint == b.bigint && a.boolean == b.boolean && a.string == b.string &&
                       a.decimal == b.decimal && (a.dbl == b.dbl || (a.dbl != a.dbl && b.dbl != b.dbl))));
    if (!same) violated("the program and the walk read a slot differently", input, std::to_string(i));
  }
}

}  // namespace

void avro_record_one_input(std::string_view input) {
  static const fixture same = make(every_type, every_type);
  static const fixture evolved = make(old_writer, new_reader);
  static const fixture flat = make(flat_writer, flat_reader);
  check(same, input);
  check(evolved, input);
  check(flat, input);
  differential(flat, input);
}

}  // namespace streamt::fuzz

#ifdef STREAMT_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  streamt::fuzz::avro_record_one_input(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
#endif
