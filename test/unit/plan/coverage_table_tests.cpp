// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The table of route sets (test/data/routes/): `<case>.json` is the source
// schema, `<case>.routes` the routes as `sink: WHERE clause` lines (nothing
// after the colon takes every record), `<case>.expected` the report lines,
// exactly and in order (empty when the routes are disjoint and total). Each
// route's predicate is what the compiler binds for its clause.

#include "plan/coverage.hpp"
#include "plan/schema_file.hpp"
#include "plan/sql/compile.hpp"
#include "plan/sql/keywords.hpp"

#include "case_files.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace plan = streamt::plan;
namespace data = boost::unit_test::data;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(coverage_table)

BOOST_DATA_TEST_CASE(each_route_set_reports_the_overlaps_and_gaps_its_expected_file_lists,
                     data::make(streamt::test::case_names("routes")), name) {
  BOOST_TEST_CONTEXT("test/data/routes/" << name) {
    const auto dir = streamt::test::data_dir("routes");
    auto s = plan::load_schema(streamt::test::read_file(dir / (name + ".json")));
    BOOST_TEST_REQUIRE(s.has_value(), (s ? std::string() : streamt::format(s.error())));
    std::vector<plan::route> routes;
    for (const std::string& line : lines_of(streamt::test::read_file(dir / (name + ".routes")))) {
      const auto colon = line.find(':');
      BOOST_TEST_REQUIRE(colon != std::string::npos, "a route line is `sink: WHERE clause`: " + line);
      const std::string sink = line.substr(0, colon);
      const std::string clause = line.substr(line.find_first_not_of(' ', colon + 1) == std::string::npos
                                                 ? line.size()
                                                 : line.find_first_not_of(' ', colon + 1));
      std::string sql = "SELECT " + plan::sql::sql_name(s->columns.front().name) + " FROM " + s->source;
      if (!clause.empty()) sql += " WHERE " + clause;
      auto p = plan::compile(sql, *s, plan::compile_options{"coverage-table", sink});
      BOOST_TEST_REQUIRE(p.has_value(), sql + ": " + (p ? std::string() : streamt::format(p.error())));
      routes.push_back(plan::route{sink, p->predicate, p->projection});
    }
    auto report = plan::analyse_coverage(*s, routes);
    BOOST_TEST_REQUIRE(report.has_value(), (report ? std::string() : streamt::format(report.error())));
    BOOST_TEST(report->complete);
    const auto actual = plan::report_lines(*s, routes, *report);
    const auto expected = lines_of(streamt::test::read_file(dir / (name + ".expected")));
    std::string shown;
    for (const std::string& l : actual) shown += "\n  " + l;
    BOOST_TEST(actual == expected, "the report was:" + shown);
  }
}

BOOST_AUTO_TEST_SUITE_END()
