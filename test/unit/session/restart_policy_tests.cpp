// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/restart_policy.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string_view>

// engine/session/restart_policy.hpp: whether an attempt that ended is
// restarted in-process, and when restarting gives up.

namespace ss = streamt::engine::session;
using ss::restart_verdict;
using namespace std::chrono_literals;

namespace {
const std::chrono::steady_clock::time_point t0{};  // the time the tests count from

constexpr std::string_view give_up_advice =
    "3 in-process restarts within ten minutes did not help: restart the engine, and if it fails again look "
    "at the brokers' transaction coordinator";

// A restartable attempt that ended at `at`, with no stop asked.
restart_verdict restartable_end(ss::restart_policy& p, std::chrono::steady_clock::duration at) {
  return p.after_attempt(true, false, t0 + at).verdict;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(restart_policy)

BOOST_AUTO_TEST_CASE(an_attempt_that_is_not_restartable_ends_the_run) {
  ss::restart_policy p;
  const ss::restart_decision d = p.after_attempt(false, false, t0);
  BOOST_TEST((d.verdict == restart_verdict::end));
  BOOST_TEST(d.advice.empty());
  BOOST_TEST(p.restarts() == 0U);
}

BOOST_AUTO_TEST_CASE(a_stop_ends_the_run_even_after_a_restartable_error) {
  ss::restart_policy p;
  BOOST_TEST((p.after_attempt(true, true, t0).verdict == restart_verdict::end));
  BOOST_TEST((p.after_attempt(false, true, t0).verdict == restart_verdict::end));
  BOOST_TEST(p.restarts() == 0U);
}

BOOST_AUTO_TEST_CASE(a_restartable_attempt_restarts_and_is_counted) {
  ss::restart_policy p;
  const ss::restart_decision d = p.after_attempt(true, false, t0);
  BOOST_TEST((d.verdict == restart_verdict::restart));
  BOOST_TEST(d.advice.empty());
  BOOST_TEST(p.restarts() == 1U);
}

BOOST_AUTO_TEST_CASE(a_fourth_restart_within_ten_minutes_gives_up) {
  ss::restart_policy p;
  BOOST_TEST((restartable_end(p, 0min) == restart_verdict::restart));
  BOOST_TEST((restartable_end(p, 3min) == restart_verdict::restart));
  BOOST_TEST((restartable_end(p, 6min) == restart_verdict::restart));
  BOOST_TEST((restartable_end(p, 9min) == restart_verdict::give_up));
  BOOST_TEST(p.restarts() == 3U);
}

BOOST_AUTO_TEST_CASE(giving_up_says_to_restart_the_engine_and_look_at_the_transaction_coordinator) {
  ss::restart_policy p;
  for (int i = 0; i < 3; ++i) p.after_attempt(true, false, t0 + i * 1s);
  const ss::restart_decision d = p.after_attempt(true, false, t0 + 3s);
  BOOST_TEST((d.verdict == restart_verdict::give_up));
  BOOST_TEST(d.advice == give_up_advice);
}

BOOST_AUTO_TEST_CASE(a_restart_older_than_ten_minutes_slides_out_of_the_window) {
  ss::restart_policy p;
  restartable_end(p, 0min);
  restartable_end(p, 4min);
  restartable_end(p, 8min);
  // The one at 0 is more than ten minutes old: two are left in the window.
  BOOST_TEST((restartable_end(p, 10min + 1s) == restart_verdict::restart));
  BOOST_TEST(p.restarts() == 4U);
  // Now 4, 8 and 10:01 are within ten minutes of 12 minutes.
  BOOST_TEST((restartable_end(p, 12min) == restart_verdict::give_up));
  // Once 4 and 8 slid out too, restarts are granted again.
  BOOST_TEST((restartable_end(p, 18min + 1s) == restart_verdict::restart));
  BOOST_TEST(p.restarts() == 5U);
}

BOOST_AUTO_TEST_CASE(a_restart_exactly_ten_minutes_old_still_counts) {
  ss::restart_policy p;
  restartable_end(p, 0min);
  restartable_end(p, 1min);
  restartable_end(p, 2min);
  BOOST_TEST((restartable_end(p, 10min) == restart_verdict::give_up));
  BOOST_TEST((restartable_end(p, 10min + 1ns) == restart_verdict::restart));
}

BOOST_AUTO_TEST_CASE(attempts_that_end_the_run_take_no_place_in_the_window) {
  ss::restart_policy p;
  p.after_attempt(false, false, t0);
  p.after_attempt(true, true, t0);
  restartable_end(p, 1s);
  restartable_end(p, 2s);
  BOOST_TEST((restartable_end(p, 3s) == restart_verdict::restart));
  BOOST_TEST(p.restarts() == 3U);
}

BOOST_AUTO_TEST_CASE(the_bound_and_the_window_can_be_chosen_and_the_advice_names_them) {
  ss::restart_policy p(1, 1min);
  BOOST_TEST((restartable_end(p, 0s) == restart_verdict::restart));
  const ss::restart_decision d = p.after_attempt(true, false, t0 + 30s);
  BOOST_TEST((d.verdict == restart_verdict::give_up));
  BOOST_TEST(d.advice.starts_with("1 in-process restart within a minute did not help"));
  BOOST_TEST((restartable_end(p, 1min + 1s) == restart_verdict::restart));
}

BOOST_AUTO_TEST_SUITE_END()
