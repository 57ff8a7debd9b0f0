// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The Avro decoder against fastavro: each case of test/data/avro_resolution/
// holds a datum's bytes as fastavro wrote them with the writer's schema and
// the value fastavro read with the reader's (generate.py); the decoder built
// for the same pair must read the same value into the plan's columns, or
// fail the datum where fastavro did.

#include "operators/avro_decode.hpp"
#include "plan/avro_resolve.hpp"
#include "plan/avro_schema.hpp"
#include "test/support/slot_json.hpp"
#include "test/unit/plan/case_files.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace data = boost::unit_test::data;
namespace avro = streamt::plan::avro;
namespace json = boost::json;
namespace plan = streamt::plan;
using streamt::operators::avro_decoder;
using streamt::operators::row;

namespace {

std::filesystem::path cases_dir() { return streamt::test::data_dir("avro_resolution"); }

std::vector<std::string> cases() { return streamt::test::case_names("avro_resolution"); }

std::map<std::string, std::string> sidecar(const std::string& name) {
  return streamt::test::read_key_values("avro_resolution", name, ".expected");
}

using streamt::test::read_file;

std::string unhex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

std::string hex_of_code_points(const std::string& s) {
  // A JSON column of bytes holds one code point per byte.
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80)
      c = static_cast<unsigned char>(((c & 0x03) << 6) | (static_cast<unsigned char>(s[++i]) & 0x3F));
    out += digits[c >> 4];
    out += digits[c & 0xF];
  }
  return out;
}

avro::schema parsed(const json::value& v) {
  auto s = avro::parse_schema(json::serialize(v));
  BOOST_TEST_REQUIRE(s.has_value());
  return std::move(*s);
}

// The decoded slots of `columns` (starting at node `next`) as fastavro's
// plain values: numbers, strings, decimals as their text, bytes as hex.
json::value as_plain(const std::vector<plan::column>& columns, const row& r, std::size_t& next,
                     const avro::schema& reader, std::size_t record_type) {
  json::object o;
  const avro::type& rec = reader.types[record_type];
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const plan::column& c = columns[i];
    const std::size_t node = next++;
    const auto& s = r.slots.at(node);
    json::value v;
    if (c.type == plan::column_type::row) {
      std::size_t t = rec.fields[i].type;
      if (reader.types[t].kind == avro::type_kind::union_)
        for (std::size_t b : reader.types[t].branches)
          if (reader.types[b].kind == avro::type_kind::record) t = b;
      std::size_t inner = next;
      json::value fields = as_plain(c.fields, r, inner, reader, t);
      next = inner;
      v = s.is_null ? json::value(nullptr) : fields;
    } else {
      v = streamt::test::slot_json(c, s);
      // A JSON column of bytes: fastavro's sidecar gives them as hex.
      if (c.type == plan::column_type::json && v.is_string() &&
          reader.types[rec.fields[i].type].kind == avro::type_kind::bytes)
        v = json::string(hex_of_code_points(std::string(v.get_string())));
    }
    o[c.name] = v;
  }
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(avro_decoding)

BOOST_DATA_TEST_CASE(each_datum_reads_as_fastavro_reads_it, data::make(cases()), name) {
  const auto want = sidecar(name);
  if (want.at("verdict") == "schema_incompatible") return;  // no decoder: the resolver's test covers it
  const json::value pair = json::parse(read_file(cases_dir() / (name + ".json")));
  const auto writer = parsed(pair.at("writer"));
  const auto reader = parsed(pair.at("reader"));
  auto mapped = avro::to_columns(reader);
  BOOST_TEST_REQUIRE(mapped.has_value());
  plan::schema s;
  s.source = "t";
  s.topic = "t";
  s.columns = mapped->columns;
  auto decoder = avro_decoder::build(s, reader, writer, avro::everything);
  BOOST_TEST_REQUIRE(decoder.has_value(), (decoder ? std::string() : decoder.error().message));
  row r(plan::flatten(s).size());
  streamt::diagnostic error;
  const std::string body = unhex(want.at("bytes"));  // the row's strings view it
  const bool ok = decoder->decode(body, r, error);
  // Where the decoder has a program for the record, it reads the same.
  if (decoder->has_program()) {
    row again(r.slots.size());
    BOOST_TEST(decoder->decode_by_program(body, again) == ok);
  }
  if (want.at("verdict") == "datum_fails") {
    BOOST_TEST_REQUIRE(!ok);
    BOOST_TEST(error.code == "schema_incompatible");
    return;
  }
  BOOST_TEST_REQUIRE(ok, error.code << ": " << error.message);
  std::size_t next = 0;
  const json::value got = as_plain(s.columns, r, next, reader, 0);
  const json::value expected = json::parse(want.at("read"));
  BOOST_TEST(got == expected, json::serialize(got) << " against fastavro's " << json::serialize(expected));
}

