// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include <boost/test/unit_test.hpp>

#include "engine/session/backoff.hpp"

#include <chrono>
#include <limits>

// engine/session/backoff.hpp: the pause between a Schema Registry outage's
// attempts.

namespace ss = streamt::engine::session;

BOOST_AUTO_TEST_SUITE(registry_backoff)

BOOST_AUTO_TEST_CASE(backoff_doubles_from_the_first_delay_up_to_its_cap) {
  const ss::backoff_policy p{std::chrono::milliseconds(100), std::chrono::milliseconds(1000)};
  // The top of each draw (unit just under 1) is the undrawn delay.
  const double top = 0.999999;
  BOOST_TEST(ss::backoff_delay(p, 0, top).count() == 100);
  BOOST_TEST(ss::backoff_delay(p, 1, top).count() == 200);
  BOOST_TEST(ss::backoff_delay(p, 3, top).count() == 800);
  BOOST_TEST(ss::backoff_delay(p, 4, top).count() == 1000);
  BOOST_TEST(ss::backoff_delay(p, 4000000000u, top).count() == 1000);
}

BOOST_AUTO_TEST_CASE(backoff_jitter_stays_in_the_upper_half_of_the_delay) {
  const ss::backoff_policy p{std::chrono::milliseconds(100), std::chrono::milliseconds(1000)};
  BOOST_TEST(ss::backoff_delay(p, 2, 0.0).count() == 200);
  BOOST_TEST(ss::backoff_delay(p, 2, 0.5).count() == 300);
  for (double u = 0.0; u < 1.0; u += 0.01) {
    const auto d = ss::backoff_delay(p, 2, u).count();
    BOOST_TEST(d >= 200);
    BOOST_TEST(d <= 400);
  }
  // Out-of-range and NaN draws fall to the floor rather than anywhere else.
  BOOST_TEST(ss::backoff_delay(p, 2, -1.0).count() == 200);
  BOOST_TEST(ss::backoff_delay(p, 2, 1.0).count() == 200);
  BOOST_TEST(ss::backoff_delay(p, 2, std::numeric_limits<double>::quiet_NaN()).count() == 200);
}

BOOST_AUTO_TEST_CASE(a_cap_below_the_first_delay_caps_it) {
  const ss::backoff_policy p{std::chrono::milliseconds(500), std::chrono::milliseconds(50)};
  BOOST_TEST(ss::backoff_delay(p, 0, 0.999).count() == 50);
  static_assert(
      ss::backoff_delay({std::chrono::milliseconds(1), std::chrono::milliseconds(1)}, 9, 0.5).count() == 1);
}

BOOST_AUTO_TEST_SUITE_END()
