// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The product's version, from the top-level CMakeLists.txt's project()
// (one place: `streamt --version`, streamt_build_info and the package).

#include <string_view>

namespace streamt::engine {
inline constexpr std::string_view version = STREAMT_VERSION;
}  // namespace streamt::engine
