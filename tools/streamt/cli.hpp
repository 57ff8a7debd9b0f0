// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Small pieces every `streamt` subcommand shares: argument parsing, reading
// input files, atomic output files, and printing diagnostics the way
// compilers do (file:line:col, the source line, a caret).

#include "engine/exit_codes.hpp"
#include "kafka/config.hpp"
#include "kafka/topic_partition.hpp"
#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"
#include "plan/read_input.hpp"

#include <charconv>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace streamt::cli {

// A parsed command line: `--name value`, `--name=value`, flags, positionals.
struct arguments {
  std::map<std::string, std::vector<std::string>> options;
  std::set<std::string> flags;
  std::vector<std::string> positionals;

  std::optional<std::string> get(const std::string& name) const;
  bool has(const std::string& flag) const { return flags.count(flag) != 0; }
};

struct option_spec {
  std::set<std::string> with_value;  // e.g. "--schema"
  std::set<std::string> flags;       // e.g. "--help"
  std::set<std::string> repeatable;  // options that may be given more than once
  // Other spellings taken for an option (alias → the option), for the habits
  // of Kafka's own tools: --bootstrap-server and -b for --bootstrap-servers.
  std::map<std::string, std::string> aliases{};
};

// Parses argv after the subcommand name. `--` ends options. On error returns
// a message for the usage line.
std::optional<std::string> parse(std::span<char* const> args, const option_spec& spec, arguments& out);

// The value of option `name` as parse() would read it (its first one), from
// arguments that parse() may yet refuse: how `streamt run` learns its
// --log-format before anything it could complain about.
std::optional<std::string> find_option(std::span<char* const> args, const option_spec& spec,
                                       std::string_view name);

// Where a command's own messages (usage errors, refusals, warnings) go: by
// default plain "streamt CMD: ..." lines on stderr; after use_log_lines(),
// log lines of channel "cli" in the format engine::init_console_logging set
// up (which must come first), with the exit code a closing line announces
// as the field exit_code. `streamt run --log-format json` asks for them, so
// that a collector reading its stderr meets nothing it can't parse.
void use_log_lines();
bool log_lines() noexcept;

// "streamt CMD: MESSAGE", or an error log line with the fields exit_code
// (when given) and code (a diagnostic's, when not empty).
void say_error(std::string_view command, std::string_view message, std::optional<int> exit_code = {},
               std::string_view code = {});
// "streamt CMD: warning: MESSAGE", or a warning log line.
void say_warning(std::string_view command, std::string_view message);

// Writes `contents` to `path` through a temporary file in the same
// directory and a rename: a reader never sees a half-written plan.
std::optional<std::string> write_file_atomically(const std::string& path, std::string_view contents);

// "streamt compile: query.sql:1:42: OR is not supported ...", followed for
// SQL by the offending line and a caret under the column.
void print_diagnostic(std::string_view command, std::string_view file, const diagnostic& d,
                      std::string_view source_text = {});

// Prints "streamt CMD: MESSAGE" and "Try 'streamt CMD --help'." to stderr
// (as log lines: one line, without the second sentence); returns 2.
int usage_error(std::string_view command, std::string_view message);

// The start every command shares: `args` parsed against `spec` into `out`,
// and --help answered with `help`. Returns the exit code when the command is
// done already (a usage error: 2; the help printed: 0), nothing when it goes
// on. Use: `if (auto done = parse_command("check", args, spec, help, a)) return *done;`
std::optional<int> parse_command(std::string_view command, std::span<char* const> args,
                                 const option_spec& spec, std::string_view help, arguments& out);

// Loads and validates a plan file for check, explain and replay; prints the
// diagnostic and returns nullopt on failure (exit code in `code`).
std::optional<plan::plan> load_plan_file(std::string_view command, const std::string& path,
                                         engine::exit_code& code);

// Why `servers` (a --bootstrap-servers value) is not usable, if it is not:
// an empty entry ("a:9092,", ",") is a typo librdkafka would sit on until
// the connect timeout.
std::optional<std::string> bootstrap_servers_error(const std::string& servers);

// The librdkafka settings of `--config FILE` then `-X KEY=VALUE` (later
// wins) appended to `out`, engine-owned keys refused; warns about a secret
// written inline on the command line. On failure prints why and returns the
// exit code (2 for a malformed -X, 78 for a file or key refused).
std::optional<int> read_client_settings(std::string_view command, const arguments& a, kafka::settings& out);

// `s` as a whole number within [min, max]; anything else (a sign where none
// fits, a fraction, a unit, digits past the range) is nullopt, never
// clamped: a mistyped number must not become a different setting.
template <class T>
std::optional<T> whole_number(std::string_view s, T min, T max) {
  T v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || v < min || v > max) return std::nullopt;
  return v;
}

// "OPTION takes a whole number of UNIT from MIN to MAX; got '...'", quoting
// at most 32 characters of what was given (a pasted line might be long);
// range_error prints it as a usage error (exit 2).
std::string range_message(std::string_view option, std::string_view unit, long long min, long long max,
                          const std::string& got);
int range_error(std::string_view command, std::string_view option, std::string_view unit, long long min,
                long long max, const std::string& got);

// What the commands that read Kafka from outside a run share (offsets,
// status, diff): --bootstrap-servers (required), --timeout-ms (a bound on
// each request: 1 to 3600000, 30000 by default), and --config and -X with
// their ${env:...} and ${file:...} references resolved. On failure, what
// was wrong is printed and the exit code returned.
struct kafka_access {
  std::string bootstrap_servers;
  kafka::settings user;
  std::chrono::milliseconds timeout{30000};
};
std::variant<kafka_access, int> read_kafka_access(std::string_view command, const arguments& a);

// One record's place, TOPIC/PARTITION@OFFSET, as the engine's exit-65 line
// names it ("orders/3@1042"); OFFSET at most `max_offset`.
struct record_position {
  kafka::topic_partition partition;
  std::int64_t offset = 0;
};
std::optional<record_position> parse_record_position(std::string_view text, std::int64_t max_offset);

int cmd_compile(std::span<char* const> args);
int cmd_check(std::span<char* const> args);
int cmd_explain(std::span<char* const> args);
int cmd_replay(std::span<char* const> args);
int cmd_run(std::span<char* const> args);
int cmd_offsets(std::span<char* const> args);
int cmd_status(std::span<char* const> args);
int cmd_diff(std::span<char* const> args);

// SIGINT and SIGTERM are blocked from the program's first instruction (a
// preinit_array entry in main.cpp, before any library initialiser or thread)
// so that a stop sent during start-up is held, not taken by the default
// action. `streamt run` unblocks them once it listens for them; every other
// command at the start of main(). Restores the mask the process inherited.
void release_stop_signals();

}  // namespace streamt::cli
