// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/decode.hpp"

#include "orders_fixture.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

namespace ops = streamt::operators;
namespace t = streamt::operators::test;
using streamt::diagnostic;

namespace {

struct decoder {
  ops::decode_definition def{t::orders_schema()};
  ops::decode_state state;
  ops::row row;
  diagnostic error;

  bool operator()(std::string_view value) { return ops::decode(def, state, value, row, error); }

  // Decodes a value that must be refused; returns "code: message" for checks.
  std::string refuse(std::string_view value) {
    bool ok = (*this)(value);
    BOOST_TEST_REQUIRE(!ok, "expected a failure for " << value);
    BOOST_TEST((error.phase == streamt::phase::record));
    return error.code + ": " + error.message;
  }
};

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_SUITE(decode)

BOOST_AUTO_TEST_CASE(fills_one_slot_per_column_with_its_type) {
  decoder d;
  BOOST_TEST_REQUIRE(d(R"({"id":"o-1","amount":-42,"note":"hi","flag":true})"));
  BOOST_TEST_REQUIRE(d.row.slots.size() == 4u);
  BOOST_TEST(!d.row.slots[t::id].is_null);
  BOOST_TEST(d.row.slots[t::id].string == "o-1");
  BOOST_TEST(d.row.slots[t::amount].bigint == -42);
  BOOST_TEST(d.row.slots[t::note].string == "hi");
  BOOST_TEST(d.row.slots[t::flag].boolean == true);
}

BOOST_AUTO_TEST_CASE(accepts_fields_in_any_order_and_whitespace_around_tokens) {
  decoder d;
  BOOST_TEST_REQUIRE(d(" \t\r\n{ \"flag\" : false ,\"note\":null, \"amount\":7,\"id\":\"x\" }\n "));
  BOOST_TEST(d.row.slots[t::id].string == "x");
  BOOST_TEST(d.row.slots[t::amount].bigint == 7);
  BOOST_TEST(d.row.slots[t::note].is_null);
  BOOST_TEST(!d.row.slots[t::flag].is_null);
  BOOST_TEST(d.row.slots[t::flag].boolean == false);
}

BOOST_AUTO_TEST_CASE(overwrites_every_slot_of_the_previous_record) {
  decoder d;
  BOOST_TEST_REQUIRE(d(R"({"id":"a","amount":1,"note":"n","flag":true})"));
  BOOST_TEST_REQUIRE(d(R"({"id":"b","amount":2,"note":null,"flag":null})"));
  BOOST_TEST(d.row.slots[t::id].string == "b");
  BOOST_TEST(d.row.slots[t::amount].bigint == 2);
  BOOST_TEST(d.row.slots[t::note].is_null);
  BOOST_TEST(d.row.slots[t::flag].is_null);
}

BOOST_AUTO_TEST_CASE(accepts_the_int64_limits_exactly) {
  decoder d;
  BOOST_TEST_REQUIRE(d(R"({"id":"x","amount":9223372036854775807,"note":null,"flag":null})"));
  BOOST_TEST(d.row.slots[t::amount].bigint == std::numeric_limits<std::int64_t>::max());
  BOOST_TEST_REQUIRE(d(R"({"id":"x","amount":-9223372036854775808,"note":null,"flag":null})"));
  BOOST_TEST(d.row.slots[t::amount].bigint == std::numeric_limits<std::int64_t>::min());
}

BOOST_AUTO_TEST_CASE(decodes_minus_zero_as_zero) {
  decoder d;
  BOOST_TEST_REQUIRE(d(R"({"id":"x","amount":-0,"note":null,"flag":null})"));
  BOOST_TEST(d.row.slots[t::amount].bigint == 0);
}

BOOST_AUTO_TEST_CASE(rejects_integers_just_outside_int64_as_out_of_range) {
  decoder d;
  for (std::string_view n : {"9223372036854775808", "-9223372036854775809", "18446744073709551615",
                             "18446744073709551616", "-99999999999999999999999"}) {
    std::string value = R"({"id":"x","amount":)" + std::string(n) + R"(,"note":null,"flag":null})";
    auto e = d.refuse(value);
    BOOST_TEST(e.starts_with("bigint_out_of_range: column 'amount' expects BIGINT, found " + std::string(n) +
                             " at byte 19"),
               e);
  }
}

BOOST_AUTO_TEST_CASE(a_huge_number_is_quoted_by_its_start_and_its_length) {
  decoder d;
  const std::string digits(100000, '7');
  const std::string e = d.refuse(R"({"id":"x","amount":)" + digits + R"(,"note":null,"flag":null})");
  BOOST_TEST(e.size() < 300u, e.size());
  BOOST_TEST(e.starts_with("bigint_out_of_range: column 'amount' expects BIGINT, found " +
                           digits.substr(0, 32) + "... (100000 characters) at byte 19"),
             e.substr(0, 200));
}

BOOST_AUTO_TEST_CASE(rejects_fractions_and_exponents_for_bigint_even_when_integral) {
  decoder d;
  for (std::string_view n : {"120.0", "1e2", "1E2", "-0.0", "0.5", "1.5e+3", "1e-2"}) {
    std::string value = R"({"id":"x","amount":)" + std::string(n) + R"(,"note":null,"flag":null})";
    auto e = d.refuse(value);
    BOOST_TEST(e ==
               "wrong_type: column 'amount' expects BIGINT, found a number with a fraction or exponent (" +
                   std::string(n) + ") at byte 19");
  }
}

BOOST_AUTO_TEST_CASE(rejects_each_wrong_json_type_naming_column_expected_and_found) {
  struct wrong {
    std::string_view value;
    std::string_view expected;
  };
  const wrong cases[] = {
      {R"({"id":"x","amount":"120","note":null,"flag":null})",
       "wrong_type: column 'amount' expects BIGINT, found a string at byte 19"},
      {R"({"id":"x","amount":true,"note":null,"flag":null})",
       "wrong_type: column 'amount' expects BIGINT, found a boolean at byte 19"},
      {R"({"id":"x","amount":{},"note":null,"flag":null})",
       "wrong_type: column 'amount' expects BIGINT, found an object at byte 19"},
      {R"({"id":"x","amount":[1],"note":null,"flag":null})",
       "wrong_type: column 'amount' expects BIGINT, found an array at byte 19"},
      {R"({"id":"x","amount":1,"note":null,"flag":1})",
       "wrong_type: column 'flag' expects BOOLEAN, found a number (1) at byte 40"},
      {R"({"id":"x","amount":1,"note":null,"flag":"true"})",
       "wrong_type: column 'flag' expects BOOLEAN, found a string at byte 40"},
      {R"({"id":12,"amount":1,"note":null,"flag":null})",
       "wrong_type: column 'id' expects STRING, found a number (12) at byte 6"},
      {R"({"id":"x","amount":1,"note":1.5,"flag":null})",
       "wrong_type: column 'note' expects STRING, found a number (1.5) at byte 28"},
      {R"({"id":"x","amount":1,"note":false,"flag":null})",
       "wrong_type: column 'note' expects STRING, found a boolean at byte 28"},
      {R"({"id":["x"],"amount":1,"note":null,"flag":null})",
       "wrong_type: column 'id' expects STRING, found an array at byte 6"},
      {R"({"id":"x","amount":1,"note":{"a":1},"flag":null})",
       "wrong_type: column 'note' expects STRING, found an object at byte 28"},
  };
  decoder d;
  for (const auto& c : cases) BOOST_TEST(d.refuse(c.value) == c.expected);
}

BOOST_AUTO_TEST_CASE(reports_the_first_byte_of_an_escaped_string_as_its_offset) {
  decoder d;
  BOOST_TEST(d.refuse(R"({"id":"x","amount":"1\"2\\","note":null,"flag":null})") ==
             "wrong_type: column 'amount' expects BIGINT, found a string at byte 19");
}

