// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/replay.hpp"
#include "plan/avro_sink.hpp"
#include "test/support/orders_plan.hpp"

#define BOOST_TEST_MODULE engine
#include <boost/test/unit_test.hpp>

#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {

using namespace streamt;

// The unit tests' orders plan (amount >= 50) with a nullable note the
// projection leaves out.
plan::plan orders_plan() {
  plan::plan p = test::orders_plan(50);
  p.schema.columns.push_back({"note", plan::column_type::string, true});
  return p;
}

result<void> parse_one(std::string_view line, engine::parsed_envelope& out) {
  std::map<std::int32_t, std::int64_t> next;
  return engine::parse_envelope(line, 1, "orders", next, out);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(envelopes)

BOOST_AUTO_TEST_CASE(payload_base64_gives_the_value_s_bytes_strictly) {
  engine::parsed_envelope e;
  // 00 00 00 00 07 02 61 F0 01: a registry-framed value, binary.
  BOOST_TEST_REQUIRE(parse_one(R"({"payload_base64":"AAAAAAcCYfAB"})", e).has_value());
  BOOST_TEST(e.view.value.value() == std::string_view("\0\0\0\0\x07\x02"
                                                      "a\xF0\x01",
                                                      9));
  BOOST_TEST_REQUIRE(parse_one(R"({"payload_base64":"YQ=="})", e).has_value());
  BOOST_TEST(e.view.value.value() == "a");
  BOOST_TEST_REQUIRE(parse_one(R"({"payload_base64":null})", e).has_value());
  BOOST_TEST(!e.view.value.has_value());
  for (const auto& [line, why] : std::map<std::string, std::string>{
           {R"({"payload_base64":"YQ"})", "not a multiple of 4"},
           {R"({"payload_base64":"YR=="})", "character 2: the bits after the last byte are not zero"},
           {R"({"payload_base64":"a-_b"})", "character 2: '-' is of the URL-safe alphabet"},
           {R"({"payload_base64":"YW J"})", "character 3: a character outside the base64 alphabet"},
           {R"({"payload":"a","payload_base64":"YQ=="})", "an envelope gives its value once"},
       }) {
    auto r = parse_one(line, e);
    BOOST_TEST_REQUIRE(!r.has_value(), line);
    BOOST_TEST(r.error().code == "malformed_envelope");
    BOOST_TEST(r.error().message.find(why) != std::string::npos, r.error().message);
  }
}

BOOST_AUTO_TEST_CASE(reads_every_member_kcat_writes) {
  engine::parsed_envelope e;
  auto r = parse_one(
      R"({"topic":"orders","partition":3,"offset":42,"tstype":"create","ts":1700000000000,"broker":1,)"
      R"("headers":["trace","abc","empty",null],"key":"k1","payload":"{\"id\":\"a\"}"})",
      e);
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(e.view.topic == "orders");
  BOOST_TEST(e.view.partition == 3);
  BOOST_TEST(e.view.offset == 42);
  BOOST_TEST(e.view.timestamp.value() == 1700000000000);
  BOOST_TEST(e.view.key.value() == "k1");
  BOOST_TEST(e.view.value.value() == R"({"id":"a"})");
  BOOST_TEST_REQUIRE(e.view.headers.size() == 2u);
  BOOST_TEST(e.view.headers[0].name == "trace");
  BOOST_TEST(e.view.headers[0].value.value() == "abc");
  BOOST_TEST(!e.view.headers[1].value.has_value());
}

BOOST_AUTO_TEST_CASE(null_payload_is_a_tombstone_and_missing_key_is_null) {
  engine::parsed_envelope e;
  BOOST_TEST_REQUIRE(parse_one(R"({"partition":0,"offset":1,"payload":null})", e).has_value());
  BOOST_TEST(!e.view.value.has_value());
  BOOST_TEST(!e.view.key.has_value());
}

BOOST_AUTO_TEST_CASE(headers_may_be_an_object_of_values_or_arrays) {
  engine::parsed_envelope e;
  BOOST_TEST_REQUIRE(parse_one(R"({"payload":"{}","headers":{"a":"1","b":["2","3"]}})", e).has_value());
  BOOST_TEST_REQUIRE(e.view.headers.size() == 3u);
  BOOST_TEST(e.view.headers[2].name == "b");
  BOOST_TEST(e.view.headers[2].value.value() == "3");
}

