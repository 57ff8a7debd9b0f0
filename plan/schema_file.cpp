// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/schema_file.hpp"

#include "plan/avro_schema.hpp"
#include "plan/json_support.hpp"
#include "plan/sql/keywords.hpp"
#include "plan/strict_json.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include <limits>
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

constexpr std::string_view type_list =
    "\"STRING\", \"BIGINT\", \"BOOLEAN\", \"DOUBLE\", \"DECIMAL(p,s)\", \"TIMESTAMP\", \"JSON\" and "
    "\"ROW\" (upper case)";

// "DECIMAL(10,2)": precision 1..38, scale 0..precision, no spaces.
result<column> parse_decimal_type(std::string_view t, const std::string& path, streamt::phase ph) {
  auto number = [](std::string_view digits, int& out) {
    if (digits.empty() || digits.size() > 2 || (digits.size() > 1 && digits[0] == '0')) return false;
    out = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    return true;
  };
  const std::string_view inner = t.substr(8, t.size() - 9);  // between "DECIMAL(" and ")"
  const std::size_t comma = inner.find(',');
  column c;
  c.type = column_type::decimal;
  if (!t.ends_with(")") || comma == std::string_view::npos || !number(inner.substr(0, comma), c.precision) ||
      !number(inner.substr(comma + 1), c.scale))
    return error(ph, "unknown_type", path,
                 quote(t) +
                     " is not a decimal type; write \"DECIMAL(p,s)\" with the precision p (1 to 38) "
                     "and the scale s (0 to p), e.g. \"DECIMAL(10,2)\"");
  if (c.precision < 1 || c.precision > max_decimal_precision || c.scale > c.precision)
    return error(ph, "invalid_decimal", path,
                 quote(t) + " is out of range: the precision is 1 to 38 and the scale 0 to the precision");
  return c;
}

result<column> parse_type(std::string_view t, const std::string& path, streamt::phase ph) {
  for (auto k : {column_type::string, column_type::bigint, column_type::boolean, column_type::double_,
                 column_type::timestamp, column_type::json, column_type::row})
    if (t == to_string(k)) {
      column c;
      c.type = k;
      return c;
    }
  if (t.starts_with("DECIMAL(")) return parse_decimal_type(t, path, ph);
  return error(ph, "unknown_type", path,
               "unknown column type " + quote(t) + "; the types are " + std::string(type_list));
}

result<unknown_fields> parse_unknown_fields(const boost::json::value& v, const std::string& path,
                                            streamt::phase ph) {
  constexpr std::string_view policy_rule =
      "\"reject\" (a record with a member the schema does not declare is invalid, the default) or "
      "\"ignore\" (such members are checked as JSON and skipped)";
  if (!v.is_string())
    return error(ph, "wrong_type", path,
                 "is " + std::string(detail::kind_name(v)) + "; it must be " + std::string(policy_rule));
  const std::string_view text = v.get_string();
  if (text == "ignore") return unknown_fields::ignore;
  if (text == "reject") return unknown_fields::reject;
  return error(ph, "invalid_unknown_fields", path,
               quote(text) + " is not a policy; it must be " + std::string(policy_rule));
}

result<std::vector<column>> columns_from_json(const boost::json::value& v, const std::string& path,
                                              streamt::phase ph, int depth, std::string_view what);

