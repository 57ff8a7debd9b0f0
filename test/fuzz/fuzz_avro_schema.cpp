// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// fuzz_avro_schema: Avro schema text (an .avsc file, a registry's answer)
// through the parser, the canonical form and the mapping onto columns.
//
// Invariants beyond "no crash, no sanitizer report, no exception":
// - a rejection is a phase::schema diagnostic with a code, a message, and
//   either a JSON path ($...) or a line:column (malformed JSON) saying where;
// - an accepted schema's canonical form is itself a schema that parses, and
//   from there on the canonical form is a fixed point, unless the schema
//   mixes named types of the null namespace with namespaced ones (the
//   specification's form drops that distinction: see below);
// - every schema resolves with itself, with no step that can fail a datum;
// - the mapping of a record gives one note per column and nested field, no
//   ROW deeper than a plan allows, no empty ROW, and a DECIMAL within 38
//   digits; a schema that is not a record, or has no fields, gets
//   not_a_record or no_fields.
#include "test/fuzz/fuzz_support.hpp"

#include "plan/avro_resolve.hpp"
#include "plan/avro_schema.hpp"

#include <cstdint>
#include <string>

namespace streamt::fuzz {

namespace {

namespace avro = plan::avro;

std::size_t check_columns(const std::vector<plan::column>& columns, int depth, std::string_view input) {
  std::size_t n = 0;
  for (const plan::column& c : columns) {
    ++n;
    if (c.type == plan::column_type::row) {
      if (depth >= plan::max_row_depth)
        violated("a mapped ROW is nested deeper than a plan allows", input, c.name);
      if (c.fields.empty()) violated("a mapped ROW has no fields", input, c.name);
      n += check_columns(c.fields, depth + 1, input);
    }
    if (c.type == plan::column_type::decimal &&
        (c.precision < 1 || c.precision > 38 || c.scale < 0 || c.scale > c.precision))
      violated("a mapped DECIMAL is outside DECIMAL(1..38, 0..p)", input, c.name);
  }
  return n;
}

void check_mapping(const avro::schema& parsed, std::string_view input) {
  auto m = avro::to_columns(parsed);
  if (!m) {
    if (m.error().code != "not_a_record" && m.error().code != "no_fields")
      violated("the mapping refuses a record for a reason other than not_a_record or no_fields", input,
               m.error().code + ": " + m.error().message);
    check_diagnostic(m.error(), input, {phase::schema});
    return;
  }
  if (m->columns.size() != parsed.root().fields.size())
    violated("the mapping does not give one column per field of the record", input);
  if (check_columns(m->columns, 1, input) != m->notes.size())
    violated("the mapping's notes are not one per column and nested field", input);
}

}  // namespace

void avro_schema_one_input(std::string_view input) {
  auto parsed = avro::parse_schema(input);
  if (!parsed) {
    const diagnostic& d = parsed.error();
    check_diagnostic(d, input, {phase::schema});
    if (d.path.empty() && (d.line == 0 || d.column == 0))
      violated("an Avro schema diagnostic says neither where in the JSON nor at which line", input,
               d.code + ": " + d.message);
    if (!d.path.empty() && d.path[0] != '$')
      violated("an Avro schema diagnostic path does not start at $", input, d.path);
    return;
  }
  // The specification's canonical form writes a type of the null namespace
  // by its bare name, which inside a namespaced type reads back as that
  // namespace's: such a schema's form need not parse again (Java's is the
  // same). Only schemas whose named types are all namespaced, or none, must.
  bool bare = false;
  bool dotted = false;
  for (const avro::type& t : parsed->types) {
    if (t.name.empty()) continue;
    (t.name.find('.') == std::string::npos ? bare : dotted) = true;
  }
  // Every schema resolves with itself, every datum with no failing step.
  auto self = avro::resolve(*parsed, *parsed, avro::everything);
  if (!self)
    violated("a schema does not resolve with itself", input, self.error().path + ": " + self.error().message);
  for (const avro::step& st : self->steps)
    if (st.kind == avro::step_kind::unresolvable || !st.why.empty())
      violated("a schema resolved with itself has a step that can fail a datum", input, st.why);

  const std::string first = avro::canonical_form(*parsed);
  if (bare && dotted) return check_mapping(*parsed, input);
  auto again = avro::parse_schema(first);
  if (!again)
    violated("the canonical form of an accepted schema does not parse", input,
             first + " -> " + again.error().message);
  const std::string second = avro::canonical_form(*again);
  auto third = avro::parse_schema(second);
  if (!third) violated("a canonical form of a canonical form does not parse", input, second);
  if (avro::canonical_form(*third) != second)
    violated("the canonical form is not a fixed point", input,
             second + " -> " + avro::canonical_form(*third));

  check_mapping(*parsed, input);
}

}  // namespace streamt::fuzz

#ifdef STREAMT_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  streamt::fuzz::avro_schema_one_input(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
#endif
