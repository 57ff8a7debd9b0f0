// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The golden Avro sink cases of test/data/avro_sink/: each `<name>.json`
// holds a schema, a query, records and the values a reader must get back;
// its `.expected` sidecar the pinned sink schema (its canonical form,
// fingerprint and subject) and each output's bytes in hex. This test checks
// that our compiler pins that schema and our stage pipeline writes exactly
// those bytes; check_with_fastavro.py (ctest avro_sink_outputs_agree_with_fastavro)
// checks that fastavro, an independent implementation, reads those bytes by
// that schema as the values of the case. On a difference this test prints
// the sidecar our code would write.

#include "operators/stage_pipeline.hpp"
#include "plan/schema_file.hpp"
#include "plan/sql/compile.hpp"
#include "test/unit/plan/case_files.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <string>

namespace plan = streamt::plan;
namespace data = boost::unit_test::data;
using streamt::operators::outcome;
using streamt::operators::stage_pipeline;

namespace {

std::string hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += digits[b >> 4];
    out += digits[b & 0xF];
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(avro_sink_golden)

BOOST_DATA_TEST_CASE(each_case_pins_its_schema_and_writes_the_sidecars_bytes,
                     data::make(streamt::test::case_names("avro_sink")), name) {
  BOOST_TEST_CONTEXT("test/data/avro_sink/" << name << ".json") {
    const auto c =
        boost::json::parse(streamt::test::read_file(streamt::test::data_dir("avro_sink") / (name + ".json")))
            .as_object();
    auto schema = plan::schema_from_json(c.at("schema"), "$.schema", streamt::phase::schema);
    BOOST_TEST_REQUIRE(schema.has_value(), (schema ? std::string() : streamt::format(schema.error())));
    plan::compile_options options{"golden", std::string(c.at("sink_topic").as_string())};
    options.sink_format = plan::sink_format::avro;
    auto p = plan::compile(std::string(c.at("sql").as_string()), *schema, options);
    BOOST_TEST_REQUIRE(p.has_value(), (p ? std::string() : streamt::format(p.error())));
    BOOST_TEST_REQUIRE(p->sink.avro.has_value());

    stage_pipeline stages(*p);
    const auto id = static_cast<std::uint32_t>(c.at("schema_id").as_int64());
    stages.sink_schema_id(id);
    std::string actual =
        "schema: " + p->sink.avro->schema + "\ncanonical_form: " + p->sink.avro->canonical_form +
        "\nfingerprint: " + p->sink.avro->fingerprint + "\nsubject: " + p->sink.avro->subject + "\n";
    const auto& records = c.at("records").as_array();
    for (std::size_t i = 0; i < records.size(); ++i) {
      const std::string value(records[i].as_string());
      const auto s = stages.process(value);
      BOOST_TEST_REQUIRE(static_cast<int>(s.outcome) == static_cast<int>(outcome::emitted),
                         "record " << i << ": " << (s.error ? s.error->message : std::string()));
      actual += "output " + std::to_string(i) + ": " + hex(s.output) + "\n";
    }
    BOOST_TEST(records.size() == c.at("values").as_array().size());

    const auto expected = streamt::test::read_key_values("avro_sink", name, ".expected");
    std::map<std::string, std::string> got;
    std::istringstream lines(actual);
    for (std::string line; std::getline(lines, line);)
      if (auto colon = line.find(": "); colon != std::string::npos)
        got[line.substr(0, colon)] = line.substr(colon + 2);
    BOOST_TEST((got == expected), "the sidecar our code would write:\n" << actual);
  }
}

BOOST_AUTO_TEST_SUITE_END()
