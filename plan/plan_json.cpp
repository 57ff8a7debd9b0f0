// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/plan_json.hpp"

#include "plan/avro_sink.hpp"
#include "plan/json_support.hpp"
#include "plan/schema_file.hpp"
#include "plan/sql/keywords.hpp"
#include "plan/strict_json.hpp"

#include <openssl/evp.h>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace streamt::plan {

namespace {

using detail::error;
using detail::quote;

constexpr auto ph = streamt::phase::plan;

bool plain_json_source(const schema& s) noexcept { return !s.avro && s.value_format == value_format::json; }

constexpr std::array<compare_op, 8> all_ops{compare_op::eq,      compare_op::ne,         compare_op::lt,
                                            compare_op::le,      compare_op::gt,         compare_op::ge,
                                            compare_op::is_null, compare_op::is_not_null};

constexpr bool is_null_test(compare_op op) noexcept {
  return op == compare_op::is_null || op == compare_op::is_not_null;
}
constexpr bool is_ordering(compare_op op) noexcept {
  return op == compare_op::lt || op == compare_op::le || op == compare_op::gt || op == compare_op::ge;
}

// A reference by index is stored; the file names the column: a top-level
// column by its name (as version 1 wrote it), a nested one by the array of
// names from the top. An index out of range only comes from a plan built by
// hand in code, and is written as "" so that loading it back fails instead
// of reading out of bounds here.
boost::json::value column_ref(const std::vector<node>& nodes, std::size_t i) {
  if (i >= nodes.size()) return boost::json::string();
  if (nodes[i].path.size() == 1) return boost::json::string(nodes[i].path[0]);
  boost::json::array path;
  for (const std::string& segment : nodes[i].path) path.emplace_back(boost::json::string(segment));
  return path;
}

// DECIMAL and TIMESTAMP are written as strings ("12.50",
// "2026-12-05T10:00:00.000Z"): a JSON number would pass through binary
// floating point in most readers, and a reviewer reads the time.
boost::json::value literal_to_json(const literal& l, int scale) {
  struct visitor {
    int scale;
    boost::json::value operator()(std::monostate) const { return nullptr; }
    boost::json::value operator()(std::int64_t i) const { return i; }
    boost::json::value operator()(bool b) const { return b; }
    boost::json::value operator()(const std::string& s) const { return boost::json::string(s); }
    boost::json::value operator()(double d) const { return d; }
    boost::json::value operator()(decimal_value d) const {
      return boost::json::string(format_decimal(d, scale));
    }
    boost::json::value operator()(timestamp_value t) const {
      return boost::json::string(format_timestamp(t));
    }
  };
  return std::visit(visitor{scale}, l);
}

boost::json::array predicate_to_json(const std::vector<node>& nodes,
                                     const std::vector<condition>& predicate) {
  boost::json::array pred;
  for (const auto& c : predicate) {
    boost::json::object o;
    o["column"] = column_ref(nodes, c.column);
    o["op"] = to_string(c.op);
    const int scale = c.column < nodes.size() ? nodes[c.column].column->scale : 0;
    if (!is_null_test(c.op)) o["value"] = literal_to_json(c.value, scale);
    pred.emplace_back(std::move(o));
  }
  return pred;
}

boost::json::array projection_to_json(const std::vector<node>& nodes,
                                      const std::vector<projection_item>& projection) {
  boost::json::array proj;
  for (const auto& item : projection) {
    boost::json::object o;
    o["column"] = column_ref(nodes, item.column);
    o["as"] = item.output_name;
    proj.emplace_back(std::move(o));
  }
  return proj;
}

// The members in canonical order. boost::json::object keeps insertion order,
// which is what makes this order the serialised order.
boost::json::object plan_to_json(const plan& p) {
  boost::json::object root;
  root["plan_version"] = p.version;

  boost::json::object id;
  id["application_id"] = p.identity.application_id;
  id["source_topic"] = p.identity.source_topic;
  // A routed plan's sinks are part of its identity: all of them, in the
  // order first written. A plan of one SELECT keeps its one sink_topic, so
  // its form and digest are what they were before routes existed.
  if (is_routed(p)) {
    boost::json::array sinks;
    for (const std::string& t : sink_topics(p)) sinks.emplace_back(boost::json::string(t));
    id["sink_topics"] = std::move(sinks);
  } else {
    id["sink_topic"] = p.identity.sink_topic;
  }
  boost::json::array ops;
  for (const auto& o : p.identity.operators) ops.emplace_back(boost::json::string(o));
  id["operators"] = std::move(ops);
  // Written only when it is not the default, so that every plan compiled
  // before dead-lettering existed keeps its digest, and an older engine
  // refuses a dead-lettering plan instead of stopping at its first bad record.
  if (p.identity.on_invalid != on_invalid::fail) {
    id["on_invalid"] = to_string(p.identity.on_invalid);
    id["dead_letter_topic"] = p.identity.dead_letter_topic;
  }
  root["identity"] = std::move(id);

  root["schema"] = schema_to_json(p.schema);

  const std::vector<node> nodes = flatten(p.schema);
  if (is_routed(p)) {
    boost::json::array routes;
    bool bigint_key = false;
    for (const route& r : p.routes) {
      boost::json::object o;
      o["sink_topic"] = r.sink_topic;
      o["predicate"] = predicate_to_json(nodes, r.predicate);
      o["projection"] = projection_to_json(nodes, r.projection);
      if (r.partition_by) {
        o["partition_by"] = column_ref(nodes, *r.partition_by);
        if (*r.partition_by < nodes.size() && nodes[*r.partition_by].column->type == column_type::bigint)
          bigint_key = true;
      }
      routes.emplace_back(std::move(o));
    }
    root["routes"] = std::move(routes);
    // Absent: records no route takes are dropped (and counted).
    if (!p.unrouted_topic.empty()) root["unrouted_topic"] = p.unrouted_topic;
    // Written exactly when it means something: with a BIGINT key column.
    if (bigint_key) root["key_format"] = to_string(p.key_format);
  } else {
    root["predicate"] = predicate_to_json(nodes, p.predicate);
    root["projection"] = projection_to_json(nodes, p.projection);
  }
  // Written unless both ends are plain JSON, so that every plan compiled
  // before sinks had a format keeps its digest, and a plan with a
  // registry-framed source (Avro, json-registry) says which format its sink
  // writes instead of leaving a reader to guess.
  if (p.sink.format != sink_format::json || !plain_json_source(p.schema)) {
    boost::json::object sink;
    sink["format"] = to_string(p.sink.format);
    if (p.sink.avro) {
      boost::json::object a;
      a["schema"] = boost::json::parse(p.sink.avro->schema);
      a["canonical_form"] = p.sink.avro->canonical_form;
      a["fingerprint"] = p.sink.avro->fingerprint;
      a["subject"] = p.sink.avro->subject;
      sink["avro"] = std::move(a);
    }
    root["sink"] = std::move(sink);
  }
  // Written only when there is one, so that every plan compiled before
  // succession existed keeps its digest.
  if (!p.supersedes.empty()) {
    boost::json::array before;
    for (const std::string& d : p.supersedes) before.emplace_back(boost::json::string(d));
    root["supersedes"] = std::move(before);
  }
  return root;
}

std::string sha256_hex(std::string_view text) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // Only an allocation failure inside OpenSSL makes this fail: not an
  // expected outcome a caller could act on, hence an exception.
  if (EVP_Digest(text.data(), text.size(), md, &len, EVP_sha256(), nullptr) != 1 || len != 32)
    throw std::runtime_error("SHA-256 computation failed");
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (unsigned int i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 0xF];
  }
  return out;
}

