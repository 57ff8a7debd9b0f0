// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/predicate.hpp"

#include "orders_fixture.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace ops = streamt::operators;
namespace plan = streamt::plan;
namespace t = streamt::operators::test;
using op = plan::compare_op;

namespace {

constexpr std::int64_t int64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

constexpr op comparisons[] = {op::eq, op::ne, op::lt, op::le, op::gt, op::ge};

// A row with every column set (id "o-1", amount 100, note "Note", flag true).
ops::row full_row() {
  ops::row r(4);
  r.slots[t::id] = {false, 0, false, "o-1", {}};
  r.slots[t::amount] = {false, 100, false, {}, {}};
  r.slots[t::note] = {false, 0, false, "Note", {}};
  r.slots[t::flag] = {false, 0, true, {}, {}};
  return r;
}

ops::row with_amount(std::int64_t v) {
  ops::row r = full_row();
  r.slots[t::amount].bigint = v;
  return r;
}

bool passes(std::vector<plan::condition> conditions, const ops::row& r) {
  ops::predicate_definition def(t::orders_plan_where(std::move(conditions)));
  return ops::evaluate(def, r);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(predicate)

BOOST_AUTO_TEST_CASE(passes_every_row_when_there_are_no_conditions) {
  ops::row nulls(4);
  BOOST_TEST(passes({}, full_row()));
  BOOST_TEST(passes({}, nulls));
}

BOOST_AUTO_TEST_CASE(never_passes_a_comparison_with_a_null_bigint_whatever_the_operator) {
  ops::row r = full_row();
  r.slots[t::amount].is_null = true;
  for (op o : comparisons) {
    BOOST_TEST(!passes({{t::amount, o, std::int64_t{100}}}, r), plan::to_string(o));
    BOOST_TEST(!passes({{t::amount, o, std::int64_t{0}}}, r), plan::to_string(o));
  }
}

BOOST_AUTO_TEST_CASE(never_passes_a_comparison_with_a_null_string_whatever_the_operator) {
  ops::row r = full_row();
  r.slots[t::note].is_null = true;
  r.slots[t::note].string = "x";  // stale bytes of a null slot must not matter
  for (op o : comparisons) {
    BOOST_TEST(!passes({{t::note, o, std::string("x")}}, r), plan::to_string(o));
    BOOST_TEST(!passes({{t::note, o, std::string("")}}, r), plan::to_string(o));
  }
}

BOOST_AUTO_TEST_CASE(never_passes_a_comparison_with_a_null_boolean_whatever_the_operator) {
  ops::row r = full_row();
  r.slots[t::flag].is_null = true;
  for (op o : {op::eq, op::ne}) {
    BOOST_TEST(!passes({{t::flag, o, true}}, r), plan::to_string(o));
    BOOST_TEST(!passes({{t::flag, o, false}}, r), plan::to_string(o));
  }
}

BOOST_AUTO_TEST_CASE(is_null_matches_only_null_and_is_not_null_only_values) {
  ops::row r = full_row();
  for (std::size_t column : {t::id, t::amount, t::note, t::flag}) {
    r.slots[column].is_null = false;
    BOOST_TEST(!passes({{column, op::is_null, {}}}, r));
    BOOST_TEST(passes({{column, op::is_not_null, {}}}, r));
    r.slots[column].is_null = true;
    BOOST_TEST(passes({{column, op::is_null, {}}}, r));
    BOOST_TEST(!passes({{column, op::is_not_null, {}}}, r));
  }
}

BOOST_AUTO_TEST_CASE(compares_bigints_with_each_operator_at_the_boundary) {
  struct expectation {
    op o;
    bool below, equal, above;
  };
  const expectation table[] = {
      {op::eq, false, true, false}, {op::ne, true, false, true},  {op::lt, true, false, false},
      {op::le, true, true, false},  {op::gt, false, false, true}, {op::ge, false, true, true},
  };
  for (const auto& e : table) {
    BOOST_TEST(passes({{t::amount, e.o, std::int64_t{500}}}, with_amount(499)) == e.below,
               plan::to_string(e.o));
    BOOST_TEST(passes({{t::amount, e.o, std::int64_t{500}}}, with_amount(500)) == e.equal,
               plan::to_string(e.o));
    BOOST_TEST(passes({{t::amount, e.o, std::int64_t{500}}}, with_amount(501)) == e.above,
               plan::to_string(e.o));
  }
}

BOOST_AUTO_TEST_CASE(compares_exactly_at_the_int64_limits) {
  BOOST_TEST(passes({{t::amount, op::ge, int64_min}}, with_amount(int64_min)));
  BOOST_TEST(passes({{t::amount, op::le, int64_max}}, with_amount(int64_max)));
  BOOST_TEST(!passes({{t::amount, op::lt, int64_min}}, with_amount(int64_min)));
  BOOST_TEST(!passes({{t::amount, op::gt, int64_max}}, with_amount(int64_max)));
  BOOST_TEST(passes({{t::amount, op::eq, int64_min}}, with_amount(int64_min)));
  BOOST_TEST(!passes({{t::amount, op::eq, int64_min}}, with_amount(int64_max)));
  BOOST_TEST(passes({{t::amount, op::lt, int64_max}}, with_amount(int64_min)));
  BOOST_TEST(passes({{t::amount, op::gt, int64_min}}, with_amount(int64_max)));
  BOOST_TEST(!passes({{t::amount, op::gt, int64_max - 1}}, with_amount(int64_max - 1)));
  BOOST_TEST(passes({{t::amount, op::ne, int64_max}}, with_amount(int64_max - 1)));
  BOOST_TEST(passes({{t::amount, op::lt, std::int64_t{0}}}, with_amount(-1)));
}

BOOST_AUTO_TEST_CASE(compares_strings_byte_for_byte_and_case_sensitively) {
  ops::row r = full_row();  // note = "Note"
  BOOST_TEST(passes({{t::note, op::eq, std::string("Note")}}, r));
  BOOST_TEST(!passes({{t::note, op::eq, std::string("note")}}, r));
  BOOST_TEST(!passes({{t::note, op::eq, std::string("NOTE")}}, r));
  BOOST_TEST(!passes({{t::note, op::eq, std::string("Note ")}}, r));
  BOOST_TEST(passes({{t::note, op::ne, std::string("note")}}, r));
  BOOST_TEST(!passes({{t::note, op::ne, std::string("Note")}}, r));
  // Precomposed é (U+00E9) and e + combining acute (U+0301) differ in bytes.
  r.slots[t::note].string = "caf\xc3\xa9";
  BOOST_TEST(passes({{t::note, op::eq, std::string("caf\xc3\xa9")}}, r));
  BOOST_TEST(!passes({{t::note, op::eq, std::string("cafe\xcc\x81")}}, r));
  // An embedded NUL is a byte like any other.
  r.slots[t::note].string = std::string_view("a\0b", 3);
  BOOST_TEST(passes({{t::note, op::eq, std::string("a\0b", 3)}}, r));
  BOOST_TEST(!passes({{t::note, op::eq, std::string("a")}}, r));
}

BOOST_AUTO_TEST_CASE(distinguishes_the_empty_string_from_null) {
  ops::row r = full_row();
  r.slots[t::note].string = {};
  BOOST_TEST(passes({{t::note, op::eq, std::string()}}, r));
  BOOST_TEST(!passes({{t::note, op::is_null, {}}}, r));
}

BOOST_AUTO_TEST_CASE(compares_booleans_with_equality) {
  ops::row r = full_row();  // flag = true
  BOOST_TEST(passes({{t::flag, op::eq, true}}, r));
  BOOST_TEST(!passes({{t::flag, op::eq, false}}, r));
  BOOST_TEST(passes({{t::flag, op::ne, false}}, r));
  r.slots[t::flag].boolean = false;
  BOOST_TEST(passes({{t::flag, op::eq, false}}, r));
  BOOST_TEST(!passes({{t::flag, op::ne, false}}, r));
}

BOOST_AUTO_TEST_CASE(requires_every_condition_to_hold) {
  ops::row r = full_row();
  BOOST_TEST(passes({{t::amount, op::ge, std::int64_t{100}}, {t::id, op::eq, std::string("o-1")}}, r));
  BOOST_TEST(!passes({{t::amount, op::ge, std::int64_t{100}}, {t::id, op::eq, std::string("o-2")}}, r));
  BOOST_TEST(!passes({{t::amount, op::gt, std::int64_t{100}}, {t::id, op::eq, std::string("o-1")}}, r));
  r.slots[t::note].is_null = true;
  // True AND unknown is not true.
  BOOST_TEST(!passes({{t::amount, op::ge, std::int64_t{0}}, {t::note, op::ne, std::string("x")}}, r));
  BOOST_TEST(passes({{t::amount, op::ge, std::int64_t{0}}, {t::note, op::is_null, {}}}, r));
}

BOOST_AUTO_TEST_CASE(refuses_a_plan_whose_literal_type_differs_from_the_column) {
  BOOST_CHECK_THROW(ops::predicate_definition(t::orders_plan_where({{t::amount, op::ge, std::string("50")}})),
                    std::invalid_argument);
  BOOST_CHECK_THROW(ops::predicate_definition(t::orders_plan_where({{t::flag, op::eq, std::monostate{}}})),
                    std::invalid_argument);
  BOOST_CHECK_THROW(ops::predicate_definition(t::orders_plan_where({{9, op::is_null, {}}})),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
