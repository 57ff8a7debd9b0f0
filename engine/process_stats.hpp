// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The process's own resources, read from /proc for the standard process_*
// metrics (the names and meanings of Prometheus's client libraries, so the
// dashboards and alerts written for them work unchanged).

#include <cstdint>
#include <optional>
#include <string_view>

namespace streamt::engine {

struct process_stats {
  double cpu_seconds = 0;  // user + system time
  std::uint64_t resident_bytes = 0;
  std::uint64_t virtual_bytes = 0;
  std::uint64_t open_fds = 0;
  std::uint64_t max_fds = 0;      // the soft RLIMIT_NOFILE
  double start_time_seconds = 0;  // Unix time the process started
};

// nullopt where /proc is not Linux's (the metrics are then left out).
std::optional<process_stats> read_process_stats();

// The part of /proc/self/stat after the command name (which may hold
// spaces and parentheses), and /proc/stat's btime: exposed for tests.
struct stat_fields {
  std::uint64_t utime_ticks = 0, stime_ticks = 0, start_ticks = 0, vsize_bytes = 0, rss_pages = 0;
};
std::optional<stat_fields> parse_proc_self_stat(std::string_view text);
std::optional<std::uint64_t> parse_boot_time(std::string_view proc_stat);

}  // namespace streamt::engine
