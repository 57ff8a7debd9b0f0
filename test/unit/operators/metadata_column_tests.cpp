// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// Columns a version 2 schema takes from the record's key, headers,
// timestamp, partition and offset, through the whole stage pipeline.

#include "operators/stage_pipeline.hpp"

#include "metadata_fixture.hpp"

#include <boost/test/unit_test.hpp>

#include <map>
#include <string>

namespace ops = streamt::operators;
using namespace streamt::plan;

namespace {

using streamt::operators::test::from;
using streamt::operators::test::metadata_plan;

struct record {
  std::optional<std::string_view> key;
  std::map<std::string, std::string> headers;
};

std::optional<std::string_view> header_of(const void* source, const std::string& name) {
  const auto& r = *static_cast<const record*>(source);
  if (auto it = r.headers.find(name); it != r.headers.end()) return std::string_view(it->second);
  return std::nullopt;
}

ops::step run(ops::stage_pipeline& stages, const record& r, std::string_view value) {
  ops::record_metadata meta{r.key, 1796464800000, 3, 42, &r, header_of};
  return stages.process(meta, value);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(metadata_columns)

BOOST_AUTO_TEST_CASE(a_plan_with_metadata_columns_is_version_2) {
  BOOST_TEST(metadata_plan(from("k", column_type::string, true, column_source::key)).version == 2);
}

BOOST_AUTO_TEST_CASE(header_key_timestamp_partition_and_offset_are_written_like_value_columns) {
  ops::stage_pipeline stages(metadata_plan(from("k", column_type::string, true, column_source::key)));
  BOOST_TEST(stages.reads_metadata());
  const record r{"c-1", {{"tenant", "acme"}}};
  const ops::step s = run(stages, r, R"({"amount":5})");
  BOOST_TEST_REQUIRE((s.outcome == ops::outcome::emitted), (s.error ? s.error->message : ""));
  BOOST_TEST(s.output == R"({"amount":5,"tenant":"acme","k":"c-1","at":1796464800000,"p":3,"o":42})");
}

BOOST_AUTO_TEST_CASE(an_absent_header_and_a_null_key_are_null_in_nullable_columns) {
  ops::stage_pipeline stages(metadata_plan(from("k", column_type::string, true, column_source::key)));
  const ops::step s = run(stages, record{std::nullopt, {}}, R"({"amount":5})");
  BOOST_TEST_REQUIRE((s.outcome == ops::outcome::emitted));
  BOOST_TEST(s.output == R"({"amount":5,"tenant":null,"k":null,"at":1796464800000,"p":3,"o":42})");
}

BOOST_AUTO_TEST_CASE(a_record_without_a_key_is_invalid_when_the_key_column_is_not_nullable) {
  ops::stage_pipeline stages(metadata_plan(from("k", column_type::string, false, column_source::key)));
  const ops::step s = run(stages, record{std::nullopt, {}}, R"({"amount":5})");
  BOOST_TEST_REQUIRE((s.outcome == ops::outcome::invalid));
  BOOST_TEST(s.error->code == "unexpected_null");
  BOOST_TEST(s.error->message == "column 'k' (the record's key) is not nullable, and the record has no key");
}

BOOST_AUTO_TEST_CASE(a_key_read_as_bigint_must_be_a_decimal_integer) {
  ops::stage_pipeline stages(metadata_plan(from("k", column_type::bigint, false, column_source::key)));
  ops::step s = run(stages, record{"-17", {}}, R"({"amount":5})");
  BOOST_TEST_REQUIRE((s.outcome == ops::outcome::emitted));
  BOOST_TEST(s.output.find(R"("k":-17)") != std::string_view::npos);
  for (std::string_view bad : {"017", "+1", "1 ", "", "9223372036854775808", "x\x01"}) {
    s = run(stages, record{bad, {}}, R"({"amount":5})");
    BOOST_TEST_REQUIRE((s.outcome == ops::outcome::invalid), bad);
    BOOST_TEST(s.error->code == "wrong_type");
  }
  BOOST_TEST(
      s.error->message ==
      "column 'k' (the record's key) expects BIGINT, found 'x\\x01', which is not a decimal integer in the "
      "signed 64-bit range");
}

BOOST_AUTO_TEST_CASE(a_key_read_as_json_is_validated_and_passed_on_unchanged) {
  ops::stage_pipeline stages(metadata_plan(from("k", column_type::json, false, column_source::key)));
  ops::step s = run(stages, record{R"({"id": 1.50})", {}}, R"({"amount":5})");
  BOOST_TEST_REQUIRE((s.outcome == ops::outcome::emitted));
  BOOST_TEST(s.output.find(R"("k":{"id": 1.50})") != std::string_view::npos, s.output);
  s = run(stages, record{"{oops", {}}, R"({"amount":5})");
  BOOST_TEST_REQUIRE((s.outcome == ops::outcome::invalid));
  BOOST_TEST(s.error->code == "wrong_type");
}

BOOST_AUTO_TEST_CASE(a_key_read_as_string_must_be_utf8) {
  ops::stage_pipeline stages(metadata_plan(from("k", column_type::string, false, column_source::key)));
  const ops::step s = run(stages, record{"ab\xff", {}}, R"({"amount":5})");
  BOOST_TEST_REQUIRE((s.outcome == ops::outcome::invalid));
  BOOST_TEST(s.error->code == "invalid_utf8");
  BOOST_TEST(s.error->message.find("at byte 2") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_metadata_column_is_not_looked_for_in_the_value) {
  ops::stage_pipeline stages(metadata_plan(from("k", column_type::string, true, column_source::key)));
  // "tenant" in the value is an undeclared member there: the header is the column.
  const ops::step s = run(stages, record{"c-1", {{"tenant", "acme"}}}, R"({"amount":5,"tenant":"x"})");
  BOOST_TEST_REQUIRE((s.outcome == ops::outcome::invalid));
  BOOST_TEST(s.error->code == "unknown_field");
}

BOOST_AUTO_TEST_CASE(a_header_column_can_be_filtered_on) {
  plan p = metadata_plan(from("k", column_type::string, true, column_source::key));
  p.predicate = {{1, compare_op::eq, std::string("acme")}};
  ops::stage_pipeline stages(p);
  BOOST_TEST(
      (run(stages, record{"c", {{"tenant", "acme"}}}, R"({"amount":1})").outcome == ops::outcome::emitted));
  BOOST_TEST(
      (run(stages, record{"c", {{"tenant", "other"}}}, R"({"amount":1})").outcome == ops::outcome::filtered));
  BOOST_TEST((run(stages, record{"c", {}}, R"({"amount":1})").outcome == ops::outcome::filtered));
}

BOOST_AUTO_TEST_SUITE_END()
