// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/avro_resolve.hpp"

#include "case_files.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

namespace data = boost::unit_test::data;
namespace avro = streamt::plan::avro;
namespace json = boost::json;

namespace {

// Case names: the *.json files of test/data/avro_resolution/, sorted.
std::vector<std::string> resolution_cases() { return streamt::test::case_names("avro_resolution"); }

std::map<std::string, std::string> expected(const std::string& name) {
  return streamt::test::read_key_values("avro_resolution", name, ".expected");
}

avro::schema parsed(std::string_view text) {
  auto s = avro::parse_schema(text);
  BOOST_TEST_REQUIRE(s.has_value(), (s ? std::string() : s.error().path + ": " + s.error().message));
  return std::move(*s);
}

avro::schema member(const json::value& v, const char* key) { return parsed(json::serialize(v.at(key))); }

// True if some step says a datum can fail: an unresolvable union branch, or
// an enum symbol the reader lacks.
bool datum_may_fail(const avro::resolution& r) {
  return std::any_of(r.steps.begin(), r.steps.end(), [](const avro::step& s) {
    return s.kind == avro::step_kind::unresolvable ||
           (s.kind == avro::step_kind::enum_ &&
            std::find(s.symbols.begin(), s.symbols.end(), -1) != s.symbols.end());
  });
}

}  // namespace

BOOST_AUTO_TEST_SUITE(avro_resolution)

// Each case's verdict is fastavro's (generate.py wrote it from what fastavro
// did with a datum) unless its sidecar names why we are stricter.
BOOST_DATA_TEST_CASE(each_writer_and_reader_pair_resolves_as_its_sidecar_says, data::make(resolution_cases()),
                     name) {
  const json::value pair =
      json::parse(streamt::test::read_file(streamt::test::data_dir("avro_resolution") / (name + ".json")));
  const auto writer = member(pair, "writer");
  const auto reader = member(pair, "reader");
  const auto want = expected(name);
  auto r = avro::resolve(writer, reader, avro::everything);
  const std::string& verdict = want.at("verdict");
  if (verdict == "schema_incompatible") {
    BOOST_TEST_REQUIRE(!r.has_value(), name << " must not resolve");
    BOOST_TEST(r.error().code == "schema_incompatible");
    BOOST_TEST(r.error().path == want.at("path"));
    BOOST_TEST(!r.error().message.empty());
    return;
  }
  BOOST_TEST_REQUIRE(r.has_value(), (r ? std::string() : r.error().path + ": " + r.error().message));
  // Which datum fails is the decoder's to show; the resolution must at least
  // mark the branch or symbol that can fail one.
  if (verdict == "datum_fails") BOOST_TEST(datum_may_fail(*r));
  BOOST_TEST(static_cast<int>(r->steps.front().kind) == static_cast<int>(avro::step_kind::record));
}

BOOST_AUTO_TEST_CASE(a_field_the_plan_does_not_read_may_change_type_or_lose_its_default) {
  const auto writer = parsed(R"({"type": "record", "name": "R", "fields": [
      {"name": "id", "type": "long"}, {"name": "note", "type": "string"}]})");
  const auto reader = parsed(R"({"type": "record", "name": "R", "fields": [
      {"name": "id", "type": "long"}, {"name": "note", "type": "int"}, {"name": "extra", "type": "string"}]})");
  auto reads_id = [](const std::vector<std::string>& path) {
    return path == std::vector<std::string>{"id"} ? avro::need::whole : avro::need::none;
  };
  auto r = avro::resolve(writer, reader, reads_id);
  BOOST_TEST_REQUIRE(r.has_value());
  const avro::step& root = r->steps.front();
  BOOST_TEST_REQUIRE(root.fields.size() == 2u);
  BOOST_TEST(static_cast<int>(r->steps[root.fields[0].step].kind) == static_cast<int>(avro::step_kind::read));
  BOOST_TEST(static_cast<int>(r->steps[root.fields[1].step].kind) == static_cast<int>(avro::step_kind::skip));
  BOOST_TEST(root.defaulted.empty());

  auto all = avro::resolve(writer, reader, avro::everything);
  BOOST_TEST_REQUIRE(!all.has_value());
  BOOST_TEST(all.error().path == "$.note");
  BOOST_TEST(all.error().message.find("the writer's string cannot be read as the reader's int") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(only_the_fields_of_a_row_the_plan_reads_into_are_resolved) {
  const auto writer = parsed(R"({"type": "record", "name": "E", "fields": [{"name": "after", "type":
      {"type": "record", "name": "V", "fields": [{"name": "amount", "type": "int"}, {"name": "tag", "type": "string"}]}}]})");
  const auto reader = parsed(R"({"type": "record", "name": "E", "fields": [{"name": "after", "type":
      {"type": "record", "name": "V", "fields": [{"name": "amount", "type": "long"}, {"name": "tag", "type": "long"}]}}]})");
  auto reads_amount = [](const std::vector<std::string>& path) {
    if (path == std::vector<std::string>{"after"}) return avro::need::part;
    if (path == std::vector<std::string>{"after", "amount"}) return avro::need::whole;
    return avro::need::none;
  };
  BOOST_TEST(avro::resolve(writer, reader, reads_amount).has_value());
  auto all = avro::resolve(writer, reader, avro::everything);
  BOOST_TEST_REQUIRE(!all.has_value());
  BOOST_TEST(all.error().path == "$.after.tag");
}

BOOST_AUTO_TEST_CASE(a_recursive_record_gets_a_bounded_number_of_steps) {
  const auto s = parsed(R"({"type": "record", "name": "Node", "fields": [
      {"name": "v", "type": "long"}, {"name": "next", "type": ["null", "Node"]}]})");
  auto r = avro::resolve(s, s, avro::everything);
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(r->steps.size() < 10u);
}

BOOST_AUTO_TEST_CASE(the_message_says_which_unit_or_scale_differs_and_which_way_values_would_go) {
  auto resolve_field = [](const char* w, const char* r) {
    const auto writer = parsed(
        std::string(R"({"type": "record", "name": "R", "fields": [{"name": "x", "type": )") + w + "}]}");
    const auto reader = parsed(
        std::string(R"({"type": "record", "name": "R", "fields": [{"name": "x", "type": )") + r + "}]}");
    return avro::resolve(writer, reader, avro::everything);
  };
  auto units = resolve_field(R"({"type": "long", "logicalType": "timestamp-millis"})",
                             R"({"type": "long", "logicalType": "timestamp-micros"})");
  BOOST_TEST_REQUIRE(!units.has_value());
  BOOST_TEST(units.error().message.find("1000 times too early") != std::string::npos);
  auto scale = resolve_field(R"({"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 3})",
                             R"({"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2})");
  BOOST_TEST_REQUIRE(!scale.has_value());
  BOOST_TEST(scale.error().message.find("scales differ (3 and 2)") != std::string::npos);
  auto wider = resolve_field(R"({"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2})",
                             R"({"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2})");
  BOOST_TEST_REQUIRE(!wider.has_value());
  BOOST_TEST(wider.error().message.find("precision 12 exceeds the reader's 10") != std::string::npos);
  BOOST_TEST(resolve_field(R"({"type": "bytes", "logicalType": "decimal", "precision": 8, "scale": 2})",
                           R"({"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2})")
                 .has_value());
}

BOOST_AUTO_TEST_SUITE_END()
