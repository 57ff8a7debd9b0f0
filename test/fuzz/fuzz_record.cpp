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
//
// Every input is also decoded against plan version 2's Debezium-shaped
// payments schema (nested ROWs, DECIMAL, DOUBLE, TIMESTAMP, JSON; read by the
// reference path alone), through two pipelines, one projecting seven columns
// and one that also filters on `op = 'c' AND after.amount >= 50.00`:
// - decode and the pipeline agree; refusals carry a documented code;
// - an emitted value is JSON whose members are exactly the projection's
//   names in order, with the decoded values; the DECIMAL is written with
//   exactly its scale's fraction digits and reads back to the same value; the
//   JSON column reads back equal to the input's member (Boost.JSON's DOM);
// - the filter's verdict follows SQL's null rules on the decoded row;
// - a DOUBLE refused as out of range is not one that rounds to zero;
// - differential against the plan's strict parser (Boost.JSON, duplicates
//   refused): decode accepts a value exactly when its DOM is a valid record,
//   where the DOM can tell (not for a DECIMAL written with a fraction or
//   exponent, whose digits the DOM has lost);
// - the same input gives the same outcome and output again after two other
//   records went through the pipeline (no state leaks between records).
#include "test/fuzz/fuzz_support.hpp"

#include "operators/decode.hpp"
#include "operators/registry_frame.hpp"
#include "operators/stage_pipeline.hpp"
#include "plan/sql/compile.hpp"
#include "plan/strict_json.hpp"
#include "test/unit/operators/orders_fixture.hpp"
#include "test/unit/operators/payments_fixture.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace streamt::fuzz {

namespace {

// What decode puts before the reference path's message for a value that
// looks registry-framed (operators/registry_frame.hpp), else nothing.
std::string framed_hint(std::string_view input) {
  std::string hint = operators::registry_framed_hint(input);
  return hint.empty() ? hint : hint + "; ";
}

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
    default:
      // The orders schema is flat version 1: no other type reaches here.
      return false;
  }
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

// --- plan version 2: the payments schema ------------------------------------

namespace pay = operators::test::payments;

// The pipeline fixture's projection (payments_plan), in output order.
constexpr std::array<std::string_view, 7> payment_names{"id",   "amount", "score", "paid_at",
                                                        "tags", "source", "ts_ms"};

plan::plan payments_filtered_plan() {
  plan::plan p = operators::test::payments_plan();
  // 50.00 in DECIMAL(10,2) is 5000 unscaled.
  p.predicate = {{pay::op, plan::compare_op::eq, std::string("c")},
                 {pay::after_amount, plan::compare_op::ge, plan::decimal_value{5000}}};
  p.version = plan::required_version(p);
  return p;
}

// Two valid records, one with every column set and one with nulls where
// they may be, sent through the pipelines between the two runs of an input:
// whatever they leave behind must not change its outcome.
constexpr std::string_view full_payment =
    R"({"before":{"id":9,"amount":"99.99","score":1.5,"paid_at":"2026-01-01T00:00:00Z","tags":{"x":[1,"\u00e9"]}},)"
    R"("after":{"id":8,"amount":123.45,"score":-2e10,"paid_at":1,"tags":["a\"b",{"k":null}]},)"
    R"("source":{"db":"d\n","lsn":[1,{"a":2}]},"op":"c","ts_ms":"2026-12-05T10:00:00.999+14:00"})";
constexpr std::string_view sparse_payment =
    R"({"before":null,"after":null,"source":{"db":""},"op":"d","ts_ms":0})";

struct payments_fixture {
  plan::plan plan = operators::test::payments_plan();
  operators::decode_definition decode{plan.schema};
  operators::decode_state state;
  operators::row row, again;
  operators::stage_pipeline all{plan};
  operators::stage_pipeline some{payments_filtered_plan()};
};

payments_fixture& the_payments_fixture() {
  static payments_fixture f;
  return f;
}

// decode's codes for version 1 plus the ones version 2's types add.
constexpr std::array<std::string_view, 15> payment_codes{
    "empty_value",     "malformed_json",  "invalid_utf8",    "not_an_object",       "unknown_field",
    "duplicate_field", "missing_column",  "unexpected_null", "wrong_type",          "bigint_out_of_range",
    "trailing_data",   "value_too_large", "invalid_decimal", "double_out_of_range", "invalid_timestamp"};

