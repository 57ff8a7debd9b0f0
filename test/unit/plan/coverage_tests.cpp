// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The coverage analysis of routes: each test states one rule of the
// engine's evaluation that the overlaps and gaps must follow. The routes'
// predicates are compiled from SQL, so they are what the compiler binds.
// The table of route sets with their expected reports is
// coverage_table_tests.cpp.

#include "plan/coverage.hpp"
#include "plan/schema_file.hpp"
#include "plan/sql/compile.hpp"
#include "plan/sql/keywords.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>

#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace plan = streamt::plan;

namespace {

plan::schema schema_of(const std::string& columns) {
  auto s = plan::load_schema(R"({"source": "events", "topic": "events", "columns": [)" + columns + "]}");
  BOOST_TEST_REQUIRE(s.has_value(), (s ? std::string() : streamt::format(s.error())));
  return *s;
}

// Each route as {sink, WHERE clause}; an empty clause takes every record.
std::vector<plan::route> routes_of(const plan::schema& s,
                                   const std::vector<std::pair<std::string, std::string>>& specs) {
  std::vector<plan::route> out;
  for (const auto& [sink, clause] : specs) {
    std::string sql = "SELECT " + plan::sql::sql_name(s.columns.front().name) + " FROM events";
    if (!clause.empty()) sql += " WHERE " + clause;
    auto p = plan::compile(sql, s, plan::compile_options{"coverage-test", sink});
    BOOST_TEST_REQUIRE(p.has_value(), sql + ": " + (p ? std::string() : streamt::format(p.error())));
    out.push_back(plan::route{sink, p->predicate, p->projection});
  }
  return out;
}

plan::coverage_report analysed(const plan::schema& s, const std::vector<plan::route>& routes) {
  auto r = plan::analyse_coverage(s, routes);
  BOOST_TEST_REQUIRE(r.has_value(), (r ? std::string() : streamt::format(r.error())));
  return *r;
}

std::vector<std::string> lines(const std::string& columns,
                               const std::vector<std::pair<std::string, std::string>>& specs) {
  const plan::schema s = schema_of(columns);
  const auto routes = routes_of(s, specs);
  return plan::report_lines(s, routes, analysed(s, routes));
}

using texts = std::vector<std::string>;

constexpr const char* tenant = R"({"name": "tenant", "type": "STRING", "nullable": true})";

}  // namespace

BOOST_AUTO_TEST_SUITE(coverage)

