// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The stage pipeline of an Avro sink: each output is the Avro body of the
// plan's pinned sink schema, framed with the id the run registered it under.
// The expected bytes are written out by hand from the specification's
// encodings (zigzag varints, two's complement decimals, little-endian
// doubles, ["null", T] unions), and read back by the Avro decoder.

#include "operators/avro_decode.hpp"
#include "operators/stage_pipeline.hpp"
#include "plan/avro_schema.hpp"
#include "plan/schema_file.hpp"
#include "plan/sql/compile.hpp"

#include <boost/test/unit_test.hpp>

#include <stdexcept>
#include <string>

using namespace std::string_literals;
namespace plan = streamt::plan;
namespace avro = streamt::plan::avro;
using streamt::operators::outcome;
using streamt::operators::stage_pipeline;

namespace {

constexpr const char* trades = R"json({"source": "trades", "topic": "trades", "columns": [
  {"name": "id", "type": "BIGINT", "nullable": false},
  {"name": "price", "type": "DECIMAL(10,2)", "nullable": false},
  {"name": "at", "type": "TIMESTAMP", "nullable": false},
  {"name": "note", "type": "STRING", "nullable": true},
  {"name": "ok", "type": "BOOLEAN", "nullable": false},
  {"name": "ratio", "type": "DOUBLE", "nullable": true}]})json";

plan::plan avro_sink_plan(const std::string& sql = "SELECT id, price, at, note, ok, ratio FROM trades") {
  auto s = plan::load_schema(trades);
  BOOST_TEST_REQUIRE(s.has_value());
  plan::compile_options options{"trades-app", "trades-out"};
  options.sink_format = plan::sink_format::avro;
  auto p = plan::compile(sql, *s, options);
  BOOST_TEST_REQUIRE(p.has_value(), (p ? std::string() : p.error().message));
  return *p;
}

const std::string full =
    R"({"id": -3, "price": -123.45, "at": 1700000000123, "note": "hi", "ok": true, "ratio": 0.5})";
const std::string nulls = R"({"id": 7, "price": 0.10, "at": 0, "note": null, "ok": false, "ratio": null})";

// Schema id 42: a zero byte and 42 in four big-endian bytes.
const std::string frame_42 = "\x00\x00\x00\x00\x2a"s;
// id -3 (zigzag 5); price -123.45 (unscaled -12345: bytes CF C7, length 2,
// zigzag 4); at 1700000000123 ms (zigzag varint); note "hi" (branch 1, zigzag
// 2; length 2, zigzag 4); ok true; ratio 0.5 (branch 1; little-endian double).
const std::string full_body = "\x05"s + "\x04\xcf\xc7"s + "\xf6\xa1\xab\xfe\xf9\x62"s + "\x02\x04hi"s +
                              "\x01"s + "\x02"s + "\x00\x00\x00\x00\x00\x00\xe0\x3f"s;
// id 7 (zigzag 14); price 0.10 (unscaled 10: one byte); at 0; note null
// (branch 0); ok false; ratio null.
const std::string nulls_body = "\x0e"s + "\x02\x0a"s + "\x00"s + "\x00"s + "\x00"s + "\x00"s;

}  // namespace

BOOST_AUTO_TEST_SUITE(avro_sink)

BOOST_AUTO_TEST_CASE(each_output_is_the_registry_frame_of_the_schema_id_then_the_avro_body) {
  stage_pipeline stages(avro_sink_plan());
  BOOST_TEST(stages.writes_avro());
  stages.sink_schema_id(42);
  auto s = stages.process(full);
  BOOST_TEST_REQUIRE(static_cast<int>(s.outcome) == static_cast<int>(outcome::emitted));
  BOOST_TEST(std::string(s.output) == frame_42 + full_body);
  s = stages.process(nulls);
  BOOST_TEST_REQUIRE(static_cast<int>(s.outcome) == static_cast<int>(outcome::emitted));
  BOOST_TEST(std::string(s.output) == frame_42 + nulls_body);
}

