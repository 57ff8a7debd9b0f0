// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// A json-registry source in the plan: written into the schema and the
// digest, version 2, its sink's format stated, and every other spelling of
// it refused by the loader at its path.

#include "plan/json_schema.hpp"
#include "plan/plan_json.hpp"
#include "plan/schema_file.hpp"
#include "plan/sql/compile.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace streamt::plan;

namespace {

plan framed_plan() {
  plan p;
  p.version = 2;
  p.identity.application_id = "orders-big";
  p.identity.source_topic = "orders";
  p.identity.sink_topic = "big-orders";
  p.schema = {
      "orders", "orders", {{"id", column_type::string, false}, {"amount", column_type::bigint, false}}};
  p.schema.value_format = value_format::json_registry;
  p.projection = {{0, "id"}, {1, "amount"}};
  return p;
}

// The written plan with `from` replaced by `to` (edits are refused before
// the digest is compared).
std::string edited(const plan& p, const std::string& from, const std::string& to) {
  std::string text = write_plan(p);
  const auto at = text.find(from);
  BOOST_TEST_REQUIRE(at != std::string::npos, from);
  return text.replace(at, from.size(), to);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(json_registry_plan)

BOOST_AUTO_TEST_CASE(is_version_2_written_in_the_schema_and_the_digest_and_round_trips) {
  const plan p = framed_plan();
  plan plain = framed_plan();
  plain.version = 1;
  plain.schema.value_format = value_format::json;
  BOOST_TEST(required_version(p) == 2);
  BOOST_TEST(version_2_reason(p) == "the source is JSON in the Confluent wire format (json-registry)");
  const std::string text = canonical_json(p);
  BOOST_TEST(text.find(R"("value_format":"json-registry")") != std::string::npos, text);
  // The sink's format is stated, as for an Avro source: not left to guess.
  BOOST_TEST(text.find(R"("sink":{"format":"json"})") != std::string::npos, text);
  BOOST_TEST(canonical_json(plain).find("value_format") == std::string::npos);
  BOOST_TEST(digest(p) != digest(plain));
  auto loaded = load_plan(write_plan(p));
  BOOST_TEST_REQUIRE(loaded.has_value(), (loaded ? std::string() : streamt::format(loaded.error())));
  BOOST_TEST((*loaded == p));
  BOOST_TEST(digest(*loaded) == digest(p));
}

BOOST_AUTO_TEST_CASE(the_loader_refuses_every_other_spelling_at_its_path) {
  const plan p = framed_plan();
  auto r = load_plan(edited(p, R"("value_format": "json-registry")", R"("value_format": "avro")"));
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == "invalid_value_format");
  BOOST_TEST(r.error().path == "$.schema.value_format");
  BOOST_TEST(r.error().message.find(R"(is 'avro'; it must be "json")") == 0u, r.error().message);
  r = load_plan(edited(p, R"("value_format": "json-registry")", R"("value_format": 1)"));
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == "invalid_value_format");
  // The default is never written: one meaning, one digest.
  r = load_plan(edited(p, R"("value_format": "json-registry")", R"("value_format": "json")"));
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == "needless_value_format");
  r = load_plan(edited(p, R"("plan_version": 2)", R"("plan_version": 1)"));
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == "needs_newer_version");
  BOOST_TEST(r.error().message.find("json-registry") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_loader_wants_the_sink_format_stated) {
  plan p = framed_plan();
  std::string text = write_plan(p);
  const auto sink = text.find(R"(  "sink")");
  const auto end = text.find("},\n", sink);
  BOOST_TEST_REQUIRE((sink != std::string::npos && end != std::string::npos));
  text.erase(sink, end + 3 - sink);
  auto r = load_plan(text);
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == "missing_sink_format", r.error().message);
}

BOOST_AUTO_TEST_CASE(a_schema_file_may_say_it) {
  auto s = load_schema(R"({"source": "o", "topic": "o", "value_format": "json-registry",
                           "columns": [{"name": "id", "type": "STRING", "nullable": false}]})");
  BOOST_TEST_REQUIRE(s.has_value());
  BOOST_TEST((s->value_format == value_format::json_registry));
  // In a schema file the default may be spelt out.
  s = load_schema(R"({"source": "o", "topic": "o", "value_format": "json",
                      "columns": [{"name": "id", "type": "STRING", "nullable": false}]})");
  BOOST_TEST_REQUIRE(s.has_value());
  BOOST_TEST((s->value_format == value_format::json));
}

BOOST_AUTO_TEST_CASE(an_avro_source_may_not_say_it) {
  auto s = schema_from_avro(
      R"({"type": "record", "name": "o", "fields": [{"name": "id", "type": "string"}]})", "o", "o");
  BOOST_TEST_REQUIRE(s.has_value());
  auto p = compile("SELECT id FROM o", *s, {"app", "out"});
  BOOST_TEST_REQUIRE(p.has_value());
  auto r = load_plan(edited(*p, R"("source": "o")", R"("value_format": "json-registry", "source": "o")"));
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == "value_format_with_avro");
  BOOST_TEST(r.error().path == "$.schema.value_format");
}

