// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Coverage of a routed plan's predicates: which records two routes both take
// (overlaps) and which records no route takes (gaps), each with a smallest
// example record. Every predicate is an AND of `column op literal` and
// `column IS [NOT] NULL`, so both questions are decidable exactly: the
// analysis splits the space of records one column at a time at the literals
// the routes compare it with, until every route is plainly true or plainly
// false on each piece.
//
// It follows the engine's evaluation (operators/predicate.cpp): SQL's three
// valued logic (a comparison with null is unknown, and only true takes a
// record), a field of a null ROW is null, and each type's values are the
// ones the decoders can produce (BIGINT steps of 1, DECIMAL(p,s) steps of
// 10^-s within p digits, finite DOUBLEs, TIMESTAMP milliseconds in the years
// 0001 to 9999, partitions and offsets never negative nor null).
//
// Pure and bounded: the work is counted, and past max_coverage_steps the
// report says it is incomplete instead of running on.

#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace streamt::plan {

// One column of an example record. `value` is nullopt for null, and
// std::monostate for a JSON or ROW column that is present (its contents do
// not matter to any route; a ROW whose fields are shown is opened by them).
struct example_value {
  std::size_t column = 0;  // node index into flatten(schema)
  std::optional<literal> value;
  friend bool operator==(const example_value&, const example_value&) = default;
};

// In schema order (node index), only the columns whose values decide the
// case: a column no route reads, or whose value does not matter for this
// overlap or gap, is left out. A null ROW stands for all its fields.
using example_record = std::vector<example_value>;

struct overlap {
  std::size_t first = 0, second = 0;  // route indices, first < second
  example_record example;             // the smallest record both take
};

// One region of records no route takes, disjoint from the other gaps.
struct gap {
  example_record example;  // its smallest record
};

struct coverage_report {
  std::vector<overlap> overlaps;  // every pair of routes that can take one record, in pair order
  std::vector<gap> gaps;          // every region of records no route takes
  // False when the work bound cut the analysis: what is listed is real, but
  // there may be more.
  bool complete = true;
};

// The analysis work (regions visited, conditions evaluated, columns copied)
// after which it stops and reports itself incomplete.
inline constexpr std::size_t max_coverage_steps = std::size_t{1} << 20;

// How many gap lines report_lines writes before "and N more ...".
inline constexpr std::size_t max_reported_gaps = 20;

// Fails (phase::plan) only on what no loaded plan holds: more than
// max_routes routes, a condition on a node outside the schema, an operator
// the column's type does not take, a literal of another type, a NaN.
result<coverage_report> analyse_coverage(const schema& s, const std::vector<route>& routes);

// {"amount": 100, "tier": "gold"}: fields of a ROW nested as objects
// ({"after": {"amount": 100}}), null as null, strings JSON-escaped, DECIMAL
// at its scale, TIMESTAMP as its RFC 3339 text, DOUBLE in its shortest form
// that reads back as the same double. Entries naming a node outside the
// schema are skipped.
std::string example_text(const schema& s, const example_record& r);

// One line per finding: "routes 'big' and 'vip' both take {...}", then
// "no route takes {...}" (at most max_reported_gaps, then "and N more
// ..."), then a line saying the analysis is incomplete if it is. Empty when
// the routes are disjoint and total.
std::vector<std::string> report_lines(const schema& s, const std::vector<route>& routes,
                                      const coverage_report& c);

}  // namespace streamt::plan
