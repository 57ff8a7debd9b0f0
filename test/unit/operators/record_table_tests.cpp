// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/stage_pipeline.hpp"

#include "metadata_fixture.hpp"
#include "operators/decode.hpp"
#include "orders_fixture.hpp"
#include "payments_fixture.hpp"

#include <boost/test/unit_test.hpp>

#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

// Runs every case of test/data/records/orders.records (its header describes
// the format) through the stage pipeline.

namespace ops = streamt::operators;
namespace t = streamt::operators::test;

namespace {

struct record_case {
  std::size_t line = 0;
  bool valid = false;
  std::string name;
  std::string value;
  std::string expected;  // output, or "<code> [<message substring>]"
  // From the `@` lines (metadata tables only).
  std::optional<std::string> key;
  std::map<std::string, std::string> headers;
  std::optional<std::int64_t> timestamp = 1796464800000;  // 2026-12-05T10:00:00Z
  std::int32_t partition = 0;
  std::int64_t offset = 0;
};

std::optional<std::string_view> case_header(const void* source, const std::string& name) {
  const auto& c = *static_cast<const record_case*>(source);
  if (auto it = c.headers.find(name); it != c.headers.end()) return std::string_view(it->second);
  return std::nullopt;
}

// \xHH → the byte; any other character, backslashes included, stays as is.
std::string unescape_bytes(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x') {
      out += static_cast<char>(std::stoi(s.substr(i + 2, 2), nullptr, 16));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<record_case> load_cases(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  BOOST_TEST_REQUIRE(in.good(), "cannot open " << path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<record_case> cases;
  std::size_t i = 0;
  while (i < lines.size()) {
    const std::string& head = lines[i];
    if (head.empty() || head[0] == '#') {
      ++i;
      continue;
    }
    std::istringstream words(head);
    std::string kind, name, flag, extra;
    words >> kind >> name >> flag >> extra;
    BOOST_TEST_REQUIRE((kind == "valid" || kind == "invalid"),
                       "line " << i + 1 << ": bad case header: " << head);
    BOOST_TEST_REQUIRE(!name.empty(), "line " << i + 1 << ": case without a name");
    BOOST_TEST_REQUIRE((flag.empty() || flag == "bytes"), "line " << i + 1 << ": unknown flag " << flag);
    BOOST_TEST_REQUIRE(extra.empty(), "line " << i + 1 << ": unexpected " << extra);
    record_case c;
    c.line = i + 1;
    c.valid = kind == "valid";
    c.name = name;
    const bool bytes = flag == "bytes";
    // The record's metadata (orders.records' header describes the lines).
    for (++i; i < lines.size() && lines[i].starts_with('@'); ++i) {
      const std::string& m = lines[i];
      const std::size_t space = m.find(' ');
      const std::string what = m.substr(0, space);
      const std::string rest = space == std::string::npos ? std::string() : m.substr(space + 1);
      if (what == "@key") {
        c.key = bytes ? unescape_bytes(rest) : rest;
      } else if (what == "@header") {
        const std::size_t gap = rest.find(' ');
        const std::string text = gap == std::string::npos ? std::string() : rest.substr(gap + 1);
        c.headers[rest.substr(0, gap)] = bytes ? unescape_bytes(text) : text;
      } else if (what == "@timestamp") {
        c.timestamp = rest == "none" ? std::nullopt : std::optional<std::int64_t>(std::stoll(rest));
      } else if (what == "@partition") {
        c.partition = std::stoi(rest);
      } else if (what == "@offset") {
        c.offset = std::stoll(rest);
      } else {
        BOOST_TEST_REQUIRE(false, "line " << i + 1 << ": unknown metadata line " << m);
      }
    }
    BOOST_TEST_REQUIRE(i + 2 < lines.size(), "line " << c.line << ": truncated case " << name);
    BOOST_TEST_REQUIRE(lines[i + 1] == "----", "line " << i + 2 << ": expected ---- in case " << name);
    c.value = bytes ? unescape_bytes(lines[i]) : lines[i];
    c.expected = lines[i + 2];
    cases.push_back(std::move(c));
    i += 3;
  }
  return cases;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(record_table)

void check_cases(const std::string& file, const streamt::plan::plan& plan, std::size_t at_least) {
  auto cases = load_cases(std::string(STREAMT_TEST_DATA_DIR) + "/records/" + file);
  BOOST_TEST(cases.size() >= at_least);
  std::set<std::string> names;
  std::size_t valid = 0;
  ops::stage_pipeline pipeline(plan);
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("case " << c.name << " (line " << c.line << ")") {
      BOOST_TEST(names.insert(c.name).second, "duplicate case name");
      // One pipeline for all cases: each case also checks that the previous
      // one, valid or not, left no state behind.
      const ops::record_metadata meta{c.key, c.timestamp, c.partition, c.offset, &c, case_header};
      auto s = pipeline.process(meta, std::string_view(c.value));
      if (c.valid) {
        ++valid;
        BOOST_TEST_REQUIRE((s.outcome == ops::outcome::emitted),
                           (s.error ? s.error->code + ": " + s.error->message : "not emitted"));
        BOOST_TEST(s.output == c.expected);
      } else {
        BOOST_TEST_REQUIRE((s.outcome == ops::outcome::invalid), "accepted: " << s.output);
        BOOST_TEST_REQUIRE(s.error != nullptr);
        auto space = c.expected.find(' ');
        std::string code = c.expected.substr(0, space);
        std::string part = space == std::string::npos ? std::string() : c.expected.substr(space + 1);
        BOOST_TEST(s.error->code == code, s.error->message);
        BOOST_TEST(s.error->message.find(part) != std::string::npos,
                   "message \"" << s.error->message << "\" lacks \"" << part << "\"");
        BOOST_TEST((s.error->phase == streamt::phase::record));
      }
    }
  }
  BOOST_TEST_MESSAGE(cases.size() << " record cases (" << valid << " valid, " << cases.size() - valid
                                  << " invalid)");
}

BOOST_AUTO_TEST_CASE(every_record_case_gives_its_expected_output_or_error) {
  check_cases("orders.records", t::orders_plan(), 45);
}

BOOST_AUTO_TEST_CASE(every_nested_record_case_of_version_2_types_gives_its_expected_output_or_error) {
  check_cases("payments.records", t::payments_plan(), 20);
}

BOOST_AUTO_TEST_CASE(every_metadata_column_case_gives_its_expected_output_or_error) {
  using streamt::plan::column_source;
  using streamt::plan::column_type;
  check_cases("metadata.records",
              t::metadata_plan(t::from("k", column_type::string, true, column_source::key)), 8);
  check_cases("metadata_bigint_key.records",
              t::metadata_plan(t::from("k", column_type::bigint, false, column_source::key)), 6);
  check_cases("metadata_json_key.records",
              t::metadata_plan(t::from("k", column_type::json, false, column_source::key)), 5);
}

// decode has a fast path that must give up wherever the reference path
// refuses, and decode every valid case the table holds (none of them spells
// a key with escapes) exactly as the reference path does.
BOOST_AUTO_TEST_CASE(the_fast_path_decodes_every_valid_case_as_the_reference_does_and_no_other) {
  auto cases = load_cases(std::string(STREAMT_TEST_DATA_DIR) + "/records/orders.records");
  ops::decode_definition def(t::orders_schema());
  ops::decode_state state;
  ops::row fast, reference;
  streamt::diagnostic error;
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("case " << c.name << " (line " << c.line << ")") {
      const bool fast_ok = ops::detail::fast_decode(def, state, c.value, fast);
      const bool reference_ok = ops::detail::reference_decode(def, state, c.value, reference, error);
      BOOST_TEST(reference_ok == c.valid);
      BOOST_TEST(fast_ok == c.valid);
      if (!fast_ok || !reference_ok) continue;
      for (std::size_t i = 0; i < fast.slots.size(); ++i) {
        BOOST_TEST_CONTEXT("column " << i) {
          BOOST_TEST(fast.slots[i].is_null == reference.slots[i].is_null);
          if (reference.slots[i].is_null) continue;
          BOOST_TEST(fast.slots[i].bigint == reference.slots[i].bigint);
          BOOST_TEST(fast.slots[i].boolean == reference.slots[i].boolean);
          BOOST_TEST(fast.slots[i].string == reference.slots[i].string);
        }
      }
    }
  }
}

// The same for version 2's types: the fast path reads nested ROWs, DECIMAL,
// DOUBLE, TIMESTAMP and compact JSON values itself. It may leave a valid
// case to the reference path (an escape, a spaced JSON value), never accept
// an invalid one, and must decode what it takes as the reference does, node
// by node.
BOOST_AUTO_TEST_CASE(the_fast_path_decodes_nested_cases_as_the_reference_does_and_takes_the_plain_ones) {
  // Valid cases spelled as producers write them: compact, no escapes.
  const std::set<std::string> plain{"create_with_before_null",
                                    "delete_with_after_null_writes_nulls_for_its_fields",
                                    "decimal_of_38_digits_at_precision_10_fits_when_small"};
  auto cases = load_cases(std::string(STREAMT_TEST_DATA_DIR) + "/records/payments.records");
  ops::decode_definition def(t::payments_schema());
  ops::decode_state state;
  ops::row fast, reference;
  streamt::diagnostic error;
  std::size_t valid = 0, taken = 0;
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("case " << c.name << " (line " << c.line << ")") {
      const bool fast_ok = ops::detail::fast_decode(def, state, c.value, fast);
      const bool reference_ok = ops::detail::reference_decode(def, state, c.value, reference, error);
      BOOST_TEST(reference_ok == c.valid);
      BOOST_TEST((!fast_ok || c.valid));
      valid += c.valid ? 1 : 0;
      taken += fast_ok ? 1 : 0;
      if (plain.count(c.name) != 0) BOOST_TEST(fast_ok);
      if (!fast_ok || !reference_ok) continue;
      for (std::size_t i = 0; i < def.column_count(); ++i) {
        BOOST_TEST_CONTEXT("node " << def.name(i)) {
          const auto &a = fast.slots[i], &b = reference.slots[i];
          BOOST_TEST(a.is_null == b.is_null);
          if (b.is_null) continue;
          switch (def.column(i).type) {
            case streamt::plan::column_type::string:
            case streamt::plan::column_type::json:
              BOOST_TEST(a.string == b.string);
              break;
            case streamt::plan::column_type::bigint:
            case streamt::plan::column_type::timestamp:
              BOOST_TEST(a.bigint == b.bigint);
              break;
            case streamt::plan::column_type::boolean:
              BOOST_TEST(a.boolean == b.boolean);
              break;
            case streamt::plan::column_type::double_:
              BOOST_TEST(std::memcmp(&a.dbl, &b.dbl, sizeof a.dbl) == 0);
              break;
            case streamt::plan::column_type::decimal:
              BOOST_TEST((a.decimal == b.decimal));
              break;
            case streamt::plan::column_type::row:
              break;
          }
        }
      }
    }
  }
  BOOST_TEST(valid >= 7u);
  BOOST_TEST(taken >= plain.size(), taken << " of " << valid << " valid cases taken by the fast path");
}

BOOST_AUTO_TEST_SUITE_END()
