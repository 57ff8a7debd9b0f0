// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace streamt::engine {

std::optional<std::uint64_t> total_lag(std::span<const partition_standing> partitions) {
  std::uint64_t lag = 0;
  for (const partition_standing& p : partitions) {
    std::optional<std::int64_t> at = p.read_to ? p.read_to : p.assigned_at ? p.assigned_at : p.log_start;
    if (p.committed && (!at || *at < *p.committed)) at = p.committed;
    if (!p.end || !at) return std::nullopt;
    if (*p.end > *at) lag += static_cast<std::uint64_t>(*p.end - *at);
  }
  return lag;
}

std::string name_partitions(const std::string& topic, std::vector<std::int32_t> partitions,
                            std::size_t max_items) {
  std::sort(partitions.begin(), partitions.end());
  partitions.erase(std::unique(partitions.begin(), partitions.end()), partitions.end());
  std::string out = topic + "[";
  std::size_t items = 0, named = 0;
  for (std::size_t i = 0; i < partitions.size() && items < max_items; ++items) {
    std::size_t j = i;
    while (j + 1 < partitions.size() && partitions[j + 1] == partitions[j] + 1) ++j;
    if (items != 0) out += ',';
    // A run of two is two numbers: "0,1" is no longer than "0-1" and reads plainer.
    if (j - i >= 2) {
      out += std::to_string(partitions[i]) + "-" + std::to_string(partitions[j]);
    } else {
      out += std::to_string(partitions[i]);
      j = i;
    }
    named += j - i + 1;
    i = j + 1;
  }
  out += "]";
  if (named < partitions.size()) out += " and " + std::to_string(partitions.size() - named) + " more";
  return out;
}

std::string roughly(std::chrono::seconds d) {
  const long long s = std::max<long long>(0, d.count());
  if (s < 100) return std::to_string(s) + " s";
  const long long min = (s + 30) / 60;
  if (min < 100) return std::to_string(min) + " min";
  return std::to_string(min / 60) + " h " + std::to_string(min % 60) + " min";
}

namespace {

std::string records_per_second(double rate) {
  char buf[32];
  // Below 10 a whole number says too little (a slow plan is 2.5, not 2 or 3).
  if (rate < 10)
    std::snprintf(buf, sizeof buf, "%.1f", rate);
  else
    std::snprintf(buf, sizeof buf, "%.0f", rate);
  return std::string(buf) + " records/s";
}

std::string counts(const progress_sample& s) {
  std::string out = std::to_string(s.consumed) + " consumed";
  if (s.dead_lettered) out += ", " + std::to_string(*s.dead_lettered) + " dead-lettered";
  return out;
}

}  // namespace

std::string describe(const progress_line& line) {
  const std::string lag = "lag " + std::to_string(line.now.lag);
  if (line.what == progress_line::kind::caught_up) {
    const std::string after =
        line.behind_for.count() > 0 ? " after " + roughly(line.behind_for) + " behind" : std::string();
    return "caught up: " + lag + after + "; " + counts(line.now);
  }
  std::string out = line.what == progress_line::kind::fell_behind ? "fell behind: " : "behind: ";
  out += lag;
  if (line.rate) {
    out += ", " + records_per_second(*line.rate);
    out += line.catch_up_in ? ", caught up in ~" + roughly(*line.catch_up_in) : ", not catching up";
  }
  return out + "; " + counts(line.now);
}

std::optional<double> progress_tracker::rate() const {
  if (window_.size() < 2) return std::nullopt;
  const point& first = window_.front();
  const point& last = window_.back();
  const double seconds = std::chrono::duration<double>(last.at - first.at).count();
  if (seconds <= 0) return std::nullopt;
  const std::uint64_t done =
      last.sample.consumed > first.sample.consumed ? last.sample.consumed - first.sample.consumed : 0;
  return static_cast<double>(done) / seconds;
}

std::uint64_t progress_tracker::caught_up_bound(std::optional<double> r) const {
  const double work = r.value_or(0) * std::chrono::duration<double>(settings_.caught_up_work).count();
  return std::max(settings_.caught_up_records, static_cast<std::uint64_t>(work));
}

progress_line progress_tracker::line(progress_line::kind what, clock::time_point now) const {
  progress_line l;
  l.what = what;
  l.now = window_.back().sample;
  l.rate = rate();
  if (l.rate && window_.size() >= 2) {
    // From how fast the lag shrank, not from the rate alone: records keep
    // arriving while the run catches up.
    const point& first = window_.front();
    const double seconds = std::chrono::duration<double>(window_.back().at - first.at).count();
    if (first.sample.lag > l.now.lag && seconds > 0) {
      const double shrink = static_cast<double>(first.sample.lag - l.now.lag) / seconds;
      l.catch_up_in =
          std::chrono::seconds(static_cast<std::int64_t>(std::ceil(static_cast<double>(l.now.lag) / shrink)));
    } else if (l.now.lag == 0) {
      l.catch_up_in = std::chrono::seconds(0);
    }
  }
  if (what == progress_line::kind::caught_up && state_ == state::behind)
    l.behind_for = std::chrono::duration_cast<std::chrono::seconds>(now - behind_since_);
  return l;
}

std::optional<progress_line> progress_tracker::on(clock::time_point now, progress_sample s) {
  // Samples closer together than this replace the last one: a run that
  // commits 100 times a second keeps at most window / 200 ms + 2 points
  // (152 for 30 s), not 3000.
  constexpr auto finest = std::chrono::milliseconds(200);
  if (window_.size() >= 2 && now - window_[window_.size() - 2].at < finest)
    window_.back() = {now, s};
  else
    window_.push_back({now, s});
  while (window_.size() > 2 && window_[1].at <= now - settings_.window) window_.pop_front();

  const std::uint64_t bound = caught_up_bound(rate());
  std::optional<progress_line> out;
  switch (state_) {
    case state::unknown:
      if (s.lag <= bound) {
        out = line(progress_line::kind::caught_up, now);
        state_ = state::caught_up;
      } else {
        out = line(progress_line::kind::behind, now);
        state_ = state::behind;
        behind_since_ = now;
      }
      break;
    case state::behind:
      if (s.lag <= bound) {
        out = line(progress_line::kind::caught_up, now);
        state_ = state::caught_up;
      } else if (now - last_line_ >= settings_.every) {
        out = line(progress_line::kind::still_behind, now);
      }
      break;
    case state::caught_up:
      if (s.lag > bound * settings_.behind_factor) {
        out = line(progress_line::kind::fell_behind, now);
        state_ = state::behind;
        behind_since_ = now;
      }
      break;
  }
  if (out) last_line_ = now;
  return out;
}

}  // namespace streamt::engine
