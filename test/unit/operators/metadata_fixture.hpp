// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The plan of the metadata column tests (metadata_column_tests.cpp) and of
// the metadata record tables (test/data/records/metadata_*.records): one
// value column, the `tenant` header, the key as the given column, and the
// record's timestamp, partition and offset.

#include "plan/plan.hpp"

#include <utility>

namespace streamt::operators::test {

inline plan::column from(const char* name, plan::column_type t, bool nullable, plan::column_source s,
                         const char* header = "") {
  plan::column c{name, t, nullable};
  c.from = s;
  c.header = header;
  return c;
}

// SELECT amount, tenant, k, at, p, o FROM events (no predicate).
inline plan::plan metadata_plan(plan::column key) {
  using plan::column_source;
  using plan::column_type;
  plan::plan p;
  p.identity = {"meta-test", "events", "events-out"};
  p.schema.source = "events";
  p.schema.topic = "events";
  p.schema.columns = {{"amount", column_type::bigint, false},
                      from("tenant", column_type::string, true, column_source::header, "tenant"),
                      std::move(key),
                      from("at", column_type::timestamp, false, column_source::timestamp),
                      from("p", column_type::bigint, false, column_source::partition),
                      from("o", column_type::bigint, false, column_source::offset)};
  p.projection = {{0, "amount"}, {1, "tenant"}, {2, "k"}, {3, "at"}, {4, "p"}, {5, "o"}};
  p.version = plan::required_version(p);
  return p;
}

}  // namespace streamt::operators::test