// "from": where a top-level column's value comes from, and the types each
// source can give: the key's bytes as UTF-8 text, or parsed as a BIGINT or as
// JSON; a header's value as text; the timestamp as a TIMESTAMP; the
// partition and offset as BIGINTs.
result<bool> parse_from(const boost::json::value& v, column& c, const std::string& path, streamt::phase ph,
                        int depth) {
  constexpr std::string_view rule =
      "\"key\" (STRING, BIGINT or JSON), \"header:NAME\" (STRING), \"timestamp\" (TIMESTAMP), "
      "\"partition\" or \"offset\" (BIGINT)";
  if (!v.is_string())
    return error(ph, "wrong_type", path,
                 "is " + std::string(detail::kind_name(v)) + "; it must be one of " + std::string(rule));
  const std::string_view text = v.get_string();
  if (depth > 1)
    return error(
        ph, "nested_metadata_column", path,
        "is given for a field of a ROW; only a top-level column can come from the record's metadata");
  if (text == "key") {
    c.from = column_source::key;
  } else if (text == "timestamp") {
    c.from = column_source::timestamp;
  } else if (text == "partition") {
    c.from = column_source::partition;
  } else if (text == "offset") {
    c.from = column_source::offset;
  } else if (text.starts_with("header:")) {
    c.from = column_source::header;
    c.header = std::string(text.substr(7));
    if (c.header.empty() || c.header.size() > sql::max_name_bytes || c.header.find('\0') != std::string::npos)
      return error(ph, "invalid_header_name", path,
                   quote(text) + " names no header; write \"header:NAME\" with a name of 1 to " +
                       std::to_string(sql::max_name_bytes) + " bytes (no NUL)");
  } else {
    return error(ph, "invalid_from", path,
                 quote(text) + " is not a source; it must be one of " + std::string(rule));
  }
  const column_type t = c.type;
  bool fits = false;
  switch (c.from) {
    case column_source::key:
      fits = t == column_type::string || t == column_type::bigint || t == column_type::json;
      break;
    case column_source::header:
      fits = t == column_type::string;
      break;
    case column_source::timestamp:
      fits = t == column_type::timestamp;
      break;
    case column_source::partition:
    case column_source::offset:
      fits = t == column_type::bigint;
      break;
    case column_source::value:
      break;
  }
  if (!fits)
    return error(ph, "wrong_metadata_type", path,
                 quote(text) + " cannot give a " + type_name(c) +
                     " column; the sources and their types are " + std::string(rule));
  return true;
}

result<column> column_from_json(const boost::json::value& v, const std::string& path, streamt::phase ph,
                                int depth) {
  if (!v.is_object())
    return error(ph, "wrong_type", path,
                 "is " + std::string(detail::kind_name(v)) +
                     "; a column must be a JSON object with the fields name, type, nullable");
  const auto& o = v.get_object();
  diagnostic d;
  if (detail::find_unknown_member(o, path, {"name", "type", "nullable", "fields", "unknown_fields", "from"},
                                  "a column", ph, d))
    return d;

  auto name = detail::require_string(o, path, "name", "a JSON string holding " + std::string(name_rule), ph);
  if (!name) return name.error();
  auto checked = check_name(*name, detail::path_key(path, "name"), ph);
  if (!checked) return checked.error();

  auto type =
      detail::require_string(o, path, "type", "one of the JSON strings " + std::string(type_list), ph);
  if (!type) return type.error();
  auto parsed = parse_type(*type, detail::path_key(path, "type"), ph);
  if (!parsed) return parsed.error();
  column c = std::move(*parsed);
  c.name = std::move(*checked);

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

  if (const auto* from = o.if_contains("from")) {
    auto source = parse_from(*from, c, detail::path_key(path, "from"), ph, depth);
    if (!source) return source.error();
  }

  const auto* fields = o.if_contains("fields");
  const auto* policy = o.if_contains("unknown_fields");
  if (c.type != column_type::row) {
    if (fields || policy)
      return error(
          ph, "unexpected_fields", detail::path_key(path, fields ? "fields" : "unknown_fields"),
          "is given but column " + quote(c.name) + " is " + type_name(c) + "; only a ROW column has fields");
    return c;
  }
  if (!fields)
    return error(ph, "missing_fields", detail::path_key(path, "fields"),
                 "is missing; a ROW column lists its columns in \"fields\"");
  if (depth >= max_row_depth)
    return error(ph, "too_deep", detail::path_key(path, "fields"),
                 "nests ROW columns deeper than " + std::to_string(max_row_depth) +
                     " levels; flatten the schema or declare the deep part as JSON");
  auto children = columns_from_json(*fields, detail::path_key(path, "fields"), ph, depth + 1, "a ROW");
  if (!children) return children.error();
  c.fields = std::move(*children);
  if (policy) {
    auto u = parse_unknown_fields(*policy, detail::path_key(path, "unknown_fields"), ph);
    if (!u) return u.error();
    c.unknown_fields = *u;
  }
  return c;
}