bool is_well_formed_digest(std::string_view d) { return !digest_problem(d); }

// --- loading --------------------------------------------------------------

result<const boost::json::object*> require_object(const boost::json::object& parent, const std::string& path,
                                                  std::string_view key, std::string_view expected) {
  auto v = detail::require_member(parent, path, key, expected, ph);
  if (!v) return v.error();
  if (!(*v)->is_object())
    return error(ph, "wrong_type", detail::path_key(path, key),
                 "is " + std::string(detail::kind_name(**v)) + "; it must be " + std::string(expected));
  return &(*v)->get_object();
}

result<const boost::json::array*> require_array(const boost::json::object& parent, const std::string& path,
                                                std::string_view key, std::string_view expected) {
  auto v = detail::require_member(parent, path, key, expected, ph);
  if (!v) return v.error();
  if (!(*v)->is_array())
    return error(ph, "wrong_type", detail::path_key(path, key),
                 "is " + std::string(detail::kind_name(**v)) + "; it must be " + std::string(expected));
  return &(*v)->get_array();
}

std::string supported_versions() {
  return "this engine runs plan_version " + std::to_string(oldest_plan_version) + " to " +
         std::to_string(newest_plan_version);
}

// Checked before anything else: a plan of another version may legitimately
// hold fields this engine does not know, and "unsupported version" is the
// useful message for it, not "unknown field".
result<int> check_version(const boost::json::object& root) {
  auto v = detail::require_member(root, "$", "plan_version", "the JSON integer 1 or 2", ph);
  if (!v) return v.error();
  const auto& jv = **v;
  if (jv.is_int64() || jv.is_uint64()) {
    if (jv.is_int64() && jv.get_int64() >= oldest_plan_version && jv.get_int64() <= newest_plan_version)
      return static_cast<int>(jv.get_int64());
    std::string shown = jv.is_int64() ? std::to_string(jv.get_int64()) : std::to_string(jv.get_uint64());
    return error(ph, "unsupported_version", "$.plan_version",
                 "plan_version " + shown + " is not supported; " + supported_versions() +
                     " (recompile the query with this engine's `streamt compile`)");
  }
  return error(ph, "wrong_type", "$.plan_version",
               "is " + std::string(detail::kind_name(jv)) + "; it must be a JSON integer (" +
                   supported_versions() + ")");
}

result<std::string> check_topic(const boost::json::object& o, const std::string& path, std::string_view key) {
  constexpr std::string_view rule =
      "a Kafka topic name: 1 to 249 characters of [a-zA-Z0-9._-], not \".\" or \"..\"";
  auto t =
      detail::require_string(o, path, key, std::string("a JSON string holding ") + std::string(rule), ph);
  if (!t) return t.error();
  if (!is_valid_topic_name(*t))
    return error(ph, "invalid_topic", detail::path_key(path, key),
                 quote(*t) + " (" + std::to_string(t->size()) +
                     " characters) is not a valid topic name; use " + std::string(rule));
  return std::string(*t);
}