// Do two decoded rows hold the same values, slot by slot, for each node's type?
bool same_payment_row(const operators::decode_definition& def, const operators::row& a,
                      const operators::row& b) {
  for (std::size_t i = 0; i < def.column_count(); ++i) {
    const auto &x = a.slots[i], &y = b.slots[i];
    if (x.is_null != y.is_null) return false;
    if (x.is_null) continue;
    switch (def.column(i).type) {
      case plan::column_type::bigint:
      case plan::column_type::timestamp:
        if (x.bigint != y.bigint) return false;
        break;
      case plan::column_type::boolean:
        if (x.boolean != y.boolean) return false;
        break;
      case plan::column_type::string:
      case plan::column_type::json:
        if (x.string != y.string) return false;
        break;
      case plan::column_type::double_:
        // Bitwise, so that -0.0 and 0.0 (and every NaN) count as different.
        if (std::memcmp(&x.dbl, &y.dbl, sizeof x.dbl) != 0) return false;
        break;
      case plan::column_type::decimal:
        if (x.decimal != y.decimal) return false;
        break;
      case plan::column_type::row:
        break;
    }
  }
  return true;
}

// The text of the number written after `"name":` in `output`, up to the next
// ',' or '}'. Every member written before it is a number or null here, so the
// first occurrence is the member itself.
std::string_view member_text(std::string_view output, std::string_view name) {
  std::string key = "\"" + std::string(name) + "\":";
  const auto at = output.find(key);
  if (at == std::string_view::npos) return {};
  const auto begin = at + key.size();
  const auto end = output.find_first_of(",}", begin);
  return output.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
}

// A DECIMAL(10,2) as encode must write it: an optional '-', digits without a
// leading zero unless alone, a point and exactly two digits.
bool is_scaled_decimal(std::string_view t, int scale) {
  std::size_t i = t.starts_with('-') ? 1 : 0;
  const std::size_t int_begin = i;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
  const std::size_t int_digits = i - int_begin;
  if (int_digits == 0 || (int_digits > 1 && t[int_begin] == '0')) return false;
  if (scale == 0) return i == t.size();
  if (i >= t.size() || t[i] != '.') return false;
  const std::size_t frac_begin = ++i;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
  return i == t.size() && i - frac_begin == static_cast<std::size_t>(scale);
}

// Equal JSON values, with doubles compared by their bits: Boost.JSON reads
// 0e400 as NaN (found by this fuzzer in a JSON column), which would
// otherwise differ from itself.
bool same_json(const json::value& a, const json::value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case json::kind::double_: {
      const double x = a.get_double(), y = b.get_double();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case json::kind::array: {
      const auto &x = a.get_array(), &y = b.get_array();
      return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), same_json);
    }
    case json::kind::object: {
      const auto &x = a.get_object(), &y = b.get_object();
      return x.size() == y.size() &&
             std::equal(x.begin(), x.end(), y.begin(), [](const auto& m, const auto& n) {
               return m.key() == n.key() && same_json(m.value(), n.value());
             });
    }
    default:
      return a == b;
  }
}

bool int64_is(const json::value& v, const operators::slot& s) {
  return s.is_null ? v.is_null() : v.is_int64() && v.get_int64() == s.bigint;
}

