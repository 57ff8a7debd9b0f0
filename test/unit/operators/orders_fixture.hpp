// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The schema shared by the operator tests and the record table:
//   id STRING NOT NULL, amount BIGINT NOT NULL, note STRING NULL, flag BOOLEAN NULL
// projected as amount, id AS order_id, flag, note (a different order, one alias)
// with no predicate unless a test adds one.

#include "plan/plan.hpp"

#include <cstdint>
#include <string>

namespace streamt::operators::test {

inline constexpr std::size_t id = 0, amount = 1, note = 2, flag = 3;

inline plan::schema orders_schema() {
  plan::schema s;
  s.source = "orders";
  s.topic = "orders";
  s.columns = {{"id", plan::column_type::string, false},
               {"amount", plan::column_type::bigint, false},
               {"note", plan::column_type::string, true},
               {"flag", plan::column_type::boolean, true}};
  return s;
}

inline plan::plan orders_plan() {
  plan::plan p;
  p.identity = {"orders-test", "orders", "orders-out"};
  p.schema = orders_schema();
  p.projection = {{amount, "amount"}, {id, "order_id"}, {flag, "flag"}, {note, "note"}};
  return p;
}

inline plan::plan orders_plan_where(std::vector<plan::condition> predicate) {
  plan::plan p = orders_plan();
  p.predicate = std::move(predicate);
  return p;
}

}  // namespace streamt::operators::test
