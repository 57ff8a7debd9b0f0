// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The sink's format in the plan: chosen by compile (the source's unless
// asked otherwise), written only where it says something, part of the
// digest; an Avro sink pins the schema its projection derives, and the
// loader takes no other. The refusals of edited plans are case files
// (test/data/plans/*sink*).

#include "plan/avro_schema.hpp"
#include "plan/avro_sink.hpp"
#include "plan/plan_json.hpp"
#include "plan/schema_file.hpp"
#include "plan/sql/compile.hpp"

#include <boost/test/unit_test.hpp>

#include <optional>
#include <string>

namespace plan = streamt::plan;

namespace {

constexpr const char* orders = R"({"source": "orders", "topic": "orders", "columns": [
  {"name": "id", "type": "STRING", "nullable": false},
  {"name": "amount", "type": "BIGINT", "nullable": false},
  {"name": "note", "type": "STRING", "nullable": true}]})";

constexpr const char* payments = R"({"type": "record", "name": "Payment", "fields": [
  {"name": "id", "type": "long"},
  {"name": "note", "type": ["null", "string"], "default": null}]})";

plan::plan compiled(const plan::schema& s, std::optional<plan::sink_format> format,
                    const std::string& sql = "SELECT id, note FROM orders") {
  plan::compile_options options{"app", "big-out"};
  options.sink_format = format;
  auto p = plan::compile(sql, s, options);
  BOOST_TEST_REQUIRE(p.has_value(), (p ? std::string() : p.error().message));
  return *p;
}

plan::schema json_source() {
  auto s = plan::load_schema(orders);
  BOOST_TEST_REQUIRE(s.has_value());
  return *s;
}

plan::schema avro_source() {
  auto s = plan::schema_from_avro(payments, "orders", "orders");
  BOOST_TEST_REQUIRE(s.has_value());
  return *s;
}

