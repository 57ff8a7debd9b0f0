// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/spelling.hpp"

#include <algorithm>
#include <vector>

namespace streamt::plan {

bool equal_ignoring_case(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

// Row by row; a row whose smallest entry is over the limit means every later
// one is too, so far words cost only a few rows.
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit) {
  const std::size_t gap = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (gap > limit) return limit + 1;
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    std::size_t best = row[0];
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
      best = std::min(best, row[j]);
    }
    if (best > limit) return limit + 1;
  }
  return std::min(row[b.size()], limit + 1);
}

std::optional<std::size_t> nearest(std::string_view word, std::span<const std::string_view> candidates) {
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (equal_ignoring_case(candidates[i], word)) return i;
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::optional<std::size_t> best;
  std::size_t best_distance = limit + 1;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::size_t d = edit_distance(word, candidates[i], limit);
    if (d < best_distance) {
      best = i;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace streamt::plan
