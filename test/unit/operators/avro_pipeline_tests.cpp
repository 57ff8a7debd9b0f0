// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The stage pipeline of an Avro source: registry-framed values, a decoder
// per writer schema id learnt once, a record of an unknown id reported as
// such (and processed again once learnt), refusals kept per id.

#include "operators/stage_pipeline.hpp"
#include "plan/schema_file.hpp"
#include "plan/sql/compile.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace std::string_literals;
namespace plan = streamt::plan;
using streamt::operators::outcome;
using streamt::operators::stage_pipeline;

namespace {

constexpr const char* reader = R"({"type": "record", "name": "Payment", "fields": [
  {"name": "id", "type": "long"},
  {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
  {"name": "op", "type": "string"},
  {"name": "note", "type": ["null", "string"], "default": null}]})";

// The same fields, an int id and one more field: resolves to the reader.
constexpr const char* writer_v2 = R"({"type": "record", "name": "Payment", "fields": [
  {"name": "id", "type": "int"},
  {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
  {"name": "op", "type": "string"},
  {"name": "note", "type": ["null", "string"], "default": null},
  {"name": "extra", "type": "string"}]})";

// Amounts at another scale: every value would be read wrong.
constexpr const char* writer_rescaled = R"({"type": "record", "name": "Payment", "fields": [
  {"name": "id", "type": "long"},
  {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 3}},
  {"name": "op", "type": "string"},
  {"name": "note", "type": ["null", "string"], "default": null}]})";

plan::plan compiled() {
  auto s = plan::schema_from_avro(reader, "payments", "payments");
  BOOST_TEST_REQUIRE(s.has_value());
  // A JSON sink, so that the outputs read as text here; the Avro sink has
  // its own tests (avro_sink_tests.cpp).
  plan::compile_options options{"pay", "out"};
  options.sink_format = plan::sink_format::json;
  auto p = plan::compile("SELECT id, amount, note FROM payments WHERE op = 'c'", *s, options);
  BOOST_TEST_REQUIRE(p.has_value(), (p ? std::string() : p.error().message));
  return *p;
}

std::string framed(std::uint8_t id, const std::string& body) { return "\x00\x00\x00\x00"s + char(id) + body; }

// id 7, amount 12.50 (1250: 0x04e2), op "c", note null
const std::string create = "\x0e\x04\x04\xe2\x02"s + "c" + "\x00"s;
// id 7, amount 12.50, op "u", note null
const std::string update = "\x0e\x04\x04\xe2\x02"s + "u" + "\x00"s;
// writer_v2: id 7, amount 12.50, op "c", note "hi", extra "x"
const std::string create_v2 = "\x0e\x04\x04\xe2\x02"s + "c" + "\x02\x04"s + "hi" + "\x02"s + "x";

}  // namespace

BOOST_AUTO_TEST_SUITE(avro_pipeline)

BOOST_AUTO_TEST_CASE(a_record_of_an_unknown_schema_id_waits_for_it_and_then_runs) {
  stage_pipeline stages(compiled());
  BOOST_TEST(stages.reads_avro());
  const std::string value = framed(5, create);
  auto s = stages.process(value);
  BOOST_TEST(static_cast<int>(s.outcome) == static_cast<int>(outcome::needs_schema));
  BOOST_TEST(s.schema_id == 5u);
  BOOST_TEST(stages.learn_schema(5, reader) == nullptr);
  s = stages.process(value);
  BOOST_TEST_REQUIRE(static_cast<int>(s.outcome) == static_cast<int>(outcome::emitted));
  BOOST_TEST(s.output == R"({"id":7,"amount":12.50,"note":null})");
  const std::string filtered = framed(5, update);
  BOOST_TEST(static_cast<int>(stages.process(filtered).outcome) == static_cast<int>(outcome::filtered));
}

