// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The Avro sink's schema and encoder: what a plan projects, written as the
// body of the schema plan::avro::sink_schema derives, reads back through the
// Avro decoder (itself checked against fastavro) as the same values.

#include "operators/avro_decode.hpp"
#include "operators/avro_encode.hpp"
#include "operators/project.hpp"
#include "plan/avro_schema.hpp"
#include "plan/avro_sink.hpp"
#include "plan/schema_file.hpp"
#include "plan/sql/compile.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace avro = streamt::plan::avro;
namespace plan = streamt::plan;
using namespace std::string_literals;
using streamt::operators::row;

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

plan::plan payments_plan(const std::string& sql) {
  const auto text =
      read_file(std::filesystem::path(STREAMT_TEST_DATA_DIR) / "../../examples/avro/payments.avsc");
  auto schema = plan::schema_from_avro(text, "payments", "payments");
  BOOST_TEST_REQUIRE(schema.has_value());
  // A JSON sink: these tests derive the sink schema themselves, and one
  // checks the refusal of a name the Avro sink compile would refuse first.
  plan::compile_options options{"pay", "big-payments"};
  options.sink_format = plan::sink_format::json;
  auto p = plan::compile(sql, *schema, options);
  BOOST_TEST_REQUIRE(p.has_value(), (p ? std::string() : p.error().message));
  return *p;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(avro_encoding)

BOOST_AUTO_TEST_CASE(the_sink_schema_has_a_field_per_output_column_in_order) {
  const auto p = payments_plan("SELECT after.id AS id, after.amount AS amount, after, ts_ms FROM payments");
  auto text = avro::sink_schema(p);
  BOOST_TEST_REQUIRE(text.has_value());
  BOOST_TEST(
      *text ==
      R"({"type":"record","name":"big_payments","namespace":"streamt","fields":[)"
      // after is nullable, so its fields projected on their own are too.
      R"({"name":"id","type":["null","long"],"default":null},)"
      R"({"name":"amount","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}],)"
      R"("default":null},)"
      R"({"name":"after","type":["null",{"type":"record","name":"big_payments_after","fields":[)"
      R"({"name":"id","type":"long"},)"
      R"({"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},)"
      R"({"name":"status","type":"string"}]}],"default":null},)"
      R"({"name":"ts_ms","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null}]})");
  BOOST_TEST(avro::parse_schema(*text).has_value());
}

BOOST_AUTO_TEST_CASE(an_output_name_that_is_no_avro_name_is_refused_with_an_alias_to_write) {
  const auto p = payments_plan(R"(SELECT op AS "op-code" FROM payments)");
  auto text = avro::sink_schema(p);
  BOOST_TEST_REQUIRE(!text.has_value());
  BOOST_TEST(text.error().code == "invalid_avro_name");
  BOOST_TEST(text.error().message.find("AS op_code") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_encoded_row_reads_back_as_the_same_values) {
  const auto p =
      payments_plan("SELECT after.id AS id, after.amount AS amount, after, op, ts_ms FROM payments");
  const auto nodes = plan::flatten(p.schema);
  row in(nodes.size());
  auto node = [&](std::vector<std::string> path) { return *plan::find_path(nodes, path); };
  in.slots[node({"before"})].is_null = true;
  in.slots[node({"after"})].is_null = false;
  in.slots[node({"after", "id"})].is_null = false;
  in.slots[node({"after", "id"})].bigint = 7;
  in.slots[node({"after", "amount"})].is_null = false;
  in.slots[node({"after", "amount"})].decimal = -12345;  // -123.45: two bytes, negative
  in.slots[node({"after", "status"})].is_null = false;
  in.slots[node({"after", "status"})].string = "PAID";
  in.slots[node({"op"})].is_null = false;
  in.slots[node({"op"})].string = "c";
  in.slots[node({"ts_ms"})].is_null = true;

  const streamt::operators::project_definition projection(p);
  const streamt::operators::avro_encode_definition def(projection);
  std::string out;
  const std::string body(streamt::operators::avro_encode(def, in, out));

  auto sink = avro::parse_schema(*avro::sink_schema(p));
  BOOST_TEST_REQUIRE(sink.has_value());
  plan::schema columns;
  columns.columns = avro::to_columns(*sink)->columns;
  auto decoder = streamt::operators::avro_decoder::build(columns, *sink, *sink, avro::everything);
  BOOST_TEST_REQUIRE(decoder.has_value());
  row back(plan::flatten(columns).size());
  streamt::diagnostic error;
  BOOST_TEST_REQUIRE(decoder->decode(body, back, error), error.message);
  // id, amount, after (ROW: id, amount, status), op, ts_ms
  BOOST_TEST(back.slots[0].bigint == 7);
  BOOST_TEST(static_cast<long long>(back.slots[1].decimal) == -12345LL);
  BOOST_TEST(!back.slots[2].is_null);
  BOOST_TEST(back.slots[3].bigint == 7);
  BOOST_TEST(static_cast<long long>(back.slots[4].decimal) == -12345LL);
  BOOST_TEST(back.slots[5].string == "PAID");
  BOOST_TEST(back.slots[6].string == "c");
  BOOST_TEST(back.slots[7].is_null);

  std::string framed;
  streamt::operators::append_registry_frame(framed, 258);
  BOOST_TEST(framed == "\x00\x00\x00\x01\x02"s);
}

BOOST_AUTO_TEST_SUITE_END()
