// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// A loopback port nothing listens on, for the tests of a registry (or any
// server) that is down: bound, then released.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>

namespace streamt::test {

inline unsigned short closed_port() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  const unsigned short port = a.local_endpoint().port();
  a.close();
  return port;
}

}  // namespace streamt::test
