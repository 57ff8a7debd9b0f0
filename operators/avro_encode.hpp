// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// encode for an Avro sink: the projected row → the Avro body of the schema
// plan::avro::sink_schema derives from the same projection (framed by the
// sink with the id that schema is registered under: registry_frame_prefix).
// No allocation once the output buffer has grown to the largest record.

#include "operators/project.hpp"
#include "operators/row.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::operators {

class avro_encode_definition {
 public:
  explicit avro_encode_definition(const project_definition& projection);

  // One value to write: a projected column, or a field of a projected ROW
  // (in pre-order, right after its ROW).
  struct field {
    std::size_t slot = 0;
    plan::column_type type = plan::column_type::string;
    bool nullable = false;
    std::size_t skip_to = 0;  // ROW: the index of the first field after its own
  };
  const std::vector<field>& fields() const noexcept { return fields_; }

 private:
  std::vector<field> fields_;
};

// Writes the body into `out` (replacing its content) and returns it.
std::string_view avro_encode(const avro_encode_definition& def, const row& r, std::string& out);

// Appends the body to `out`: after a frame (append_registry_frame), so that
// a framed value is written once, in place.
void append_avro_body(const avro_encode_definition& def, const row& r, std::string& out);

// Avro's encodings of a long (zigzag varint) and of bytes or a string (its
// length, then the bytes), appended to `out`.
void append_avro_long(std::string& out, std::int64_t v);
void append_avro_bytes(std::string& out, std::string_view b);

// The five bytes that frame a body registered under `schema_id` (Confluent's
// wire format: a zero byte and the id, big-endian), appended to `out`.
void append_registry_frame(std::string& out, std::uint32_t schema_id);

}  // namespace streamt::operators
