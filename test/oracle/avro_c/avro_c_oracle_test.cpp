// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// Our Avro codec against Apache Avro C (Debian 12's libavro-dev, 1.11.1), an
// implementation independent of ours and of fastavro, on generated schema
// pairs and values (generator.hpp, a fixed seed):
//   - Avro C parses every schema we parse and sees the same types, names,
//     fields, symbols and sizes; our canonical form of the JSON Avro C writes
//     back is ours of the original, and Avro C reads our canonical form as a
//     schema equal to the original. (Avro C 1.11.1 has no Parsing Canonical
//     Form, fingerprint or logical types, so those are compared only so;
//     the logical types' values are read by our parse of each schema.)
//   - Avro C writes values with the writer's schema; the decoder built from
//     the plan compiled from the reader's schema reads, from the framed
//     bytes, what Avro C's resolved writer reads.
//   - Our Avro sink's encoder writes those rows; Avro C reads them back with
//     the schema the compiler pinned as the same values.
// Avro C is linked by this test only; the engine never links it.

#define BOOST_TEST_MODULE avro_codec_agrees_with_avro_c
#include "operators/avro_decode.hpp"
#include "operators/avro_encode.hpp"
#include "operators/project.hpp"
#include "operators/registry_frame.hpp"
#include "plan/avro_schema.hpp"
#include "plan/schema_file.hpp"
#include "plan/sql/compile.hpp"
#include "test/oracle/avro_c/generator.hpp"
#include "test/support/slot_json.hpp"
#include "test/unit/plan/case_files.hpp"

#include <avro.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace avro = streamt::plan::avro;
namespace json = boost::json;
namespace plan = streamt::plan;
namespace ops = streamt::operators;
using streamt::test::avro_c::evolved_case;
using streamt::test::avro_c::generator;

