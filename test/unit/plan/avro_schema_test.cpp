// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/avro_schema.hpp"

#include "case_files.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <map>
#include <sstream>
#include <string>

namespace data = boost::unit_test::data;
namespace avro = streamt::plan::avro;
using streamt::phase;
using streamt::plan::column;
using streamt::plan::column_type;

namespace {

// "id BIGINT, amount DECIMAL(10,2), note STRING NULL, tags JSON*, r ROW(...)":
// the columns as the .expected sidecars spell them; `*` marks a column the
// mapping says is not comparable.
void render(const std::vector<column>& columns, const avro::mapping& m, std::size_t& note, std::string& out) {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const column& c = columns[i];
    if (i) out += ", ";
    out += c.name + " " + streamt::plan::type_name(c);
    const bool comparable = m.notes.at(note++).comparable;
    if (!comparable) out += "*";
    if (c.type == column_type::row) {
      out += "(";
      render(c.fields, m, note, out);
      out += ")";
    }
    if (c.nullable) out += " NULL";
  }
}

std::string render(const avro::mapping& m) {
  std::string out;
  std::size_t note = 0;
  render(m.columns, m, note, out);
  BOOST_TEST(note == m.notes.size(), "one note per column and nested field");
  return out;
}

std::map<std::string, std::string> read_sidecar(const std::string& name) {
  return streamt::test::read_key_values("avro", name, ".expected");
}