result<std::vector<column>> columns_from_json(const boost::json::value& v, const std::string& path,
                                              streamt::phase ph, int depth, std::string_view what) {
  constexpr std::string_view columns_rule = "a non-empty JSON array of column objects";
  if (!v.is_array())
    return error(ph, "wrong_type", path,
                 "is " + std::string(detail::kind_name(v)) + "; it must be " + std::string(columns_rule));
  const auto& arr = v.get_array();
  if (arr.empty())
    return error(ph, "no_columns", path, "is empty; " + std::string(what) + " declares at least one column");
  std::vector<column> out;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string item_path = detail::path_index(path, i);
    auto c = column_from_json(arr[i], item_path, ph, depth);
    if (!c) return c.error();
    for (std::size_t j = 0; j < out.size(); ++j)
      if (out[j].name == c->name)
        return error(ph, "duplicate_column", detail::path_key(item_path, "name"),
                     "column " + quote(c->name) + " is already declared at " + detail::path_index(path, j) +
                         "; column names must be unique");
    out.push_back(std::move(*c));
  }
  return out;
}

void column_to_json(const column& c, boost::json::array& out) {
  boost::json::object co;
  co["name"] = c.name;
  co["type"] = type_name(c);
  co["nullable"] = c.nullable;
  if (c.from != column_source::value) co["from"] = from_text(c);
  if (c.type == column_type::row) {
    boost::json::array fields;
    for (const column& f : c.fields) column_to_json(f, fields);
    co["fields"] = std::move(fields);
    if (c.unknown_fields) co["unknown_fields"] = std::string_view(to_string(*c.unknown_fields));
  }
  out.emplace_back(std::move(co));
}

}  // namespace

namespace {

// The "avro" member: the pinned reader schema and where it came from. Each
// derived member must be what the schema gives (its canonical form, the
// form's fingerprint, the columns), so a plan edited by hand in one place
// only is refused rather than read two ways.
result<avro_source> avro_from_json(const boost::json::value& v, const std::string& path, streamt::phase ph,
                                   const schema& s) {
  if (!v.is_object())
    return error(ph, "wrong_type", path,
                 "is " + std::string(detail::kind_name(v)) +
                     "; it must be a JSON object with the members schema, canonical_form, fingerprint");
  const auto& o = v.get_object();
  diagnostic d;
  if (detail::find_unknown_member(o, path, {"schema", "canonical_form", "fingerprint", "subject", "version"},
                                  "an Avro source", ph, d))
    return d;
  auto reader = detail::require_member(o, path, "schema", "the reader schema, an Avro record schema", ph);
  if (!reader) return reader.error();
  auto parsed = avro::schema_from_json(**reader);
  if (!parsed) {
    diagnostic e = parsed.error();
    e.phase = ph;
    e.path = detail::path_key(path, "schema") + e.path.substr(1);
    return e;
  }
  auto mapped = avro::to_columns(*parsed);
  if (!mapped) {
    diagnostic e = mapped.error();
    e.phase = ph;
    e.path = detail::path_key(path, "schema");
    return e;
  }
  avro_source a;
  std::string compact;
  detail::write_json(compact, **reader, 0);
  a.schema = std::move(compact);
  a.canonical_form = avro::canonical_form(*parsed);
  a.fingerprint = avro::fingerprint_hex(avro::fingerprint(a.canonical_form));
  auto canonical =
      detail::require_string(o, path, "canonical_form", "the schema's Parsing Canonical Form", ph);
  if (!canonical) return canonical.error();
  if (*canonical != a.canonical_form)
    return error(ph, "avro_schema_mismatch", detail::path_key(path, "canonical_form"),
                 "is not the Parsing Canonical Form of the schema beside it (" + quote(a.canonical_form) +
                     "); recompile the plan rather than edit it");
  auto fp = detail::require_string(o, path, "fingerprint", "16 hex digits", ph);
  if (!fp) return fp.error();
  if (*fp != a.fingerprint)
    return error(ph, "avro_schema_mismatch", detail::path_key(path, "fingerprint"),
                 "is " + quote(*fp) + ", but the canonical form's CRC-64-AVRO fingerprint is " +
                     quote(a.fingerprint) + "; recompile the plan rather than edit it");
  if (mapped->columns != s.columns)
    return error(ph, "avro_schema_mismatch", detail::path_key(path, "schema"),
                 "maps to other columns than the schema's \"columns\" (the Avro fields, in order, as "
                 "contract §3 maps them); recompile the plan rather than edit it");
  if (const auto* subject = o.if_contains("subject")) {
    if (!subject->is_string() || subject->get_string().empty() || subject->get_string().size() > 1024)
      return error(ph, "wrong_type", detail::path_key(path, "subject"),
                   "must be the registry subject the schema came from, a non-empty JSON string");
    a.subject = std::string(subject->get_string());
    const auto* version = o.if_contains("version");
    if (version == nullptr || !version->is_int64() || version->get_int64() < 1 ||
        version->get_int64() > std::numeric_limits<int>::max())
      return error(ph, "wrong_type", detail::path_key(path, "version"),
                   "must be the subject's version the schema is, a JSON integer from 1");
    a.version = static_cast<int>(version->get_int64());
  } else if (o.if_contains("version")) {
    return error(ph, "unknown_field", detail::path_key(path, "version"),
                 "is given without \"subject\"; a version is a subject's");
  }
  return a;
}

}  // namespace

