// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/read_input.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

namespace streamt {

std::optional<std::string> not_a_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  if (S_ISDIR(st.st_mode)) return "'" + path + "' is a directory, not a file";
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    return "'" + path +
           "' is a device or a socket, not a file (give a regular file, a pipe, or - for "
           "standard input)";
  return std::nullopt;
}

result<std::string> read_input(const std::string& path, std::size_t max_bytes) {
  auto failure = [&](std::string message, const char* code = "unreadable_input") {
    diagnostic d;
    d.phase = phase::plan;
    d.code = code;
    d.message = std::move(message);
    return d;
  };
  std::string data;
  std::istream* in = &std::cin;
  std::ifstream file;
  auto too_large = [&] {
    return failure("'" + path + "' holds more than " + std::to_string(max_bytes) +
                       " bytes, the limit for this input; check that it is the right file",
                   "input_too_large");
  };
  if (path != "-") {
    if (std::optional<std::string> why = not_a_file(path)) return failure(std::move(*why));
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        static_cast<unsigned long long>(st.st_size) > max_bytes)
      return too_large();
    file.open(path, std::ios::binary);
    if (!file) return failure("cannot read '" + path + "': " + std::strerror(errno));
    in = &file;
  }
  char buf[65536];
  while (in->read(buf, sizeof buf) || in->gcount() > 0) {
    data.append(buf, static_cast<std::size_t>(in->gcount()));
    if (data.size() > max_bytes) return too_large();
  }
  if (in->bad()) return failure("reading '" + path + "' failed");
  return data;
}

}  // namespace streamt
