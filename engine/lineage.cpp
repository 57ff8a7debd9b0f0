// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/lineage.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <charconv>
#include <limits>

namespace streamt::engine {

namespace json = boost::json;

namespace {
constexpr std::int64_t lineage_version = 1;
}

namespace {

json::object object_of(const lineage& l) {
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
  return o;
}

// Offset metadata is anyone's free text: only what parses as our object
// counts, and nothing in it may throw.
std::optional<json::object> parsed(std::string_view text) {
  if (text.empty() || text.front() != '{') return std::nullopt;
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.get_object());
}

std::optional<lineage> lineage_of(const json::object& o) {
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

}  // namespace

std::string to_commit_metadata(const lineage& l) { return json::serialize(object_of(l)); }

std::string stamp_commit_metadata(std::string_view metadata, std::int64_t unix_ms) {
  if (metadata.size() < 2 || metadata.back() != '}') return std::string(metadata);
  std::string out(metadata.substr(0, metadata.size() - 1));
  out += ",\"at\":";
  out += std::to_string(unix_ms);
  out += '}';
  return out;
}

std::optional<commit_metadata> read_commit_metadata(std::string_view metadata) {
  std::optional<json::object> o = parsed(metadata);
  if (!o) return std::nullopt;
  std::optional<lineage> l = lineage_of(*o);
  if (!l) return std::nullopt;
  commit_metadata out{std::move(*l), std::nullopt};
  if (const json::value* at = o->if_contains("at"); at && at->is_int64() && at->get_int64() >= 0)
    out.at = at->get_int64();
  return out;
}

std::optional<lineage> from_commit_metadata(std::string_view metadata) {
  std::optional<json::object> o = parsed(metadata);
  return o ? lineage_of(*o) : std::nullopt;
}

std::string to_lineage_record(const lineage& l, std::string_view key, std::string_view value) {
  json::object o = object_of(l);
  o[key] = value;
  return json::serialize(o);
}

std::optional<std::pair<lineage, std::string>> from_lineage_record(std::string_view text,
                                                                   std::string_view key) {
  std::optional<json::object> o = parsed(text);
  if (!o) return std::nullopt;
  std::optional<lineage> l = lineage_of(*o);
  const json::value* extra = o->if_contains(key);
  if (!l || !extra || !extra->is_string()) return std::nullopt;
  return std::pair{std::move(*l), std::string(extra->get_string())};
}

std::optional<header_name_problem> lineage_header_name_problem(std::string_view name) {
  const std::string limits = "a header name is 1 to " + std::to_string(lineage_header_name_max) +
                             " printable ASCII characters, no spaces";
  if (name.empty()) return header_name_problem{"the lineage header name is empty; " + limits};
  if (name.size() > lineage_header_name_max)
    return header_name_problem{"the lineage header name is " + std::to_string(name.size()) +
                               " characters long; " + limits};
  const auto allowed = [](char c) { return c > ' ' && c < 0x7f; };
  if (auto bad = std::find_if_not(name.begin(), name.end(), allowed); bad != name.end()) {
    // Each run of characters that can't be in a name becomes one '-', and
    // none at either end: "streamt lineage" -> "streamt-lineage".
    std::string fixed;
    bool gap = false;
    for (char c : name) {
      if (!allowed(c)) {
        gap = true;
        continue;
      }
      if (gap && !fixed.empty()) fixed += '-';
      gap = false;
      fixed += c;
    }
    const auto byte = static_cast<unsigned char>(*bad);
    char hex[8] = {};
    std::to_chars(hex, hex + sizeof hex, static_cast<unsigned>(byte), 16);
    std::string what = byte == ' ' ? "a space" : "the byte 0x" + std::string(hex);
    header_name_problem p{"the lineage header name has " + what + " at character " +
                          std::to_string(bad - name.begin() + 1) + "; " + limits};
    if (!fixed.empty() && !lineage_header_name_problem(fixed)) p.suggestion = std::move(fixed);
    return p;
  }
  // The dead-letter headers' prefix (contract §5): a lineage header named
  // like one of them would give a dead-letter record two meanings for one
  // name.
  constexpr std::string_view reserved = "streamt.";
  if (name.starts_with(reserved)) {
    header_name_problem p{
        "header names starting with 'streamt.' are the engine's own (the dead-letter "
        "headers)"};
    std::string fixed = "streamt-" + std::string(name.substr(reserved.size()));
    if (!lineage_header_name_problem(fixed)) p.suggestion = std::move(fixed);
    return p;
  }
  return std::nullopt;
}

namespace {
// After the prefix: the longest an int32 prints (digits10 + 1 digits and a
// sign), ";o=", and the longest an int64 prints.
constexpr std::size_t stamp_room =
    std::numeric_limits<std::int32_t>::digits10 + 2 + 3 + std::numeric_limits<std::int64_t>::digits10 + 2;
}  // namespace

lineage_stamp::lineage_stamp(std::string name, std::string_view plan_digest)
    : name_(std::move(name)), value_(std::string(plan_digest) + ";p=") {
  prefix_size_ = value_.size();
  value_.resize(prefix_size_ + stamp_room);
}

kafka::header_view lineage_stamp::header(std::int32_t partition, std::int64_t offset) noexcept {
  char* const begin = value_.data();
  char* const end = begin + value_.size();
  // The buffer holds the longest numbers: neither conversion can fail.
  char* at = std::to_chars(begin + prefix_size_, end, partition).ptr;
  *at++ = ';';
  *at++ = 'o';
  *at++ = '=';
  at = std::to_chars(at, end, offset).ptr;
  return {name_, std::string_view(begin, static_cast<std::size_t>(at - begin))};
}

}  // namespace streamt::engine
