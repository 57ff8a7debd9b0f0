// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Base64 (RFC 4648 §4: the standard alphabet, '=' padding), as the
// registry's side of the engine meets it: HTTP basic authentication, and a
// registry-framed value written into a JSON envelope (streamt replay), where
// its zero byte and binary body cannot go as text.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace streamt::kafka::registry {

std::string base64_encode(std::string_view bytes);

// Why `text` is no base64 (empty when it is one): the decoding is strict, so
// that a value that went through something that changed it (a URL-safe
// alphabet, line breaks, a lost '=') is refused rather than read as other
// bytes.
struct base64_error {
  std::size_t position = 0;  // of the first character that is wrong, from 0
  std::string what;
};
std::optional<base64_error> base64_decode(std::string_view text, std::string& out);

}  // namespace streamt::kafka::registry
