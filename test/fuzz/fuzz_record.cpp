// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// fuzz_record: record value bytes through the decode stage and the whole
// stage pipeline of two fixed plans (one without a predicate, one with).
//
// Invariants beyond "no crash, no sanitizer report, no exception":
// - the pipeline without a predicate emits exactly the records decode
//   accepts, and refuses the others with decode's own diagnostic (one of the
//   documented phase::record codes);
// - an emitted value is compact JSON that Boost.JSON parses back to an object
//   holding exactly the projected names, in order, with the decoded values;
// - the pipeline with `amount >= 50 AND note <> 'x'` emits exactly the
//   accepted records for which that holds under SQL's null rules;
// - differential against Boost.JSON's own DOM parser: a value decode accepts
//   is a JSON document whose members are the decoded ones, and a value that
//   Boost.JSON parses as an object with exactly the declared members and
//   types, and no duplicate member (the plan's strict parser), decodes;
// - differential between decode's two paths: the fast path accepts only
//   values the reference path (Boost.JSON's basic_parser) accepts, with the
//   same row, and decode's verdict and diagnostic are the reference's;
// - with `unknown_fields: ignore`: both paths agree the same way; every value
//   the strict definition accepts is accepted with the same row; an accepted
//   value is a JSON document holding the declared members with the decoded
//   values; and a value the plan's strict parser reads as an object with the
//   declared members well typed, whatever else it holds, decodes.
#include "test/fuzz/fuzz_support.hpp"

#include "operators/decode.hpp"
#include "operators/stage_pipeline.hpp"
#include "plan/sql/compile.hpp"
#include "plan/strict_json.hpp"
#include "test/unit/operators/orders_fixture.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

