// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The source schema file (contract §3):
//   {"source": "orders", "topic": "orders",
//    "columns": [{"name": "id", "type": "STRING", "nullable": false}, ...]}
// Strict: unknown or duplicate fields, wrong JSON types, unknown column types,
// names that are not identifiers or are reserved words, duplicate column
// names, an empty column list: each rejected with the JSON path.

#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"

#include <boost/json/value.hpp>

#include <string_view>

namespace streamt::plan {

result<schema> load_schema(std::string_view json_text);

// The same checks on an already parsed value; `path` prefixes every JSON path
// in diagnostics (the plan loader passes "$.schema").
result<schema> schema_from_json(const boost::json::value& v, std::string_view path, streamt::phase ph);

boost::json::object schema_to_json(const schema& s);

// The schema of an Avro source: `avro_text` is the reader schema (an .avsc
// file, or a registry's `schema` member for `subject` at `version`), whose
// record fields become the columns (plan::avro::to_columns); `source` is
// the FROM name and `topic` the Kafka topic. Diagnostics are phase::schema,
// with the JSON path inside the Avro schema.
result<schema> schema_from_avro(std::string_view avro_text, std::string_view source, std::string_view topic,
                                std::string_view subject = {}, int version = 0);

// A Kafka topic name: 1..249 characters of [a-zA-Z0-9._-], and not "." or ".."
// (the broker refuses anything else, so a plan naming one could never run).
constexpr bool is_valid_topic_name(std::string_view t) noexcept {
  if (t.empty() || t.size() > 249 || t == "." || t == "..") return false;
  for (char c : t) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace streamt::plan
