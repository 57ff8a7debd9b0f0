// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/stage_pipeline.hpp"

#include "operators/decode.hpp"
#include "orders_fixture.hpp"
#include "payments_fixture.hpp"

#include <boost/test/unit_test.hpp>

#include <fstream>
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
};

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
    BOOST_TEST_REQUIRE(i + 3 < lines.size(), "line " << i + 1 << ": truncated case " << name);
    BOOST_TEST_REQUIRE(lines[i + 2] == "----", "line " << i + 3 << ": expected ---- in case " << name);
    record_case c;
    c.line = i + 1;
    c.valid = kind == "valid";
    c.name = name;
    c.value = flag == "bytes" ? unescape_bytes(lines[i + 1]) : lines[i + 1];
    c.expected = lines[i + 3];
    cases.push_back(std::move(c));
    i += 4;
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
      auto s = pipeline.process(std::string_view(c.value));
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

BOOST_AUTO_TEST_SUITE_END()