BOOST_AUTO_TEST_CASE(a_truncated_or_overlong_body_is_malformed_with_its_position) {
  const auto s = avro::parse_schema(R"({"type": "record", "name": "R", "fields": [
      {"name": "id", "type": "long"}, {"name": "name", "type": "string"}]})");
  BOOST_TEST_REQUIRE(s.has_value());
  plan::schema ps;
  ps.columns = avro::to_columns(*s)->columns;
  auto d = avro_decoder::build(ps, *s, *s, avro::everything);
  BOOST_TEST_REQUIRE(d.has_value());
  row r(2);
  streamt::diagnostic e;
  using namespace std::string_literals;
  const std::string good =
      "\x02\x06"
      "abc"s;  // id 1, name "abc"; the row views it
  BOOST_TEST(d->decode(good, r, e));
  BOOST_TEST(r.slots[1].string == "abc");
  BOOST_TEST(!d->decode(std::string("\x02\x06"
                                    "ab",
                                    4),
                        r, e));
  BOOST_TEST(e.code == "malformed_avro");
  BOOST_TEST(e.message.find("$.name") == 0u);
  BOOST_TEST(!d->decode(std::string("\x02\x06"
                                    "abcd",
                                    6),
                        r, e));
  BOOST_TEST(e.message.find("1 bytes are left after the record") != std::string::npos);
  BOOST_TEST(!d->decode(std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11), r, e));
  BOOST_TEST(e.message.find("longer than its type allows") != std::string::npos);
  BOOST_TEST(!d->decode(std::string("\x02\x06"
                                    "a\xff"
                                    "c",
                                    5),
                        r, e));
  BOOST_TEST(e.code == "invalid_utf8");
}

BOOST_AUTO_TEST_CASE(a_recursive_datum_nested_past_the_bound_is_refused_not_followed) {
  const auto s = avro::parse_schema(R"({"type": "record", "name": "Node", "fields": [
      {"name": "v", "type": "long"}, {"name": "next", "type": ["null", "Node"]}]})");
  BOOST_TEST_REQUIRE(s.has_value());
  plan::schema ps;
  ps.columns = avro::to_columns(*s)->columns;
  auto d = avro_decoder::build(ps, *s, *s, avro::everything);
  BOOST_TEST_REQUIRE(d.has_value());
  std::string body;
  for (int i = 0; i < 1000; ++i) body += std::string("\x02\x02", 2);  // v 1, next: branch 1
  body += std::string("\x02\x00", 2);
  row r(2);
  streamt::diagnostic e;
  BOOST_TEST(!d->decode(body, r, e));
  BOOST_TEST(e.code == "malformed_avro");
  BOOST_TEST(e.message.find("deeper than 32") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_array_claiming_more_items_than_its_bytes_could_hold_is_refused_at_once) {
  const auto s = avro::parse_schema(R"({"type": "record", "name": "R", "fields": [
      {"name": "xs", "type": {"type": "array", "items": "null"}}]})");
  BOOST_TEST_REQUIRE(s.has_value());
  plan::schema ps;
  ps.columns = avro::to_columns(*s)->columns;
  auto d = avro_decoder::build(ps, *s, *s, avro::everything);
  BOOST_TEST_REQUIRE(d.has_value());
  row r(1);
  streamt::diagnostic e;
  // A block of 2^62 nulls: each takes no bytes, so only a bound stops it.
  BOOST_TEST(!d->decode(std::string("\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01\x00", 11), r, e));
  BOOST_TEST(e.code == "malformed_avro");
}

