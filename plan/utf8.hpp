// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// UTF-8 well-formedness (RFC 3629: no overlong forms, no surrogates, nothing
// above U+10FFFF), shared by the SQL lexer, the strict JSON parser and the
// record decoder, so that all three accept and refuse the same bytes.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace streamt::plan {

// Length of the well-formed sequence at `s[i]` (1 to 4), or 0 if there is
// none; `cp` receives its code point when it is well-formed.
constexpr std::size_t utf8_sequence_length(std::string_view s, std::size_t i, std::uint32_t& cp) noexcept {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char b0 = b(0);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  std::size_t n = 0;
  std::uint32_t min = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2, cp = b0 & 0x1Fu, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3, cp = b0 & 0x0Fu, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4, cp = b0 & 0x07u, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// Offset of the first byte that does not belong to a well-formed sequence,
// or npos if all of `s` is valid UTF-8.
constexpr std::size_t first_invalid_utf8(std::string_view s) noexcept {
  std::size_t i = 0;
  std::uint32_t cp = 0;
  while (i < s.size()) {
    const std::size_t n = utf8_sequence_length(s, i, cp);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

static_assert(first_invalid_utf8("caf\xc3\xa9") == std::string_view::npos);
static_assert(first_invalid_utf8("\xc0\xaf") == 0);          // overlong '/'
static_assert(first_invalid_utf8("a\xed\xa0\x80") == 1);     // a UTF-16 surrogate
static_assert(first_invalid_utf8("\xf4\x90\x80\x80") == 0);  // above U+10FFFF

}  // namespace streamt::plan
