// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/state_dir.hpp"

#include "engine/durable_file.hpp"

#include "plan/plan_json.hpp"
#include "plan/strict_json.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <sstream>
#include <string_view>
#include <tuple>
#include <vector>

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

// A file of the state directory: absent, unreadable (the error names why),
// or its text.
struct file_text {
  bool exists = false;
  std::optional<std::string> text;  // empty if it exists but cannot be read
  std::string error;
};

file_text read_file(const fs::path& p) {
  file_text r;
  std::error_code ec;
  r.exists = fs::exists(fs::symlink_status(p, ec));  // a dangling link exists too
  if (!r.exists) return r;
  std::ifstream f(p, std::ios::binary);
  if (!f) {
    r.error = std::strerror(errno);
    return r;
  }
  std::ostringstream s;
  s << f.rdbuf();
  if (f.bad()) {
    r.error = "read error";
    return r;
  }
  r.text = s.str();
  return r;
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

json::object to_json(const run_record& r) {
  json::object o{{"started_at", r.started_at}, {"plan_digest", r.plan_digest}};
  if (!r.ended) return o;
  o["ended_at"] = r.ended_at;
  o["exit_code"] = r.exit_code;
  o["status"] = r.status;
  if (!r.stopped_at.empty()) {
    o["stopped_at"] = r.stopped_at;
    o["reason"] = r.reason;
  }
  return o;
}

// The shapes to_json writes: its fields are logged as they are read, so a
// field of another shape (an escape sequence, a newline, a megabyte) is no
// field of ours.
bool utc_shape(std::string_view s) {  // 2026-12-06T11:28:41Z
  static constexpr std::string_view form = "dddd-dd-ddTdd:dd:ddZ";
  if (s.size() != form.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (form[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != form[i]) return false;
  return true;
}
bool digest_shape(std::string_view s) {  // sha256: and 64 lower-case hex digits
  return s.size() == 71 && s.starts_with("sha256:") && std::all_of(s.begin() + 7, s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}
bool word_shape(std::string_view s) {  // a status, an error code: snake_case
  return !s.empty() && s.size() <= 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; });
}
bool position_shape(std::string_view s) {  // TOPIC/PARTITION@OFFSET: a topic name's characters
  return !s.empty() && s.size() <= 300 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-' || c == '/' || c == '@';
  });
}

// last-run.json read back, validated as identity.json is; nullopt for
// anything but what to_json writes (a file cut short by a crash of an older
// version, edited by hand, ...).
std::optional<run_record> run_record_of(const std::string& text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const json::object& o = v.get_object();
  auto text_of = [&](std::string_view key, bool (*shape)(std::string_view)) -> std::optional<std::string> {
    const json::value* m = o.if_contains(key);
    if (!m || !m->is_string() || !shape(m->get_string())) return std::nullopt;
    return std::string(m->get_string());
  };
  run_record r;
  auto started = text_of("started_at", utc_shape);
  auto digest = text_of("plan_digest", digest_shape);
  if (!started || !digest) return std::nullopt;
  r.started_at = *started;
  r.plan_digest = *digest;
  if (!o.contains("exit_code")) return r;
  const json::value* code = o.if_contains("exit_code");
  auto ended = text_of("ended_at", utc_shape);
  auto status = text_of("status", word_shape);
  if (!code->is_int64() || code->get_int64() < 0 || code->get_int64() > 255 || !ended || !status)
    return std::nullopt;
  r.ended = true;
  r.exit_code = static_cast<int>(code->get_int64());
  r.ended_at = *ended;
  r.status = *status;
  if (o.contains("stopped_at") || o.contains("reason")) {
    auto at = text_of("stopped_at", position_shape);
    auto reason = text_of("reason", word_shape);
    if (!at || !reason) return std::nullopt;
    r.stopped_at = *at;
    r.reason = *reason;
  }
  return r;
}