namespace {

// --- Avro C, owned --------------------------------------------------------

struct schema_ref {
  avro_schema_t s = nullptr;
  schema_ref() = default;
  schema_ref(const schema_ref&) = delete;
  schema_ref& operator=(const schema_ref&) = delete;
  ~schema_ref() {
    if (s) avro_schema_decref(s);
  }
};

// Avro C's schema of `text`, or a failed test naming Avro C's reason.
std::unique_ptr<schema_ref> avro_c_schema(const std::string& text) {
  auto out = std::make_unique<schema_ref>();
  BOOST_TEST_REQUIRE(avro_schema_from_json_length(text.data(), text.size(), &out->s) == 0,
                     "Avro C refuses " << text << ": " << avro_strerror());
  return out;
}

struct iface_ref {
  avro_value_iface_t* i = nullptr;
  explicit iface_ref(avro_value_iface_t* i) : i(i) { BOOST_TEST_REQUIRE(i != nullptr, avro_strerror()); }
  iface_ref(const iface_ref&) = delete;
  iface_ref& operator=(const iface_ref&) = delete;
  ~iface_ref() { avro_value_iface_decref(i); }
};

struct value_ref {
  avro_value_t v{};
  value_ref() = default;
  value_ref(const value_ref&) = delete;
  value_ref& operator=(const value_ref&) = delete;
  ~value_ref() {
    if (v.iface) avro_value_decref(&v);
  }
};

std::string avro_c_write(avro_value_t& v) {
  std::size_t size = 0;
  BOOST_TEST_REQUIRE(avro_value_sizeof(&v, &size) == 0, avro_strerror());
  std::string out(size, '\0');
  avro_writer_t w = avro_writer_memory(out.data(), static_cast<std::int64_t>(out.size()));
  const int rc = avro_value_write(w, &v);
  avro_writer_free(w);
  BOOST_TEST_REQUIRE(rc == 0, avro_strerror());
  return out;
}

void avro_c_read(std::string_view bytes, avro_value_t& into) {
  avro_reader_t r = avro_reader_memory(bytes.data(), static_cast<std::int64_t>(bytes.size()));
  const int rc = avro_value_read(r, &into);
  avro_reader_free(r);
  BOOST_TEST_REQUIRE(rc == 0, "Avro C cannot read the datum: " << avro_strerror());
}

// --- (a) schemas ----------------------------------------------------------

// Why Avro C's view of a type differs from ours at `t`, or empty.
std::string schema_difference(avro_schema_t c, const avro::schema& s, std::size_t t,
                              std::vector<bool>& seen) {
  if (is_avro_link(c)) c = avro_schema_link_target(c);
  const avro::type& ty = s.types[t];
  static const std::map<avro_type_t, avro::type_kind> kinds = {
      {AVRO_NULL, avro::type_kind::null},     {AVRO_BOOLEAN, avro::type_kind::boolean},
      {AVRO_INT32, avro::type_kind::int_},    {AVRO_INT64, avro::type_kind::long_},
      {AVRO_FLOAT, avro::type_kind::float_},  {AVRO_DOUBLE, avro::type_kind::double_},
      {AVRO_BYTES, avro::type_kind::bytes},   {AVRO_STRING, avro::type_kind::string},
      {AVRO_RECORD, avro::type_kind::record}, {AVRO_ENUM, avro::type_kind::enum_},
      {AVRO_ARRAY, avro::type_kind::array},   {AVRO_MAP, avro::type_kind::map},
      {AVRO_UNION, avro::type_kind::union_},  {AVRO_FIXED, avro::type_kind::fixed}};
  const auto kind = kinds.find(avro_typeof(c));
  const std::string at = avro::describe(s, t);
  if (kind == kinds.end() || kind->second != ty.kind)
    return at + ": Avro C sees a " + avro_schema_type_name(c) + " where we see a " +
           std::string(avro::to_string(ty.kind));
  if (is_avro_named_type(c)) {
    const char* ns = avro_schema_namespace(c);
    const std::string full = (ns && *ns ? std::string(ns) + "." : std::string()) + avro_schema_name(c);
    if (full != ty.name) return at + ": Avro C names it " + full;
    if (seen[t]) return {};  // a reference back: compared where it was defined
    seen[t] = true;
  }
  auto child = [&](avro_schema_t cc, std::size_t ct, const std::string& where) {
    std::string d = schema_difference(cc, s, ct, seen);
    return d.empty() ? d : where + ": " + d;
  };
  switch (ty.kind) {
    case avro::type_kind::record:
      if (avro_schema_record_size(c) != ty.fields.size()) return at + ": another number of fields";
      for (std::size_t i = 0; i < ty.fields.size(); ++i) {
        const int index = static_cast<int>(i);
        if (ty.fields[i].name != avro_schema_record_field_name(c, index))
          return at + ": field " + std::to_string(i) + " is " + avro_schema_record_field_name(c, index);
        if (auto d =
                child(avro_schema_record_field_get_by_index(c, index), ty.fields[i].type, ty.fields[i].name);
            !d.empty())
          return d;
      }
      return {};
    case avro::type_kind::enum_:
      if (static_cast<std::size_t>(avro_schema_enum_number_of_symbols(c)) != ty.symbols.size())
        return at + ": another number of symbols";
      for (std::size_t i = 0; i < ty.symbols.size(); ++i)
        if (ty.symbols[i] != avro_schema_enum_get(c, static_cast<int>(i))) return at + ": symbols differ";
      return {};
    case avro::type_kind::fixed:
      return static_cast<std::size_t>(avro_schema_fixed_size(c)) == ty.size ? "" : at + ": another size";
    case avro::type_kind::array:
      return child(avro_schema_array_items(c), ty.items, "items");
    case avro::type_kind::map:
      return child(avro_schema_map_values(c), ty.items, "values");
    case avro::type_kind::union_:
      if (avro_schema_union_size(c) != ty.branches.size()) return at + ": another number of branches";
      for (std::size_t i = 0; i < ty.branches.size(); ++i)
        if (auto d = child(avro_schema_union_branch(c, static_cast<int>(i)), ty.branches[i], "branch");
            !d.empty())
          return d;
      return {};
    default:
      return {};
  }
}

std::string avro_c_json(avro_schema_t c) {
  std::string out(1 << 16, '\0');
  avro_writer_t w = avro_writer_memory(out.data(), static_cast<std::int64_t>(out.size()));
  const int rc = avro_schema_to_json(c, w);
  out.resize(static_cast<std::size_t>(avro_writer_tell(w)));
  avro_writer_free(w);
  BOOST_TEST_REQUIRE(rc == 0, avro_strerror());
  return out;
}

avro::schema ours(const std::string& text) {
  auto s = avro::parse_schema(text);
  BOOST_TEST_REQUIRE(s.has_value(), text << ": " << (s ? "" : s.error().message));
  return std::move(*s);
}

// A valid schema Avro C refuses, for the reason `why` names.
void refused_by_avro_c(const std::string& text, const std::string& why) {
  schema_ref refused;
  BOOST_TEST(avro_schema_from_json_length(text.data(), text.size(), &refused.s) != 0, text);
  BOOST_TEST(std::string(avro_strerror()).find(why) != std::string::npos, avro_strerror());
}

// Avro C and we agree on `text` as far as Avro C can tell. `reparses`: our
// canonical form reads back as the same schema (not for a name in the null
// namespace inside a namespaced type: the specification's canonical form
// writes it bare, so any parser reads it back in the enclosing namespace).
void agree_on_schema(const std::string& text, bool reparses = true) {
  // Avro C's JSON parser (jansson) takes no \u0000, which a bytes default
  // may hold (our generator writes none).
  if (text.find("\\u0000") != std::string::npos) return refused_by_avro_c(text, "JSON_ALLOW_NUL");
  const auto c = avro_c_schema(text);
  const avro::schema s = ours(text);
  std::vector<bool> seen(s.types.size(), false);
  const std::string difference = schema_difference(c->s, s, 0, seen);
  BOOST_TEST(difference.empty(), text << ": " << difference);
  const std::string canonical = avro::canonical_form(s);
  BOOST_TEST(avro::canonical_form(ours(avro_c_json(c->s))) == canonical, text);
  if (!reparses) return;
  const auto back = avro_c_schema(canonical);
  BOOST_TEST(avro_schema_equal(c->s, back->s) != 0, text << " as our canonical form " << canonical);
}

// --- values ---------------------------------------------------------------

// Numbers equal as numbers (our JSON columns write 3.0 as 3), objects equal
// whatever their members' order. Two doubles may differ in their last few
// bits: a JSON column's numbers (a decimal's exact digits, a double's
// shortest text) are read back with Boost.JSON 1.81, whose parser is not
// correctly rounded, and it cannot give a number's text instead.
bool same(const json::value& a, const json::value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_int64() && b.is_int64()) return a.as_int64() == b.as_int64();
    const double x = a.to_number<double>(), y = b.to_number<double>();
    return x == y || std::fabs(x - y) <= std::ldexp(std::fabs(x), -50);
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_object()) {
    if (a.as_object().size() != b.as_object().size()) return false;
    for (const auto& [k, v] : a.as_object()) {
      const json::value* w = b.as_object().if_contains(k);
      if (!w || !same(v, *w)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.as_array().size() != b.as_array().size()) return false;
    for (std::size_t i = 0; i < a.as_array().size(); ++i)
      if (!same(a.as_array()[i], b.as_array()[i])) return false;
    return true;
  }
  return a == b;
}

