// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// librdkafka configuration: building rd_kafka_conf_t from key/value settings,
// guarding the settings exactly-once depends on, keeping secrets out of logs,
// and reading `--config FILE` in Java properties syntax.
//
// Every failure is a value naming the key, never an exception.

#include "kafka/error.hpp"
#include "kafka/handles.hpp"

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::kafka {

struct setting {
  std::string key;
  std::string value;
  // The value as written when it held ${env:...} or ${file:...} references
  // that resolve_references() replaced, empty otherwise. Logs and error
  // messages show this rather than the value: whoever moved a value out of
  // the command line or the config file meant it to stay out of sight.
  std::string reference{};
  friend bool operator==(const setting&, const setting&) = default;
};
// In order of appearance; a later entry for the same key wins, as in
// librdkafka and Java's Properties.
using settings = std::vector<setting>;

struct config_error {
  errc code = errc::invalid_setting;
  std::string key;       // the offending key, empty when the error has none
  std::size_t line = 0;  // 1-based line in a properties file, 0 otherwise
  std::string message;   // names the key; never contains a secret value
};

// result::value() on an error is a bug in the caller.
[[noreturn]] inline void throw_exception_from_error(const config_error& e, const boost::source_location&) {
  throw std::logic_error("unchecked kafka config result: " + e.message);
}

template <class T>
using config_result = boost::system::result<T, config_error>;

// Keys (and their librdkafka aliases) whose value the engine sets itself
// because exactly-once depends on it: overriding isolation.level would read
// aborted output, enable.auto.commit would commit offsets outside the
// transaction, partitioner would move keys away from where a Java producer
// puts them.
std::span<const std::string_view> engine_owned_keys() noexcept;
bool is_engine_owned(std::string_view key) noexcept;

// The first engine-owned key among `user`, or a group.protocol it can't
// use, as an error that names it.
config_result<void> check_user_settings(const settings& user);

// The consumer group protocol `user` chose with group.protocol (the last
// one given, any case): classic, the default, or consumer (KIP-848, on
// librdkafka 2.12.0 and newer only). With consumer the broker assigns the
// partitions (group.remote.assignor picks its assignor) and owns the session
// timeout and heartbeat interval; librdkafka refuses those keys, and the
// engine sets no partition.assignment.strategy. Either protocol's
// rebalances reach the engine as incremental assignments and revocations.
enum class group_protocol { classic, consumer };
config_result<group_protocol> group_protocol_of(const settings& user);

// Whether the consumer is a static group member (KIP-345: a
// group.instance.id) or a dynamic one. `automatic` is static with the
// classic protocol, where a member restarted after a crash takes its
// partitions back with no rebalance, and dynamic with KIP-848's, where the
// broker refuses a static member's restart until its session expires
// (UNRELEASED_INSTANCE_ID). The measurements behind it are in
// docs/operations.md ("Group membership").
enum class membership { automatic, static_member, dynamic_member };
constexpr bool is_static(membership m, group_protocol p) noexcept {
  return m == membership::static_member || (m == membership::automatic && p == group_protocol::classic);
}

// True for keys whose value is a secret: a name holding password, secret,
// passphrase, jaas, token or key, in any case, and the SASL/OAuth
// configuration strings.
bool is_secret(std::string_view key) noexcept;
// Whether librdkafka has a (global or topic) property of that name.
bool is_known_key(std::string_view key);
// Whether `key` may be shown in a message or a log line: a name librdkafka
// knows, or one shaped like a setting name (lower-case words joined by
// dots, as a misspelt sasl.pasword is). A token of any other shape may be a
// secret that landed where a key belongs (a value split onto a line of its
// own, a space typed for the '=') and is never shown.
bool shows_as_key(std::string_view key);
// "'KEY'" for a key that shows_as_key, else words saying it is withheld.
std::string shown_key(std::string_view key);
// `value` itself; "[redacted]" for a secret key; "[withheld: not a
// librdkafka setting]" for a key librdkafka does not know (a misspelled
// secret key must not leak its value).
std::string redact(std::string_view key, std::string_view value);
// As above, with the reference as written when the value came from one.
std::string redact(const setting& s);
// "k1=v1 k2=[redacted] k3=${env:NAME} ..." for one log line.
std::string redacted(const settings& s);

// Secrets outside the command line and the config file, in the syntax of
// Kafka's config providers (KIP-297, KIP-887), built in so that no
// `config.providers` lines are needed:
//   ${env:NAME}   the value of environment variable NAME
//   ${file:PATH}  the contents of the file at PATH, one trailing line ending
//                 (\n or \r\n) stripped, as written by `echo secret > file`
// A reference may be the whole value or part of it (a password inside
// sasl.jaas.config); several may appear in one value; substituted text is not
// scanned again. Other `${...}` text is left as it is, as Kafka leaves
// references to providers it does not know. Keys are never substituted.
//
// Errors name the key and the variable or path, never a value: an unset
// variable, an unreadable file, a file over max_reference_file_bytes, a value
// that would hold a NUL byte (librdkafka would cut it there), a reference
// without its closing '}' or with an empty name. Each error's code is
// errc::unresolved_reference.
inline constexpr std::size_t max_reference_file_bytes = 1u << 20;
bool has_reference(std::string_view value) noexcept;
config_result<void> resolve_references(settings& s);

// What every client of the engine starts from, before the client's own
// defaults (docs/configuration.md, "Defaults that a user setting replaces").
const settings& client_defaults();

// A new rd_kafka_conf_t with client_defaults() and `defaults` applied, then `user` (after
// check_user_settings), then `engine`: a user's value replaces an engine
// default, and the engine's own values are the ones in force. librdkafka's
// message for a rejected value can quote the value; for a secret key we
// replace it so the secret can't reach a log through the error.
config_result<conf_ptr> build_conf(const settings& engine, const settings& user,
                                   const settings& defaults = {});

// Where librdkafka's own log lines go (syslog level 0-7, facility, message).
// Without a handler they go to stderr in librdkafka's format. The handler is
// called from librdkafka's threads, so it must be thread-safe; set it once,
// before the first client is created (build_conf installs it on every conf).
using log_handler = void (*)(int level, std::string_view facility, std::string_view message);
void set_log_handler(log_handler handler) noexcept;
// Applies one setting to an existing conf with the same error rules.
config_result<void> apply(rd_kafka_conf_t* conf, const setting& s);

// `-X key=value`: splits at the first '='; the key must be non-empty.
config_result<setting> parse_setting(std::string_view text);

// Java properties (java.util.Properties.load): `key=value`, `key: value` and
// `key value`; `#` and `!` comment lines; a line ending in an odd number of
// backslashes continues on the next, whose leading whitespace is dropped;
// escapes \t \n \r \f \uXXXX (emitted as UTF-8) and \<other> for <other>.
// Unlike Java's byte-stream loader (ISO-8859-1) the text is taken as UTF-8,
// which is what Kafka users write in practice. A malformed \u escape is an
// error with its line number.
// (The CLI reads the file, bounded: plan/read_input.hpp.)
config_result<settings> parse_properties(std::string_view text);

// Where a setting stands in a properties file: 1-based line and byte column
// (in the natural line, after the whitespace Java drops), so that a reader
// with rules of its own (kafka/registry/config.hpp) can point at the key or
// the value it refuses.
struct property_position {
  std::size_t line = 0;
  std::size_t column = 0;
  friend bool operator==(const property_position&, const property_position&) = default;
};
struct located_setting {
  setting s;
  property_position key;
  property_position value;  // where the value starts (after the separator), even when it is empty
};
// parse_properties with each setting's position; the same rules and errors.
config_result<std::vector<located_setting>> parse_located_properties(std::string_view text);

}  // namespace streamt::kafka
