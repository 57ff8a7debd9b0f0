// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The Confluent wire format's frame around a registry-encoded value: a zero
// byte, the writer schema's id as 4 big-endian bytes, then the body (Avro,
// or JSON for JSON Schema). Read before any decoder runs, so that a value
// that is not framed is refused for what it is, and a framed value met by a
// JSON plan is named as such instead of as malformed JSON.

#include "plan/diagnostic.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace streamt::operators {

struct registry_frame {
  std::uint32_t schema_id = 0;
  std::string_view body;  // into the value
};

// The frame of `value`, or nullopt with `why` set (phase::record, code
// not_registry_framed): too short, no zero byte first, or schema id 0. A
// value framed with Apicurio's 8-byte id (a zero byte, then 8 big-endian
// bytes whose first 4 are zero) is named as such, with the producer setting
// that writes Confluent's 4-byte ids instead.
std::optional<registry_frame> read_registry_frame(std::string_view value, diagnostic& why);

// For a plan that reads JSON: if `value` looks registry-framed (a zero byte
// and a non-zero schema id), what to say about it ("... looks like a
// registry-framed value (schema id 12) ..."); empty otherwise.
std::string registry_framed_hint(std::string_view value);

}  // namespace streamt::operators
