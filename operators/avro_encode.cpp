// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/avro_encode.hpp"

#include <bit>
#include <cstring>

namespace streamt::operators {

namespace {

void add(std::vector<avro_encode_definition::field>& out, std::size_t& slot, const plan::column& c) {
  const std::size_t at = out.size();
  out.push_back({slot++, c.type, c.nullable, 0});
  for (const plan::column& f : c.fields) add(out, slot, f);
  out[at].skip_to = out.size();
}

}  // namespace

void append_avro_long(std::string& out, std::int64_t v) {
  auto z = (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
  while (z >= 0x80) {
    out += static_cast<char>((z & 0x7F) | 0x80);
    z >>= 7;
  }
  out += static_cast<char>(z);
}

void append_avro_bytes(std::string& out, std::string_view b) {
  append_avro_long(out, static_cast<std::int64_t>(b.size()));
  out += b;
}

namespace {

// The unscaled value as Avro's decimal bytes: two's complement, big-endian,
// in as few bytes as keep its sign.
void put_decimal(std::string& out, plan::int128 v) {
  char bytes[16];
  auto u = static_cast<plan::uint128>(v);
  for (int i = 15; i >= 0; --i, u >>= 8) bytes[i] = static_cast<char>(u & 0xFF);
  int first = 0;
  while (first < 15) {
    const auto b = static_cast<unsigned char>(bytes[first]);
    const auto next = static_cast<unsigned char>(bytes[first + 1]);
    if ((b == 0x00 && (next & 0x80) == 0) || (b == 0xFF && (next & 0x80) != 0))
      ++first;
    else
      break;
  }
  append_avro_bytes(out, std::string_view(bytes + first, static_cast<std::size_t>(16 - first)));
}

}  // namespace

avro_encode_definition::avro_encode_definition(const project_definition& projection) {
  for (const projected_column& c : projection.columns()) {
    std::size_t slot = c.slot;
    const std::size_t at = fields_.size();
    add(fields_, slot, c.column);
    // As plan::avro::sink_schema types it: a union with null when a ROW
    // around it is nullable.
    fields_[at].nullable = c.may_be_null;
  }
}

std::string_view avro_encode(const avro_encode_definition& def, const row& r, std::string& out) {
  out.clear();
  append_avro_body(def, r, out);
  return out;
}

void append_avro_body(const avro_encode_definition& def, const row& r, std::string& out) {
  const auto& fields = def.fields();
  for (std::size_t i = 0; i < fields.size();) {
    const auto& f = fields[i];
    const slot& s = r.slots[f.slot];
    if (f.nullable) {
      // ["null", T]: branch 0 for null, branch 1 (zigzag 2) for a value.
      out += static_cast<char>(s.is_null ? 0 : 2);
      if (s.is_null) {
        i = f.type == plan::column_type::row ? f.skip_to : i + 1;
        continue;
      }
    }
    switch (f.type) {
      case plan::column_type::bigint:
      case plan::column_type::timestamp:
        append_avro_long(out, s.bigint);
        break;
      case plan::column_type::boolean:
        out += static_cast<char>(s.boolean ? 1 : 0);
        break;
      case plan::column_type::double_: {
        static_assert(std::endian::native == std::endian::little);  // Avro writes little-endian
        char b[8];
        std::memcpy(b, &s.dbl, 8);
        out.append(b, 8);
        break;
      }
      case plan::column_type::string:
      case plan::column_type::json:
        append_avro_bytes(out, s.string);
        break;
      case plan::column_type::decimal:
        put_decimal(out, s.decimal);
        break;
      case plan::column_type::row:
        break;  // its fields follow
    }
    ++i;
  }
}

void append_registry_frame(std::string& out, std::uint32_t schema_id) {
  out += '\0';
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((schema_id >> shift) & 0xFF);
}

}  // namespace streamt::operators
