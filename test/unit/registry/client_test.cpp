// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/registry/client.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/test/unit_test.hpp>

#include "test/unit/registry/test_certs.hpp"

#include <openssl/evp.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <random>

namespace r = streamt::kafka::registry;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;
using namespace asio::experimental::awaitable_operators;

namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
constexpr std::string_view password = "Hunter2Xyzzy";

// What the fake registry does with the next request it reads.
enum class act {
  answer,             // answers with status and body, keeping the connection open
  answer_then_close,  // answers as if keeping it open, then closes it (an idle timeout)
  close_at_once,      // closes without answering
  hang,               // never answers; waits for the client to close
  raw,                // writes `raw` as it is, then closes (or hangs: hang_after)
};
struct step {
  act what = act::answer;
  unsigned status = 200;
  std::string body;
  std::string raw;
  bool hang_after = false;
};

step answer(unsigned status, std::string body) { return {act::answer, status, std::move(body), {}, false}; }
step just(act what) { return {what, 0, {}, {}, false}; }
step raw(std::string bytes, bool hang_after) { return {act::raw, 0, {}, std::move(bytes), hang_after}; }

// A registry on 127.0.0.1 that follows a script, one step per request, over
// plain TCP or TLS, and records what it was sent.
struct fake_registry {
  explicit fake_registry(asio::io_context& context, ssl::context* tls_context = nullptr)
      : io(context), tls(tls_context), acceptor(context, {asio::ip::make_address("127.0.0.1"), 0}) {
    asio::co_spawn(io, accept_loop(), rethrow);
  }
  static void rethrow(std::exception_ptr e) {
    if (e) std::rethrow_exception(e);
  }
  unsigned short port() const { return acceptor.local_endpoint().port(); }
  std::string url(std::string_view host = "127.0.0.1") const {
    return std::string(tls ? "https://" : "http://") + std::string(host) + ":" + std::to_string(port()) +
           "/apis/ccompat/v7";
  }

  asio::io_context& io;
  ssl::context* tls;
  tcp::acceptor acceptor;
  std::deque<step> script;
  int connections = 0;
  std::vector<std::string> targets;
  std::vector<std::string> authorizations;
  std::vector<std::string> accepts;
  std::vector<std::string> bodies;

  asio::awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, socket] = co_await acceptor.async_accept(use_tuple);
      if (ec) co_return;
      ++connections;
      asio::co_spawn(io, serve(std::move(socket)), rethrow);
    }
  }

  asio::awaitable<void> serve(tcp::socket socket) {
    if (!tls) {
      beast::tcp_stream s(std::move(socket));
      co_await converse(s);
      co_return;
    }
    ssl::stream<beast::tcp_stream> s(beast::tcp_stream(std::move(socket)), *tls);
    auto [ec] = co_await s.async_handshake(ssl::stream_base::server, use_tuple);
    if (!ec) co_await converse(s);
  }

  template <class Stream>
  asio::awaitable<void> wait_for_close(Stream& s) {
    std::array<char, 256> sink;
    for (;;) {
      auto [ec, n] = co_await s.async_read_some(asio::buffer(sink), use_tuple);
      if (ec) co_return;
    }
  }

  template <class Stream>
  asio::awaitable<void> converse(Stream& s) {
    beast::flat_buffer buffer;
    for (;;) {
      http::request<http::string_body> request;
      auto [ec, n] = co_await http::async_read(s, buffer, request, use_tuple);
      if (ec) co_return;
      targets.emplace_back(request.target());
      authorizations.emplace_back(request[http::field::authorization]);
      accepts.emplace_back(request[http::field::accept]);
      bodies.push_back(request.body());
      step next =
          script.empty() ? answer(500, R"({"error_code":50001,"message":"script ended"})") : script.front();
      if (!script.empty()) script.pop_front();
      auto& lowest = beast::get_lowest_layer(s);
      switch (next.what) {
        case act::answer:
        case act::answer_then_close: {
          http::response<http::string_body> response{static_cast<http::status>(next.status), 11};
          response.set(http::field::content_type, "application/vnd.schemaregistry.v1+json");
          response.body() = next.body;
          response.keep_alive(true);
          response.prepare_payload();
          auto [write_ec, written] = co_await http::async_write(s, response, use_tuple);
          if (write_ec || next.what == act::answer_then_close) {
            lowest.close();
            co_return;
          }
          break;
        }
        case act::close_at_once:
          lowest.close();
          co_return;
        case act::hang:
          co_await wait_for_close(s);
          co_return;
        case act::raw: {
          auto [write_ec, written] = co_await asio::async_write(s, asio::buffer(next.raw), use_tuple);
          if (!write_ec && next.hang_after) co_await wait_for_close(s);
          lowest.close();
          co_return;
        }
      }
    }
  }
};

