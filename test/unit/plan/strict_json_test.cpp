// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#define BOOST_TEST_MODULE plan
#include "plan/strict_json.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using streamt::phase;
using streamt::plan::max_document_bytes;
using streamt::plan::max_document_depth;
using streamt::plan::parse_strict_json;

namespace {

streamt::diagnostic error_of(std::string_view text, phase ph = phase::plan) {
  auto r = parse_strict_json(text, ph);
  BOOST_TEST_REQUIRE(r.has_error(), "expected an error for: " << text);
  return r.error();
}

std::string nested_arrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

BOOST_AUTO_TEST_SUITE(strict_json)

BOOST_AUTO_TEST_CASE(parses_a_document_into_the_dom) {
  auto r = parse_strict_json(
      R"({"a": [1, -9223372036854775808, 18446744073709551615, 1.5, "x", true, null]})", phase::plan);
  BOOST_TEST_REQUIRE(r.has_value());
  const auto& a = r->at("a").as_array();
  BOOST_TEST(a.size() == 7u);
  BOOST_TEST(a[0].is_int64());
  BOOST_TEST(a[1].as_int64() == INT64_MIN);
  BOOST_TEST(a[2].is_uint64());
  BOOST_TEST(a[3].is_double());
  BOOST_TEST(a[4].as_string() == "x");
  BOOST_TEST(a[5].as_bool());
  BOOST_TEST(a[6].is_null());
}

BOOST_AUTO_TEST_CASE(accepts_whitespace_after_the_document) {
  auto r = parse_strict_json("{\"a\": 1}\n\n  \t\r\n", phase::schema);
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(r->at("a").as_int64() == 1);
}

BOOST_AUTO_TEST_CASE(keeps_the_same_key_in_different_objects) {
  auto r = parse_strict_json(R"([{"a": 1}, {"a": 2, "b": {"a": 3}}])", phase::plan);
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(r->as_array()[1].at("b").at("a").as_int64() == 3);
}

BOOST_AUTO_TEST_CASE(rejects_a_duplicate_key_at_the_top_level_with_its_position) {
  auto d = error_of("{\"op\": \">=\",\n \"op\": \"<\"}");
  BOOST_TEST(d.code == "duplicate_key");
  BOOST_TEST(d.path == "$.op");
  BOOST_TEST(d.line == 2u);
  BOOST_TEST(d.column == 2u);
  BOOST_TEST(d.message.find("'op'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(rejects_a_duplicate_key_inside_arrays_with_its_path) {
  auto d = error_of(R"({"columns": [{"name": "a"}, {"name": "b", "name": "c"}]})");
  BOOST_TEST(d.code == "duplicate_key");
  BOOST_TEST(d.path == "$.columns[1].name");
  BOOST_TEST(d.line == 1u);
  BOOST_TEST(d.column == 43u);
}

BOOST_AUTO_TEST_CASE(rejects_a_duplicate_key_after_nested_values_with_its_path) {
  auto d = error_of(R"([[1, [2]], {"x": {"y": [true, {}]}, "x y": {"k": 1, "k": 2}}])");
  BOOST_TEST(d.code == "duplicate_key");
  BOOST_TEST(d.path == R"($[1]["x y"].k)");
}

BOOST_AUTO_TEST_CASE(rejects_a_duplicate_key_spelled_with_an_escape) {
  auto d = error_of(R"({"a": 1, "\u0061": 2})");
  BOOST_TEST(d.code == "duplicate_key");
  BOOST_TEST(d.path == "$.a");
  BOOST_TEST(d.column == 10u);
}

BOOST_AUTO_TEST_CASE(rejects_a_long_duplicate_key_read_in_parts) {
  // Escapes make Boost deliver a long key through on_key_part several times.
  std::string key;
  for (int i = 0; i < 3000; ++i) key += "ab\\n";
  std::string doc = "{\"" + key + "\": 1, \"" + key + "\": 2}";
  auto d = error_of(doc);
  BOOST_TEST(d.code == "duplicate_key");
  BOOST_TEST(d.column == key.size() + 9);
}

BOOST_AUTO_TEST_CASE(rejects_a_duplicate_key_containing_an_escaped_quote_and_points_at_it) {
  auto d = error_of(R"({"a\"b": 1, "a\"b": 2})");
  BOOST_TEST(d.code == "duplicate_key");
  BOOST_TEST(d.column == 13u);
  BOOST_TEST(d.path == R"($["a\"b"])");
}

BOOST_AUTO_TEST_CASE(rejects_comments_with_their_position) {
  for (std::string doc : {"{\"a\": 1 // note\n}", "{\"a\": /* note */ 1}", "// head\n{}"}) {
    BOOST_TEST_CONTEXT(doc) {
      auto d = error_of(doc);
      BOOST_TEST(d.code == "malformed_json");
      BOOST_TEST(d.message.find("comments are not allowed") != std::string::npos);
      BOOST_TEST(d.line == 1u);
    }
  }
  BOOST_TEST(error_of("{\"a\": 1 // note\n}").column == 9u);
}

BOOST_AUTO_TEST_CASE(rejects_trailing_commas) {
  auto arr = error_of("[1, 2,]");
  BOOST_TEST(arr.message.find("trailing comma before ']'") != std::string::npos);
  BOOST_TEST(arr.column == 7u);
  auto obj = error_of("{\"a\": 1,\n}");
  BOOST_TEST(obj.message.find("trailing comma before '}'") != std::string::npos);
  BOOST_TEST(obj.line == 2u);
  BOOST_TEST(obj.column == 1u);
}

BOOST_AUTO_TEST_CASE(rejects_a_second_document_with_its_position) {
  auto d = error_of("{\"a\": 1}\n  {\"a\": 2}");
  BOOST_TEST(d.code == "malformed_json");
  BOOST_TEST(d.line == 2u);
  BOOST_TEST(d.column == 3u);
  BOOST_TEST(d.message.find("exactly one JSON document") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(rejects_trailing_data_after_a_scalar) {
  auto d = error_of("1 2");
  BOOST_TEST(d.code == "malformed_json");
  BOOST_TEST(d.column == 3u);
}

BOOST_AUTO_TEST_CASE(rejects_an_empty_document) {
  for (std::string doc : {"", " \n "}) {
    auto d = error_of(doc);
    BOOST_TEST(d.code == "malformed_json");
    BOOST_TEST(d.message.find("empty") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(rejects_an_unterminated_document_at_its_end) {
  auto d = error_of("{\"a\": [1,\n 2");
  BOOST_TEST(d.code == "malformed_json");
  BOOST_TEST(d.line == 2u);
  BOOST_TEST(d.column == 3u);
}

BOOST_AUTO_TEST_CASE(rejects_invalid_utf8_inside_and_outside_strings) {
  const std::string cases[] = {
      std::string("{\"a\": \"\xC0\x80\"}"),          // overlong NUL
      std::string("{\"a\": \"\x80\"}"),              // lone continuation byte
      std::string("{\"a\": \"\xED\xA0\x80\"}"),      // UTF-16 surrogate encoded
      std::string("{\"a\": \"\xF5\x80\x80\x80\"}"),  // above U+10FFFF
      std::string("{\"a\": \"\xE2\x82\"}"),          // truncated sequence
      std::string("{\"a\": \"\xE2\x82"),             // truncated at end of input
      std::string("{\"a\": 1}\xFF"),                 // outside any string
  };
  for (const auto& doc : cases) {
    BOOST_TEST_CONTEXT(doc.size()) {
      auto d = error_of(doc);
      BOOST_TEST(d.code == "malformed_json");
      BOOST_TEST(d.message.find("invalid UTF-8") != std::string::npos);
    }
  }
  BOOST_TEST(error_of(std::string("{\"a\": \"\xC0\x80\"}")).column == 8u);
}

BOOST_AUTO_TEST_CASE(accepts_valid_multibyte_utf8) {
  auto r =
      parse_strict_json("{\"k\": \"\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF\"}", phase::schema);
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(r->at("k").as_string().size() == 13u);
}

BOOST_AUTO_TEST_CASE(rejects_an_escaped_lone_surrogate) {
  auto d = error_of(R"({"a": "\ud800"})");
  BOOST_TEST(d.code == "malformed_json");
}

BOOST_AUTO_TEST_CASE(rejects_raw_control_characters_in_strings) {
  auto d = error_of("{\"a\": \"x\ty\"}");
  BOOST_TEST(d.code == "malformed_json");
  BOOST_TEST(d.column == 9u);
  BOOST_TEST(d.message.find("control character") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(accepts_nesting_up_to_the_limit) {
  BOOST_TEST(parse_strict_json(nested_arrays(max_document_depth), phase::plan).has_value());
}

BOOST_AUTO_TEST_CASE(rejects_nesting_beyond_the_limit_with_its_position) {
  auto d = error_of(nested_arrays(max_document_depth + 1));
  BOOST_TEST(d.code == "too_deep");
  BOOST_TEST(d.line == 1u);
  BOOST_TEST(d.column == max_document_depth + 1);
  BOOST_TEST(d.message.find(std::to_string(max_document_depth)) != std::string::npos);
  BOOST_TEST(d.message.find("is this the right file?") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(rejects_a_very_deep_document_without_exhausting_the_stack) {
  // Boost.JSON's parser keeps its own stack; the depth limit stops it at 33.
  auto d = error_of(nested_arrays(500000));  // 1,000,000 bytes: under the size limit
  BOOST_TEST(d.code == "too_deep");
  BOOST_TEST(d.column == max_document_depth + 1);
}

BOOST_AUTO_TEST_CASE(accepts_a_document_of_exactly_the_size_limit) {
  std::string doc = "\"" + std::string(max_document_bytes - 2, 'x') + "\"";
  BOOST_TEST(parse_strict_json(doc, phase::plan).has_value());
}

BOOST_AUTO_TEST_CASE(rejects_a_document_over_the_size_limit) {
  std::string doc = "\"" + std::string(max_document_bytes - 1, 'x') + "\"";
  auto d = error_of(doc);
  BOOST_TEST(d.code == "too_large");
  BOOST_TEST(d.message.find(std::to_string(max_document_bytes)) != std::string::npos);
  BOOST_TEST(d.message.find(std::to_string(max_document_bytes + 1) + " bytes") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(names_the_document_and_sets_the_phase) {
  auto s = error_of("{", phase::schema);
  BOOST_TEST(static_cast<int>(s.phase) == static_cast<int>(phase::schema));
  BOOST_TEST(s.message.find("schema") != std::string::npos);
  auto p = error_of("{", phase::plan);
  BOOST_TEST(static_cast<int>(p.phase) == static_cast<int>(phase::plan));
  BOOST_TEST(p.message.find("plan") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(formats_parse_errors_with_line_and_column) {
  auto d = error_of("{\n  \"a\": 1,\n  \"a\": 2\n}");
  BOOST_TEST(streamt::format(d).rfind("3:3: ", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(counts_columns_in_characters_not_bytes) {
  using streamt::plan::position_at;
  std::string text = "\xC3\xA9\xE4\xB8\xADx\nab";
  BOOST_TEST(position_at(text, 0).column == 1u);
  BOOST_TEST(position_at(text, 5).column == 3u);  // 'x' after two characters
  BOOST_TEST(position_at(text, 7).line == 2u);
  BOOST_TEST(position_at(text, 7).column == 1u);
  BOOST_TEST(position_at(text, 8).column == 2u);
  BOOST_TEST(position_at(text, 100).column == 3u);  // clamped to the end
}

BOOST_AUTO_TEST_SUITE_END()
