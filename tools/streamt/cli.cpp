// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "tools/streamt/cli.hpp"

#include "engine/durable_file.hpp"
#include "engine/log.hpp"
#include "plan/plan_json.hpp"
#include "plan/spelling.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <sstream>

namespace streamt::cli {

std::optional<std::string> arguments::get(const std::string& name) const {
  auto it = options.find(name);
  if (it == options.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

namespace {

// "unknown option '--schem'; did you mean '--schema'?"
std::string unknown_option(const std::string& name, const option_spec& spec) {
  std::vector<std::string_view> known;
  for (const auto* set : {&spec.with_value, &spec.flags})
    for (const std::string& o : *set) known.push_back(o);
  for (const auto& [alias, option] : spec.aliases) known.push_back(alias);
  std::string message = "unknown option '" + name + "'";
  if (std::optional<std::size_t> i = plan::nearest(name, known)) {
    const auto alias = spec.aliases.find(std::string(known[*i]));
    message +=
        "; did you mean '" + std::string(alias == spec.aliases.end() ? known[*i] : alias->second) + "'?";
  }
  return message;
}

}  // namespace

std::optional<std::string> parse(std::span<char* const> args, const option_spec& spec, arguments& out) {
  bool options_done = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (options_done || a == "-" || a.rfind("-", 0) != 0) {
      out.positionals.push_back(a);
      continue;
    }
    if (a == "--") {
      options_done = true;
      continue;
    }
    if (a == "-h") a = "--help";
    std::string name = a;
    std::optional<std::string> value;
    if (auto eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
    }
    if (auto alias = spec.aliases.find(name); alias != spec.aliases.end()) name = alias->second;
    if (spec.flags.count(name)) {
      if (value) return "option '" + name + "' takes no value";
      out.flags.insert(name);
      continue;
    }
    if (!spec.with_value.count(name)) return unknown_option(name, spec);
    if (!value) {
      if (i + 1 >= args.size()) return "option '" + name + "' needs a value";
      value = args[++i];
    }
    // No option of streamt means anything when empty: an empty value is a
    // mistake (an unset shell variable), refused here rather than by a
    // timeout later (an empty --bootstrap-servers waited 30 s, then exit 69).
    if (value->empty()) return "option '" + name + "' needs a value, and '' is empty";
    auto& slot = out.options[name];
    if (!slot.empty() && !spec.repeatable.count(name)) return "option '" + name + "' given twice";
    slot.push_back(*value);
  }
  return std::nullopt;
}

std::optional<std::string> find_option(std::span<char* const> args, const option_spec& spec,
                                       std::string_view name) {
  // parse()'s walk without its refusals: an option's value is skipped (a
  // value spelt "--log-format" is not the option), an unknown option is
  // taken for a flag.
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (a == "--") return std::nullopt;
    if (a == "-" || !a.starts_with("-")) continue;
    const std::size_t eq = a.starts_with("--") ? a.find('=') : std::string_view::npos;
    std::string option(a.substr(0, eq));
    if (auto alias = spec.aliases.find(option); alias != spec.aliases.end()) option = alias->second;
    if (!spec.with_value.count(option)) continue;
    std::optional<std::string> value;
    if (eq != std::string_view::npos)
      value = std::string(a.substr(eq + 1));
    else if (i + 1 < args.size())
      value = args[++i];
    if (option == name) return value;
  }
  return std::nullopt;
}

namespace {
bool as_log_lines = false;
engine::logger& cli_logger() {
  static engine::logger lg(boost::log::keywords::channel = "cli");
  return lg;
}
}  // namespace

void use_log_lines() { as_log_lines = true; }
bool log_lines() noexcept { return as_log_lines; }

void say_error(std::string_view command, std::string_view message, std::optional<int> exit_code,
               std::string_view code) {
  if (!as_log_lines) {
    std::cerr << "streamt " << command << ": " << message << '\n' << std::flush;
    return;
  }
  std::optional<engine::log_field> exit_field, code_field;
  if (exit_code) exit_field.emplace(engine::log_attribute::exit_code, *exit_code);
  if (!code.empty()) code_field.emplace(engine::log_attribute::code, code);
  STREAMT_LOG(cli_logger(), error) << exit_field << code_field << message;
}

void say_warning(std::string_view command, std::string_view message) {
  if (!as_log_lines) {
    std::cerr << "streamt " << command << ": warning: " << message << '\n' << std::flush;
    return;
  }
  STREAMT_LOG(cli_logger(), warning) << message;
}

std::optional<std::string> write_file_atomically(const std::string& path, std::string_view contents) {
  // A plan is not a secret and is meant to be shared: 0644.
  return engine::write_file_durably(path, contents, 0644);
}

namespace {
// "query.sql:1:42: error: OR is not supported ...": the diagnostic's line
// without the command's name.
std::string diagnostic_text(std::string_view file, const diagnostic& d) {
  std::ostringstream os;
  if (!file.empty()) os << file << ':';
  if (d.line != 0) {
    os << d.line << ':' << d.column << ": ";
  } else if (!d.path.empty()) {
    os << (file.empty() ? "" : " ") << d.path << ": ";
  } else if (!file.empty()) {
    os << ' ';
  }
  os << "error: " << d.message;
  return os.str();
}
}  // namespace

void print_diagnostic(std::string_view command, std::string_view file, const diagnostic& d,
                      std::string_view source_text) {
  std::ostringstream os;
  os << "streamt " << command << ": " << diagnostic_text(file, d) << '\n';
  if (d.line != 0 && !source_text.empty()) {
    // Show the line and a caret under the column, as compilers do. Columns
    // count bytes; a caret after multi-byte characters may sit a little left.
    std::size_t start = 0;
    for (std::size_t l = 1; l < d.line && start != std::string_view::npos; ++l) {
      start = source_text.find('\n', start);
      if (start != std::string_view::npos) ++start;
    }
    if (start != std::string_view::npos && start <= source_text.size()) {
      std::string_view rest = source_text.substr(start);
      std::string_view line = rest.substr(0, rest.find('\n'));
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      os << "  " << line << '\n' << "  " << std::string(d.column > 0 ? d.column - 1 : 0, ' ') << "^\n";
    }
  }
  std::cerr << os.str();
}

int usage_error(std::string_view command, std::string_view message) {
  const int code = engine::to_int(engine::exit_code::usage);
  if (as_log_lines)
    say_error(command, message, code);
  else
    std::cerr << "streamt " << command << ": " << message << "\nTry 'streamt " << command << " --help'.\n";
  return code;
}

std::optional<int> parse_command(std::string_view command, std::span<char* const> args,
                                 const option_spec& spec, std::string_view help, arguments& out) {
  if (auto err = parse(args, spec, out)) return usage_error(command, *err);
  if (out.has("--help")) {
    std::cout << help;
    return 0;
  }
  return std::nullopt;
}

// A plan is JSON; a file named *.sql, or whose text starts with SELECT (or
// WITH), is the query the plan is compiled from.
bool looks_like_sql(std::string_view path, std::string_view text) {
  if (path.size() > 4 && plan::equal_ignoring_case(path.substr(path.size() - 4), ".sql")) return true;
  const std::size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return false;
  text.remove_prefix(start);
  for (std::string_view word : {std::string_view("SELECT"), std::string_view("WITH")})
    if (text.size() >= word.size() && plan::equal_ignoring_case(text.substr(0, word.size()), word))
      return true;
  return false;
}

std::optional<record_position> parse_record_position(std::string_view text, std::int64_t max_offset) {
  // Kafka's topic names hold no '/' or '@', so the last of each splits.
  const std::size_t at = text.rfind('@');
  const std::size_t slash = text.rfind('/', at);
  if (at == std::string_view::npos || slash == std::string_view::npos || slash == 0) return std::nullopt;
  auto partition = whole_number<std::int32_t>(text.substr(slash + 1, at - slash - 1), 0,
                                              std::numeric_limits<std::int32_t>::max());
  auto offset = whole_number<std::int64_t>(text.substr(at + 1), 0, max_offset);
  if (!partition || !offset) return std::nullopt;
  return record_position{{std::string(text.substr(0, slash)), *partition}, *offset};
}

std::optional<std::string> bootstrap_servers_error(const std::string& servers) {
  for (std::size_t from = 0;;) {
    const std::size_t comma = servers.find(',', from);
    const std::string_view entry = std::string_view(servers).substr(from, comma - from);
    if (entry.find_first_not_of(" \t") == std::string_view::npos)
      return "--bootstrap-servers '" + servers + "' has an empty entry; give host:port[,host:port...]";
    if (comma == std::string::npos) return std::nullopt;
    from = comma + 1;
  }
}

std::string range_message(std::string_view option, std::string_view unit, long long min, long long max,
                          const std::string& got) {
  const std::string shown = got.size() > 32 ? got.substr(0, 32) + "..." : got;
  return std::string(option) + " takes a whole number of " + std::string(unit) + " from " +
         std::to_string(min) + " to " + std::to_string(max) + "; got '" + shown + "'";
}

int range_error(std::string_view command, std::string_view option, std::string_view unit, long long min,
                long long max, const std::string& got) {
  return usage_error(command, range_message(option, unit, min, max, got));
}

std::variant<kafka_access, int> read_kafka_access(std::string_view command, const arguments& a) {
  kafka_access k;
  constexpr long long max_timeout_ms = 3'600'000;
  if (auto v = a.get("--timeout-ms")) {
    auto n = whole_number<long long>(*v, 1, max_timeout_ms);
    if (!n) return range_error(command, "--timeout-ms", "milliseconds", 1, max_timeout_ms, *v);
    k.timeout = std::chrono::milliseconds(*n);
  }
  auto servers = a.get("--bootstrap-servers");
  if (!servers) return usage_error(command, "missing --bootstrap-servers");
  if (auto err = bootstrap_servers_error(*servers)) return usage_error(command, *err);
  k.bootstrap_servers = *servers;
  if (std::optional<int> failed = read_client_settings(command, a, k.user)) return *failed;
  if (auto resolved = kafka::resolve_references(k.user); !resolved) {
    const int code = engine::to_int(engine::exit_code::config);
    say_error(command, resolved.error().message, code);
    return code;
  }
  return k;
}

std::optional<int> read_client_settings(std::string_view command, const arguments& a, kafka::settings& out) {
  if (auto file = a.get("--config")) {
    // Read like a plan: a directory, a device or a file over the bound is
    // a usage error before anything is read.
    result<std::string> text = read_input(*file, operator_file_read_limit);
    if (!text) return usage_error(command, "--config: " + text.error().message);
    auto from_file = kafka::parse_properties(*text);
    if (!from_file) {
      const int code = engine::to_int(engine::exit_code::config);
      say_error(command, "--config: " + *file + ": " + from_file.error().message, code);
      return code;
    }
    out.insert(out.end(), from_file->begin(), from_file->end());
  }
  if (auto it = a.options.find("-X"); it != a.options.end()) {
    for (const std::string& x : it->second) {
      auto s = kafka::parse_setting(x);
      if (!s) return usage_error(command, "-X " + s.error().message);
      // A warning, not a refusal: an inline secret is a risk the operator may
      // knowingly take (a test broker, a throwaway password), and refusing it
      // would break scripts that worked. But argv is readable by every local
      // user (ps, /proc/PID/cmdline) and lands in shell history and unit
      // files, which the engine's log redaction cannot help with.
      // (A *.location key is a path, withheld from logs by its name but no
      // secret to warn about.)
      if (kafka::is_secret(s->key) && !s->key.ends_with(".location") && !s->value.empty() &&
          !kafka::has_reference(s->value))
        say_warning(command,
                    kafka::shows_as_key(s->key)
                        ? "-X " + s->key +
                              " puts a secret on the command line, where other local users can read it "
                              "(ps, /proc/PID/cmdline); use -X '" +
                              s->key + "=${env:NAME}', ${file:PATH}, or --config FILE"
                        : std::string("-X puts a secret on the command line, under a key that is no "
                                      "setting name (not shown: a space typed for the '='?)"));
      out.push_back(std::move(*s));
    }
  }
  if (auto owned = kafka::check_user_settings(out); !owned) {
    const int code = engine::to_int(engine::exit_code::config);
    say_error(command, owned.error().message, code);
    return code;
  }
  return std::nullopt;
}

std::optional<plan::plan> load_plan_file(std::string_view command, const std::string& path,
                                         engine::exit_code& code) {
  result<std::string> text = read_input(path, plan_file_read_limit);
  if (!text) {
    code = engine::exit_code::usage;
    say_error(command, text.error().message, engine::to_int(code));
    return std::nullopt;
  }
  result<plan::plan> p = plan::load_plan(*text);
  if (!p) {
    code = engine::exit_code::rejected;
    std::string hint;
    if (looks_like_sql(path, *text))
      hint = path +
             " looks like SQL, not a plan: compile it first (streamt compile --schema SCHEMA "
             "--application-id ID --sink-topic TOPIC --output plan.json " +
             path + "), then give the plan to streamt " + std::string(command);
    if (as_log_lines) {
      // One line: the diagnostic, and the hint after it.
      say_error(command, diagnostic_text(path, p.error()) + (hint.empty() ? "" : "; " + hint),
                engine::to_int(code), p.error().code);
    } else {
      print_diagnostic(command, path, p.error());
      if (!hint.empty()) say_error(command, hint);
    }
    return std::nullopt;
  }
  code = engine::exit_code::ok;
  return std::move(*p);
}

}  // namespace streamt::cli
