// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/decode.hpp"
#include "operators/registry_frame.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace std::string_literals;
using streamt::operators::read_registry_frame;
using streamt::operators::registry_framed_hint;

BOOST_AUTO_TEST_SUITE(registry_frames)

BOOST_AUTO_TEST_CASE(a_zero_byte_and_a_four_byte_id_frame_the_body) {
  streamt::diagnostic why;
  const std::string value = "\x00\x00\x00\x01\x02"s + "body";
  auto f = read_registry_frame(value, why);
  BOOST_TEST_REQUIRE(f.has_value());
  BOOST_TEST(f->schema_id == 258u);
  BOOST_TEST(f->body == "body");
  // An empty body is a frame too (an Avro record of no fields).
  BOOST_TEST(read_registry_frame("\x00\x00\x00\x00\x07"s, why).has_value());
}

BOOST_AUTO_TEST_CASE(a_value_that_is_not_framed_is_refused_for_what_it_is) {
  streamt::diagnostic why;
  BOOST_TEST(!read_registry_frame("\x00\x00\x01"s, why));
  BOOST_TEST(why.code == "not_registry_framed");
  BOOST_TEST(why.message.find("has 3 bytes") != std::string::npos);
  BOOST_TEST(!read_registry_frame(R"({"id": 1})", why));
  BOOST_TEST(why.message.find("starts with byte 0x7b ('{')") != std::string::npos);
  BOOST_TEST(why.message.find("looks like JSON") != std::string::npos);
  BOOST_TEST(!read_registry_frame("\x00\x00\x00\x00\x00"s, why));
  BOOST_TEST(why.message.find("schema id is 0") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_apicurio_eight_byte_id_is_named_with_the_setting_that_fixes_it) {
  streamt::diagnostic why;
  const std::string value = "\x00\x00\x00\x00\x00\x00\x00\x00\x2a"s + "body";
  BOOST_TEST(!read_registry_frame(value, why));
  BOOST_TEST(why.code == "not_registry_framed");
  BOOST_TEST(why.message.find("8-byte schema id (42)") != std::string::npos);
  BOOST_TEST(why.message.find("apicurio.registry.as-confluent=true") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_json_plan_meeting_a_registry_framed_value_says_what_it_looks_like) {
  streamt::plan::schema s;
  s.source = "orders";
  s.topic = "orders";
  s.columns = {{"id", streamt::plan::column_type::string, false}};
  const streamt::operators::decode_definition def(s);
  streamt::operators::decode_state state;
  streamt::operators::row row(1);
  streamt::diagnostic error;
  const std::string framed = "\x00\x00\x00\x00\x0c\x06"s + "abc";
  BOOST_TEST(!streamt::operators::decode(def, state, framed, row, error));
  BOOST_TEST(error.code == "malformed_json");
  BOOST_TEST(error.message.find("the value looks registry-framed (a zero byte, then schema id 12)") == 0u);
  BOOST_TEST(error.message.find("streamt compile --schema FILE.avsc") != std::string::npos);
  // Plain bad JSON gets no such hint.
  BOOST_TEST(!streamt::operators::decode(def, state, "{\"id\": }", row, error));
  BOOST_TEST(error.message.find("registry") == std::string::npos);
  BOOST_TEST(registry_framed_hint("\x00\x00\x00\x00\x00"s).empty());
}

BOOST_AUTO_TEST_SUITE_END()