// Runs `a` on `io` (with the fake registry's coroutines) until it completes.
template <class T>
T run(asio::io_context& io, asio::awaitable<T> a) {
  std::optional<T> out;
  std::exception_ptr error;
  asio::co_spawn(io, std::move(a), [&](std::exception_ptr e, T v) {
    error = e;
    if (!e) out.emplace(std::move(v));
    io.stop();
  });
  io.restart();
  io.run();
  if (error) std::rethrow_exception(error);
  return std::move(*out);
}

std::unique_ptr<r::client> make_client(asio::io_context& io, const std::string& url,
                                       std::string_view file = {}) {
  auto c = r::parse_config(url, file);
  BOOST_TEST_REQUIRE(c.has_value(), (c.has_error() ? c.error().message : ""));
  auto client = r::client::make(io.get_executor(), std::move(*c));
  BOOST_TEST_REQUIRE(client.has_value(), (client.has_error() ? client.error().message : ""));
  return std::move(*client);
}

// The URL with credentials of `registry`: every failure below is made with
// them, and no message may show them.
std::string with_credentials(const fake_registry& registry) {
  return "http://alice:" + std::string(password) + "@127.0.0.1:" + std::to_string(registry.port()) +
         "/apis/ccompat/v7";
}

void check_no_credentials(const r::failure& f) {
  BOOST_TEST(f.message.find(password) == std::string::npos, f.message);
  BOOST_TEST(f.message.find("alice") == std::string::npos, f.message);
  BOOST_TEST(f.message.find("YWxpY2") == std::string::npos, f.message);  // base64 of "alice:"
}

r::failure failed_schema_by_id(asio::io_context& io, r::client& c, std::int64_t id) {
  auto got = run(io, c.schema_by_id(id));
  BOOST_TEST_REQUIRE(got.has_error());
  check_no_credentials(got.error());
  return got.error();
}

