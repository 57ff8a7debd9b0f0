// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Writer and reader schema pairs for the Avro C oracle, from a fixed seed:
// every primitive, enums, fixed, arrays, maps, nested records, nullable and
// other unions, decimals in bytes and in fixed, timestamp-millis and -micros,
// and every promotion of the specification (int → long, float, double;
// long → float, double; float → double; string ↔ bytes; T → [null, T]),
// fields removed, fields added with defaults, and fields in another order.
//
// Avro C 1.11.1 resolves neither a reader field the writer lacks (it refuses
// the pair: "Reader field x doesn't appear in writer") nor string ↔ bytes,
// and it resolves an enum by the symbol's index, not by its name (a writer's
// S0 read as a reader's [S2, S0] comes out S2). So each case also holds the
// reader schema Avro C can take: the reader's without the added fields, with
// the writer's type where string and bytes were swapped, and with each enum's
// symbols in the writer's order (the reader's extra ones after them). What an
// added field reads as is the value its default means by the specification,
// written here beside the default.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace streamt::test::avro_c {

namespace json = boost::json;

struct evolved_case {
  std::string writer, reader, avro_c_reader;  // the schemas' JSON
  // Each added reader field: what it reads as, as the plan's column holds
  // it (a DECIMAL as its text, a TIMESTAMP in milliseconds, a ROW as an
  // object, a JSON column as the JSON).
  std::map<std::string, json::value> defaults;
  std::set<std::string> utf8_bytes;  // the writer's bytes fields the reader reads as strings
};

class generator {
 public:
  explicit generator(std::uint64_t seed) : g_(seed) {}

  std::uint64_t below(std::uint64_t n) { return g_() % n; }
  std::mt19937_64& engine() { return g_; }

  // What the cases so far held ("int -> float", "default timestamp-micros",
  // ...), so that the test can check it covered every promotion and default.
  std::set<std::string> covered;