avro::schema parsed(std::string_view text) {
  auto s = avro::parse_schema(text);
  BOOST_TEST_REQUIRE(s.has_value(), (s ? std::string() : s.error().path + ": " + s.error().message));
  return std::move(*s);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(avro_schemas)

// valid_*.json: canonical form, fingerprint and columns as the .expected
// sidecar says (the canonical form and fingerprint came from fastavro where
// the sidecar names it as the oracle); anything else fails as .error says.
BOOST_DATA_TEST_CASE(each_avro_schema_case_parses_or_fails_as_its_sidecar_says,
                     data::make(streamt::test::case_names("avro")), name) {
  const std::string text = streamt::test::read_file(streamt::test::data_dir("avro") / (name + ".json"));
  auto s = avro::parse_schema(text);
  if (auto expected = streamt::test::read_expectation("avro", name)) {
    BOOST_TEST_REQUIRE(!s.has_value(), name << " must be refused");
    streamt::test::check_diagnostic(s.error(), *expected, phase::schema);
    return;
  }
  BOOST_TEST_REQUIRE(name.rfind("valid_", 0) == 0u,
                     name << " has no .error sidecar, so must be named valid_*");
  BOOST_TEST_REQUIRE(s.has_value(), (s ? std::string() : s.error().path + ": " + s.error().message));
  const auto expected = read_sidecar(name);
  const std::string canonical = avro::canonical_form(*s);
  BOOST_TEST(canonical == expected.at("canonical"));
  BOOST_TEST(avro::fingerprint_hex(avro::fingerprint(canonical)) == expected.at("fingerprint"));
  auto m = avro::to_columns(*s);
  BOOST_TEST_REQUIRE(m.has_value());
  BOOST_TEST(render(*m) == expected.at("columns"));
}

BOOST_AUTO_TEST_CASE(fingerprints_match_the_values_fastavro_computes) {
  // Written as the little-endian bytes, as single-object encoding and
  // fastavro show them; the empty text gives the algorithm's seed.
  BOOST_TEST(avro::fingerprint("") == 0xc15d213aa4d7a795ULL);
  BOOST_TEST(avro::fingerprint_hex(avro::fingerprint("")) == "95a7d7a43a215dc1");
  BOOST_TEST(avro::fingerprint_hex(avro::fingerprint(R"("null")")) == "8a8f25cce724dd63");
  BOOST_TEST(avro::fingerprint_hex(avro::fingerprint(R"("int")")) == "8f5c393f1ad57572");
  BOOST_TEST(avro::fingerprint_hex(avro::fingerprint(R"({"name":"foo","type":"fixed","size":15})")) ==
             "04a531edc32e6018");
}

BOOST_AUTO_TEST_CASE(a_primitive_written_as_an_object_has_the_canonical_form_of_its_name) {
  BOOST_TEST(avro::canonical_form(parsed(R"({"type": "long", "logicalType": "timestamp-millis"})")) ==
             R"("long")");
  BOOST_TEST(avro::canonical_form(parsed(R"(["null", {"type": "string", "doc": "x"}])")) ==
             R"(["null","string"])");
}

BOOST_AUTO_TEST_CASE(a_schema_that_is_not_a_record_has_no_columns) {
  auto m = avro::to_columns(parsed(R"(["null", "string"])"));
  BOOST_TEST_REQUIRE(!m.has_value());
  BOOST_TEST(m.error().code == "not_a_record");
  BOOST_TEST(m.error().message.find("union, not a record") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_mapping_names_the_avro_type_of_each_column_it_cannot_compare) {
  auto m = avro::to_columns(parsed(R"({"type": "record", "name": "R", "fields": [
      {"name": "u", "type": ["int", "string"]},
      {"name": "w", "type": {"type": "bytes", "logicalType": "decimal", "precision": 40, "scale": 2}},
      {"name": "p", "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 3}]}]})"));
  BOOST_TEST_REQUIRE(m.has_value());
  BOOST_TEST_REQUIRE(m->notes.size() == 3u);
  BOOST_TEST(m->notes[0].avro_type == "union [int, string]");
  BOOST_TEST(!m->notes[0].comparable);
  BOOST_TEST(m->notes[1].avro_type == "bytes (decimal(40,2))");
  BOOST_TEST(!m->notes[1].comparable);
  BOOST_TEST(m->notes[2].avro_type == "union [null, bytes (decimal(9,3))]");
  BOOST_TEST(m->notes[2].comparable);
  BOOST_TEST(m->columns[2].nullable);
  BOOST_TEST(streamt::plan::type_name(m->columns[2]) == "DECIMAL(9,3)");
}

// Each nested record costs three JSON levels; ROWs stop at 16, and what is
// deeper is kept whole as a JSON column.
BOOST_AUTO_TEST_CASE(records_nested_deeper_than_a_row_may_be_become_a_json_column) {
  std::string text;
  const int levels = 18;
  for (int i = 0; i < levels; ++i)
    text +=
        R"({"type": "record", "name": "R)" + std::to_string(i) + R"(", "fields": [{"name": "f", "type": )";
  text += R"("long")";
  for (int i = 0; i < levels; ++i) text += "}]}";
  auto m = avro::to_columns(parsed(text));
  BOOST_TEST_REQUIRE(m.has_value());
  const column* c = &m->columns.at(0);
  int rows = 0;
  while (c->type == column_type::row) {
    ++rows;
    c = &c->fields.at(0);
  }
  BOOST_TEST(rows == streamt::plan::max_row_depth);
  BOOST_TEST(static_cast<int>(c->type) == static_cast<int>(column_type::json));
}

BOOST_AUTO_TEST_CASE(a_schema_of_more_types_than_the_bound_is_refused_before_it_grows) {
  std::string text = R"({"type": "record", "name": "Wide", "fields": [)";
  for (std::size_t i = 0; i <= avro::max_types; ++i) {
    if (i) text += ",";
    text += R"({"name": "f)" + std::to_string(i) + R"(", "type": "int"})";
  }
  text += "]}";
  auto s = avro::parse_schema(text);
  BOOST_TEST_REQUIRE(!s.has_value());
  BOOST_TEST(s.error().code == "too_large");
}

BOOST_AUTO_TEST_CASE(a_schema_nested_beyond_the_json_depth_bound_is_refused_with_its_position) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += R"({"type": "array", "items": )";
  text += R"("long")";
  for (int i = 0; i < 200; ++i) text += "}";
  auto s = avro::parse_schema(text);
  BOOST_TEST_REQUIRE(!s.has_value());
  BOOST_TEST(s.error().code == "too_deep");
  BOOST_TEST(s.error().line == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
