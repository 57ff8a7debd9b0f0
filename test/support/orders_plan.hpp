// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The unit tests' plan: orders (id STRING, amount BIGINT) into big-orders,
// application orders-big: SELECT id, amount FROM orders WHERE amount >= MIN.

#include "plan/plan.hpp"

#include <cstdint>

namespace streamt::test {

inline plan::plan orders_plan(std::int64_t min) {
  plan::plan p;
  p.identity.application_id = "orders-big";
  p.identity.source_topic = "orders";
  p.identity.sink_topic = "big-orders";
  p.schema.source = "orders";
  p.schema.topic = "orders";
  p.schema.columns = {{"id", plan::column_type::string, false}, {"amount", plan::column_type::bigint, false}};
  p.predicate = {{1, plan::compare_op::ge, min}};
  p.projection = {{0, "id"}, {1, "amount"}};
  return p;
}

}  // namespace streamt::test