// `sinks` receives a routed plan's identity.sink_topics (routed is whether
// the plan has "routes"); a plan of one SELECT names its sink_topic instead.
result<identity> load_identity(const boost::json::object& root, bool routed,
                               std::vector<std::string>& sinks) {
  const std::string path = "$.identity";
  auto obj =
      require_object(root, "$", "identity",
                     "a JSON object with the fields application_id, source_topic, sink_topic, operators");
  if (!obj) return obj.error();
  const auto& o = **obj;
  diagnostic d;
  if (detail::find_unknown_member(o, path,
                                  {"application_id", "source_topic", routed ? "sink_topics" : "sink_topic",
                                   "operators", "on_invalid", "dead_letter_topic"},
                                  routed ? "the identity of a routed plan" : "the identity", ph, d))
    return d;

  identity id;
  constexpr std::string_view app_rule =
      "1 to 200 characters of [a-zA-Z0-9._-] (it becomes the Kafka consumer group id and transactional-id "
      "prefix)";
  auto app = detail::require_string(o, path, "application_id",
                                    std::string("a JSON string of ") + std::string(app_rule), ph);
  if (!app) return app.error();
  if (!is_valid_application_id(*app))
    return error(ph, "invalid_application_id", path + ".application_id",
                 quote(*app) + " (" + std::to_string(app->size()) +
                     " characters) is not a valid application id; use " + std::string(app_rule));
  id.application_id = std::string(*app);

  auto src = check_topic(o, path, "source_topic");
  if (!src) return src.error();
  id.source_topic = std::move(*src);
  if (routed) {
    const std::string rule =
        "a JSON array of the distinct sink topics of \"routes\", in the order first written";
    auto arr = require_array(o, path, "sink_topics", rule);
    if (!arr) return arr.error();
    for (std::size_t i = 0; i < (*arr)->size(); ++i) {
      const std::string item = detail::path_index(path + ".sink_topics", i);
      const boost::json::value& v = (**arr)[i];
      if (!v.is_string() || !is_valid_topic_name(v.get_string()))
        return error(ph, "invalid_topic", item,
                     (v.is_string() ? quote(v.get_string()) : std::string(detail::kind_name(v))) +
                         " is not a valid topic name; use a Kafka topic name: 1 to 249 characters of "
                         "[a-zA-Z0-9._-], not \".\" or \"..\"");
      sinks.emplace_back(v.get_string());
    }
  } else {
    auto sink = check_topic(o, path, "sink_topic");
    if (!sink) return sink.error();
    id.sink_topic = std::move(*sink);
    sinks = {id.sink_topic};
  }

  std::string fixed;
  for (const auto& n : operator_names()) fixed += (fixed.empty() ? "[\"" : ", \"") + n + "\"";
  fixed += "]";
  const std::string ops_rule = "exactly " + fixed;
  auto ops = require_array(o, path, "operators", "the JSON array " + ops_rule);
  if (!ops) return ops.error();
  const auto& arr = **ops;
  bool same = arr.size() == operator_names().size();
  for (std::size_t i = 0; same && i < arr.size(); ++i)
    same = arr[i].is_string() && arr[i].get_string() == operator_names()[i];
  if (!same)
    return error(
        ph, "wrong_operators", path + ".operators",
        "the operators must be " + ops_rule + "; a plan with other stages was not written by this engine");
  id.operators = operator_names();

  constexpr std::string_view policy_rule =
      "\"fail\" (stop at an invalid record, the default) or \"dead-letter\" (write it to dead_letter_topic "
      "and "
      "go on)";
  if (const auto* policy = o.if_contains("on_invalid")) {
    if (!policy->is_string() || (policy->get_string() != "fail" && policy->get_string() != "dead-letter"))
      return error(
          ph, "invalid_on_invalid", path + ".on_invalid",
          "is " +
              (policy->is_string() ? quote(policy->get_string()) : std::string(detail::kind_name(*policy))) +
              "; it must be " + std::string(policy_rule));
    if (policy->get_string() == "dead-letter") id.on_invalid = on_invalid::dead_letter;
  }
  if (id.on_invalid == on_invalid::dead_letter) {
    if (!o.contains("dead_letter_topic"))
      return error(ph, "missing_dead_letter_topic", path + ".dead_letter_topic",
                   "is missing; on_invalid \"dead-letter\" needs the topic invalid records are written to");
    auto dlq = check_topic(o, path, "dead_letter_topic");
    if (!dlq) return dlq.error();
    // The source would read its own rejects back; the sink would mix them
    // into the output its readers trust.
    const bool a_sink = std::find(sinks.begin(), sinks.end(), *dlq) != sinks.end();
    if (*dlq == id.source_topic || a_sink)
      return error(ph, "dead_letter_topic_reused", path + ".dead_letter_topic",
                   quote(*dlq) + " is also the " + (*dlq == id.source_topic ? "source" : "sink") +
                       " topic; invalid records need a topic of their own");
    id.dead_letter_topic = std::move(*dlq);
  } else if (o.contains("dead_letter_topic")) {
    return error(ph, "unexpected_dead_letter_topic", path + ".dead_letter_topic",
                 "is given but on_invalid is \"fail\"; a dead-letter topic is used only with on_invalid "
                 "\"dead-letter\"");
  }
  return id;
}

