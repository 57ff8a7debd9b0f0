// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// What `streamt compile`, `check`, `replay` and `diff` share to reach a
// Schema Registry (issue 37): the flags (--schema-registry URL, --registry-config FILE,
// --subject, --schema-version) read into a kafka::registry::config, one
// request at a time run to completion on a small io_context of the
// command's own, and a failed request turned into an exit code and a line
// that names the registry (its URL without credentials) and what failed.
//
// A command-line tool makes a handful of requests and then ends, so each is
// one-shot: no retry, no backoff. A registry that is down is the operator's
// to fix, and the exit code (69) tells a script it may try again later.

#include "engine/exit_codes.hpp"
#include "engine/pipeline.hpp"
#include "kafka/registry/client.hpp"
#include "kafka/registry/config.hpp"
#include "kafka/registry/failure.hpp"
#include "tools/streamt/cli.hpp"

#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace streamt::cli {

// The exit code of a failed registry request, by its verdict (contract §6):
//   retry     (unreachable, a timeout, 5xx, 408, 429)        69 unavailable
//   settings  (401, 403, TLS, an answer that is no registry's, a 404
//              without a registry code: a URL without its path prefix)  78 config
//   refused   (a subject or version that does not exist, 409, 422)      1 rejected
//   record    (no schema with that id)                                   1 rejected
//   stop      (cancelled: nothing here cancels, so a bug)               70 internal
constexpr engine::exit_code exit_code_of(kafka::registry::verdict v) noexcept {
  switch (v) {
    case kafka::registry::verdict::retry:
      return engine::exit_code::unavailable;
    case kafka::registry::verdict::settings:
      return engine::exit_code::config;
    case kafka::registry::verdict::refused:
    case kafka::registry::verdict::record:
      return engine::exit_code::rejected;
    case kafka::registry::verdict::stop:
      return engine::exit_code::internal;
  }
  return engine::exit_code::internal;
}

// What to do about a failure, one sentence for the end of its line: the
// failure's own message says what happened. `subject` and `version` are
// what was asked for (a version of 0: the latest), for a 404's advice.
std::string registry_advice(const kafka::registry::failure& f, std::string_view subject,
                            std::optional<std::int64_t> version);

// The registry flags of one command line, checked for their combinations
// before anything is read or sent.
struct registry_flags {
  std::string url;                      // --schema-registry (may hold credentials: never printed)
  std::optional<std::string> config;    // --registry-config FILE
  std::optional<std::string> subject;   // --subject
  std::optional<std::int64_t> version;  // --schema-version (compile only)
};

// The flags in `a`, or the exit code after the usage error was printed:
// --registry-config, --subject and --schema-version need --schema-registry;
// --schema-version is a whole number from 1 to 2147483647 (a plan's
// version is an int). Nothing when --schema-registry is absent and so is
// every other registry flag.
std::variant<std::optional<registry_flags>, int> read_registry_flags(std::string_view command,
                                                                     const arguments& a);

// The settings of `flags`: the URL and the --registry-config file (read
// like --config: at most 1 MiB). A URL that is refused is a usage error
// (2): it is the command line's. A file that can't be read is 2 as well; a
// file that is read and refused (an unknown key, credentials over plain
// http to another host, ...) is 78, as --config's. The message names the
// file's line:column and never a secret.
std::variant<kafka::registry::config, int> read_registry_config(std::string_view command,
                                                                const registry_flags& flags);

// A client and the io_context it runs on, for one command: each call sends
// one request and runs the context until it is answered (or failed, within
// streamt.registry.request.timeout.ms).
class registry_session {
 public:
  // A TLS file that does not load is a failure (kind tls, verdict settings).
  static kafka::registry::result<std::unique_ptr<registry_session>> open(kafka::registry::config c);

  kafka::registry::result<kafka::registry::subject_schema> subject_version(
      const std::string& subject, std::optional<std::int64_t> version);
  kafka::registry::result<std::vector<std::int64_t>> subject_versions(const std::string& subject);
  kafka::registry::result<kafka::registry::schema> schema_by_id(std::int64_t id);
  kafka::registry::result<std::int64_t> register_schema(const std::string& subject, const std::string& text);

  // "http://host:port/prefix": the registry as messages name it.
  std::string url() const;

 private:
  registry_session() = default;
  // Declared first so that it outlives the client, whose connection runs on it.
  std::unique_ptr<boost::asio::io_context> io_;
  std::unique_ptr<kafka::registry::client> client_;
};

// The writer schemas of an Avro source, fetched through `session` once per
// id (a map: diff's two plans ask for the same ids): replay's and diff's
// engine::writer_schema_source. An id the registry does not have is the
// record's fault; any other failure ends the command, and report() says so.
class writer_schemas {
 public:
  explicit writer_schemas(registry_session& session) : session_(&session) {}
  // Valid while this object lives.
  engine::writer_schema_source source();
  // The failure that ended the command, if one did: prints "streamt
  // COMMAND: fetching writer schema id N at URL: ...; advice" and returns
  // its exit code (69 the registry unavailable, 78 a setting refused).
  std::optional<int> report(std::string_view command, std::string_view subject) const;

 private:
  registry_session* session_;
  std::map<std::uint32_t, std::optional<engine::registered_schema>> known_;
  std::optional<std::pair<std::uint32_t, kafka::registry::failure>> failed_;
};

// The id of a plan's Avro sink schema, as `run` has it: registered under
// its subject (an identical schema answers its id), or, when not
// `register_new` (--no-register), found among the subject's versions by its
// canonical form. Prints why there is none and returns the exit code: the
// failure's, or 1 when no version holds the schema.
std::variant<std::uint32_t, int> sink_schema_id(std::string_view command, registry_session& session,
                                                const plan::avro_sink& sink, bool register_new);

// Prints "streamt COMMAND: CONTEXT: <the failure's message>; <advice>" and
// returns the failure's exit code.
int report_registry_failure(std::string_view command, std::string_view context,
                            const kafka::registry::failure& f, std::string_view subject,
                            std::optional<std::int64_t> version);

}  // namespace streamt::cli
