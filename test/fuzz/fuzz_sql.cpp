// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// fuzz_sql: SQL text against a fixed schema through the whole compiler.
//
// Invariants beyond "no crash, no sanitizer report, no exception":
// - a rejection is a lex, parse or bind diagnostic with a code, a message and
//   a line:column inside the text (the user must be able to find the spot);
// - an accepted query's plan file loads back (load_plan) to an equal plan with
//   the same digest, and its to_sql() form compiles to that same plan: what
//   `streamt explain` prints is a query that means the same thing.
#include "test/fuzz/fuzz_support.hpp"

#include "plan/plan_json.hpp"
#include "plan/sql/compile.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

namespace streamt::fuzz {

namespace {

// The schemas of the golden SQL cases (test/data/sql/*.sqltest) in one, so
// the seed corpus taken from them reaches the binder and the plan: the
// orders columns and the names quoted.sqltest writes in double quotes, and a
// ROW of version 2's types (as types_and_paths.sqltest's `after`) so that
// paths and the new literals reach the binder and to_sql.
const plan::schema& sql_schema() {
  static const plan::schema s = [] {
    auto field = [](std::string name, plan::column_type type) {
      plan::column c;
      c.name = std::move(name);
      c.type = type;
      c.nullable = true;
      return c;
    };
    plan::column amount = field("amount", plan::column_type::decimal);
    amount.precision = 10;
    amount.scale = 2;
    plan::column after = field("after", plan::column_type::row);
    after.fields = {
        field("id", plan::column_type::bigint),     amount,
        field("score", plan::column_type::double_), field("paid_at", plan::column_type::timestamp),
        field("tags", plan::column_type::json),     field("user-id", plan::column_type::string)};
    plan::schema s;
    s.source = "orders";
    s.topic = "orders-v1";
    s.columns = {{"id", plan::column_type::string, false},
                 {"amount", plan::column_type::bigint, false},
                 {"note", plan::column_type::string, true},
                 {"flag", plan::column_type::boolean, true},
                 {"qty", plan::column_type::bigint, true},
                 {"Code", plan::column_type::string, false},
                 {"user-id", plan::column_type::string, false},
                 {"order", plan::column_type::bigint, false},
                 {"@timestamp", plan::column_type::bigint, false},
                 {"say\"hi\"", plan::column_type::string, true},
                 {"Gr\xC3\xBC\xC3\x9F"
                  "e",
                  plan::column_type::string, true},
                 after};
    return s;
  }();
  return s;
}

const plan::compile_options& sql_options() {
  static const plan::compile_options o{"fuzz-app", "fuzz-out"};
  return o;
}

}  // namespace

void sql_one_input(std::string_view input) {
  auto compiled = plan::compile(input, sql_schema(), sql_options());
  if (!compiled) {
    const diagnostic& d = compiled.error();
    check_diagnostic(d, input, {phase::lex, phase::parse, phase::bind});
    // Every SQL diagnostic points into the text: line 1.. and column 1.., and
    // no further down than the number of lines (the end-of-input position is
    // on the last line).
    const auto lines = static_cast<std::size_t>(std::count(input.begin(), input.end(), '\n')) + 1;
    if (d.line == 0 || d.column == 0 || d.line > lines)
      violated("an SQL diagnostic has no position inside the text", input,
               std::to_string(d.line) + ":" + std::to_string(d.column) + " " + d.code + ": " + d.message);
    return;
  }
  const plan::plan& p = *compiled;
  if (p.projection.empty()) violated("an accepted query projects nothing", input);

  const std::string file = plan::write_plan(p);
  auto reloaded = plan::load_plan(file);
  if (!reloaded) violated("a compiled plan does not load", input, reloaded.error().message);
  if (!(*reloaded == p)) violated("a compiled plan loads back different", input, file);
  if (plan::digest(*reloaded) != plan::digest(p)) violated("a reloaded plan has another digest", input, file);

  const std::string normal = plan::to_sql(p);
  auto again = plan::compile(normal, sql_schema(), sql_options());
  if (!again)
    violated("to_sql of an accepted query does not compile", input, normal + " -> " + again.error().message);
  if (!(*again == p)) violated("to_sql of an accepted query compiles to another plan", input, normal);
}

}  // namespace streamt::fuzz

#ifdef STREAMT_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  streamt::fuzz::sql_one_input(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
#endif
