// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// How long the session waits before asking an outage's Schema Registry
// again (kafka/registry/failure.hpp's verdict retry): pure, with the
// randomness passed in so tests can fix it.

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace streamt::engine::session {

struct backoff_policy {
  std::chrono::milliseconds initial{100};
  std::chrono::milliseconds max{10'000};
};

// The delay before retry number `attempt` (0 for the first retry): initial *
// 2^attempt, capped at max, then drawn from its upper half by `unit`, a
// number in [0, 1) from the caller's random source. Half, not all of it: an
// instance retrying after a registry restart keeps a floor under its delay,
// while instances that failed together still spread out.
constexpr std::chrono::milliseconds backoff_delay(const backoff_policy& p, unsigned attempt,
                                                  double unit) noexcept {
  const std::int64_t cap = std::max<std::int64_t>(p.max.count(), 1);
  std::int64_t d = std::clamp<std::int64_t>(p.initial.count(), 1, cap);
  for (unsigned i = 0; i < attempt && d < cap; ++i) d = std::min(cap, d * 2);
  const double u = (unit >= 0.0 && unit < 1.0) ? unit : 0.0;  // NaN and out-of-range values: the floor
  const std::int64_t half = d / 2;
  // u * (half + 1) < half + 1, so its floor is at most half: d - half .. d.
  const auto extra = std::min(half, static_cast<std::int64_t>(u * static_cast<double>(half + 1)));
  return std::chrono::milliseconds(d - half + extra);
}

}  // namespace streamt::engine::session