BOOST_AUTO_TEST_CASE(rejects_null_only_for_columns_that_are_not_nullable) {
  decoder d;
  BOOST_TEST(d.refuse(R"({"id":null,"amount":1,"note":null,"flag":null})") ==
             "unexpected_null: column 'id' is not nullable, found null at byte 6");
  BOOST_TEST(d.refuse(R"({"id":"x","amount":null,"note":null,"flag":null})") ==
             "unexpected_null: column 'amount' is not nullable, found null at byte 19");
  BOOST_TEST(d(R"({"id":"x","amount":1,"note":null,"flag":null})"));
}

BOOST_AUTO_TEST_CASE(rejects_an_unknown_field_as_soon_as_its_key_is_read) {
  decoder d;
  // The syntax error after the key is never reached.
  BOOST_TEST(d.refuse(R"({"id":"x","colour":!!!)") == "unknown_field: unknown field 'colour' at byte 10");
  // Even when its value is a deep structure.
  BOOST_TEST(d.refuse(R"({"extra":{"a":{"b":[[[{"c":1}]]]}},"id":"x"})") ==
             "unknown_field: unknown field 'extra' at byte 1");
}

BOOST_AUTO_TEST_CASE(matches_field_names_exactly_and_case_sensitively) {
  decoder d;
  BOOST_TEST(d.refuse(R"({"ID":"x","amount":1,"note":null,"flag":null})") ==
             "unknown_field: unknown field 'ID' at byte 1");
  BOOST_TEST(d.refuse(R"({"id ":"x"})") == "unknown_field: unknown field 'id ' at byte 1");
}

