// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/plan.hpp"

#include "plan/sql/keywords.hpp"

#include <algorithm>

namespace streamt::plan {

namespace {

void add_nodes(const column& c, std::size_t parent, std::vector<std::string> path, int depth, bool ignore,
               std::vector<node>& out) {
  const std::size_t self = out.size();
  path.push_back(c.name);
  node n;
  n.column = &c;
  n.path = path;
  n.parent = parent;
  n.depth = depth;
  n.ignore_unknown = c.unknown_fields ? *c.unknown_fields == unknown_fields::ignore : ignore;
  out.push_back(std::move(n));
  if (parent != static_cast<std::size_t>(-1)) out[parent].children.push_back(self);
  const bool inherited = out[self].ignore_unknown;
  for (const column& f : c.fields) add_nodes(f, self, path, depth + 1, inherited, out);
}

// The first thing in `c` (or its fields) that version 1 cannot express.
std::string v2_column_reason(const column& c, const std::string& where) {
  const std::string here = where.empty() ? sql::sql_name(c.name) : where + "." + sql::sql_name(c.name);
  if (c.type != column_type::string && c.type != column_type::bigint && c.type != column_type::boolean)
    return "column " + here + " is " + type_name(c);
  if (c.from != column_source::value) return "column " + here + " comes from the record's " + from_text(c);
  return {};
}

std::string first_v2_reason(const std::vector<column>& cols, const std::string& where) {
  for (const column& c : cols) {
    if (auto r = v2_column_reason(c, where); !r.empty()) return r;
  }
  return {};
}

}  // namespace

std::vector<node> flatten(const schema& s) {
  std::vector<node> out;
  const bool ignore = s.unknown_fields == unknown_fields::ignore;
  for (const column& c : s.columns) add_nodes(c, static_cast<std::size_t>(-1), {}, 1, ignore, out);
  return out;
}

bool may_be_null(const std::vector<node>& nodes, std::size_t i) {
  for (; i < nodes.size(); i = nodes[i].parent)
    if (nodes[i].column->nullable) return true;
  return false;
}

std::optional<std::size_t> find_path(const std::vector<node>& nodes, const std::vector<std::string>& path) {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].path == path) return i;
  return std::nullopt;
}

std::string path_text(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& segment : path) {
    if (!out.empty()) out += '.';
    out += sql::sql_name(segment);
  }
  return out;
}

std::string version_2_reason(const plan& p) {
  if (auto r = first_v2_reason(p.schema.columns, ""); !r.empty()) return r;
  if (p.schema.tombstones != tombstones::drop) return "the schema forwards tombstones";
  if (p.schema.changelog)
    return "the schema declares a changelog (" + std::string(to_string(*p.schema.changelog)) + ")";
  if (p.schema.avro) return "the source is Avro in the Confluent wire format";
  if (p.schema.value_format == value_format::json_registry)
    return "the source is JSON in the Confluent wire format (json-registry)";
  if (p.sink.format == sink_format::avro) return "the sink is Avro in the Confluent wire format";
  if (is_routed(p)) return "the plan routes records to sinks (INSERT INTO)";
  return {};
}

std::vector<route> routes_of(const plan& p) {
  if (is_routed(p)) return p.routes;
  return {route{p.identity.sink_topic, p.predicate, p.projection, std::nullopt}};
}

std::vector<std::string> sink_topics(const plan& p) {
  std::vector<std::string> out;
  for (const route& r : routes_of(p))
    if (std::find(out.begin(), out.end(), r.sink_topic) == out.end()) out.push_back(r.sink_topic);
  return out;
}

std::string sink_topics_text(const plan& p, std::string_view separator) {
  std::string out;
  for (const std::string& t : sink_topics(p)) {
    if (!out.empty()) out += separator;
    out += t;
  }
  return out;
}

std::string route_name(const std::vector<route>& routes, std::size_t i) {
  std::size_t same = 0, k = 0;
  for (std::size_t j = 0; j < routes.size(); ++j) {
    if (routes[j].sink_topic != routes[i].sink_topic) continue;
    ++same;
    if (j <= i) ++k;
  }
  return same == 1 ? routes[i].sink_topic : routes[i].sink_topic + "#" + std::to_string(k);
}

int required_version(const plan& p) { return version_2_reason(p).empty() ? 1 : 2; }

}  // namespace streamt::plan
