// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/registry/client.hpp"

#include "kafka/registry/base64.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <chrono>
#include <stdexcept>
#include <variant>

namespace streamt::kafka::registry {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using clock_type = std::chrono::steady_clock;
using namespace asio::experimental::awaitable_operators;

void throw_exception_from_error(const failure& f, const boost::source_location&) {
  throw std::logic_error("unchecked registry result: " + f.message);
}

std::string_view to_string(failure_kind k) noexcept {
  switch (k) {
    case failure_kind::unreachable:
      return "unreachable";
    case failure_kind::timeout:
      return "timeout";
    case failure_kind::server_error:
      return "server_error";
    case failure_kind::not_found:
      return "not_found";
    case failure_kind::unauthorized:
      return "unauthorized";
    case failure_kind::forbidden:
      return "forbidden";
    case failure_kind::refused_request:
      return "refused_request";
    case failure_kind::bad_answer:
      return "bad_answer";
    case failure_kind::tls:
      return "tls";
    case failure_kind::cancelled:
      return "cancelled";
  }
  return "unknown";
}

std::string_view to_string(schema_type t) noexcept {
  switch (t) {
    case schema_type::avro:
      return "AVRO";
    case schema_type::json:
      return "JSON";
    case schema_type::protobuf:
      return "PROTOBUF";
  }
  return "AVRO";
}

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
using tls_stream = ssl::stream<beast::tcp_stream>;

// A path segment: everything but RFC 3986's unreserved characters
// percent-encoded, so a subject with '/', '?' or '%' stays one segment.
std::string encode_segment(std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += hex[u >> 4];
      out += hex[u & 0xF];
    }
  }
  return out;
}

bool is_ip_address(const std::string& host) {
  error_code ec;
  (void)asio::ip::make_address(host, ec);
  return !ec;
}

// The registry's own words, fit for one log line: control characters
// become spaces and the text is cut at 300 bytes.
std::string tidy(std::string_view s) {
  std::string out(s.substr(0, 300));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  if (s.size() > 300) out += "...";
  return out;
}

// The outcome of one attempt before it is classified.
struct attempt_outcome {
  error_code ec;
  enum class phase { resolving, connecting, handshake, sending, reading } at = phase::resolving;
  bool got_some = false;      // any byte of an answer arrived
  std::string verify_reason;  // the certificate check's verdict when the handshake failed on it
  unsigned status = 0;
  std::string body;
  bool keep_alive = false;
};

// A kept-alive connection the server closed while idle shows as one of
// these before any byte of the answer.
bool is_stale(const error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
         ec == asio::error::broken_pipe || ec == asio::error::connection_aborted ||
         ec == ssl::error::stream_truncated;
}

}  // namespace

struct client::impl {
  impl(asio::any_io_executor e, config c) : executor(std::move(e)), settings(std::move(c)) {}

  asio::any_io_executor executor;
  config settings;
  std::string registry;  // "schema registry URL" as messages start
  std::string host_field;
  std::string authorization;  // "Basic ...", empty without credentials
  std::optional<ssl::context> tls;
  std::optional<beast::tcp_stream> plain;
  std::optional<tls_stream> secure;
  beast::flat_buffer buffer;
  bool busy = false;
  client_stats counters;

  bool connected() const noexcept { return plain.has_value() || secure.has_value(); }

  void close() noexcept {
    error_code ignored;
    if (plain) plain->socket().close(ignored);
    // No close_notify: waiting for the server's would be one more thing to
    // time out, and nothing is left to protect on a connection we drop.
    if (secure) beast::get_lowest_layer(*secure).socket().close(ignored);
    plain.reset();
    secure.reset();
    buffer.clear();
  }

