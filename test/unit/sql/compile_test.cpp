// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/sql/compile.hpp"

#include "plan/plan_json.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <variant>

using namespace streamt;
using namespace streamt::plan;

namespace {

schema orders_schema() {
  schema s;
  s.source = "orders";
  s.topic = "orders-v1";
  s.columns = {
      {"id", column_type::string, false},
      {"amount", column_type::bigint, false},
      {"note", column_type::string, true},
      {"flag", column_type::boolean, true},
  };
  return s;
}

compile_options options() { return {"orders-big", "big-orders"}; }

plan::plan compile_ok(std::string_view sql) {
  auto r = compile(sql, orders_schema(), options());
  BOOST_TEST_REQUIRE(r.has_value(), "rejected: " << (r ? std::string() : format(r.error())));
  return std::move(*r);
}

diagnostic compile_error(std::string_view sql) {
  auto r = compile(sql, orders_schema(), options());
  BOOST_TEST_REQUIRE(!r.has_value(), "accepted: " << sql);
  return r.error();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compiler)

BOOST_AUTO_TEST_CASE(plan_identity_comes_from_options_and_schema_topic) {
  const auto p = compile_ok("SELECT id FROM orders");
  BOOST_TEST(p.version == oldest_plan_version);
  BOOST_TEST(p.identity.application_id == "orders-big");
  BOOST_TEST(p.identity.source_topic == "orders-v1");
  BOOST_TEST(p.identity.sink_topic == "big-orders");
  BOOST_TEST(p.identity.operators == operator_names());
  BOOST_TEST((p.schema == orders_schema()));
  BOOST_TEST(p.predicate.empty());
}

BOOST_AUTO_TEST_CASE(projection_holds_column_indices_and_output_names_in_order) {
  const auto p = compile_ok("SELECT note, amount AS amt, id, id AS id2 FROM orders");
  BOOST_TEST_REQUIRE(p.projection.size() == 4u);
  BOOST_TEST(p.projection[0].column == 2u);
  BOOST_TEST(p.projection[0].output_name == "note");
  BOOST_TEST(p.projection[1].column == 1u);
  BOOST_TEST(p.projection[1].output_name == "amt");
  BOOST_TEST(p.projection[2].column == 0u);
  BOOST_TEST(p.projection[2].output_name == "id");
  BOOST_TEST(p.projection[3].column == 0u);
  BOOST_TEST(p.projection[3].output_name == "id2");
}

BOOST_AUTO_TEST_CASE(predicate_literals_have_the_column_type) {
  const auto p = compile_ok(
      "SELECT id FROM orders WHERE amount >= -9223372036854775808 AND note = 'it''s' AND flag <> FALSE "
      "AND note IS NULL AND id IS NOT NULL");
  BOOST_TEST_REQUIRE(p.predicate.size() == 5u);

  BOOST_TEST(p.predicate[0].column == 1u);
  BOOST_TEST((p.predicate[0].op == compare_op::ge));
  BOOST_TEST_REQUIRE(std::holds_alternative<std::int64_t>(p.predicate[0].value));
  BOOST_TEST(std::get<std::int64_t>(p.predicate[0].value) == std::numeric_limits<std::int64_t>::min());

  BOOST_TEST(p.predicate[1].column == 2u);
  BOOST_TEST((p.predicate[1].op == compare_op::eq));
  BOOST_TEST_REQUIRE(std::holds_alternative<std::string>(p.predicate[1].value));
  BOOST_TEST(std::get<std::string>(p.predicate[1].value) == "it's");

  BOOST_TEST(p.predicate[2].column == 3u);
  BOOST_TEST((p.predicate[2].op == compare_op::ne));
  BOOST_TEST_REQUIRE(std::holds_alternative<bool>(p.predicate[2].value));
  BOOST_TEST(std::get<bool>(p.predicate[2].value) == false);

  BOOST_TEST((p.predicate[3].op == compare_op::is_null));
  BOOST_TEST(std::holds_alternative<std::monostate>(p.predicate[3].value));
  BOOST_TEST((p.predicate[4].op == compare_op::is_not_null));
  BOOST_TEST(p.predicate[4].column == 0u);
}

BOOST_AUTO_TEST_CASE(largest_bigint_is_exact) {
  const auto p = compile_ok("SELECT id FROM orders WHERE amount <= 9223372036854775807");
  BOOST_TEST(std::get<std::int64_t>(p.predicate.at(0).value) == std::numeric_limits<std::int64_t>::max());
}

BOOST_AUTO_TEST_CASE(to_sql_renders_the_documented_normal_form) {
  const auto p = compile_ok("select id, amount as amt from orders where amount >= 50 and note is not null;");
  BOOST_TEST(to_sql(p) == "SELECT id, amount AS amt FROM orders WHERE amount >= 50 AND note IS NOT NULL");
}

BOOST_AUTO_TEST_CASE(to_sql_keeps_line_breaks_inside_string_literals) {
  const auto p = compile_ok("SELECT id FROM orders WHERE note = 'a\nb''c'");
  BOOST_TEST(std::get<std::string>(p.predicate.at(0).value) == "a\nb'c");
  BOOST_TEST(to_sql(p) == "SELECT id FROM orders WHERE note = 'a\nb''c'");
}

BOOST_AUTO_TEST_CASE(to_sql_of_a_hand_built_plan_with_a_bad_index_does_not_read_out_of_bounds) {
  plan::plan p;
  p.schema = orders_schema();
  p.projection = {{7, "x"}};
  BOOST_TEST(to_sql(p) == "SELECT <column #7> AS x FROM orders");
}

BOOST_AUTO_TEST_CASE(sql_at_the_size_limit_is_read_and_one_byte_more_is_rejected) {
  std::string sql = "SELECT id FROM orders";
  sql.resize(max_sql_bytes, ' ');
  BOOST_TEST(compile(sql, orders_schema(), options()).has_value());
  sql.push_back(' ');
  const auto d = compile_error(sql);
  BOOST_TEST((d.phase == phase::lex));
  BOOST_TEST(d.code == "sql_too_large");
  BOOST_TEST(d.message.find("65536") != std::string::npos);
  BOOST_TEST(d.message.find(std::to_string(max_sql_bytes + 1) + " bytes") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(sql_over_the_size_limit_points_at_the_first_byte_past_it) {
  // Two lines, the second holding the limit: line 2, and the column of the
  // byte at offset max_sql_bytes.
  std::string sql = "SELECT id\nFROM orders";
  sql.resize(max_sql_bytes + 10, ' ');
  const auto d = compile_error(sql);
  BOOST_TEST(d.code == "sql_too_large");
  BOOST_TEST(d.line == 2u);
  BOOST_TEST(d.column == max_sql_bytes - std::string("SELECT id\n").size() + 1);
}

BOOST_AUTO_TEST_CASE(rejection_is_formatted_with_line_and_column) {
  const auto d = compile_error("SELECT id, amount FROM orders\nWHERE amount >= 50 OR note IS NULL");
  BOOST_TEST((d.phase == phase::parse));
  BOOST_TEST(d.code == "unsupported_or");
  BOOST_TEST(format(d) ==
             "2:20: OR is not supported; the subset allows only AND between predicates (split the query or "
             "filter downstream)");
}

BOOST_AUTO_TEST_CASE(each_phase_reports_its_own_errors) {
  BOOST_TEST((compile_error("SELECT id FROM orders -- x").phase == phase::lex));
  BOOST_TEST((compile_error("SELECT * FROM orders").phase == phase::parse));
  BOOST_TEST((compile_error("SELECT nope FROM orders").phase == phase::bind));
  BOOST_TEST((compile_error("SELECT id FROM orders WHERE amount >= '5'").phase == phase::bind));
}

BOOST_AUTO_TEST_CASE(crlf_line_endings_give_the_same_positions_as_lf) {
  const auto d = compile_error("SELECT id\r\nFROM orders\r\nWHERE nope = 1\r\n");
  BOOST_TEST(d.code == "unknown_column");
  BOOST_TEST(d.line == 3u);
  BOOST_TEST(d.column == 7u);
}

BOOST_AUTO_TEST_CASE(invalid_utf8_in_a_string_literal_is_rejected_before_parsing) {
  const auto d = compile_error("SELECT id FROM orders WHERE note = '\xFF'");
  BOOST_TEST((d.phase == phase::lex));
  BOOST_TEST(d.code == "invalid_utf8");
  BOOST_TEST(d.line == 1u);
  BOOST_TEST(d.column == 37u);
}

// Cutting a query anywhere (also inside a multi-byte character or a string)
// must give a value, never a crash, and a position inside or just past the text.
BOOST_AUTO_TEST_CASE(every_prefix_of_a_query_is_accepted_or_rejected_with_a_position) {
  const std::string sql =
      "SELECT id, amount AS amt\nFROM orders\nWHERE amount >= -9223372036854775808 AND note = 'caf\xC3\xA9 "
      "''x'''\n"
      "  AND flag <> TRUE AND note IS NOT NULL;";
  std::size_t accepted = 0;
  for (std::size_t n = 0; n <= sql.size(); ++n) {
    const std::string_view prefix(sql.data(), n);
    auto r = compile(prefix, orders_schema(), options());
    if (r) {
      ++accepted;
      continue;
    }
    const diagnostic& d = r.error();
    BOOST_TEST_CONTEXT("prefix of " << n << " bytes: " << format(d)) {
      BOOST_TEST(d.line >= 1u);
      BOOST_TEST(d.line <= 4u);
      BOOST_TEST(d.column >= 1u);
      BOOST_TEST(!d.code.empty());
      BOOST_TEST(!d.message.empty());
    }
  }
  // "... FROM orders", "... WHERE amount >= -9", ..., the whole statement.
  BOOST_TEST(accepted > 10u);
}

namespace {

// A small Debezium-shaped schema: a nullable ROW holding version 2 types.
schema payments_schema() {
  column after;
  after.name = "after";
  after.type = column_type::row;
  after.nullable = true;
  column amount;
  amount.name = "amount";
  amount.type = column_type::decimal;
  amount.precision = 10;
  amount.scale = 2;
  column score;
  score.name = "score";
  score.type = column_type::double_;
  score.nullable = true;
  column paid_at;
  paid_at.name = "paid_at";
  paid_at.type = column_type::timestamp;
  after.fields = {amount, score, paid_at};
  schema s;
  s.source = "payments";
  s.topic = "cdc.payments";
  s.columns = {{"op", column_type::string, false}, after};
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_query_on_version_1_types_compiles_to_version_1) {
  const auto p = compile_ok("SELECT id, amount AS amt FROM orders WHERE amount >= 50 AND flag = TRUE");
  BOOST_TEST(p.version == 1);
  BOOST_TEST(canonical_json(p).find("\"plan_version\":1") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_query_on_a_decimal_column_compiles_to_version_2_with_node_indices) {
  auto r = compile("SELECT op, after.amount FROM payments WHERE after.amount >= 12.5 AND after.score < 1e3",
                   payments_schema(), options());
  BOOST_TEST_REQUIRE(r.has_value(), (r ? std::string() : format(r.error())));
  BOOST_TEST(r->version == 2);
  // Nodes in pre-order: op 0, after 1, after.amount 2, after.score 3.
  BOOST_TEST_REQUIRE(r->projection.size() == 2u);
  BOOST_TEST(r->projection[1].column == 2u);
  BOOST_TEST(r->projection[1].output_name == "amount");
  BOOST_TEST_REQUIRE(r->predicate.size() == 2u);
  BOOST_TEST(r->predicate[0].column == 2u);
  BOOST_TEST_REQUIRE(std::holds_alternative<decimal_value>(r->predicate[0].value));
  BOOST_TEST((std::get<decimal_value>(r->predicate[0].value).unscaled == 1250));
  BOOST_TEST(r->predicate[1].column == 3u);
  BOOST_TEST(std::get<double>(r->predicate[1].value) == 1000.0);
}

BOOST_AUTO_TEST_CASE(a_version_2_plan_round_trips_through_the_plan_file_with_its_digest) {
  auto r = compile(
      "SELECT after, after.paid_at AS paid FROM payments WHERE after.amount <> -0.05 AND after.score > 0.1 "
      "AND after.paid_at >= TIMESTAMP '2026-12-05 10:00:00.5+01:00' AND after IS NOT NULL",
      payments_schema(), options());
  BOOST_TEST_REQUIRE(r.has_value(), (r ? std::string() : format(r.error())));
  const std::string text = write_plan(*r);
  auto loaded = load_plan(text);
  BOOST_TEST_REQUIRE(loaded.has_value(), (loaded ? std::string() : format(loaded.error())));
  BOOST_TEST((*loaded == *r));
  BOOST_TEST(digest(*loaded) == digest(*r));
  BOOST_TEST(
      to_sql(*loaded) ==
      "SELECT after, after.paid_at AS paid FROM payments WHERE after.amount <> -0.05 AND after.score > "
      "0.1 AND after.paid_at >= TIMESTAMP '2026-12-05T09:00:00.500Z' AND after IS NOT NULL");
}

BOOST_AUTO_TEST_CASE(a_column_may_be_called_timestamp_because_only_a_string_makes_a_timestamp_literal) {
  schema s;
  s.source = "events";
  s.topic = "events";
  s.columns = {{"timestamp", column_type::timestamp, false}};
  auto r = compile("SELECT timestamp FROM events WHERE timestamp >= TIMESTAMP '2026-12-05T10:00:00Z'", s,
                   options());
  BOOST_TEST_REQUIRE(r.has_value(), (r ? std::string() : format(r.error())));
  BOOST_TEST(std::get<timestamp_value>(r->predicate.at(0).value).millis == 1796464800000);
  BOOST_TEST(to_sql(*r) ==
             "SELECT timestamp FROM events WHERE timestamp >= TIMESTAMP '2026-12-05T10:00:00.000Z'");
}

BOOST_AUTO_TEST_CASE(literal_sql_writes_each_literal_as_a_query_would) {
  column dec;
  dec.type = column_type::decimal;
  dec.precision = 10;
  dec.scale = 3;
  BOOST_TEST(literal_sql(decimal_value{-5}, dec) == "-0.005");
  // Beyond BIGINT's literal range digits alone would not lex back.
  dec.precision = 38;
  dec.scale = 0;
  BOOST_TEST(literal_sql(decimal_value{7}, dec) == "7");
  BOOST_TEST(literal_sql(decimal_value{int128{1} << 100}, dec) == "1267650600228229401496703205376.0");
  const column dbl{"d", column_type::double_, false};
  BOOST_TEST(literal_sql(0.1, dbl) == "0.1");
  BOOST_TEST(literal_sql(-0.0, dbl) == "-0.0");
  BOOST_TEST(literal_sql(1e20, dbl) == "1e+20");
  BOOST_TEST(literal_sql(timestamp_value{0}, column{"t", column_type::timestamp, false}) ==
             "TIMESTAMP '1970-01-01T00:00:00.000Z'");
}

BOOST_AUTO_TEST_SUITE_END()
