// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/metrics_server.hpp"

#include "engine/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include <charconv>
#include <list>
#include <optional>

namespace streamt::engine {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

boost::system::result<tcp::endpoint, std::string> parse_listen_address(std::string_view text) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos)
    return std::string("expected HOST:PORT (e.g. 127.0.0.1:9400), got '" + std::string(text) + "'");
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc{} || end != port_text.data() + port_text.size() || port > 65535)
    return std::string("the port in '" + std::string(text) + "' is not a number from 0 to 65535");
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host == "localhost") host = "127.0.0.1";
  boost::system::error_code bad;
  const asio::ip::address address = asio::ip::make_address(host, bad);
  if (bad)
    return std::string("the host in '" + std::string(text) +
                       "' is not an IP address (use 127.0.0.1, 0.0.0.0, [::1] or localhost)");
  return tcp::endpoint(address, static_cast<unsigned short>(port));
}

// What connections and the server share: the open connections, so stop()
// can close them. Held by every connection's coroutine, so it outlives the
// server object if a connection finishes after it.
struct metrics_server::shared {
  shared(asio::any_io_executor ex, std::shared_ptr<const metrics> m, limits l)
      : acceptor(ex),
        slot_free(ex, std::chrono::steady_clock::time_point::max()),
        data(std::move(m)),
        bounds(l),
        log(boost::log::keywords::channel = "engine") {}
  tcp::acceptor acceptor;
  // Woken when a connection ends (or by stop()) while the accept loop waits
  // at the connection cap.
  asio::steady_timer slot_free;
  std::shared_ptr<const metrics> data;
  limits bounds;
  // Open connections, oldest first; `closing` is set once the server closed
  // one to make room (its coroutine then ends, and `open` counts it out).
  struct connection {
    std::weak_ptr<beast::tcp_stream> stream;
    std::shared_ptr<bool> closing;
  };
  std::list<connection> connections;
  std::size_t open = 0;
  std::size_t closing = 0;  // closed to make room, not yet counted out of `open`
  bool stopped = false;
  logger log;
};