BOOST_AUTO_TEST_CASE(missing_partition_and_offset_count_up_per_partition) {
  std::map<std::int32_t, std::int64_t> next;
  engine::parsed_envelope e;
  BOOST_TEST_REQUIRE(engine::parse_envelope(R"({"payload":"{}"})", 1, "orders", next, e).has_value());
  BOOST_TEST(e.view.offset == 0);
  BOOST_TEST(e.view.topic == "orders");
  BOOST_TEST_REQUIRE(
      engine::parse_envelope(R"({"partition":1,"offset":7,"payload":"{}"})", 2, "orders", next, e)
          .has_value());
  BOOST_TEST_REQUIRE(
      engine::parse_envelope(R"({"partition":1,"payload":"{}"})", 3, "orders", next, e).has_value());
  BOOST_TEST(e.view.offset == 8);
  BOOST_TEST_REQUIRE(engine::parse_envelope(R"({"payload":"{}"})", 4, "orders", next, e).has_value());
  BOOST_TEST(e.view.partition == 0);
  BOOST_TEST(e.view.offset == 1);
}

BOOST_AUTO_TEST_CASE(binary_keys_pass_through_byte_for_byte) {
  engine::parsed_envelope e;
  // kcat writes non-UTF-8 key bytes raw.
  const std::string raw = std::string(R"({"key":")") + "\xff\xfe" + R"(","payload":"{}"})";
  BOOST_TEST_REQUIRE(parse_one(raw, e).has_value());
  BOOST_TEST(e.view.key.value() == std::string("\xff\xfe"));
}

BOOST_AUTO_TEST_CASE(rejects_malformed_envelopes_naming_the_line) {
  const char* bad[] = {
      R"(not json)",
      R"([1,2])",
      R"({"partition":0,"offset":0})",
      R"({"payload":5})",
      R"({"payload":"{}","key":7})",
      R"({"payload":"{}","partition":-1})",
      R"({"payload":"{}","offset":"3"})",
      R"({"payload":"{}","headers":["odd"]})",
      R"({"payload":"{}","surprise":true})",
      R"({"payload":"{}"} {"payload":"{}"})",
      R"({"payload":"{}","payload":null})",
      R"({"key":"a","payload":"{}","key":"b"})",
      R"({"topic":"payments","payload":"{}"})",
      R"({"payload":"{}","source":{"topic":"orders"}})",
      R"({"payload":"{}","source":"orders"})",
  };
  for (const char* line : bad) {
    std::map<std::int32_t, std::int64_t> next;
    engine::parsed_envelope e;
    auto r = engine::parse_envelope(line, 17, "orders", next, e);
    BOOST_TEST_INFO("envelope: " << line);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().code == "malformed_envelope");
    BOOST_TEST(r.error().message.find("input line 17") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(a_member_given_twice_is_refused_naming_it) {
  engine::parsed_envelope e;
  auto r = parse_one(R"({"payload":"{\"id\":\"a\"}","key":"k","payload":"{\"id\":\"b\"}"})", e);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().message.find("member \"payload\" appears twice") != std::string::npos,
             r.error().message);
  // Repeats inside a member's value are the value's own business.
  BOOST_TEST(parse_one(R"({"payload":"{}","headers":["h","1","h","2"]})", e).has_value());
}

BOOST_AUTO_TEST_CASE(a_partitions_offsets_must_increase_and_none_follows_the_largest) {
  std::map<std::int32_t, std::int64_t> last;
  engine::parsed_envelope e;
  BOOST_TEST_REQUIRE(
      engine::parse_envelope(R"({"offset":5,"payload":"{}"})", 1, "orders", last, e).has_value());
  auto back = engine::parse_envelope(R"({"offset":5,"payload":"{}"})", 2, "orders", last, e);
  BOOST_TEST_REQUIRE(!back.has_value());
  BOOST_TEST(back.error().message.find("\"offset\" 5 of partition 0 is not after the offset before it (5)") !=
                 std::string::npos,
             back.error().message);
  // Another partition has its own order.
  BOOST_TEST(engine::parse_envelope(R"({"partition":1,"offset":1,"payload":"{}"})", 3, "orders", last, e)
                 .has_value());
  BOOST_TEST_REQUIRE(
      engine::parse_envelope(R"({"offset":9223372036854775807,"payload":"{}"})", 4, "orders", last, e)
          .has_value());
  auto after = engine::parse_envelope(R"({"payload":"{}"})", 5, "orders", last, e);
  BOOST_TEST_REQUIRE(!after.has_value());
  BOOST_TEST(
      after.error().message.find("no offset follows 9223372036854775807 in partition 0") != std::string::npos,
      after.error().message);
}

BOOST_AUTO_TEST_CASE(a_record_of_another_topic_is_refused_naming_both_topics) {
  engine::parsed_envelope e;
  auto r = parse_one(R"({"topic":"big-orders","payload":"{}"})", e);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().message.find("\"topic\" is 'big-orders', not the plan's source topic 'orders'") !=
                 std::string::npos,
             r.error().message);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(replay_driver)

BOOST_AUTO_TEST_CASE(replays_output_is_the_input_of_a_plan_reading_its_sink) {
  std::istringstream in(R"({"partition":0,"offset":0,"key":"a","ts":5,"headers":["h","v"],)"
                        R"("payload":"{\"id\":\"a\",\"amount\":120,\"note\":null}"})"
                        "\n");
  std::ostringstream first;
  BOOST_TEST_REQUIRE(!engine::replay(orders_plan(), in, first).failure.has_value());
  // A second plan over big-orders (id STRING, amount BIGINT) takes the
  // first one's output lines as they are.
  plan::plan downstream = orders_plan();
  downstream.identity = {"orders-huge", "big-orders", "huge-orders"};
  downstream.schema.topic = "big-orders";
  downstream.schema.columns.pop_back();
  downstream.predicate = {{1, plan::compare_op::ge, std::int64_t{100}}};
  std::istringstream again(first.str());
  std::ostringstream second;
  engine::run_result r = engine::replay(downstream, again, second);
  BOOST_TEST_REQUIRE(!r.failure.has_value(), r.failure->message);
  BOOST_TEST(r.counts.emitted == 1u);
  BOOST_TEST(
      second.str() ==
      R"({"topic":"huge-orders","key":"a","payload":"{\"id\":\"a\",\"amount\":120}","ts":5,"headers":["h","v"],)"
      R"("source":{"topic":"big-orders","partition":0,"offset":0}})"
      "\n");
}

