// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Private helpers shared by the schema loader and the plan file code: JSON
// paths, quoting user text in messages, strict member checks, and the one
// JSON writer whose output the plan digest depends on. Not an interface for
// other folders.

#include "plan/diagnostic.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

namespace streamt::plan::detail {

// `base` + `.key`, or `base` + `["key"]` when the key is not a plain word, so
// the path can be pasted back into a jq-like tool unambiguously.
std::string path_key(std::string_view base, std::string_view key);
std::string path_index(std::string_view base, std::size_t index);

// `s` in single quotes for a message ('amt'): backslash, quote and control
// characters escaped, cut after 64 bytes so a 1 MiB name does not flood the
// terminal.
std::string quote(std::string_view s);

// "a JSON string", "null", "a JSON number with a fraction or exponent"...
std::string_view kind_name(const boost::json::value& v) noexcept;

diagnostic error(streamt::phase ph, std::string code, std::string path, std::string message);

// True, with `out` set to an `unknown_field` diagnostic naming what `o` may
// hold (`what` is e.g. "a column"), if some key of `o` is not in `allowed`.
bool find_unknown_member(const boost::json::object& o, std::string_view path,
                         std::initializer_list<std::string_view> allowed, std::string_view what,
                         streamt::phase ph, diagnostic& out);

// The member `key` of `o`, or a `missing_field` diagnostic whose message says
// what the member must hold (`expected`, e.g. "a JSON boolean").
result<const boost::json::value*> require_member(const boost::json::object& o, std::string_view path,
                                                 std::string_view key, std::string_view expected,
                                                 streamt::phase ph);

// The member `key` of `o` as a string, or `missing_field` / `wrong_type`.
result<std::string_view> require_string(const boost::json::object& o, std::string_view path,
                                        std::string_view key, std::string_view expected, streamt::phase ph);

// The writer behind canonical_json() and write_plan(). Its escaping is ours,
// not Boost's serializer's, so a Boost upgrade cannot change a plan digest:
// `"` and `\` escaped, control characters as \b \f \n \r \t or \u00xx
// (lowercase hex), everything else (including non-ASCII UTF-8) verbatim.
// `indent` 0 writes compact JSON; otherwise that many spaces per level and
// `"key": value`, one member or element a line.
void write_json(std::string& out, const boost::json::value& v, int indent);

}  // namespace streamt::plan::detail
