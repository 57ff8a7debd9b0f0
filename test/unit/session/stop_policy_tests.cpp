// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/stop_policy.hpp"

#include <boost/test/unit_test.hpp>

// engine/session/stop_policy.hpp: which stop is new, and what the stops so far
// allow.

namespace ss = streamt::engine::session;
using ss::stop_news;

namespace {
constexpr ss::stop_facts graceful{.requested = true, .terminal = false, .deadline = false};
constexpr ss::stop_facts terminal{.requested = true, .terminal = true, .deadline = false};
constexpr ss::stop_facts deadline{.requested = true, .terminal = true, .deadline = true};
}  // namespace

BOOST_AUTO_TEST_SUITE(stop_policy)

BOOST_AUTO_TEST_CASE(a_first_stop_is_news_once_and_a_terminal_stop_after_it_is_news_again) {
  ss::stop_policy p;
  BOOST_TEST((p.news({}) == stop_news::none));
  BOOST_TEST((p.news(graceful) == stop_news::graceful));
  p.handled(stop_news::graceful);
  BOOST_TEST((p.news(graceful) == stop_news::none));
  BOOST_TEST(p.signalled());
  BOOST_TEST(!p.terminal());
  BOOST_TEST(p.leaves_group(graceful));
  BOOST_TEST((p.news(terminal) == stop_news::terminal));
  p.handled(stop_news::terminal);
  BOOST_TEST((p.news(terminal) == stop_news::none));
  BOOST_TEST(!p.leaves_group(terminal));
}

BOOST_AUTO_TEST_CASE(a_caller_s_terminal_stop_without_a_graceful_one_is_terminal_at_once) {
  ss::stop_policy p;
  BOOST_TEST((p.news(terminal) == stop_news::terminal));
}

BOOST_AUTO_TEST_CASE(the_passed_deadline_comes_before_any_stop_and_makes_the_stop_terminal) {
  ss::stop_policy p;
  p.handled(stop_news::graceful);
  BOOST_TEST((p.news(deadline) == stop_news::deadline));
  p.handled(stop_news::deadline);
  BOOST_TEST(p.terminal());
  BOOST_TEST(p.past_deadline());
  BOOST_TEST((p.news(deadline) == stop_news::none));
  BOOST_TEST(!p.leaves_group({}));
}

BOOST_AUTO_TEST_CASE(a_stop_at_an_invalid_record_is_stopping_without_a_signal_and_can_resume) {
  ss::stop_policy p;
  p.stop_at_record();
  BOOST_TEST(p.stopping());
  BOOST_TEST(!p.signalled());
  BOOST_TEST((p.news(graceful) == stop_news::graceful));  // a signal on top is still news
  p.resume_at_record();
  BOOST_TEST(!p.stopping());
  p.handled(stop_news::graceful);
  p.stop_at_record();
  p.resume_at_record();
  BOOST_TEST(p.stopping());  // the signal's stop stays
}

BOOST_AUTO_TEST_SUITE_END()