  // A message must never carry a credential; the registry's own words are
  // the one text we did not write, so they are scrubbed of ours.
  std::string scrub(std::string text) const {
    auto erase_all = [&text](const std::string& secret) {
      if (secret.size() < 3) return;  // too short to tell from ordinary text
      for (std::size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at))
        text.replace(at, secret.size(), "[redacted]");
    };
    if (settings.basic_auth) {
      erase_all(settings.basic_auth->password);
      erase_all(settings.basic_auth->user);
    }
    if (!authorization.empty()) erase_all(authorization.substr(6));
    return text;
  }

  failure make_failure(failure_kind kind, const std::string& request, std::string what) const {
    failure f;
    f.kind = kind;
    f.message = registry + ": " + request + ": " + std::move(what);
    return f;
  }

  failure transport_failure(const attempt_outcome& o, const std::string& request) const {
    const error_code& ec = o.ec;
    if (ec == asio::error::operation_aborted)
      return make_failure(failure_kind::cancelled, request, "cancelled");
    if (ec == beast::error::timeout)
      return make_failure(failure_kind::timeout, request,
                          "no answer within " + std::to_string(settings.request_timeout.count()) +
                              " ms (streamt.registry.request.timeout.ms)");
    using phase = attempt_outcome::phase;
    // With TLS 1.3 the server checks our certificate after our side of the
    // handshake is done: its refusal arrives as an alert on the first read.
    if ((o.at == phase::sending || o.at == phase::reading) &&
        ec.category() == asio::error::get_ssl_category())
      return make_failure(failure_kind::tls, request, "the server ended the TLS session: " + ec.message());
    switch (o.at) {
      case phase::resolving:
        return make_failure(failure_kind::unreachable, request,
                            "can't resolve " + settings.url.host + ": " + ec.message());
      case phase::connecting:
        return make_failure(failure_kind::unreachable, request, "can't connect: " + ec.message());
      case phase::handshake:
        return make_failure(
            failure_kind::tls, request,
            "TLS handshake failed: " + (o.verify_reason.empty()
                                            ? ec.message()
                                            : "the server's certificate was refused: " + o.verify_reason));
      case phase::sending:
        return make_failure(failure_kind::unreachable, request, "connection lost sending: " + ec.message());
      case phase::reading:
        if (ec == http::error::body_limit)
          return make_failure(failure_kind::bad_answer, request,
                              "the answer's body is over " + std::to_string(max_answer_bytes) + " bytes");
        if (ec == http::error::header_limit)
          return make_failure(failure_kind::bad_answer, request,
                              "the answer's headers are over " + std::to_string(max_header_bytes) + " bytes");
        if (ec.category() == make_error_code(http::error::end_of_stream).category() &&
            ec != http::error::end_of_stream && ec != http::error::partial_message)
          return make_failure(failure_kind::bad_answer, request, "the answer is not HTTP: " + ec.message());
        return make_failure(failure_kind::unreachable, request,
                            "connection lost before the answer was complete: " + ec.message());
    }
    return make_failure(failure_kind::unreachable, request, ec.message());
  }

  // A failed answer: the status's kind, the Confluent error code and the
  // registry's message when the body has them.
  failure status_failure(const attempt_outcome& o, const std::string& request) const {
    std::int64_t code = 0;
    std::string said;
    error_code ec;
    const json::value v = json::parse(o.body, ec);
    if (!ec && v.is_object()) {
      if (const auto* c = v.as_object().if_contains("error_code"); c && c->is_int64()) code = c->as_int64();
      if (const auto* m = v.as_object().if_contains("message"); m && m->is_string())
        said = tidy(scrub(std::string(m->as_string())));  // scrubbed whole, before the cut
    }
    const failure_kind kind = kind_of_status(o.status);
    std::string what = std::to_string(o.status);
    if (code != 0 || !said.empty())
      what += " (" +
              (code != 0 ? "error " + std::to_string(code) + (said.empty() ? "" : ": ") : std::string()) +
              said + ")";
    switch (kind) {
      case failure_kind::unauthorized:
        what += "; check the credentials (basic.auth.user.info, or the URL's USER:PASSWORD@)";
        break;
      case failure_kind::forbidden:
        what += "; the credentials may not do this";
        break;
      case failure_kind::not_found:
        if (missing_of(code) == missing::other)
          what +=
              "; no Confluent error code: does the URL lack the registry's path (such as /apis/ccompat/v7)?";
        break;
      case failure_kind::bad_answer:
        if (o.status >= 300 && o.status < 400)
          what += ": a redirect, which streamt does not follow; give the URL it points to";
        else
          what += ": not a status a registry answers";
        break;
      default:
        break;
    }
    failure f = make_failure(kind, request, scrub(std::move(what)));
    f.status = o.status;
    f.registry_code = code;
    f.what_missing = kind == failure_kind::not_found ? missing_of(code) : missing::none;
    return f;
  }

  failure shape_failure(const std::string& request, const std::string& why) const {
    return make_failure(failure_kind::bad_answer, request, "the answer is not what a registry sends: " + why);
  }

  // Resolves and connects (and shakes hands) within `deadline`.
  asio::awaitable<attempt_outcome> connect(clock_type::time_point deadline) {
    attempt_outcome o;
    tcp::resolver resolver(executor);
    asio::steady_timer timer(executor, deadline);
    auto resolving = resolver.async_resolve(settings.url.host, std::to_string(settings.url.port), use_tuple);
    auto expiring = timer.async_wait(use_tuple);
    auto raced = co_await (std::move(resolving) || std::move(expiring));
    if (raced.index() == 1) {
      const auto [timer_ec] = std::get<1>(raced);
      o.ec = timer_ec ? error_code(asio::error::operation_aborted) : error_code(beast::error::timeout);
      co_return o;
    }
    auto [resolve_ec, endpoints] = std::get<0>(std::move(raced));
    if (resolve_ec) {
      o.ec = resolve_ec;
      co_return o;
    }
    o.at = attempt_outcome::phase::connecting;
    if (!tls) {
      plain.emplace(executor);
      plain->expires_at(deadline);
      auto [ec, ep] = co_await plain->async_connect(endpoints, use_tuple);
      o.ec = ec;
      if (!ec) ++counters.connections;
      co_return o;
    }
    secure.emplace(executor, *tls);
    SSL* handle = secure->native_handle();
    // SNI carries a name, never an address (RFC 6066); the certificate is
    // checked against the one or the other by OpenSSL itself, so a mismatch
    // is reported with OpenSSL's reason.
    if (is_ip_address(settings.url.host)) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(handle), settings.url.host.c_str());
    } else {
      SSL_set_tlsext_host_name(handle, settings.url.host.c_str());
      SSL_set1_host(handle, settings.url.host.c_str());
    }
    secure->set_verify_mode(ssl::verify_peer);
    auto& lowest = beast::get_lowest_layer(*secure);
    lowest.expires_at(deadline);
    auto [connect_ec, ep] = co_await lowest.async_connect(endpoints, use_tuple);
    if (connect_ec) {
      o.ec = connect_ec;
      co_return o;
    }
    o.at = attempt_outcome::phase::handshake;
    auto [handshake_ec] = co_await secure->async_handshake(ssl::stream_base::client, use_tuple);
    if (handshake_ec) {
      o.ec = handshake_ec;
      const long verified = SSL_get_verify_result(handle);
      if (verified != X509_V_OK) o.verify_reason = X509_verify_cert_error_string(verified);
      co_return o;
    }
    ++counters.connections;
    co_return o;
  }

  template <class Stream>
  asio::awaitable<attempt_outcome> round_trip(Stream& stream, http::request<http::string_body>& request,
                                              clock_type::time_point deadline) {
    attempt_outcome o;
    auto& lowest = beast::get_lowest_layer(stream);
    lowest.expires_at(deadline);
    o.at = attempt_outcome::phase::sending;
    auto [write_ec, written] = co_await http::async_write(stream, request, use_tuple);
    if (write_ec) {
      o.ec = write_ec;
      co_return o;
    }
    o.at = attempt_outcome::phase::reading;
    http::response_parser<http::string_body> parser;
    // Both limits are checked as the bytes arrive, a Content-Length over the
    // body's limit as soon as the header is read: nothing past them is held.
    parser.header_limit(static_cast<std::uint32_t>(max_header_bytes));
    parser.body_limit(max_answer_bytes);
    auto [read_ec, read] = co_await http::async_read(stream, buffer, parser, use_tuple);
    o.got_some = parser.got_some();
    if (read_ec) {
      o.ec = read_ec;
      co_return o;
    }
    lowest.expires_never();
    auto answer = parser.release();
    o.status = answer.result_int();
    o.keep_alive = answer.keep_alive();
    o.body = std::move(answer.body());
    co_return o;
  }

  // One request and its answer, on the kept-alive connection or a new one;
  // a 2xx answer's body, or the failure.
  asio::awaitable<result<std::string>> exchange(http::verb method, std::string path, std::string body) {
    co_await asio::this_coro::throw_if_cancelled(false);
    co_await asio::this_coro::reset_cancellation_state(asio::enable_total_cancellation());
    if (busy) throw std::logic_error("kafka::registry::client: a request while another is in flight");
    busy = true;
    struct release {
      bool& flag;
      ~release() { flag = false; }
    } released{busy};

    const std::string request_name = std::string(http::to_string(method)) + " " + path;
    const auto deadline = clock_type::now() + settings.request_timeout;
    http::request<http::string_body> request{method, settings.url.prefix + path, 11u};
    request.set(http::field::host, host_field);
    request.set(http::field::user_agent, "streamt");
    request.set(http::field::accept, "application/vnd.schemaregistry.v1+json, application/json");
    if (!authorization.empty()) request.set(http::field::authorization, authorization);
    if (method == http::verb::post) {
      request.set(http::field::content_type, "application/vnd.schemaregistry.v1+json");
      request.body() = std::move(body);
    }
    request.keep_alive(true);
    request.prepare_payload();

    for (int attempt = 0;; ++attempt) {
      const bool reused = connected();
      if (!reused) {
        attempt_outcome c = co_await connect(deadline);
        if (c.ec) {
          close();
          co_return transport_failure(c, request_name);
        }
      }
      ++counters.requests;
      // Not `secure ? co_await ... : co_await ...`: GCC 12 destroys the
      // result of a conditional of two co_awaits twice.
      attempt_outcome o;
      if (secure)
        o = co_await round_trip(*secure, request, deadline);
      else
        o = co_await round_trip(*plain, request, deadline);
      if (!o.ec) {
        if (!o.keep_alive) close();
        if (o.status >= 200 && o.status < 300) co_return std::move(o.body);
        co_return status_failure(o, request_name);
      }
      close();
      // Sent again at most once, and only when the connection was an old
      // one that died before any byte of an answer: a server's idle
      // timeout, not an answer lost halfway.
      if (reused && attempt == 0 && !o.got_some && is_stale(o.ec)) {
        ++counters.resent;
        continue;
      }
      co_return transport_failure(o, request_name);
    }
  }

  // The answer's body as JSON, or bad_answer.
  result<json::value> parse_answer(const std::string& body, const std::string& request) const {
    error_code ec;
    json::value v = json::parse(body, ec);
    if (ec) return shape_failure(request, "not JSON (" + ec.message() + ")");
    return v;
  }
};

