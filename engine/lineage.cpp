// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/lineage.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

namespace streamt::engine {

namespace json = boost::json;

namespace {
constexpr std::int64_t lineage_version = 1;
}

std::string to_commit_metadata(const lineage& l) {
  json::object o;
  o["streamt"] = lineage_version;
  o["plan"] = l.plan_digest;
  o["instance"] = l.instance;
  if (!l.output_shape.empty()) o["shape"] = l.output_shape;
  if (!l.supersedes.empty()) {
    json::array before;
    for (std::size_t i = 0; i < l.supersedes.size() && i < lineage_supersedes; ++i)
      before.emplace_back(json::string(l.supersedes[i]));
    o["supersedes"] = std::move(before);
  }
  return json::serialize(o);
}

std::optional<lineage> from_commit_metadata(std::string_view metadata) {
  // Offset metadata is anyone's free text: only what parses as our object
  // counts, and nothing in it may throw.
  if (metadata.empty() || metadata.front() != '{') return std::nullopt;
  boost::system::error_code ec;
  const json::value v = json::parse(metadata, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const json::object& o = v.get_object();
  const json::value* version = o.if_contains("streamt");
  const json::value* plan = o.if_contains("plan");
  const json::value* instance = o.if_contains("instance");
  // A later version keeps "plan" and "instance" as they are, and adds.
  if (!version || !version->is_int64() || version->get_int64() < lineage_version) return std::nullopt;
  if (!plan || !plan->is_string() || !plan->get_string().starts_with("sha256:")) return std::nullopt;
  lineage l;
  l.plan_digest = plan->get_string();
  if (instance && instance->is_string()) l.instance = instance->get_string();
  if (const json::value* shape = o.if_contains("shape"); shape && shape->is_string())
    l.output_shape = shape->get_string();
  if (const json::value* before = o.if_contains("supersedes"); before && before->is_array())
    for (const json::value& d : before->get_array())
      if (d.is_string() && l.supersedes.size() < lineage_supersedes)
        l.supersedes.emplace_back(d.get_string());
  return l;
}

}  // namespace streamt::engine