void check_payment_output(const payments_fixture& f, std::string_view output, std::string_view input) {
  json::error_code ec;
  json::value out = json::parse(json::string_view(output.data(), output.size()), ec);
  if (ec)
    violated("payments: an emitted value is not JSON", input, std::string(output) + " -> " + ec.message());
  if (!out.is_object()) violated("payments: an emitted value is not a JSON object", input, output);
  const auto& o = out.get_object();
  if (o.size() != payment_names.size())
    violated("payments: an emitted value has the wrong number of members", input, output);
  std::size_t i = 0;
  for (const auto& m : o)
    if (std::string_view(m.key()) != payment_names[i++])
      violated("payments: an emitted value has members other than the projection's, or out of order", input,
               output);

  const auto& s = f.row.slots;
  if (!int64_is(o.at("id"), s[pay::after_id]))
    violated("payments: id differs from the decoded row", input, output);
  if (!int64_is(o.at("paid_at"), s[pay::after_paid_at]))
    violated("payments: paid_at differs from the decoded row", input, output);
  if (!int64_is(o.at("ts_ms"), s[pay::ts_ms]))
    violated("payments: ts_ms differs from the decoded row", input, output);

  const std::string_view amount = member_text(output, "amount");
  const int scale = f.decode.column(pay::after_amount).scale;
  if (s[pay::after_amount].is_null) {
    if (amount != "null") violated("payments: a null amount is not written null", input, output);
  } else {
    if (!is_scaled_decimal(amount, scale))
      violated("payments: a DECIMAL is not written with exactly its scale's fraction digits", input, output);
    const auto back = plan::parse_decimal(amount, f.decode.column(pay::after_amount).precision, scale);
    if (!back.problem.empty() || back.value.unscaled != s[pay::after_amount].decimal)
      violated("payments: the written DECIMAL does not read back to the decoded value", input, output);
  }

  // From the written text, not Boost.JSON's double: to_chars writes the
  // shortest form that reads back exactly, and from_chars reads it exactly.
  const std::string_view score = member_text(output, "score");
  if (s[pay::after_score].is_null) {
    if (score != "null") violated("payments: a null score is not written null", input, output);
  } else {
    double d = 0;
    const auto r = std::from_chars(score.data(), score.data() + score.size(), d);
    if (r.ec != std::errc() || r.ptr != score.data() + score.size() ||
        std::memcmp(&d, &s[pay::after_score].dbl, sizeof d) != 0)
      violated("payments: score is not written as the decoded double", input, output);
  }

  const json::value& tags = o.at("tags");
  const std::string_view decoded_tags = s[pay::after_tags].string;
  if (s[pay::after_tags].is_null
          ? !tags.is_null()
          : !same_json(json::parse(json::string_view(decoded_tags.data(), decoded_tags.size()), ec), tags) ||
                ec)
    violated("payments: tags differ from the decoded JSON column", input, output);

  const json::value& source = o.at("source");
  if (!source.is_object() || source.get_object().size() != 1 || !source.get_object().contains("db") ||
      !source.get_object().at("db").is_string() ||
      std::string_view(source.get_object().at("db").get_string()) != s[pay::source_db].string)
    violated("payments: source is not exactly the declared {db} with the decoded value", input, output);

  // Differential: Boost.JSON's DOM of the input holds what the row holds.
  json::value dom = json::parse(json::string_view(input.data(), input.size()), ec);
  if (ec) violated("payments: decode accepted a value Boost.JSON refuses", input, ec.message());
  const auto* in = dom.if_object();
  if (in == nullptr) violated("payments: decode accepted a value that is not an object", input);
  const auto* op = in->if_contains("op");
  if (op == nullptr || !op->is_string() || std::string_view(op->get_string()) != s[pay::op].string)
    violated("payments: op differs from Boost.JSON's", input);
  const auto* after = in->if_contains("after");
  if (after == nullptr || after->is_null() != s[pay::after].is_null)
    violated("payments: after's nullness differs from Boost.JSON's", input);
  if (!after->is_null()) {
    const auto* in_tags = after->get_object().if_contains("tags");
    if (in_tags == nullptr || !same_json(*in_tags, tags))
      violated("payments: the JSON column differs from the input's member", input, output);
    const auto* in_id = after->get_object().if_contains("id");
    if (in_id == nullptr || !int64_is(*in_id, s[pay::after_id]))
      violated("payments: after.id differs from Boost.JSON's", input);
  }
}

// Is a DOM (the plan's strict parser's: no duplicate members) a valid
// payments record? `unknown` where the DOM has lost what decides it: the text
// of a number with a fraction or exponent (a DECIMAL's digits) and doubles
// Boost.JSON reads imprecisely or as NaN (0e400).
enum class validity { yes, no, unknown };

validity worst(validity a, validity b) {
  if (a == validity::no || b == validity::no) return validity::no;
  return a == validity::unknown || b == validity::unknown ? validity::unknown : validity::yes;
}