namespace {

// Why an answer has the wrong shape.
struct shape_error {
  std::string why;
};
template <class T>
using shaped = boost::system::result<T, shape_error>;

// Strict readers of a registry's JSON: a member the operation needs that is
// missing or of another type is an error naming it; members we don't read
// are ignored (registries add their own).
shaped<std::string> string_member(const json::object& o, std::string_view name) {
  const auto* v = o.if_contains(name);
  if (!v) return shape_error{"no '" + std::string(name) + "'"};
  if (!v->is_string()) return shape_error{"'" + std::string(name) + "' is not a string"};
  return shaped<std::string>(boost::system::in_place_value, std::string(v->as_string()));
}

shaped<std::int64_t> id_member(const json::object& o, std::string_view name) {
  const auto* v = o.if_contains(name);
  if (!v) return shape_error{"no '" + std::string(name) + "'"};
  if (v->is_int64() && v->as_int64() > 0) return v->as_int64();
  if (v->is_uint64() && v->as_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(v->as_uint64());
  return shape_error{"'" + std::string(name) + "' is not a positive whole number"};
}

shaped<schema> schema_of(const json::object& o) {
  schema s;
  auto text = string_member(o, "schema");
  if (!text) return text.error();
  s.text = std::move(*text);
  if (const auto* t = o.if_contains("schemaType")) {
    if (!t->is_string()) return shape_error{std::string("'schemaType' is not a string")};
    const std::string_view name = t->as_string();
    if (name == "AVRO")
      s.type = schema_type::avro;
    else if (name == "JSON")
      s.type = schema_type::json;
    else if (name == "PROTOBUF")
      s.type = schema_type::protobuf;
    else
      return shape_error{"'schemaType' is '" + tidy(name) + "', none of AVRO, JSON, PROTOBUF"};
  }
  if (const auto* r = o.if_contains("references")) {
    if (!r->is_array()) return shape_error{std::string("'references' is not an array")};
    for (const json::value& e : r->as_array()) {
      if (!e.is_object()) return shape_error{std::string("a reference is not an object")};
      auto name = string_member(e.as_object(), "name");
      if (!name) return shape_error{"a reference has " + name.error().why};
      auto subject = string_member(e.as_object(), "subject");
      if (!subject) return shape_error{"a reference has " + subject.error().why};
      auto version = id_member(e.as_object(), "version");
      if (!version) return shape_error{"a reference has " + version.error().why};
      s.references.push_back({std::move(*name), std::move(*subject), *version});
    }
  }
  return s;
}

}  // namespace

result<std::unique_ptr<client>> client::make(asio::any_io_executor executor, config c) {
  auto i = std::make_unique<impl>(std::move(executor), std::move(c));
  const config& s = i->settings;
  i->registry = "schema registry " + s.url.to_string();
  const bool default_port = s.url.port == (s.url.tls ? 443 : 80);
  const std::string host = s.url.host.find(':') != std::string::npos ? "[" + s.url.host + "]" : s.url.host;
  i->host_field = default_port ? host : host + ":" + std::to_string(s.url.port);
  if (s.basic_auth)
    i->authorization = "Basic " + base64_encode(s.basic_auth->user + ":" + s.basic_auth->password);
  if (s.url.tls) {
    auto refuse = [&](std::string what) {
      failure f;
      f.kind = failure_kind::tls;
      f.message = i->registry + ": " + std::move(what);
      return f;
    };
    i->tls.emplace(ssl::context::tls_client);
    ssl::context& ctx = *i->tls;
    SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION);
    error_code ec;
    if (s.ca_location.empty()) {
      ctx.set_default_verify_paths(ec);
      if (ec) return refuse("can't load the system's trusted CAs: " + ec.message());
    } else {
      ctx.load_verify_file(s.ca_location, ec);
      if (ec) return refuse("schema.registry.ssl.ca.location (" + s.ca_location + "): " + ec.message());
    }
    if (!s.certificate_location.empty()) {
      ctx.use_certificate_chain_file(s.certificate_location, ec);
      if (ec)
        return refuse("schema.registry.ssl.certificate.location (" + s.certificate_location +
                      "): " + ec.message());
      // The key password lives in the callback's copy only as long as the
      // context; OpenSSL asks for it once, while the key is loaded.
      if (!s.key_password.empty())
        ctx.set_password_callback(
            [password = s.key_password](std::size_t, ssl::context::password_purpose) { return password; });
      ctx.use_private_key_file(s.key_location, ssl::context::pem, ec);
      // The key's path is withheld (config::to_string says why); OpenSSL's
      // reason ("bad decrypt") names no password.
      if (ec) return refuse("schema.registry.ssl.key.location: the key can't be loaded: " + ec.message());
    }
  }
  return std::unique_ptr<client>(new client(std::move(i)));
}

