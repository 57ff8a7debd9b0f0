// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Runs the streamt binary as a user would: arguments, standard input from a
// string, standard output and error captured, exit code returned.

#include "test/support/temp_dir.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace streamt::test {

struct process_result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

#ifdef STREAMT_TEST_DATA_DIR
// The repository's examples/FOLDER/, with its trailing slash: the schemas,
// queries and records the CLI tests compile and replay.
inline std::string examples_dir(const std::string& folder) {
  return std::string(STREAMT_TEST_DATA_DIR) + "/../../examples/" + folder + "/";
}
#endif

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

// `stdout_to`: where standard output goes instead of the result's `out`
// (/dev/full, to see a failed write).
inline process_result run_streamt(const std::vector<std::string>& args, const std::string& stdin_text = {},
                                  const std::string& stdout_to = {}) {
  temp_dir io;
  const std::string in = io.file("stdin"), err = io.file("stderr");
  const std::string out = stdout_to.empty() ? io.file("stdout") : stdout_to;
  write_text(in, stdin_text);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> storage{STREAMT_BINARY};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, STREAMT_BINARY, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " STREAMT_BINARY);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  }
  process_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (stdout_to.empty()) r.out = read_text(out);  // /dev/full reads as zeros without end
  r.err = read_text(err);
  return r;
}

}  // namespace streamt::test