// Bytes as a JSON column holds them (Avro's JSON encoding): one code point
// per byte.
json::string code_points(std::string_view b) {
  json::string out;
  for (unsigned char c : b) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

// Avro C's bytes, string or fixed value (a string's size counts its NUL).
std::string_view raw_bytes(avro_value_t& v) {
  const void* buf = nullptr;
  const char* str = nullptr;
  std::size_t size = 0;
  switch (avro_value_get_type(&v)) {
    case AVRO_STRING:
      avro_value_get_string(&v, &str, &size);
      return {str, size - 1};
    case AVRO_BYTES:
      avro_value_get_bytes(&v, &buf, &size);
      break;
    default:
      avro_value_get_fixed(&v, &buf, &size);
  }
  return {static_cast<const char*>(buf), size};
}

plan::int128 twos_complement(std::string_view b) {
  plan::int128 v = (!b.empty() && (static_cast<unsigned char>(b[0]) & 0x80)) ? -1 : 0;
  for (unsigned char c : b) v = v * 256 + c;  // * 256, not <<: v may be negative
  return v;
}

// Avro C's value `v`, read as type `t` of `s`, as the plan's column `col`
// holds it (null: inside a JSON column, as the JSON our decoder writes).
// `json_as_text`: the schema is a sink's, whose JSON columns are strings.
json::value plain(avro_value_t& v, const avro::schema& s, std::size_t t, const plan::column* col,
                  bool json_as_text) {
  const avro::type& ty = s.types[t];
  if (col && col->type == plan::column_type::json) {
    if (json_as_text) {
      avro_value_t branch = v;
      if (ty.kind == avro::type_kind::union_) avro_value_get_current_branch(&v, &branch);
      if (avro_value_get_type(&branch) == AVRO_NULL) return nullptr;
      return json::parse(raw_bytes(branch));
    }
    col = nullptr;
  }
  switch (ty.kind) {
    case avro::type_kind::null:
      return nullptr;
    case avro::type_kind::boolean: {
      int b = 0;
      avro_value_get_boolean(&v, &b);
      return b != 0;
    }
    case avro::type_kind::int_:
    case avro::type_kind::long_: {
      std::int64_t x = 0;
      if (avro_value_get_type(&v) == AVRO_INT32) {
        std::int32_t i = 0;
        avro_value_get_int(&v, &i);
        x = i;
      } else {
        avro_value_get_long(&v, &x);
      }
      // A TIMESTAMP column holds milliseconds, floored.
      if (col && ty.logical == avro::logical_type::timestamp_micros) x = x / 1000 - (x % 1000 < 0 ? 1 : 0);
      return x;
    }
    case avro::type_kind::float_:
    case avro::type_kind::double_: {
      double d = 0;
      if (ty.kind == avro::type_kind::float_) {
        float f = 0;
        avro_value_get_float(&v, &f);
        d = f;
      } else {
        avro_value_get_double(&v, &d);
      }
      return d;
    }
    case avro::type_kind::string:
    case avro::type_kind::bytes:
    case avro::type_kind::fixed: {
      const std::string_view b = raw_bytes(v);
      if (ty.logical == avro::logical_type::decimal) {
        const std::string text = plan::format_decimal({twos_complement(b)}, ty.scale);
        return col ? json::value(json::string(text)) : json::parse(text);
      }
      return ty.kind == avro::type_kind::string ? json::string(b) : code_points(b);
    }
    case avro::type_kind::enum_: {
      int i = 0;
      avro_value_get_enum(&v, &i);
      // By Avro C's own symbols: its reader lists them in the writer's order
      // (generator.hpp says why).
      return json::string(avro_schema_enum_get(avro_value_get_schema(&v), i));
    }
    case avro::type_kind::array:
    case avro::type_kind::map: {
      json::array items;
      json::object members;
      std::size_t n = 0;
      avro_value_get_size(&v, &n);
      for (std::size_t i = 0; i < n; ++i) {
        avro_value_t item;
        const char* key = nullptr;
        avro_value_get_by_index(&v, i, &item, &key);
        json::value x = plain(item, s, ty.items, nullptr, false);
        if (key)
          members[key] = std::move(x);
        else
          items.push_back(std::move(x));
      }
      return ty.kind == avro::type_kind::map ? json::value(std::move(members))
                                             : json::value(std::move(items));
    }
    case avro::type_kind::record: {
      json::object out;
      for (std::size_t i = 0; i < ty.fields.size(); ++i) {
        avro_value_t f;
        avro_value_get_by_index(&v, i, &f, nullptr);
        out[ty.fields[i].name] =
            plain(f, s, ty.fields[i].type, col ? &col->fields[i] : nullptr, json_as_text);
      }
      return out;
    }
    case avro::type_kind::union_: {
      int d = 0;
      avro_value_t branch;
      avro_value_get_discriminant(&v, &d);
      avro_value_get_current_branch(&v, &branch);
      BOOST_TEST_REQUIRE(d >= 0, "Avro C holds a union without a branch at " << avro::describe(s, t));
      return plain(branch, s, ty.branches.at(static_cast<std::size_t>(d)), col, json_as_text);
    }
  }
  return nullptr;
}

// The top-level record Avro C read as the reader's, with the fields Avro C
// cannot resolve (added with defaults) as their defaults read.
json::value reader_plain(avro_value_t& v, const avro::schema& reader, const std::vector<plan::column>& cols,
                         const evolved_case& k) {
  json::object out;
  const avro::type& top = reader.root();
  for (std::size_t i = 0; i < top.fields.size(); ++i) {
    const std::string& name = top.fields[i].name;
    if (auto d = k.defaults.find(name); d != k.defaults.end()) {
      out[name] = d->second;
      continue;
    }
    avro_value_t f;
    const int index = avro_schema_record_field_get_index(avro_value_get_schema(&v), name.c_str());
    BOOST_TEST_REQUIRE(index >= 0, name);
    BOOST_TEST_REQUIRE(avro_value_get_by_index(&v, static_cast<std::size_t>(index), &f, nullptr) == 0, name);
    out[name] = plain(f, reader, top.fields[i].type, &cols.at(i), false);
  }
  return out;
}

// Our decoded row's columns, as `plain` writes Avro C's values.
json::value row_plain(const std::vector<plan::column>& cols, const ops::row& r, std::size_t& next) {
  json::object out;
  for (const plan::column& c : cols) {
    const ops::slot& s = r.slots.at(next++);
    json::value v;
    if (c.type == plan::column_type::row) {
      json::value fields = row_plain(c.fields, r, next);
      v = s.is_null ? json::value(nullptr) : fields;
    } else {
      v = streamt::test::slot_json(c, s);
    }
    out[c.name] = v;
  }
  return out;
}

// --- writing values with Avro C --------------------------------------------

std::string a_string(generator& g) {
  static const char* const pieces[] = {"a",  "Z",  "0",    " ",    "é", "€", "\xF0\x9D\x84\x9E",
                                       "\"", "\\", "\x01", "\x1F", "/"};
  std::string s;
  for (std::uint64_t n = g.below(8); n > 0; --n) s += pieces[g.below(std::size(pieces))];
  return s;
}

std::int64_t an_integer(generator& g, std::int64_t lo, std::int64_t hi) {
  switch (g.below(4)) {
    case 0:
      return lo;
    case 1:
      return hi;
    case 2:
      return static_cast<std::int64_t>(g.below(200)) - 100;
    default:
      // In unsigned arithmetic: hi - lo may exceed INT64_MAX.
      return static_cast<std::int64_t>(
          static_cast<std::uint64_t>(lo) +
          g.below(static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo)));
  }
}

