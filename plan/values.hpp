// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The exact values of plan version 2's DECIMAL and TIMESTAMP types, and the
// one place their text forms are read and written. The compiler (literals),
// the plan loader (literals in a plan file) and the record decoder (values in
// records) all call these, so a value means the same thing wherever it is
// written.
//
// A DECIMAL(p,s) is its unscaled integer: 12.50 in DECIMAL(10,2) is 1250. With
// p at most 38 the unscaled value always fits in 128 bits (10^38 < 2^127), so
// comparison is exact integer comparison and nothing passes through binary
// floating point. A TIMESTAMP is milliseconds since the Unix epoch, UTC.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace streamt::plan {

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

inline constexpr int max_decimal_precision = 38;

struct decimal_value {
  int128 unscaled = 0;
  friend bool operator==(const decimal_value&, const decimal_value&) = default;
};

struct timestamp_value {
  std::int64_t millis = 0;  // since 1970-01-01T00:00:00Z
  friend bool operator==(const timestamp_value&, const timestamp_value&) = default;
};

// Why a text is not a DECIMAL(p,s): empty when it is one.
struct decimal_verdict {
  decimal_value value;
  std::string problem;  // e.g. "has 3 fraction digits, DECIMAL(10,2) allows 2"
};

// Reads a decimal number written as JSON writes numbers (an optional '-',
// digits without a leading zero unless alone, an optional fraction; an
// exponent is allowed and applied exactly: 1.25e1 is 12.5) into DECIMAL(p,s).
// Refused: more than s significant fraction digits (12.345 in DECIMAL(10,2);
// 12.500 is 12.50 and fits), more than p digits in all once written at scale s
// (123456789.5 in DECIMAL(10,2)), anything that is not a number. Nothing is
// rounded. The same grammar holds for a decimal written as a JSON string
// ("12.50", as Debezium's decimal.handling.mode=string writes it) and for a
// SQL literal. Accepting allocates nothing (the decoder calls it for every
// DECIMAL of every record); only a refusal builds its message.
decimal_verdict parse_decimal(std::string_view text, int precision, int scale);

// "DECIMAL(10,2)".
std::string decimal_type_name(int precision, int scale);

// The unscaled value written with exactly `scale` fraction digits: 1250 at
// scale 2 is "12.50", -5 at scale 3 is "-0.005", 7 at scale 0 is "7".
std::string format_decimal(decimal_value v, int scale);

// RFC 3339 with an explicit offset ("2026-12-05T10:00:00Z",
// "2026-12-05 10:00:00.5+01:00"; a space may stand for the 'T'), at most
// millisecond precision (more fraction digits are refused unless they are
// zeros), years 0001 to 9999. nullopt with `problem` set otherwise.
std::optional<timestamp_value> parse_timestamp(std::string_view text, std::string& problem);

// "2026-12-05T10:00:00.000Z": always UTC, always three fraction digits.
std::string format_timestamp(timestamp_value t);

// The range TIMESTAMP accepts as epoch milliseconds: years 0001 to 9999, so
// that every accepted value has an RFC 3339 form.
inline constexpr std::int64_t min_timestamp_millis = -62135596800000;  // 0001-01-01T00:00:00Z
inline constexpr std::int64_t max_timestamp_millis = 253402300799999;  // 9999-12-31T23:59:59.999Z

}  // namespace streamt::plan
