// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// A decoded slot of a non-ROW column as a plain JSON value, for comparing a
// decoder's row with an oracle's values: BIGINT and TIMESTAMP (epoch
// milliseconds) as numbers, DOUBLE, BOOLEAN, STRING, a DECIMAL as its text
// at the column's scale, a JSON column as the JSON it holds; null when null.

#include "operators/row.hpp"
#include "plan/plan.hpp"
#include "plan/values.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace streamt::test {

inline boost::json::value slot_json(const plan::column& c, const operators::slot& s) {
  if (s.is_null) return nullptr;
  switch (c.type) {
    case plan::column_type::bigint:
    case plan::column_type::timestamp:
      return s.bigint;
    case plan::column_type::double_:
      return s.dbl;
    case plan::column_type::boolean:
      return s.boolean;
    case plan::column_type::string:
      return boost::json::string(s.string);
    case plan::column_type::decimal:
      return boost::json::string(plan::format_decimal({s.decimal}, c.scale));
    case plan::column_type::json:
      return boost::json::parse(s.string);
    case plan::column_type::row:
      break;
  }
  return nullptr;
}

}  // namespace streamt::test
