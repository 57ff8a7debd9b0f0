// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/values.hpp"

#include <array>
#include <cstdio>

namespace streamt::plan {

namespace {

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// 10^n for n <= 38 as a 128-bit integer.
int128 power_of_ten(int n) noexcept {
  int128 p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
// days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

struct civil {
  std::int64_t year;
  unsigned month, day;
};

civil civil_from_days(std::int64_t z) noexcept {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {y + (m <= 2), m, d};
}

bool leap(std::int64_t y) noexcept { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned days_in_month(std::int64_t y, unsigned m) noexcept {
  static constexpr std::array<unsigned, 12> days{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : days[m - 1];
}

}  // namespace

std::string decimal_type_name(int precision, int scale) {
  return "DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
}

decimal_verdict parse_decimal(std::string_view text, int precision, int scale) {
  decimal_verdict out;
  // Only a refusal names the type: an accepted value, the case of every
  // record, builds no string at all.
  auto refuse = [&](std::string why) {
    out.problem = std::move(why);
    return out;
  };
  std::size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  const std::size_t int_begin = i;
  while (i < text.size() && is_digit(text[i])) ++i;
  const std::string_view int_digits = text.substr(int_begin, i - int_begin);
  std::string_view frac_digits;
  bool grammar = !int_digits.empty() && !(int_digits.size() > 1 && int_digits[0] == '0');
  if (grammar && i < text.size() && text[i] == '.') {
    const std::size_t f = ++i;
    while (i < text.size() && is_digit(text[i])) ++i;
    frac_digits = text.substr(f, i - f);
    grammar = !frac_digits.empty();
  }
  long exponent = 0;
  if (grammar && i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    const std::size_t e = i;
    // An exponent beyond a few hundred cannot give a value that fits and
    // whose digits fit: it is refused below without counting further.
    while (i < text.size() && is_digit(text[i])) {
      if (exponent < 100000) exponent = exponent * 10 + (text[i] - '0');
      ++i;
    }
    grammar = i > e;
    if (exp_negative) exponent = -exponent;
  }
  if (!grammar || i != text.size() || text.empty())
    return refuse(
        "is not a decimal number (digits with an optional '-' and fraction, as JSON writes numbers)");

  // The significant digits are the integer digits followed by the fraction
  // digits, read in place (k-th of them by digit(k)), and the decimal point
  // falls among them so that value = digits * 10^shift.
  const std::size_t count = int_digits.size() + frac_digits.size();
  auto digit = [&](std::size_t k) {
    return k < int_digits.size() ? int_digits[k] : frac_digits[k - int_digits.size()];
  };
  long shift = exponent - static_cast<long>(frac_digits.size());
  // Trailing zeros carry no value: drop them (raising the shift), so that
  // 12.500 is 1250 at scale 2 and 1e3 is 1000 at scale 0.
  std::size_t end = count;
  while (end > 1 && digit(end - 1) == '0') {
    --end;
    ++shift;
  }
  // Leading zeros likewise (0.05 is 5 * 10^-2).
  std::size_t lead = 0;
  while (lead + 1 < end && digit(lead) == '0') ++lead;
  const std::size_t significant = end - lead;
  const bool zero = significant == 1 && digit(lead) == '0';
  if (zero) shift = 0;

  if (-shift > scale)
    return refuse("has " + std::to_string(-shift) + " fraction digits, " +
                  decimal_type_name(precision, scale) + " allows " + std::to_string(scale));
  // At scale s the unscaled value has significant + shift + s digits.
  const long total = static_cast<long>(significant) + shift + scale;
  if (!zero && total > precision)
    return refuse("has " + std::to_string(total - scale) + " digits before the point, " +
                  decimal_type_name(precision, scale) + " allows " + std::to_string(precision - scale));
  // total <= precision <= 38 digits: the value fits in 128 bits.
  int128 v = 0;
  for (std::size_t k = lead; k < end; ++k) v = v * 10 + (digit(k) - '0');
  if (!zero) v *= power_of_ten(static_cast<int>(shift + scale));
  out.value.unscaled = negative ? -v : v;
  return out;
}

std::string format_decimal(decimal_value v, int scale) {
  const bool negative = v.unscaled < 0;
  // Reversed digits of the magnitude; p <= 38 keeps it within 39 characters.
  uint128 m = negative ? static_cast<uint128>(-(v.unscaled + 1)) + 1 : static_cast<uint128>(v.unscaled);
  std::string rev;
  do {
    rev += static_cast<char>('0' + static_cast<int>(m % 10));
    m /= 10;
  } while (m != 0);
  while (rev.size() <= static_cast<std::size_t>(scale)) rev += '0';
  std::string out;
  if (negative) out += '-';
  for (std::size_t k = rev.size(); k-- > 0;) {
    out += rev[k];
    if (k == static_cast<std::size_t>(scale) && scale > 0) out += '.';
  }
  return out;
}

std::optional<timestamp_value> parse_timestamp(std::string_view t, std::string& problem) {
  auto refuse = [&](std::string why) -> std::optional<timestamp_value> {
    problem = std::move(why);
    return std::nullopt;
  };
  constexpr std::string_view form =
      "; write an RFC 3339 time with an offset, like 2026-12-05T10:00:00Z or 2026-12-05 10:00:00.250+01:00";
  auto number = [&](std::size_t at, std::size_t n, int& out) {
    if (at + n > t.size()) return false;
    out = 0;
    for (std::size_t k = at; k < at + n; ++k) {
      if (!is_digit(t[k])) return false;
      out = out * 10 + (t[k] - '0');
    }
    return true;
  };
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!number(0, 4, y) || t.size() < 19 || t[4] != '-' || !number(5, 2, mo) || t[7] != '-' ||
      !number(8, 2, d) || (t[10] != 'T' && t[10] != 't' && t[10] != ' ') || !number(11, 2, h) ||
      t[13] != ':' || !number(14, 2, mi) || t[16] != ':' || !number(17, 2, s))
    return refuse("is not a timestamp" + std::string(form));
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || static_cast<unsigned>(d) > days_in_month(y, mo) || h > 23 ||
      mi > 59 || s > 59)
    return refuse("is not a valid date and time (year 0001-9999, month, day, hour, minute, second in range)");
  std::size_t i = 19;
  int millis = 0;
  if (i < t.size() && t[i] == '.') {
    const std::size_t f = ++i;
    while (i < t.size() && is_digit(t[i])) {
      const std::size_t k = i - f;
      if (k < 3)
        millis = millis * 10 + (t[i] - '0');
      else if (t[i] != '0')
        return refuse("has a fraction finer than milliseconds; TIMESTAMP keeps milliseconds");
      ++i;
    }
    if (i == f) return refuse("has a '.' without fraction digits" + std::string(form));
    for (std::size_t k = i - f; k < 3; ++k) millis *= 10;
  }
  if (i >= t.size()) return refuse("has no offset; add Z or +HH:MM so the instant is unambiguous");
  long offset_minutes = 0;
  if (t[i] == 'Z' || t[i] == 'z') {
    ++i;
  } else if (t[i] == '+' || t[i] == '-') {
    const bool west = t[i] == '-';
    int oh = 0, om = 0;
    if (!number(i + 1, 2, oh) || i + 3 >= t.size() || t[i + 3] != ':' || !number(i + 4, 2, om) || oh > 23 ||
        om > 59)
      return refuse("has an offset that is not +HH:MM or -HH:MM" + std::string(form));
    offset_minutes = (oh * 60L + om) * (west ? -1 : 1);
    i += 6;
  } else {
    return refuse("has no offset; add Z or +HH:MM so the instant is unambiguous");
  }
  if (i != t.size()) return refuse("has characters after the offset" + std::string(form));
  const std::int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  const std::int64_t ms =
      ((days * 24 + h) * 60 + mi - offset_minutes) * 60000 + static_cast<std::int64_t>(s) * 1000 + millis;
  if (ms < min_timestamp_millis || ms > max_timestamp_millis)
    return refuse("is outside the years 0001 to 9999 once its offset is applied");
  return timestamp_value{ms};
}

std::string format_timestamp(timestamp_value t) {
  std::int64_t days = t.millis / 86400000;
  std::int64_t rest = t.millis % 86400000;
  if (rest < 0) {
    rest += 86400000;
    --days;
  }
  const civil c = civil_from_days(days);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<long long>(c.year),
                c.month, c.day, static_cast<int>(rest / 3600000), static_cast<int>(rest / 60000 % 60),
                static_cast<int>(rest / 1000 % 60), static_cast<int>(rest % 1000));
  return buf;
}

}  // namespace streamt::plan
