// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/durable_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace streamt::engine {
namespace {

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

bool write_all(int fd, std::string_view contents) {
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    written += static_cast<std::size_t>(n);
  }
  return true;
}

// A new or renamed directory entry is durable only once its directory is.
std::optional<std::string> sync_directory(const std::string& dir, const std::string& path) {
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
    return "cannot open directory '" + dir + "' to make '" + path + "' durable: " + std::strerror(errno);
  const bool synced = ::fsync(dfd) == 0;
  const int err = errno;
  ::close(dfd);
  if (!synced) return "cannot make '" + path + "' durable (fsync of '" + dir + "'): " + std::strerror(err);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> write_file_durably(const std::string& path, std::string_view contents,
                                              mode_t mode) {
  const std::string dir = directory_of(path);
  std::string tmpl = dir + "/.streamt-tmp-XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return "cannot create a file in '" + dir + "': " + std::strerror(errno);
  auto fail = [&](int err) -> std::optional<std::string> {
    ::unlink(tmpl.c_str());
    return "cannot write '" + path + "': " + std::strerror(err);
  };
  if (!write_all(fd, contents)) {
    const int err = errno;
    ::close(fd);
    return fail(err);
  }
  // mkstemp creates 0600; the caller says who may read the file.
  ::fchmod(fd, mode);
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    return fail(err);
  }
  if (::close(fd) != 0) return fail(errno);
  if (::rename(tmpl.c_str(), path.c_str()) != 0) return fail(errno);
  return sync_directory(dir, path);
}

std::optional<std::string> append_durably(const std::string& path, std::string_view line) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot append to '" + path + "': " + std::strerror(errno);
  const bool ok = write_all(fd, line) && ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!ok) return "cannot append to '" + path + "': " + std::strerror(err);
  // The file may be new: its directory entry must be durable too.
  return sync_directory(directory_of(path), path);
}

}  // namespace streamt::engine