validity valid_timestamp(const json::value& v) {
  if (v.is_int64())
    return v.get_int64() >= plan::min_timestamp_millis && v.get_int64() <= plan::max_timestamp_millis
               ? validity::yes
               : validity::no;
  if (!v.is_string()) return validity::no;
  std::string problem;
  return plan::parse_timestamp(std::string_view(v.get_string()), problem) ? validity::yes : validity::no;
}

validity valid_change(const json::value& v) {
  if (v.is_null()) return validity::yes;
  if (!v.is_object()) return validity::no;
  const auto& o = v.get_object();
  if (o.size() != 5) return validity::no;
  const auto *id = o.if_contains("id"), *amount = o.if_contains("amount"), *score = o.if_contains("score"),
             *paid_at = o.if_contains("paid_at"), *tags = o.if_contains("tags");
  if (!id || !amount || !score || !paid_at || !tags) return validity::no;
  validity out = id->is_int64() ? validity::yes : validity::no;
  // DECIMAL(10,2): fewer than 10^8 in magnitude.
  if (amount->is_string())
    out = worst(out, plan::parse_decimal(std::string_view(amount->get_string()), 10, 2).problem.empty()
                         ? validity::yes
                         : validity::no);
  else if (amount->is_int64())
    out = worst(out, amount->get_int64() > -100'000'000 && amount->get_int64() < 100'000'000 ? validity::yes
                                                                                             : validity::no);
  else if (amount->is_double())
    out = worst(out, validity::unknown);
  else
    out = validity::no;  // null (not nullable), uint64 (too many digits), anything else
  if (score->is_double()) {
    const double d = score->get_double();
    if (std::isnan(d) || std::abs(d) > 1e308) out = worst(out, validity::unknown);
  } else if (!score->is_null() && !score->is_int64() && !score->is_uint64()) {
    out = validity::no;
  }
  if (!paid_at->is_null()) out = worst(out, valid_timestamp(*paid_at));
  return out;
}

validity valid_payment(const json::value& v) {
  if (!v.is_object()) return validity::no;
  const auto& o = v.get_object();
  if (o.size() != 5) return validity::no;
  const auto *op = o.if_contains("op"), *ts = o.if_contains("ts_ms"), *before = o.if_contains("before"),
             *after = o.if_contains("after"), *source = o.if_contains("source");
  if (!op || !ts || !before || !after || !source) return validity::no;
  if (!op->is_string() || !source->is_object()) return validity::no;
  const auto* db = source->get_object().if_contains("db");
  if (db == nullptr || !db->is_string()) return validity::no;
  return worst(worst(valid_timestamp(*ts), valid_change(*before)), valid_change(*after));
}

// DOUBLE refuses only numbers beyond its finite range. One nearer to zero
// than the least subnormal (1e-400) rounds to zero, as IEEE 754, Boost.JSON
// and every JSON reader have it (found by this check: it was refused as out
// of range). Only the plan's strict parser's view is used, so that a later
// duplicate member cannot stand for the refused one.
void check_double_refusal(const diagnostic& error, std::string_view input) {
  auto strict = plan::parse_strict_json(input, phase::record);
  if (!strict || !strict->is_object()) return;
  for (std::string_view change : {"after", "before"}) {
    if (!error.message.starts_with("$." + std::string(change) + ".score:")) continue;
    const auto* image = strict->get_object().if_contains(change);
    const auto* score =
        image != nullptr && image->is_object() ? image->get_object().if_contains("score") : nullptr;
    if (score != nullptr && score->is_number() && std::abs(score->to_number<double>()) < 1)
      violated("payments: a DOUBLE that rounds to zero is refused as out of range", input, error.message);
  }
}