bool safe_text(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

bool instance_id_shape(std::string_view s) {
  return s.size() == 16 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// What identity.json holds once it has passed identity_problem().
struct recorded_identity {
  std::string application_id, source_topic, sink_topic, instance_id;
};

// Checks identity.json strictly. Returns what is wrong with it, described
// without quoting it (it is a file an operator may have pasted anything into).
std::optional<std::string> identity_problem(const std::string& text, recorded_identity& out) {
  if (std::all_of(text.begin(), text.end(),
                  [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }))
    return "it is empty (a crash or a full disk may have cut it short)";
  result<json::value> doc = plan::parse_strict_json(text, phase::plan);
  if (!doc) return "it is not valid JSON (it may be truncated, or hold control characters)";
  const json::object* o = doc->if_object();
  if (!o) return "it does not hold a JSON object (it is not a streamt identity file)";
  static constexpr std::string_view fields[] = {"application_id", "source_topic", "sink_topic",
                                                "instance_id"};
  for (const auto& kv : *o)
    if (std::find(std::begin(fields), std::end(fields), std::string_view(kv.key())) == std::end(fields))
      return "it holds fields streamt does not write (it is not a streamt identity file)";
  std::string* slots[] = {&out.application_id, &out.source_topic, &out.sink_topic, &out.instance_id};
  for (std::size_t i = 0; i < std::size(fields); ++i) {
    const json::value* v = o->if_contains(fields[i]);
    if (!v || !v->is_string()) return "its field '" + std::string(fields[i]) + "' is missing or not a string";
    const json::string& s = v->get_string();
    if (!safe_text(std::string_view(s.data(), s.size())))
      return "its field '" + std::string(fields[i]) + "' is empty or holds control characters";
    *slots[i] = std::string(s.data(), s.size());
  }
  if (!instance_id_shape(out.instance_id)) return "its 'instance_id' is not 16 lowercase hex digits";
  return std::nullopt;
}

}  // namespace

result<state_dir> state_dir::open(const std::string& path) {
  state_dir d;
  d.path_ = path;
  const std::string lock_path = (fs::path(path) / "lock").string();
  // Retried: a process whose failed start removes the lock file and the
  // directory it made (see the destructor) may do so between our steps.
  for (int attempt = 0;; ++attempt) {
    // The directories this call makes, deepest last, so that a start that is
    // never committed can take them away again.
    std::vector<std::string> made;
    std::error_code ec;
    for (fs::path p = fs::absolute(path, ec); !p.empty() && !fs::exists(fs::symlink_status(p, ec));
         p = p.parent_path()) {
      made.insert(made.begin(), p.string());
      if (p == p.parent_path()) break;
    }
    fs::create_directories(path, ec);
    if (ec)
      return state_error("state_dir_unusable",
                         "cannot create state directory '" + path + "': " + ec.message());
    int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    const bool made_lock = fd >= 0;
    if (fd < 0 && errno == EEXIST) fd = ::open(lock_path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT && attempt < 10) continue;
      return state_error("state_dir_unusable", "cannot open '" + lock_path + "': " + std::strerror(errno));
    }
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
    // The lock is ours only if the file we locked is still the one at the
    // path (a releasing process may have removed it meanwhile).
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) != 0 || ::stat(lock_path.c_str(), &named) != 0 || held.st_ino != named.st_ino ||
        held.st_dev != named.st_dev) {
      ::close(fd);
      if (attempt < 10) continue;
      return state_error("state_dir_unusable", "cannot lock '" + lock_path + "': it keeps being replaced");
    }
    // What the lock file held before, restored if this start is never
    // committed, so a failed start leaves the directory byte for byte.
    char buf[64] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
    d.lock_before_ = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
    // The pid is informational (for the message above); the flock is the lock.
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
      const std::string why = std::strerror(errno);
      if (made_lock) ::unlink(lock_path.c_str());
      ::close(fd);
      return state_error("state_dir_unusable", "cannot write '" + lock_path + "': " + why);
    }
    d.lock_fd_ = fd;
    d.made_lock_ = made_lock;
    d.made_dirs_ = std::move(made);
    return d;
  }
}