struct temp_dir {
  std::filesystem::path path;
  temp_dir() {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() / ("streamt-registry-test-" + std::to_string(rd()));
    std::filesystem::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(registry_client)

BOOST_AUTO_TEST_CASE(a_schema_is_fetched_by_id_with_basic_auth_and_the_registry_media_type) {
  asio::io_context io;
  fake_registry registry(io);
  registry.script.push_back(answer(200, R"({"schema":"\"string\"","references":[]})"));
  registry.script.push_back(answer(
      200,
      R"({"schema":"syntax = \"proto3\";","schemaType":"PROTOBUF","references":[{"name":"a.proto","subject":"a","version":2}],"extra":1})"));
  auto client = make_client(io, with_credentials(registry));
  auto first = run(io, client->schema_by_id(7));
  BOOST_TEST_REQUIRE(first.has_value());
  BOOST_TEST(first->text == "\"string\"");
  BOOST_TEST((first->type == r::schema_type::avro));
  auto second = run(io, client->schema_by_id(8));
  BOOST_TEST_REQUIRE(second.has_value());
  BOOST_TEST((second->type == r::schema_type::protobuf));
  BOOST_TEST_REQUIRE(second->references.size() == 1u);
  BOOST_TEST((second->references[0] == r::schema_reference{"a.proto", "a", 2}));
  BOOST_TEST(registry.targets[0] == "/apis/ccompat/v7/schemas/ids/7");
  BOOST_TEST(registry.accepts[0] == "application/vnd.schemaregistry.v1+json, application/json");
  std::string expected(64, '\0');
  const std::string plain = "alice:" + std::string(password);
  expected.resize(static_cast<std::size_t>(
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(expected.data()),
                      reinterpret_cast<const unsigned char*>(plain.data()), static_cast<int>(plain.size()))));
  BOOST_TEST(registry.authorizations[0] == "Basic " + expected);
  // Both requests on one kept-alive connection.
  BOOST_TEST(registry.connections == 1);
  BOOST_TEST(client->stats().connections == 1u);
  BOOST_TEST(client->stats().requests == 2u);
}

BOOST_AUTO_TEST_CASE(subjects_are_listed_read_and_registered_with_their_names_encoded) {
  asio::io_context io;
  fake_registry registry(io);
  registry.script.push_back(answer(200, "[1,2,3]"));
  registry.script.push_back(
      answer(200, R"({"subject":"a/b-value","version":3,"id":12,"schema":"{}","schemaType":"JSON"})"));
  registry.script.push_back(answer(200, R"({"id":12})"));
  auto client = make_client(io, registry.url());
  auto versions = run(io, client->subject_versions("a/b-value"));
  BOOST_TEST_REQUIRE(versions.has_value());
  BOOST_TEST((*versions == std::vector<std::int64_t>{1, 2, 3}));
  auto latest = run(io, client->subject_version("a/b-value", std::nullopt));
  BOOST_TEST_REQUIRE(latest.has_value());
  BOOST_TEST(latest->id == 12);
  BOOST_TEST(latest->version == 3);
  BOOST_TEST((latest->schema.type == r::schema_type::json));
  auto id = run(io, client->register_schema("a/b-value", "{\"type\":\"object\"}", r::schema_type::json));
  BOOST_TEST_REQUIRE(id.has_value());
  BOOST_TEST(*id == 12);
  BOOST_TEST(registry.targets[0] == "/apis/ccompat/v7/subjects/a%2Fb-value/versions");
  BOOST_TEST(registry.targets[1] == "/apis/ccompat/v7/subjects/a%2Fb-value/versions/latest");
  BOOST_TEST(registry.bodies[2] == R"({"schema":"{\"type\":\"object\"}","schemaType":"JSON"})");
}

BOOST_AUTO_TEST_CASE(answers_with_an_error_status_are_classified_with_the_registry_s_code) {
  asio::io_context io;
  fake_registry registry(io);
  auto client = make_client(io, with_credentials(registry));

  registry.script.push_back(answer(500, R"({"error_code":50001,"message":"store down"})"));
  auto f = failed_schema_by_id(io, *client, 1);
  BOOST_TEST((f.kind == r::failure_kind::server_error));
  BOOST_TEST(f.transient());
  BOOST_TEST(f.message.find("store down") != std::string::npos, f.message);
  BOOST_TEST(f.message.find("schema registry http://127.0.0.1:") == 0u, f.message);
  BOOST_TEST(f.message.find("GET /schemas/ids/1") != std::string::npos, f.message);

  registry.script.push_back(answer(429, "slow down"));
  BOOST_TEST((failed_schema_by_id(io, *client, 1).kind == r::failure_kind::server_error));

  registry.script.push_back(answer(401, R"({"error_code":40101,"message":"Unauthorized"})"));
  f = failed_schema_by_id(io, *client, 1);
  BOOST_TEST((f.kind == r::failure_kind::unauthorized));
  BOOST_TEST((f.verdict() == r::verdict::settings));

  registry.script.push_back(answer(403, R"({"error_code":40301,"message":"no"})"));
  BOOST_TEST((failed_schema_by_id(io, *client, 1).kind == r::failure_kind::forbidden));

  registry.script.push_back(answer(404, R"({"error_code":40403,"message":"Schema 9 not found"})"));
  f = failed_schema_by_id(io, *client, 9);
  BOOST_TEST((f.kind == r::failure_kind::not_found));
  BOOST_TEST((f.what_missing == r::missing::schema));
  BOOST_TEST(f.registry_code == 40403);
  BOOST_TEST((f.verdict() == r::verdict::record));

  registry.script.push_back(answer(404, "<html>Not Found</html>"));
  f = failed_schema_by_id(io, *client, 9);
  BOOST_TEST((f.what_missing == r::missing::other));
  BOOST_TEST((f.verdict() == r::verdict::settings));
  BOOST_TEST(f.message.find("/apis/ccompat/v7") != std::string::npos, f.message);

  registry.script.push_back(answer(404, R"({"error_code":40401,"message":"Subject 'x' not found."})"));
  auto v = run(io, client->subject_versions("x"));
  BOOST_TEST_REQUIRE(v.has_error());
  BOOST_TEST((v.error().what_missing == r::missing::subject));

  registry.script.push_back(answer(404, R"({"error_code":40402,"message":"Version 4 not found."})"));
  auto sv = run(io, client->subject_version("x", 4));
  BOOST_TEST_REQUIRE(sv.has_error());
  BOOST_TEST((sv.error().what_missing == r::missing::version));

  registry.script.push_back(
      answer(409, R"({"error_code":409,"message":"Schema being registered is incompatible"})"));
  auto reg = run(io, client->register_schema("x", "\"long\""));
  BOOST_TEST_REQUIRE(reg.has_error());
  BOOST_TEST((reg.error().kind == r::failure_kind::refused_request));
  BOOST_TEST(reg.error().message.find("incompatible") != std::string::npos, reg.error().message);
  BOOST_TEST(reg.error().message.find("POST /subjects/x/versions") != std::string::npos, reg.error().message);
  check_no_credentials(reg.error());

  registry.script.push_back(answer(301, ""));
  BOOST_TEST((failed_schema_by_id(io, *client, 1).kind == r::failure_kind::bad_answer));
  // Every error answer above came on the one kept-alive connection.
  BOOST_TEST(registry.connections == 1);
}

BOOST_AUTO_TEST_CASE(a_registry_echoing_the_password_has_it_scrubbed) {
  asio::io_context io;
  fake_registry registry(io);
  auto client = make_client(io, with_credentials(registry));
  registry.script.push_back(
      answer(400, R"({"error_code":400,"message":"bad login alice:)" + std::string(password) + "\"}"));
  const auto f = failed_schema_by_id(io, *client, 1);
  BOOST_TEST(f.message.find("[redacted]") != std::string::npos, f.message);
  // Across the point where a long message is cut, not even half of it.
  registry.script.push_back(answer(
      400, R"({"error_code":400,"message":")" + std::string(294, 'x') + std::string(password) + "\"}"));
  const auto cut = failed_schema_by_id(io, *client, 1);
  BOOST_TEST(cut.message.find("Hunter") == std::string::npos, cut.message);
}