BOOST_AUTO_TEST_CASE(a_line_over_the_limit_is_refused_while_it_is_read) {
  // 16 MiB and one byte of a line that never ends: the reader stops at the
  // bound instead of holding the whole line (an endless one, /dev/zero,
  // grew to 1 GB before).
  std::string input = R"({"payload":"{\"id\":\"a\",\"amount\":120,\"note\":null}"})";
  input += "\n" + std::string(engine::max_envelope_line_bytes + 1, ' ');
  std::istringstream in(input);
  std::ostringstream out;
  engine::run_result r = engine::replay(orders_plan(), in, out);
  BOOST_TEST_REQUIRE(r.failure.has_value());
  BOOST_TEST(r.failure->message.find("input line 2: line longer than 16777216 bytes") != std::string::npos,
             r.failure->message);
  BOOST_TEST(r.counts.emitted == 1u);
  // A line of exactly the limit is read (and then judged as an envelope).
  std::istringstream exact(std::string(engine::max_envelope_line_bytes, 'x'));
  engine::run_result e = engine::replay(orders_plan(), exact, out);
  BOOST_TEST_REQUIRE(e.failure.has_value());
  BOOST_TEST(e.failure->message.find("longer than") == std::string::npos, e.failure->message);
}

BOOST_AUTO_TEST_CASE(filters_projects_and_keeps_key_timestamp_and_headers) {
  std::istringstream in(
      R"({"partition":0,"offset":0,"key":"a","ts":5,"headers":["h","v"],"payload":"{\"id\":\"a\",\"amount\":120,\"note\":null}"})"
      "\n"
      R"({"partition":0,"offset":1,"key":"b","payload":"{\"id\":\"b\",\"amount\":20,\"note\":\"x\"}"})"
      "\n"
      R"({"partition":0,"offset":2,"key":null,"payload":null})"
      "\n");
  std::ostringstream out;
  engine::run_result r = engine::replay(orders_plan(), in, out);
  BOOST_TEST(!r.invalid.has_value());
  BOOST_TEST(!r.failure.has_value());
  BOOST_TEST(r.counts.consumed == 3u);
  BOOST_TEST(r.counts.emitted == 1u);
  BOOST_TEST(r.counts.filtered == 1u);
  BOOST_TEST(r.counts.tombstones == 1u);
  BOOST_TEST(
      out.str() ==
      R"({"topic":"big-orders","key":"a","payload":"{\"id\":\"a\",\"amount\":120}","ts":5,"headers":["h","v"],)"
      R"("source":{"topic":"orders","partition":0,"offset":0}})"
      "\n");
}

BOOST_AUTO_TEST_CASE(stops_at_the_first_invalid_record_with_earlier_outputs_written) {
  std::istringstream in(
      R"({"offset":9,"key":"g","payload":"{\"id\":\"g\",\"amount\":130,\"note\":null}"})"
      "\n"
      R"({"offset":10,"key":"h","payload":"{\"id\":\"h\",\"amount\":\"120\",\"note\":null}"})"
      "\n"
      R"({"offset":11,"key":"i","payload":"{\"id\":\"i\",\"amount\":140,\"note\":null}"})"
      "\n");
  std::ostringstream out;
  engine::run_result r = engine::replay(orders_plan(), in, out);
  BOOST_TEST_REQUIRE(r.invalid.has_value());
  BOOST_TEST(r.invalid->offset == 10);
  BOOST_TEST(r.invalid->partition == 0);
  BOOST_TEST(r.invalid->describe().rfind("orders/0@10: ", 0) == 0u);
  BOOST_TEST(r.counts.emitted == 1u);
  BOOST_TEST(out.str().find("\"g\"") != std::string::npos);
  BOOST_TEST(out.str().find("\"i\"") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_empty_value_is_invalid_not_a_tombstone) {
  std::istringstream in(R"({"offset":4,"payload":""})");
  std::ostringstream out;
  engine::run_result r = engine::replay(orders_plan(), in, out);
  BOOST_TEST_REQUIRE(r.invalid.has_value());
  BOOST_TEST(r.invalid->offset == 4);
  BOOST_TEST(r.counts.tombstones == 0u);
}

