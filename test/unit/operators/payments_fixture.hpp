// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// A Debezium-shaped schema with every type of plan version 2, shared by the
// operator tests and test/data/records/payments.records:
//   op STRING NOT NULL, ts_ms TIMESTAMP NOT NULL,
//   before ROW NULL, after ROW NULL, each {id BIGINT NOT NULL,
//     amount DECIMAL(10,2) NOT NULL, score DOUBLE NULL, paid_at TIMESTAMP NULL,
//     tags JSON NULL},
//   source ROW NOT NULL {db STRING NOT NULL} ignoring undeclared members
// projected as after.id AS id, after.amount AS amount, after.score AS score,
// after.paid_at AS paid_at, after.tags AS tags, source, ts_ms.

#include "plan/plan.hpp"

#include <cstddef>

namespace streamt::operators::test {

// Node indices (plan::flatten's pre-order).
namespace payments {
inline constexpr std::size_t op = 0, ts_ms = 1, before = 2, after = 8, after_id = 9, after_amount = 10,
                             after_score = 11, after_paid_at = 12, after_tags = 13, source = 14,
                             source_db = 15;
}

inline plan::schema payments_schema() {
  using plan::column;
  using plan::column_type;
  auto change = [](const char* name) {
    column c{name, column_type::row, true};
    c.fields = {{"id", column_type::bigint, false},
                {"amount", column_type::decimal, false, 10, 2},
                {"score", column_type::double_, true},
                {"paid_at", column_type::timestamp, true},
                {"tags", column_type::json, true}};
    return c;
  };
  column source{"source", column_type::row, false};
  source.fields = {{"db", column_type::string, false}};
  source.unknown_fields = plan::unknown_fields::ignore;
  plan::schema s;
  s.source = "payments";
  s.topic = "payments";
  s.columns = {{"op", column_type::string, false},
               {"ts_ms", column_type::timestamp, false},
               change("before"),
               change("after"),
               source};
  return s;
}

inline plan::plan payments_plan() {
  namespace n = payments;
  plan::plan p;
  p.identity = {"payments-test", "payments", "payments-out"};
  p.schema = payments_schema();
  p.projection = {{n::after_id, "id"},       {n::after_amount, "amount"},
                  {n::after_score, "score"}, {n::after_paid_at, "paid_at"},
                  {n::after_tags, "tags"},   {n::source, "source"},
                  {n::ts_ms, "ts_ms"}};
  p.version = plan::required_version(p);
  return p;
}

}  // namespace streamt::operators::test