template <class F>
F a_finite(generator& g) {
  using bits = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
  for (;;) {
    const F f = std::bit_cast<F>(static_cast<bits>(g.engine()()));
    if (std::isfinite(f)) return g.below(3) == 0 ? std::round(f) : f;
  }
}

// A random datum of type `t` of the writer's schema `s` into Avro C's `v`.
// `nonempty`: an array or map gets an item at least (Avro C's resolved
// writer leaves a union without a branch when it holds an empty one).
void fill(avro_value_t& v, const avro::schema& s, std::size_t t, generator& g, bool utf8_bytes,
          bool nonempty) {
  const avro::type& ty = s.types[t];
  switch (ty.kind) {
    case avro::type_kind::null:
      avro_value_set_null(&v);
      return;
    case avro::type_kind::boolean:
      avro_value_set_boolean(&v, static_cast<int>(g.below(2)));
      return;
    case avro::type_kind::int_:
      avro_value_set_int(&v, static_cast<std::int32_t>(an_integer(g, std::numeric_limits<std::int32_t>::min(),
                                                                  std::numeric_limits<std::int32_t>::max())));
      return;
    case avro::type_kind::long_: {
      // Timestamps within the years 0001 to 9999, as the columns take them.
      const std::int64_t min_ms = -62135596800000, max_ms = 253402300799999;
      if (ty.logical == avro::logical_type::timestamp_millis)
        avro_value_set_long(&v, an_integer(g, min_ms, max_ms));
      else if (ty.logical == avro::logical_type::timestamp_micros)
        avro_value_set_long(&v, an_integer(g, min_ms * 1000, max_ms * 1000 + 999));
      else
        avro_value_set_long(&v, an_integer(g, std::numeric_limits<std::int64_t>::min(),
                                           std::numeric_limits<std::int64_t>::max()));
      return;
    }
    case avro::type_kind::float_:
      avro_value_set_float(&v, a_finite<float>(g));
      return;
    case avro::type_kind::double_:
      avro_value_set_double(&v, a_finite<double>(g));
      return;
    case avro::type_kind::string: {
      const std::string x = a_string(g);
      avro_value_set_string_len(&v, x.c_str(), x.size() + 1);
      return;
    }
    case avro::type_kind::bytes:
    case avro::type_kind::fixed: {
      std::string b;
      if (ty.logical == avro::logical_type::decimal) {
        // An unscaled value of at most `precision` digits, big-endian two's
        // complement: the fewest bytes that hold it, or all of a fixed's.
        std::int64_t limit = 1;
        for (int i = 0; i < ty.precision; ++i) limit *= 10;
        std::int64_t x = static_cast<std::int64_t>(g.below(static_cast<std::uint64_t>(limit)));
        if (g.below(2)) x = -x;
        for (int i = 7; i >= 0; --i) b += static_cast<char>(static_cast<std::uint64_t>(x) >> (8 * i));
        const std::size_t keep = ty.kind == avro::type_kind::fixed ? ty.size : 8;
        b.erase(0, 8 - keep);
        while (ty.kind == avro::type_kind::bytes && b.size() > 1 &&
               ((b[0] == 0 && !(b[1] & 0x80)) || (b[0] == '\xFF' && (b[1] & 0x80))))
          b.erase(0, 1);
      } else if (utf8_bytes) {
        b = a_string(g);
      } else {
        const std::size_t n = ty.kind == avro::type_kind::fixed ? ty.size : g.below(6);
        for (std::size_t i = 0; i < n; ++i) b += static_cast<char>(g.below(256));
      }
      if (ty.kind == avro::type_kind::fixed)
        avro_value_set_fixed(&v, b.data(), b.size());
      else
        avro_value_set_bytes(&v, b.data(), b.size());
      return;
    }
    case avro::type_kind::enum_:
      avro_value_set_enum(&v, static_cast<int>(g.below(ty.symbols.size())));
      return;
    case avro::type_kind::array:
      for (std::uint64_t n = g.below(4) + nonempty; n > 0; --n) {
        avro_value_t item;
        avro_value_append(&v, &item, nullptr);
        fill(item, s, ty.items, g, false, false);
      }
      return;
    case avro::type_kind::map:
      for (std::uint64_t n = g.below(4) + nonempty; n > 0; --n) {
        avro_value_t item;
        const std::string key = "k" + std::to_string(n) + a_string(g);
        avro_value_add(&v, key.c_str(), &item, nullptr, nullptr);
        fill(item, s, ty.items, g, false, false);
      }
      return;
    case avro::type_kind::record:
      for (std::size_t i = 0; i < ty.fields.size(); ++i) {
        avro_value_t f;
        avro_value_get_by_index(&v, i, &f, nullptr);
        fill(f, s, ty.fields[i].type, g, false, false);
      }
      return;
    case avro::type_kind::union_: {
      const std::size_t b = g.below(ty.branches.size());
      avro_value_t branch;
      avro_value_set_branch(&v, static_cast<int>(b), &branch);
      fill(branch, s, ty.branches[b], g, false, true);
      return;
    }
  }
}