BOOST_AUTO_TEST_CASE(a_newer_compatible_writer_is_read_without_a_restart) {
  stage_pipeline stages(compiled());
  BOOST_TEST(stages.learn_schema(5, reader) == nullptr);
  BOOST_TEST(stages.learn_schema(6, writer_v2) == nullptr);
  const std::string v1 = framed(5, create), v2 = framed(6, create_v2);
  auto s = stages.process(v2);
  BOOST_TEST_REQUIRE(static_cast<int>(s.outcome) == static_cast<int>(outcome::emitted));
  BOOST_TEST(s.output == R"({"id":7,"amount":12.50,"note":"hi"})");
  s = stages.process(v1);
  BOOST_TEST(s.output == R"({"id":7,"amount":12.50,"note":null})");
}

BOOST_AUTO_TEST_CASE(an_incompatible_or_unknown_writer_makes_its_records_invalid_and_says_why) {
  stage_pipeline stages(compiled());
  const streamt::diagnostic* why = stages.learn_schema(9, writer_rescaled);
  BOOST_TEST_REQUIRE(why != nullptr);
  BOOST_TEST(why->code == "schema_incompatible");
  BOOST_TEST(why->message.find("$.amount") != std::string::npos);
  BOOST_TEST(why->message.find("scales differ") != std::string::npos);
  const std::string value = framed(9, create);
  auto s = stages.process(value);
  BOOST_TEST_REQUIRE(static_cast<int>(s.outcome) == static_cast<int>(outcome::invalid));
  BOOST_TEST(s.error->code == "schema_incompatible");

  stages.unknown_schema(11);
  const std::string unknown = framed(11, create);
  s = stages.process(unknown);
  BOOST_TEST_REQUIRE(static_cast<int>(s.outcome) == static_cast<int>(outcome::invalid));
  BOOST_TEST(s.error->code == "unknown_schema_id");
  BOOST_TEST(s.error->message.find("id 11") != std::string::npos);

  s = stages.process(R"({"id": 7})");
  BOOST_TEST_REQUIRE(static_cast<int>(s.outcome) == static_cast<int>(outcome::invalid));
  BOOST_TEST(s.error->code == "not_registry_framed");
}

BOOST_AUTO_TEST_CASE(a_writer_schema_the_registry_names_as_another_type_is_refused_by_its_type) {
  stage_pipeline stages(compiled());
  const streamt::diagnostic* why = stages.learn_schema(12, R"({"type":"object"})", "JSON");
  BOOST_TEST_REQUIRE(why != nullptr);
  BOOST_TEST(why->code == "schema_incompatible");
  BOOST_TEST(why->message.find("is a JSON schema in the Schema Registry, not an Avro one") !=
             std::string::npos);
  const std::string value = framed(12, create);
  BOOST_TEST(static_cast<int>(stages.process(value).outcome) == static_cast<int>(outcome::invalid));
}

BOOST_AUTO_TEST_CASE(a_forgotten_writer_schema_is_needed_again_by_its_next_record) {
  stage_pipeline stages(compiled());
  stages.unknown_schema(11);
  const std::string value = framed(11, create);
  BOOST_TEST(static_cast<int>(stages.process(value).outcome) == static_cast<int>(outcome::invalid));
  stages.forget_schema(11);
  const auto s = stages.process(value);
  BOOST_TEST_REQUIRE(static_cast<int>(s.outcome) == static_cast<int>(outcome::needs_schema));
  BOOST_TEST(s.schema_id == 11u);
}

BOOST_AUTO_TEST_CASE(a_malformed_body_is_invalid_with_its_column_and_byte) {
  stage_pipeline stages(compiled());
  BOOST_TEST(stages.learn_schema(5, reader) == nullptr);
  const std::string truncated = framed(5, create.substr(0, 3));
  auto s = stages.process(truncated);
  BOOST_TEST_REQUIRE(static_cast<int>(s.outcome) == static_cast<int>(outcome::invalid));
  BOOST_TEST(s.error->code == "malformed_avro");
  BOOST_TEST(s.error->message.find("$.amount") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