void check_round_trip(const plan::plan& p) {
  const std::string text = plan::write_plan(p);
  auto loaded = plan::load_plan(text);
  BOOST_TEST_REQUIRE(loaded.has_value(), (loaded ? std::string() : streamt::format(loaded.error())));
  BOOST_TEST((*loaded == p));
  BOOST_TEST(plan::write_plan(*loaded) == text);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(avro_sink_plan)

BOOST_AUTO_TEST_CASE(the_sink_format_follows_the_source_unless_compile_is_told_otherwise) {
  BOOST_TEST((compiled(json_source(), std::nullopt).sink.format == plan::sink_format::json));
  BOOST_TEST((compiled(avro_source(), std::nullopt).sink.format == plan::sink_format::avro));
  BOOST_TEST((compiled(avro_source(), plan::sink_format::json).sink.format == plan::sink_format::json));
  BOOST_TEST((compiled(json_source(), plan::sink_format::avro).sink.format == plan::sink_format::avro));
}

BOOST_AUTO_TEST_CASE(a_json_source_with_a_json_sink_writes_no_sink_member_and_stays_version_1) {
  const plan::plan p = compiled(json_source(), plan::sink_format::json);
  BOOST_TEST(p.version == 1);
  BOOST_TEST(plan::canonical_json(p).find("\"sink\":") == std::string::npos);
  BOOST_TEST((p == compiled(json_source(), std::nullopt)));
  BOOST_TEST(plan::digest(p) == plan::digest(compiled(json_source(), std::nullopt)));
}

BOOST_AUTO_TEST_CASE(an_avro_sink_makes_the_plan_version_2_and_says_why) {
  const plan::plan p = compiled(json_source(), plan::sink_format::avro);
  BOOST_TEST(p.version == 2);
  BOOST_TEST(plan::version_2_reason(p) == "the sink is Avro in the Confluent wire format");
}

BOOST_AUTO_TEST_CASE(an_avro_sink_pins_the_schema_its_projection_derives_under_the_topics_value_subject) {
  const plan::plan p = compiled(json_source(), plan::sink_format::avro);
  BOOST_TEST_REQUIRE(p.sink.avro.has_value());
  BOOST_TEST(p.sink.avro->schema == *plan::avro::sink_schema(p));
  BOOST_TEST(p.sink.avro->subject == "big-out-value");
  auto parsed = plan::avro::parse_schema(p.sink.avro->schema);
  BOOST_TEST_REQUIRE(parsed.has_value());
  BOOST_TEST(p.sink.avro->canonical_form ==
             R"({"name":"streamt.big_out","type":"record","fields":[{"name":"id","type":"string"},)"
             R"({"name":"note","type":["null","string"]}]})");
  BOOST_TEST(p.sink.avro->fingerprint ==
             plan::avro::fingerprint_hex(plan::avro::fingerprint(p.sink.avro->canonical_form)));
  BOOST_TEST(p.sink.avro->fingerprint.size() == 16u);
}

BOOST_AUTO_TEST_CASE(plans_with_either_sink_round_trip_through_the_file) {
  check_round_trip(compiled(json_source(), plan::sink_format::avro));
  check_round_trip(compiled(avro_source(), std::nullopt));
  check_round_trip(compiled(avro_source(), plan::sink_format::json));
}

BOOST_AUTO_TEST_CASE(an_avro_sources_plan_states_its_sink_format_even_when_it_is_json) {
  const std::string text = plan::canonical_json(compiled(avro_source(), plan::sink_format::json));
  BOOST_TEST(text.find(R"("sink":{"format":"json"})") != std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(the_sink_format_is_part_of_the_digest) {
  BOOST_TEST(plan::digest(compiled(avro_source(), plan::sink_format::json)) !=
             plan::digest(compiled(avro_source(), plan::sink_format::avro)));
  BOOST_TEST(plan::digest(compiled(json_source(), plan::sink_format::json)) !=
             plan::digest(compiled(json_source(), plan::sink_format::avro)));
}

BOOST_AUTO_TEST_CASE(an_avro_sink_is_another_output_shape_and_a_json_sinks_shape_is_unchanged) {
  // SHA-256 of the members as the shape was written before sinks had a
  // format: shapes recorded in commits and plan logs then still match.
  BOOST_TEST(plan::output_shape(compiled(json_source(), plan::sink_format::json)) ==
             "sha256:2e3163c8d11694ed0fa68ebaf3a6bf7cb45b1efbc53faae267bca2591b38c3a5");
  // {"format":"avro","members":[...the same members...]}
  BOOST_TEST(plan::output_shape(compiled(json_source(), plan::sink_format::avro)) ==
             "sha256:b5dd666983947dc014b0522a227ec8ce0286bbc6a33c9000df04f72c8854e08e");
}

BOOST_AUTO_TEST_CASE(a_changed_projection_changes_the_pinned_schema_and_the_digest) {
  const plan::plan a = compiled(json_source(), plan::sink_format::avro);
  const plan::plan b =
      compiled(json_source(), plan::sink_format::avro, "SELECT id, note AS remark FROM orders");
  BOOST_TEST(a.sink.avro->fingerprint != b.sink.avro->fingerprint);
  BOOST_TEST(plan::digest(a) != plan::digest(b));
}

BOOST_AUTO_TEST_CASE(an_output_name_that_is_no_avro_name_is_refused_for_an_avro_sink_only) {
  const std::string sql = R"(SELECT id AS "order-id" FROM orders)";
  plan::compile_options options{"app", "big-out"};
  options.sink_format = plan::sink_format::avro;
  auto refused = plan::compile(sql, json_source(), options);
  BOOST_TEST_REQUIRE(refused.has_error());
  BOOST_TEST(refused.error().code == "invalid_avro_name");
  BOOST_TEST(refused.error().message.find("AS order_id") != std::string::npos, refused.error().message);
  options.sink_format = plan::sink_format::json;
  BOOST_TEST(plan::compile(sql, json_source(), options).has_value());
}

BOOST_AUTO_TEST_CASE(a_plan_whose_pinned_schema_is_not_the_derived_one_is_refused_with_what_to_do) {
  plan::plan p = compiled(json_source(), plan::sink_format::avro);
  // As if the projection had been edited by hand after compiling: the
  // schema pinned no longer matches what it derives.
  p.projection[1].output_name = "remark";
  auto r = plan::load_plan(plan::write_plan(p));
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == "avro_sink_schema_mismatch");
  BOOST_TEST(r.error().path == "$.sink.avro.schema");
  BOOST_TEST(r.error().message.find("recompile") != std::string::npos, r.error().message);
}

BOOST_AUTO_TEST_SUITE_END()
