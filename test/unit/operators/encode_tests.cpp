// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/encode.hpp"

#include "orders_fixture.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace ops = streamt::operators;
namespace plan = streamt::plan;
namespace t = streamt::operators::test;

namespace {

// The strings are views: pass literals (or strings that outlive the row).
ops::row make_row(std::string_view id, std::int64_t amount, std::string_view note, bool flag) {
  ops::row r(4);
  r.slots[t::id] = {false, 0, false, id, {}};
  r.slots[t::amount] = {false, amount, false, {}, {}};
  r.slots[t::note] = {false, 0, false, note, {}};
  r.slots[t::flag] = {false, 0, flag, {}, {}};
  return r;
}

std::string encoded(const plan::plan& p, const ops::row& r) {
  ops::project_definition proj(p);
  ops::encode_definition def(proj);
  std::string out;
  return std::string(ops::encode(def, r, out));
}

std::string escaped(std::string_view s) {
  std::string out;
  ops::append_escaped(out, s);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(encode)

BOOST_AUTO_TEST_CASE(writes_compact_json_in_projection_order_under_output_names) {
  BOOST_TEST(encoded(t::orders_plan(), make_row("o-1", 120, "hi", true)) ==
             R"({"amount":120,"order_id":"o-1","flag":true,"note":"hi"})");
}

BOOST_AUTO_TEST_CASE(writes_output_names_of_any_characters_as_escaped_json_members) {
  plan::plan p = t::orders_plan();
  p.projection = {{t::amount, "@timestamp"},
                  {t::id, "say\"hi\""},
                  {t::flag, "tab\there"},
                  {t::note,
                   "Gr\xc3\xbc\xc3\x9f"
                   "e"}};
  BOOST_TEST(encoded(p, make_row("o-1", 120, "hi", true)) ==
             "{\"@timestamp\":120,\"say\\\"hi\\\"\":\"o-1\",\"tab\\there\":true,\"Gr\xc3\xbc\xc3\x9f"
             "e\":\"hi\"}");
}

BOOST_AUTO_TEST_CASE(writes_null_for_null_slots_of_any_type) {
  ops::row r = make_row("o-1", 1, "x", false);
  r.slots[t::note].is_null = true;
  r.slots[t::flag].is_null = true;
  BOOST_TEST(encoded(t::orders_plan(), r) == R"({"amount":1,"order_id":"o-1","flag":null,"note":null})");
  r.slots[t::flag].is_null = false;
  BOOST_TEST(encoded(t::orders_plan(), r) == R"({"amount":1,"order_id":"o-1","flag":false,"note":null})");
}

BOOST_AUTO_TEST_CASE(writes_bigints_exactly_including_the_int64_limits) {
  plan::plan p = t::orders_plan();
  p.projection = {{t::amount, "a"}};
  BOOST_TEST(encoded(p, make_row("", std::numeric_limits<std::int64_t>::max(), "", true)) ==
             R"({"a":9223372036854775807})");
  BOOST_TEST(encoded(p, make_row("", std::numeric_limits<std::int64_t>::min(), "", true)) ==
             R"({"a":-9223372036854775808})");
  BOOST_TEST(encoded(p, make_row("", 0, "", true)) == R"({"a":0})");
  BOOST_TEST(encoded(p, make_row("", -1, "", true)) == R"({"a":-1})");
  BOOST_TEST(encoded(p, make_row("", 9007199254740993, "", true)) == R"({"a":9007199254740993})");
}

BOOST_AUTO_TEST_CASE(escapes_quotes_backslashes_and_control_characters) {
  BOOST_TEST(escaped(R"(say "hi" \ bye)") == R"(say \"hi\" \\ bye)");
  BOOST_TEST(escaped("\b\f\n\r\t") == R"(\b\f\n\r\t)");
  BOOST_TEST(escaped(std::string("\0\x01\x1f", 3)) == R"(\u0000\u0001\u001f)");
  BOOST_TEST(escaped("/") == "/");
  BOOST_TEST(escaped("\x7f") == "\x7f");
  BOOST_TEST(escaped("") == "");
}

BOOST_AUTO_TEST_CASE(escapes_every_control_character_so_the_output_is_json) {
  for (int c = 0; c < 0x20; ++c) {
    std::string e = escaped(std::string(1, static_cast<char>(c)));
    BOOST_TEST(e.size() >= 2u);
    BOOST_TEST(e[0] == '\\');
    for (char ch : e) BOOST_TEST(static_cast<unsigned char>(ch) >= 0x20u);
  }
}

BOOST_AUTO_TEST_CASE(escapes_a_special_byte_at_every_position_of_a_long_string) {
  // append_escaped checks eight bytes at a time: a special byte must be found
  // wherever it sits in a word, next to UTF-8 bytes too.
  const std::pair<char, std::string_view> specials[] = {{'"', R"(\")"},      {'\\', R"(\\)"},
                                                        {'\n', R"(\n)"},     {'\x1f', R"(\u001f)"},
                                                        {'\0', R"(\u0000)"}, {'\x01', R"(\u0001)"}};
  for (auto [c, escape] : specials) {
    for (std::size_t pos = 0; pos < 20; ++pos) {
      std::string input =
          "\xc3\xa9"
          "abcdefghijklmnop"
          "\xe4\xb8\xad";
      std::string expected = input;
      input.insert(pos, 1, c);
      expected.insert(pos, escape);
      BOOST_TEST(escaped(input) == expected, "byte " << static_cast<int>(c) << " at " << pos);
    }
  }
  BOOST_TEST(escaped(std::string(17, '\x7f')) == std::string(17, '\x7f'));
  BOOST_TEST(escaped(std::string(17, ' ')) == std::string(17, ' '));
  BOOST_TEST(escaped(std::string(16, '!')) == std::string(16, '!'));
}

BOOST_AUTO_TEST_CASE(escapes_a_special_byte_at_every_position_of_strings_of_every_length) {
  // Strings shorter than 16 and 8 bytes take other paths than longer ones,
  // and a tail is read again as the last word of the string. The fillers are
  // the bytes just above each special one (' ' after controls, '#' after
  // '"', ']' after '\\'): a borrow out of an already escaped byte must not
  // make them look special (found by fuzz_record).
  const std::pair<char, std::string_view> specials[] = {
      {'"', R"(\")"}, {'\\', R"(\\)"}, {'\n', R"(\n)"}, {'\x01', R"(\u0001)"}, {'\x1f', R"(\u001f)"}};
  for (char filler : {'\xc3', ' ', '#', ']', 'a'}) {
    for (std::size_t len = 0; len <= 40; ++len) {
      for (std::size_t pos = 0; pos <= len; ++pos) {
        for (auto [c, escape] : specials) {
          std::string input(len, filler);
          std::string expected = input;
          input.insert(pos, 1, c);
          expected.insert(pos, escape);
          BOOST_TEST(escaped(input) == expected,
                     "byte " << static_cast<int>(c) << " at " << pos << " of " << len << " in " << filler);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(passes_valid_utf8_through_unchanged) {
  std::string s = "caf\xc3\xa9 \xf0\x9f\x98\x80 \xe2\x80\xa8 \xe4\xb8\xad";
  BOOST_TEST(escaped(s) == s);
}

BOOST_AUTO_TEST_CASE(escapes_strings_in_values_and_output_names) {
  plan::plan p = t::orders_plan();
  p.projection = {{t::note, "we\"ird"}};
  BOOST_TEST(encoded(p, make_row("", 0, "a\"b\\c\nd", true)) == R"({"we\"ird":"a\"b\\c\nd"})");
}

BOOST_AUTO_TEST_CASE(writes_an_empty_object_for_an_empty_projection) {
  plan::plan p = t::orders_plan();
  p.projection.clear();
  BOOST_TEST(encoded(p, make_row("", 0, "", true)) == "{}");
}

BOOST_AUTO_TEST_CASE(reuses_the_output_buffer_without_reallocating) {
  ops::project_definition proj(t::orders_plan());
  ops::encode_definition def(proj);
  std::string out;
  auto first = ops::encode(def, make_row("a-long-identifier-0000000001", 1234567, "a long note", true), out);
  BOOST_TEST(first.data() == out.data());
  const char* storage = out.data();
  auto second = ops::encode(def, make_row("b", 2, "n", false), out);
  BOOST_TEST(second == R"({"amount":2,"order_id":"b","flag":false,"note":"n"})");
  BOOST_TEST(static_cast<const void*>(out.data()) == static_cast<const void*>(storage));
}

BOOST_AUTO_TEST_CASE(pre_renders_each_name_with_its_separator) {
  ops::project_definition proj(t::orders_plan());
  ops::encode_definition def(proj);
  BOOST_TEST_REQUIRE(def.fields().size() == 4u);
  BOOST_TEST(def.fields()[0].prefix == R"({"amount":)");
  BOOST_TEST(def.fields()[1].prefix == R"(,"order_id":)");
  BOOST_TEST(def.fields()[3].prefix == R"(,"note":)");
}

BOOST_AUTO_TEST_SUITE_END()