BOOST_AUTO_TEST_CASE(matches_a_key_written_with_escapes_by_its_decoded_name) {
  decoder d;
  BOOST_TEST(d(R"({"\u0069d":"x","am\u006funt":1,"note":null,"flag":null})"));
  BOOST_TEST(d.row.slots[t::amount].bigint == 1);
}

BOOST_AUTO_TEST_CASE(quotes_unknown_field_names_escaped_and_shortened) {
  decoder d;
  auto e = d.refuse(R"({"a\nb":1})");
  BOOST_TEST(e == R"(unknown_field: unknown field 'a\nb' at byte 1)");
  std::string long_key(200, 'k');
  e = d.refuse(R"({")" + long_key + R"(":1})");
  BOOST_TEST(contains(e, "'" + std::string(64, 'k') + "...'"), e);
}

BOOST_AUTO_TEST_CASE(rejects_a_duplicate_field_even_with_the_same_value) {
  decoder d;
  BOOST_TEST(d.refuse(R"({"id":"x","id":"x","amount":1,"note":null,"flag":null})") ==
             "duplicate_field: duplicate field 'id' at byte 10");
  BOOST_TEST(d.refuse(R"({"id":"x","amount":1,"note":null,"flag":null,"note":null})") ==
             "duplicate_field: duplicate field 'note' at byte 45");
}

BOOST_AUTO_TEST_CASE(names_the_first_missing_column_in_schema_order) {
  decoder d;
  BOOST_TEST(d.refuse(R"({"id":"x","amount":1})") == "missing_column: column 'note' is missing");
  BOOST_TEST(d.refuse(R"({"flag":true})") == "missing_column: column 'id' is missing");
  BOOST_TEST(d.refuse("{}") == "missing_column: column 'id' is missing");
}

BOOST_AUTO_TEST_CASE(rejects_an_empty_value_which_is_not_a_tombstone) {
  decoder d;
  auto e = d.refuse("");
  BOOST_TEST(e.starts_with("empty_value: "));
  BOOST_TEST(contains(e, "zero bytes"));
}

BOOST_AUTO_TEST_CASE(rejects_every_top_level_value_that_is_not_an_object) {
  decoder d;
  BOOST_TEST(d.refuse("[1,2]") == "not_an_object: value is an array, expected a JSON object");
  BOOST_TEST(d.refuse(R"("text")") == "not_an_object: value is a string, expected a JSON object");
  BOOST_TEST(d.refuse("42") == "not_an_object: value is a number, expected a JSON object");
  BOOST_TEST(d.refuse("true") == "not_an_object: value is a boolean, expected a JSON object");
  BOOST_TEST(d.refuse("null") == "not_an_object: value is null, expected a JSON object");
}

BOOST_AUTO_TEST_CASE(rejects_malformed_json_with_its_byte_offset) {
  decoder d;
  BOOST_TEST(d.refuse(R"({"id":"x",})").starts_with("malformed_json: malformed JSON at byte 10"));
  BOOST_TEST(d.refuse(R"({"id":"x")").starts_with("malformed_json: malformed JSON: the value ends inside"));
  BOOST_TEST(d.refuse("   ").starts_with("malformed_json: "));
  BOOST_TEST(d.refuse(R"({"id":'x'})").starts_with("malformed_json: malformed JSON at byte 6"));
  BOOST_TEST(d.refuse(R"({"id":"x","amount":012})").starts_with("malformed_json: "));
  BOOST_TEST(d.refuse(R"({"id":"x","amount":+1})").starts_with("malformed_json: "));
  BOOST_TEST(d.refuse(R"({"id":"x"/*c*/})").starts_with("malformed_json: "));
  BOOST_TEST(d.refuse(R"({"id":"\x"})").starts_with("malformed_json: "));
}

