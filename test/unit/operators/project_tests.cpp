// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/project.hpp"

#include "orders_fixture.hpp"

#include <boost/test/unit_test.hpp>

#include <stdexcept>

namespace ops = streamt::operators;
namespace plan = streamt::plan;
namespace t = streamt::operators::test;

BOOST_AUTO_TEST_SUITE(project)

BOOST_AUTO_TEST_CASE(keeps_projection_order_slots_types_and_output_names) {
  ops::project_definition def(t::orders_plan());
  auto cols = def.columns();
  BOOST_TEST_REQUIRE(cols.size() == 4u);
  BOOST_TEST(cols[0].slot == t::amount);
  BOOST_TEST((cols[0].type == plan::column_type::bigint));
  BOOST_TEST(cols[0].output_name == "amount");
  BOOST_TEST(cols[1].slot == t::id);
  BOOST_TEST((cols[1].type == plan::column_type::string));
  BOOST_TEST(cols[1].output_name == "order_id");
  BOOST_TEST(cols[2].slot == t::flag);
  BOOST_TEST((cols[2].type == plan::column_type::boolean));
  BOOST_TEST(cols[3].slot == t::note);
  BOOST_TEST(cols[3].output_name == "note");
}

BOOST_AUTO_TEST_CASE(may_project_a_subset_or_the_same_column_twice) {
  plan::plan p = t::orders_plan();
  p.projection = {{t::note, "a"}, {t::note, "b"}};
  ops::project_definition def(p);
  BOOST_TEST_REQUIRE(def.columns().size() == 2u);
  BOOST_TEST(def.columns()[0].slot == t::note);
  BOOST_TEST(def.columns()[1].slot == t::note);
  BOOST_TEST(def.columns()[1].output_name == "b");
}

BOOST_AUTO_TEST_CASE(refuses_a_projection_of_a_column_outside_the_schema) {
  plan::plan p = t::orders_plan();
  p.projection.push_back({4, "ghost"});
  BOOST_CHECK_THROW(ops::project_definition{p}, std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