BOOST_AUTO_TEST_CASE(answers_of_the_wrong_shape_are_bad_answers) {
  asio::io_context io;
  fake_registry registry(io);
  auto client = make_client(io, with_credentials(registry));
  for (const std::string body : {"{not json", "[]", R"({"schema":5})", R"({"schemaType":"AVRO"})",
                                 R"({"schema":"x","schemaType":"XML"})", R"({"schema":"x","references":{}})",
                                 R"({"schema":"x","references":[{"name":"n","subject":"s"}]})"}) {
    registry.script.push_back(answer(200, body));
    const auto f = failed_schema_by_id(io, *client, 1);
    BOOST_TEST((f.kind == r::failure_kind::bad_answer), body);
  }
  registry.script.push_back(answer(200, R"([1,"2"])"));
  auto v = run(io, client->subject_versions("s"));
  BOOST_TEST_REQUIRE(v.has_error());
  BOOST_TEST((v.error().kind == r::failure_kind::bad_answer));
  registry.script.push_back(answer(200, R"({"id":-1})"));
  auto id = run(io, client->register_schema("s", "\"int\""));
  BOOST_TEST_REQUIRE(id.has_error());
  BOOST_TEST((id.error().kind == r::failure_kind::bad_answer));
  registry.script.push_back(answer(200, R"({"subject":"s","version":1,"schema":"x"})"));
  auto sv = run(io, client->subject_version("s", 1));
  BOOST_TEST_REQUIRE(sv.has_error());
  BOOST_TEST(sv.error().message.find("no 'id'") != std::string::npos, sv.error().message);
}

