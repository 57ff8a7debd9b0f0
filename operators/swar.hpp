// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once

// Eight bytes at a time in a 64-bit word (SWAR), as the JSON decoder's and
// encoder's fast paths scan strings: the loads, the lane constants, the
// per-byte tests both need, and the one scan both make.

#include <bit>
#include <cstdint>
#include <cstring>

namespace streamt::operators::swar {

inline constexpr std::uint64_t ones = 0x0101010101010101ULL;   // 0x01 in every lane
inline constexpr std::uint64_t highs = 0x8080808080808080ULL;  // each lane's high bit

// Unaligned loads; memcpy is what the compiler turns into one move.
[[gnu::always_inline]] inline std::uint64_t load8(const char* p) noexcept {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
[[gnu::always_inline]] inline std::uint32_t load4(const char* p) noexcept {
  std::uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}

// The high bit of each lane of `x` that is zero (exact for the lowest such
// lane, which is all a scan reads: a borrow may flag lanes above it).
[[gnu::always_inline]] constexpr std::uint64_t zero_lanes(std::uint64_t x) noexcept {
  return (x - ones) & ~x & highs;
}
// The high bit of each lane of `w` below 0x20 (a JSON control character),
// lowest lane exact as above.
[[gnu::always_inline]] constexpr std::uint64_t control_lanes(std::uint64_t w) noexcept {
  return (w - ones * 0x20) & ~w & highs;
}
// The high bit of each lane of `w` that holds `c`, lowest lane exact.
[[gnu::always_inline]] constexpr std::uint64_t lanes_equal(std::uint64_t w, char c) noexcept {
  return zero_lanes(w ^ (ones * static_cast<unsigned char>(c)));
}

// Where a scan of [p, end) for the first byte that `stops` flags ended:
// `at` is that byte (or `end`: none) when `decided`; otherwise the input was
// shorter than eight bytes from `begin` and the caller tests the bytes from
// `at` one at a time. `stops(word)` sets a bit in the lane of each flagged
// byte; only the lowest flagged lane need be exact. Little-endian only (the
// lowest lane is the first byte): callers test std::endian::native first
// and scan byte by byte elsewhere.
// Nonzero in each lane of `w` that does not hold an ASCII digit (the
// lowest such lane is exact; lanes above it may be wrong). A digit is 0x3_
// whose low nibble plus 6 stays below 0x10. Adding 6 carries into the next
// lane only from a lane of 0xFA or more, which is itself flagged.
[[gnu::always_inline]] constexpr std::uint64_t nondigit_lanes(std::uint64_t w) noexcept {
  constexpr std::uint64_t nibble = ones * 0xF0, digit = ones * 0x30;
  return ((w & nibble) ^ digit) | (((w + ones * 6) & nibble) ^ digit);
}

static_assert(nondigit_lanes(0x3939393930303030ULL) == 0);
static_assert(std::countr_zero(nondigit_lanes(0x3131312E31313131ULL)) / 8 == 4);
static_assert(std::countr_zero(nondigit_lanes(0x313131313A313131ULL)) / 8 == 3);
static_assert(std::countr_zero(nondigit_lanes(0x31313131312F3131ULL)) / 8 == 2);
static_assert(std::countr_zero(nondigit_lanes(0x31313131FF313131ULL)) / 8 == 3);

// The value of eight decimal digits (each lane 0 to 9, the most significant
// in the lowest lane, as little-endian loads put the first byte): pairs of
// lanes, then pairs of pairs, then the two halves are combined, each step
// without carries between lanes (99, 9999 and 99999999 fit their lanes).
[[gnu::always_inline]] constexpr std::uint64_t eight_digits_value(std::uint64_t w) noexcept {
  w = (w * 10 + (w >> 8)) & 0x00FF00FF00FF00FFULL;
  w = (w * 100 + (w >> 16)) & 0x0000FFFF0000FFFFULL;
  return (w * 10000 + (w >> 32)) & 0xFFFFFFFFULL;
}

static_assert(eight_digits_value(0x0807060504030201ULL) == 12345678);
static_assert(eight_digits_value(0x0909090909090909ULL) == 99999999);
static_assert(eight_digits_value(0x0700000000000000ULL) == 7);

struct scan_end {
  const char* at;
  bool decided;
};
template <typename Stops>
[[gnu::always_inline]] inline scan_end first_stop8(const char* p, const char* end, const char* begin,
                                                   Stops stops) noexcept {
  for (; end - p >= 8; p += 8)
    if (std::uint64_t m = stops(load8(p))) return {p + std::countr_zero(m) / 8, true};
  if (p == end) return {end, true};
  if (end - begin < 8) return {p, false};
  // The tail, shorter than eight bytes, read again as the last eight bytes
  // of the input. Shift the bytes before `p` out of the word before testing
  // it, not out of the result: a byte flagged rightly there would make the
  // next bytes look flagged too (the borrow), and those are ours (found by
  // fuzz_record). The zero bytes shifted in are above `left` and masked.
  const auto left = static_cast<unsigned>(end - p);
  const std::uint64_t m = stops(load8(end - 8) >> (8 * (8 - left))) & ((std::uint64_t{1} << (8 * left)) - 1);
  return {m != 0 ? p + std::countr_zero(m) / 8 : end, true};
}

}  // namespace streamt::operators::swar