BOOST_AUTO_TEST_CASE(rejects_trailing_data_and_a_second_document) {
  decoder d;
  const std::string ok = R"({"id":"x","amount":1,"note":null,"flag":null})";
  BOOST_TEST(d.refuse(ok + " x") == "trailing_data: trailing data at byte 46 after the object");
  BOOST_TEST(d.refuse(ok + ok) == "trailing_data: a second JSON document at byte 45 after the object");
  BOOST_TEST(d.refuse(ok + "\n" + ok) == "trailing_data: a second JSON document at byte 46 after the object");
  BOOST_TEST(d(ok + " \n\t\r"));
}

BOOST_AUTO_TEST_CASE(rejects_invalid_utf8_with_the_offset_of_the_bad_byte) {
  decoder d;
  for (std::string_view bad : {"\xff", "\xc0\xaf", "\xed\xa0\x80", "\xe2\x82", "\xf4\x90\x80\x80", "\x80"}) {
    std::string value = R"({"id":"ab)" + std::string(bad) + R"(","amount":1,"note":null,"flag":null})";
    BOOST_TEST(d.refuse(value) == "invalid_utf8: invalid UTF-8 at byte 9");
  }
  BOOST_TEST(d.refuse("{\"i\xff\":1}") == "invalid_utf8: invalid UTF-8 at byte 3");
}

BOOST_AUTO_TEST_CASE(rejects_lone_utf16_surrogate_escapes_as_invalid_utf8) {
  decoder d;
  for (std::string_view s :
       {R"(\ud800)", R"(\udfff)", R"(\uDC00x)", R"(\ud800\u0041)", R"(\ud800\ud800)", R"(\ud83dx)"}) {
    std::string value = R"({"id":"ab)" + std::string(s) + R"(","amount":1,"note":null,"flag":null})";
    auto e = d.refuse(value);
    BOOST_TEST(e == "invalid_utf8: \\u escape of a lone UTF-16 surrogate at byte 9 is not valid Unicode",
               value);
  }
}

BOOST_AUTO_TEST_CASE(decodes_unicode_escapes_and_raw_utf8_to_utf8) {
  decoder d;
  BOOST_TEST_REQUIRE(d(
      R"({"id":"caf\u00e9 \ud83d\ude00 é 😀","amount":1,"note":"\"q\" \\ \/ \b\f\n\r\t\u0000","flag":null})"));
  BOOST_TEST(d.row.slots[t::id].string == "caf\xc3\xa9 \xf0\x9f\x98\x80 \xc3\xa9 \xf0\x9f\x98\x80");
  BOOST_TEST(d.row.slots[t::note].string == std::string("\"q\" \\ / \b\f\n\r\t\0", 14));
}

BOOST_AUTO_TEST_CASE(rejects_raw_control_characters_inside_strings) {
  decoder d;
  BOOST_TEST(d.refuse("{\"id\":\"a\tb\"}").starts_with("malformed_json: malformed JSON at byte 8"));
  BOOST_TEST(d.refuse(std::string("{\"id\":\"a\0b\"}", 12)).starts_with("malformed_json: "));
}

BOOST_AUTO_TEST_CASE(assembles_strings_that_arrive_in_parts) {
  decoder d;
  // Escapes make Boost.JSON deliver a string in several parts (and a long one
  // in buffer-sized parts): all must end up in the slot, in order.
  std::string note;
  std::string expected;
  for (int i = 0; i < 3000; ++i) {
    note += "ab\\n";
    expected += "ab\n";
  }
  BOOST_TEST_REQUIRE(d(R"({"id":"x","amount":1,"note":")" + note + R"(","flag":null})"));
  BOOST_TEST(d.row.slots[t::note].string == expected);
  BOOST_TEST_REQUIRE(d(R"({"id":"x\"y","amount":1,"note":"short","flag":null})"));
  BOOST_TEST(d.row.slots[t::id].string == "x\"y");
  BOOST_TEST(d.row.slots[t::note].string == "short");
}

