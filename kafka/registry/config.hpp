// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The Schema Registry client's settings: the `--schema-registry URL` value
// and an optional `--registry-config FILE` in Java properties syntax with the
// Confluent clients' keys (basic auth, TLS files) and our own bounded
// timeouts. Used by registry-backed plans (issue 37); not wired into
// `streamt run` yet.
//
// Strict: an unknown key, a key given twice, a malformed line, a number out
// of its range, a source of credentials that contradicts another, or
// credentials that would cross a network in clear text are refused with the
// file's line:column and what to do.
//
// Secrets (the password, the key password, a URL's userinfo) never appear in
// an error message or in to_string(), whatever was mistyped: a message quotes
// no part of a URL that holds an '@', and no value of a secret key.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

namespace streamt::kafka::registry {

// Where the registry is, with any userinfo taken out (see config::basic_auth).
struct registry_url {
  bool tls = false;  // https
  std::string host;  // a name, an IPv4 address, or an IPv6 address without its brackets
  std::uint16_t port = 0;
  std::string prefix;  // the path before /schemas, /subjects: "" or "/apis/ccompat/v7" (no trailing '/')
  // "http://host:port/prefix": the registry as every message names it.
  std::string to_string() const;
  friend bool operator==(const registry_url&, const registry_url&) = default;
};

// Whether `host` is this machine (127.0.0.0/8, ::1, localhost): the only
// hosts plain http may carry credentials to.
bool is_loopback_host(std::string_view host) noexcept;

struct basic_credentials {
  std::string user;
  std::string password;  // secret
};

// Our own keys' ranges and defaults (milliseconds), as the contract
// documents them (§6, Schema Registry settings).
struct range {
  std::int64_t min;
  std::int64_t max;
  std::int64_t fallback;
};
inline constexpr range request_timeout_range{100, 300'000, 10'000};
inline constexpr range backoff_initial_range{1, 60'000, 100};
inline constexpr range backoff_max_range{1, 600'000, 10'000};

// The settings in force, validated. to_string() shows them with secrets
// replaced.
struct config {
  registry_url url;
  std::optional<basic_credentials> basic_auth;
  std::string ca_location;           // PEM CA file; empty: the system's trust store
  std::string certificate_location;  // client certificate (PEM), with key_location
  std::string key_location;          // client key (PEM)
  std::string key_password;          // secret; empty for an unencrypted key
  // Bounds every request, connecting and the TLS handshake included.
  std::chrono::milliseconds request_timeout{request_timeout_range.fallback};
  // The engine's backoff while the registry is down (engine/session/backoff.hpp):
  // first delay and cap.
  std::chrono::milliseconds backoff_initial{backoff_initial_range.fallback};
  std::chrono::milliseconds backoff_max{backoff_max_range.fallback};

  std::string to_string() const;
};

struct config_error {
  std::string key;       // the key at fault, when it can be shown; empty otherwise
  std::size_t line = 0;  // 1-based, 0 when the error is about the URL
  std::size_t column = 0;
  std::string message;  // "FILE:LINE:COLUMN: ..." or "--schema-registry: ..."; never a secret
};

[[noreturn]] void throw_exception_from_error(const config_error& e, const boost::source_location&);

template <class T>
using config_result = boost::system::result<T, config_error>;

// A `--schema-registry` value: http:// or https://, a host, an optional
// port (80 and 443 by default) and an optional path prefix; no query or
// fragment. Userinfo (`user:password@`, percent-encoded) is returned apart,
// decoded, for parse_config to weigh against the file's settings.
struct parsed_url {
  registry_url url;
  std::optional<basic_credentials> userinfo;
};
config_result<parsed_url> parse_url(std::string_view text);

// The settings from `url` and the properties `file_text` (empty when no
// file was given); `file_name` is what messages call the file.
// ${env:NAME} and ${file:PATH} references are resolved as in --config
// (kafka/config.hpp), so a password need not be written in the file.
config_result<config> parse_config(std::string_view url, std::string_view file_text = {},
                                   std::string_view file_name = "--registry-config");

}  // namespace streamt::kafka::registry
