// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/process_stats.hpp"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <iterator>
#include <string>

namespace streamt::engine {

namespace {

std::optional<std::string> slurp(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The next space-separated field of `text` from `at`, as a number.
std::optional<std::uint64_t> next_number(std::string_view text, std::size_t& at) {
  while (at < text.size() && text[at] == ' ') ++at;
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data() + at, text.data() + text.size(), v);
  if (ec != std::errc{}) return std::nullopt;
  at = static_cast<std::size_t>(end - text.data());
  return v;
}

bool skip_field(std::string_view text, std::size_t& at) {
  while (at < text.size() && text[at] == ' ') ++at;
  const std::size_t from = at;
  while (at < text.size() && text[at] != ' ') ++at;
  return at > from;
}

}  // namespace

std::optional<stat_fields> parse_proc_self_stat(std::string_view text) {
  // "pid (comm) state ppid ...": comm is cut at the last ')', since it may
  // hold both spaces and parentheses. Fields are numbered from 1 (pid) as
  // in proc(5); after ')' comes field 3.
  const std::size_t close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  stat_fields f;
  const struct {
    int number;
    std::uint64_t stat_fields::*into;
  } wanted[] = {{14, &stat_fields::utime_ticks},
                {15, &stat_fields::stime_ticks},
                {22, &stat_fields::start_ticks},
                {23, &stat_fields::vsize_bytes},
                {24, &stat_fields::rss_pages}};
  std::size_t at = close + 1;
  int field = 3;
  for (const auto& w : wanted) {
    for (; field < w.number; ++field)
      if (!skip_field(text, at)) return std::nullopt;
    const std::optional<std::uint64_t> v = next_number(text, at);
    if (!v) return std::nullopt;
    f.*w.into = *v;
    ++field;
  }
  return f;
}

std::optional<std::uint64_t> parse_boot_time(std::string_view proc_stat) {
  for (std::size_t line = 0; line < proc_stat.size();) {
    const std::size_t end = std::min(proc_stat.find('\n', line), proc_stat.size());
    const std::string_view l = proc_stat.substr(line, end - line);
    if (l.starts_with("btime ")) {
      std::size_t at = 6;
      return next_number(l, at);
    }
    line = end + 1;
  }
  return std::nullopt;
}

std::optional<process_stats> read_process_stats() {
  const std::optional<std::string> self = slurp("/proc/self/stat");
  const std::optional<std::string> all = slurp("/proc/stat");
  if (!self || !all) return std::nullopt;
  const std::optional<stat_fields> f = parse_proc_self_stat(*self);
  const std::optional<std::uint64_t> boot = parse_boot_time(*all);
  const long ticks = sysconf(_SC_CLK_TCK);
  const long page = sysconf(_SC_PAGESIZE);
  if (!f || !boot || ticks <= 0 || page <= 0) return std::nullopt;
  process_stats s;
  const auto hz = static_cast<double>(ticks);
  s.cpu_seconds = static_cast<double>(f->utime_ticks + f->stime_ticks) / hz;
  s.start_time_seconds = static_cast<double>(*boot) + static_cast<double>(f->start_ticks) / hz;
  s.virtual_bytes = f->vsize_bytes;
  s.resident_bytes = f->rss_pages * static_cast<std::uint64_t>(page);
  if (DIR* d = opendir("/proc/self/fd")) {
    std::uint64_t n = 0;
    while (const dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
    s.open_fds = n > 0 ? n - 1 : 0;  // less the descriptor of the listing itself
  }
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0) s.max_fds = lim.rlim_cur;
  return s;
}

}  // namespace streamt::engine