void fill_top(avro_value_t& v, const avro::schema& writer, const evolved_case& k, generator& g) {
  const avro::type& top = writer.root();
  for (std::size_t i = 0; i < top.fields.size(); ++i) {
    avro_value_t f;
    avro_value_get_by_index(&v, i, &f, nullptr);
    fill(f, writer, top.fields[i].type, g, k.utf8_bytes.count(top.fields[i].name) != 0, false);
  }
}

std::string select_all(const avro::schema& reader) {
  std::string sql = "SELECT ";
  for (const avro::field& f : reader.root().fields) sql += (sql.size() > 7 ? ", " : "") + f.name;
  return sql + " FROM top";
}

constexpr std::uint64_t seed = 37;
constexpr int schema_pairs = 1000;
constexpr int values_per_pair = 8;

}  // namespace

BOOST_AUTO_TEST_SUITE(avro_c_oracle)

// The golden schemas the fastavro oracle checks, and the resolution cases'.
BOOST_AUTO_TEST_CASE(avro_c_sees_the_golden_schemas_as_we_do) {
  int schemas = 0;
  for (const std::string& name : streamt::test::case_names("avro")) {
    if (name.rfind("valid_", 0) != 0) continue;
    const std::string text = streamt::test::read_file(streamt::test::data_dir("avro") / (name + ".json"));
    // Avro C 1.11.1 does not find a name of the null namespace referred to
    // from inside a namespaced record (fastavro does:
    // test/data/avro/check_with_fastavro.py).
    if (name == "valid_name_found_in_the_null_namespace")
      refused_by_avro_c(text, "Unknown Avro");
    else
      agree_on_schema(text, name != "valid_dotted_names");
    ++schemas;
  }
  for (const std::string& name : streamt::test::case_names("avro_resolution")) {
    const json::value pair =
        json::parse(streamt::test::read_file(streamt::test::data_dir("avro_resolution") / (name + ".json")));
    for (const char* side : {"writer", "reader"}) {
      agree_on_schema(json::serialize(pair.at(side)));
      ++schemas;
    }
  }
  BOOST_TEST(schemas > 40);
}

