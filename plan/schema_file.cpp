// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/schema_file.hpp"

#include "plan/json_support.hpp"
#include "plan/sql/keywords.hpp"
#include "plan/strict_json.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>

namespace streamt::plan {

namespace {

using detail::error;
using detail::quote;

constexpr std::string_view name_rule = "a non-empty name of at most 1024 bytes";
constexpr std::string_view topic_rule =
    "a Kafka topic name: 1 to 249 characters of [a-zA-Z0-9._-], not \".\" or \"..\"";

// Any JSON member name can be declared, exactly as the records spell it: a
// query writes one that is not a plain identifier, or is a reserved word, in
// double quotes ("user-id", "order"). Only the empty name and absurd lengths
// are refused.
result<std::string> check_name(std::string_view name, const std::string& path, streamt::phase ph) {
  if (name.empty()) return error(ph, "invalid_name", path, "is empty; a name holds at least one character");
  if (name.size() > sql::max_name_bytes)
    return error(ph, "invalid_name", path,
                 "is " + std::to_string(name.size()) + " bytes; a name is at most " +
                     std::to_string(sql::max_name_bytes) + " bytes");
  return std::string(name);
}

result<column_type> parse_type(std::string_view t, const std::string& path, streamt::phase ph) {
  for (auto c : {column_type::string, column_type::bigint, column_type::boolean})
    if (t == to_string(c)) return c;
  return error(ph, "unknown_type", path,
               "unknown column type " + quote(t) + "; the types are \"STRING\", \"BIGINT\" and \"BOOLEAN\"" +
                   " (upper case)");
}

result<column> column_from_json(const boost::json::value& v, const std::string& path, streamt::phase ph) {
  if (!v.is_object())
    return error(ph, "wrong_type", path,
                 "is " + std::string(detail::kind_name(v)) +
                     "; a column must be a JSON object with the fields name, type, nullable");
  const auto& o = v.get_object();
  diagnostic d;
  if (detail::find_unknown_member(o, path, {"name", "type", "nullable"}, "a column", ph, d)) return d;

  column c;
  auto name = detail::require_string(o, path, "name", "a JSON string holding " + std::string(name_rule), ph);
  if (!name) return name.error();
  auto checked = check_name(*name, detail::path_key(path, "name"), ph);
  if (!checked) return checked.error();
  c.name = std::move(*checked);

  auto type = detail::require_string(o, path, "type",
                                     "one of the JSON strings \"STRING\", \"BIGINT\", \"BOOLEAN\"", ph);
  if (!type) return type.error();
  auto t = parse_type(*type, detail::path_key(path, "type"), ph);
  if (!t) return t.error();
  c.type = *t;

  // Required, not defaulted: whether a column may be null decides which
  // records are invalid, so the schema author must say it.
  constexpr std::string_view nullable_rule = "a JSON boolean (true or false)";
  auto nullable = detail::require_member(o, path, "nullable", nullable_rule, ph);
  if (!nullable) return nullable.error();
  if (!(*nullable)->is_bool())
    return error(
        ph, "wrong_type", detail::path_key(path, "nullable"),
        "is " + std::string(detail::kind_name(**nullable)) + "; it must be " + std::string(nullable_rule));
  c.nullable = (*nullable)->get_bool();
  return c;
}

}  // namespace

result<schema> schema_from_json(const boost::json::value& v, std::string_view path_sv, streamt::phase ph) {
  const std::string path(path_sv);
  if (!v.is_object())
    return error(ph, "wrong_type", path,
                 "is " + std::string(detail::kind_name(v)) +
                     "; a schema must be a JSON object with the fields source, topic, columns");
  const auto& o = v.get_object();
  diagnostic d;
  if (detail::find_unknown_member(o, path, {"source", "topic", "columns", "unknown_fields"}, "a schema", ph,
                                  d))
    return d;

  schema s;
  auto source =
      detail::require_string(o, path, "source", "a JSON string holding " + std::string(name_rule), ph);
  if (!source) return source.error();
  auto source_name = check_name(*source, detail::path_key(path, "source"), ph);
  if (!source_name) return source_name.error();
  s.source = std::move(*source_name);

  auto topic =
      detail::require_string(o, path, "topic", "a JSON string holding " + std::string(topic_rule), ph);
  if (!topic) return topic.error();
  if (!is_valid_topic_name(*topic))
    return error(ph, "invalid_topic", detail::path_key(path, "topic"),
                 quote(*topic) + " (" + std::to_string(topic->size()) +
                     " characters) is not a valid topic name; use " + std::string(topic_rule));
  s.topic = std::string(*topic);

  constexpr std::string_view columns_rule = "a non-empty JSON array of column objects";
  auto columns = detail::require_member(o, path, "columns", columns_rule, ph);
  if (!columns) return columns.error();
  const std::string columns_path = detail::path_key(path, "columns");
  if (!(*columns)->is_array())
    return error(
        ph, "wrong_type", columns_path,
        "is " + std::string(detail::kind_name(**columns)) + "; it must be " + std::string(columns_rule));
  const auto& arr = (*columns)->get_array();
  if (arr.empty())
    return error(ph, "no_columns", columns_path, "is empty; a schema declares at least one column");
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string item_path = detail::path_index(columns_path, i);
    auto c = column_from_json(arr[i], item_path, ph);
    if (!c) return c.error();
    if (auto prev = s.find(c->name))
      return error(ph, "duplicate_column", detail::path_key(item_path, "name"),
                   "column " + quote(c->name) + " is already declared at " +
                       detail::path_index(columns_path, *prev) + "; column names must be unique");
    s.columns.push_back(std::move(*c));
  }

  if (const auto* policy = o.if_contains("unknown_fields")) {
    constexpr std::string_view policy_rule =
        "\"reject\" (a record with a member the schema does not declare is invalid, the default) or "
        "\"ignore\" (such members are checked as JSON and skipped)";
    const std::string policy_path = detail::path_key(path, "unknown_fields");
    if (!policy->is_string())
      return error(
          ph, "wrong_type", policy_path,
          "is " + std::string(detail::kind_name(*policy)) + "; it must be " + std::string(policy_rule));
    const std::string_view text = policy->get_string();
    if (text == "ignore")
      s.unknown_fields = unknown_fields::ignore;
    else if (text != "reject")
      return error(ph, "invalid_unknown_fields", policy_path,
                   quote(text) + " is not a policy; it must be " + std::string(policy_rule));
  }
  return s;
}

result<schema> load_schema(std::string_view json_text) {
  auto v = parse_strict_json(json_text, streamt::phase::schema);
  if (!v) return v.error();
  return schema_from_json(*v, "$", streamt::phase::schema);
}

boost::json::object schema_to_json(const schema& s) {
  boost::json::object o;
  o["source"] = s.source;
  o["topic"] = s.topic;
  boost::json::array cols;
  cols.reserve(s.columns.size());
  for (const auto& c : s.columns) {
    boost::json::object co;
    co["name"] = c.name;
    co["type"] = std::string_view(to_string(c.type));
    co["nullable"] = c.nullable;
    cols.emplace_back(std::move(co));
  }
  o["columns"] = std::move(cols);
  // Written only when it is not the default, so that every plan compiled
  // before the member existed keeps its digest, and an engine that predates
  // it refuses a plan that ignores members instead of silently rejecting them.
  if (s.unknown_fields != unknown_fields::reject)
    o["unknown_fields"] = std::string_view(to_string(s.unknown_fields));
  return o;
}

}  // namespace streamt::plan
