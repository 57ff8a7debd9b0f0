// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// A JSON Schema, as producers register it through Confluent's
// JsonSchemaSerializer, mapped to the columns of a json-registry source
// (contract §3). The mapping reads the schema's structure only:
//   "string"                       STRING ("format": "date-time": TIMESTAMP)
//   "integer"                      BIGINT
//   "number"                       DOUBLE
//   "boolean"                      BOOLEAN
//   "object" with "properties"     ROW of them (deeper than max_row_depth: JSON)
//   "object" without, "array"      JSON: projected, not compared
//   ["null", T] or [T, "null"]     T, nullable
// A property that is not "required" is nullable too (a record must still
// carry it: the decoder reads every declared column). "additionalProperties":
// false keeps undeclared members invalid at that level; otherwise (JSON
// Schema's default allows them) they are ignored. Validation keywords
// (minimum, pattern, enum, ...) and annotations are not the plan's business
// and are left to the producer. Anything that is not one type ($ref, allOf,
// anyOf, oneOf, not, if, another union, a property without "type") is
// refused at its JSON path, naming what is not supported.

#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"

#include <string_view>

namespace streamt::plan {

// The schema of a json-registry source whose values `json_schema_text`
// describes; `source` is the FROM name and `topic` the Kafka topic.
// Diagnostics are phase::schema, code unsupported_json_schema, with the JSON
// path inside the JSON Schema.
result<schema> schema_from_json_schema(std::string_view json_schema_text, std::string_view source,
                                       std::string_view topic);

}  // namespace streamt::plan
