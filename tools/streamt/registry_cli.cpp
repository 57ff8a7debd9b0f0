// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "tools/streamt/registry_cli.hpp"

#include "plan/avro_schema.hpp"
#include "plan/read_input.hpp"

#include <boost/asio/co_spawn.hpp>

#include <cstdint>
#include <exception>
#include <limits>
#include <stdexcept>
#include <utility>

namespace streamt::cli {

namespace r = kafka::registry;

namespace {

// Runs `a` on `io` until it completes. The client's operations complete on
// the executor they were given and report failures as values, so the
// context simply runs out of work when the answer (or the deadline) comes.
template <class T>
T run_one(boost::asio::io_context& io, boost::asio::awaitable<T> a) {
  std::optional<T> out;
  std::exception_ptr error;
  boost::asio::co_spawn(io, std::move(a), [&](std::exception_ptr e, T v) {
    error = e;
    if (!e) out.emplace(std::move(v));
  });
  io.restart();
  io.run();
  if (error) std::rethrow_exception(error);
  if (!out) throw std::logic_error("a registry request ended without an outcome");
  return std::move(*out);
}

}  // namespace

std::string registry_advice(const r::failure& f, std::string_view subject,
                            std::optional<std::int64_t> version) {
  const std::string s(subject);
  switch (f.kind) {
    case r::failure_kind::unreachable:
    case r::failure_kind::timeout:
    case r::failure_kind::server_error:
      return "the registry can't answer now: check that it runs and is reachable from here, then try again";
    case r::failure_kind::unauthorized:
      return "check the credentials (basic.auth.user.info in --registry-config, or the URL's USER:PASSWORD@)";
    case r::failure_kind::forbidden:
      return "the credentials may not read the subject '" + s + "': grant them read access to it";
    case r::failure_kind::tls:
      return "check the TLS settings in --registry-config (schema.registry.ssl.ca.location, and the client "
             "certificate and key if the registry asks for one)";
    case r::failure_kind::bad_answer:
      return "check that --schema-registry names a Schema Registry's Confluent-compatible API "
             "(Apicurio's is under /apis/ccompat/v7)";
    case r::failure_kind::not_found:
      switch (f.what_missing) {
        case r::missing::subject:
          return "nothing is registered under the subject '" + s +
                 "': register the topic's value schema there, or name the subject it is under with --subject";
        case r::missing::version:
          return "the subject '" + s + "' has no version " + (version ? std::to_string(*version) : "latest") +
                 ": name one it has with --schema-version, or leave it out for the latest";
        case r::missing::schema:
          return "the registry has no schema with that id";
        case r::missing::none:
        case r::missing::other:
          break;
      }
      return "check the path of --schema-registry (Apicurio's Confluent-compatible API is under "
             "/apis/ccompat/v7)";
    case r::failure_kind::refused_request:
      return "the registry refused the request";
    case r::failure_kind::cancelled:
      break;
  }
  return "the request was cancelled";
}

std::variant<std::optional<registry_flags>, int> read_registry_flags(std::string_view command,
                                                                     const arguments& a) {
  const std::optional<std::string> url = a.get("--schema-registry");
  if (!url) {
    for (const char* needs_url : {"--registry-config", "--subject", "--schema-version"})
      if (a.get(needs_url))
        return usage_error(command, std::string(needs_url) + " is used only with --schema-registry URL");
    return std::optional<registry_flags>{};
  }
  registry_flags flags;
  flags.url = *url;
  flags.config = a.get("--registry-config");
  flags.subject = a.get("--subject");
  if (std::optional<std::string> v = a.get("--schema-version")) {
    constexpr std::int64_t max_version = std::numeric_limits<int>::max();
    flags.version = whole_number<std::int64_t>(*v, 1, max_version);
    if (!flags.version)
      return usage_error(command, "--schema-version takes a version number from 1 to " +
                                      std::to_string(max_version) +
                                      " (a subject's versions count from 1); got '" +
                                      (v->size() > 32 ? v->substr(0, 32) + "..." : *v) + "'");
  }
  return std::optional<registry_flags>(std::move(flags));
}

std::variant<r::config, int> read_registry_config(std::string_view command, const registry_flags& flags) {
  std::string text;
  std::string file_name = "--registry-config";
  if (flags.config) {
    // Read like --config: a directory, a device or a file over the bound is
    // a usage error before anything is read.
    result<std::string> read = read_input(*flags.config, operator_file_read_limit);
    if (!read) return usage_error(command, "--registry-config: " + read.error().message);
    text = std::move(*read);
    file_name = *flags.config;
  }
  r::config_result<r::config> c = r::parse_config(flags.url, text, file_name);
  if (!c) {
    // line 0: the URL's fault, a mistyped command line.
    if (c.error().line == 0) return usage_error(command, c.error().message);
    const int code = engine::to_int(engine::exit_code::config);
    say_error(command, c.error().message, code);
    return code;
  }
  return std::move(*c);
}

r::result<std::unique_ptr<registry_session>> registry_session::open(r::config c) {
  std::unique_ptr<registry_session> s(new registry_session());
  s->io_ = std::make_unique<boost::asio::io_context>(1);
  r::result<std::unique_ptr<r::client>> made = r::client::make(s->io_->get_executor(), std::move(c));
  if (!made) return made.error();
  s->client_ = std::move(*made);
  return s;
}

r::result<r::subject_schema> registry_session::subject_version(const std::string& subject,
                                                               std::optional<std::int64_t> version) {
  return run_one(*io_, client_->subject_version(subject, version));
}

r::result<std::vector<std::int64_t>> registry_session::subject_versions(const std::string& subject) {
  return run_one(*io_, client_->subject_versions(subject));
}

r::result<r::schema> registry_session::schema_by_id(std::int64_t id) {
  return run_one(*io_, client_->schema_by_id(id));
}

r::result<std::int64_t> registry_session::register_schema(const std::string& subject,
                                                          const std::string& text) {
  return run_one(*io_, client_->register_schema(subject, text));
}

std::string registry_session::url() const { return client_->url().to_string(); }

engine::writer_schema_source writer_schemas::source() {
  return [this](std::uint32_t id) -> result<std::optional<engine::registered_schema>> {
    if (auto known = known_.find(id); known != known_.end()) return known->second;
    r::result<r::schema> got = session_->schema_by_id(id);
    if (!got && got.error().verdict() != r::verdict::record) {
      failed_.emplace(id, got.error());
      diagnostic d;
      d.phase = phase::record;
      d.code = "registry_failed";
      d.message = "fetching writer schema id " + std::to_string(id) + " at " + session_->url();
      return d;
    }
    if (!got) return known_[id] = std::nullopt;
    return known_[id] = engine::registered_schema{std::move(got->text), std::string(r::to_string(got->type))};
  };
}

std::optional<int> writer_schemas::report(std::string_view command, std::string_view subject) const {
  if (!failed_) return std::nullopt;
  return report_registry_failure(
      command, "fetching writer schema id " + std::to_string(failed_->first) + " at " + session_->url(),
      failed_->second, subject, std::nullopt);
}

std::variant<std::uint32_t, int> sink_schema_id(std::string_view command, registry_session& session,
                                                const plan::avro_sink& sink, bool register_new) {
  const std::string context = "the sink schema under subject '" + sink.subject + "' at " + session.url();
  std::optional<std::int64_t> id;
  if (register_new) {
    r::result<std::int64_t> got = session.register_schema(sink.subject, sink.schema);
    if (!got)
      return report_registry_failure(command, "registering " + context, got.error(), sink.subject, {});
    id = *got;
  } else {
    r::result<std::vector<std::int64_t>> versions = session.subject_versions(sink.subject);
    if (!versions)
      return report_registry_failure(command, "looking up " + context, versions.error(), sink.subject, {});
    for (std::size_t i = 0; i < versions->size() && !id; ++i) {
      r::result<r::subject_schema> v = session.subject_version(sink.subject, (*versions)[i]);
      if (!v)
        return report_registry_failure(command, "looking up " + context, v.error(), sink.subject,
                                       (*versions)[i]);
      if (result<plan::avro::schema> parsed = plan::avro::parse_schema(v->schema.text);
          parsed && plan::avro::canonical_form(*parsed) == sink.canonical_form)
        id = v->id;
    }
    if (!id) {
      const int code = engine::to_int(engine::exit_code::rejected);
      say_error(command,
                context + ": none of its " + std::to_string(versions->size()) +
                    " version(s) has the plan's sink schema (fingerprint " + sink.fingerprint +
                    "); register it, or leave out --no-register",
                code);
      return code;
    }
  }
  // 0 reads as no id at all; the wire format's 4 bytes hold no more.
  if (*id <= 0 || *id > std::int64_t{UINT32_MAX}) {
    const int code = engine::to_int(engine::exit_code::config);
    say_error(command,
              context + ": the registry answered schema id " + std::to_string(*id) +
                  ", which the Confluent wire format cannot frame (1 to 4294967295)",
              code);
    return code;
  }
  return static_cast<std::uint32_t>(*id);
}

int report_registry_failure(std::string_view command, std::string_view context, const r::failure& f,
                            std::string_view subject, std::optional<std::int64_t> version) {
  const int code = engine::to_int(exit_code_of(f.verdict()));
  say_error(command, std::string(context) + ": " + f.message + "; " + registry_advice(f, subject, version),
            code);
  return code;
}

}  // namespace streamt::cli