state_dir::state_dir(state_dir&& other) noexcept
    : path_(std::move(other.path_)),
      lock_fd_(std::exchange(other.lock_fd_, -1)),
      instance_id_(std::move(other.instance_id_)),
      first_run_(other.first_run_),
      admitted_(other.admitted_),
      committed_(other.committed_),
      made_lock_(other.made_lock_),
      made_dirs_(std::move(other.made_dirs_)),
      lock_before_(std::move(other.lock_before_)),
      pending_plan_(std::move(other.pending_plan_)),
      pending_digest_(std::move(other.pending_digest_)),
      pending_identity_(std::move(other.pending_identity_)) {}

state_dir::~state_dir() {
  if (lock_fd_ < 0) return;
  // Released under the lock, then closed (which releases the flock). A run
  // that was committed leaves the lock file empty; one that never was
  // leaves the directory as it found it: the lock file's old bytes, or no
  // lock file and no directory if this process made them.
  if (!committed_ && made_lock_) {
    ::unlink((fs::path(path_) / "lock").c_str());
    ::close(lock_fd_);
    for (auto it = made_dirs_.rbegin(); it != made_dirs_.rend(); ++it)
      if (::rmdir(it->c_str()) != 0) break;  // not empty (someone else's now): kept
    return;
  }
  const std::string& keep = committed_ ? std::string() : lock_before_;
  if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, keep.data(), keep.size(), 0) < 0) {
    // Harmless: the pid only names a holder in the "in use" message.
  }
  ::close(lock_fd_);
}

result<void> state_dir::admit(const plan::plan& next, bool allow_output_change) {
  admitted_ = false;
  const fs::path dir(path_);
  const std::string identity_path = (dir / "identity.json").string();
  auto damaged = [&](const std::string& what) {
    return state_error("state_dir_unusable",
                       "'" + identity_path + "' is damaged: " + what +
                           ". streamt does not overwrite it: it holds this instance's id, which fences the "
                           "instance's zombies. Restore it from a backup; or, to start this application as a "
                           "new instance, move the directory '" +
                           path_ + "' aside (or point --state-dir at a new one)");
  };
  const file_text identity_file = read_file(dir / "identity.json");
  const file_text last_file = read_file(dir / "plan.json");
  const file_text history_file = read_file(dir / "history");
  if (identity_file.exists && !identity_file.text)
    return state_error("state_dir_unusable", "cannot read '" + identity_path + "': " + identity_file.error +
                                                 "; check the permissions of the state directory");
  first_run_ = !identity_file.exists;
  if (first_run_ && last_file.exists && history_file.text && !history_file.text->empty())
    // plan.json is written before identity.json and history after it, so a
    // crash between the writes leaves no history: this one lost its identity.
    return damaged("it is missing, although plan.json and history record earlier runs here");
  if (!first_run_) {
    recorded_identity was_id;
    if (std::optional<std::string> problem = identity_problem(*identity_file.text, was_id))
      return damaged(*problem);
    if (!last_file.text)
      return state_error("state_dir_unusable",
                         "state directory '" + path_ + "' holds identity.json but " +
                             (last_file.exists ? "plan.json cannot be read (" + last_file.error + ")"
                                               : std::string("no plan.json")) +
                             "; restore it from a backup, or move the directory aside (or point --state-dir "
                             "at a new one) to start as a new instance");
    result<plan::plan> last = plan::load_plan(*last_file.text);
    if (!last)
      return state_error("state_dir_unusable", "the plan recorded in '" + path_ +
                                                   "/plan.json' is invalid: " + last.error().message +
                                                   "; restore it from a backup, or move the directory aside "
                                                   "(or point --state-dir at a new one)");
    const plan::identity& was = last->identity;
    if (was_id.application_id != was.application_id || was_id.source_topic != was.source_topic ||
        was_id.sink_topic != plan::sink_topics_text(*last))
      return damaged("it names another application or other topics than plan.json beside it");
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
    // A routed plan's sinks are its identity as one sink is a SELECT's: the
    // whole set, in the order written (identity.json records them joined).
    if (const std::string a = plan::sink_topics_text(*last), b = plan::sink_topics_text(next); a != b)
      return refuse(plan::is_routed(*last) || plan::is_routed(next) ? "sink topics" : "sink topic", a, b);
    if (was.operators != now.operators) return refuse("operator names", "...", "...");
    // The sink's format too: a consumer of JSON objects cannot read Avro.
    // A routed plan's outputs are each route's projection and key; where
    // its unrouted records go is output too. Its predicates may change.
    const auto outputs_of = [](const plan::plan& p) {
      std::vector<std::tuple<std::string, std::vector<plan::projection_item>, std::optional<std::size_t>>>
          out;
      for (const plan::route& r : plan::routes_of(p))
        out.emplace_back(r.sink_topic, r.projection, r.partition_by);
      return out;
    };
    const bool output_changed = outputs_of(*last) != outputs_of(next) || last->schema != next.schema ||
                                last->sink != next.sink || last->unrouted_topic != next.unrouted_topic ||
                                last->key_format != next.key_format;
    if (output_changed && !allow_output_change)
      return state_error("output_changed",
                         "the plan changes the output (projection, source schema or sink format) of the "
                         "application run from '" +
                             path_ +
                             "'; consumers of the sink topic will see records of a new shape. Restart with "
                             "--allow-output-change if that is intended");
    instance_id_ = was_id.instance_id;
    previous_plan_digest_ = plan::digest(*last);
    pending_identity_.clear();
  } else {
    // A new instance: its id is chosen now (the transactional id needs it)
    // but recorded only by commit(), once Kafka has admitted the run.
    instance_id_ = new_instance_id();
    json::object identity;
    identity["application_id"] = next.identity.application_id;
    identity["source_topic"] = next.identity.source_topic;
    identity["sink_topic"] = plan::sink_topics_text(next);
    identity["instance_id"] = instance_id_;
    pending_identity_ = json::serialize(identity) + "\n";
  }
  pending_plan_ = plan::write_plan(next);
  pending_digest_ = plan::digest(next);
  admitted_ = true;
  return {};
}