result<literal> load_literal(const boost::json::value& v, const column& col, const std::string& path) {
  const std::string type = type_name(col);
  auto expected = [&]() -> std::string {
    switch (col.type) {
      case column_type::bigint:
        return "a JSON integer in the signed 64-bit range";
      case column_type::string:
        return "a JSON string";
      case column_type::boolean:
        return "a JSON boolean";
      case column_type::double_:
        return "a finite JSON number";
      case column_type::decimal:
        return "a JSON string holding a decimal number with at most " + std::to_string(col.scale) +
               " fraction digits";
      case column_type::timestamp:
        return "a JSON string holding an RFC 3339 time with an offset";
      case column_type::json:
      case column_type::row:
        break;
    }
    return "?";
  };
  if (v.is_null())
    return error(ph, "null_literal", path,
                 "null is not a literal; to match null values use the op \"IS NULL\" (with no value)");
  switch (col.type) {
    case column_type::bigint:
      if (v.is_int64()) return literal(v.get_int64());
      if (v.is_uint64())
        return error(ph, "literal_out_of_range", path,
                     std::to_string(v.get_uint64()) +
                         " is outside the signed 64-bit range of BIGINT column " + quote(col.name));
      break;
    case column_type::string:
      if (v.is_string()) return literal(std::string(v.get_string()));
      break;
    case column_type::boolean:
      if (v.is_bool()) return literal(v.get_bool());
      break;
    case column_type::double_:
      if (v.is_double() && std::isfinite(v.get_double())) return literal(v.get_double());
      // The writer's shortest form of a whole double may be digits only,
      // which Boost.JSON reads back as an integer of either width.
      if (v.is_int64()) return literal(static_cast<double>(v.get_int64()));
      if (v.is_uint64()) return literal(static_cast<double>(v.get_uint64()));
      break;
    case column_type::decimal:
      if (v.is_string()) {
        decimal_verdict d = parse_decimal(v.get_string(), col.precision, col.scale);
        if (!d.problem.empty())
          return error(ph, "literal_out_of_range", path, quote(v.get_string()) + " " + d.problem);
        return literal(d.value);
      }
      break;
    case column_type::timestamp:
      if (v.is_string()) {
        std::string problem;
        if (auto t = parse_timestamp(v.get_string(), problem)) return literal(*t);
        return error(ph, "invalid_timestamp", path, quote(v.get_string()) + " " + problem);
      }
      break;
    case column_type::json:
    case column_type::row:
      return error(ph, "type_mismatch", path,
                   "column " + quote(col.name) + " is " + type + ", which only IS NULL and IS NOT NULL test");
  }
  return error(ph, "type_mismatch", path,
               "is " + std::string(detail::kind_name(v)) + " but column " + quote(col.name) + " is " + type +
                   "; the value must be " + expected() + " (no implicit conversion)");
}