BOOST_AUTO_TEST_CASE(a_tenant_split_by_equal_and_not_equal_leaves_only_the_null_tenant) {
  BOOST_TEST(lines(tenant, {{"acme", "tenant = 'acme'"}, {"others", "tenant <> 'acme'"}}) ==
                 texts{R"(no route takes {"tenant": null})"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(an_is_null_route_makes_the_tenant_split_total_and_disjoint) {
  BOOST_TEST(
      lines(tenant,
            {{"acme", "tenant = 'acme'"}, {"others", "tenant <> 'acme'"}, {"unknown", "tenant IS NULL"}})
          .empty());
}

BOOST_AUTO_TEST_CASE(not_equal_covers_everything_but_the_literal_when_the_column_cannot_be_null) {
  BOOST_TEST(lines(R"({"name": "tenant", "type": "STRING", "nullable": false})",
                   {{"acme", "tenant = 'acme'"}, {"others", "tenant <> 'acme'"}})
                 .empty());
  BOOST_TEST(lines(R"({"name": "tenant", "type": "STRING", "nullable": false})",
                   {{"others", "tenant <> ''"}}) == texts{R"(no route takes {"tenant": ""})"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_gap_string_is_the_shortest_one_no_literal_names) {
  BOOST_TEST(
      lines(R"({"name": "tenant", "type": "STRING", "nullable": false})",
            {{"empty", "tenant = ''"}, {"a", "tenant = 'a'"}}) == texts{R"(no route takes {"tenant": "b"})"},
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bigint_bounds_step_by_one_so_strict_bounds_leave_exactly_the_literal) {
  BOOST_TEST(lines(R"({"name": "x", "type": "BIGINT", "nullable": true})",
                   {{"low", "x < 10"}, {"high", "x > 10"}}) ==
                 (texts{R"(no route takes {"x": 10})", R"(no route takes {"x": null})"}),
             boost::test_tools::per_element());
  // Nothing lies strictly between 5 and 6, so this route takes no record
  // and cannot overlap another.
  const plan::schema s = schema_of(R"({"name": "x", "type": "BIGINT", "nullable": false})");
  const auto report = analysed(s, routes_of(s, {{"between", "x > 5 AND x < 6"}, {"all", ""}}));
  BOOST_TEST(report.overlaps.empty());
  BOOST_TEST(report.gaps.empty());
}

BOOST_AUTO_TEST_CASE(decimal_bounds_step_by_the_scale_and_stop_at_the_precision) {
  const char* amount = R"j({"name": "amount", "type": "DECIMAL(3,1)", "nullable": false})j";
  BOOST_TEST(lines(amount, {{"low", "amount < 1.5"}, {"high", "amount > 1.5"}}) ==
                 texts{R"(no route takes {"amount": 1.5})"},
             boost::test_tools::per_element());
  BOOST_TEST(lines(amount, {{"low", "amount <= 1.5"}, {"high", "amount >= 1.6"}}).empty());
  BOOST_TEST(lines(amount, {{"low", "amount < 1.5"}, {"high", "amount >= 1.6"}}) ==
                 texts{R"(no route takes {"amount": 1.5})"},
             boost::test_tools::per_element());
  // DECIMAL(3,1) holds nothing above 99.9.
  BOOST_TEST(lines(amount, {{"all", "amount <= 99.9"}}).empty());
  BOOST_TEST(lines(amount, {{"most", "amount < 99.9"}}) == texts{R"(no route takes {"amount": 99.9})"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(double_strict_bounds_leave_the_next_double_and_no_more) {
  const char* d = R"({"name": "d", "type": "DOUBLE", "nullable": false})";
  BOOST_TEST(lines(d, {{"low", "d < 1.5"}, {"high", "d > 1.5"}}) == texts{R"(no route takes {"d": 1.5})"},
             boost::test_tools::per_element());
  // Above 0 the least magnitude is the smallest subnormal.
  BOOST_TEST(lines(d, {{"low", "d <= 0"}}) == texts{R"(no route takes {"d": 5e-324})"},
             boost::test_tools::per_element());
  // Every finite double is at most the largest one: decoders never yield
  // infinities or NaN.
  BOOST_TEST(lines(d, {{"all", "d <= 1.7976931348623157e308 AND d >= -1.7976931348623157e308"}}).empty());
  // -0 and 0 are equal to the engine.
  BOOST_TEST(lines(d, {{"neg", "d < 0"}, {"zero", "d = -0.0"}, {"pos", "d > 0"}}).empty());
}

BOOST_AUTO_TEST_CASE(the_fields_of_a_null_row_are_null_so_only_the_row_is_shown_null) {
  const char* after = R"({"name": "after", "type": "ROW", "nullable": true,
                          "fields": [{"name": "amount", "type": "BIGINT", "nullable": false}]})";
  BOOST_TEST(lines(after, {{"big", "after.amount >= 100"}, {"small", "after.amount < 100"}}) ==
                 texts{R"(no route takes {"after": null})"},
             boost::test_tools::per_element());
  BOOST_TEST(
      lines(after,
            {{"big", "after.amount >= 100"}, {"small", "after.amount < 100"}, {"gone", "after IS NULL"}})
          .empty());
  // A non-nullable field is null exactly when its ROW is.
  BOOST_TEST(lines(after, {{"gone", "after IS NULL"}, {"no_amount", "after.amount IS NULL"}}) ==
                 (texts{R"(routes 'gone' and 'no_amount' both take {"after": null})",
                        R"(no route takes {"after": {}})"}),
             boost::test_tools::per_element());
  // A null ROW has no field equal to anything.
  const plan::schema s = schema_of(after);
  const auto report =
      analysed(s, routes_of(s, {{"impossible", "after IS NULL AND after.amount = 1"}, {"all", ""}}));
  BOOST_TEST(report.overlaps.empty());
}

BOOST_AUTO_TEST_CASE(a_nullable_field_of_a_present_row_is_shown_inside_it) {
  const char* after = R"({"name": "after", "type": "ROW", "nullable": false,
                          "fields": [{"name": "note", "type": "STRING", "nullable": true}]})";
  BOOST_TEST(lines(after, {{"set", "after.note IS NOT NULL"}}) ==
                 texts{R"(no route takes {"after": {"note": null}})"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(true_and_false_cover_a_boolean_that_cannot_be_null) {
  const char* flag = R"({"name": "flag", "type": "BOOLEAN", "nullable": false})";
  BOOST_TEST(lines(flag, {{"yes", "flag = TRUE"}, {"no", "flag = FALSE"}}).empty());
  BOOST_TEST(lines(flag, {{"yes", "flag = TRUE"}, {"not_yes", "flag <> TRUE"}}).empty());
  BOOST_TEST(lines(flag, {{"yes", "flag = TRUE"}}) == texts{R"(no route takes {"flag": false})"},
             boost::test_tools::per_element());
  BOOST_TEST(
      lines(R"({"name": "flag", "type": "BOOLEAN", "nullable": true})",
            {{"yes", "flag = TRUE"}, {"no", "flag = FALSE"}}) == texts{R"(no route takes {"flag": null})"},
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(two_overlapping_ranges_overlap_at_the_value_of_least_magnitude) {
  const char* x = R"({"name": "x", "type": "BIGINT", "nullable": false})";
  BOOST_TEST(
      lines(x, {{"a", "x >= 10"}, {"b", "x <= 20"}}) == texts{R"(routes 'a' and 'b' both take {"x": 10})"},
      boost::test_tools::per_element());
  BOOST_TEST(
      lines(x, {{"a", "x >= -20"}, {"b", "x <= -10"}}) == texts{R"(routes 'a' and 'b' both take {"x": -10})"},
      boost::test_tools::per_element());
  BOOST_TEST(lines(x, {{"a", "x > 5"}, {"b", "x < 7"}}) == texts{R"(routes 'a' and 'b' both take {"x": 6})"},
             boost::test_tools::per_element());
  // Integers: nothing lies between 5 and 6.
  BOOST_TEST(lines(x, {{"a", "x > 5"}, {"b", "x < 6"}}).empty());
  BOOST_TEST(lines(x, {{"a", "x > 5"}, {"b", "x <= 5"}}).empty());
}

BOOST_AUTO_TEST_CASE(an_overlap_shows_the_columns_both_routes_read) {
  const plan::schema s = schema_of(R"({"name": "amount", "type": "BIGINT", "nullable": false},
                                      {"name": "tier", "type": "STRING", "nullable": true})");
  const auto routes = routes_of(s, {{"big", "amount >= 100"}, {"vip", "tier = 'gold'"}});
  const auto report = analysed(s, routes);
  BOOST_TEST_REQUIRE(report.overlaps.size() == 1u);
  BOOST_TEST(report.overlaps[0].first == 0u);
  BOOST_TEST(report.overlaps[0].second == 1u);
  BOOST_TEST(plan::report_lines(s, routes, report).front() ==
             R"(routes 'big' and 'vip' both take {"amount": 100, "tier": "gold"})");
}

BOOST_AUTO_TEST_CASE(partitions_and_offsets_are_never_negative_nor_null) {
  const char* meta = R"({"name": "part", "type": "BIGINT", "nullable": true, "from": "partition"},
                        {"name": "pos", "type": "BIGINT", "nullable": true, "from": "offset"})";
  BOOST_TEST(lines(meta, {{"all", "part >= 0 AND pos >= 0"}}).empty());
  BOOST_TEST(lines(meta, {{"first", "part = 0"}, {"rest", "part > 0"}}).empty());
  BOOST_TEST(lines(meta, {{"late", "pos > 0"}}) == texts{R"(no route takes {"pos": 0})"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(gap_lines_stop_at_their_bound_and_say_how_many_more) {
  std::vector<std::pair<std::string, std::string>> specs{{"negative", "x < 0"}, {"large", "x > 44"}};
  for (int k = 1; k < 44; k += 2) specs.push_back({"odd-" + std::to_string(k), "x = " + std::to_string(k)});
  const auto out = lines(R"({"name": "x", "type": "BIGINT", "nullable": false})", specs);
  BOOST_TEST_REQUIRE(out.size() == plan::max_reported_gaps + 1);
  BOOST_TEST(out.front() == R"(no route takes {"x": 0})");
  BOOST_TEST(out.back() == "and 3 more kinds of record no route takes");
}

BOOST_AUTO_TEST_CASE(an_analysis_past_its_work_bound_says_it_is_incomplete) {
  // Each route takes b2i = 1 AND b2i+1 = 1: the records none takes fall
  // into 2^20 regions, beyond the bound.
  std::string columns;
  std::vector<std::pair<std::string, std::string>> specs;
  for (int i = 0; i < 40; ++i)
    columns += std::string(i ? ", " : "") + R"({"name": "b)" + std::to_string(i) +
               R"(", "type": "BIGINT", "nullable": false})";
  for (int i = 0; i < 20; ++i)
    specs.push_back({"r" + std::to_string(i),
                     "b" + std::to_string(2 * i) + " = 1 AND b" + std::to_string(2 * i + 1) + " = 1"});
  const plan::schema s = schema_of(columns);
  const auto routes = routes_of(s, specs);
  const auto report = analysed(s, routes);
  BOOST_TEST(!report.complete);
  BOOST_TEST(!report.gaps.empty());
  const auto out = plan::report_lines(s, routes, report);
  BOOST_TEST(out.back().find("coverage is undecided") == 0u);
}

BOOST_AUTO_TEST_CASE(more_routes_than_a_plan_may_hold_are_refused_before_any_work) {
  const plan::schema s = schema_of(tenant);
  std::vector<plan::route> routes(plan::max_routes + 1, plan::route{"out", {}, {}});
  auto r = plan::analyse_coverage(s, routes);
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == "too_many_routes");
}

BOOST_AUTO_TEST_CASE(conditions_no_loaded_plan_holds_are_refused_not_trusted) {
  const plan::schema s = schema_of(tenant);
  plan::route bad{"out", {plan::condition{7, plan::compare_op::is_null, {}}}, {}};
  BOOST_TEST(plan::analyse_coverage(s, {bad}).error().code == "column_out_of_range");
  bad.predicate = {plan::condition{0, plan::compare_op::lt, std::string("a")}};
  BOOST_TEST(plan::analyse_coverage(s, {bad}).error().code == "operator_not_applicable");
  bad.predicate = {plan::condition{0, plan::compare_op::eq, std::int64_t{1}}};
  BOOST_TEST(plan::analyse_coverage(s, {bad}).error().code == "literal_type_mismatch");
}

BOOST_AUTO_TEST_CASE(routes_without_a_where_clause_overlap_on_every_record) {
  BOOST_TEST(lines(tenant, {{"a", ""}, {"b", ""}}) == texts{"routes 'a' and 'b' both take every record"},
             boost::test_tools::per_element());
  BOOST_TEST(lines(tenant, {{"none", "tenant IS NULL AND tenant IS NOT NULL"}}) ==
                 texts{"no route takes any record"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(example_text_writes_each_type_as_json_does) {
  const plan::schema s = schema_of(R"j({"name": "s", "type": "STRING", "nullable": true},
      {"name": "t", "type": "TIMESTAMP", "nullable": true},
      {"name": "m", "type": "DECIMAL(6,2)", "nullable": true},
      {"name": "d", "type": "DOUBLE", "nullable": true},
      {"name": "r", "type": "ROW", "nullable": true, "fields": [
        {"name": "in", "type": "ROW", "nullable": true, "fields": [{"name": "b", "type": "BOOLEAN", "nullable": true}]},
        {"name": "j", "type": "JSON", "nullable": true}]},
      {"name": "n", "type": "BIGINT", "nullable": true})j");
  const plan::example_record r{{0, plan::literal{std::string("a\"b\n")}},
                               {1, plan::literal{plan::timestamp_value{1500}}},
                               {2, plan::literal{plan::decimal_value{-5}}},
                               {3, plan::literal{0.1}},
                               {4, plan::literal{std::monostate{}}},
                               {5, plan::literal{std::monostate{}}},
                               {6, plan::literal{true}},
                               {7, plan::literal{std::monostate{}}},
                               {8, std::nullopt}};
  BOOST_TEST(plan::example_text(s, r) ==
             R"({"s": "a\"b\n", "t": "1970-01-01T00:00:01.500Z", "m": -0.05, "d": 0.1, )"
             R"("r": {"in": {"b": true}, "j": {}}, "n": null})");
}

// Against brute force: random routes on a nullable BIGINT and a nullable
// STRING whose literals are 0..2 and 'a', 'b', so the values -1..3 and
// 'a', 'b', '' (and null) meet every region. An overlap is reported exactly
// when some record is taken by both routes, a gap exactly when some record
// is taken by none, and every example is such a record whatever the columns
// it leaves out hold.
BOOST_AUTO_TEST_CASE(random_route_sets_agree_with_trying_every_record) {
  const plan::schema s = schema_of(R"({"name": "x", "type": "BIGINT", "nullable": true},
                                      {"name": "s", "type": "STRING", "nullable": true})");
  struct rec {
    std::optional<std::int64_t> x;
    std::optional<std::string> s;
  };
  std::vector<rec> all;
  for (std::optional<std::int64_t> x :
       {std::optional<std::int64_t>{}, std::optional<std::int64_t>{-1}, std::optional<std::int64_t>{0},
        std::optional<std::int64_t>{1}, std::optional<std::int64_t>{2}, std::optional<std::int64_t>{3}})
    for (std::optional<std::string> v : {std::optional<std::string>{}, std::optional<std::string>{"a"},
                                         std::optional<std::string>{"b"}, std::optional<std::string>{""}})
      all.push_back({x, v});
  auto takes = [](const plan::route& r, const rec& e) {
    for (const plan::condition& c : r.predicate) {
      const bool null = c.column == 0 ? !e.x : !e.s;
      if (c.op == plan::compare_op::is_null) {
        if (!null) return false;
        continue;
      }
      if (c.op == plan::compare_op::is_not_null) {
        if (null) return false;
        continue;
      }
      if (null) return false;  // unknown is not true
      if (c.column == 1) {
        const bool eq = *e.s == std::get<std::string>(c.value);
        if (c.op == plan::compare_op::eq ? !eq : eq) return false;
        continue;
      }
      const std::int64_t a = *e.x, b = std::get<std::int64_t>(c.value);
      const bool holds = c.op == plan::compare_op::eq   ? a == b
                         : c.op == plan::compare_op::ne ? a != b
                         : c.op == plan::compare_op::lt ? a < b
                         : c.op == plan::compare_op::le ? a <= b
                         : c.op == plan::compare_op::gt ? a > b
                                                        : a >= b;
      if (!holds) return false;
    }
    return true;
  };
  // The sample records an example stands for: its columns fixed, the others
  // anything.
  auto matching = [&](const plan::example_record& ex) {
    std::vector<rec> out;
    for (const rec& e : all) {
      bool ok = true;
      for (const plan::example_value& v : ex) {
        if (v.column == 0)
          ok = ok && (v.value ? e.x && *e.x == std::get<std::int64_t>(*v.value) : !e.x);
        else
          ok = ok && (v.value ? e.s && *e.s == std::get<std::string>(*v.value) : !e.s);
      }
      if (ok) out.push_back(e);
    }
    return out;
  };
  const std::vector<std::string> conditions{"x = 1",     "x <> 1",        "x < 1",     "x <= 0",
                                            "x > 1",     "x >= 2",        "x IS NULL", "x IS NOT NULL",
                                            "s = 'a'",   "s <> 'a'",      "s = 'b'",   "s <> 'b'",
                                            "s IS NULL", "s IS NOT NULL", "x > 0"};
  std::mt19937 random(39);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::pair<std::string, std::string>> specs;
    const int count = 1 + static_cast<int>(random() % 4);
    for (int r = 0; r < count; ++r) {
      std::string clause;
      const int n = static_cast<int>(random() % 3);
      for (int k = 0; k < n; ++k) clause += (k ? " AND " : "") + conditions[random() % conditions.size()];
      specs.push_back({"r" + std::to_string(r), clause});
    }
    const auto routes = routes_of(s, specs);
    const auto report = analysed(s, routes);
    BOOST_TEST_REQUIRE(report.complete);
    std::string context;
    for (const auto& [name, clause] : specs) context += name + ": " + clause + "; ";
    BOOST_TEST_CONTEXT(context) {
      for (std::size_t i = 0; i < routes.size(); ++i)
        for (std::size_t j = i + 1; j < routes.size(); ++j) {
          const bool both = std::any_of(all.begin(), all.end(), [&](const rec& e) {
            return takes(routes[i], e) && takes(routes[j], e);
          });
          const auto found =
              std::find_if(report.overlaps.begin(), report.overlaps.end(),
                           [&](const plan::overlap& o) { return o.first == i && o.second == j; });
          BOOST_TEST(both == (found != report.overlaps.end()));
          if (found == report.overlaps.end()) continue;
          for (const rec& e : matching(found->example))
            BOOST_TEST((takes(routes[i], e) && takes(routes[j], e)));
        }
      const bool untaken = std::any_of(all.begin(), all.end(), [&](const rec& e) {
        return std::none_of(routes.begin(), routes.end(), [&](const plan::route& r) { return takes(r, e); });
      });
      BOOST_TEST(untaken == !report.gaps.empty());
      for (const plan::gap& g : report.gaps) {
        const auto members = matching(g.example);
        BOOST_TEST(!members.empty());
        for (const rec& e : members)
          BOOST_TEST(
              std::none_of(routes.begin(), routes.end(), [&](const plan::route& r) { return takes(r, e); }));
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
