// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/sql/lexer.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <string_view>
#include <vector>

using namespace streamt;
using namespace streamt::plan::sql;

namespace {

std::vector<token> lex_ok(std::string_view sql) {
  auto r = lex(sql);
  BOOST_TEST_REQUIRE(r.has_value(), "lex failed: " << (r ? std::string() : format(r.error())));
  return std::move(*r);
}

diagnostic lex_error(std::string_view sql) {
  auto r = lex(sql);
  BOOST_TEST_REQUIRE(!r.has_value(), "lex accepted " << sql);
  BOOST_TEST((r.error().phase == phase::lex));
  return r.error();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(lexer)

BOOST_AUTO_TEST_CASE(tokens_carry_line_and_column_across_lines) {
  const auto t = lex_ok("SELECT id,\n  amount\r\nFROM orders");
  BOOST_TEST_REQUIRE(t.size() == 7u);
  BOOST_TEST((t[0].kind == token_kind::keyword));
  BOOST_TEST(t[0].pos.line == 1u);
  BOOST_TEST(t[0].pos.column == 1u);
  BOOST_TEST((t[1].kind == token_kind::identifier));
  BOOST_TEST(t[1].pos.column == 8u);
  BOOST_TEST((t[2].kind == token_kind::comma));
  BOOST_TEST(t[2].pos.column == 10u);
  BOOST_TEST(t[3].word == "amount");
  BOOST_TEST(t[3].pos.line == 2u);
  BOOST_TEST(t[3].pos.column == 3u);
  // "\r\n" is one line break: '\r' is whitespace, '\n' starts the line.
  BOOST_TEST(t[4].word == "FROM");
  BOOST_TEST(t[4].pos.line == 3u);
  BOOST_TEST(t[4].pos.column == 1u);
  BOOST_TEST((t[6].kind == token_kind::end));
  BOOST_TEST(t[6].pos.line == 3u);
  BOOST_TEST(t[6].pos.column == 12u);
}

BOOST_AUTO_TEST_CASE(keywords_are_upper_cased_and_identifiers_kept_as_written) {
  const auto t = lex_ok("select Amount fRoM");
  BOOST_TEST((t[0].kind == token_kind::keyword));
  BOOST_TEST(t[0].word == "SELECT");
  BOOST_TEST(t[0].text == "select");
  BOOST_TEST((t[1].kind == token_kind::identifier));
  BOOST_TEST(t[1].word == "Amount");
  BOOST_TEST(t[2].word == "FROM");
}

BOOST_AUTO_TEST_CASE(smallest_bigint_is_a_minus_directly_followed_by_digits) {
  const auto t = lex_ok("amount>=-9223372036854775808");
  BOOST_TEST_REQUIRE(t.size() == 5u);
  BOOST_TEST((t[1].kind == token_kind::ge));
  BOOST_TEST((t[2].kind == token_kind::minus));
  BOOST_TEST((t[3].kind == token_kind::integer));
  BOOST_TEST(t[3].word == "9223372036854775808");
  // Adjacency is what makes it a signed literal for the parser.
  BOOST_TEST(t[3].pos.offset == t[2].pos.offset + 1);
}

BOOST_AUTO_TEST_CASE(doubled_quotes_are_one_quote_in_the_value) {
  const auto t = lex_ok("'it''s' '' ''''");
  BOOST_TEST_REQUIRE(t.size() == 4u);
  BOOST_TEST((t[0].kind == token_kind::string));
  BOOST_TEST(t[0].word == "it's");
  BOOST_TEST(t[0].text == "'it''s'");
  BOOST_TEST(t[1].word == "");
  BOOST_TEST(t[2].word == "'");
  BOOST_TEST(t[2].pos.column == 12u);
}

BOOST_AUTO_TEST_CASE(a_double_quoted_name_is_an_identifier_taken_exactly) {
  const auto t = lex_ok(
      "\"user-id\" \"order\" \"say\"\"hi\"\"\" \"Gr\xC3\xBC\xC3\x9F"
      "e\" plain x");
  BOOST_TEST_REQUIRE(t.size() == 7u);
  for (std::size_t i = 0; i < 5; ++i) BOOST_TEST((t[i].kind == token_kind::identifier));
  BOOST_TEST(t[0].word == "user-id");
  BOOST_TEST(t[0].text == "\"user-id\"");
  BOOST_TEST(t[0].quoted);
  // A reserved word in quotes is a name, not the keyword.
  BOOST_TEST(t[1].word == "order");
  BOOST_TEST(t[2].word == "say\"hi\"");
  BOOST_TEST(t[3].word ==
             "Gr\xC3\xBC\xC3\x9F"
             "e");
  BOOST_TEST(!t[4].quoted);
  // Columns count code points, offsets bytes: ü and ß are two bytes each.
  BOOST_TEST(t[4].pos.column == 39u);
  BOOST_TEST(t[4].pos.offset == 40u);
}

BOOST_AUTO_TEST_CASE(a_quoted_name_must_be_closed_non_empty_and_bounded) {
  BOOST_TEST(lex_error("SELECT \"abc").code == "unterminated_identifier");
  BOOST_TEST(lex_error("SELECT \"abc\"\"").code == "unterminated_identifier");
  BOOST_TEST(lex_error("SELECT \"\"").code == "empty_identifier");
  const std::string longest = "\"" + std::string(1024, 'n') + "\"";
  BOOST_TEST(lex_ok(longest)[0].word.size() == 1024u);
  const auto d = lex_error("\"" + std::string(1025, 'n') + "\"");
  BOOST_TEST(d.code == "name_too_long");
  BOOST_TEST(d.column == 1u);
}

BOOST_AUTO_TEST_CASE(utf8_strings_keep_their_bytes_and_columns_count_code_points) {
  const auto t = lex_ok("'h\xC3\xA9\xE2\x98\x95\xF0\x9F\x98\x80' x");
  BOOST_TEST_REQUIRE(t.size() == 3u);
  BOOST_TEST(t[0].word == "h\xC3\xA9\xE2\x98\x95\xF0\x9F\x98\x80");
  // 'h é ☕ 😀' is six code points, so x is at column 8 (byte offset 13).
  BOOST_TEST(t[1].pos.column == 8u);
  BOOST_TEST(t[1].pos.offset == 13u);
}

BOOST_AUTO_TEST_CASE(invalid_utf8_is_rejected_with_its_position) {
  // A lone continuation byte on line 2, after a valid two-byte character.
  auto d = lex_error("SELECT\n'\xC3\xA9\x80'");
  BOOST_TEST(d.code == "invalid_utf8");
  BOOST_TEST(d.line == 2u);
  BOOST_TEST(d.column == 3u);
  BOOST_TEST(d.message.find("0x80") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(overlong_surrogate_and_truncated_utf8_are_rejected) {
  BOOST_TEST(lex_error("'\xC0\xAF'").code == "invalid_utf8");          // overlong '/'
  BOOST_TEST(lex_error("'\xED\xA0\x80'").code == "invalid_utf8");      // U+D800
  BOOST_TEST(lex_error("'\xF4\x90\x80\x80'").code == "invalid_utf8");  // above U+10FFFF
  auto d = lex_error("'ab\xE2\x98");                                   // truncated at the end
  BOOST_TEST(d.code == "invalid_utf8");
  BOOST_TEST(d.column == 4u);
}

BOOST_AUTO_TEST_CASE(control_characters_outside_strings_are_named_by_code_point) {
  auto d = lex_error(std::string_view("SELECT \0 id", 11));
  BOOST_TEST(d.code == "unexpected_character");
  BOOST_TEST(d.column == 8u);
  BOOST_TEST(d.message.find("U+0000") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(unterminated_string_points_at_its_opening_quote) {
  auto d = lex_error("x = \n  'abc\ndef");
  BOOST_TEST(d.code == "unterminated_string");
  BOOST_TEST(d.line == 2u);
  BOOST_TEST(d.column == 3u);
}

BOOST_AUTO_TEST_CASE(operators_the_subset_rejects_are_still_tokens) {
  const auto t = lex_ok("!= == <> || :: + %");
  BOOST_TEST((t[0].kind == token_kind::bang_eq));
  BOOST_TEST((t[1].kind == token_kind::eq_eq));
  BOOST_TEST((t[2].kind == token_kind::ne));
  BOOST_TEST((t[3].kind == token_kind::operator_));
  BOOST_TEST(t[3].text == "||");
  BOOST_TEST((t[4].kind == token_kind::operator_));
  BOOST_TEST(t[4].text == "::");
  BOOST_TEST((t[5].kind == token_kind::operator_));
  BOOST_TEST((t[6].kind == token_kind::operator_));
}

BOOST_AUTO_TEST_CASE(a_fraction_or_an_exponent_makes_a_decimal_token_carrying_its_text) {
  const auto t = lex_ok("12.5 1e3 1.5E-2 3.25e+1 0.05 7");
  BOOST_TEST_REQUIRE(t.size() == 7u);
  for (std::size_t i = 0; i < 5; ++i) BOOST_TEST((t[i].kind == token_kind::decimal));
  BOOST_TEST(t[0].word == "12.5");
  BOOST_TEST(t[1].word == "1e3");
  BOOST_TEST(t[2].word == "1.5E-2");
  BOOST_TEST(t[2].text == "1.5E-2");
  BOOST_TEST(t[3].word == "3.25e+1");
  BOOST_TEST(t[4].word == "0.05");
  BOOST_TEST((t[5].kind == token_kind::integer));
  BOOST_TEST(t[5].word == "7");
}

BOOST_AUTO_TEST_CASE(a_negative_decimal_is_a_minus_directly_followed_by_the_number) {
  const auto t = lex_ok("x>=-3.25");
  BOOST_TEST_REQUIRE(t.size() == 5u);
  BOOST_TEST((t[2].kind == token_kind::minus));
  BOOST_TEST((t[3].kind == token_kind::decimal));
  BOOST_TEST(t[3].word == "3.25");
  BOOST_TEST(t[3].pos.offset == t[2].pos.offset + 1);
}

BOOST_AUTO_TEST_CASE(a_dot_between_names_is_a_path_separator_not_a_number) {
  const auto t = lex_ok("after.amount \"payload\".\"user-id\" a.b1.c a.5");
  BOOST_TEST_REQUIRE(t.size() == 15u);
  BOOST_TEST((t[0].kind == token_kind::identifier));
  BOOST_TEST((t[1].kind == token_kind::dot));
  BOOST_TEST((t[2].kind == token_kind::identifier));
  BOOST_TEST(t[2].word == "amount");
  BOOST_TEST((t[4].kind == token_kind::dot));
  BOOST_TEST(t[5].word == "user-id");
  BOOST_TEST(t[8].word == "b1");
  BOOST_TEST((t[9].kind == token_kind::dot));
  // After a name ".5" is a separator and a number: the parser says a path
  // segment must be a name.
  BOOST_TEST((t[12].kind == token_kind::dot));
  BOOST_TEST((t[13].kind == token_kind::integer));
}

BOOST_AUTO_TEST_CASE(a_point_needs_digits_on_both_sides) {
  auto d = lex_error("x > 1.");
  BOOST_TEST(d.code == "malformed_number");
  BOOST_TEST(d.column == 5u);
  BOOST_TEST(d.message.find("write 1.0 or 1") != std::string::npos);
  d = lex_error("x > .5");
  BOOST_TEST(d.code == "malformed_number");
  BOOST_TEST(d.column == 5u);
  BOOST_TEST(d.message.find("write 0.5") != std::string::npos);
  BOOST_TEST(lex_error("x > 1.e3").code == "malformed_number");
}

BOOST_AUTO_TEST_CASE(an_exponent_without_digits_or_trailing_letters_is_malformed) {
  BOOST_TEST(lex_error("1e").code == "malformed_number");
  BOOST_TEST(lex_error("1e+").code == "malformed_number");
  BOOST_TEST(lex_error("1.5x").code == "malformed_number");
  const auto d = lex_error("x = 2.5e3f");
  BOOST_TEST(d.column == 5u);
  BOOST_TEST(d.message.find("'2.5e3f'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(empty_input_is_one_end_token_at_one_one) {
  const auto t = lex_ok("");
  BOOST_TEST_REQUIRE(t.size() == 1u);
  BOOST_TEST((t[0].kind == token_kind::end));
  BOOST_TEST(t[0].pos.line == 1u);
  BOOST_TEST(t[0].pos.column == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
