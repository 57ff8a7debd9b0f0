// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/json_schema.hpp"

#include "plan/json_support.hpp"
#include "plan/schema_file.hpp"
#include "plan/sql/keywords.hpp"
#include "plan/strict_json.hpp"

#include <boost/json/value.hpp>

#include <algorithm>
#include <array>

namespace streamt::plan {

namespace {

using detail::quote;

constexpr auto ph = streamt::phase::schema;

// A JSON Schema spends two levels on each nested object ("properties", then
// the property), and may hold definitions and annotations beside them.
constexpr std::size_t max_json_schema_depth = 4 * max_row_depth + 16;

// Keywords that make a value's type depend on other schemas: no one column
// type says what such a value is.
constexpr std::array<std::string_view, 8> composing{"$ref", "allOf", "anyOf", "oneOf",
                                                    "not",  "if",    "then",  "else"};

diagnostic unsupported(const std::string& path, std::string what) {
  return detail::error(ph, "unsupported_json_schema", path,
                       std::move(what) +
                           "; streamt maps a property of one type (or that type and null) to a column: "
                           "write it so, or compile with --value-format json-registry --schema FILE");
}

result<std::vector<column>> properties_of(const boost::json::object& o, const std::string& path, int depth,
                                          bool ignore_unknown);

// The policy for members `o` does not declare: JSON Schema allows them
// unless "additionalProperties" is false.
bool ignores_unknown(const boost::json::object& o) {
  const auto* extra = o.if_contains("additionalProperties");
  return !(extra && extra->is_bool() && !extra->get_bool());
}

result<column> property(std::string_view name, const boost::json::value& v, const std::string& path,
                        bool required, int depth, bool parent_ignores) {
  if (!v.is_object()) return unsupported(path, "is " + std::string(detail::kind_name(v)));
  const auto& o = v.get_object();
  for (std::string_view k : composing)
    if (o.contains(k)) return unsupported(detail::path_key(path, k), "is not supported");
  const auto* t = o.if_contains("type");
  if (!t) return unsupported(path, "has no \"type\"");
  column c;
  c.name = std::string(name);
  c.nullable = !required;
  std::string_view type;
  if (t->is_string()) {
    type = t->get_string();
  } else if (const auto* a = t->if_array();
             a && a->size() == 2 && (*a)[0].is_string() && (*a)[1].is_string() &&
             ((*a)[0].get_string() == "null") != ((*a)[1].get_string() == "null")) {
    type = (*a)[0].get_string() == "null" ? (*a)[1].get_string() : (*a)[0].get_string();
    c.nullable = true;
  } else {
    return unsupported(detail::path_key(path, "type"), "is a union that is not [\"null\", T]");
  }
  const auto* format = o.if_contains("format");
  if (type == "string")
    c.type = format && format->is_string() && format->get_string() == "date-time" ? column_type::timestamp
                                                                                  : column_type::string;
  else if (type == "integer")
    c.type = column_type::bigint;
  else if (type == "number")
    c.type = column_type::double_;
  else if (type == "boolean")
    c.type = column_type::boolean;
  else if (type == "array")
    c.type = column_type::json;
  else if (type == "object") {
    // An object without declared properties, or nested past what a ROW may,
    // is kept whole as JSON.
    const auto* props = o.if_contains("properties");
    if (!props || !props->is_object() || props->get_object().empty() || depth >= max_row_depth) {
      c.type = column_type::json;
      return c;
    }
    c.type = column_type::row;
    const bool ignore = ignores_unknown(o);
    auto fields = properties_of(o, path, depth + 1, ignore);
    if (!fields) return fields.error();
    c.fields = std::move(*fields);
    // Said only where it differs from what the ROW inherits.
    if (ignore != parent_ignores) c.unknown_fields = ignore ? unknown_fields::ignore : unknown_fields::reject;
  } else {
    return unsupported(detail::path_key(path, "type"), "is " + quote(type));
  }
  return c;
}

result<std::vector<column>> properties_of(const boost::json::object& o, const std::string& path, int depth,
                                          bool ignore_unknown) {
  std::vector<std::string_view> required;
  if (const auto* r = o.if_contains("required")) {
    if (!r->is_array()) return unsupported(detail::path_key(path, "required"), "is not an array of names");
    for (const auto& n : r->get_array()) {
      if (!n.is_string()) return unsupported(detail::path_key(path, "required"), "is not an array of names");
      required.push_back(n.get_string());
    }
  }
  const std::string props = detail::path_key(path, "properties");
  std::vector<column> out;
  for (const auto& member : o.at("properties").get_object()) {
    const std::string at = detail::path_key(props, member.key());
    if (member.key().empty() || member.key().size() > sql::max_name_bytes)
      return unsupported(at, "is a property name streamt cannot declare (empty, or over 1024 bytes)");
    const bool is_required = std::find(required.begin(), required.end(), member.key()) != required.end();
    auto c = property(member.key(), member.value(), at, is_required, depth, ignore_unknown);
    if (!c) return c.error();
    out.push_back(std::move(*c));
  }
  return out;
}

}  // namespace

result<schema> schema_from_json_schema(std::string_view json_schema_text, std::string_view source,
                                       std::string_view topic) {
  auto v = parse_strict_json(json_schema_text, ph, max_json_schema_depth);
  if (!v) return v.error();
  if (!v->is_object()) return unsupported("$", "is " + std::string(detail::kind_name(*v)));
  const auto& root = v->get_object();
  for (std::string_view k : composing)
    if (root.contains(k)) return unsupported(detail::path_key("$", k), "is not supported");
  const auto* type = root.if_contains("type");
  const auto* props = root.if_contains("properties");
  if (!type || !type->is_string() || type->get_string() != "object" || !props || !props->is_object() ||
      props->get_object().empty())
    return unsupported("$", "is not an object schema with \"properties\" (a record's columns)");
  if (!is_valid_topic_name(topic))
    return detail::error(ph, "invalid_topic", "--source-topic",
                         quote(topic) + " is not a valid topic name; name the topic with --source-topic");
  schema s;
  s.source = std::string(source);
  s.topic = std::string(topic);
  s.value_format = value_format::json_registry;
  const bool ignore = ignores_unknown(root);
  s.unknown_fields = ignore ? unknown_fields::ignore : unknown_fields::reject;
  auto columns = properties_of(root, "$", 1, ignore);
  if (!columns) return columns.error();
  s.columns = std::move(*columns);
  return s;
}

}  // namespace streamt::plan
