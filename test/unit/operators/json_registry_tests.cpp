// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The stage pipeline of a json-registry source: each value's Confluent frame
// (a zero byte, a 4-byte schema id) is checked and stripped, and the JSON
// after it decoded by the plan's schema exactly as a plain JSON value is.

#include "operators/stage_pipeline.hpp"
#include "plan/schema_file.hpp"
#include "plan/sql/compile.hpp"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

// Counts every allocation of this test program, so that a test can say a
// call allocated nothing.
namespace {
std::atomic<long> allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  ++allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace std::string_literals;
namespace plan = streamt::plan;
using streamt::operators::outcome;
using streamt::operators::stage_pipeline;

namespace {

constexpr const char* schema_file = R"({"source": "orders", "topic": "orders", "columns": [
  {"name": "id", "type": "STRING", "nullable": false},
  {"name": "amount", "type": "BIGINT", "nullable": false}]})";

plan::plan compiled(plan::value_format format) {
  auto s = plan::load_schema(schema_file);
  BOOST_TEST_REQUIRE(s.has_value());
  s->value_format = format;
  auto p = plan::compile("SELECT id, amount FROM orders WHERE amount >= 50", *s, {"orders-big", "big"});
  BOOST_TEST_REQUIRE(p.has_value(), (p ? std::string() : p.error().message));
  return *p;
}

// As Confluent's JsonSchemaSerializer writes it: schema id 258.
std::string framed(const std::string& json) { return "\x00\x00\x00\x01\x02"s + json; }

bool is(const streamt::operators::step& s, outcome o) {
  return static_cast<int>(s.outcome) == static_cast<int>(o);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(json_registry)

BOOST_AUTO_TEST_CASE(a_framed_value_is_decoded_as_the_same_json_unframed_is) {
  stage_pipeline framed_stages(compiled(plan::value_format::json_registry));
  stage_pipeline plain_stages(compiled(plan::value_format::json));
  const std::string json = R"({"id": "a", "amount": 70})";
  const std::string value = framed(json);
  auto s = framed_stages.process(value);
  BOOST_TEST_REQUIRE(is(s, outcome::emitted));
  BOOST_TEST(s.output == R"({"id":"a","amount":70})");
  BOOST_TEST(s.output == plain_stages.process(json).output);
  const std::string small = framed(R"({"id": "b", "amount": 3})");
  BOOST_TEST(is(framed_stages.process(small), outcome::filtered));
  // The id is not looked up: any id frames the value.
  const std::string other_id = "\x00\x7f\xff\xff\xff"s + json;
  BOOST_TEST(is(framed_stages.process(other_id), outcome::emitted));
}

BOOST_AUTO_TEST_CASE(a_framed_value_allocates_nothing_in_the_steady_state) {
  stage_pipeline stages(compiled(plan::value_format::json_registry));
  const std::string value = framed(R"({"id": "a", "amount": 70})");
  BOOST_TEST_REQUIRE(is(stages.process(value), outcome::emitted));
  const long before = allocations.load();
  for (int i = 0; i < 100; ++i) (void)stages.process(value);
  BOOST_TEST(allocations.load() - before == 0);
}

BOOST_AUTO_TEST_CASE(plain_json_is_refused_with_the_option_that_reads_it) {
  stage_pipeline stages(compiled(plan::value_format::json_registry));
  auto s = stages.process(R"({"id": "a", "amount": 70})");
  BOOST_TEST_REQUIRE(is(s, outcome::invalid));
  BOOST_TEST(s.error->code == "not_registry_framed");
  BOOST_TEST(s.error->message.find("starts with byte 0x7b ('{'), not a zero byte") != std::string::npos);
  BOOST_TEST(s.error->message.find("looks like plain JSON") != std::string::npos);
  BOOST_TEST(s.error->message.find("--value-format json reads it") != std::string::npos, s.error->message);
  s = stages.process("xyzzy");
  BOOST_TEST_REQUIRE(is(s, outcome::invalid));
  BOOST_TEST(s.error->message.find("0x78 ('x')") != std::string::npos);
  BOOST_TEST(s.error->message.find("--value-format json reads values of plain JSON") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_value_shorter_than_the_frame_or_with_id_0_is_refused) {
  stage_pipeline stages(compiled(plan::value_format::json_registry));
  auto s = stages.process("\x00\x00\x01"s);
  BOOST_TEST_REQUIRE(is(s, outcome::invalid));
  BOOST_TEST(s.error->code == "not_registry_framed");
  BOOST_TEST(s.error->message.find("has 3 bytes") != std::string::npos);
  s = stages.process("\x00\x00\x00\x00\x00{}"s);
  BOOST_TEST_REQUIRE(is(s, outcome::invalid));
  BOOST_TEST(s.error->message.find("schema id is 0") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(apicurios_eight_byte_id_is_named_with_the_setting_that_fixes_it) {
  stage_pipeline stages(compiled(plan::value_format::json_registry));
  auto s = stages.process("\x00\x00\x00\x00\x00\x00\x00\x00\x2a"s + R"({"id": "a", "amount": 70})");
  BOOST_TEST_REQUIRE(is(s, outcome::invalid));
  BOOST_TEST(s.error->code == "not_registry_framed");
  BOOST_TEST(s.error->message.find("8-byte schema id (42)") != std::string::npos);
  BOOST_TEST(s.error->message.find("apicurio.registry.as-confluent=true") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_json_after_the_frame_is_held_to_the_schema_as_plain_json_is) {
  stage_pipeline stages(compiled(plan::value_format::json_registry));
  auto s = stages.process(framed(R"({"id": "a", "amount": "70"})"));
  BOOST_TEST_REQUIRE(is(s, outcome::invalid));
  BOOST_TEST(s.error->code == "wrong_type");
  // Byte offsets count in the JSON text, after the frame.
  BOOST_TEST(s.error->message.find("found a string at byte 22") != std::string::npos, s.error->message);
  // A frame with nothing after it has an empty JSON text.
  s = stages.process("\x00\x00\x00\x01\x02"s);
  BOOST_TEST_REQUIRE(is(s, outcome::invalid));
  BOOST_TEST(s.error->code == "empty_value");
  BOOST_TEST(s.error->message ==
             "the value is a frame (a zero byte, then schema id 258) with no JSON after it");
}

BOOST_AUTO_TEST_CASE(a_plain_json_plan_meeting_framed_json_names_json_registry) {
  stage_pipeline stages(compiled(plan::value_format::json));
  auto s = stages.process(framed(R"({"id": "a", "amount": 70})"));
  BOOST_TEST_REQUIRE(is(s, outcome::invalid));
  BOOST_TEST(s.error->code == "malformed_json");
  BOOST_TEST(
      s.error->message.find("the value looks registry-framed (a zero byte, then schema id 258), then a "
                            "JSON object: compile the plan with --value-format json-registry;") == 0u,
      s.error->message);
}

BOOST_AUTO_TEST_SUITE_END()