BOOST_AUTO_TEST_CASE(a_flat_record_is_read_by_the_program_and_a_nested_one_by_the_walk) {
  auto decoder_of = [](const char* text) {
    auto s = avro::parse_schema(text);
    BOOST_TEST_REQUIRE(s.has_value());
    plan::schema ps;
    ps.columns = avro::to_columns(*s)->columns;
    auto d = avro_decoder::build(ps, *s, *s, avro::everything);
    BOOST_TEST_REQUIRE(d.has_value());
    return std::move(*d);
  };
  BOOST_TEST(decoder_of(R"({"type": "record", "name": "R", "fields": [{"name": "a", "type": ["null", "long"]},
      {"name": "b", "type": {"type": "enum", "name": "E", "symbols": ["X"]}}]})")
                 .has_program());
  BOOST_TEST(!decoder_of(R"({"type": "record", "name": "R", "fields": [{"name": "a", "type":
      {"type": "record", "name": "In", "fields": [{"name": "x", "type": "int"}]}}]})")
                  .has_program());
}

// Found by the Avro C oracle (avro_codec_agrees_with_avro_c): the reader's
// float holds a float, so 2^24 + 1 written as an int reads as 2^24, by the
// program and by the walk alike (a float in a JSON column too).
BOOST_AUTO_TEST_CASE(an_int_or_long_read_as_a_float_is_rounded_to_the_float_it_becomes) {
  auto decoder_of = [](const char* writer_fields, const char* reader_fields) {
    auto record = [](const char* fields) {
      auto s =
          avro::parse_schema(std::string(R"({"type": "record", "name": "R", "fields": )") + fields + "}");
      BOOST_TEST_REQUIRE(s.has_value());
      return std::move(*s);
    };
    const auto writer = record(writer_fields), reader = record(reader_fields);
    plan::schema ps;
    ps.columns = avro::to_columns(reader)->columns;
    auto d = avro_decoder::build(ps, reader, writer, avro::everything);
    BOOST_TEST_REQUIRE(d.has_value());
    return std::move(*d);
  };
  const auto flat = decoder_of(
      R"([{"name": "i", "type": "int"}, {"name": "l", "type": "long"}, {"name": "d", "type": "int"}])",
      R"([{"name": "i", "type": "float"}, {"name": "l", "type": "float"}, {"name": "d", "type": "double"}])");
  // zigzag varints: 2^24 + 1, 2^40 + 1, 2^24 + 1
  const std::string body =
      "\x82\x80\x80\x10"
      "\x82\x80\x80\x80\x80\x40"
      "\x82\x80\x80\x10";
  streamt::diagnostic error;
  row walked(3), programmed(3);
  BOOST_TEST_REQUIRE(flat.has_program());
  BOOST_TEST_REQUIRE(flat.decode_by_program(body, programmed));
  BOOST_TEST_REQUIRE(flat.decode_by_walk(body, walked, error), error.message);
  for (const row* r : {&programmed, &walked}) {
    BOOST_TEST(r->slots[0].dbl == 16777216.0);
    BOOST_TEST(r->slots[1].dbl == 1099511627776.0);
    BOOST_TEST(r->slots[2].dbl == 16777217.0);  // a double holds it
  }
  const auto in_json = decoder_of(R"([{"name": "xs", "type": {"type": "array", "items": "long"}}])",
                                  R"([{"name": "xs", "type": {"type": "array", "items": "float"}}])");
  row json_column(1);
  // one block of one item, 2^24 + 1, then the end
  BOOST_TEST_REQUIRE(in_json.decode(std::string("\x02\x82\x80\x80\x10\x00", 6), json_column, error),
                     error.message);
  BOOST_TEST(json_column.slots[0].string == "[16777216]");

  // A float field the writer lacks reads as its default, the float 0.1
  // names, as the same value written as a float would.
  const auto defaulted =
      decoder_of(R"([{"name": "i", "type": "int"}])",
                 R"([{"name": "i", "type": "int"}, {"name": "f", "type": "float", "default": 0.1}])");
  row with_default(2);
  BOOST_TEST_REQUIRE(defaulted.decode(std::string("\x04", 1), with_default, error), error.message);
  BOOST_TEST(with_default.slots[1].dbl == static_cast<double>(0.1f));
}

BOOST_AUTO_TEST_SUITE_END()