BOOST_AUTO_TEST_CASE(views_a_string_without_escapes_in_the_value_itself) {
  decoder d;
  const std::string value = R"({"id":"plain","amount":1,"note":"also \u0070lain","flag":null})";
  BOOST_TEST_REQUIRE(d(value));
  BOOST_TEST(d.row.slots[t::id].string == "plain");
  BOOST_TEST(static_cast<const void*>(d.row.slots[t::id].string.data()) ==
             static_cast<const void*>(value.data() + 7));
  BOOST_TEST(d.row.slots[t::note].string == "also plain");
  BOOST_TEST(static_cast<const void*>(d.row.slots[t::note].string.data()) ==
             static_cast<const void*>(d.row.slots[t::note].storage.data()));
}

BOOST_AUTO_TEST_CASE(reuses_the_storage_of_escaped_strings_across_records) {
  decoder d;
  BOOST_TEST_REQUIRE(
      d(R"({"id":"a-long-identifier-of-forty-bytes-\t000","amount":1,"note":null,"flag":null})"));
  const char* storage = d.row.slots[t::id].storage.data();
  BOOST_TEST_REQUIRE(d(R"({"id":"sh\tort","amount":1,"note":null,"flag":null})"));
  BOOST_TEST(d.row.slots[t::id].string == "sh\tort");
  BOOST_TEST(static_cast<const void*>(d.row.slots[t::id].string.data()) == static_cast<const void*>(storage));
}

