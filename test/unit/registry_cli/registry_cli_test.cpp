// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// tools/streamt/registry_cli: the registry flags of compile and check, the
// settings they make, and a failed request's exit code and message
// (issue 37). No registry runs here: an outage is a port nothing listens on.

#include "tools/streamt/registry_cli.hpp"
#include "test/support/closed_port.hpp"
#include "test/support/temp_dir.hpp"

#define BOOST_TEST_MODULE registry_cli
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace r = streamt::kafka::registry;
using streamt::cli::arguments;
using streamt::cli::registry_flags;
using streamt::engine::exit_code;

namespace {

// What the code under test writes to standard error while `f` runs.
template <class F>
std::string stderr_of(F&& f) {
  std::ostringstream captured;
  std::streambuf* old = std::cerr.rdbuf(captured.rdbuf());
  try {
    f();
  } catch (...) {
    std::cerr.rdbuf(old);
    throw;
  }
  std::cerr.rdbuf(old);
  return captured.str();
}

arguments args(std::vector<std::pair<std::string, std::string>> options) {
  arguments a;
  for (auto& [name, value] : options) a.options[name].push_back(value);
  return a;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

using streamt::test::closed_port;

r::failure failure_of(r::failure_kind kind, r::missing what = r::missing::none) {
  r::failure f;
  f.kind = kind;
  f.what_missing = what;
  f.message = "schema registry http://127.0.0.1:1: GET /subjects/orders-value/versions/latest: what happened";
  return f;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(exit_codes)

BOOST_AUTO_TEST_CASE(an_outage_exits_69_a_settings_fault_78_and_a_missing_subject_or_version_1) {
  using k = r::failure_kind;
  const auto code = [](k kind, r::missing m = r::missing::none) {
    return streamt::cli::exit_code_of(r::verdict_of(kind, m));
  };
  for (k transient : {k::unreachable, k::timeout, k::server_error})
    BOOST_TEST((code(transient) == exit_code::unavailable));
  for (k settings : {k::unauthorized, k::forbidden, k::tls, k::bad_answer})
    BOOST_TEST((code(settings) == exit_code::config));
  // A 404 without a registry code: a URL without the API's path prefix.
  BOOST_TEST((code(k::not_found, r::missing::other) == exit_code::config));
  BOOST_TEST((code(k::not_found, r::missing::subject) == exit_code::rejected));
  BOOST_TEST((code(k::not_found, r::missing::version) == exit_code::rejected));
  BOOST_TEST((code(k::refused_request) == exit_code::rejected));
  // Nothing in the command line cancels a request: one that is, is a bug.
  BOOST_TEST((code(k::cancelled) == exit_code::internal));
}

BOOST_AUTO_TEST_CASE(a_missing_subject_is_named_with_what_to_do) {
  const std::string advice = streamt::cli::registry_advice(
      failure_of(r::failure_kind::not_found, r::missing::subject), "orders-value", std::nullopt);
  BOOST_TEST(contains(advice, "'orders-value'"));
  BOOST_TEST(contains(advice, "--subject"));
}

BOOST_AUTO_TEST_CASE(a_missing_version_is_named_with_its_subject) {
  const std::string advice = streamt::cli::registry_advice(
      failure_of(r::failure_kind::not_found, r::missing::version), "orders-value", 7);
  BOOST_TEST(contains(advice, "'orders-value' has no version 7"));
  BOOST_TEST(contains(advice, "--schema-version"));
}

BOOST_AUTO_TEST_CASE(a_404_without_a_registry_code_points_at_the_path_prefix) {
  const std::string advice = streamt::cli::registry_advice(
      failure_of(r::failure_kind::not_found, r::missing::other), "s", std::nullopt);
  BOOST_TEST(contains(advice, "/apis/ccompat/v7"));
}

BOOST_AUTO_TEST_CASE(the_reported_line_holds_the_failures_message_and_the_advice_and_returns_its_code) {
  int code = 0;
  const std::string err = stderr_of([&] {
    code = streamt::cli::report_registry_failure(
        "compile", "the source schema", failure_of(r::failure_kind::timeout), "orders-value", std::nullopt);
  });
  BOOST_TEST(code == 69);
  BOOST_TEST(contains(err, "streamt compile: the source schema: schema registry http://127.0.0.1:1: GET "));
  BOOST_TEST(contains(err, "try again"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(flags)

BOOST_AUTO_TEST_CASE(no_registry_flag_means_no_registry) {
  auto got = streamt::cli::read_registry_flags("compile", arguments{});
  BOOST_TEST_REQUIRE(std::holds_alternative<std::optional<registry_flags>>(got));
  BOOST_TEST(!std::get<std::optional<registry_flags>>(got).has_value());
}

BOOST_AUTO_TEST_CASE(the_flags_that_qualify_a_registry_need_one) {
  for (const char* flag : {"--registry-config", "--subject", "--schema-version"}) {
    int code = 0;
    const std::string err = stderr_of([&] {
      auto got = streamt::cli::read_registry_flags("compile", args({{flag, "x"}}));
      code = std::holds_alternative<int>(got) ? std::get<int>(got) : -1;
    });
    BOOST_TEST(code == 2, flag);
    BOOST_TEST(contains(err, std::string(flag) + " is used only with --schema-registry URL"), err);
  }
}

BOOST_AUTO_TEST_CASE(a_schema_version_is_a_whole_number_from_1_to_the_largest_int) {
  for (const char* bad : {"0", "-1", "latest", "1.0", "2147483648", "3 "}) {
    int code = 0;
    const std::string err = stderr_of([&] {
      auto got = streamt::cli::read_registry_flags(
          "compile", args({{"--schema-registry", "http://127.0.0.1:1"}, {"--schema-version", bad}}));
      code = std::holds_alternative<int>(got) ? std::get<int>(got) : -1;
    });
    BOOST_TEST(code == 2, bad);
    BOOST_TEST(contains(err, "--schema-version takes a version number from 1 to 2147483647"), err);
  }
  auto got = streamt::cli::read_registry_flags("compile", args({{"--schema-registry", "http://127.0.0.1:1"},
                                                                {"--schema-version", "2147483647"},
                                                                {"--subject", "s-value"},
                                                                {"--registry-config", "f.properties"}}));
  BOOST_TEST_REQUIRE(std::holds_alternative<std::optional<registry_flags>>(got));
  const registry_flags& f = *std::get<std::optional<registry_flags>>(got);
  BOOST_TEST(f.url == "http://127.0.0.1:1");
  BOOST_TEST(*f.version == 2147483647);
  BOOST_TEST(*f.subject == "s-value");
  BOOST_TEST(*f.config == "f.properties");
}

BOOST_AUTO_TEST_CASE(a_url_that_is_refused_is_a_usage_error_quoting_no_credentials) {
  registry_flags flags;
  flags.url = "http://alice:pa55word@registry.example:8081 /x";
  int code = 0;
  const std::string err = stderr_of([&] {
    auto got = streamt::cli::read_registry_config("check", flags);
    code = std::holds_alternative<int>(got) ? std::get<int>(got) : -1;
  });
  BOOST_TEST(code == 2);
  BOOST_TEST(contains(err, "--schema-registry: "), err);
  BOOST_TEST(!contains(err, "pa55word"), err);
}

BOOST_AUTO_TEST_CASE(a_settings_file_that_is_refused_exits_78_naming_its_line_and_no_secret) {
  streamt::test::temp_dir dir;
  const std::string file = dir.file("registry.properties");
  std::ofstream(file) << "basic.auth.credentials.source=USER_INFO\n"
                         "basic.auth.user.info=alice:pa55word\n"
                         "schema.registry.no.such.key=1\n";
  registry_flags flags;
  flags.url = "http://127.0.0.1:8081";
  flags.config = file;
  int code = 0;
  const std::string err = stderr_of([&] {
    auto got = streamt::cli::read_registry_config("check", flags);
    code = std::holds_alternative<int>(got) ? std::get<int>(got) : -1;
  });
  BOOST_TEST(code == 78);
  BOOST_TEST(contains(err, file + ":3:"), err);
  BOOST_TEST(!contains(err, "pa55word"), err);
}

BOOST_AUTO_TEST_CASE(a_settings_file_that_cannot_be_read_is_a_usage_error) {
  streamt::test::temp_dir dir;
  registry_flags flags;
  flags.url = "http://127.0.0.1:8081";
  flags.config = dir.file("missing.properties");
  int code = 0;
  const std::string err = stderr_of([&] {
    auto got = streamt::cli::read_registry_config("compile", flags);
    code = std::holds_alternative<int>(got) ? std::get<int>(got) : -1;
  });
  BOOST_TEST(code == 2);
  BOOST_TEST(contains(err, "--registry-config: "), err);
}

BOOST_AUTO_TEST_CASE(the_settings_file_gives_the_credentials_and_the_timeout) {
  streamt::test::temp_dir dir;
  const std::string file = dir.file("registry.properties");
  std::ofstream(file) << "basic.auth.credentials.source=USER_INFO\n"
                         "basic.auth.user.info=alice:pa55word\n"
                         "streamt.registry.request.timeout.ms=2500\n";
  registry_flags flags;
  flags.url = "http://127.0.0.1:8081/apis/ccompat/v7";
  flags.config = file;
  auto got = streamt::cli::read_registry_config("compile", flags);
  BOOST_TEST_REQUIRE(std::holds_alternative<r::config>(got));
  const r::config& c = std::get<r::config>(got);
  BOOST_TEST(c.url.prefix == "/apis/ccompat/v7");
  BOOST_TEST_REQUIRE(c.basic_auth.has_value());
  BOOST_TEST(c.basic_auth->user == "alice");
  BOOST_TEST(c.request_timeout.count() == 2500);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(session)

BOOST_AUTO_TEST_CASE(a_registry_nobody_answers_for_is_unavailable_named_without_its_credentials) {
  const std::string url =
      "http://alice:pa55word@127.0.0.1:" + std::to_string(closed_port()) + "/apis/ccompat/v7";
  auto c = r::parse_config(url);
  BOOST_TEST_REQUIRE(c.has_value());
  auto s = streamt::cli::registry_session::open(std::move(*c));
  BOOST_TEST_REQUIRE(s.has_value());
  auto got = (*s)->subject_version("orders-value", std::nullopt);
  BOOST_TEST_REQUIRE(got.has_error());
  BOOST_TEST((got.error().kind == r::failure_kind::unreachable));
  int code = 0;
  const std::string err = stderr_of([&] {
    code = streamt::cli::report_registry_failure("compile", "the source schema", got.error(), "orders-value",
                                                 std::nullopt);
  });
  BOOST_TEST(code == 69);
  BOOST_TEST(contains(err, (*s)->url()), err);
  BOOST_TEST(contains(err, "/subjects/orders-value/versions/latest"), err);
  BOOST_TEST(!contains(err, "pa55word"), err);
  BOOST_TEST(!contains(err, "alice"), err);
}

BOOST_AUTO_TEST_SUITE_END()
