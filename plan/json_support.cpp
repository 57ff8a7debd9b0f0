// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/json_support.hpp"

#include <boost/json/array.hpp>
#include <boost/json/string.hpp>

#include <charconv>
#include <cmath>

namespace streamt::plan::detail {

namespace {

bool is_plain_word(std::string_view key) noexcept {
  if (key.empty()) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!alpha(key[0])) return false;
  for (char c : key)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

void append_escaped(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 0xf];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

template <class Int>
void append_integer(std::string& out, Int i) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, i);
  out.append(buf, r.ptr);
}

void newline(std::string& out, int indent, int level) {
  out += '\n';
  out.append(static_cast<std::size_t>(indent) * static_cast<std::size_t>(level), ' ');
}

void write_value(std::string& out, const boost::json::value& v, int indent, int level) {
  switch (v.kind()) {
    case boost::json::kind::null:
      out += "null";
      break;
    case boost::json::kind::bool_:
      out += v.get_bool() ? "true" : "false";
      break;
    case boost::json::kind::int64:
      append_integer(out, v.get_int64());
      break;
    case boost::json::kind::uint64:
      append_integer(out, v.get_uint64());
      break;
    case boost::json::kind::double_: {
      // A DOUBLE literal, shortest round-trip. JSON has no infinities or
      // NaN, so those (which no loaded plan holds) become null rather than
      // invalid text.
      double d = v.get_double();
      if (!std::isfinite(d)) {
        out += "null";
      } else {
        char buf[32];
        auto r = std::to_chars(buf, buf + sizeof buf, d);
        out.append(buf, r.ptr);
      }
      break;
    }
    case boost::json::kind::string:
      append_escaped(out, v.get_string());
      break;
    case boost::json::kind::array: {
      const auto& a = v.get_array();
      out += '[';
      bool first = true;
      for (const auto& e : a) {
        if (!first) out += ',';
        first = false;
        if (indent > 0) newline(out, indent, level + 1);
        write_value(out, e, indent, level + 1);
      }
      if (indent > 0 && !a.empty()) newline(out, indent, level);
      out += ']';
      break;
    }
    case boost::json::kind::object: {
      const auto& o = v.get_object();
      out += '{';
      bool first = true;
      for (const auto& m : o) {
        if (!first) out += ',';
        first = false;
        if (indent > 0) newline(out, indent, level + 1);
        append_escaped(out, m.key());
        out += indent > 0 ? ": " : ":";
        write_value(out, m.value(), indent, level + 1);
      }
      if (indent > 0 && !o.empty()) newline(out, indent, level);
      out += '}';
      break;
    }
  }
}

}  // namespace

std::string path_key(std::string_view base, std::string_view key) {
  std::string p(base);
  if (is_plain_word(key)) {
    p += '.';
    p += key;
  } else {
    p += '[';
    append_escaped(p, key);
    p += ']';
  }
  return p;
}

std::string path_index(std::string_view base, std::size_t index) {
  std::string p(base);
  p += '[';
  append_integer(p, index);
  p += ']';
  return p;
}

std::string quote(std::string_view s) {
  // Single quotes, as SQL writes names and as users read them in messages;
  // escapes only where the text would otherwise be ambiguous or invisible.
  constexpr std::size_t limit = 64;
  std::size_t cut = s.size();
  if (cut > limit) {
    // Cut on a character boundary: never in the middle of a UTF-8 sequence.
    cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "'";
  for (char ch : s.substr(0, cut)) {
    auto c = static_cast<unsigned char>(ch);
    if (ch == '\\' || ch == '\'') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 0xf];
    } else {
      out += ch;
    }
  }
  if (cut < s.size()) out += "...";
  out += '\'';
  return out;
}

std::string_view kind_name(const boost::json::value& v) noexcept {
  switch (v.kind()) {
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return "a JSON boolean";
    case boost::json::kind::int64:
      return "a JSON integer";
    case boost::json::kind::uint64:
      return "a JSON integer";
    // Boost stores 1.0, 1e2 and integers beyond 64 bits alike as doubles.
    case boost::json::kind::double_:
      return "a JSON number with a fraction or exponent, or beyond the 64-bit integer range";
    case boost::json::kind::string:
      return "a JSON string";
    case boost::json::kind::array:
      return "a JSON array";
    case boost::json::kind::object:
      return "a JSON object";
  }
  return "an unknown JSON value";
}

diagnostic error(streamt::phase ph, std::string code, std::string path, std::string message) {
  diagnostic d;
  d.phase = ph;
  d.code = std::move(code);
  d.path = std::move(path);
  d.message = std::move(message);
  return d;
}

bool find_unknown_member(const boost::json::object& o, std::string_view path,
                         std::initializer_list<std::string_view> allowed, std::string_view what,
                         streamt::phase ph, diagnostic& out) {
  for (const auto& m : o) {
    bool known = false;
    for (auto a : allowed)
      if (m.key() == a) known = true;
    if (known) continue;
    std::string msg =
        "unknown field " + quote(m.key()) + "; " + std::string(what) + " has exactly the fields ";
    bool first = true;
    for (auto a : allowed) {
      if (!first) msg += ", ";
      first = false;
      msg += a;
    }
    out = error(ph, "unknown_field", path_key(path, m.key()), std::move(msg));
    return true;
  }
  return false;
}

result<const boost::json::value*> require_member(const boost::json::object& o, std::string_view path,
                                                 std::string_view key, std::string_view expected,
                                                 streamt::phase ph) {
  if (const auto* v = o.if_contains(key)) return v;
  return error(ph, "missing_field", path_key(path, key),
               "required field " + quote(key) + " is missing; it must be " + std::string(expected));
}

result<std::string_view> require_string(const boost::json::object& o, std::string_view path,
                                        std::string_view key, std::string_view expected, streamt::phase ph) {
  auto v = require_member(o, path, key, expected, ph);
  if (!v) return v.error();
  if (!(*v)->is_string())
    return error(ph, "wrong_type", path_key(path, key),
                 "is " + std::string(kind_name(**v)) + "; it must be " + std::string(expected));
  return std::string_view((*v)->get_string());
}

void write_json(std::string& out, const boost::json::value& v, int indent) { write_value(out, v, indent, 0); }

}  // namespace streamt::plan::detail
