// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// A single SELECT's plan turned into a routed plan (issue 39) on the same
// schema and identity, as compile writes one: the SELECT's own sink topic,
// predicate and projection left empty, the routes in their place, and the
// version they need. The unit tests' one way to build a routed plan.

#include "plan/plan.hpp"

#include <utility>
#include <vector>

namespace streamt::test {

inline plan::plan routed(plan::plan p, std::vector<plan::route> routes) {
  p.identity.sink_topic.clear();
  p.predicate.clear();
  p.projection.clear();
  p.routes = std::move(routes);
  p.version = plan::required_version(p);
  return p;
}

}  // namespace streamt::test
