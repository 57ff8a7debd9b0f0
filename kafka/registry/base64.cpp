// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/registry/base64.hpp"

#include <openssl/evp.h>

#include <array>
#include <cstdint>

namespace streamt::kafka::registry {

std::string base64_encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int n =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::optional<base64_error> base64_decode(std::string_view text, std::string& out) {
  // OpenSSL's EVP_DecodeBlock skips whitespace and keeps the padding's zero
  // bytes in its result, so the strict reading is done here.
  static constexpr std::array<std::int8_t, 256> value = [] {
    std::array<std::int8_t, 256> v{};
    v.fill(-1);
    constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t i = 0; i < alphabet.size(); ++i)
      v[static_cast<unsigned char>(alphabet[i])] = static_cast<std::int8_t>(i);
    return v;
  }();
  out.clear();
  if (text.size() % 4 != 0)
    return base64_error{text.size(), "its length, " + std::to_string(text.size()) +
                                         ", is not a multiple of 4 (is a '=' of the padding missing?)"};
  const std::size_t padding = text.ends_with("==") ? 2 : text.ends_with('=') ? 1 : 0;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t bits = 0;
  for (std::size_t i = 0; i < text.size() - padding; ++i) {
    const std::int8_t v = value[static_cast<unsigned char>(text[i])];
    if (v < 0)
      return base64_error{
          i,
          text[i] == '-' || text[i] == '_'
              ? std::string("'") + text[i] + "' is of the URL-safe alphabet; give the standard one (+ and /)"
              : "a character outside the base64 alphabet (A-Z a-z 0-9 + / and = at the end)"};
    bits = bits << 6 | static_cast<std::uint32_t>(v);
    if (i % 4 == 3) {
      out += static_cast<char>(bits >> 16);
      out += static_cast<char>(bits >> 8 & 0xff);
      out += static_cast<char>(bits & 0xff);
      bits = 0;
    }
  }
  // The last group: 2 or 3 characters for 1 or 2 bytes, whose unused bits
  // must be zero (else two texts would decode to the same bytes).
  if (padding == 2) {
    if (bits & 0x0f) return base64_error{text.size() - 3, "the bits after the last byte are not zero"};
    out += static_cast<char>(bits >> 4);
  } else if (padding == 1) {
    if (bits & 0x03) return base64_error{text.size() - 2, "the bits after the last byte are not zero"};
    out += static_cast<char>(bits >> 10);
    out += static_cast<char>(bits >> 2 & 0xff);
  }
  return std::nullopt;
}

}  // namespace streamt::kafka::registry
