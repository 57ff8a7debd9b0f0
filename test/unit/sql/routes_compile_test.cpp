// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// INSERT INTO statements compiled to a routed plan (issue 39): what the plan
// holds, and every refusal that is about the options given for the query.

#include "plan/sql/compile.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace streamt;
using namespace streamt::plan;

namespace {

schema tenants_schema() {
  schema s;
  s.source = "events";
  s.topic = "events";
  s.columns = {
      {"id", column_type::string, false},
      {"tenant", column_type::string, true},
      {"amount", column_type::bigint, false},
      {"price", column_type::double_, true},
  };
  return s;
}

compile_options routed_options() { return {"router", ""}; }

constexpr std::string_view two_routes =
    "INSERT INTO acme SELECT id, amount FROM events WHERE tenant = 'acme' PARTITION BY amount;\n"
    "INSERT INTO others SELECT id FROM events WHERE tenant <> 'acme';";

diagnostic refused(std::string_view sql, const compile_options& o, const schema& s = tenants_schema()) {
  auto r = compile(sql, s, o);
  BOOST_TEST_REQUIRE(!r.has_value(), "accepted: " << sql);
  return r.error();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(routes)

BOOST_AUTO_TEST_CASE(two_insert_statements_compile_to_a_version_2_plan_of_two_routes) {
  auto p = compile(two_routes, tenants_schema(), routed_options());
  BOOST_TEST_REQUIRE(p.has_value(), (p ? "" : format(p.error())));
  BOOST_TEST(p->version == 2);
  BOOST_TEST(is_routed(*p));
  BOOST_TEST_REQUIRE(p->routes.size() == 2u);
  BOOST_TEST(p->routes[0].sink_topic == "acme");
  BOOST_TEST(p->routes[0].projection.size() == 2u);
  BOOST_TEST(p->routes[0].predicate.size() == 1u);
  BOOST_TEST((p->routes[0].partition_by == std::optional<std::size_t>(2)));
  BOOST_TEST(p->routes[1].sink_topic == "others");
  BOOST_TEST(!p->routes[1].partition_by.has_value());
  // A routed plan's own route lives in routes, nowhere else.
  BOOST_TEST(p->identity.sink_topic.empty());
  BOOST_TEST(p->predicate.empty());
  BOOST_TEST(p->projection.empty());
  BOOST_TEST(p->unrouted_topic.empty());
  BOOST_TEST((p->key_format == key_format::string));
  BOOST_TEST((sink_topics(*p) == std::vector<std::string>{"acme", "others"}));
}

BOOST_AUTO_TEST_CASE(to_sql_writes_the_statements_joined_by_a_semicolon_and_a_line_break) {
  auto p = compile(two_routes, tenants_schema(), routed_options());
  BOOST_TEST_REQUIRE(p.has_value());
  BOOST_TEST(to_sql(*p) ==
             "INSERT INTO acme SELECT id, amount FROM events WHERE tenant = 'acme' PARTITION BY amount;\n"
             "INSERT INTO others SELECT id FROM events WHERE tenant <> 'acme'");
}

BOOST_AUTO_TEST_CASE(key_format_long_is_kept_with_a_bigint_partition_by_column) {
  compile_options o = routed_options();
  o.key_format = key_format::long_;
  auto p = compile(two_routes, tenants_schema(), o);
  BOOST_TEST_REQUIRE(p.has_value(), (p ? "" : format(p.error())));
  BOOST_TEST((p->key_format == key_format::long_));
}

BOOST_AUTO_TEST_CASE(key_format_without_a_bigint_partition_by_column_is_an_option_error) {
  compile_options o = routed_options();
  o.key_format = key_format::string;
  const diagnostic d = refused("INSERT INTO a SELECT id FROM events PARTITION BY id", o);
  BOOST_TEST(d.code == "needless_key_format");
  BOOST_TEST(is_option_error(d.code));
  BOOST_TEST(d.message.find("leave --key-format out") != std::string::npos, d.message);
}

BOOST_AUTO_TEST_CASE(the_unrouted_topic_is_kept_and_an_explicit_drop_leaves_it_empty) {
  compile_options o = routed_options();
  o.unrouted_topic = "unrouted";
  auto p = compile(two_routes, tenants_schema(), o);
  BOOST_TEST_REQUIRE(p.has_value());
  BOOST_TEST(p->unrouted_topic == "unrouted");
  o.unrouted_topic = "";
  auto dropped = compile(two_routes, tenants_schema(), o);
  BOOST_TEST_REQUIRE(dropped.has_value());
  BOOST_TEST(dropped->unrouted_topic.empty());
}

BOOST_AUTO_TEST_CASE(a_sink_topic_option_with_insert_statements_is_an_option_error_at_the_sink) {
  compile_options o = routed_options();
  o.sink_topic = "out";
  const diagnostic d = refused(two_routes, o);
  BOOST_TEST(d.code == "sink_topic_with_routes");
  BOOST_TEST(is_option_error(d.code));
  BOOST_TEST(d.line == 1u);
  BOOST_TEST(d.column == 13u);
}

BOOST_AUTO_TEST_CASE(a_select_without_a_sink_topic_is_an_option_error) {
  const diagnostic d = refused("SELECT id FROM events", routed_options());
  BOOST_TEST(d.code == "missing_sink_topic");
  BOOST_TEST(is_option_error(d.code));
  BOOST_TEST(d.message.find("give --sink-topic") != std::string::npos, d.message);
}

BOOST_AUTO_TEST_CASE(unrouted_choices_and_key_format_for_a_single_select_are_option_errors) {
  compile_options o{"app", "out"};
  o.unrouted_topic = "";
  BOOST_TEST(refused("SELECT id FROM events", o).code == "unrouted_without_routes");
  o.unrouted_topic.reset();
  o.key_format = key_format::long_;
  BOOST_TEST(refused("SELECT id FROM events", o).code == "needless_key_format");
}

BOOST_AUTO_TEST_CASE(a_sink_equal_to_the_dead_letter_or_unrouted_topic_is_refused_at_the_sink) {
  compile_options o = routed_options();
  o.on_invalid = on_invalid::dead_letter;
  o.dead_letter_topic = "others";
  const diagnostic dlq = refused(two_routes, o);
  BOOST_TEST(dlq.code == "sink_is_dead_letter_topic");
  BOOST_TEST(!is_option_error(dlq.code));
  BOOST_TEST(dlq.line == 2u);
  BOOST_TEST(dlq.column == 13u);
  compile_options u = routed_options();
  u.unrouted_topic = "acme";
  BOOST_TEST(refused(two_routes, u).code == "sink_is_unrouted_topic");
}

BOOST_AUTO_TEST_CASE(an_unrouted_topic_equal_to_the_source_or_dead_letter_topic_is_refused) {
  compile_options o = routed_options();
  o.unrouted_topic = "events";
  BOOST_TEST(refused(two_routes, o).code == "unrouted_topic_reused");
  o.on_invalid = on_invalid::dead_letter;
  o.dead_letter_topic = "bad";
  o.unrouted_topic = "bad";
  const diagnostic d = refused(two_routes, o);
  BOOST_TEST(d.code == "unrouted_topic_reused");
  BOOST_TEST(d.message.find("dead-letter") != std::string::npos, d.message);
}

BOOST_AUTO_TEST_CASE(routes_on_a_changelog_or_tombstone_forwarding_source_are_refused_with_advice) {
  schema upsert = tenants_schema();
  upsert.changelog = changelog::upsert;
  const diagnostic c = refused(two_routes, routed_options(), upsert);
  BOOST_TEST(c.code == "routes_with_changelog");
  BOOST_TEST(c.message.find("compile one plan per sink") != std::string::npos, c.message);
  schema forward = tenants_schema();
  forward.tombstones = tombstones::forward;
  const diagnostic f = refused(two_routes, routed_options(), forward);
  BOOST_TEST(f.code == "routes_with_tombstones");
  BOOST_TEST(f.message.find("\"tombstones\": \"drop\"") != std::string::npos, f.message);
}

BOOST_AUTO_TEST_CASE(routes_with_an_avro_sink_are_refused_saying_to_write_json) {
  compile_options o = routed_options();
  o.sink_format = sink_format::avro;
  const diagnostic d = refused(two_routes, o);
  BOOST_TEST(d.code == "routes_with_avro_sink");
  BOOST_TEST(d.message.find("drop --sink-format avro") != std::string::npos, d.message);
}

BOOST_AUTO_TEST_CASE(more_insert_statements_than_max_routes_are_refused_at_the_first_too_many) {
  std::string sql;
  for (std::size_t i = 0; i <= max_routes; ++i)
    sql += "INSERT INTO s" + std::to_string(i) + " SELECT id FROM events;\n";
  const diagnostic d = refused(sql, routed_options());
  BOOST_TEST(d.code == "too_many_routes");
  BOOST_TEST(d.line == max_routes + 1);
  BOOST_TEST(d.column == 1u);
  // Exactly max_routes compile.
  std::string most;
  for (std::size_t i = 0; i < max_routes; ++i)
    most += "INSERT INTO s" + std::to_string(i) + " SELECT id FROM events;";
  auto p = compile(most, tenants_schema(), routed_options());
  BOOST_TEST_REQUIRE(p.has_value());
  BOOST_TEST(p->routes.size() == max_routes);
}

BOOST_AUTO_TEST_CASE(a_partition_by_column_of_another_type_names_its_type_and_what_is_allowed) {
  const diagnostic d = refused("INSERT INTO a SELECT id FROM events PARTITION BY price", routed_options());
  BOOST_TEST(d.code == "unsupported_key_type");
  BOOST_TEST(d.message.find("is DOUBLE") != std::string::npos, d.message);
  BOOST_TEST(d.message.find("STRING") != std::string::npos, d.message);
  BOOST_TEST(d.message.find("BIGINT") != std::string::npos, d.message);
}

BOOST_AUTO_TEST_SUITE_END()