  evolved_case next() {
    json::array wf, rf;
    std::map<std::string, json::value> avro_c_types;  // of the fields Avro C reads
    evolved_case k;
    const std::uint64_t n = 1 + below(8);
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::string name = "f" + std::to_string(i);
      switch (below(12)) {
        case 0:
          wf.push_back(field(name, any(1, true).w));
          covered.insert("field removed");
          break;
        case 1: {
          auto [type, dflt, reads_as, label] = a_default();
          json::object f = field(name, type);
          f["default"] = dflt;
          rf.push_back(f);
          k.defaults[name] = reads_as;
          covered.insert("default " + label);
          break;
        }
        case 2:
          wf.push_back(field(name, "string"));
          rf.push_back(field(name, "bytes"));
          avro_c_types[name] = "string";
          covered.insert("string -> bytes");
          break;
        case 3:
          wf.push_back(field(name, "bytes"));
          rf.push_back(field(name, "string"));
          k.utf8_bytes.insert(name);
          avro_c_types[name] = "bytes";
          covered.insert("bytes -> string");
          break;
        default: {
          auto t = any(1, true);
          wf.push_back(field(name, t.w));
          rf.push_back(field(name, t.r));
          avro_c_types[name] = t.c;
        }
      }
    }
    if (rf.empty()) {
      wf.push_back(field("f" + std::to_string(n), "long"));
      rf.push_back(field("f" + std::to_string(n), "long"));
      avro_c_types["f" + std::to_string(n)] = "long";
    }
    if (below(3) == 0) {
      std::shuffle(rf.begin(), rf.end(), g_);
      covered.insert("fields in another order");
    }
    json::array cf;
    for (const json::value& f : rf) {
      const std::string name(f.at("name").as_string());
      if (!k.defaults.count(name)) cf.push_back(field(name, avro_c_types.at(name)));
    }
    k.writer = record_text(wf);
    k.reader = record_text(rf);
    k.avro_c_reader = record_text(cf);
    return k;
  }

 private:
  struct type_pair {
    json::value w, r, c;  // the writer's, the reader's, Avro C's reader's
  };

  static json::object field(const std::string& name, json::value type) {
    return json::object{{"name", name}, {"type", std::move(type)}};
  }
  static std::string record_text(json::array fields) {
    return json::serialize(json::object{
        {"type", "record"}, {"name", "Top"}, {"namespace", "oracle.gen"}, {"fields", std::move(fields)}});
  }
  std::string named(const char* prefix) { return prefix + std::to_string(names_++); }

  type_pair promoted(const char* from, std::vector<const char*> to) {
    const char* r = to[below(to.size())];
    covered.insert(std::string(from) + " -> " + r);
    return {from, r, r};
  }

  json::value decimal(json::value base) {
    const int precision = 1 + static_cast<int>(below(18));
    json::object& o = base.as_object();
    o["logicalType"] = "decimal";
    o["precision"] = precision;
    o["scale"] = static_cast<int>(below(static_cast<std::uint64_t>(precision) + 1));
    return base;
  }

  type_pair scalar() {
    auto same = [](json::value v) { return type_pair{v, v, v}; };
    switch (below(13)) {
      case 0:
        return same("boolean");
      case 1:
        return promoted("int", {"int", "long", "float", "double"});
      case 2:
        return promoted("long", {"long", "float", "double"});
      case 3:
        return promoted("float", {"float", "double"});
      case 4:
        return same("double");
      case 5:
        return same("string");
      case 6:
        return same("bytes");
      case 7:
        covered.insert("decimal bytes");
        return same(decimal(json::object{{"type", "bytes"}}));
      case 8:
        // 8 bytes hold 18 digits, the most the generator writes.
        covered.insert("decimal fixed");
        return same(decimal(json::object{{"type", "fixed"}, {"name", named("D")}, {"size", 8}}));
      case 9:
        return same(json::object{{"type", "long"}, {"logicalType", "timestamp-millis"}});
      case 10:
        return same(json::object{{"type", "long"}, {"logicalType", "timestamp-micros"}});
      case 11: {
        // The reader knows every symbol the writer writes, maybe more, in
        // another order: symbols resolve by name.
        json::array ws, cs, rs;
        const std::uint64_t n = 1 + below(4);
        for (std::uint64_t i = 0; i < n; ++i) ws.push_back(json::string("S" + std::to_string(i)));
        cs = ws;
        if (below(2)) cs.push_back("EXTRA");
        rs = cs;
        std::shuffle(rs.begin(), rs.end(), g_);
        if (rs != cs) covered.insert("enum symbols in another order");
        const std::string name = named("E");
        auto with = [&](const json::array& symbols) {
          return json::object{{"type", "enum"}, {"name", name}, {"symbols", symbols}};
        };
        return {with(ws), with(rs), with(cs)};
      }
      default:
        return same(json::object{{"type", "fixed"}, {"name", named("X")}, {"size", 1 + below(6)}});
    }
  }

  type_pair any(int depth, bool may_be_union) {
    const std::uint64_t compound = depth < 3 ? (may_be_union ? 5 : 3) : 0;
    const std::uint64_t k = below(13 + compound);
    if (k < 13) return scalar();
    switch (k - 13) {
      case 0: {
        auto items = any(depth + 1, true);
        auto of = [](json::value t) { return json::object{{"type", "array"}, {"items", std::move(t)}}; };
        return {of(items.w), of(items.r), of(items.c)};
      }
      case 1: {
        auto values = any(depth + 1, true);
        auto of = [](json::value t) { return json::object{{"type", "map"}, {"values", std::move(t)}}; };
        return {of(values.w), of(values.r), of(values.c)};
      }
      case 2: {
        json::array wf, rf, cf;
        const std::uint64_t n = 1 + below(3);
        for (std::uint64_t i = 0; i < n; ++i) {
          auto t = any(depth + 1, true);
          wf.push_back(field("g" + std::to_string(i), t.w));
          rf.push_back(field("g" + std::to_string(i), t.r));
          cf.push_back(field("g" + std::to_string(i), t.c));
        }
        const std::string name = named("R");
        auto of = [&](json::array fields) {
          return json::object{{"type", "record"}, {"name", name}, {"fields", std::move(fields)}};
        };
        return {of(wf), of(rf), of(cf)};
      }
      case 3: {
        auto t = any(depth + 1, false);
        // Not for an array or a map: Avro C's resolved writer leaves the
        // reader's union without a branch when an empty one is written.
        const bool container = t.w.is_object() && (t.w.at("type") == "array" || t.w.at("type") == "map");
        if (!container && below(4) == 0) {
          covered.insert("T -> [null, T]");
          return {t.w, json::array{"null", t.r}, json::array{"null", t.c}};
        }
        return {json::array{"null", t.w}, json::array{"null", t.r}, json::array{"null", t.c}};
      }
      default:
        covered.insert("union of three");
        return {json::array{"null", "int", "string"}, json::array{"null", "long", "string"},
                json::array{"null", "long", "string"}};
    }
  }

  // A field added with a default: its type, the default as the schema
  // writes it, and what the specification says a datum reads as.
  std::tuple<json::value, json::value, json::value, std::string> a_default() {
    const char* bytes_decimal = R"({"type":"bytes","logicalType":"decimal","precision":10,"scale":2})";
    switch (below(16)) {
      case 0:
        return {"long", 42, 42, "long"};
      case 1:
        return {"int", -7, -7, "int"};
      case 2:
        return {"double", 1.5, 1.5, "double"};
      case 3:
        return {"float", 0.25, 0.25, "float"};
      case 4:
        return {"boolean", true, true, "boolean"};
      case 5:
        return {"string", "dflt é\"", "dflt é\"", "string"};
      case 6:
        return {json::array{"null", "string"}, nullptr, nullptr, "null"};
      case 7:
        return {json::object{{"type", "enum"}, {"name", named("E")}, {"symbols", {"A", "B"}}}, "B", "B",
                "enum"};
      case 8:
        return {json::object{{"type", "long"}, {"logicalType", "timestamp-millis"}}, 1764928800250,
                1764928800250, "timestamp-millis"};
      case 9:
        // Floored to the millisecond, as every timestamp-micros is.
        return {json::object{{"type", "long"}, {"logicalType", "timestamp-micros"}}, -1500, -2,
                "timestamp-micros"};
      case 10:
        // Bytes in Avro's JSON: one code point per byte; 0x64 is 100. (No
        // \u0000: Avro C's JSON parser refuses it.)
        return {json::parse(bytes_decimal), "\u0064", "1.00", "decimal bytes"};
      case 11:
        // 0x0102 is 258.
        return {json::object{{"type", "fixed"},
                             {"name", named("D")},
                             {"size", 2},
                             {"logicalType", "decimal"},
                             {"precision", 4},
                             {"scale", 1}},
                "\u0001\u0002", "25.8", "decimal fixed"};
      case 12:
        return {json::object{{"type", "array"}, {"items", "int"}}, json::array{1, 2}, json::array{1, 2},
                "array"};
      case 13:
        return {json::object{{"type", "map"}, {"values", "string"}}, json::object{{"k", "v"}},
                json::object{{"k", "v"}}, "map"};
      case 14:
        return {"bytes", "\u00ff\u0001", "\u00ff\u0001", "bytes"};
      default:
        // A record's default need not give the fields that have their own.
        return {
            json::object{{"type", "record"},
                         {"name", named("A")},
                         {"fields",
                          {json::object{{"name", "c"}, {"type", "string"}},
                           json::object{{"name", "z"}, {"type", {"null", "long"}}, {"default", nullptr}}}}},
            json::object{{"c", "Paris"}}, json::object{{"c", "Paris"}, {"z", nullptr}}, "record"};
    }
  }

  std::mt19937_64 g_;
  int names_ = 0;
};

}  // namespace streamt::test::avro_c