BOOST_AUTO_TEST_CASE(a_broken_envelope_after_good_records_keeps_their_outputs) {
  std::istringstream in(R"({"key":"a","payload":"{\"id\":\"a\",\"amount\":120,\"note\":null}"})"
                        "\n"
                        R"({"key":"b",)"
                        "\n");
  std::ostringstream out;
  engine::run_result r = engine::replay(orders_plan(), in, out);
  BOOST_TEST_REQUIRE(r.failure.has_value());
  BOOST_TEST(r.failure->message.find("input line 2") != std::string::npos);
  BOOST_TEST(out.str().find("\"a\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(batches_larger_than_one_read_keep_every_record_in_order) {
  std::string input;
  for (int i = 0; i < 1500; ++i)
    input += R"({"offset":)" + std::to_string(i) + R"(,"payload":"{\"id\":\"x)" + std::to_string(i) +
             R"(\",\"amount\":)" + std::to_string(i) + R"(,\"note\":null}"})" + "\n";
  std::istringstream in(input);
  std::ostringstream out;
  engine::run_result r = engine::replay(orders_plan(), in, out);
  BOOST_TEST(r.counts.consumed == 1500u);
  BOOST_TEST(r.counts.emitted == 1450u);
  // Output order equals input order: offsets strictly increase line by line.
  std::istringstream lines(out.str());
  std::string line;
  long last = -1;
  std::size_t n = 0;
  while (std::getline(lines, line)) {
    auto at = line.rfind("\"offset\":");
    long off = std::stol(line.substr(at + 9));
    BOOST_TEST(off > last);
    last = off;
    ++n;
  }
  BOOST_TEST(n == 1450u);
}

BOOST_AUTO_TEST_CASE(a_plan_with_an_avro_sink_is_refused_before_any_record_is_read_without_its_registry) {
  plan::plan p = orders_plan();
  p.sink.format = plan::sink_format::avro;
  p.sink.avro = *plan::avro::pin_sink_schema(p);
  std::istringstream in(R"({"topic":"orders","partition":0,"offset":0,"key":null,"payload":"{}"})");
  std::ostringstream out;
  BOOST_CHECK_THROW(engine::replay(p, in, out), std::invalid_argument);
  engine::replay_registry no_id;  // a registry, but no id for the sink schema
  BOOST_CHECK_THROW(engine::replay(p, in, out, &no_id), std::invalid_argument);
  BOOST_TEST(out.str().empty());
  BOOST_TEST(in.tellg() == 0);
}

BOOST_AUTO_TEST_CASE(an_avro_sink_writes_each_output_framed_with_its_id_as_payload_base64) {
  plan::plan p = test::orders_plan(50);
  p.sink.format = plan::sink_format::avro;
  p.sink.avro = *plan::avro::pin_sink_schema(p);
  engine::replay_registry registry;
  registry.sink_schema_id = 7;
  // The second envelope's value is the first's in base64: the same record.
  std::istringstream in(
      "{\"key\":\"k\",\"payload\":\"{\\\"id\\\":\\\"a\\\",\\\"amount\\\":120}\"}\n"
      "{\"key\":\"k\",\"payload_base64\":\"eyJpZCI6ImEiLCJhbW91bnQiOjEyMH0=\"}\n");
  std::ostringstream out;
  engine::run_result r = engine::replay(p, in, out, &registry);
  BOOST_TEST(!r.failure.has_value());
  BOOST_TEST(!r.invalid.has_value(), (r.invalid ? r.invalid->describe() : ""));
  BOOST_TEST(r.counts.emitted == 2u);
  // 0, the id 7 in 4 bytes, then the body: "a" (length 1 zigzag: 02, 61),
  // 120 (zigzag 240: F0 01).
  const std::string framed = R"("payload_base64":"AAAAAAcCYfAB")";
  const std::string text = out.str();
  BOOST_TEST(text.find(framed) != std::string::npos, text);
  BOOST_TEST(text.find(framed, text.find('\n')) != std::string::npos, text);
  BOOST_TEST(text.find("\"payload\":") == std::string::npos, text);
}

BOOST_AUTO_TEST_SUITE_END()