BOOST_AUTO_TEST_CASE(the_outputs_read_back_by_the_pinned_schema_as_the_same_values) {
  const plan::plan p = avro_sink_plan();
  BOOST_TEST_REQUIRE(p.sink.avro.has_value());
  stage_pipeline stages(p);
  stages.sink_schema_id(258);
  const auto s = stages.process(full);
  BOOST_TEST_REQUIRE(static_cast<int>(s.outcome) == static_cast<int>(outcome::emitted));
  BOOST_TEST(s.output.substr(0, 5) == "\x00\x00\x00\x01\x02"s);

  auto pinned = avro::parse_schema(p.sink.avro->schema);
  BOOST_TEST_REQUIRE(pinned.has_value());
  plan::schema columns;
  columns.columns = avro::to_columns(*pinned)->columns;
  auto decoder = streamt::operators::avro_decoder::build(columns, *pinned, *pinned, avro::everything);
  BOOST_TEST_REQUIRE(decoder.has_value());
  streamt::operators::row back(plan::flatten(columns).size());
  streamt::diagnostic error;
  BOOST_TEST_REQUIRE(decoder->decode(s.output.substr(5), back, error), error.message);
  BOOST_TEST(back.slots[0].bigint == -3);
  BOOST_TEST(static_cast<long long>(back.slots[1].decimal) == -12345LL);
  BOOST_TEST(back.slots[2].bigint == 1700000000123LL);
  BOOST_TEST(back.slots[3].string == "hi");
  BOOST_TEST(back.slots[4].boolean);
  BOOST_TEST(back.slots[5].dbl == 0.5);
}

BOOST_AUTO_TEST_CASE(the_pinned_schema_types_timestamps_decimals_and_nullable_columns_as_avro_does) {
  const plan::plan p = avro_sink_plan();
  BOOST_TEST_REQUIRE(p.sink.avro.has_value());
  BOOST_TEST(p.sink.avro->subject == "trades-out-value");
  BOOST_TEST(p.sink.avro->schema ==
             R"({"type":"record","name":"trades_out","namespace":"streamt","fields":[)"
             R"({"name":"id","type":"long"},)"
             R"({"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},)"
             R"({"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},)"
             R"({"name":"note","type":["null","string"],"default":null},)"
             R"({"name":"ok","type":"boolean"},)"
             R"({"name":"ratio","type":["null","double"],"default":null}]})");
}

BOOST_AUTO_TEST_CASE(a_new_schema_id_frames_the_outputs_after_it) {
  stage_pipeline stages(avro_sink_plan());
  stages.sink_schema_id(42);
  BOOST_TEST(stages.sink_schema_id().value_or(0) == 42u);
  stages.sink_schema_id(0x01020304);
  const auto s = stages.process(nulls);
  BOOST_TEST(std::string(s.output) == "\x00\x01\x02\x03\x04"s + nulls_body);
}

BOOST_AUTO_TEST_CASE(a_filtered_record_or_a_tombstone_writes_no_value) {
  stage_pipeline stages(avro_sink_plan("SELECT id FROM trades WHERE ok = TRUE"));
  stages.sink_schema_id(42);
  BOOST_TEST(static_cast<int>(stages.process(nulls).outcome) == static_cast<int>(outcome::filtered));
  BOOST_TEST(static_cast<int>(stages.process(std::nullopt).outcome) == static_cast<int>(outcome::tombstone));
  const auto s = stages.process(full);
  BOOST_TEST(std::string(s.output) == frame_42 + "\x05"s);
}

BOOST_AUTO_TEST_CASE(an_output_before_the_schema_id_is_set_is_a_logic_error) {
  stage_pipeline stages(avro_sink_plan());
  BOOST_TEST(!stages.sink_schema_id().has_value());
  BOOST_CHECK_THROW(stages.process(full), std::logic_error);
  // A record that is not emitted needs no id.
  BOOST_TEST(static_cast<int>(stages.process(std::nullopt).outcome) == static_cast<int>(outcome::tombstone));
}

BOOST_AUTO_TEST_CASE(schema_id_zero_and_an_id_for_a_json_sink_are_refused) {
  stage_pipeline avro_stages(avro_sink_plan());
  BOOST_CHECK_THROW(avro_stages.sink_schema_id(0), std::invalid_argument);
  plan::plan json = avro_sink_plan();
  json.sink = {};
  stage_pipeline json_stages(json);
  BOOST_TEST(!json_stages.writes_avro());
  BOOST_CHECK_THROW(json_stages.sink_schema_id(42), std::logic_error);
}

BOOST_AUTO_TEST_CASE(the_output_buffer_is_reused_without_reallocating) {
  stage_pipeline stages(avro_sink_plan());
  stages.sink_schema_id(42);
  const std::string long_note = R"({"id": 1, "price": 1.00, "at": 1, "note": ")" + std::string(300, 'x') +
                                R"(", "ok": true, "ratio": 1})";
  const char* storage = stages.process(long_note).output.data();
  for (int i = 0; i < 3; ++i) {
    BOOST_TEST(static_cast<const void*>(stages.process(full).output.data()) ==
               static_cast<const void*>(storage));
    BOOST_TEST(static_cast<const void*>(stages.process(nulls).output.data()) ==
               static_cast<const void*>(storage));
  }
}

BOOST_AUTO_TEST_SUITE_END()
