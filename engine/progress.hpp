// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// How far a run is from the end of its input, in words for its operator.
// The driver feeds progress_tracker the records consumed and the lag after
// each commit (and after a poll that found nothing); the tracker says when
// a line is due and what it says: a line every few seconds while the run
// is behind (the rate, the lag, the time to catch up), one when it catches
// up, one when it falls behind again. Pure: no I/O, the clock passed in
// (test/unit/engine/progress_tests.cpp).
//
// Also here, since the same lines need them: the source's lag from each
// partition's positions, and a list of partitions short enough for a line.

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace streamt::engine {

// What the run knows of one partition without asking the broker: its end
// offset as the consumer last saw it, the consumer's position (after the
// last record handed over, past markers and aborted records, which hold no
// record for a read_committed reader; nullopt before the first record
// since the assignment), where it was assigned or rewound to (nullopt: the
// earliest offset), its log start as the last fetch response said, and the
// offset this process last committed for it.
struct partition_standing {
  std::optional<std::int64_t> end = std::nullopt;
  std::optional<std::int64_t> read_to = std::nullopt;
  std::optional<std::int64_t> assigned_at = std::nullopt;
  std::optional<std::int64_t> log_start = std::nullopt;
  std::optional<std::int64_t> committed = std::nullopt;
};

// The records between where the run stands and the end of each partition,
// summed (a partition at or past its end counts 0). A partition stands at
// the consumer's position; before its first record, where it was assigned
// (or its log start, for the earliest); never behind what this process
// committed. nullopt while a partition's end or standing is not known yet
// (not fetched from).
std::optional<std::uint64_t> total_lag(std::span<const partition_standing> partitions);

// "orders[0,2,5]", "orders[0-5,9]": the partitions of a topic, sorted, runs
// of three or more as ranges; after `max_items` numbers or ranges, " and N
// more" (N partitions), so that a line stays short with any partition count.
std::string name_partitions(const std::string& topic, std::vector<std::int32_t> partitions,
                            std::size_t max_items = 16);

struct progress_settings {
  // A line this often while behind.
  std::chrono::seconds every{5};
  // The rate and the time to catch up are measured over this much of the
  // recent past.
  std::chrono::seconds window{30};
  // Caught up: a lag of at most this many records, or of at most this much
  // work at the current rate, whichever is more. A source that keeps
  // receiving records never shows a lag of 0 at a commit: what arrived
  // while the transaction committed is already waiting.
  std::uint64_t caught_up_records = 1000;
  std::chrono::seconds caught_up_work{1};
  // Behind again: a lag of more than this many times the caught-up bound,
  // so that a lag near the bound does not flip the state back and forth.
  std::uint64_t behind_factor = 10;
};

// What the run has done so far, and its lag now.
struct progress_sample {
  std::uint64_t consumed = 0;  // every record consumed, the dead-lettered ones included
  // nullopt for a plan without a dead-letter topic: the lines leave out a
  // count that is always 0.
  std::optional<std::uint64_t> dead_lettered;
  std::uint64_t lag = 0;
};

struct progress_line {
  enum class kind {
    behind,        // the first sample, with a lag over the caught-up bound
    fell_behind,   // caught up before, the lag grew past the behind bound
    still_behind,  // every `every` while behind
    caught_up,     // the lag came within the caught-up bound (or was within it at the first sample)
  };
  kind what = kind::behind;
  progress_sample now;
  // Records per second over the window; nullopt at the first sample.
  std::optional<double> rate;
  // At the pace the lag shrank over the window; nullopt when it did not
  // shrink ("not catching up") or at the first sample.
  std::optional<std::chrono::seconds> catch_up_in;
  // caught_up: how long the run was behind (0 when it never was).
  std::chrono::seconds behind_for{0};
};

// The line's message: "behind: lag 120000, 4512 records/s, caught up in
// ~27 s; 3000 consumed, 2 dead-lettered". Short: a text line's prefix (time,
// level, channel, pipeline) takes about 80 characters already.
std::string describe(const progress_line& line);

// "27 s", "4 min", "2 h 5 min": a duration as a person reads it.
std::string roughly(std::chrono::seconds d);

class progress_tracker {
 public:
  using clock = std::chrono::steady_clock;

  explicit progress_tracker(progress_settings s = {}) : settings_(s) {}

  // A sample taken at `now`: the line due, if one is.
  std::optional<progress_line> on(clock::time_point now, progress_sample s);
  // The samples kept for the window: at most window / 200 ms + 2.
  std::size_t points() const noexcept { return window_.size(); }

 private:
  struct point {
    clock::time_point at;
    progress_sample sample;
  };
  enum class state { unknown, behind, caught_up };

  progress_line line(progress_line::kind what, clock::time_point now) const;
  std::optional<double> rate() const;
  std::uint64_t caught_up_bound(std::optional<double> rate) const;

  progress_settings settings_;
  // The samples of the window, oldest first; the oldest may be older than
  // the window, so that the rate spans all of it.
  std::deque<point> window_;
  state state_ = state::unknown;
  clock::time_point behind_since_{};
  clock::time_point last_line_{};
};

}  // namespace streamt::engine