BOOST_AUTO_TEST_CASE(garbage_instead_of_http_is_a_bad_answer) {
  asio::io_context io;
  fake_registry registry(io);
  auto client = make_client(io, with_credentials(registry));
  registry.script.push_back(raw("SSH-2.0-OpenSSH_9.2\r\n\r\n", false));
  const auto f = failed_schema_by_id(io, *client, 1);
  BOOST_TEST((f.kind == r::failure_kind::bad_answer), f.message);
}

BOOST_AUTO_TEST_CASE(an_answer_over_the_bound_is_refused_as_its_header_arrives) {
  asio::io_context io;
  fake_registry registry(io);
  auto client = make_client(io, with_credentials(registry));
  // The header announces one byte too many and the body never comes: only
  // a check of the header can end this before the deadline (10 s).
  registry.script.push_back(raw(
      "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(r::max_answer_bytes + 1) + "\r\n\r\n", true));
  const auto started = std::chrono::steady_clock::now();
  const auto f = failed_schema_by_id(io, *client, 1);
  BOOST_TEST((f.kind == r::failure_kind::bad_answer), f.message);
  BOOST_TEST(f.message.find("over 4194304 bytes") != std::string::npos, f.message);
  BOOST_TEST((std::chrono::steady_clock::now() - started < 5s));
}

BOOST_AUTO_TEST_CASE(an_answer_without_a_length_is_cut_at_the_bound) {
  asio::io_context io;
  fake_registry registry(io);
  auto client = make_client(io, with_credentials(registry));
  registry.script.push_back(
      raw("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + std::string(r::max_answer_bytes + 1, 'x'), false));
  const auto f = failed_schema_by_id(io, *client, 1);
  BOOST_TEST((f.kind == r::failure_kind::bad_answer), f.message);
}

BOOST_AUTO_TEST_CASE(a_slow_answer_times_out_at_the_request_deadline) {
  asio::io_context io;
  fake_registry registry(io);
  auto client = make_client(io, with_credentials(registry), "streamt.registry.request.timeout.ms=200\n");
  registry.script.push_back(just(act::hang));
  const auto started = std::chrono::steady_clock::now();
  const auto f = failed_schema_by_id(io, *client, 1);
  const auto took = std::chrono::steady_clock::now() - started;
  BOOST_TEST((f.kind == r::failure_kind::timeout), f.message);
  BOOST_TEST(f.transient());
  BOOST_TEST(f.message.find("200 ms") != std::string::npos, f.message);
  BOOST_TEST((took >= 190ms));
  BOOST_TEST((took < 3s));
  // The timed-out connection is dropped; the next request opens another.
  registry.script.push_back(answer(200, R"({"schema":"\"int\""})"));
  BOOST_TEST(run(io, client->schema_by_id(1)).has_value());
  BOOST_TEST(registry.connections == 2);
}

BOOST_AUTO_TEST_CASE(a_request_raced_against_a_timer_returns_when_cancelled) {
  asio::io_context io;
  fake_registry registry(io);
  auto client = make_client(io, with_credentials(registry));  // a 10 s deadline
  registry.script.push_back(just(act::hang));
  asio::steady_timer timer(io);
  auto race = [&]() -> asio::awaitable<int> {
    timer.expires_after(100ms);
    auto fetch = client->schema_by_id(1);
    auto wait = timer.async_wait(use_tuple);
    auto winner = co_await (std::move(fetch) || std::move(wait));
    co_return static_cast<int>(winner.index());
  };
  const auto started = std::chrono::steady_clock::now();
  BOOST_TEST(run(io, race()) == 1);
  BOOST_TEST((std::chrono::steady_clock::now() - started < 3s));
  registry.script.push_back(answer(200, R"({"schema":"\"int\""})"));
  BOOST_TEST(run(io, client->schema_by_id(1)).has_value());
  BOOST_TEST(registry.connections == 2);
}

BOOST_AUTO_TEST_CASE(a_kept_alive_connection_the_server_closed_is_reopened_and_the_request_sent_again) {
  asio::io_context io;
  fake_registry registry(io);
  auto client = make_client(io, with_credentials(registry));
  registry.script.push_back({act::answer_then_close, 200, R"({"schema":"\"int\""})", {}, false});
  registry.script.push_back(answer(200, R"({"schema":"\"long\""})"));
  BOOST_TEST(run(io, client->schema_by_id(1)).has_value());
  auto second = run(io, client->schema_by_id(2));
  BOOST_TEST_REQUIRE(second.has_value(), (second.has_error() ? second.error().message : ""));
  BOOST_TEST(second->text == "\"long\"");
  BOOST_TEST(registry.connections == 2);
  BOOST_TEST(client->stats().resent == 1u);
  BOOST_TEST(client->stats().connections == 2u);
}

BOOST_AUTO_TEST_CASE(a_fresh_connection_closed_without_an_answer_is_not_retried) {
  asio::io_context io;
  fake_registry registry(io);
  auto client = make_client(io, with_credentials(registry));
  registry.script.push_back(just(act::close_at_once));
  const auto f = failed_schema_by_id(io, *client, 1);
  BOOST_TEST((f.kind == r::failure_kind::unreachable), f.message);
  BOOST_TEST(registry.connections == 1);
  BOOST_TEST(client->stats().resent == 0u);
}

BOOST_AUTO_TEST_CASE(a_port_nobody_listens_on_is_unreachable) {
  asio::io_context io;
  unsigned short port = 0;
  {
    tcp::acceptor closed(io, {asio::ip::make_address("127.0.0.1"), 0});
    port = closed.local_endpoint().port();
  }
  auto client =
      make_client(io, "http://alice:" + std::string(password) + "@127.0.0.1:" + std::to_string(port));
  const auto f = failed_schema_by_id(io, *client, 1);
  BOOST_TEST((f.kind == r::failure_kind::unreachable), f.message);
  BOOST_TEST((f.verdict() == r::verdict::retry));
  BOOST_TEST(f.message.find("can't connect") != std::string::npos, f.message);
}

BOOST_AUTO_TEST_CASE(overlapping_requests_on_one_client_are_a_bug_and_throw) {
  asio::io_context io;
  fake_registry registry(io);
  auto client = make_client(io, registry.url(), "streamt.registry.request.timeout.ms=300\n");
  registry.script.push_back(just(act::hang));
  auto both = [&]() -> asio::awaitable<bool> {
    auto first = client->schema_by_id(1);
    auto second = client->schema_by_id(2);
    try {
      co_await (std::move(first) && std::move(second));
    } catch (const std::logic_error&) {
      co_return true;
    }
    co_return false;
  };
  BOOST_TEST(run(io, both()));
}

// ---- TLS ---------------------------------------------------------------------

namespace {

struct tls_setup {
  streamt::test::issued ca = streamt::test::make_certificate("streamt test CA", nullptr, nullptr, 1);
  temp_dir dir;
  std::string ca_file = dir.write("ca.pem", ca.cert_pem());

  ssl::context server_context(const char* alt_names) {
    auto leaf = streamt::test::make_certificate("registry", &ca, alt_names, 2);
    ssl::context ctx(ssl::context::tls_server);
    const std::string cert = leaf.cert_pem();
    const std::string key = leaf.key_pem();
    ctx.use_certificate_chain(asio::buffer(cert));
    ctx.use_private_key(asio::buffer(key), ssl::context::pem);
    return ctx;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(tls_with_the_ca_file_verifies_the_registry_s_address) {
  tls_setup t;
  asio::io_context io;
  auto server = t.server_context("IP:127.0.0.1");
  fake_registry registry(io, &server);
  registry.script.push_back(answer(200, R"({"schema":"\"int\""})"));
  registry.script.push_back(answer(200, R"({"schema":"\"long\""})"));
  auto client = make_client(io, registry.url(), "schema.registry.ssl.ca.location=" + t.ca_file + "\n");
  BOOST_TEST(run(io, client->schema_by_id(1)).has_value());
  BOOST_TEST(run(io, client->schema_by_id(2)).has_value());
  BOOST_TEST(registry.connections == 1);
}

BOOST_AUTO_TEST_CASE(tls_with_a_host_name_sends_it_and_checks_it) {
  tls_setup t;
  asio::io_context io;
  auto server = t.server_context("DNS:localhost");
  fake_registry registry(io, &server);
  registry.script.push_back(answer(200, R"({"schema":"\"int\""})"));
  auto by_name =
      make_client(io, registry.url("localhost"), "schema.registry.ssl.ca.location=" + t.ca_file + "\n");
  auto got = run(io, by_name->schema_by_id(1));
  BOOST_TEST(got.has_value(), (got.has_error() ? got.error().message : ""));
  // The same certificate does not name 127.0.0.1.
  auto by_address = make_client(io, registry.url(), "schema.registry.ssl.ca.location=" + t.ca_file + "\n");
  const auto f = failed_schema_by_id(io, *by_address, 1);
  BOOST_TEST((f.kind == r::failure_kind::tls), f.message);
  BOOST_TEST(f.message.find("mismatch") != std::string::npos, f.message);
  BOOST_TEST((f.verdict() == r::verdict::settings));
}

BOOST_AUTO_TEST_CASE(tls_refuses_a_registry_the_system_store_does_not_trust) {
  tls_setup t;
  asio::io_context io;
  auto server = t.server_context("IP:127.0.0.1");
  fake_registry registry(io, &server);
  // With credentials in the URL: the refusal must not show them.
  auto client = make_client(
      io, "https://alice:" + std::string(password) + "@127.0.0.1:" + std::to_string(registry.port()));
  const auto f = failed_schema_by_id(io, *client, 1);
  BOOST_TEST((f.kind == r::failure_kind::tls), f.message);
  BOOST_TEST(f.message.find("certificate was refused") != std::string::npos, f.message);
  BOOST_TEST(registry.targets.empty());  // nothing was sent, credentials least of all
}

BOOST_AUTO_TEST_CASE(a_tls_handshake_the_server_never_answers_times_out) {
  tls_setup t;
  asio::io_context io;
  // Accepts the connection and never says a word: the handshake waits for
  // a ServerHello that does not come.
  tcp::acceptor silent(io, {asio::ip::make_address("127.0.0.1"), 0});
  tcp::socket held(io);
  silent.async_accept(held, [](boost::system::error_code) {});
  const std::string url = "https://alice:" + std::string(password) +
                          "@127.0.0.1:" + std::to_string(silent.local_endpoint().port());
  auto client = make_client(
      io, url,
      "schema.registry.ssl.ca.location=" + t.ca_file + "\nstreamt.registry.request.timeout.ms=200\n");
  const auto started = std::chrono::steady_clock::now();
  const auto f = failed_schema_by_id(io, *client, 1);
  BOOST_TEST((f.kind == r::failure_kind::timeout), f.message);
  BOOST_TEST((std::chrono::steady_clock::now() - started < 3s));
  BOOST_TEST(held.is_open());
}

BOOST_AUTO_TEST_CASE(https_to_a_plain_http_server_is_a_tls_failure) {
  asio::io_context io;
  fake_registry registry(io);
  auto client = make_client(io, "https://127.0.0.1:" + std::to_string(registry.port()));
  const auto f = failed_schema_by_id(io, *client, 1);
  BOOST_TEST((f.kind == r::failure_kind::tls), f.message);
}

BOOST_AUTO_TEST_CASE(a_client_certificate_with_an_encrypted_key_is_presented_and_its_password_never_shown) {
  tls_setup t;
  auto user = streamt::test::make_certificate("streamt", &t.ca, "DNS:streamt", 3);
  const std::string cert_file = t.dir.write("client.pem", user.cert_pem());
  const std::string key_file = t.dir.write("client.key", user.key_pem(std::string(password)));
  const std::string settings = "schema.registry.ssl.ca.location=" + t.ca_file +
                               "\nschema.registry.ssl.certificate.location=" + cert_file +
                               "\nschema.registry.ssl.key.location=" + key_file + "\n";

  asio::io_context io;
  auto server = t.server_context("IP:127.0.0.1");
  server.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  server.add_certificate_authority(asio::buffer(t.ca.cert_pem()));
  fake_registry registry(io, &server);

  // The wrong password: refused when the key is loaded, before any request.
  auto wrong = r::parse_config(
      registry.url(), settings + "schema.registry.ssl.key.password=Wrong" + std::string(password) + "\n");
  BOOST_TEST_REQUIRE(wrong.has_value());
  auto refused = r::client::make(io.get_executor(), std::move(*wrong));
  BOOST_TEST_REQUIRE(refused.has_error());
  BOOST_TEST((refused.error().kind == r::failure_kind::tls));
  BOOST_TEST(refused.error().message.find(password) == std::string::npos, refused.error().message);
  BOOST_TEST(refused.error().message.find(key_file) == std::string::npos, refused.error().message);

  // Without the certificate the server ends the handshake.
  auto anonymous = make_client(io, registry.url(), "schema.registry.ssl.ca.location=" + t.ca_file + "\n");
  const auto f = failed_schema_by_id(io, *anonymous, 1);
  BOOST_TEST((f.kind == r::failure_kind::tls), f.message);

  registry.script.push_back(answer(200, R"({"schema":"\"int\""})"));
  auto client = make_client(io, registry.url(),
                            settings + "schema.registry.ssl.key.password=" + std::string(password) + "\n");
  auto got = run(io, client->schema_by_id(1));
  BOOST_TEST(got.has_value(), (got.has_error() ? got.error().message : ""));
}

BOOST_AUTO_TEST_CASE(an_unreadable_ca_file_is_refused_when_the_client_is_made) {
  auto c = r::parse_config("https://127.0.0.1:1", "schema.registry.ssl.ca.location=/nonexistent/ca.pem\n");
  BOOST_TEST_REQUIRE(c.has_value());
  asio::io_context io;
  auto client = r::client::make(io.get_executor(), std::move(*c));
  BOOST_TEST_REQUIRE(client.has_error());
  BOOST_TEST((client.error().kind == r::failure_kind::tls));
  BOOST_TEST(client.error().message.find("schema.registry.ssl.ca.location (/nonexistent/ca.pem)") !=
                 std::string::npos,
             client.error().message);
}

BOOST_AUTO_TEST_SUITE_END()
