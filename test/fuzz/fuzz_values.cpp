// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// fuzz_values: the text forms of plan version 2's DECIMAL and TIMESTAMP
// (plan/values.hpp), which records, plan files and SQL literals all go
// through. The first byte picks DECIMAL(p,s)'s precision, the second its
// scale; the rest is the text, read both as a decimal and as a timestamp.
// The same bytes, taken as integers, are also formatted and read back.
//
// Invariants beyond "no crash, no sanitizer report, no exception":
// - parse_decimal: a refusal says why; an accepted text is a JSON number
//   (Boost.JSON parses it), has at most s significant fraction digits and at
//   most p digits at scale s, keeps its sign; format_decimal writes it with
//   exactly s fraction digits, and that reads back to the same value; the
//   same text at DECIMAL(p+1,s+1) is accepted as ten times the value;
// - format_decimal of any value that fits DECIMAL(p,s) reads back to it;
// - parse_timestamp: a refusal says why; an accepted value is within years
//   0001 to 9999, format_timestamp writes it in its one form (24 bytes,
//   UTC, milliseconds), which reads back to the same instant;
// - format_timestamp of any instant in range reads back to it.
#include "test/fuzz/fuzz_support.hpp"

#include "plan/values.hpp"

#include <boost/json/error.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

namespace streamt::fuzz {

namespace {

namespace json = boost::json;

using plan::int128;

int128 power_of_ten(int n) {
  int128 p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

// Significant fraction digits of a JSON number's text: with the point and
// the exponent applied and trailing zeros dropped, how many digits stand
// after the point (1.250 has 2, 125e-1 has 1, 100e-2 has 0). Only for texts
// parse_decimal accepted, so the grammar is JSON's.
long fraction_digits(std::string_view t) {
  const auto e = t.find_first_of("eE");
  const std::string_view mantissa = t.substr(0, e);
  long exponent = 0;
  if (e != std::string_view::npos) {
    std::string_view x = t.substr(e + 1);
    const bool negative = x.starts_with('-');
    if (x.starts_with('-') || x.starts_with('+')) x.remove_prefix(1);
    for (char c : x) exponent = std::min(exponent * 10 + (c - '0'), 1'000'000L);
    if (negative) exponent = -exponent;
  }
  std::string digits;
  long shift = exponent;
  bool after_point = false;
  for (char c : mantissa) {
    if (c == '.') after_point = true;
    if (c < '0' || c > '9') continue;
    digits += c;
    if (after_point) --shift;
  }
  if (digits.find_first_not_of('0') == std::string::npos) return 0;
  while (digits.back() == '0') {
    digits.pop_back();
    ++shift;
  }
  return std::max(0L, -shift);
}

std::string type_text(int p, int s) { return plan::decimal_type_name(p, s); }

void check_decimal(std::string_view text, int p, int s, std::string_view input) {
  const plan::decimal_verdict v = plan::parse_decimal(text, p, s);
  if (!v.problem.empty()) return;
  const int128 u = v.value.unscaled;
  const int128 bound = power_of_ten(p);
  if (u >= bound || u <= -bound)
    violated("parse_decimal accepted more digits than the precision", input, type_text(p, s));
  json::error_code ec;
  json::value dom = json::parse(json::string_view(text.data(), text.size()), ec);
  // JSON's grammar bounds no exponent; Boost.JSON refuses one that does not
  // fit its int (found by this fuzzer: 0e999999999991, which is 0).
  if (ec != json::error::exponent_overflow && (ec || !dom.is_number()))
    violated("parse_decimal accepted a text that is not a JSON number", input);
  if (fraction_digits(text) > s)
    violated("parse_decimal accepted more fraction digits than the scale", input, type_text(p, s));
  if (u != 0 && (u < 0) != text.starts_with('-')) violated("parse_decimal lost the sign", input);

  const std::string written = plan::format_decimal(v.value, s);
  const auto point = written.find('.');
  const std::size_t written_fraction = point == std::string::npos ? 0 : written.size() - point - 1;
  if (written_fraction != static_cast<std::size_t>(s))
    violated("format_decimal wrote another number of fraction digits than the scale", input, written);
  const plan::decimal_verdict back = plan::parse_decimal(written, p, s);
  if (!back.problem.empty() || back.value != v.value)
    violated("format_decimal's text does not read back to the same value", input,
             written + " " + back.problem);

  if (p < plan::max_decimal_precision) {
    const plan::decimal_verdict finer = plan::parse_decimal(text, p + 1, s + 1);
    if (!finer.problem.empty() || finer.value.unscaled != u * 10)
      violated("a decimal accepted at DECIMAL(p,s) is not ten times it at DECIMAL(p+1,s+1)", input,
               type_text(p, s) + " " + finer.problem);
  }
}

// Any value that fits DECIMAL(p,s), from the input's bytes.
void check_decimal_format(std::string_view input, int p, int s) {
  plan::uint128 raw = 0;
  std::memcpy(&raw, input.data(), std::min(input.size(), sizeof raw));
  const bool negative = (raw & 1) != 0;
  const int128 magnitude = static_cast<int128>((raw >> 1) % static_cast<plan::uint128>(power_of_ten(p)));
  const plan::decimal_value v{negative ? -magnitude : magnitude};
  const std::string written = plan::format_decimal(v, s);
  const plan::decimal_verdict back = plan::parse_decimal(written, p, s);
  if (!back.problem.empty() || back.value != v)
    violated("a formatted decimal does not read back to the same value", input,
             written + " at " + type_text(p, s) + " " + back.problem);
}

void check_timestamp(std::string_view text, std::string_view input) {
  std::string problem;
  const auto t = plan::parse_timestamp(text, problem);
  if (!t) {
    if (problem.empty()) violated("parse_timestamp refused a text without saying why", input);
    return;
  }
  if (t->millis < plan::min_timestamp_millis || t->millis > plan::max_timestamp_millis)
    violated("parse_timestamp accepted an instant outside the years 0001 to 9999", input);
  const std::string written = plan::format_timestamp(*t);
  if (written.size() != 24 || written.back() != 'Z')
    violated("format_timestamp wrote another form than YYYY-MM-DDTHH:MM:SS.mmmZ", input, written);
  const auto back = plan::parse_timestamp(written, problem);
  if (!back || *back != *t)
    violated("format_timestamp's text does not read back to the same instant", input, written);
}

void check_timestamp_format(std::string_view input) {
  std::uint64_t raw = 0;
  std::memcpy(&raw, input.data(), std::min(input.size(), sizeof raw));
  constexpr auto span =
      static_cast<std::uint64_t>(plan::max_timestamp_millis - plan::min_timestamp_millis) + 1;
  const plan::timestamp_value t{plan::min_timestamp_millis + static_cast<std::int64_t>(raw % span)};
  const std::string written = plan::format_timestamp(t);
  std::string problem;
  const auto back = plan::parse_timestamp(written, problem);
  if (!back || *back != t)
    violated("a formatted timestamp does not read back to the same instant", input, written);
}

}  // namespace

void values_one_input(std::string_view input) {
  if (input.size() < 2) return;
  const int p = 1 + static_cast<unsigned char>(input[0]) % plan::max_decimal_precision;
  const int s = static_cast<unsigned char>(input[1]) % (p + 1);
  const std::string_view text = input.substr(2);
  check_decimal(text, p, s, input);
  check_decimal_format(text, p, s);
  check_timestamp(text, input);
  check_timestamp_format(text);
}

}  // namespace streamt::fuzz

#ifdef STREAMT_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  streamt::fuzz::values_one_input(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
#endif
