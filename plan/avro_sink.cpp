// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/avro_sink.hpp"

#include "plan/avro_schema.hpp"
#include "plan/json_support.hpp"
#include "plan/sql/keywords.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace streamt::plan::avro {

namespace json = boost::json;

namespace {

// Avro's name rule is an SQL identifier's.
constexpr bool is_avro_name(std::string_view s) noexcept { return sql::is_identifier(s); }

std::string as_name(std::string_view s) {
  std::string out;
  for (char c : s)
    out += (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_';
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(out.begin(), '_');
  return out;
}

json::value type_of(const column& c, const std::string& record_name) {
  json::value t;
  switch (c.type) {
    case column_type::bigint:
      t = "long";
      break;
    case column_type::double_:
      t = "double";
      break;
    case column_type::boolean:
      t = "boolean";
      break;
    case column_type::string:
    case column_type::json:
      t = "string";
      break;
    case column_type::timestamp:
      t = json::object{{"type", "long"}, {"logicalType", "timestamp-millis"}};
      break;
    case column_type::decimal:
      t = json::object{
          {"type", "bytes"}, {"logicalType", "decimal"}, {"precision", c.precision}, {"scale", c.scale}};
      break;
    case column_type::row: {
      json::array fields;
      for (const column& f : c.fields) {
        json::object field{{"name", f.name}, {"type", type_of(f, record_name + "_" + as_name(f.name))}};
        if (f.nullable) field["default"] = nullptr;
        fields.push_back(std::move(field));
      }
      t = json::object{{"type", "record"}, {"name", record_name}, {"fields", std::move(fields)}};
      break;
    }
  }
  if (c.nullable) return json::array{"null", std::move(t)};
  return t;
}

bool names_are_avro(const column& c, std::string& bad) {
  for (const column& f : c.fields) {
    if (!is_avro_name(f.name)) {
      bad = f.name;
      return false;
    }
    if (!names_are_avro(f, bad)) return false;
  }
  return true;
}

}  // namespace

result<std::string> sink_schema(const plan& p) {
  const auto nodes = flatten(p.schema);
  const std::string record = as_name(p.identity.sink_topic);
  json::array fields;
  for (const projection_item& item : p.projection) {
    const column& c = *nodes.at(item.column).column;
    std::string bad;
    if (!is_avro_name(item.output_name) || !names_are_avro(c, bad)) {
      const std::string& name = bad.empty() ? item.output_name : bad;
      return detail::error(streamt::phase::bind, "invalid_avro_name", "",
                           "the output column " + detail::quote(name) +
                               " is not an Avro name (letters, digits and '_', not starting with a digit); "
                               "give it one with AS, e.g. AS " +
                               as_name(name));
    }
    // A field of a nullable ROW, projected on its own, is null whenever
    // the ROW is: its Avro type must take null too.
    column as_written = c;
    as_written.nullable = may_be_null(nodes, item.column);
    json::object field{{"name", item.output_name},
                       {"type", type_of(as_written, record + "_" + item.output_name)}};
    if (as_written.nullable) field["default"] = nullptr;
    fields.push_back(std::move(field));
  }
  const json::value schema = json::object{
      {"type", "record"}, {"name", record}, {"namespace", "streamt"}, {"fields", std::move(fields)}};
  std::string out;
  detail::write_json(out, schema, 0);
  return out;
}

std::string value_subject(std::string_view topic) { return std::string(topic) + "-value"; }

result<avro_sink> pin_sink_schema(const plan& p) {
  auto text = sink_schema(p);
  if (!text) return text.error();
  // Parsed back, as any reader would: the canonical form is the parsed
  // schema's, and a derived schema that did not parse would be a bug here,
  // better refused at compile than met by the registry at the run's start.
  auto parsed = parse_schema(*text);
  if (!parsed) {
    diagnostic d = parsed.error();
    d.phase = streamt::phase::bind;
    d.message = "the derived Avro sink schema does not parse (" + d.path + ": " + d.message + ")";
    return d;
  }
  avro_sink out;
  out.schema = std::move(*text);
  out.canonical_form = canonical_form(*parsed);
  out.fingerprint = fingerprint_hex(fingerprint(out.canonical_form));
  out.subject = value_subject(p.identity.sink_topic);
  return out;
}

}  // namespace streamt::plan::avro