BOOST_AUTO_TEST_CASE(the_fast_path_finds_special_bytes_wherever_they_sit_and_agrees_with_the_reference) {
  // The fast path checks strings 16 (or 8) bytes at a time and reads the tail
  // of the value again: an escape, a UTF-8 sequence, a control character or
  // a bad byte must be found at every offset of a word, in a string that ends
  // far from the end of the value and in one that ends near it.
  ops::decode_definition def(t::orders_schema());
  ops::decode_state state;
  ops::row fast, reference;
  diagnostic error;
  const std::string_view inserts[] = {
      "\\n",  "\\\"", "\\\\", "\\u00e9", "\\ud83d\\ude00", "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80",
      "\x01", "\x1f", "\xff", "\xc3",    "\xed\xa0\x80",   "\\ud800",  "\\q"};
  for (std::size_t len = 0; len <= 40; ++len) {
    for (std::size_t pos = 0; pos <= len; ++pos) {
      for (std::string_view insert : inserts) {
        std::string text(len, 'a');
        text.insert(pos, insert);
        const std::string values[] = {R"({"id":")" + text + R"(","amount":1,"note":null,"flag":null})",
                                      R"({"id":"x","amount":1,"flag":null,"note":")" + text + R"("})"};
        for (const std::string& value : values) {
          const bool fast_ok = ops::detail::fast_decode(def, state, value, fast);
          const bool reference_ok = ops::detail::reference_decode(def, state, value, reference, error);
          BOOST_TEST(fast_ok == reference_ok, value);
          if (fast_ok && reference_ok) {
            BOOST_TEST(fast.slots[t::id].string == reference.slots[t::id].string, value);
            BOOST_TEST(fast.slots[t::note].is_null == reference.slots[t::note].is_null, value);
            if (!reference.slots[t::note].is_null)
              BOOST_TEST(fast.slots[t::note].string == reference.slots[t::note].string, value);
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(decodes_correctly_after_any_kind_of_failure) {
  decoder d;
  for (std::string_view bad :
       {"", "[", R"({"zz":1})", R"({"id":"x"} x)", "{\"id\":\"\xff\"}", R"({"id":1})"}) {
    BOOST_TEST(!d(bad));
    BOOST_TEST_REQUIRE(d(R"({"id":"ok","amount":5,"note":"n","flag":false})"), bad);
    BOOST_TEST(d.row.slots[t::id].string == "ok");
    BOOST_TEST(d.row.slots[t::amount].bigint == 5);
  }
}

BOOST_AUTO_TEST_CASE(finds_columns_by_exact_name_using_the_hint_first) {
  ops::decode_definition def(t::orders_schema());
  BOOST_TEST(def.find("amount", 1).value() == 1u);
  BOOST_TEST(def.find("amount", 3).value() == 1u);
  BOOST_TEST(def.find("amount", 99).value() == 1u);
  BOOST_TEST(!def.find("Amount", 1).has_value());
  BOOST_TEST(!def.find("", 0).has_value());
}

BOOST_AUTO_TEST_CASE(a_decode_state_can_be_moved_between_owners) {
  decoder d;
  ops::decode_state moved(std::move(d.state));
  BOOST_TEST(ops::decode(d.def, moved, R"({"id":"m","amount":3,"note":null,"flag":true})", d.row, d.error));
  BOOST_TEST(d.row.slots[t::id].string == "m");
}

// --- bounded sizes -------------------------------------------------------

// {"id":"xxx...","amount":1,"note":null,"flag":null} of exactly `size` bytes.
std::string record_of_size(std::size_t size) {
  const std::string head = "{\"id\":\"", tail = "\",\"amount\":1,\"note\":null,\"flag\":null}";
  return head + std::string(size - head.size() - tail.size(), 'x') + tail;
}

BOOST_AUTO_TEST_CASE(a_value_of_exactly_the_size_limit_decodes) {
  decoder d;
  const std::string value = record_of_size(ops::max_record_value_bytes);
  BOOST_TEST_REQUIRE(d(value), d.error.message);
  BOOST_TEST(d.row.slots[t::id].string.size() > ops::max_record_value_bytes - 100);
}

BOOST_AUTO_TEST_CASE(a_value_one_byte_over_the_size_limit_is_refused_naming_both_sizes) {
  decoder d;
  const std::string e = d.refuse(record_of_size(ops::max_record_value_bytes + 1));
  BOOST_TEST(e.rfind("value_too_large: ", 0) == 0u, e);
  BOOST_TEST(contains(e, std::to_string(ops::max_record_value_bytes + 1) + " bytes"), e);
  BOOST_TEST(contains(e, "limit of " + std::to_string(ops::max_record_value_bytes)), e);
}

BOOST_AUTO_TEST_CASE(the_size_limit_is_checked_before_the_json_is_read) {
  // Malformed and oversized: the size is what is reported, so refusing an
  // oversized value never depends on (or pays for) its content.
  ops::decode_definition def(t::orders_schema(), 16);
  ops::decode_state state;
  ops::row row;
  diagnostic error;
  BOOST_TEST(!ops::decode(def, state, "[[[[[[[[[[[[[[[[[[[[", row, error));
  BOOST_TEST(error.code == "value_too_large");
  BOOST_TEST(ops::decode(def, state, R"({"id":"","amount":1,"note":null,"flag":null})", row, error) == false);
  BOOST_TEST(error.code == "value_too_large");
  BOOST_TEST(def.max_value_bytes() == 16u);
}

BOOST_AUTO_TEST_CASE(a_deeply_nested_column_value_is_refused_where_it_begins) {
  decoder d;
  const std::string deep(200000, '[');
  const std::string e = d.refuse(R"({"id":)" + deep);
  BOOST_TEST(e == "wrong_type: column 'id' expects STRING, found an array at byte 6", e);
}

BOOST_AUTO_TEST_CASE(a_deeply_nested_unknown_member_is_refused_at_its_key) {
  decoder d;
  const std::string e = d.refuse(R"({"id":"x","deep":)" + std::string(200000, '{'));
  BOOST_TEST(e == "unknown_field: unknown field 'deep' at byte 10", e);
}

BOOST_AUTO_TEST_CASE(a_deeply_nested_top_level_array_is_not_an_object) {
  decoder d;
  const std::string e = d.refuse(std::string(200000, '[') + std::string(200000, ']'));
  BOOST_TEST(e == "not_an_object: value is an array, expected a JSON object", e);
}

// --- unknown_fields: ignore ---------------------------------------------------

namespace {

ops::decode_definition ignoring_definition() {
  auto s = t::orders_schema();
  s.unknown_fields = streamt::plan::unknown_fields::ignore;
  return ops::decode_definition(s);
}

// Decodes `value` both ways; each must give the same verdict, and when both
// accept, the same declared values.
bool both_paths_agree(const ops::decode_definition& def, std::string_view value, bool& fast_took_it) {
  ops::decode_state state;
  ops::row fast, reference;
  diagnostic error;
  fast_took_it = ops::detail::fast_decode(def, state, value, fast);
  const bool ok = ops::detail::reference_decode(def, state, value, reference, error);
  BOOST_TEST((!fast_took_it || ok), "the fast path accepted what the reference refuses: " << value);
  if (fast_took_it && ok) {
    BOOST_TEST(fast.slots[t::id].string == reference.slots[t::id].string, value);
    BOOST_TEST(fast.slots[t::amount].bigint == reference.slots[t::amount].bigint, value);
    BOOST_TEST(fast.slots[t::note].is_null == reference.slots[t::note].is_null, value);
  }
  return ok;
}

// Each value must be refused, by both paths, with its code.
void each_is_refused_as(const ops::decode_definition& def,
                        std::span<const std::pair<std::string_view, std::string_view>> cases) {
  ops::decode_state state;
  ops::row row;
  diagnostic error;
  for (const auto& [value, code] : cases) {
    bool fast = false;
    BOOST_TEST(!both_paths_agree(def, value, fast), value);
    BOOST_TEST(!ops::decode(def, state, value, row, error), value);
    BOOST_TEST(error.code == code, value << ": " << error.code << ": " << error.message);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(by_default_an_undeclared_member_makes_the_record_invalid) {
  decoder d;
  BOOST_TEST(d.refuse(R"({"id":"x","amount":1,"note":null,"flag":null,"added":1})") ==
             "unknown_field: unknown field 'added' at byte 45");
}

BOOST_AUTO_TEST_CASE(with_ignore_undeclared_members_of_every_json_kind_are_skipped_and_declared_ones_kept) {
  const auto def = ignoring_definition();
  const std::string_view values[] = {
      R"({"id":"x","amount":7,"note":"n","flag":true,"added":"s"})",
      R"({"added":1,"id":"x","amount":7,"note":"n","flag":true})",
      R"({"id":"x","a":-5,"amount":7,"b":true,"note":"n","c":false,"flag":true,"d":null})",
      R"({"id":"x","amount":7,"e":1.5e3,"note":"n","flag":true,"f":"esc\"aped\u00e9"})",
      R"({"id":"x","amount":7,"note":"n","flag":true,"g":{"id":"not me","h":[1,{"i":[]}]}})",
      R"({"id":"x","amount":7,"note":"n","flag":true,"j":[[[]]],"k":{},"l":[]})",
      R"({ "id" : "x" , "amount" : 7 , "m" : 99999999999999999999 , "note" : "n" , "flag" : true })",
  };
  for (std::string_view value : values) {
    bool fast = false;
    BOOST_TEST_REQUIRE(both_paths_agree(def, value, fast), value);
    ops::decode_state state;
    ops::row row;
    diagnostic error;
    BOOST_TEST_REQUIRE(ops::decode(def, state, value, row, error), value);
    BOOST_TEST(row.slots.size() == 4u);
    BOOST_TEST(row.slots[t::id].string == "x", value);
    BOOST_TEST(row.slots[t::amount].bigint == 7, value);
    BOOST_TEST(row.slots[t::note].string == "n", value);
    BOOST_TEST(row.slots[t::flag].boolean == true, value);
  }
}

BOOST_AUTO_TEST_CASE(with_ignore_the_fast_path_skips_undeclared_members_itself_unless_they_hold_escapes) {
  const auto def = ignoring_definition();
  bool fast = false;
  BOOST_TEST(both_paths_agree(
      def, R"({"id":"x","s":"plain","amount":7,"i":-12,"note":null,"t":true,"flag":null})", fast));
  BOOST_TEST(fast);
  // Containers, fractions and exponents, nested and spaced, are checked by the fast path too.
  BOOST_TEST(both_paths_agree(
      def,
      R"({"id":"x","amount":7,"o":{},"a":[ 1.5, {"k": [true, null, -2e10]}, [] ],"note":null,"flag":null})",
      fast));
  BOOST_TEST(fast);
  // Escapes are the reference path's to check.
  BOOST_TEST(both_paths_agree(def, R"({"id":"x","amount":7,"note":null,"flag":null,"o":{"k":"\n"}})", fast));
  BOOST_TEST(!fast);
  // And malformed containers are refused by it, whatever the fast path saw first.
  for (std::string_view bad : {R"({"id":"x","amount":7,"note":null,"flag":null,"o":{"k" 1}})",
                               R"({"id":"x","amount":7,"note":null,"flag":null,"o":[1,]})",
                               R"({"id":"x","amount":7,"note":null,"flag":null,"o":[1})",
                               R"({"id":"x","amount":7,"note":null,"flag":null,"o":{"k":1]})",
                               R"({"id":"x","amount":7,"note":null,"flag":null,"o":1.})"}) {
    BOOST_TEST(!both_paths_agree(def, bad, fast), bad);
    BOOST_TEST(!fast, bad);
  }
}

BOOST_AUTO_TEST_CASE(with_ignore_a_malformed_undeclared_member_still_makes_the_record_invalid) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {R"({"id":"x","amount":7,"note":null,"flag":null,"bad":01})", "malformed_json"},
      {R"({"id":"x","amount":7,"note":null,"flag":null,"bad":"\q"})", "malformed_json"},
      {R"({"id":"x","amount":7,"note":null,"flag":null,"bad":"\ud800"})", "invalid_utf8"},
      {"{\"id\":\"x\",\"amount\":7,\"note\":null,\"flag\":null,\"bad\":\"\xff\"}", "invalid_utf8"},
      {R"({"id":"x","amount":7,"note":null,"flag":null,"bad":[1,}})", "malformed_json"},
      {R"({"id":"x","amount":7,"note":null,"flag":null,"bad":tru})", "malformed_json"},
  };
  each_is_refused_as(ignoring_definition(), cases);
}

BOOST_AUTO_TEST_CASE(with_ignore_declared_members_are_still_checked_in_full) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {R"({"id":"x","amount":7,"note":null,"extra":1})", "missing_column"},
      {R"({"id":"x","amount":7,"note":null,"flag":null,"extra":1,"id":"y"})", "duplicate_field"},
      {R"({"id":"x","amount":"7","note":null,"flag":null,"extra":1})", "wrong_type"},
      {R"({"id":"x","amount":7,"note":null,"flag":null,"extra":1} {})", "trailing_data"},
      {R"({"ID":"x","amount":7,"note":null,"flag":null})", "missing_column"},
  };
  each_is_refused_as(ignoring_definition(), cases);
}

BOOST_AUTO_TEST_CASE(with_ignore_a_skipped_member_may_nest_only_to_the_parser_depth_limit) {
  const auto def = ignoring_definition();
  ops::decode_state state;
  ops::row row;
  diagnostic error;
  const std::string head = R"({"id":"x","amount":7,"note":null,"flag":null,"deep":)";
  BOOST_TEST(ops::decode(def, state, head + std::string(30, '[') + std::string(30, ']') + "}", row, error),
             error.message);
  const std::string deep = head + std::string(100000, '[') + std::string(100000, ']') + "}";
  BOOST_TEST(!ops::decode(def, state, deep, row, error));
  BOOST_TEST(error.code == "malformed_json", error.message);
}

BOOST_AUTO_TEST_CASE(names_of_any_characters_are_matched_exactly_by_both_paths) {
  streamt::plan::schema s;
  s.source = "events";
  s.topic = "events";
  s.columns = {{"user-id", streamt::plan::column_type::string, false},
               {"@timestamp", streamt::plan::column_type::bigint, false},
               {"order", streamt::plan::column_type::bigint, false},
               {"say\"hi\"", streamt::plan::column_type::string, true},
               {"Gr\xc3\xbc\xc3\x9f"
                "e",
                streamt::plan::column_type::string, true}};
  ops::decode_definition def(s);
  ops::decode_state state;
  ops::row row;
  diagnostic error;
  const std::string value =
      R"({"user-id":"u1","@timestamp":17,"order":3,"say\"hi\"":"q","Gr\u00fc\u00dfe":"g"})";
  BOOST_TEST_REQUIRE(ops::decode(def, state, value, row, error), error.message);
  BOOST_TEST(row.slots[0].string == "u1");
  BOOST_TEST(row.slots[1].bigint == 17);
  BOOST_TEST(row.slots[2].bigint == 3);
  BOOST_TEST(row.slots[3].string == "q");
  BOOST_TEST(row.slots[4].string == "g");
  const std::string raw =
      "{\"user-id\":\"u1\",\"@timestamp\":17,\"order\":3,\"say\\\"hi\\\"\":null,"
      "\"Gr\xc3\xbc\xc3\x9f"
      "e\":null}";
  BOOST_TEST_REQUIRE(ops::decode(def, state, raw, row, error), error.message);
  BOOST_TEST(row.slots[3].is_null);
  BOOST_TEST(!ops::decode(
      def, state, R"({"user_id":"u1","@timestamp":17,"order":3,"say\"hi\"":null,"Grüße":null})", row, error));
  BOOST_TEST(error.code == "unknown_field");
}

BOOST_AUTO_TEST_SUITE_END()
