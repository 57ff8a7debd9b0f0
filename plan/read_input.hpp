// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once

// Reading the text a plan, schema or query comes from: one bounded reader for
// the CLI (tools/streamt) and the embedding API (engine/streamt.hpp), so both
// refuse an unreadable or oversized file the same way.

#include "plan/diagnostic.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace streamt {

// A plan file is read up to this much: the loader refuses documents over
// plan::max_document_bytes itself, naming the limit, so reading past it lets
// the loader say so, while a wrong path to a huge file is still bounded.
inline constexpr std::size_t plan_file_read_limit = 64u << 20;

// A SQL file likewise: the compiler refuses text over plan::max_sql_bytes with
// `sql_too_large` at the first byte past it, so the reader stops only later.
inline constexpr std::size_t sql_file_read_limit = 1u << 20;

// A --config file (librdkafka settings) is read up to this much: a few
// dozen lines in practice, so 1 MiB is a wrong file, never a real one.
inline constexpr std::size_t operator_file_read_limit = 1u << 20;

// Why `path` is no file to read, before anything is read from it: a
// directory (it opens, then reads as empty or fails, which looked like an
// empty file), or a device (/dev/zero never ends). Regular files and pipes
// (`<(command)`, standard input) are files to read; nullopt for those, and
// for a path that does not exist (opening it says so).
std::optional<std::string> not_a_file(const std::string& path);

// Reads a whole file, or standard input for "-". Refuses what not_a_file
// refuses, a regular file larger than `max_bytes` before reading it, and
// any input once it passed `max_bytes` (so an accidental multi-gigabyte
// argument fails fast). Errors are diagnostics naming the path, with code
// `input_too_large` for more than `max_bytes` and `unreadable_input` for
// everything else.
result<std::string> read_input(const std::string& path, std::size_t max_bytes);

}  // namespace streamt
