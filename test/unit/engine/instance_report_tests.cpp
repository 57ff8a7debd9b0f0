// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/instance_report.hpp"

#include <boost/test/unit_test.hpp>

// engine/instance_report.hpp: what `streamt status` says of each instance.

namespace e = streamt::engine;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(instance_report)

BOOST_AUTO_TEST_CASE(an_instance_with_records_waiting_and_no_recent_commit_is_not_heard_from) {
  const std::int64_t now = 1'000'000;
  const std::vector<e::committed_partition> parts{
      {"orders/0", "live", now - 200, 10},
      {"orders/1", "dead", now - 47'000, 500},
      {"orders/2", "dead", now - 52'000, 700},
      {"orders/3", "live", now - 900, 0},
  };
  const auto r = e::report_instances(parts, now, 30s);
  BOOST_TEST_REQUIRE(r.size() == 2u);
  BOOST_TEST(r[0].instance == "dead");
  BOOST_TEST(r[0].silent);
  BOOST_TEST(r[0].lag == 1200);
  // The newest of its commits counts.
  BOOST_TEST_REQUIRE(r[0].since_last_commit.has_value());
  BOOST_TEST(r[0].since_last_commit->count() == 47'000);
  BOOST_TEST((r[0].partitions == std::vector<std::string>{"orders/1", "orders/2"}));
  BOOST_TEST(r[1].instance == "live");
  BOOST_TEST(!r[1].silent);
  BOOST_TEST(r[1].since_last_commit->count() == 200);
}

BOOST_AUTO_TEST_CASE(an_idle_instance_with_nothing_to_do_is_not_called_silent_however_old_its_commit) {
  const auto r = e::report_instances({{"orders/0", "idle", 0, 0}}, 10'000'000, 30s);
  BOOST_TEST_REQUIRE(r.size() == 1u);
  BOOST_TEST(!r[0].silent);
  BOOST_TEST(r[0].since_last_commit->count() == 10'000'000);
}

BOOST_AUTO_TEST_CASE(a_commit_without_a_time_or_without_an_instance_says_nothing_of_silence) {
  const std::vector<e::committed_partition> parts{
      {"orders/0", "old-engine", std::nullopt, 900},
      {"orders/1", "", 5, 900},
  };
  const auto r = e::report_instances(parts, 1'000'000, 30s);
  BOOST_TEST_REQUIRE(r.size() == 1u);
  BOOST_TEST(r[0].instance == "old-engine");
  BOOST_TEST(!r[0].since_last_commit.has_value());
  BOOST_TEST(!r[0].silent);
}

BOOST_AUTO_TEST_CASE(a_committer_clock_ahead_of_ours_reads_as_just_now) {
  const auto r = e::report_instances({{"orders/0", "ahead", 2'000, 5}}, 1'000, 30s);
  BOOST_TEST(r[0].since_last_commit->count() == 0);
  BOOST_TEST(!r[0].silent);
}

BOOST_AUTO_TEST_CASE(the_longest_wait_is_a_partitions_not_hidden_by_its_instances_newer_commits) {
  const std::int64_t now = 1'000'000;
  // orders/1 is moving from "live" to a new owner that has not committed:
  // it still shows live's commit of 40 s ago, while live commits orders/0.
  const std::vector<e::committed_partition> parts{
      {"orders/0", "live", now - 100, 5},
      {"orders/1", "live", now - 40'000, 300},
      {"orders/2", "live", now - 90'000, 0},  // nothing waits: not a wait
  };
  const auto wait = e::longest_wait(parts, now);
  BOOST_TEST_REQUIRE(wait.has_value());
  BOOST_TEST(wait->count() == 40'000);
  // The instance itself was heard from 0.1 s ago.
  BOOST_TEST(e::report_instances(parts, now, 30s)[0].since_last_commit->count() == 100);
  BOOST_TEST(!e::longest_wait({{"orders/0", "x", std::nullopt, 9}}, now).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