result<schema> schema_from_avro(std::string_view avro_text, std::string_view source, std::string_view topic,
                                std::string_view subject, int version) {
  auto v = parse_strict_json(avro_text, streamt::phase::schema, avro::max_schema_json_depth);
  if (!v) return v.error();
  auto parsed = avro::schema_from_json(*v);
  if (!parsed) return parsed.error();
  auto mapped = avro::to_columns(*parsed);
  if (!mapped) return mapped.error();
  schema s;
  auto checked = check_name(source, "FROM", streamt::phase::schema);
  if (!checked) return checked.error();
  s.source = std::move(*checked);
  if (!is_valid_topic_name(topic))
    return error(streamt::phase::schema, "invalid_topic", "--source-topic",
                 quote(topic) + " is not a valid topic name; use " + std::string(topic_rule));
  s.topic = std::string(topic);
  s.columns = std::move(mapped->columns);
  avro_source a;
  detail::write_json(a.schema, *v, 0);
  a.canonical_form = avro::canonical_form(*parsed);
  a.fingerprint = avro::fingerprint_hex(avro::fingerprint(a.canonical_form));
  a.subject = std::string(subject);
  a.version = subject.empty() ? 0 : version;
  s.avro = std::move(a);
  return s;
}

result<schema> schema_from_json(const boost::json::value& v, std::string_view path_sv, streamt::phase ph) {
  const std::string path(path_sv);
  if (!v.is_object())
    return error(ph, "wrong_type", path,
                 "is " + std::string(detail::kind_name(v)) +
                     "; a schema must be a JSON object with the fields source, topic, columns");
  const auto& o = v.get_object();
  diagnostic d;
  if (detail::find_unknown_member(
          o, path,
          {"source", "topic", "columns", "unknown_fields", "tombstones", "changelog", "avro", "value_format"},
          "a schema", ph, d))
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

  auto columns = detail::require_member(o, path, "columns", "a non-empty JSON array of column objects", ph);
  if (!columns) return columns.error();
  auto cols = columns_from_json(**columns, detail::path_key(path, "columns"), ph, 1, "a schema");
  if (!cols) return cols.error();
  s.columns = std::move(*cols);

  if (const auto* policy = o.if_contains("unknown_fields")) {
    auto u = parse_unknown_fields(*policy, detail::path_key(path, "unknown_fields"), ph);
    if (!u) return u.error();
    s.unknown_fields = *u;
  }
  if (const auto* t = o.if_contains("tombstones")) {
    constexpr std::string_view rule =
        "\"drop\" (a record with a null value is skipped, the default) or \"forward\" (it is written to the "
        "sink as a null-value record with the same key and headers)";
    if (!t->is_string() || (t->get_string() != "drop" && t->get_string() != "forward"))
      return error(ph, "invalid_tombstones", detail::path_key(path, "tombstones"),
                   "is " + (t->is_string() ? quote(t->get_string()) : std::string(detail::kind_name(*t))) +
                       "; it must be " + std::string(rule));
    s.tombstones = t->get_string() == "forward" ? tombstones::forward : tombstones::drop;
  }
  if (const auto* c = o.if_contains("changelog")) {
    constexpr std::string_view rule =
        "\"append\" (the topic is a stream of events) or \"upsert\" (the topic is a table's changelog by "
        "key: tombstones are forwarded and a record that does not pass is written as a tombstone of its key)";
    if (!c->is_string() || (c->get_string() != "append" && c->get_string() != "upsert"))
      return error(ph, "invalid_changelog", detail::path_key(path, "changelog"),
                   "is " + (c->is_string() ? quote(c->get_string()) : std::string(detail::kind_name(*c))) +
                       "; it must be " + std::string(rule));
    s.changelog = c->get_string() == "upsert" ? changelog::upsert : changelog::append;
    if (*s.changelog == changelog::upsert && o.if_contains("tombstones") && s.tombstones == tombstones::drop)
      return error(ph, "upsert_drops_tombstones", detail::path_key(path, "tombstones"),
                   "is \"drop\" but the changelog is \"upsert\", which forwards every tombstone (a delete "
                   "upstream must delete downstream); remove \"tombstones\" or use \"append\"");
  }
  if (const auto* a = o.if_contains("avro")) {
    auto source = avro_from_json(*a, detail::path_key(path, "avro"), ph, s);
    if (!source) return source.error();
    if (o.if_contains("unknown_fields"))
      return error(ph, "unknown_fields_with_avro", detail::path_key(path, "unknown_fields"),
                   "is set, but an Avro source's fields are its writer schema's, resolved by Avro's rules "
                   "(a field the reader lacks is skipped); remove \"unknown_fields\"");
    s.avro = std::move(*source);
  }
  if (const auto* f = o.if_contains("value_format")) {
    const std::string at = detail::path_key(path, "value_format");
    constexpr std::string_view rule =
        "\"json\" (each value is a JSON object, the default) or \"json-registry\" (each value is a zero "
        "byte, a 4-byte schema id, then the JSON object, as Confluent's JsonSchemaSerializer writes it)";
    if (!f->is_string() || (f->get_string() != "json" && f->get_string() != "json-registry"))
      return error(ph, "invalid_value_format", at,
                   "is " + (f->is_string() ? quote(f->get_string()) : std::string(detail::kind_name(*f))) +
                       "; it must be " + std::string(rule));
    if (s.avro)
      return error(ph, "value_format_with_avro", at,
                   "is set, but the schema's \"avro\" member already says the values are Avro in the "
                   "Confluent wire format; remove \"value_format\"");
    // One meaning, one digest: a plan leaves the default out.
    if (ph == streamt::phase::plan && f->get_string() == "json")
      return error(ph, "needless_value_format", at,
                   "says \"json\", the default; `streamt compile` leaves it out of a plan (recompile the "
                   "query)");
    if (f->get_string() == "json-registry") s.value_format = value_format::json_registry;
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
  for (const auto& c : s.columns) column_to_json(c, cols);
  o["columns"] = std::move(cols);
  // Written only when it is not the default, so that every plan compiled
  // before the member existed keeps its digest, and an engine that predates
  // it refuses a plan that ignores members instead of silently rejecting them.
  if (s.unknown_fields != unknown_fields::reject)
    o["unknown_fields"] = std::string_view(to_string(s.unknown_fields));
  // Likewise: written only when chosen, so version 1 plans keep their digests.
  if (s.tombstones != tombstones::drop) o["tombstones"] = std::string_view(to_string(s.tombstones));
  if (s.changelog) o["changelog"] = std::string_view(to_string(*s.changelog));
  if (s.avro) {
    boost::json::object a;
    a["schema"] = boost::json::parse(s.avro->schema);
    a["canonical_form"] = s.avro->canonical_form;
    a["fingerprint"] = s.avro->fingerprint;
    if (!s.avro->subject.empty()) {
      a["subject"] = s.avro->subject;
      a["version"] = s.avro->version;
    }
    o["avro"] = std::move(a);
  }
  if (s.value_format != value_format::json) o["value_format"] = std::string_view(to_string(s.value_format));
  return o;
}

}  // namespace streamt::plan
