// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The words the SQL subset reserves, and the shape of an identifier. The lexer
// uses them to tokenise; the compiler uses them to write a name back as SQL,
// quoted when it is not a plain identifier.

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>

namespace streamt::plan::sql {

// Reserved words, upper case. Besides the words of the subset itself this
// holds the words of constructs the subset rejects by name (OR, JOIN, ...),
// so that `WHERE a = 1 OR b = 2` says "OR is not supported" rather than
// "unexpected identifier".
inline constexpr std::array<std::string_view, 46> keywords{
    "ALL",      "AND",    "AS",    "ASC",       "BETWEEN", "BY",    "CASE",  "CAST",  "CROSS",  "DESC",
    "DISTINCT", "ELSE",   "END",   "EXCEPT",    "EXISTS",  "FALSE", "FETCH", "FROM",  "FULL",   "GROUP",
    "HAVING",   "IN",     "INNER", "INTERSECT", "IS",      "JOIN",  "LEFT",  "LIKE",  "LIMIT",  "NOT",
    "NULL",     "OFFSET", "ON",    "OR",        "ORDER",   "OUTER", "OVER",  "RIGHT", "SELECT", "THEN",
    "TRUE",     "UNION",  "USING", "WHEN",      "WHERE",   "WITH"};

// True if `word` is a reserved word, compared case-insensitively (ASCII).
constexpr bool is_keyword(std::string_view word) noexcept {
  return std::any_of(keywords.begin(), keywords.end(), [word](std::string_view k) {
    if (k.size() != word.size()) return false;
    for (std::size_t i = 0; i < k.size(); ++i) {
      char c = word[i];
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      if (c != k[i]) return false;
    }
    return true;
  });
}

// [A-Za-z_][A-Za-z0-9_]*, ASCII only.
constexpr bool is_identifier(std::string_view s) noexcept {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!alpha(s[0])) return false;
  return std::all_of(s.begin() + 1, s.end(), [&](char c) { return alpha(c) || digit(c); });
}

// A name a query can write without quotes: an identifier that is not a
// reserved word. Any other name is written double-quoted.
constexpr bool is_valid_name(std::string_view s) noexcept { return is_identifier(s) && !is_keyword(s); }

// The longest name a schema, a query or a plan may hold, in bytes. Real field
// names are far shorter; the bound keeps a hostile schema from making every
// message and every output record carry a megabyte-long name.
inline constexpr std::size_t max_name_bytes = 1024;

// `name` as a query writes it: as it is when it needs no quotes, else
// between double quotes with each `"` doubled. Every suggestion the compiler
// prints goes through here, so that what it tells the user to write parses.
inline std::string sql_name(std::string_view name) {
  if (is_valid_name(name)) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace streamt::plan::sql
