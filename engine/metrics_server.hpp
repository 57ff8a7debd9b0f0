// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The HTTP endpoints of a running engine (`streamt run --metrics-address`),
// served with Boost.Beast on the engine's own executor:
//
//   GET /metrics   Prometheus text format (engine/metrics.hpp, docs/metrics.md)
//   GET /healthz   200 while the engine runs, 503 once it has ended; an
//                  answer at all shows the engine's io_context is not blocked
//   GET /readyz    200 once the group has assigned this instance its
//                  partitions and until a stop begins, 503 otherwise
//
// HTTP/1.1 with keep-alive (Prometheus reuses its connection). Bounded so
// that no client can take the engine's file descriptors (its Kafka
// connections need them): at most metrics_server::limits::max_connections
// open at once, each closed when idle for idle_timeout; at the cap the
// oldest is closed to make room for the next, so that no number of idle or
// slow clients keeps a health probe from its answer; requests
// are bounded too (8 KiB of headers, answered 431 past it; 400 for a
// malformed one; no body). Nothing here touches the pipeline: it only reads
// the metrics object.

#include "engine/metrics.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace streamt::engine {

// "HOST:PORT" with HOST an IPv4 address, a bracketed IPv6 address
// ("[::1]:9400") or "localhost"; PORT 0 asks the system for a free port.
// On failure: what is wrong with the text, for a usage error.
boost::system::result<boost::asio::ip::tcp::endpoint, std::string> parse_listen_address(
    std::string_view text);

// The bounds of metrics_server (a namespace-scope type: a nested one with
// default member initializers cannot be a default argument of its class).
struct metrics_server_limits {
  // A scraper or two and a probe need a handful; 16 leave room for a
  // curl by hand while a flood of idle connections costs 16 descriptors.
  std::size_t max_connections = 16;
  // Prometheus scrapes every 15 s or more: a connection is rarely reused
  // in time anyway, and an idle one must not hold a slot for long.
  std::chrono::milliseconds idle_timeout{5000};
};

class metrics_server {
 public:
  using limits = metrics_server_limits;

  // Binds and listens before returning, so a port that is taken fails here,
  // before the engine touches Kafka.
  static boost::system::result<std::unique_ptr<metrics_server>> listen(boost::asio::any_io_executor ex,
                                                                       boost::asio::ip::tcp::endpoint at,
                                                                       std::shared_ptr<const metrics> m,
                                                                       limits l = {});

  metrics_server(const metrics_server&) = delete;
  metrics_server& operator=(const metrics_server&) = delete;
  ~metrics_server();

  // Where it listens (the actual port when 0 was asked for).
  boost::asio::ip::tcp::endpoint local_endpoint() const;

  // Accepts and answers connections until stop().
  // Completion: returns when the acceptor is closed. Executor: the one given
  //   to listen(); connections run there too. Cancellation: by stop(), which
  //   also closes every open connection, so nothing outlives the server's
  //   owner's io_context run.
  boost::asio::awaitable<void> serve();
  void stop();

 private:
  struct shared;
  explicit metrics_server(std::shared_ptr<shared> s);
  static bool make_room(shared& s);
  std::shared_ptr<shared> shared_;
};

}  // namespace streamt::engine