std::string column_list(const schema& s) {
  std::string out;
  for (const auto& c : s.columns) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

result<std::size_t> load_column_ref(const boost::json::object& o, const std::string& path, const schema& s,
                                    const std::vector<node>& nodes, std::string_view key = "column") {
  constexpr std::string_view rule =
      "a JSON string naming a column of the schema, or a JSON array of the names on the path to a nested one";
  auto ref = detail::require_member(o, path, key, rule, ph);
  if (!ref) return ref.error();
  std::vector<std::string> wanted;
  if ((*ref)->is_string()) {
    wanted.emplace_back((*ref)->get_string());
  } else if ((*ref)->is_array() && (*ref)->get_array().size() >= 2) {
    for (const auto& segment : (*ref)->get_array()) {
      if (!segment.is_string())
        return error(
            ph, "wrong_type", detail::path_key(path, key),
            "holds " + std::string(detail::kind_name(segment)) + "; it must be " + std::string(rule));
      wanted.emplace_back(segment.get_string());
    }
  } else {
    return error(ph, "wrong_type", detail::path_key(path, key),
                 "is " + std::string(detail::kind_name(**ref)) + "; it must be " + std::string(rule));
  }
  if (auto i = find_path(nodes, wanted)) return *i;
  return error(
      ph, "unknown_column", detail::path_key(path, key),
      "no column " + quote(path_text(wanted)) + " in the schema (its columns are " + column_list(s) + ")");
}

result<std::vector<condition>> load_predicate(const boost::json::object& parent, const std::string& at,
                                              const schema& s, const std::vector<node>& nodes) {
  const std::string path = detail::path_key(at, "predicate");
  auto arr =
      require_array(parent, at, "predicate", "a JSON array of conditions (empty when every record passes)");
  if (!arr) return arr.error();
  std::string op_list;
  for (auto op : all_ops) op_list += (op_list.empty() ? "\"" : ", \"") + std::string(to_string(op)) + "\"";

  std::vector<condition> out;
  for (std::size_t i = 0; i < (*arr)->size(); ++i) {
    const std::string item = detail::path_index(path, i);
    const auto& v = (**arr)[i];
    if (!v.is_object())
      return error(
          ph, "wrong_type", item,
          "is " + std::string(detail::kind_name(v)) +
              "; a condition must be a JSON object with the fields column, op and (except for IS NULL and "
              "IS NOT NULL) value");
    const auto& o = v.get_object();
    diagnostic d;
    if (detail::find_unknown_member(o, item, {"column", "op", "value"}, "a condition", ph, d)) return d;

    condition c;
    auto col = load_column_ref(o, item, s, nodes);
    if (!col) return col.error();
    c.column = *col;
    const column& col_def = *nodes[c.column].column;

    auto op_text = detail::require_string(o, item, "op", "one of the JSON strings " + op_list, ph);
    if (!op_text) return op_text.error();
    bool found = false;
    for (auto op : all_ops)
      if (*op_text == to_string(op)) {
        c.op = op;
        found = true;
      }
    if (!found)
      return error(ph, "unknown_op", item + ".op",
                   "unknown op " + quote(*op_text) + "; the ops are " + op_list);
    if (is_ordering(c.op) && !is_ordered(col_def.type))
      return error(ph, "ordering_on_unordered", item + ".op",
                   quote(*op_text) +
                       " applies to BIGINT, DOUBLE, DECIMAL and TIMESTAMP columns only, and column " +
                       quote(col_def.name) + " is " + type_name(col_def) + "; use \"=\" or \"<>\"");
    if (!is_null_test(c.op) && !is_comparable(col_def.type))
      return error(ph, "comparison_on_" + std::string(col_def.type == column_type::row ? "row" : "json"),
                   item + ".op",
                   "column " + quote(col_def.name) + " is " + type_name(col_def) +
                       ", which only \"IS NULL\" and \"IS NOT NULL\" test");

    const auto* value = o.if_contains("value");
    if (is_null_test(c.op)) {
      if (value)
        return error(ph, "unexpected_value", item + ".value",
                     quote(*op_text) + " takes no value; remove the \"value\" member");
    } else {
      if (!value)
        return error(ph, "missing_value", item + ".value",
                     "op " + quote(*op_text) + " needs a \"value\": a " + type_name(col_def) +
                         " literal for column " + quote(col_def.name));
      auto lit = load_literal(*value, col_def, item + ".value");
      if (!lit) return lit.error();
      c.value = std::move(*lit);
    }
    out.push_back(std::move(c));
  }
  return out;
}

result<std::vector<projection_item>> load_projection(const boost::json::object& parent, const std::string& at,
                                                     const schema& s, const std::vector<node>& nodes) {
  const std::string path = detail::path_key(at, "projection");
  auto arr =
      require_array(parent, at, "projection", "a non-empty JSON array of {\"column\", \"as\"} objects");
  if (!arr) return arr.error();
  if ((*arr)->empty())
    return error(ph, "empty_projection", path, "is empty; a plan projects at least one column");
  std::vector<projection_item> out;
  for (std::size_t i = 0; i < (*arr)->size(); ++i) {
    const std::string item = detail::path_index(path, i);
    const auto& v = (**arr)[i];
    if (!v.is_object())
      return error(ph, "wrong_type", item,
                   "is " + std::string(detail::kind_name(v)) +
                       "; a projection item must be a JSON object with the fields column, as");
    const auto& o = v.get_object();
    diagnostic d;
    if (detail::find_unknown_member(o, item, {"column", "as"}, "a projection item", ph, d)) return d;

    projection_item p;
    auto col = load_column_ref(o, item, s, nodes);
    if (!col) return col.error();
    p.column = *col;

    constexpr std::string_view as_rule = "a non-empty output name of at most 1024 bytes";
    auto as = detail::require_string(o, item, "as", "a JSON string holding " + std::string(as_rule), ph);
    if (!as) return as.error();
    // Any name a query can write, quoted or not; the output record's member
    // is spelt exactly so.
    if (as->empty() || as->size() > sql::max_name_bytes)
      return error(ph, "invalid_output_name", item + ".as",
                   quote(*as) + " is not a valid output name; it must be " + std::string(as_rule));
    for (std::size_t j = 0; j < out.size(); ++j)
      if (out[j].output_name == *as)
        return error(ph, "duplicate_output_name", item + ".as",
                     "output name " + quote(*as) + " is already used by " + detail::path_index(path, j) +
                         "; output names must be unique (each becomes one field of the output record)");
    p.output_name = std::string(*as);
    out.push_back(std::move(p));
  }
  return out;
}

// "routes" of a routed plan: 1 to max_routes objects {sink_topic,
// predicate, projection, partition_by?}, each checked as a plan of one
// SELECT is, and the members that only mean something with routes.
result<void> load_routes(const boost::json::object& root, plan& p, const std::vector<std::string>& sinks) {
  const std::string path = "$.routes";
  const std::string rule = "a JSON array of 1 to " + std::to_string(max_routes) +
                           " routes {\"sink_topic\", \"predicate\", \"projection\", \"partition_by\"?}";
  auto arr = require_array(root, "$", "routes", rule);
  if (!arr) return arr.error();
  if ((*arr)->empty() || (*arr)->size() > max_routes)
    return error(ph, "invalid_routes", path,
                 "holds " + std::to_string((*arr)->size()) + " routes; it must be " + rule);
  // A routed plan's routes say everything a single SELECT's members would.
  for (std::string_view member : {"predicate", "projection"})
    if (root.contains(member))
      return error(ph, "routed_plan_with_" + std::string(member), detail::path_key("$", member),
                   "is given in a plan with \"routes\"; each route holds its own " + std::string(member) +
                       " (recompile the query)");
  const std::vector<node> nodes = flatten(p.schema);
  bool bigint_key = false;
  for (std::size_t i = 0; i < (*arr)->size(); ++i) {
    const std::string item = detail::path_index(path, i);
    const auto& v = (**arr)[i];
    if (!v.is_object())
      return error(
          ph, "wrong_type", item,
          "is " + std::string(detail::kind_name(v)) +
              "; a route must be a JSON object with the fields sink_topic, predicate, projection and "
              "(optionally) partition_by");
    const auto& o = v.get_object();
    diagnostic d;
    if (detail::find_unknown_member(o, item, {"sink_topic", "predicate", "projection", "partition_by"},
                                    "a route", ph, d))
      return d;
    route r;
    auto sink = check_topic(o, item, "sink_topic");
    if (!sink) return sink.error();
    if (*sink == p.identity.source_topic)
      return error(
          ph, "sink_is_source", item + ".sink_topic",
          quote(*sink) +
              " is also the source topic; the sink must be another topic, or every output is read again");
    r.sink_topic = std::move(*sink);
    auto pred = load_predicate(o, item, p.schema, nodes);
    if (!pred) return pred.error();
    r.predicate = std::move(*pred);
    auto proj = load_projection(o, item, p.schema, nodes);
    if (!proj) return proj.error();
    r.projection = std::move(*proj);
    if (o.contains("partition_by")) {
      auto key = load_column_ref(o, item, p.schema, nodes, "partition_by");
      if (!key) return key.error();
      const column& c = *nodes[*key].column;
      if (c.type != column_type::string && c.type != column_type::bigint)
        return error(ph, "unsupported_key_type", item + ".partition_by",
                     "names column " + quote(path_text(nodes[*key].path)) + " of type " + type_name(c) +
                         "; a key column must be STRING or BIGINT");
      if (c.type == column_type::bigint) bigint_key = true;
      r.partition_by = *key;
    }
    p.routes.push_back(std::move(r));
  }
  const std::vector<std::string> distinct = sink_topics(p);
  if (distinct != sinks) {
    std::string listed;
    for (const std::string& t : distinct) listed += (listed.empty() ? "" : ", ") + quote(t);
    return error(ph, "sink_topics_mismatch", "$.identity.sink_topics",
                 "is not the distinct sink topics of $.routes in the order first written ([" + listed +
                     "]); the identity names every sink the plan writes (recompile the query)");
  }
  if (const auto* u = root.if_contains("unrouted_topic")) {
    (void)u;
    auto topic = check_topic(root, "$", "unrouted_topic");
    if (!topic) return topic.error();
    const bool a_sink = std::find(distinct.begin(), distinct.end(), *topic) != distinct.end();
    if (a_sink || *topic == p.identity.source_topic || *topic == p.identity.dead_letter_topic)
      return error(ph, "unrouted_topic_reused", "$.unrouted_topic",
                   quote(*topic) + " is also the " +
                       (a_sink                              ? "sink"
                        : *topic == p.identity.source_topic ? "source"
                                                            : "dead-letter") +
                       " topic; records no route takes need a topic of their own");
    p.unrouted_topic = std::move(*topic);
  }
  constexpr std::string_view key_rule =
      "\"string\" (a BIGINT key as its decimal text) or \"long\" (8 big-endian bytes, as Kafka's "
      "LongSerializer writes)";
  const boost::json::value* k = root.if_contains("key_format");
  if (!bigint_key) {
    if (k)
      return error(ph, "needless_key_format", "$.key_format",
                   "is given but no route has a BIGINT partition_by; a STRING key is always its UTF-8 bytes "
                   "(recompile the query)");
    return {};
  }
  if (!k)
    return error(ph, "missing_key_format", "$.key_format",
                 "is missing; a plan with a BIGINT partition_by states how its key is written: " +
                     std::string(key_rule));
  if (!k->is_string() || (k->get_string() != "string" && k->get_string() != "long"))
    return error(ph, "invalid_key_format", "$.key_format",
                 "is " + (k->is_string() ? quote(k->get_string()) : std::string(detail::kind_name(*k))) +
                     "; it must be " + std::string(key_rule));
  p.key_format = k->get_string() == "long" ? key_format::long_ : key_format::string;
  return {};
}

// "supersedes": absent (no predecessor), or 1 to max_supersedes distinct
// digests. An empty array is refused rather than read as absent: the two
// would have different digests for one meaning.
result<std::vector<std::string>> load_supersedes(const boost::json::object& root) {
  const std::string path = "$.supersedes";
  const boost::json::value* v = root.if_contains("supersedes");
  if (!v) return std::vector<std::string>{};
  const std::string rule = "a JSON array of 1 to " + std::to_string(max_supersedes) +
                           " distinct plan digests (\"sha256:\" and 64 lowercase hex digits), as written by "
                           "`streamt compile --supersedes`";
  if (!v->is_array())
    return error(ph, "wrong_type", path, "is " + std::string(detail::kind_name(*v)) + "; it must be " + rule);
  const boost::json::array& a = v->get_array();
  if (a.empty() || a.size() > max_supersedes)
    return error(ph, "invalid_supersedes", path,
                 "holds " + std::to_string(a.size()) + " digests; it must be " + rule);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string item = detail::path_index(path, i);
    if (!a[i].is_string() || !is_well_formed_digest(a[i].get_string()))
      return error(ph, "malformed_digest", item, "is not a plan digest; it must be " + rule);
    std::string d(a[i].get_string());
    for (std::size_t j = 0; j < out.size(); ++j)
      if (out[j] == d)
        return error(
            ph, "duplicate_supersedes", item,
            quote(d) + " is already named at " + detail::path_index(path, j) + "; it must be " + rule);
    out.push_back(std::move(d));
  }
  return out;
}