namespace {

constexpr std::size_t header_limit = 8 * 1024;

// A request the parser refused: 431 for headers over the limit, 400 for
// anything else malformed. A client that went away or stayed idle gets
// nothing (nullopt).
std::optional<http::status> refusal_for(const boost::system::error_code& ec) {
  if (ec == http::error::header_limit) return http::status::request_header_fields_too_large;
  if (ec == http::error::end_of_stream || ec == http::error::partial_message) return std::nullopt;
  if (ec.category() == http::make_error_code(http::error::bad_version).category())
    return http::status::bad_request;
  return std::nullopt;
}

http::response<http::string_body> answer(const http::request<http::empty_body>& req, const metrics& m) {
  http::response<http::string_body> res;
  res.version(req.version());
  res.keep_alive(req.keep_alive());
  res.set(http::field::server, "streamt");
  res.set(http::field::cache_control, "no-store");
  res.set(http::field::content_type, "text/plain; charset=utf-8");
  std::string_view target = req.target();
  target = target.substr(0, target.find('?'));
  if (req.method() != http::verb::get && req.method() != http::verb::head) {
    res.result(http::status::method_not_allowed);
    res.set(http::field::allow, "GET, HEAD");
    res.body() = "only GET and HEAD\n";
  } else if (target == "/metrics") {
    res.result(http::status::ok);
    res.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
    res.body() = m.prometheus_text();
  } else if (target == "/healthz") {
    const bool live = m.live();
    res.result(live ? http::status::ok : http::status::service_unavailable);
    res.body() = live ? "ok\n" : "not running\n";
  } else if (target == "/readyz") {
    const metrics::readiness r = m.ready();
    res.result(r.ready ? http::status::ok : http::status::service_unavailable);
    res.body() = (r.ready ? "ready: " : "not ready: ") + r.detail + "\n";
  } else {
    res.result(http::status::not_found);
    res.body() = "not found; the endpoints are /metrics, /healthz and /readyz\n";
  }
  res.prepare_payload();
  if (req.method() == http::verb::head) res.body().clear();  // Content-Length stays that of GET
  return res;
}

asio::awaitable<void> serve_connection(std::shared_ptr<beast::tcp_stream> stream,
                                       std::shared_ptr<const metrics> m,
                                       std::chrono::milliseconds idle_timeout) {
  beast::flat_buffer buffer;
  for (;;) {
    http::request_parser<http::empty_body> parser;
    parser.header_limit(header_limit);
    stream->expires_after(idle_timeout);
    auto [read_error, read] =
        co_await http::async_read(*stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
    (void)read;
    if (read_error) {
      // Closed by the client, idle, or stop(): nothing to say. Malformed or
      // too large: say so, then close.
      if (std::optional<http::status> refused = refusal_for(read_error)) {
        http::response<http::string_body> res{*refused, 11};
        res.set(http::field::server, "streamt");
        res.set(http::field::content_type, "text/plain; charset=utf-8");
        res.body() = *refused == http::status::request_header_fields_too_large
                         ? "request headers over " + std::to_string(header_limit) + " bytes\n"
                         : std::string("malformed HTTP request\n");
        res.keep_alive(false);
        res.prepare_payload();
        stream->expires_after(idle_timeout);
        auto [write_error, written] =
            co_await http::async_write(*stream, res, asio::as_tuple(asio::use_awaitable));
        (void)write_error;
        (void)written;
      }
      break;
    }
    http::response<http::string_body> res = answer(parser.get(), *m);
    const bool keep = res.keep_alive();
    auto [write_error, written] =
        co_await http::async_write(*stream, res, asio::as_tuple(asio::use_awaitable));
    (void)written;
    if (write_error || !keep) break;
  }
  boost::system::error_code ignored;
  stream->socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream->socket().close(ignored);
}

}  // namespace

// At the cap, the oldest open connection is closed to make room: a health
// probe must be answered however many clients hold connections (1,100 idle
// sockets kept /healthz from answering for 14 s when new connections waited
// for a slot, and a liveness probe would restart a healthy engine). A
// scraper's keep-alive connection closed this way costs it one reconnect.
// Called once a new connection was accepted, so that room is made for a
// client that came, never ahead of one. False when none is left to close
// (all are closing already).
bool metrics_server::make_room(shared& s) {
  s.connections.remove_if([](const shared::connection& c) { return c.stream.expired(); });
  for (shared::connection& c : s.connections) {
    if (*c.closing) continue;
    if (std::shared_ptr<beast::tcp_stream> stream = c.stream.lock()) {
      *c.closing = true;
      ++s.closing;
      boost::system::error_code ignored;
      stream->socket().shutdown(tcp::socket::shutdown_both, ignored);
      stream->socket().close(ignored);
      return true;
    }
  }
  return false;
}

metrics_server::metrics_server(std::shared_ptr<shared> s) : shared_(std::move(s)) {}

metrics_server::~metrics_server() { stop(); }

boost::system::result<std::unique_ptr<metrics_server>> metrics_server::listen(
    asio::any_io_executor ex, tcp::endpoint at, std::shared_ptr<const metrics> m, limits l) {
  auto s = std::make_shared<shared>(ex, std::move(m), l);
  boost::system::error_code ec;
  if (s->acceptor.open(at.protocol(), ec); ec) return ec;
  // A restarted engine must not wait out TIME_WAIT of its last scrape.
  if (s->acceptor.set_option(tcp::acceptor::reuse_address(true), ec); ec) return ec;
  if (s->acceptor.bind(at, ec); ec) return ec;
  if (s->acceptor.listen(asio::socket_base::max_listen_connections, ec); ec) return ec;
  return std::unique_ptr<metrics_server>(new metrics_server(std::move(s)));
}

tcp::endpoint metrics_server::local_endpoint() const {
  boost::system::error_code ec;
  return shared_->acceptor.local_endpoint(ec);
}

asio::awaitable<void> metrics_server::serve() {
  std::shared_ptr<shared> s = shared_;
  const auto ex = s->acceptor.get_executor();
  asio::steady_timer backoff(ex);
  while (!s->stopped) {
    if (s->open >= 2 * s->bounds.max_connections) {
      // As many closing as open (they end at their next step, so this
      // passes at once): accept nothing until one has ended. Connections
      // waiting meanwhile sit in the kernel's listen backlog, holding no
      // descriptor of the engine's.
      s->slot_free.expires_at(std::chrono::steady_clock::time_point::max());
      auto woken = co_await s->slot_free.async_wait(asio::as_tuple(asio::use_awaitable));
      (void)woken;
      continue;
    }
    auto [ec, socket] = co_await s->acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
    if (ec == asio::error::operation_aborted || s->stopped) break;
    if (ec) {
      // Out of file descriptors and the like: the engine goes on; scrapes
      // fail until it passes. A pause keeps a persistent error from spinning.
      STREAMT_LOG(s->log, warning) << "metrics endpoint: accepting a connection failed: " << ec.message();
      backoff.expires_after(std::chrono::milliseconds(200));
      auto waited = co_await backoff.async_wait(asio::as_tuple(asio::use_awaitable));
      (void)waited;
      continue;
    }
    // At the cap, the newcomer takes the oldest one's place.
    if (s->open - s->closing >= s->bounds.max_connections) (void)make_room(*s);
    auto stream = std::make_shared<beast::tcp_stream>(std::move(socket));
    // Closed streams are forgotten as new ones come, so the list stays as
    // long as the number of open connections.
    s->connections.remove_if([](const shared::connection& c) { return c.stream.expired(); });
    auto closing = std::make_shared<bool>(false);
    s->connections.push_back({stream, closing});
    // A connection's failure concerns only its client: it is logged, never
    // propagated to the engine.
    ++s->open;
    asio::co_spawn(ex, serve_connection(stream, s->data, s->bounds.idle_timeout),
                   [s, closing](std::exception_ptr e) {
                     --s->open;
                     if (*closing) --s->closing;
                     s->slot_free.cancel();
                     if (!e) return;
                     try {
                       std::rethrow_exception(e);
                     } catch (const std::exception& x) {
                       STREAMT_LOG(s->log, warning) << "metrics endpoint: a connection failed: " << x.what();
                     }
                   });
  }
}

void metrics_server::stop() {
  if (!shared_ || shared_->stopped) return;
  shared_->stopped = true;
  boost::system::error_code ignored;
  shared_->acceptor.close(ignored);
  shared_->slot_free.cancel();
  for (const shared::connection& c : shared_->connections)
    if (std::shared_ptr<beast::tcp_stream> stream = c.stream.lock()) stream->socket().close(ignored);
  shared_->connections.clear();
}

}  // namespace streamt::engine
