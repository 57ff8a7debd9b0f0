// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The engine's one HTTP client: a Confluent-compatible Schema Registry over
// HTTP/1.1, plain or TLS (Boost.Beast, OpenSSL), on the caller's executor.
//
// One persistent connection per client, one request at a time: calls must
// not overlap (an overlapping call throws std::logic_error, a bug in the
// caller). A connection the server closed while idle is noticed on the next
// request, which reconnects and is sent again once; a request is sent at
// most twice, and only then (GETs are safe to repeat, and registering the
// same schema again answers the same id).
//
// The client must outlive every operation it started (they run on its
// connection); destroying it closes the connection.
//
// Every operation:
//   - completes on the executor given to make(), never blocking it;
//   - is bounded by config::request_timeout as a whole (resolving,
//     connecting, the TLS handshake, sending, the answer);
//   - honours the awaiting coroutine's cancellation (terminal, partial and
//     total alike): it then completes with failure_kind::cancelled and the
//     connection is closed;
//   - reads at most max_answer_bytes of answer body and max_header_bytes of
//     headers, refusing more as bad_answer before reading it;
//   - returns a failure (failure.hpp) classified here, whose message names the
//     registry by its URL without userinfo and the request, never a
//     credential. Nothing throws on a failed request.

#include "kafka/registry/config.hpp"
#include "kafka/registry/failure.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/system/result.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace streamt::kafka::registry {

// A schema is at most a few hundred KiB in practice; 4 MiB bounds what a
// broken or hostile server can make us hold per request.
inline constexpr std::size_t max_answer_bytes = 4u << 20;
inline constexpr std::size_t max_header_bytes = 16u << 10;

[[noreturn]] void throw_exception_from_error(const failure& f, const boost::source_location&);

template <class T>
using result = boost::system::result<T, failure>;

enum class schema_type { avro, json, protobuf };
std::string_view to_string(schema_type t) noexcept;  // "AVRO", "JSON", "PROTOBUF"

struct schema_reference {
  std::string name;
  std::string subject;
  std::int64_t version = 0;
  friend bool operator==(const schema_reference&, const schema_reference&) = default;
};

struct schema {
  std::string text;
  schema_type type = schema_type::avro;  // AVRO when the answer names none
  std::vector<schema_reference> references;
};

struct subject_schema {
  std::string subject;
  std::int64_t version = 0;
  std::int64_t id = 0;
  registry::schema schema;
};

// Counts for tests and metrics.
struct client_stats {
  std::uint64_t requests = 0;     // requests sent, a resend after a stale connection included
  std::uint64_t connections = 0;  // connections opened (TCP, and the TLS handshake when https)
  std::uint64_t resent = 0;       // requests sent again after the kept-alive connection was found closed
};

class client {
 public:
  // Loads the TLS files of `c` (the CA, the client certificate and key); a
  // file that can't be loaded is a failure of kind tls naming the setting.
  // Connects only when the first request is made.
  static result<std::unique_ptr<client>> make(boost::asio::any_io_executor executor, config c);
  ~client();
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  // GET /schemas/ids/ID: the schema with that id. An unknown id is
  // not_found with missing::schema (verdict::record).
  boost::asio::awaitable<result<schema>> schema_by_id(std::int64_t id);
  // GET /subjects/SUBJECT/versions: the subject's versions, as listed.
  boost::asio::awaitable<result<std::vector<std::int64_t>>> subject_versions(std::string subject);
  // GET /subjects/SUBJECT/versions/VERSION: one version, the latest when
  // `version` is empty.
  boost::asio::awaitable<result<subject_schema>> subject_version(std::string subject,
                                                                 std::optional<std::int64_t> version);
  // POST /subjects/SUBJECT/versions: registers the schema (or finds it
  // registered already) and returns its id. An incompatible schema is
  // refused_request (409), an invalid one too (422), with the registry's words.
  boost::asio::awaitable<result<std::int64_t>> register_schema(std::string subject, std::string schema_text,
                                                               schema_type type = schema_type::avro);

  // Closes the connection now (the next request opens one).
  void close() noexcept;
  const client_stats& stats() const noexcept;
  const registry_url& url() const noexcept;

 private:
  struct impl;
  explicit client(std::unique_ptr<impl> i);
  std::unique_ptr<impl> impl_;
};

}  // namespace streamt::kafka::registry