// "sink": its format and, for Avro, the pinned schema. Read after the
// identity, schema and projection: an Avro sink's schema is derived from
// them, and the pinned one must be exactly that.
result<sink> load_sink(const boost::json::object& root, const plan& p) {
  const std::string path = "$.sink";
  constexpr std::string_view format_rule =
      "\"json\" (each output a JSON object) or \"avro\" (each output Avro in the Confluent wire format, "
      "its schema derived from the projection)";
  const boost::json::value* v = root.if_contains("sink");
  if (v == nullptr) {
    if (!plain_json_source(p.schema))
      return error(ph, "missing_sink_format", path,
                   "is missing; a plan with " + std::string(p.schema.avro ? "an Avro" : "a json-registry") +
                       " source states its sink's format, " + std::string(format_rule) +
                       "; recompile the query with `streamt compile`");
    return sink{};
  }
  if (!v->is_object())
    return error(ph, "wrong_type", path,
                 "is " + std::string(detail::kind_name(*v)) +
                     "; it must be a JSON object with the members format and (for Avro) avro");
  const auto& o = v->get_object();
  diagnostic d;
  if (detail::find_unknown_member(o, path, {"format", "avro"}, "the sink", ph, d)) return d;
  auto format = detail::require_member(o, path, "format", format_rule, ph);
  if (!format) return format.error();
  const boost::json::value& f = **format;
  if (!f.is_string() || (f.get_string() != "json" && f.get_string() != "avro"))
    return error(ph, "invalid_sink_format", path + ".format",
                 "is " + (f.is_string() ? quote(f.get_string()) : std::string(detail::kind_name(f))) +
                     "; it must be " + std::string(format_rule));
  sink out;
  if (f.get_string() == "json") {
    // One meaning, one digest: with both ends JSON the member is left out.
    if (plain_json_source(p.schema))
      return error(ph, "needless_sink_format", path,
                   "says \"json\" for a plan whose source is plain JSON too; `streamt compile` leaves "
                   "\"sink\" out of such a plan (recompile the query)");
    if (o.contains("avro"))
      return error(ph, "unexpected_sink_schema", path + ".avro",
                   "is given but the sink's format is \"json\"; only an Avro sink pins a schema");
    return out;
  }
  out.format = sink_format::avro;
  if (is_routed(p))
    return error(ph, "routes_with_avro_sink", path + ".format",
                 "is \"avro\" in a plan with routes; routes write JSON values only for now (each route would "
                 "need its own pinned Avro schema): recompile with --sink-format json");
  auto a = require_object(o, path, "avro",
                          "a JSON object with the members schema, canonical_form, fingerprint and subject");
  if (!a) return a.error();
  const std::string apath = path + ".avro";
  if (detail::find_unknown_member(**a, apath, {"schema", "canonical_form", "fingerprint", "subject"},
                                  "an Avro sink", ph, d))
    return d;
  auto derived = avro::pin_sink_schema(p);
  if (!derived) {
    diagnostic e = derived.error();
    e.phase = ph;
    e.path = "$.projection";
    return e;
  }
  constexpr std::string_view recompile = "; recompile the plan rather than edit it";
  auto schema_value = detail::require_member(**a, apath, "schema",
                                             "the Avro schema the projection derives (contract §3)", ph);
  if (!schema_value) return schema_value.error();
  std::string compact;
  detail::write_json(compact, **schema_value, 0);
  if (compact != derived->schema)
    return error(ph, "avro_sink_schema_mismatch", apath + ".schema",
                 "is not the Avro schema the plan's projection and sink topic derive (" +
                     quote(derived->schema) + ")" + std::string(recompile));
  auto canonical =
      detail::require_string(**a, apath, "canonical_form", "the schema's Parsing Canonical Form", ph);
  if (!canonical) return canonical.error();
  if (*canonical != derived->canonical_form)
    return error(ph, "avro_sink_schema_mismatch", apath + ".canonical_form",
                 "is not the Parsing Canonical Form of the schema beside it (" +
                     quote(derived->canonical_form) + ")" + std::string(recompile));
  auto fp = detail::require_string(**a, apath, "fingerprint", "16 hex digits", ph);
  if (!fp) return fp.error();
  if (*fp != derived->fingerprint)
    return error(ph, "avro_sink_schema_mismatch", apath + ".fingerprint",
                 "is " + quote(*fp) + ", but the canonical form's CRC-64-AVRO fingerprint is " +
                     quote(derived->fingerprint) + std::string(recompile));
  auto subject = detail::require_string(**a, apath, "subject", "a JSON string \"<sink topic>-value\"", ph);
  if (!subject) return subject.error();
  if (*subject != derived->subject)
    return error(ph, "avro_sink_schema_mismatch", apath + ".subject",
                 "is " + quote(*subject) + ", but an Avro sink's schema is registered under " +
                     quote(derived->subject) + " (the sink topic and \"-value\")" + std::string(recompile));
  out.avro = std::move(*derived);
  return out;
}

}  // namespace

