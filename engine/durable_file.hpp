// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// One writer for every file streamt must not lose or leave half-written (plan
// files from `streamt compile`, the state directory's identity.json and
// plan.json): write a temporary file in the same directory, fsync it, rename it
// over the target, then fsync the directory so the rename itself survives a
// crash. A reader sees the old file or the new one, never a mix.

#include <sys/types.h>
#include <optional>
#include <string>
#include <string_view>

namespace streamt::engine {

// Returns an error message naming `path` on failure (the target is then
// untouched and no temporary file is left behind).
std::optional<std::string> write_file_durably(const std::string& path, std::string_view contents,
                                              mode_t mode = 0644);

// Appends `line` to `path` (created if missing), fsyncs it and its directory.
std::optional<std::string> append_durably(const std::string& path, std::string_view line);

}  // namespace streamt::engine
