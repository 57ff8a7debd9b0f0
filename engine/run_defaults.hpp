// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once

// The defaults of the settings that both run_options (what a caller asks
// for) and session::config (what the session decides with) carry, written
// once. run_options says what each one means.

#include <chrono>
#include <cstddef>

namespace streamt::engine::defaults {

inline constexpr std::chrono::milliseconds commit_interval{100};
inline constexpr std::size_t max_records_per_transaction = 50000;
inline constexpr std::chrono::milliseconds stall_timeout{300000};
inline constexpr std::chrono::milliseconds stop_timeout{30000};

}  // namespace streamt::engine::defaults