std::string canonical_json(const plan& p) {
  std::string out;
  detail::write_json(out, plan_to_json(p), 0);
  return out;
}

std::string digest(const plan& p) { return std::string(digest_prefix) + sha256_hex(canonical_json(p)); }

std::optional<std::string> digest_problem(std::string_view d) {
  if (!d.starts_with(digest_prefix)) return "it must start with 'sha256:' in lower case";
  const std::string_view hex = d.substr(digest_prefix.size());
  if (hex.size() != 64)
    return "it has " + std::to_string(hex.size()) + " characters after 'sha256:'; a digest has 64";
  for (std::size_t i = 0; i < hex.size(); ++i) {
    const char c = hex[i];
    if (c >= 'A' && c <= 'F') return "it has upper-case hex digits; a digest is written in lower case";
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return "character " + std::to_string(digest_prefix.size() + i + 1) + " is not a hex digit";
  }
  return std::nullopt;
}

namespace {

boost::json::array shape_members(const plan& p, const std::vector<node>& nodes,
                                 const std::vector<projection_item>& projection) {
  boost::json::array members;
  for (const projection_item& item : projection) {
    boost::json::object o;
    o["as"] = item.output_name;
    if (item.column < nodes.size()) {
      const column& c = *nodes[item.column].column;
      o["type"] = type_name(c);
      o["nullable"] = c.nullable;
      if (c.type == column_type::row) {
        schema fields;
        fields.columns = c.fields;
        o["fields"] = schema_to_json(fields).at("columns");
      }
    }
    members.emplace_back(std::move(o));
  }
  (void)p;
  return members;
}

}  // namespace

std::string output_shape(const plan& p) {
  const std::vector<node> nodes = flatten(p.schema);
  std::string out;
  if (is_routed(p)) {
    // Every route's sink, members and key: a consumer of any sink reads
    // records alike only when all of them stay.
    boost::json::array routes;
    for (const route& r : p.routes) {
      boost::json::object o;
      o["sink_topic"] = r.sink_topic;
      o["members"] = shape_members(p, nodes, r.projection);
      if (r.partition_by && *r.partition_by < nodes.size()) {
        const column& c = *nodes[*r.partition_by].column;
        o["key"] =
            type_name(c) + (c.type == column_type::bigint ? " " + std::string(to_string(p.key_format)) : "");
      }
      routes.emplace_back(std::move(o));
    }
    detail::write_json(out, boost::json::object{{"routes", std::move(routes)}}, 0);
    return std::string(digest_prefix) + sha256_hex(out);
  }
  boost::json::array members = shape_members(p, nodes, p.projection);
  // An Avro sink's records are read otherwise than JSON ones: its shape is
  // another. A JSON sink's shape stays the members alone, so that the shapes
  // recorded before sinks had a format still match.
  if (p.sink.format == sink_format::avro)
    detail::write_json(out, boost::json::object{{"format", "avro"}, {"members", std::move(members)}}, 0);
  else
    detail::write_json(out, members, 0);
  return std::string(digest_prefix) + sha256_hex(out);
}

