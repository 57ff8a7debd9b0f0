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

// What the frame is expected around, for what a refusal suggests: a value
// that is plain JSON is read by a plan compiled from a streamt schema file
// (for Avro), or with --value-format json (for json-registry).
enum class framed_body { avro, json };

// The frame of `value`, or nullopt with `why` set (phase::record, code
// not_registry_framed): too short, no zero byte first, or schema id 0. A
// value framed with Apicurio's 8-byte id (a zero byte, then 8 big-endian
// bytes whose first 4 are zero) is named as such, with the producer setting
// that writes Confluent's 4-byte ids instead. Allocates only to refuse.
std::optional<registry_frame> read_registry_frame(std::string_view value, diagnostic& why,
                                                  framed_body body = framed_body::avro);

// For a plan that reads plain JSON: if `value` looks registry-framed (a
// zero byte and a non-zero schema id), what to say about it ("... looks
// registry-framed (a zero byte, then schema id 12) ..."), with the compile
// option that reads it (--value-format json-registry when the body starts
// like a JSON object, an Avro schema otherwise); empty otherwise.
std::string registry_framed_hint(std::string_view value);

}  // namespace streamt::operators
