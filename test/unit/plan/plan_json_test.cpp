// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/plan_json.hpp"

#include "test/support/routed_plan.hpp"

#include "case_files.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <limits>
#include <string>

using streamt::phase;
using namespace streamt::plan;
namespace data = boost::unit_test::data;

namespace {

// The plan of contract §7 with one more column of each kind: kept in sync with
// test/data/plans/valid_orders.json.
plan sample_plan() {
  plan p;
  p.identity.application_id = "orders-big";
  p.identity.source_topic = "orders";
  p.identity.sink_topic = "big-orders";
  p.schema = {"orders",
              "orders",
              {{"id", column_type::string, false},
               {"amount", column_type::bigint, false},
               {"note", column_type::string, true},
               {"vip", column_type::boolean, true}}};
  p.predicate = {{1, compare_op::ge, std::int64_t{50}}, {2, compare_op::is_null, {}}};
  p.projection = {{0, "id"}, {1, "amount"}, {3, "is_vip"}};
  return p;
}

void check_round_trip(const plan& p) {
  auto text = write_plan(p);
  auto loaded = load_plan(text);
  BOOST_TEST_REQUIRE(loaded.has_value(),
                     (loaded.has_error() ? streamt::format(loaded.error()) : std::string()));
  BOOST_TEST((*loaded == p));
  BOOST_TEST(write_plan(*loaded) == text);
  BOOST_TEST(digest(*loaded) == digest(p));
}

bool is_digest_shaped(const std::string& d) {
  if (d.size() != 71 || d.rfind("sha256:", 0) != 0) return false;
  for (char c : d.substr(7))
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(plan_json)

BOOST_DATA_TEST_CASE(each_plan_case_loads_or_fails_as_its_sidecar_says,
                     data::make(streamt::test::case_names("plans")), name) {
  BOOST_TEST_CONTEXT("test/data/plans/" << name << ".json") {
    auto text = streamt::test::read_file(streamt::test::data_dir("plans") / (name + ".json"));
    auto expected = streamt::test::read_expectation("plans", name);
    auto r = load_plan(text);
    if (expected) {
      BOOST_TEST_REQUIRE(r.has_error(), "the plan loaded but the sidecar expects an error");
      streamt::test::check_diagnostic(r.error(), *expected, phase::plan);
    } else {
      BOOST_TEST_REQUIRE(name.rfind("valid_", 0) == 0u,
                         "a case without an .error sidecar must be named valid_*");
      BOOST_TEST_REQUIRE(r.has_value(), (r.has_error() ? streamt::format(r.error()) : std::string()));
      check_round_trip(*r);
    }
  }
}

BOOST_AUTO_TEST_CASE(writes_the_sample_plan_in_canonical_form) {
  BOOST_TEST(
      canonical_json(sample_plan()) ==
      R"({"plan_version":1,"identity":{"application_id":"orders-big","source_topic":"orders",)"
      R"("sink_topic":"big-orders","operators":["decode","filter","project","encode"]},)"
      R"("schema":{"source":"orders","topic":"orders","columns":[)"
      R"({"name":"id","type":"STRING","nullable":false},{"name":"amount","type":"BIGINT","nullable":false},)"
      R"({"name":"note","type":"STRING","nullable":true},{"name":"vip","type":"BOOLEAN","nullable":true}]},)"
      R"("predicate":[{"column":"amount","op":">=","value":50},{"column":"note","op":"IS NULL"}],)"
      R"("projection":[{"column":"id","as":"id"},{"column":"amount","as":"amount"},)"
      R"({"column":"vip","as":"is_vip"}]})");
}

// Pinned once: if this changes, every plan already reviewed and pinned with
// `streamt run --expect-digest` stops matching. Change it only on purpose.
BOOST_AUTO_TEST_CASE(keeps_the_digest_of_the_sample_plan_stable) {
  BOOST_TEST(digest(sample_plan()) ==
             "sha256:e753e0742a8071a0e6bbabd5db7f2928882793e47cabbf5149dd6c7e68bdb799");
}

BOOST_AUTO_TEST_CASE(keeps_the_escaping_of_strings_stable) {
  plan p = sample_plan();
  p.predicate = {{0, compare_op::eq, std::string("q\"b\\s/\b\f\n\r\t\x01\x1f\x7f \xC3\xA9")}};
  auto c = canonical_json(p);
  BOOST_TEST(c.find(R"("value":"q\"b\\s/\b\f\n\r\t\u0001\u001f)"
                    "\x7f \xC3\xA9\"") != std::string::npos);
  BOOST_TEST(digest(p) == "sha256:1b1425379afa426d49a1e86608d8d79e32e8e271eee61e07edba2484b82daf52");
}

BOOST_AUTO_TEST_CASE(changes_the_digest_when_the_predicate_changes) {
  const auto base = digest(sample_plan());
  plan literal = sample_plan();
  literal.predicate[0].value = std::int64_t{51};
  plan op = sample_plan();
  op.predicate[0].op = compare_op::gt;
  plan removed = sample_plan();
  removed.predicate.pop_back();
  plan added = sample_plan();
  added.predicate.push_back({3, compare_op::eq, true});
  plan negated = sample_plan();
  negated.predicate[1].op = compare_op::is_not_null;
  for (const auto* p : {&literal, &op, &removed, &added, &negated}) {
    BOOST_TEST(is_digest_shaped(digest(*p)));
    BOOST_TEST(digest(*p) != base);
  }
  BOOST_TEST(digest(literal) != digest(op));
}

BOOST_AUTO_TEST_CASE(changes_the_digest_when_identity_or_projection_changes) {
  const auto base = digest(sample_plan());
  plan app = sample_plan();
  app.identity.application_id = "orders-big2";
  plan alias = sample_plan();
  alias.projection[2].output_name = "vip";
  BOOST_TEST(digest(app) != base);
  BOOST_TEST(digest(alias) != base);
}

BOOST_AUTO_TEST_CASE(ignoring_unknown_fields_is_written_into_the_plan_and_changes_its_digest) {
  const plan base = sample_plan();
  plan ignoring = sample_plan();
  ignoring.schema.unknown_fields = unknown_fields::ignore;
  // The default is not written, so plans compiled before the member existed
  // keep their digests (keeps_the_digest_of_the_sample_plan_stable).
  BOOST_TEST(canonical_json(base).find("unknown_fields") == std::string::npos);
  BOOST_TEST(canonical_json(ignoring).find(R"("unknown_fields":"ignore")") != std::string::npos);
  BOOST_TEST(digest(ignoring) != digest(base));
  check_round_trip(ignoring);
  auto loaded = load_plan(write_plan(ignoring));
  BOOST_TEST_REQUIRE(loaded.has_value());
  BOOST_TEST((loaded->schema.unknown_fields == unknown_fields::ignore));
}

BOOST_AUTO_TEST_CASE(a_dead_letter_policy_is_part_of_the_identity_and_the_digest) {
  plan dead = sample_plan();
  dead.identity.on_invalid = on_invalid::dead_letter;
  dead.identity.dead_letter_topic = "orders-dlq";
  BOOST_TEST(canonical_json(sample_plan()).find("on_invalid") == std::string::npos);
  BOOST_TEST(canonical_json(dead).find(R"("on_invalid":"dead-letter","dead_letter_topic":"orders-dlq")") !=
             std::string::npos);
  BOOST_TEST(digest(dead) != digest(sample_plan()));
  check_round_trip(dead);
}

BOOST_AUTO_TEST_CASE(the_plans_a_plan_supersedes_are_written_last_and_change_its_digest) {
  plan next = sample_plan();
  next.supersedes = {"sha256:" + std::string(64, 'b'), "sha256:" + std::string(64, 'a')};
  BOOST_TEST(canonical_json(sample_plan()).find("supersedes") == std::string::npos);
  const std::string text = canonical_json(next);
  BOOST_TEST(text.find(R"("supersedes":["sha256:bbbb)") != std::string::npos, text);
  BOOST_TEST(text.find(R"("projection")") < text.find(R"("supersedes")"));
  BOOST_TEST(digest(next) != digest(sample_plan()));
  check_round_trip(next);
}

BOOST_AUTO_TEST_CASE(a_dead_letter_policy_needs_a_topic_of_its_own) {
  // Edited by hand from a written plan; each is refused before the digest.
  auto refused = [](const std::string& from, const std::string& to) {
    plan dead = sample_plan();
    dead.identity.on_invalid = on_invalid::dead_letter;
    dead.identity.dead_letter_topic = "orders-dlq";
    std::string text = write_plan(dead);
    const auto at = text.find(from);
    BOOST_TEST_REQUIRE(at != std::string::npos, from);
    text.replace(at, from.size(), to);
    auto r = load_plan(text);
    BOOST_TEST_REQUIRE(!r.has_value(), to);
    return r.error();
  };
  BOOST_TEST(refused(R"("dead-letter")", R"("skip")").code == "invalid_on_invalid");
  BOOST_TEST(refused(R"("dead_letter_topic": "orders-dlq")", R"("dead_letter_topic": "big-orders")").code ==
             "dead_letter_topic_reused");
  BOOST_TEST(refused(R"("dead_letter_topic": "orders-dlq")", R"("dead_letter_topic": "orders")").code ==
             "dead_letter_topic_reused");
  BOOST_TEST(refused(R"("dead_letter_topic": "orders-dlq")", R"("dead_letter_topic": "a/b")").code ==
             "invalid_topic");
  BOOST_TEST(refused(R"("dead-letter")", R"("fail")").code == "unexpected_dead_letter_topic");
  const streamt::diagnostic missing = refused(R"(,
    "dead_letter_topic": "orders-dlq")",
                                              "");
  BOOST_TEST(missing.code == "missing_dead_letter_topic");
  BOOST_TEST(missing.path == "$.identity.dead_letter_topic");
}

BOOST_AUTO_TEST_CASE(round_trips_names_of_any_characters_exactly) {
  plan p;
  p.identity = {"app", "in", "out", operator_names()};
  p.schema = {"my source",
              "in",
              {{"user-id", column_type::string, false},
               {"order", column_type::bigint, false},
               {"@timestamp", column_type::bigint, true},
               {"say\"hi\"\n", column_type::string, true},
               {"Gr\xC3\xBC\xC3\x9F"
                "e",
                column_type::string, true}}};
  p.predicate = {{1, compare_op::ge, std::int64_t{3}}};
  p.projection = {{0, "user_id"}, {1, "order"}, {2, "ts ms"}, {3, "say\"hi\"\n"}, {4, "SELECT"}};
  check_round_trip(p);
}

BOOST_AUTO_TEST_CASE(writes_the_plan_file_pretty_printed_with_its_digest) {
  plan p;
  p.identity = {"app", "in", "out", operator_names()};
  p.schema = {"s", "in", {{"a", column_type::bigint, true}}};
  p.projection = {{0, "b"}};
  const std::string expected = R"({
  "plan_version": 1,
  "identity": {
    "application_id": "app",
    "source_topic": "in",
    "sink_topic": "out",
    "operators": [
      "decode",
      "filter",
      "project",
      "encode"
    ]
  },
  "schema": {
    "source": "s",
    "topic": "in",
    "columns": [
      {
        "name": "a",
        "type": "BIGINT",
        "nullable": true
      }
    ]
  },
  "predicate": [],
  "projection": [
    {
      "column": "a",
      "as": "b"
    }
  ],
  "digest": ")" + digest(p) + "\"\n}\n";
  BOOST_TEST(write_plan(p) == expected);
}

BOOST_AUTO_TEST_CASE(round_trips_the_sample_plan) { check_round_trip(sample_plan()); }

BOOST_AUTO_TEST_CASE(round_trips_the_extreme_bigint_literals) {
  for (std::int64_t v : {std::numeric_limits<std::int64_t>::min(), std::int64_t{-1}, std::int64_t{0},
                         std::numeric_limits<std::int64_t>::max()}) {
    BOOST_TEST_CONTEXT(v) {
      plan p = sample_plan();
      p.predicate = {{1, compare_op::ne, v}};
      check_round_trip(p);
      BOOST_TEST(canonical_json(p).find("\"value\":" + std::to_string(v) + "}") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(round_trips_strings_with_quotes_backslashes_unicode_and_control_characters) {
  std::string every_control;
  for (int c = 1; c < 0x20; ++c) every_control += static_cast<char>(c);
  every_control += '\x7f';
  const std::string strings[] = {
      "",
      "it's \"quoted\"",
      "back\\slash \\\\ \\u0041 \\n",
      "caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80",
      every_control,
      std::string("nul\0inside", 10),
      "/ slash </script>",
  };
  for (const auto& s : strings) {
    BOOST_TEST_CONTEXT(s.size()) {
      plan p = sample_plan();
      p.predicate = {{0, compare_op::eq, s}, {2, compare_op::ne, s}};
      check_round_trip(p);
    }
  }
}

BOOST_AUTO_TEST_CASE(round_trips_every_operator) {
  plan p = sample_plan();
  p.predicate = {{1, compare_op::eq, std::int64_t{1}},
                 {1, compare_op::ne, std::int64_t{2}},
                 {1, compare_op::lt, std::int64_t{3}},
                 {1, compare_op::le, std::int64_t{4}},
                 {1, compare_op::gt, std::int64_t{5}},
                 {1, compare_op::ge, std::int64_t{6}},
                 {2, compare_op::is_null, {}},
                 {3, compare_op::is_not_null, {}},
                 {3, compare_op::eq, false},
                 {3, compare_op::ne, true},
                 {0, compare_op::ne, std::string("x")},
                 {0, compare_op::eq, std::string("y")}};
  check_round_trip(p);
}

BOOST_AUTO_TEST_CASE(round_trips_a_plan_without_predicate_and_with_reordered_projection) {
  plan p = sample_plan();
  p.predicate.clear();
  p.projection = {{3, "vip"}, {0, "key"}, {0, "id"}};
  check_round_trip(p);
}

BOOST_AUTO_TEST_CASE(loads_the_sample_plan_file) {
  auto r = load_plan(streamt::test::read_file(streamt::test::data_dir("plans") / "valid_orders.json"));
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST((*r == sample_plan()));
  BOOST_TEST(r->identity.operators == operator_names());
}

BOOST_AUTO_TEST_CASE(writes_exactly_the_sample_plan_file) {
  BOOST_TEST(write_plan(sample_plan()) ==
             streamt::test::read_file(streamt::test::data_dir("plans") / "valid_orders.json"));
}

BOOST_AUTO_TEST_CASE(rejects_a_plan_whose_version_it_does_not_run_before_reading_the_rest) {
  plan p = sample_plan();
  p.version = 3;
  auto r = load_plan(write_plan(p));
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == "unsupported_version");
  BOOST_TEST(
      r.error().message.find("plan_version 3 is not supported; this engine runs plan_version 1 to 2") !=
      std::string::npos);
}

namespace {

// A Debezium-shaped plan: every version 2 type, nested two levels.
plan nested_plan() {
  plan p;
  p.identity.application_id = "payments-cdc";
  p.identity.source_topic = "payments";
  p.identity.sink_topic = "big-payments";
  column amount{"amount", column_type::decimal, false, 10, 2};
  column after{"after", column_type::row, true};
  after.fields = {{"id", column_type::bigint, false},
                  amount,
                  {"score", column_type::double_, true},
                  {"paid_at", column_type::timestamp, false},
                  {"tags", column_type::json, true}};
  column source{"source", column_type::row, false};
  source.fields = {{"db", column_type::string, false}};
  source.unknown_fields = unknown_fields::ignore;
  p.schema.source = "payments";
  p.schema.topic = "payments";
  p.schema.columns = {{"op", column_type::string, false}, after, source};
  p.schema.tombstones = tombstones::forward;
  // Nodes: op 0, after 1, after.id 2, after.amount 3, after.score 4,
  // after.paid_at 5, after.tags 6, source 7, source.db 8.
  p.predicate = {{0, compare_op::eq, std::string("c")},
                 {3, compare_op::ge, decimal_value{1250}},
                 {4, compare_op::lt, 0.5},
                 {5, compare_op::ge, timestamp_value{1764928800000}},
                 {6, compare_op::is_not_null, {}}};
  p.projection = {{2, "id"}, {3, "amount"}, {7, "source"}, {6, "tags"}};
  p.version = required_version(p);
  return p;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_plan_with_nested_rows_and_every_new_type_is_version_2_and_round_trips) {
  const plan p = nested_plan();
  BOOST_TEST(p.version == 2);
  check_round_trip(p);
  const std::string text = write_plan(p);
  // Nested columns are named by their path; exact values are strings.
  BOOST_TEST(text.find("\"column\": [\n        \"after\",\n        \"amount\"\n      ]") != std::string::npos,
             text);
  BOOST_TEST(text.find(R"("value": "12.50")") != std::string::npos);
  BOOST_TEST(text.find(R"("value": "2025-12-05T10:00:00.000Z")") != std::string::npos);
  BOOST_TEST(text.find(R"x("type": "DECIMAL(10,2)")x") != std::string::npos);
  BOOST_TEST(text.find(R"("tombstones": "forward")") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_plan_using_only_version_1_things_stays_version_1) {
  plan p = sample_plan();
  BOOST_TEST(required_version(p) == 1);
  BOOST_TEST(version_2_reason(p).empty());
}

BOOST_AUTO_TEST_CASE(a_version_1_plan_holding_a_version_2_type_is_refused_with_the_reason) {
  plan p = nested_plan();
  p.version = 1;
  auto r = load_plan(write_plan(p));
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == "needs_newer_version");
  BOOST_TEST(r.error().path == "$.plan_version");
  BOOST_TEST(r.error().message.find("column after is ROW") != std::string::npos, r.error().message);
}

BOOST_AUTO_TEST_CASE(a_version_2_plan_that_uses_nothing_of_version_2_is_refused) {
  plan p = sample_plan();
  p.version = 2;
  auto r = load_plan(write_plan(p));
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == "needless_version");
}

BOOST_AUTO_TEST_CASE(a_decimal_literal_with_more_fraction_digits_than_its_column_is_refused_at_its_path) {
  plan p = nested_plan();
  std::string text = write_plan(p);
  const std::string from = R"("value": "12.50")";
  text.replace(text.find(from), from.size(), R"("value": "12.505")");
  auto r = load_plan(text);
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == "literal_out_of_range");
  BOOST_TEST(r.error().path == "$.predicate[1].value");
  BOOST_TEST(r.error().message.find("has 3 fraction digits, DECIMAL(10,2) allows 2") != std::string::npos,
             r.error().message);
}

BOOST_AUTO_TEST_CASE(rejects_a_plan_built_with_a_column_index_out_of_range) {
  plan p = sample_plan();
  p.predicate[0].column = 17;
  auto r = load_plan(write_plan(p));
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == "unknown_column");
  BOOST_TEST(r.error().path == "$.predicate[0].column");
}

BOOST_AUTO_TEST_CASE(reports_a_digest_mismatch_with_both_digests_and_what_to_do) {
  plan p = sample_plan();
  std::string text = write_plan(p);
  auto pos = text.find("\"value\": 50");
  BOOST_TEST_REQUIRE(pos != std::string::npos);
  text.replace(pos, 11, "\"value\": 49");
  auto r = load_plan(text);
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == "digest_mismatch");
  BOOST_TEST(r.error().path == "$.digest");
  BOOST_TEST(r.error().message.find(digest(p)) != std::string::npos);
  plan edited = p;
  edited.predicate[0].value = std::int64_t{49};
  BOOST_TEST(r.error().message.find(digest(edited)) != std::string::npos);
  BOOST_TEST(streamt::format(r.error()).rfind("$.digest: ", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(accepts_only_valid_application_ids) {
  BOOST_TEST(is_valid_application_id("orders-big.v2_A"));
  BOOST_TEST(is_valid_application_id(std::string(200, 'a')));
  BOOST_TEST(!is_valid_application_id(std::string(201, 'a')));
  BOOST_TEST(!is_valid_application_id(""));
  BOOST_TEST(!is_valid_application_id("a b"));
  BOOST_TEST(!is_valid_application_id("a/b"));
  BOOST_TEST(!is_valid_application_id("a:b"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(routed_plans)

namespace {

// Two routes on the sample plan's schema, one keyed by a BIGINT column.
plan routed_plan() {
  plan p = streamt::test::routed(
      sample_plan(), {route{"big", {{1, compare_op::ge, std::int64_t{100}}}, {{0, "id"}, {1, "amount"}}, 1},
                      route{"small", {{1, compare_op::lt, std::int64_t{100}}}, {{0, "id"}}, std::nullopt}});
  p.key_format = key_format::long_;
  p.unrouted_topic = "unrouted";
  return p;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_routed_plan_round_trips_through_its_json) { check_round_trip(routed_plan()); }

BOOST_AUTO_TEST_CASE(a_routed_plan_names_its_sinks_in_the_identity_and_its_routes_at_the_top) {
  const std::string c = canonical_json(routed_plan());
  BOOST_TEST(c.find(R"("sink_topics":["big","small"])") != std::string::npos, c);
  BOOST_TEST(c.find(R"("sink_topic":"big")") != std::string::npos, c);
  BOOST_TEST(c.find(R"("partition_by":"amount")") != std::string::npos, c);
  BOOST_TEST(c.find(R"("unrouted_topic":"unrouted","key_format":"long")") != std::string::npos, c);
  // Neither the single SELECT's members nor its identity.sink_topic.
  BOOST_TEST(c.find(R"(,"predicate":[{"column":"amount","op":">=","value":50})") == std::string::npos, c);
  BOOST_TEST(c.find(R"("identity":{"application_id":"orders-big","source_topic":"orders","sink_topic")") ==
             std::string::npos);
}

// Pinned like the sample plan's: a routed plan reviewed and pinned with
// --expect-digest must keep matching.
BOOST_AUTO_TEST_CASE(keeps_the_digest_of_a_routed_plan_stable) {
  BOOST_TEST(digest(routed_plan()) ==
             "sha256:1f1e97f9ed06afe6ef6b70e794c11fd752236ff1ab88159fed687db09fbc04d1");
}

BOOST_AUTO_TEST_CASE(the_key_format_is_written_only_with_a_bigint_partition_by_column) {
  plan p = routed_plan();
  p.routes[0].partition_by = 0;  // id, a STRING
  p.key_format = key_format::string;
  BOOST_TEST(canonical_json(p).find("key_format") == std::string::npos);
  check_round_trip(p);
}

BOOST_AUTO_TEST_CASE(changes_the_digest_and_the_output_shape_when_a_route_changes_its_sink_or_key) {
  const plan base = routed_plan();
  plan other_sink = base;
  other_sink.routes[1].sink_topic = "tiny";
  BOOST_TEST(digest(other_sink) != digest(base));
  BOOST_TEST(output_shape(other_sink) != output_shape(base));
  plan string_key = base;
  string_key.key_format = key_format::string;
  BOOST_TEST(digest(string_key) != digest(base));
  BOOST_TEST(output_shape(string_key) != output_shape(base));
  plan other_predicate = base;
  other_predicate.routes[1].predicate[0].value = std::int64_t{50};
  BOOST_TEST(digest(other_predicate) != digest(base));
  BOOST_TEST(output_shape(other_predicate) == output_shape(base));
}

BOOST_AUTO_TEST_SUITE_END()