// What Confluent's JsonSchemaSerializer registers for a typical record.
constexpr const char* order_schema = R"({
  "title": "Order", "description": "annotations are ignored", "type": "object",
  "properties": {
    "id": {"type": "string", "minLength": 1},
    "amount": {"type": "integer"},
    "price": {"type": "number"},
    "paid_at": {"type": "string", "format": "date-time"},
    "vip": {"type": "boolean"},
    "note": {"type": ["null", "string"]},
    "tags": {"type": "array", "items": {"type": "string"}},
    "extra": {"type": "object"},
    "address": {"type": "object", "additionalProperties": false, "required": ["city"],
                "properties": {"city": {"type": "string"}, "zip": {"type": ["string", "null"]}}}},
  "required": ["id", "amount", "price", "paid_at", "vip", "note", "tags", "extra", "address"]})";

BOOST_AUTO_TEST_CASE(a_json_schema_maps_to_the_columns_of_a_json_registry_source) {
  auto s = schema_from_json_schema(order_schema, "orders", "orders-topic");
  BOOST_TEST_REQUIRE(s.has_value(), (s ? std::string() : streamt::format(s.error())));
  BOOST_TEST((s->value_format == value_format::json_registry));
  BOOST_TEST(s->topic == "orders-topic");
  // Members the schema does not declare are allowed by JSON Schema's default.
  BOOST_TEST((s->unknown_fields == unknown_fields::ignore));
  std::string shape;
  for (const column& c : s->columns) shape += c.name + ":" + type_name(c) + (c.nullable ? "?" : "") + " ";
  BOOST_TEST(shape ==
             "id:STRING amount:BIGINT price:DOUBLE paid_at:TIMESTAMP vip:BOOLEAN note:STRING? tags:JSON "
             "extra:JSON address:ROW ");
  const column& address = s->columns.back();
  BOOST_TEST_REQUIRE(address.fields.size() == 2u);
  BOOST_TEST(!address.fields[0].nullable);  // required
  BOOST_TEST(address.fields[1].nullable);   // ["string", "null"]
  BOOST_TEST((address.unknown_fields == unknown_fields::reject));
  // A plan compiled from it loads back as the engine loads it.
  auto p = compile("SELECT id, address.city FROM orders WHERE amount > 5", *s, {"orders-app", "out"});
  BOOST_TEST_REQUIRE(p.has_value(), (p ? std::string() : streamt::format(p.error())));
  auto loaded = load_plan(write_plan(*p));
  BOOST_TEST_REQUIRE(loaded.has_value(), (loaded ? std::string() : streamt::format(loaded.error())));
  BOOST_TEST((loaded->schema == s.value()));
}

BOOST_AUTO_TEST_CASE(a_property_that_is_not_required_is_nullable) {
  auto s = schema_from_json_schema(R"({"type": "object", "additionalProperties": false,
    "properties": {"id": {"type": "string"}, "n": {"type": "integer"}}, "required": ["id"]})",
                                   "o", "o");
  BOOST_TEST_REQUIRE(s.has_value());
  BOOST_TEST(!s->columns[0].nullable);
  BOOST_TEST(s->columns[1].nullable);
  BOOST_TEST((s->unknown_fields == unknown_fields::reject));
}

BOOST_AUTO_TEST_CASE(what_is_not_one_type_is_refused_at_its_path) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"type": "object", "properties": {"a": {"$ref": "#/definitions/A"}}})",
       R"($.properties.a["$ref"])"},
      {R"({"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}}})", "$.properties.a.oneOf"},
      {R"({"type": "object", "properties": {"a": {"type": ["string", "integer"]}}})", "$.properties.a.type"},
      {R"({"type": "object", "properties": {"a": {"type": "null"}}})", "$.properties.a.type"},
      {R"({"type": "object", "properties": {"a": {"description": "no type"}}})", "$.properties.a"},
      {R"({"type": "object", "properties": {"a": true}})", "$.properties.a"},
      {R"({"type": "object", "properties": {"r": {"type": "object", "properties": {"b": {"anyOf": []}}}}})",
       "$.properties.r.properties.b.anyOf"},
      {R"({"type": "array", "items": {"type": "string"}})", "$"},
      {R"({"allOf": [{"type": "object"}]})", "$.allOf"},
  };
  for (const auto& [text, path] : cases) {
    auto s = schema_from_json_schema(text, "o", "o");
    BOOST_TEST_REQUIRE(s.has_error(), text);
    BOOST_TEST(s.error().code == "unsupported_json_schema");
    BOOST_TEST(s.error().path == path, text);
    BOOST_TEST(s.error().message.find("--value-format json-registry --schema FILE") != std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()