client::client(std::unique_ptr<impl> i) : impl_(std::move(i)) {}
client::~client() { impl_->close(); }

void client::close() noexcept { impl_->close(); }
const client_stats& client::stats() const noexcept { return impl_->counters; }
const registry_url& client::url() const noexcept { return impl_->settings.url; }

asio::awaitable<result<schema>> client::schema_by_id(std::int64_t id) {
  const std::string path = "/schemas/ids/" + std::to_string(id);
  auto body = co_await impl_->exchange(http::verb::get, path, {});
  if (!body) co_return body.error();
  const std::string request = "GET " + path;
  auto v = impl_->parse_answer(*body, request);
  if (!v) co_return v.error();
  if (!v->is_object()) co_return impl_->shape_failure(request, "not an object");
  auto s = schema_of(v->as_object());
  if (!s) co_return impl_->shape_failure(request, s.error().why);
  co_return std::move(*s);
}

asio::awaitable<result<std::vector<std::int64_t>>> client::subject_versions(std::string subject) {
  const std::string path = "/subjects/" + encode_segment(subject) + "/versions";
  auto body = co_await impl_->exchange(http::verb::get, path, {});
  if (!body) co_return body.error();
  const std::string request = "GET " + path;
  auto v = impl_->parse_answer(*body, request);
  if (!v) co_return v.error();
  if (!v->is_array()) co_return impl_->shape_failure(request, "not an array of versions");
  std::vector<std::int64_t> out;
  for (const json::value& e : v->as_array()) {
    if (!e.is_int64() || e.as_int64() <= 0)
      co_return impl_->shape_failure(request, "a version is not a positive whole number");
    out.push_back(e.as_int64());
  }
  co_return out;
}