namespace streamt::fuzz {

namespace {

namespace json = boost::json;

// The operator tests' orders schema: the schema of
// test/data/records/orders.records, so its cases seed the corpus.
using operators::test::amount, operators::test::flag, operators::test::id, operators::test::note;

const plan::schema& record_schema() {
  static const plan::schema s = operators::test::orders_schema();
  return s;
}

plan::plan compiled(std::string_view sql) {
  auto p = plan::compile(sql, record_schema(), {"fuzz-app", "fuzz-out"});
  if (!p) violated("the fixed plan of fuzz_record does not compile", sql, p.error().message);
  return *p;
}

const plan::schema& ignoring_schema() {
  static const plan::schema s = [] {
    plan::schema out = operators::test::orders_schema();
    out.unknown_fields = plan::unknown_fields::ignore;
    return out;
  }();
  return s;
}

struct fixture {
  operators::decode_definition decode{record_schema()};
  operators::decode_definition ignoring{ignoring_schema()};
  operators::row ignoring_row, ignoring_fast_row;
  operators::decode_state state;
  operators::row row;
  operators::row fast_row, reference_row;
  operators::stage_pipeline all{compiled("SELECT amount, id AS order_id, flag, note FROM orders")};
  operators::stage_pipeline some{
      compiled("SELECT amount, id AS order_id, flag, note FROM orders WHERE amount >= 50 AND note <> 'x'")};
};

fixture& the_fixture() {
  static fixture f;
  return f;
}

constexpr std::array<std::string_view, 12> record_codes{
    "empty_value",   "malformed_json",      "invalid_utf8",   "not_an_object",
    "unknown_field", "duplicate_field",     "missing_column", "unexpected_null",
    "wrong_type",    "bigint_out_of_range", "trailing_data",  "value_too_large"};

// Does the decoded row agree with a JSON value for the column?
bool same_value(const operators::row& r, std::size_t col, const json::value* v) {
  if (v == nullptr) return false;
  const auto& slot = r.slots[col];
  if (slot.is_null) return v->is_null();
  switch (record_schema().columns[col].type) {
    case plan::column_type::bigint:
      return v->is_int64() && v->get_int64() == slot.bigint;
    case plan::column_type::string:
      return v->is_string() && std::string_view(v->get_string()) == slot.string;
    case plan::column_type::boolean:
      return v->is_bool() && v->get_bool() == slot.boolean;
  }
  return false;
}

// Would a record with exactly these members be valid (ignoring duplicates)?
// With `extras`, members beyond the declared ones are allowed.
bool dom_is_valid_record(const json::value& v, bool extras = false) {
  if (!v.is_object()) return false;
  const auto& o = v.get_object();
  if (!extras && o.size() != record_schema().columns.size()) return false;
  for (const auto& c : record_schema().columns) {
    const auto* m = o.if_contains(c.name);
    if (m == nullptr) return false;
    if (m->is_null()) {
      if (!c.nullable) return false;
      continue;
    }
    bool ok = c.type == plan::column_type::bigint   ? m->is_int64()
              : c.type == plan::column_type::string ? m->is_string()
                                                    : m->is_bool();
    if (!ok) return false;
  }
  return true;
}

void check_output(std::string_view output, const operators::row& r, std::string_view input) {
  json::error_code ec;
  json::value out = json::parse(json::string_view(output.data(), output.size()), ec);
  if (ec) violated("an emitted value is not JSON", input, std::string(output) + " -> " + ec.message());
  if (!out.is_object()) violated("an emitted value is not a JSON object", input, output);
  const auto& o = out.get_object();
  constexpr std::array<std::string_view, 4> names{"amount", "order_id", "flag", "note"};
  constexpr std::array<std::size_t, 4> columns{amount, id, flag, note};
  if (o.size() != names.size()) violated("an emitted value has the wrong number of members", input, output);
  std::size_t i = 0;
  for (const auto& m : o) {
    if (std::string_view(m.key()) != names[i])
      violated("an emitted value has members out of order", input, output);
    if (!same_value(r, columns[i], &m.value()))
      violated("an emitted value differs from the decoded row", input, output);
    ++i;
  }
  if (json::serialize(out) != output)
    violated("an emitted value is not compact canonical JSON", input, output);
}

bool same_row(const operators::row& a, const operators::row& b) {
  for (std::size_t c = 0; c < record_schema().columns.size(); ++c) {
    const auto &x = a.slots[c], &y = b.slots[c];
    if (x.is_null != y.is_null ||
        (!x.is_null && (x.bigint != y.bigint || x.boolean != y.boolean || x.string != y.string)))
      return false;
  }
  return true;
}

// The same value under a schema that ignores undeclared members.
void check_ignoring(fixture& f, std::string_view input, bool strict_ok) {
  diagnostic error;
  const bool ok = operators::decode(f.ignoring, f.state, input, f.ignoring_row, error);
  diagnostic reference_error;
  operators::row reference_row;
  const bool reference_ok =
      operators::detail::reference_decode(f.ignoring, f.state, input, reference_row, reference_error);
  if (ok != reference_ok) violated("ignoring: decode and its reference path disagree", input);
  if (operators::detail::fast_decode(f.ignoring, f.state, input, f.ignoring_fast_row)) {
    if (!reference_ok) violated("ignoring: the fast path accepted a value the reference path refuses", input);
    if (!same_row(f.ignoring_fast_row, reference_row))
      violated("ignoring: the fast path decodes a value differently", input);
  }
  if (strict_ok && !ok) violated("ignoring refused a value the strict schema accepts", input, error.message);
  if (strict_ok && !same_row(f.row, f.ignoring_row))
    violated("ignoring decodes a value differently from the strict schema", input);
  if (ok) {
    json::error_code ec;
    json::value dom = json::parse(json::string_view(input.data(), input.size()), ec);
    if (ec) violated("ignoring: decode accepted a value Boost.JSON refuses", input, ec.message());
    if (!dom_is_valid_record(dom, true))
      violated("ignoring: decode accepted a value that is not a valid record", input);
    for (std::size_t c = 0; c < record_schema().columns.size(); ++c)
      if (!same_value(f.ignoring_row, c, dom.get_object().if_contains(record_schema().columns[c].name)))
        violated("ignoring: decode's value differs from Boost.JSON's", input,
                 record_schema().columns[c].name);
    return;
  }
  auto strict = plan::parse_strict_json(input, phase::record);
  if (strict && dom_is_valid_record(*strict, true) && error.code != "value_too_large")
    violated("ignoring: decode refused a valid record", input, error.code + ": " + error.message);
}

}  // namespace

void record_one_input(std::string_view input) {
  fixture& f = the_fixture();
  diagnostic error;
  const bool ok = operators::decode(f.decode, f.state, input, f.row, error);

  diagnostic reference_error;
  const bool reference_ok =
      operators::detail::reference_decode(f.decode, f.state, input, f.reference_row, reference_error);
  if (ok != reference_ok) violated("decode and its reference path disagree", input);
  if (!ok && (error.code != reference_error.code || error.message != reference_error.message))
    violated("decode reports another diagnostic than its reference path", input, error.message);
  if (operators::detail::fast_decode(f.decode, f.state, input, f.fast_row)) {
    if (!reference_ok) violated("the fast path accepted a value the reference path refuses", input);
    for (std::size_t c = 0; c < record_schema().columns.size(); ++c) {
      const auto &a = f.fast_row.slots[c], &b = f.reference_row.slots[c];
      if (a.is_null != b.is_null ||
          (!a.is_null && (a.bigint != b.bigint || a.boolean != b.boolean || a.string != b.string)))
        violated("the fast path decodes a value differently", input, record_schema().columns[c].name);
    }
  }

  check_ignoring(f, input, ok);

  const operators::step all = f.all.process(input);
  if (ok != (all.outcome == operators::outcome::emitted))
    violated("decode and the pipeline without a predicate disagree", input,
             ok ? "decode accepted" : error.code);
  if (!ok) {
    if (all.outcome != operators::outcome::invalid || all.error == nullptr)
      violated("a refused record is not reported invalid", input);
    check_diagnostic(*all.error, input, {phase::record});
    if (all.error->code != error.code || all.error->message != error.message)
      violated("the pipeline reports another diagnostic than decode", input, all.error->message);
    if (std::find(record_codes.begin(), record_codes.end(), error.code) == record_codes.end())
      violated("an undocumented record code", input, error.code);
  } else {
    check_output(all.output, f.row, input);
  }

  const operators::step some = f.some.process(input);
  const bool passes =
      ok && f.row.slots[amount].bigint >= 50 && !f.row.slots[note].is_null && f.row.slots[note].string != "x";
  const auto expected = !ok      ? operators::outcome::invalid
                        : passes ? operators::outcome::emitted
                                 : operators::outcome::filtered;
  if (some.outcome != expected) violated("the predicate's verdict is wrong", input);
  if (passes && some.output != all.output) violated("the two pipelines emit different values", input);

  // Differential against Boost.JSON's DOM parser (default options).
  json::error_code ec;
  json::value dom = json::parse(json::string_view(input.data(), input.size()), ec);
  if (ok) {
    if (ec) violated("decode accepted a value Boost.JSON refuses", input, ec.message());
    if (!dom_is_valid_record(dom)) violated("decode accepted a value that is not a valid record", input);
    for (std::size_t c = 0; c < record_schema().columns.size(); ++c)
      if (!same_value(f.row, c, dom.get_object().if_contains(record_schema().columns[c].name)))
        violated("decode's value differs from Boost.JSON's", input, record_schema().columns[c].name);
    return;
  }
  if (ec) return;
  if (error.code == "malformed_json" || error.code == "trailing_data" || error.code == "empty_value" ||
      error.code == "invalid_utf8")
    violated("decode calls a value malformed that Boost.JSON parses", input,
             error.code + ": " + error.message);
  // Boost.JSON's DOM keeps one of two duplicate members, so a value it shows
  // as a valid record may hold an earlier duplicate of any type (found by
  // this fuzzer: {"note":740993,"note":null,...} is refused as wrong_type, the
  // first problem, correctly). The plan loader's strict parser refuses
  // duplicates: a value it accepts as a valid record must decode.
  auto strict = plan::parse_strict_json(input, phase::record);
  if (strict && dom_is_valid_record(*strict) && error.code != "value_too_large")
    violated("decode refused a valid record", input, error.code + ": " + error.message);
}

}  // namespace streamt::fuzz

#ifdef STREAMT_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  streamt::fuzz::record_one_input(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
#endif
