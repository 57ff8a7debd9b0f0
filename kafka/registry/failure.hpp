// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Every way a registry request can fail, classified once, here, so that the
// session decides on kinds and verdicts and never sees an HTTP status, an
// errno or an OpenSSL reason.

#include <cstdint>
#include <string>
#include <string_view>

namespace streamt::kafka::registry {

enum class failure_kind {
  unreachable,      // no connection: refused, no such host, reset, closed mid-answer
  timeout,          // the request's deadline (streamt.registry.request.timeout.ms) passed
  server_error,     // 5xx, 408 or 429: the registry can't answer now
  not_found,        // 404; `missing` says what, by the Confluent error code
  unauthorized,     // 401: the credentials are wrong or missing
  forbidden,        // 403: the credentials may not do this
  refused_request,  // another 4xx: 409/422 an incompatible or invalid schema on register, ...
  bad_answer,       // an answer that is no HTTP, too large, a redirect, or JSON of the wrong shape
  tls,              // the TLS handshake failed or the server's certificate was not trusted
  cancelled,        // the caller cancelled the request: no fault of the registry's
};
std::string_view to_string(failure_kind k) noexcept;

// What a 404 says is missing, from the Confluent error code in its body.
enum class missing {
  none,     // not a 404
  subject,  // 40401
  version,  // 40402
  schema,   // 40403: no schema with that id
  other,    // a 404 without one of those codes: most likely a URL without the registry's path prefix
};
constexpr missing missing_of(std::int64_t registry_code) noexcept {
  switch (registry_code) {
    case 40401:
      return missing::subject;
    case 40402:
      return missing::version;
    case 40403:
      return missing::schema;
    default:
      return missing::other;
  }
}

// What the caller should do about a failure.
enum class verdict {
  retry,  // transient: stall, back off (engine/session/backoff.hpp) and retry; a record is never blamed for
          // it
  settings,  // the settings are wrong (credentials, TLS, the URL): exit 78, naming the registry
  record,    // the record's fault: its schema id is unknown to the registry (unknown_schema_id)
  refused,   // the request was refused for what it asked (a subject or version that does not exist,
             // an incompatible schema): the caller's decision (compile says so, register fails)
  stop,      // cancelled: the caller is stopping
};

constexpr bool is_transient(failure_kind k) noexcept {
  return k == failure_kind::unreachable || k == failure_kind::timeout || k == failure_kind::server_error;
}

// The one table of verdicts. A 404 is the record's fault only when the
// registry says the schema id is unknown (40403): a 404 without that code
// (a URL missing /apis/ccompat/v7, a proxy's page) is the settings' fault,
// or every record would be dead-lettered because of a typo. An answer of
// the wrong shape means the URL points at something that is no registry.
constexpr verdict verdict_of(failure_kind k, missing m) noexcept {
  switch (k) {
    case failure_kind::unreachable:
    case failure_kind::timeout:
    case failure_kind::server_error:
      return verdict::retry;
    case failure_kind::unauthorized:
    case failure_kind::forbidden:
    case failure_kind::tls:
    case failure_kind::bad_answer:
      return verdict::settings;
    case failure_kind::not_found:
      if (m == missing::schema) return verdict::record;
      if (m == missing::other) return verdict::settings;
      return verdict::refused;
    case failure_kind::refused_request:
      return verdict::refused;
    case failure_kind::cancelled:
      return verdict::stop;
  }
  return verdict::settings;
}

// The kind of an HTTP answer's status (2xx is no failure: success).
constexpr failure_kind kind_of_status(unsigned status) noexcept {
  if (status == 401) return failure_kind::unauthorized;
  if (status == 403) return failure_kind::forbidden;
  if (status == 404) return failure_kind::not_found;
  if (status == 408 || status == 429 || (status >= 500 && status <= 599)) return failure_kind::server_error;
  if (status >= 400 && status <= 499) return failure_kind::refused_request;
  return failure_kind::bad_answer;  // 1xx, 3xx (no redirect is followed), anything else
}

struct failure {
  failure_kind kind = failure_kind::bad_answer;
  unsigned status = 0;             // the HTTP status, 0 when there was no answer
  std::int64_t registry_code = 0;  // the body's error_code, 0 when none
  missing what_missing = missing::none;
  // "schema registry URL: METHOD PATH: what happened", the URL without
  // userinfo; never a credential.
  std::string message;

  bool transient() const noexcept { return is_transient(kind); }
  registry::verdict verdict() const noexcept { return verdict_of(kind, what_missing); }
};

}  // namespace streamt::kafka::registry