result<void> state_dir::commit() {
  if (!admitted_) return state_error("state_dir_unusable", "internal: state_dir::commit() before admit()");
  const fs::path dir(path_);
  // plan.json first: identity.json marks a complete first run, so a crash
  // between the two writes leaves a directory that looks new, not damaged.
  if (auto e = write_file_durably((dir / "plan.json").string(), pending_plan_))
    return state_error("state_dir_unusable", *e);
  if (!pending_identity_.empty()) {
    if (auto e = write_file_durably((dir / "identity.json").string(), pending_identity_))
      return state_error("state_dir_unusable", *e);
    pending_identity_.clear();
  }
  const std::string now = utc_now();
  if (auto e = append_durably((dir / "history").string(), now + ' ' + pending_digest_ + '\n'))
    return state_error("state_dir_unusable", *e);
  const fs::path last_run = dir / "last-run.json";
  if (const file_text before = read_file(last_run); before.text) previous_run_ = run_record_of(*before.text);
  this_run_ = run_record{};
  this_run_.started_at = now;
  this_run_.plan_digest = pending_digest_;
  if (auto e = write_file_durably(last_run.string(), json::serialize(to_json(this_run_)) + '\n'))
    return state_error("state_dir_unusable", *e);
  admitted_ = false;
  committed_ = true;
  return {};
}

std::optional<std::string> state_dir::record_end(const run_record& end) {
  if (!committed_) return "internal: state_dir::record_end() before commit()";
  run_record r = end;
  r.started_at = this_run_.started_at;
  r.plan_digest = this_run_.plan_digest;
  r.ended = true;
  r.ended_at = utc_now();
  return write_file_durably((fs::path(path_) / "last-run.json").string(), json::serialize(to_json(r)) + '\n');
}

std::string transactional_id(const plan::plan& p, const state_dir& dir) {
  return p.identity.application_id + "-" + dir.instance_id();
}

}  // namespace streamt::engine
