// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/state_dir.hpp"

#include "plan/plan_json.hpp"
#include "plan/strict_json.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace streamt::engine {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

diagnostic state_error(std::string code, std::string message) {
  diagnostic d;
  d.phase = phase::plan;
  d.code = std::move(code);
  d.message = std::move(message);
  return d;
}

std::optional<std::string> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Write-then-rename, so a crash leaves either the old or the new file.
bool write_file(const fs::path& p, const std::string& text) {
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!(f << text) || !f.flush()) return false;
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  return !ec;
}

std::string new_instance_id() {
  std::random_device rd;
  std::uniform_int_distribution<int> hex(0, 15);
  std::string id;
  for (int i = 0; i < 16; ++i) id += "0123456789abcdef"[hex(rd)];
  return id;
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

result<state_dir> state_dir::open(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec)
    return state_error("state_dir_unusable", "cannot create state directory '" + path + "': " + ec.message());
  const std::string lock_path = (fs::path(path) / "lock").string();
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return state_error("state_dir_unusable", "cannot open '" + lock_path + "': " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    ::close(fd);
    std::string holder = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string("unknown");
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    return state_error("state_dir_locked", "state directory '" + path +
                                               "' is in use by another streamt process (pid " + holder +
                                               "); give each instance its own --state-dir");
  }
  // The pid is informational (for the message above); the flock is the lock.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    ::close(fd);
    return state_error("state_dir_unusable", "cannot write '" + lock_path + "': " + std::strerror(errno));
  }
  state_dir d;
  d.path_ = path;
  d.lock_fd_ = fd;
  return d;
}

state_dir::state_dir(state_dir&& other) noexcept
    : path_(std::move(other.path_)),
      lock_fd_(std::exchange(other.lock_fd_, -1)),
      instance_id_(std::move(other.instance_id_)),
      first_run_(other.first_run_) {}

state_dir::~state_dir() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // closing releases the flock
}

result<void> state_dir::admit(const plan::plan& next, bool allow_output_change) {
  const fs::path dir(path_);
  const std::optional<std::string> identity_text = read_file(dir / "identity.json");
  const std::optional<std::string> last_text = read_file(dir / "plan.json");
  first_run_ = !identity_text.has_value();
  if (identity_text) {
    result<json::value> doc = plan::parse_strict_json(*identity_text, phase::plan);
    const json::object* o = doc ? doc->if_object() : nullptr;
    const json::value* id = o ? o->if_contains("instance_id") : nullptr;
    if (!id || !id->is_string() || !last_text)
      return state_error("state_dir_unusable",
                         "state directory '" + path_ +
                             "' holds a damaged identity.json or no plan.json; restore it "
                             "from a backup (deleting it gives this instance a new identity)");
    instance_id_ = std::string(id->get_string());
    result<plan::plan> last = plan::load_plan(*last_text);
    if (!last)
      return state_error("state_dir_unusable", "the plan recorded in '" + path_ +
                                                   "/plan.json' is invalid: " + last.error().message);
    const plan::identity& was = last->identity;
    const plan::identity& now = next.identity;
    auto refuse = [&](std::string what, const std::string& a, const std::string& b) {
      return state_error(
          "identity_changed",
          "the plan changes the identity run from '" + path_ + "': " + what + " was '" + a + "', is now '" +
              b +
              "'. Only the predicate may change across restarts; run a changed identity as a new "
              "application with its own --state-dir");
    };
    if (was.application_id != now.application_id)
      return refuse("application id", was.application_id, now.application_id);
    if (was.source_topic != now.source_topic)
      return refuse("source topic", was.source_topic, now.source_topic);
    if (was.sink_topic != now.sink_topic) return refuse("sink topic", was.sink_topic, now.sink_topic);
    if (was.operators != now.operators) return refuse("operator names", "...", "...");
    const bool output_changed = last->projection != next.projection || last->schema != next.schema;
    if (output_changed && !allow_output_change)
      return state_error(
          "output_changed",
          "the plan changes the output (projection or source schema) of the application run from '" + path_ +
              "'; consumers of the sink topic will see records of a new shape. Restart with "
              "--allow-output-change if that is intended");
  }
  // plan.json first: identity.json marks a complete first run, so a crash
  // between the two writes leaves a directory that looks new, not damaged.
  if (!write_file(dir / "plan.json", plan::write_plan(next)))
    return state_error("state_dir_unusable", "cannot write '" + path_ + "/plan.json'");
  if (first_run_) {
    instance_id_ = new_instance_id();
    json::object identity;
    identity["application_id"] = next.identity.application_id;
    identity["source_topic"] = next.identity.source_topic;
    identity["sink_topic"] = next.identity.sink_topic;
    identity["instance_id"] = instance_id_;
    if (!write_file(dir / "identity.json", json::serialize(identity) + "\n"))
      return state_error("state_dir_unusable", "cannot write '" + path_ + "/identity.json'");
  }
  std::ofstream history(dir / "history", std::ios::app);
  if (!(history << utc_now() << ' ' << plan::digest(next) << '\n'))
    return state_error("state_dir_unusable", "cannot append to '" + path_ + "/history'");
  return {};
}

std::string transactional_id(const plan::plan& p, const state_dir& dir) {
  return p.identity.application_id + "-" + dir.instance_id();
}

}  // namespace streamt::engine
