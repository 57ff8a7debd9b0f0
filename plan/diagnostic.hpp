// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// A diagnostic is how every expected failure in streamt is reported: a bad
// SQL statement, a malformed schema or plan, an invalid record. It is a value,
// never an exception, so a caller can print it, test it, or turn it into an
// exit code without unwinding through the pipeline.

#include <boost/system/result.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace streamt {

// Where a diagnostic was found. The phase tells the user which input to fix.
enum class phase {
  lex,     // SQL text could not be tokenised
  parse,   // SQL tokens do not form a statement of the subset
  bind,    // names or types do not agree with the schema
  schema,  // the schema file is malformed
  plan,    // the plan file is malformed, inconsistent or tampered
  record,  // a record value or envelope is invalid
};

constexpr const char* to_string(phase p) noexcept {
  switch (p) {
    case phase::lex:
      return "lex";
    case phase::parse:
      return "parse";
    case phase::bind:
      return "bind";
    case phase::schema:
      return "schema";
    case phase::plan:
      return "plan";
    case phase::record:
      return "record";
  }
  return "unknown";
}

struct diagnostic {
  streamt::phase phase = phase::parse;
  // A short stable identifier (`unsupported_or`, `unknown_column`,
  // `duplicate_field`...) that tests and tools can match on.
  std::string code;
  // 1-based position in SQL text or in a JSON document; 0 when unknown.
  std::size_t line = 0;
  std::size_t column = 0;
  // JSON path (`$.predicate[0].column`) for schema and plan files; empty otherwise.
  std::string path;
  // What was wrong, naming the construct, and what the user can do instead.
  std::string message;
};

// Renders "LINE:COL: message" or "PATH: message" as printed on stderr.
std::string format(const diagnostic& d);

// boost::system::result calls this when value() is used on an error: that is
// a bug in the caller (it should have checked), hence an exception.
[[noreturn]] inline void throw_exception_from_error(const diagnostic& d, const boost::source_location&) {
  throw std::logic_error("unchecked streamt result: " + d.message);
}

template <class T>
using result = boost::system::result<T, diagnostic>;

}  // namespace streamt
