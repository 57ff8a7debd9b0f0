// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Durations as the session's messages say them.

#include "engine/session/action.hpp"

#include <chrono>
#include <string>

namespace streamt::engine::session {

inline std::string millis(clock::duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) + " ms";
}

inline std::string whole_seconds(clock::duration d) {
  return std::to_string(std::chrono::round<std::chrono::seconds>(d).count()) + " s";
}

}  // namespace streamt::engine::session