std::string write_plan(const plan& p) {
  boost::json::object root = plan_to_json(p);
  root["digest"] = digest(p);
  std::string out;
  detail::write_json(out, root, 2);
  out += '\n';
  return out;
}

result<plan> load_plan(std::string_view json_text) {
  auto parsed = parse_strict_json(json_text, ph);
  if (!parsed) return parsed.error();
  if (!parsed->is_object())
    return error(ph, "wrong_type", "$",
                 "is " + std::string(detail::kind_name(*parsed)) + "; a plan must be a JSON object");
  const auto& root = parsed->get_object();

  plan p;
  auto version = check_version(root);
  if (!version) return version.error();
  p.version = *version;

  diagnostic d;
  if (detail::find_unknown_member(root, "$",
                                  {"plan_version", "identity", "schema", "predicate", "projection", "routes",
                                   "unrouted_topic", "key_format", "sink", "supersedes", "digest"},
                                  "a plan", ph, d))
    return d;
  const bool routed = root.contains("routes");
  // What only a routed plan says is refused in a plan of one SELECT.
  if (!routed)
    for (std::string_view member : {"unrouted_topic", "key_format"})
      if (root.contains(member))
        return error(ph, "routes_only_member", detail::path_key("$", member),
                     "is given in a plan without \"routes\"; it only means something for INSERT INTO routes "
                     "(recompile the query)");
  // The digest is compared last, but a plan without one is refused before
  // the rest is read: it was not written by `streamt compile`.
  const auto* digest_value = root.if_contains("digest");
  if (!digest_value)
    return error(ph, "missing_digest", "$.digest",
                 "the plan has no \"digest\"; only plans written by `streamt compile` are accepted "
                 "(recompile the query)");

  std::vector<std::string> sinks;
  auto id = load_identity(root, routed, sinks);
  if (!id) return id.error();
  p.identity = std::move(*id);

  auto schema_value =
      detail::require_member(root, "$", "schema", "a JSON object with the fields source, topic, columns", ph);
  if (!schema_value) return schema_value.error();
  auto s = schema_from_json(**schema_value, "$.schema", ph);
  if (!s) return s.error();
  p.schema = std::move(*s);
  if (p.identity.source_topic != p.schema.topic)
    return error(ph, "topic_mismatch", "$.identity.source_topic",
                 quote(p.identity.source_topic) + " differs from the schema's topic " +
                     quote(p.schema.topic) +
                     " ($.schema.topic); the plan must read the topic its schema describes");
  // Writing into the topic it reads would feed every output back in as
  // input: an endless loop, not a transform.
  if (!routed && p.identity.sink_topic == p.identity.source_topic)
    return error(
        ph, "sink_is_source", "$.identity.sink_topic",
        quote(p.identity.sink_topic) +
            " is also the source topic; the sink must be another topic, or every output is read again");

  if (routed) {
    // What a deletion or a tombstone means per sink is not decided: refused
    // here as at compile, so that no hand-made plan runs it.
    if (p.schema.changelog == changelog::upsert)
      return error(ph, "routes_with_changelog", "$.routes",
                   "routes are not supported yet on a changelog (upsert) source; compile one plan per sink");
    if (p.schema.tombstones == tombstones::forward)
      return error(
          ph, "routes_with_tombstones", "$.routes",
          "routes are not supported yet with \"tombstones\": \"forward\"; compile one plan per sink");
    if (auto r = load_routes(root, p, sinks); !r) return r.error();
  } else {
    const std::vector<node> nodes = flatten(p.schema);
    auto pred = load_predicate(root, "$", p.schema, nodes);
    if (!pred) return pred.error();
    p.predicate = std::move(*pred);

    auto proj = load_projection(root, "$", p.schema, nodes);
    if (!proj) return proj.error();
    p.projection = std::move(*proj);
  }

  auto before = load_supersedes(root);
  if (!before) return before.error();
  p.supersedes = std::move(*before);

  auto sink = load_sink(root, p);
  if (!sink) return sink.error();
  p.sink = std::move(*sink);

  // One meaning, one version, one digest: a plan is version 2 exactly when
  // it uses what version 1 lacks.
  if (p.version < required_version(p))
    return error(ph, "needs_newer_version", "$.plan_version",
                 "is " + std::to_string(p.version) + " but " + version_2_reason(p) +
                     ", which needs plan_version 2; recompile the query with `streamt compile`");
  if (p.version > required_version(p))
    return error(ph, "needless_version", "$.plan_version",
                 "is " + std::to_string(p.version) +
                     " but the plan uses nothing of version 2; `streamt compile` "
                     "writes it as version 1 (recompile the query)");

  if (!digest_value->is_string())
    return error(ph, "malformed_digest", "$.digest",
                 "is " + std::string(detail::kind_name(*digest_value)) +
                     "; it must be a JSON string \"sha256:\" followed by 64 lowercase hex digits");
  std::string_view recorded = digest_value->get_string();
  if (!is_well_formed_digest(recorded))
    return error(
        ph, "malformed_digest", "$.digest",
        quote(recorded) + " is not a digest; it must be \"sha256:\" followed by 64 lowercase hex digits");
  std::string actual = digest(p);
  if (recorded != actual)
    return error(ph, "digest_mismatch", "$.digest",
                 "the recorded digest " + std::string(recorded) + " does not match the plan's content (" +
                     actual +
                     "): the plan was edited after it was compiled; recompile it or review the change");
  return p;
}

}  // namespace streamt::plan
