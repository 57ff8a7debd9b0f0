// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/registry_frame.hpp"

#include <cstdio>

namespace streamt::operators {

namespace {

std::uint64_t big_endian(std::string_view b) {
  std::uint64_t v = 0;
  for (char c : b) v = (v << 8) | static_cast<unsigned char>(c);
  return v;
}

std::string byte_text(unsigned char c) {
  char buf[32];
  if (c >= 0x20 && c < 0x7F)
    std::snprintf(buf, sizeof buf, "0x%02x ('%c')", c, c);
  else
    std::snprintf(buf, sizeof buf, "0x%02x", c);
  return buf;
}

bool refuse(diagnostic& why, std::string message) {
  why = diagnostic{};
  why.phase = streamt::phase::record;
  why.code = "not_registry_framed";
  why.message = std::move(message);
  return false;
}

// Apicurio's default framing before its serdes took Confluent's: a zero
// byte and an 8-byte id, small enough that its first 4 bytes are zero.
bool apicurio_framed(std::string_view value) {
  return value.size() >= 9 && value[0] == 0 && big_endian(value.substr(1, 4)) == 0 &&
         big_endian(value.substr(5, 4)) != 0;
}

}  // namespace

std::optional<registry_frame> read_registry_frame(std::string_view value, diagnostic& why, framed_body body) {
  constexpr std::string_view expected =
      "; a registry-framed value is a zero byte, the writer schema's id as 4 big-endian bytes, then the body";
  if (value.size() < 5) {
    refuse(why, "the value has " + std::to_string(value.size()) + " bytes" + std::string(expected));
    return std::nullopt;
  }
  const auto first = static_cast<unsigned char>(value[0]);
  if (first != 0) {
    std::string looks;
    if (body == framed_body::json)
      looks = first == '{'
                  ? " (this one looks like plain JSON: a plan compiled with --value-format json reads it)"
                  : " (a plan compiled with --value-format json reads values of plain JSON)";
    else if (first == '{')
      looks = " (this one looks like JSON: a plan compiled from a schema file reads JSON)";
    refuse(why, "the value starts with byte " + byte_text(first) + ", not a zero byte" +
                    std::string(expected) + looks);
    return std::nullopt;
  }
  if (apicurio_framed(value)) {
    refuse(why, "the value carries an 8-byte schema id (" + std::to_string(big_endian(value.substr(1, 8))) +
                    "), Apicurio's own framing, not Confluent's 4-byte one; set the producer's Apicurio "
                    "serializer to write Confluent's (apicurio.registry.as-confluent=true)");
    return std::nullopt;
  }
  const auto id = static_cast<std::uint32_t>(big_endian(value.substr(1, 4)));
  if (id == 0) {
    refuse(why, "the value's schema id is 0, which no registry assigns" + std::string(expected));
    return std::nullopt;
  }
  return registry_frame{id, value.substr(5)};
}

std::string registry_framed_hint(std::string_view value) {
  if (value.size() < 5 || value[0] != 0) return {};
  if (apicurio_framed(value))
    return "the value looks registry-framed with Apicurio's 8-byte id (" +
           std::to_string(big_endian(value.substr(1, 8))) +
           "), not JSON: compile the plan against the topic's Avro schema (streamt compile --schema "
           "FILE.avsc)";
  const auto id = big_endian(value.substr(1, 4));
  if (id == 0) return {};
  const std::string framed =
      "the value looks registry-framed (a zero byte, then schema id " + std::to_string(id) + ")";
  // JSON Schema's serializer frames the JSON text itself.
  if (value.size() > 5 && value[5] == '{')
    return framed + ", then a JSON object: compile the plan with --value-format json-registry";
  return framed +
         ", not JSON: compile the plan against the topic's Avro schema (streamt compile --schema "
         "FILE.avsc)";
}

}  // namespace streamt::operators
