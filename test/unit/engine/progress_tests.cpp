// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/progress.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace streamt::engine;
using namespace std::chrono_literals;
using kind = progress_line::kind;

// A tracker driven by a fake clock that starts at an arbitrary point.
struct fake_run {
  progress_tracker tracker;
  progress_tracker::clock::time_point now = progress_tracker::clock::time_point{} + 1000h;

  std::optional<progress_line> at(std::chrono::milliseconds later, std::uint64_t consumed, std::uint64_t lag,
                                  std::optional<std::uint64_t> dead_lettered = 0) {
    now += later;
    return tracker.on(now, {consumed, dead_lettered, lag});
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(progress)

BOOST_AUTO_TEST_CASE(a_run_that_starts_behind_says_so_at_once_with_its_lag) {
  fake_run r;
  std::optional<progress_line> l = r.at(0ms, 100, 50000);
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST((l->what == kind::behind));
  BOOST_TEST(!l->rate.has_value());
  BOOST_TEST(describe(*l) == "behind: lag 50000; 100 consumed, 0 dead-lettered");
}

BOOST_AUTO_TEST_CASE(while_behind_a_line_comes_every_five_seconds_with_rate_lag_and_time_to_catch_up) {
  fake_run r;
  BOOST_TEST_REQUIRE(r.at(0ms, 0, 50000).has_value());
  // Commits every second: 1000 records each, the lag down by 1000.
  for (int s = 1; s < 5; ++s)
    BOOST_TEST(!r.at(1s, 1000u * s, 50000u - 1000u * s).has_value(), "second " << s);
  std::optional<progress_line> l = r.at(1s, 5000, 45000, 3);
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST((l->what == kind::still_behind));
  BOOST_TEST_REQUIRE(l->rate.has_value());
  BOOST_TEST(*l->rate == 1000.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST_REQUIRE(l->catch_up_in.has_value());
  BOOST_TEST(l->catch_up_in->count() == 45);
  BOOST_TEST(describe(*l) ==
             "behind: lag 45000, 1000 records/s, caught up in ~45 s; 5000 consumed, 3 dead-lettered");
  BOOST_TEST(!r.at(1s, 6000, 44000).has_value());
}

BOOST_AUTO_TEST_CASE(the_time_to_catch_up_counts_the_records_that_keep_arriving) {
  fake_run r;
  r.at(0ms, 0, 20000);
  // 1000 records/s consumed, 500/s arriving: the lag shrinks by 500 a second.
  for (int s = 1; s < 5; ++s) r.at(1s, 1000u * s, 20000u - 500u * s);
  std::optional<progress_line> l = r.at(1s, 5000, 17500);
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST_REQUIRE(l->catch_up_in.has_value());
  BOOST_TEST(l->catch_up_in->count() == 35);
}

BOOST_AUTO_TEST_CASE(a_lag_that_grows_is_not_catching_up) {
  fake_run r;
  r.at(0ms, 0, 20000);
  for (int s = 1; s < 5; ++s) r.at(1s, 100u * s, 20000u + 400u * s);
  std::optional<progress_line> l = r.at(1s, 500, 22000);
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST(!l->catch_up_in.has_value());
  BOOST_TEST(describe(*l) ==
             "behind: lag 22000, 100 records/s, not catching up; 500 consumed, 0 dead-lettered");
}

BOOST_AUTO_TEST_CASE(the_rate_covers_only_the_recent_window) {
  fake_run r;
  r.at(0ms, 0, 1000000);
  // A slow minute, then a fast one: the rate is the fast one's.
  for (int s = 1; s <= 60; ++s) r.at(1s, 10u * s, 1000000);
  std::optional<progress_line> last;
  for (int s = 1; s <= 60; ++s)
    if (auto l = r.at(1s, 600u + 2000u * s, 1000000u - 2000u * s)) last = l;
  BOOST_TEST_REQUIRE(last.has_value());
  BOOST_TEST_REQUIRE(last->rate.has_value());
  BOOST_TEST(*last->rate == 2000.0, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(catching_up_is_said_once_with_how_long_the_run_was_behind) {
  fake_run r;
  r.at(0ms, 0, 30000);
  std::optional<progress_line> caught;
  int lines = 0;
  for (int s = 1; s <= 40 && !caught; ++s) {
    std::optional<progress_line> l = r.at(1s, 1000u * s, 30000u - 1000u * std::min(s, 30));
    if (l && l->what == kind::caught_up) caught = l;
    if (l) ++lines;
  }
  BOOST_TEST_REQUIRE(caught.has_value());
  // Within 1000 records (the floor: a second's work is 1000 too): 29 s.
  BOOST_TEST(caught->now.lag == 1000u);
  BOOST_TEST(caught->behind_for.count() == 29);
  BOOST_TEST(describe(*caught) == "caught up: lag 1000 after 29 s behind; 29000 consumed, 0 dead-lettered");
  // Lines at 5, 10, 15, 20, 25 s, and the caught-up one.
  BOOST_TEST(lines == 6);
  // Caught up, nothing more is said while the lag stays small.
  for (int s = 1; s <= 120; ++s) BOOST_TEST(!r.at(1s, 30000u + 10u * s, 5).has_value(), "second " << s);
}

BOOST_AUTO_TEST_CASE(a_plan_without_a_dead_letter_topic_leaves_the_dead_lettered_count_out) {
  progress_tracker t;
  std::optional<progress_line> l = t.on(progress_tracker::clock::time_point{}, {7, std::nullopt, 5000});
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST(describe(*l) == "behind: lag 5000; 7 consumed");
}

BOOST_AUTO_TEST_CASE(a_run_that_starts_caught_up_says_so_without_a_time_behind) {
  fake_run r;
  std::optional<progress_line> l = r.at(0ms, 0, 0);
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST((l->what == kind::caught_up));
  BOOST_TEST(describe(*l) == "caught up: lag 0; 0 consumed, 0 dead-lettered");
}

BOOST_AUTO_TEST_CASE(a_caught_up_run_falls_behind_only_past_ten_times_the_caught_up_bound) {
  fake_run r;
  BOOST_TEST_REQUIRE(r.at(0ms, 0, 0).has_value());
  // 10 records/s: the bound is the floor, 1000 records; behind past 10000.
  BOOST_TEST(!r.at(1s, 10, 9000).has_value());
  BOOST_TEST(!r.at(1s, 20, 10000).has_value());
  std::optional<progress_line> l = r.at(1s, 30, 10001);
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST((l->what == kind::fell_behind));
  BOOST_TEST(describe(*l).starts_with("fell behind: lag 10001, 10 records/s, not catching up; "),
             describe(*l));
}

BOOST_AUTO_TEST_CASE(a_fast_run_counts_a_second_of_its_work_as_caught_up) {
  fake_run r;
  r.at(0ms, 0, 200000);
  // 50000 records/s: a lag of 40000 is under a second's work.
  r.at(1s, 50000, 150000);
  r.at(1s, 100000, 100000);
  std::optional<progress_line> l = r.at(1s, 150000, 40000);
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST((l->what == kind::caught_up));
}

BOOST_AUTO_TEST_CASE(samples_closer_than_a_fifth_of_a_second_share_one_point_of_the_window) {
  fake_run r;
  r.at(0ms, 0, 100000);
  // A thousand commits in 10 s: the rate is still their rate.
  for (int i = 1; i <= 1000; ++i) r.at(10ms, 10u * i, 100000u - 10u * i);
  std::optional<progress_line> l = r.at(10ms, 10010, 89990);
  // The line came at 5 s; ask through one more at 15 s.
  for (int i = 0; i < 500 && !(l && l->what == kind::still_behind); ++i)
    l = r.at(10ms, 10010u + 10u * i, 89990u - 10u * i);
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST_REQUIRE(l->rate.has_value());
  BOOST_TEST(*l->rate == 1000.0, boost::test_tools::tolerance(0.01));
  // About 15 s of samples 10 ms apart: one point per 200 ms (about 77), not
  // one per sample (about 1500).
  BOOST_TEST(r.tracker.points() <= 80u, r.tracker.points());
}

BOOST_AUTO_TEST_CASE(the_lag_sums_each_partitions_distance_to_its_end_and_is_unknown_until_each_is_known) {
  const std::vector<partition_standing> known = {partition_standing{.end = 100, .read_to = 40},
                                                 partition_standing{.end = 7, .read_to = 7},
                                                 partition_standing{.end = 5, .read_to = 9}};
  BOOST_TEST_REQUIRE(total_lag(known).has_value());
  BOOST_TEST(*total_lag(known) == 60u);
  const std::vector<partition_standing> unfetched = {partition_standing{.end = 100, .read_to = 40},
                                                     partition_standing{.read_to = 0}};
  BOOST_TEST(!total_lag(unfetched).has_value());
  const std::vector<partition_standing> unread = {partition_standing{.end = 100}};
  BOOST_TEST(!total_lag(unread).has_value());
  BOOST_TEST_REQUIRE(total_lag({}).has_value());
  BOOST_TEST(*total_lag({}) == 0u);
}

BOOST_AUTO_TEST_CASE(a_partition_not_read_from_yet_stands_where_it_was_assigned_or_at_its_log_start) {
  const std::vector<partition_standing> assigned = {
      partition_standing{.end = 100, .assigned_at = 60, .log_start = 0}};
  BOOST_TEST_REQUIRE(total_lag(assigned).has_value());
  BOOST_TEST(*total_lag(assigned) == 40u);
  const std::vector<partition_standing> earliest = {partition_standing{.end = 100, .log_start = 30}};
  BOOST_TEST_REQUIRE(total_lag(earliest).has_value());
  BOOST_TEST(*total_lag(earliest) == 70u);
  const std::vector<partition_standing> not_fetched = {partition_standing{.end = 100}};
  BOOST_TEST(!total_lag(not_fetched).has_value());
}

BOOST_AUTO_TEST_CASE(a_partition_never_stands_behind_what_this_process_committed) {
  const std::vector<partition_standing> p = {
      partition_standing{.end = 100, .read_to = 50, .assigned_at = 10, .log_start = 0, .committed = 80}};
  BOOST_TEST_REQUIRE(total_lag(p).has_value());
  BOOST_TEST(*total_lag(p) == 20u);
  const std::vector<partition_standing> read_past = {
      partition_standing{.end = 100, .read_to = 90, .assigned_at = 10, .log_start = 0, .committed = 80}};
  BOOST_TEST_REQUIRE(total_lag(read_past).has_value());
  BOOST_TEST(*total_lag(read_past) == 10u);
}

BOOST_AUTO_TEST_CASE(partitions_are_named_compactly_with_runs_as_ranges) {
  BOOST_TEST(name_partitions("orders", {5, 0, 2}) == "orders[0,2,5]");
  BOOST_TEST(name_partitions("orders", {3, 1, 2, 0, 4, 5}) == "orders[0-5]");
  BOOST_TEST(name_partitions("orders", {0, 1, 3, 4, 5, 9}) == "orders[0,1,3-5,9]");
  BOOST_TEST(name_partitions("orders", {}) == "orders[]");
}

BOOST_AUTO_TEST_CASE(a_long_list_of_partitions_ends_in_how_many_more) {
  std::vector<std::int32_t> even;
  for (std::int32_t p = 0; p < 200; p += 2) even.push_back(p);
  BOOST_TEST(name_partitions("orders", even) ==
             "orders[0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30] and 84 more");
  std::vector<std::int32_t> all;
  for (std::int32_t p = 0; p < 1000; ++p) all.push_back(p);
  BOOST_TEST(name_partitions("orders", all) == "orders[0-999]");
}

BOOST_AUTO_TEST_CASE(durations_read_as_seconds_minutes_or_hours) {
  BOOST_TEST(roughly(std::chrono::seconds(0)) == "0 s");
  BOOST_TEST(roughly(std::chrono::seconds(99)) == "99 s");
  BOOST_TEST(roughly(std::chrono::seconds(100)) == "2 min");
  BOOST_TEST(roughly(std::chrono::seconds(5999)) == "1 h 40 min");
  BOOST_TEST(roughly(std::chrono::seconds(3 * 3600 + 5 * 60)) == "3 h 5 min");
}

BOOST_AUTO_TEST_SUITE_END()