BOOST_AUTO_TEST_CASE(what_avro_c_writes_we_read_as_avro_c_resolves_it_and_what_we_write_avro_c_reads_back) {
  generator g(seed);
  int compared = 0;
  for (int pair = 0; pair < schema_pairs; ++pair) {
    const evolved_case k = g.next();
    BOOST_TEST_CONTEXT("pair " << pair << "\n  writer " << k.writer << "\n  reader " << k.reader) {
      agree_on_schema(k.writer);
      agree_on_schema(k.reader);
      const avro::schema writer = ours(k.writer), reader = ours(k.reader);
      auto source = plan::schema_from_avro(k.reader, "top", "top");
      BOOST_TEST_REQUIRE(source.has_value(), (source ? "" : source.error().message));
      plan::compile_options options{"oracle", "oracle-out"};
      options.sink_format = plan::sink_format::avro;
      auto p = plan::compile(select_all(reader), *source, options);
      BOOST_TEST_REQUIRE(p.has_value(), (p ? "" : p.error().message));
      const std::vector<plan::column>& cols = p->schema.columns;
      BOOST_TEST_REQUIRE(cols.size() == reader.root().fields.size());
      const std::string& sink_text = p->sink.avro->schema;
      agree_on_schema(sink_text);
      const avro::schema sink = ours(sink_text);

      auto decoder = ops::avro_decoder::build(p->schema, reader, writer, ops::avro_needs(*p));
      BOOST_TEST_REQUIRE(decoder.has_value(), (decoder ? "" : decoder.error().message));
      const ops::project_definition projection(*p);
      const ops::avro_encode_definition encoding(projection);

      const auto cw = avro_c_schema(k.writer), cr = avro_c_schema(k.avro_c_reader),
                 cs = avro_c_schema(sink_text);
      const iface_ref writer_class(avro_generic_class_from_schema(cw->s));
      const iface_ref reader_class(avro_generic_class_from_schema(cr->s));
      const iface_ref sink_class(avro_generic_class_from_schema(cs->s));
      const iface_ref resolved_writer(avro_resolved_writer_new(cw->s, cr->s));
      value_ref written, as_reader, via_writer, sunk;
      BOOST_TEST_REQUIRE(avro_generic_value_new(writer_class.i, &written.v) == 0);
      BOOST_TEST_REQUIRE(avro_generic_value_new(reader_class.i, &as_reader.v) == 0);
      BOOST_TEST_REQUIRE(avro_generic_value_new(sink_class.i, &sunk.v) == 0);
      BOOST_TEST_REQUIRE(avro_resolved_writer_new_value(resolved_writer.i, &via_writer.v) == 0);
      avro_resolved_writer_set_dest(&via_writer.v, &as_reader.v);

      for (int n = 0; n < values_per_pair; ++n) {
        avro_value_reset(&written.v);
        fill_top(written.v, writer, k, g);
        const std::uint32_t id = static_cast<std::uint32_t>(pair + 1);
        std::string framed;
        ops::append_registry_frame(framed, id);
        framed += avro_c_write(written.v);
        streamt::diagnostic why;
        const auto frame = ops::read_registry_frame(framed, why);
        BOOST_TEST_REQUIRE(frame.has_value(), why.message);
        BOOST_TEST_REQUIRE(frame->schema_id == id);

        // (b) Avro C's resolved writer reads the datum as the reader's
        // schema; we decode it. (Its resolved reader, the other way round,
        // reports a promoted value by the writer's type and will not give
        // it as the reader's: a float read as a double fails with EINVAL.)
        avro_value_reset(&as_reader.v);
        avro_c_read(frame->body, via_writer.v);
        const json::value theirs = reader_plain(as_reader.v, reader, cols, k);
        ops::row r(plan::flatten(p->schema).size());
        BOOST_TEST_REQUIRE(decoder->decode(frame->body, r, why), why.path << ": " << why.message);
        std::size_t next = 0;
        const json::value mine = row_plain(cols, r, next);
        BOOST_TEST(same(mine, theirs),
                   "ours   " << json::serialize(mine) << "\n  Avro C " << json::serialize(theirs));

        // (c) Avro C reads what our sink writes.
        std::string out;
        ops::append_registry_frame(out, id + 1000);
        ops::append_avro_body(encoding, r, out);
        const auto written_frame = ops::read_registry_frame(out, why);
        BOOST_TEST_REQUIRE(written_frame.has_value(), why.message);
        avro_value_reset(&sunk.v);
        avro_c_read(written_frame->body, sunk.v);
        const plan::column top{"", plan::column_type::row, false, 0, 0, cols};
        const json::value sunk_plain = plain(sunk.v, sink, 0, &top, true);
        BOOST_TEST(same(sunk_plain, mine), "Avro C read our sink's " << json::serialize(sunk_plain)
                                                                     << "\n  we wrote "
                                                                     << json::serialize(mine));
        ++compared;
      }
    }
  }
  BOOST_TEST(compared == schema_pairs * values_per_pair);
  // Every promotion and default the specification has, and each kind of
  // evolution, came up at least once.
  for (const char* what : {"int -> long",
                           "int -> float",
                           "int -> double",
                           "long -> float",
                           "long -> double",
                           "float -> double",
                           "string -> bytes",
                           "bytes -> string",
                           "T -> [null, T]",
                           "union of three",
                           "field removed",
                           "fields in another order",
                           "enum symbols in another order",
                           "decimal bytes",
                           "decimal fixed",
                           "default long",
                           "default int",
                           "default double",
                           "default float",
                           "default boolean",
                           "default string",
                           "default null",
                           "default enum",
                           "default timestamp-millis",
                           "default timestamp-micros",
                           "default decimal bytes",
                           "default decimal fixed",
                           "default array",
                           "default map",
                           "default bytes",
                           "default record"})
    BOOST_TEST(g.covered.count(what) == 1, "no case had " << what);
}

BOOST_AUTO_TEST_SUITE_END()
