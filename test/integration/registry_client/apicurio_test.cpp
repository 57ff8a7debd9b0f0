// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// kafka/registry's client against the real Apicurio Registry 3.0.9 of the
// `registry` ctest fixture (STREAMT_REGISTRY_ENV names its env file).

#include "kafka/registry/client.hpp"

#define BOOST_TEST_MODULE registry_client_against_apicurio
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

namespace r = streamt::kafka::registry;
namespace asio = boost::asio;

namespace {

// STREAMT_REGISTRY_URL from the fixture's env file (KEY=VALUE lines, the
// value possibly in single quotes).
std::string registry_url() {
  const char* env = std::getenv("STREAMT_REGISTRY_ENV");
  BOOST_TEST_REQUIRE(env != nullptr, "STREAMT_REGISTRY_ENV is not set: run through ctest (fixture registry)");
  std::ifstream in(env);
  BOOST_TEST_REQUIRE(in.good(), "can't read " << env);
  std::string line;
  while (std::getline(in, line)) {
    constexpr std::string_view key = "STREAMT_REGISTRY_URL=";
    if (!line.starts_with(key)) continue;
    std::string value = line.substr(key.size());
    if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'')
      value = value.substr(1, value.size() - 2);
    return value;
  }
  BOOST_FAIL("no STREAMT_REGISTRY_URL in " << env);
  return {};
}

template <class T>
T run(asio::io_context& io, asio::awaitable<T> a) {
  std::optional<T> out;
  std::exception_ptr error;
  asio::co_spawn(io, std::move(a), [&](std::exception_ptr e, T v) {
    error = e;
    if (!e) out.emplace(std::move(v));
  });
  io.restart();
  io.run();
  if (error) std::rethrow_exception(error);
  return std::move(*out);
}

std::unique_ptr<r::client> make_client(asio::io_context& io, const std::string& url) {
  auto c = r::parse_config(url);
  BOOST_TEST_REQUIRE(c.has_value(), (c.has_error() ? c.error().message : ""));
  auto client = r::client::make(io.get_executor(), std::move(*c));
  BOOST_TEST_REQUIRE(client.has_value());
  return std::move(*client);
}

// The value (a copy: the result is a temporary of the caller's expression).
template <class T>
T ok(r::result<T> got) {
  BOOST_TEST_REQUIRE(got.has_value(), (got.has_error() ? got.error().message : ""));
  return std::move(*got);
}

// Subjects of this run only: the fixture's registry outlives one test
// binary when ctest reruns it.
std::string unique_subject() {
  return "streamt-client-" + std::to_string(::getpid()) + "-" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "-value";
}

const std::string v1 = R"({"type":"record","name":"order","fields":[{"name":"id","type":"string"}]})";
const std::string v2 =
    R"({"type":"record","name":"order","fields":[{"name":"id","type":"string"},{"name":"n","type":"long","default":0}]})";

}  // namespace

BOOST_AUTO_TEST_CASE(schemas_are_registered_listed_and_fetched_over_one_kept_alive_connection) {
  asio::io_context io;
  auto client = make_client(io, registry_url());
  const std::string subject = unique_subject();

  const std::int64_t id1 = ok(run(io, client->register_schema(subject, v1)));
  // Registering the same schema again is idempotent: the same id.
  BOOST_TEST(ok(run(io, client->register_schema(subject, v1))) == id1);
  const std::int64_t id2 = ok(run(io, client->register_schema(subject, v2)));
  BOOST_TEST(id2 != id1);

  const r::schema fetched = ok(run(io, client->schema_by_id(id1)));
  BOOST_TEST(boost::json::parse(fetched.text) == boost::json::parse(v1));
  BOOST_TEST((fetched.type == r::schema_type::avro));
  BOOST_TEST(fetched.references.empty());

  BOOST_TEST((ok(run(io, client->subject_versions(subject))) == std::vector<std::int64_t>{1, 2}));
  const r::subject_schema latest = ok(run(io, client->subject_version(subject, std::nullopt)));
  BOOST_TEST(latest.subject == subject);
  BOOST_TEST(latest.version == 2);
  BOOST_TEST(latest.id == id2);
  BOOST_TEST(boost::json::parse(latest.schema.text) == boost::json::parse(v2));
  BOOST_TEST(ok(run(io, client->subject_version(subject, 1))).id == id1);

  BOOST_TEST(client->stats().connections == 1u);
  BOOST_TEST(client->stats().resent == 0u);
}

BOOST_AUTO_TEST_CASE(unknown_ids_subjects_and_versions_are_told_apart_by_their_codes) {
  asio::io_context io;
  auto client = make_client(io, registry_url());
  const std::string subject = unique_subject();
  const std::int64_t id = ok(run(io, client->register_schema(subject, v1)));

  auto unknown_id = run(io, client->schema_by_id(id + 1'000'000));
  BOOST_TEST_REQUIRE(unknown_id.has_error());
  BOOST_TEST((unknown_id.error().kind == r::failure_kind::not_found));
  BOOST_TEST(unknown_id.error().registry_code == 40403);
  BOOST_TEST((unknown_id.error().verdict() == r::verdict::record));
  BOOST_TEST_MESSAGE(unknown_id.error().message);

  auto unknown_subject = run(io, client->subject_versions(subject + "-nope"));
  BOOST_TEST_REQUIRE(unknown_subject.has_error());
  BOOST_TEST((unknown_subject.error().what_missing == r::missing::subject));

  auto unknown_version = run(io, client->subject_version(subject, 99));
  BOOST_TEST_REQUIRE(unknown_version.has_error());
  BOOST_TEST((unknown_version.error().what_missing == r::missing::version));

  // The failures did not cost the connection.
  BOOST_TEST(client->stats().connections == 1u);
}

BOOST_AUTO_TEST_CASE(a_url_without_the_compatibility_prefix_is_a_settings_problem) {
  asio::io_context io;
  std::string url = registry_url();
  url = url.substr(0, url.find("/apis/ccompat/v7"));
  auto client = make_client(io, url);
  auto got = run(io, client->schema_by_id(1));
  BOOST_TEST_REQUIRE(got.has_error());
  BOOST_TEST_MESSAGE(got.error().message);
  BOOST_TEST((got.error().verdict() == r::verdict::settings));
}

BOOST_AUTO_TEST_CASE(fetches_by_id_on_a_kept_alive_connection_and_after_closing_it) {
  asio::io_context io;
  auto client = make_client(io, registry_url());
  const std::int64_t id = ok(run(io, client->register_schema(unique_subject(), v1)));
  constexpr int n = 200;
  std::vector<double> micros;
  for (int i = 0; i < n; ++i) {
    const auto started = std::chrono::steady_clock::now();
    ok(run(io, client->schema_by_id(id)));
    micros.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started).count());
  }
  std::sort(micros.begin(), micros.end());
  const double median = micros[n / 2], p99 = micros[n * 99 / 100], max = micros.back();
  BOOST_TEST_MESSAGE("schema_by_id on a kept-alive connection, " << n << " requests: median " << median
                                                                 << " us, p99 " << p99 << " us, max " << max
                                                                 << " us");
  BOOST_TEST(client->stats().connections == 1u);
  client->close();
  const auto started = std::chrono::steady_clock::now();
  ok(run(io, client->schema_by_id(id)));
  const double fresh =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started).count();
  BOOST_TEST_MESSAGE("schema_by_id on a new connection: " << fresh << " us");
  BOOST_TEST(client->stats().connections == 2u);
}