void check_payments(std::string_view input) {
  payments_fixture& f = the_payments_fixture();
  diagnostic error;
  const bool ok = operators::decode(f.decode, f.state, input, f.row, error);
  diagnostic reference_error;
  operators::row reference_row;
  const bool reference_ok =
      operators::detail::reference_decode(f.decode, f.state, input, reference_row, reference_error);
  if (ok != reference_ok) violated("payments: decode and its reference path disagree", input);
  if (ok && !same_payment_row(f.decode, f.row, reference_row))
    violated("payments: decode and its reference path decode a value differently", input);
  if (!ok &&
      (error.code != reference_error.code || error.message != framed_hint(input) + reference_error.message))
    violated("payments: decode reports another diagnostic than its reference path", input, error.message);
  operators::row fast_row;
  if (operators::detail::fast_decode(f.decode, f.state, input, fast_row)) {
    if (!reference_ok) violated("payments: the fast path accepted a value the reference path refuses", input);
    if (!same_payment_row(f.decode, fast_row, reference_row))
      violated("payments: the fast path decodes a value differently", input);
  }

  const operators::step all = f.all.process(input);
  if (ok != (all.outcome == operators::outcome::emitted))
    violated("payments: decode and the pipeline without a predicate disagree", input,
             ok ? "decode accepted" : error.code);
  if (!ok) {
    if (all.outcome != operators::outcome::invalid || all.error == nullptr)
      violated("payments: a refused record is not reported invalid", input);
    check_diagnostic(*all.error, input, {phase::record});
    if (all.error->code != error.code || all.error->message != error.message)
      violated("payments: the pipeline reports another diagnostic than decode", input, all.error->message);
    if (std::find(payment_codes.begin(), payment_codes.end(), error.code) == payment_codes.end())
      violated("payments: an undocumented record code", input, error.code);
    if (error.code == "double_out_of_range") check_double_refusal(error, input);
  } else {
    check_payment_output(f, all.output, input);
  }
  // Differential against the strict parser's DOM: decode accepts exactly the
  // valid records, wherever the DOM can tell.
  if (auto strict = plan::parse_strict_json(input, phase::record)) {
    const validity v = valid_payment(*strict);
    if (ok && v == validity::no) violated("payments: decode accepted an invalid record", input);
    if (!ok && v == validity::yes && error.code != "value_too_large")
      violated("payments: decode refused a valid record", input, error.code + ": " + error.message);
  }
  const std::string first_output(all.output);
  const std::string first_error = ok ? std::string() : error.code + ": " + error.message;

  const operators::step some = f.some.process(input);
  const auto& s = f.row.slots;
  const bool passes =
      ok && s[pay::op].string == "c" && !s[pay::after_amount].is_null && s[pay::after_amount].decimal >= 5000;
  const auto expected = !ok      ? operators::outcome::invalid
                        : passes ? operators::outcome::emitted
                                 : operators::outcome::filtered;
  if (some.outcome != expected) violated("payments: the predicate's verdict is wrong", input);
  if (passes && some.output != first_output)
    violated("payments: the two pipelines emit different values", input);

  // Other records in between, then the same input again: same outcome, same
  // output, same row.
  for (std::string_view other : {full_payment, sparse_payment}) {
    if (f.all.process(other).outcome != operators::outcome::emitted)
      violated("payments: a fixed valid record is not emitted", other);
    (void)f.some.process(other);
  }
  diagnostic again_error;
  const bool again_ok = operators::decode(f.decode, f.state, input, f.again, again_error);
  if (again_ok != ok || (!ok && again_error.code + ": " + again_error.message != first_error))
    violated("payments: decoding the same value again gives another verdict", input);
  if (ok && !same_payment_row(f.decode, f.row, f.again))
    violated("payments: decoding the same value again gives another row", input);
  const operators::step all_again = f.all.process(input);
  if (all_again.outcome != all.outcome || (ok && all_again.output != first_output) ||
      (!ok && all_again.error->code + ": " + all_again.error->message != first_error))
    violated("payments: the same value gives another outcome after other records", input,
             std::string(all_again.output));
  if (f.some.process(input).outcome != expected)
    violated("payments: the predicate's verdict changes after other records", input);
}

}  // namespace

void record_one_input(std::string_view input) {
  check_payments(input);
  fixture& f = the_fixture();
  diagnostic error;
  const bool ok = operators::decode(f.decode, f.state, input, f.row, error);

  diagnostic reference_error;
  const bool reference_ok =
      operators::detail::reference_decode(f.decode, f.state, input, f.reference_row, reference_error);
  if (ok != reference_ok) violated("decode and its reference path disagree", input);
  if (!ok &&
      (error.code != reference_error.code || error.message != framed_hint(input) + reference_error.message))
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