asio::awaitable<result<subject_schema>> client::subject_version(std::string subject,
                                                                std::optional<std::int64_t> version) {
  const std::string path = "/subjects/" + encode_segment(subject) + "/versions/" +
                           (version ? std::to_string(*version) : std::string("latest"));
  auto body = co_await impl_->exchange(http::verb::get, path, {});
  if (!body) co_return body.error();
  const std::string request = "GET " + path;
  auto v = impl_->parse_answer(*body, request);
  if (!v) co_return v.error();
  if (!v->is_object()) co_return impl_->shape_failure(request, "not an object");
  const json::object& o = v->as_object();
  subject_schema out;
  auto name = string_member(o, "subject");
  if (!name) co_return impl_->shape_failure(request, name.error().why);
  out.subject = std::move(*name);
  auto number = id_member(o, "version");
  if (!number) co_return impl_->shape_failure(request, number.error().why);
  out.version = *number;
  auto id = id_member(o, "id");
  if (!id) co_return impl_->shape_failure(request, id.error().why);
  out.id = *id;
  auto s = schema_of(o);
  if (!s) co_return impl_->shape_failure(request, s.error().why);
  out.schema = std::move(*s);
  co_return out;
}

asio::awaitable<result<std::int64_t>> client::register_schema(std::string subject, std::string schema_text,
                                                              schema_type type) {
  const std::string path = "/subjects/" + encode_segment(subject) + "/versions";
  json::object request_body;
  request_body["schema"] = schema_text;
  // AVRO is every registry's default; older ones reject the member.
  if (type != schema_type::avro) request_body["schemaType"] = to_string(type);
  auto body = co_await impl_->exchange(http::verb::post, path, json::serialize(request_body));
  if (!body) co_return body.error();
  const std::string request = "POST " + path;
  auto v = impl_->parse_answer(*body, request);
  if (!v) co_return v.error();
  if (!v->is_object()) co_return impl_->shape_failure(request, "not an object");
  auto id = id_member(v->as_object(), "id");
  if (!id) co_return impl_->shape_failure(request, id.error().why);
  co_return *id;
}

}  // namespace streamt::kafka::registry
