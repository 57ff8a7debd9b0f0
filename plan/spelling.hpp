// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// "Did you mean ...?": the one rule every suggestion of streamt follows, for
// columns, options and commands alike, so that they agree on what is near.

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace streamt::plan {

// Levenshtein distance between two strings, in bytes, or `limit + 1` as soon
// as it must exceed `limit`.
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit);

// The index of the candidate `word` most likely means: one equal to it but
// for ASCII case first (names are case-sensitive, and saying so beats a bare
// refusal), else the nearest within a third of its length (one edit for
// short words), the first among equals; nullopt when none is that near.
std::optional<std::size_t> nearest(std::string_view word, std::span<const std::string_view> candidates);

// True if a and b differ at most in ASCII case.
bool equal_ignoring_case(std::string_view a, std::string_view b) noexcept;

}  // namespace streamt::plan
