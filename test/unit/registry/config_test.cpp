// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/registry/config.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace r = streamt::kafka::registry;

namespace {

constexpr std::string_view secret = "Hunter2Xyzzy";

// The error of a configuration expected to be refused; fails the test when
// it is accepted or when its message holds `secret` (or any part of it long
// enough to mean something).
r::config_error refused(std::string_view url, std::string_view file = {}) {
  auto c = r::parse_config(url, file, "reg.properties");
  BOOST_TEST_REQUIRE(c.has_error(), "accepted: url=" << url << " file=" << file);
  const std::string& m = c.error().message;
  BOOST_TEST(m.find(secret) == std::string::npos, m);
  BOOST_TEST(m.find("Hunter") == std::string::npos, m);
  BOOST_TEST(m.find("Xyzzy") == std::string::npos, m);
  return c.error();
}

bool says(const r::config_error& e, std::string_view text) {
  const bool found = e.message.find(text) != std::string::npos;
  if (!found) BOOST_TEST_MESSAGE("message: " << e.message);
  return found;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(registry_config)

BOOST_AUTO_TEST_CASE(a_url_is_split_into_scheme_host_port_and_prefix) {
  auto c = r::parse_config("http://127.0.0.1:8081/apis/ccompat/v7/");
  BOOST_TEST_REQUIRE(c.has_value());
  BOOST_TEST(!c->url.tls);
  BOOST_TEST(c->url.host == "127.0.0.1");
  BOOST_TEST(c->url.port == 8081);
  BOOST_TEST(c->url.prefix == "/apis/ccompat/v7");
  BOOST_TEST(c->url.to_string() == "http://127.0.0.1:8081/apis/ccompat/v7");
  BOOST_TEST(!c->basic_auth);
  BOOST_TEST(c->request_timeout.count() == r::request_timeout_range.fallback);
}

BOOST_AUTO_TEST_CASE(default_ports_and_bracketed_ipv6_hosts_are_understood) {
  auto https = r::parse_config("https://registry");
  BOOST_TEST_REQUIRE(https.has_value());
  BOOST_TEST(https->url.port == 443);
  BOOST_TEST(https->url.prefix.empty());
  auto v6 = r::parse_config("http://[::1]:9/x");
  BOOST_TEST_REQUIRE(v6.has_value());
  BOOST_TEST(v6->url.host == "::1");
  BOOST_TEST(v6->url.to_string() == "http://[::1]:9/x");
  BOOST_TEST(r::is_loopback_host("::1"));
  BOOST_TEST(r::is_loopback_host("127.3.2.1"));
  BOOST_TEST(r::is_loopback_host("localhost"));
  BOOST_TEST(!r::is_loopback_host("registry"));
}

BOOST_AUTO_TEST_CASE(credentials_in_the_url_are_decoded_and_kept_out_of_its_text) {
  auto c = r::parse_config("https://alice:Hunter2%40Xyzzy@registry:8443/p");
  BOOST_TEST_REQUIRE(c.has_value());
  BOOST_TEST_REQUIRE(c->basic_auth.has_value());
  BOOST_TEST(c->basic_auth->user == "alice");
  BOOST_TEST(c->basic_auth->password == "Hunter2@Xyzzy");
  BOOST_TEST(c->url.to_string() == "https://registry:8443/p");
  const std::string shown = c->to_string();
  BOOST_TEST(shown.find("Hunter2") == std::string::npos);
  BOOST_TEST(shown.find("alice") == std::string::npos);
  BOOST_TEST(shown.find("basic.auth=[redacted]") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(malformed_urls_holding_a_password_are_refused_without_quoting_it) {
  // Each mistake a password can fall into: an unencoded '/', '?', '#',
  // a forgotten '@' (the password becomes the port), a line break, a
  // wrong scheme, a bad escape, a space.
  const std::vector<std::string> urls{
      "https://alice:Hunter2/Xyzzy@registry/",
      "https://alice:Hunter2?Xyzzy@registry",
      "https://alice:Hunter2#Xyzzy@registry",
      "https://alice:Hunter2Xyzzy",
      "https://alice:Hunter2Xyzzy.registry",
      "https://alice:Hunter2\nXyzzy@registry",
      "ftp://alice:Hunter2Xyzzy@registry",
      "https://alice:Hunter2%G0Xyzzy@registry",
      "https://alice:Hunter2 Xyzzy@registry",
      "https://aliceHunter2Xyzzy@registry",
      "https://:Hunter2Xyzzy@registry",
      "https://alice:Hunter2Xyzzy@",
      "https://alice:Hunter2Xyzzy@[::1",
      "https://alice:Hunter2Xyzzy@registry:99999",
      "https://alice:Hunter2Xyzzy@registry:",
      "https://alice:Hunter2%0AXyzzy@registry",
      "Hunter2Xyzzy",
      "https://alice:Hunter2Xyzzy@reg^istry",
  };
  for (const auto& u : urls) {
    const auto e = refused(u);
    BOOST_TEST(says(e, "--schema-registry: "), u);
  }
}

BOOST_AUTO_TEST_CASE(credentials_over_plain_http_to_another_machine_are_refused) {
  const auto e = refused("http://alice:Hunter2Xyzzy@registry:8081");
  BOOST_TEST(says(e, "https://"));
  const auto f = refused("http://registry:8081",
                         "basic.auth.credentials.source=USER_INFO\n"
                         "basic.auth.user.info=alice:Hunter2Xyzzy\n");
  BOOST_TEST(f.line == 2u);
  BOOST_TEST(r::parse_config("http://alice:Hunter2Xyzzy@127.0.0.1:8081").has_value());
  BOOST_TEST(r::parse_config("http://alice:Hunter2Xyzzy@localhost:8081").has_value());
}

BOOST_AUTO_TEST_CASE(user_info_is_read_when_the_source_says_so) {
  auto c = r::parse_config("https://registry",
                           "basic.auth.credentials.source=USER_INFO\nbasic.auth.user.info=alice:a:b\n");
  BOOST_TEST_REQUIRE(c.has_value());
  BOOST_TEST(c->basic_auth->user == "alice");
  BOOST_TEST(c->basic_auth->password == "a:b");
}

BOOST_AUTO_TEST_CASE(contradicting_sources_of_credentials_are_refused_at_their_line) {
  // user.info with the source unset, which the Confluent clients would ignore.
  auto e = refused("https://registry", "basic.auth.user.info=alice:Hunter2Xyzzy\n");
  BOOST_TEST(e.line == 1u);
  BOOST_TEST(says(e, "USER_INFO"));
  e = refused("https://registry", "basic.auth.credentials.source=URL\n");
  BOOST_TEST(says(e, "no USER:PASSWORD@"));
  e = refused("https://bob:Hunter2Xyzzy@registry",
              "basic.auth.credentials.source=USER_INFO\nbasic.auth.user.info=alice:Hunter2Xyzzy\n");
  BOOST_TEST(says(e, "remove them from the URL"));
  e = refused("https://registry", "basic.auth.credentials.source=USER_INFO\n");
  BOOST_TEST(says(e, "needs basic.auth.user.info"));
  e = refused("https://registry", "basic.auth.credentials.source=SASL_INHERIT\n");
  BOOST_TEST(says(e, "'SASL_INHERIT'"));
  BOOST_TEST(e.line == 1u);
  BOOST_TEST(e.column == 31u);
  e = refused("https://registry", "basic.auth.credentials.source=Hunter2Xyzzy\n");
  BOOST_TEST(says(e, "not shown"));
}

BOOST_AUTO_TEST_CASE(malformed_user_info_is_refused_without_showing_it) {
  const std::string head = "basic.auth.credentials.source=USER_INFO\n";
  for (const std::string v : {"aliceHunter2Xyzzy", ":Hunter2Xyzzy", "alice:", "alice:Hunter2\\nXyzzy",
                              "alice:Hunter2\\u0007Xyzzy"}) {
    const auto e = refused("https://registry", head + "basic.auth.user.info=" + v + "\n");
    BOOST_TEST(e.line == 2u, v);
    BOOST_TEST(e.column == 22u, v);
  }
}

BOOST_AUTO_TEST_CASE(a_secret_cut_by_a_line_break_is_not_shown_as_an_unknown_key) {
  // The password's second half lands on a line of its own, shaped like a
  // setting name or not.
  for (const std::string rest : {"Xyzzy", "Hunter2.Xyzzy", "Hunter2Xyzzy x", "hunter.xyzzy"}) {
    const auto e = refused("https://registry",
                           "basic.auth.credentials.source=USER_INFO\n"
                           "basic.auth.user.info=alice:pass\n" +
                               rest + "\n");
    BOOST_TEST(e.line == 3u);
    BOOST_TEST(says(e, "not shown"));
    BOOST_TEST(e.message.find("hunter") == std::string::npos, e.message);
  }
  const auto k = refused("https://registry", "schema.registry.ssl.key.password=pass\nHunter2Xyzzy\n");
  BOOST_TEST(k.line == 2u);
}

BOOST_AUTO_TEST_CASE(an_unknown_key_is_refused_with_its_line_and_column_and_the_known_keys) {
  const auto e = refused("https://registry", "# comment\n  schema.registry.ssl.ca.locaton = /x\n");
  BOOST_TEST(e.line == 2u);
  BOOST_TEST(e.column == 3u);
  BOOST_TEST(says(e, "reg.properties:2:3: unknown key 'schema.registry.ssl.ca.locaton'"));
  BOOST_TEST(says(e, "schema.registry.ssl.ca.location"));
}

BOOST_AUTO_TEST_CASE(a_key_given_twice_or_without_a_value_is_refused) {
  auto e = refused("https://registry",
                   "streamt.registry.request.timeout.ms=100\n"
                   "streamt.registry.request.timeout.ms=200\n");
  BOOST_TEST(says(e, "reg.properties:2:1: "));
  BOOST_TEST(says(e, "first at line 1"));
  e = refused("https://registry", "schema.registry.ssl.ca.location=\n");
  BOOST_TEST(says(e, "has no value"));
}

BOOST_AUTO_TEST_CASE(timeouts_are_read_within_their_ranges) {
  auto c = r::parse_config("http://127.0.0.1:1",
                           "streamt.registry.request.timeout.ms=250\n"
                           "streamt.registry.retry.backoff.ms=5\n"
                           "streamt.registry.retry.backoff.max.ms=50\n");
  BOOST_TEST_REQUIRE(c.has_value());
  BOOST_TEST(c->request_timeout.count() == 250);
  BOOST_TEST(c->backoff_initial.count() == 5);
  BOOST_TEST(c->backoff_max.count() == 50);
  for (const std::string bad :
       {"streamt.registry.request.timeout.ms=99", "streamt.registry.request.timeout.ms=300001",
        "streamt.registry.request.timeout.ms=1e3", "streamt.registry.request.timeout.ms=-5",
        "streamt.registry.request.timeout.ms=99999999999999999999999",
        "streamt.registry.retry.backoff.ms=0"}) {
    const auto e = refused("http://127.0.0.1:1", bad + "\n");
    BOOST_TEST(e.line == 1u, bad);
    BOOST_TEST(e.column == bad.find('=') + 2, bad);
    BOOST_TEST(says(e, "from "), bad);
  }
  const auto e = refused("http://127.0.0.1:1",
                         "streamt.registry.retry.backoff.ms=500\n"
                         "streamt.registry.retry.backoff.max.ms=100\n");
  BOOST_TEST(e.line == 2u);
}

BOOST_AUTO_TEST_CASE(tls_settings_need_https_and_come_in_pairs) {
  auto e = refused("http://127.0.0.1:1", "schema.registry.ssl.ca.location=/ca.pem\n");
  BOOST_TEST(says(e, "https://"));
  e = refused("https://registry", "schema.registry.ssl.certificate.location=/c.pem\n");
  BOOST_TEST(says(e, "needs schema.registry.ssl.key.location"));
  e = refused("https://registry", "schema.registry.ssl.key.password=Hunter2Xyzzy\n");
  BOOST_TEST(says(e, "without schema.registry.ssl.key.location"));
  auto c = r::parse_config("https://registry",
                           "schema.registry.ssl.ca.location=/ca.pem\n"
                           "schema.registry.ssl.certificate.location=/c.pem\n"
                           "schema.registry.ssl.key.location=/k.pem\n"
                           "schema.registry.ssl.key.password=Hunter2Xyzzy\n");
  BOOST_TEST_REQUIRE(c.has_value());
  BOOST_TEST(c->key_password == secret);
  const std::string shown = c->to_string();
  BOOST_TEST(shown.find("Hunter2") == std::string::npos, shown);
  BOOST_TEST(shown.find("/ca.pem") != std::string::npos, shown);
  BOOST_TEST(shown.find("/k.pem") == std::string::npos, shown);
}

BOOST_AUTO_TEST_CASE(a_password_may_come_from_the_environment_and_an_unset_one_is_refused_by_name) {
  ::setenv("STREAMT_REGISTRY_TEST_INFO", "alice:Hunter2Xyzzy", 1);
  auto c = r::parse_config("https://registry",
                           "basic.auth.credentials.source=USER_INFO\n"
                           "basic.auth.user.info=${env:STREAMT_REGISTRY_TEST_INFO}\n");
  BOOST_TEST_REQUIRE(c.has_value());
  BOOST_TEST(c->basic_auth->password == secret);
  ::unsetenv("STREAMT_REGISTRY_TEST_INFO");
  const auto e = refused("https://registry",
                         "basic.auth.credentials.source=USER_INFO\n"
                         "basic.auth.user.info=${env:STREAMT_REGISTRY_TEST_INFO}\n");
  BOOST_TEST(e.line == 2u);
  BOOST_TEST(says(e, "STREAMT_REGISTRY_TEST_INFO"));
}

BOOST_AUTO_TEST_CASE(a_malformed_escape_is_refused_with_its_line) {
  const auto e = refused("https://registry", "\nschema.registry.ssl.ca.location=\\u12G4\n");
  BOOST_TEST(e.line == 2u);
  BOOST_TEST(says(e, "reg.properties:line 2"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(registry_config_docs)

// The contract's table states each of our keys' range and default as the
// code has them.
BOOST_AUTO_TEST_CASE(the_contract_states_each_timeout_s_range_and_default) {
  std::ifstream in(std::string(STREAMT_TEST_DATA_DIR) + "/../../docs/contract.md");
  BOOST_TEST_REQUIRE(in.good());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto row = [&](std::string_view key) {
    const std::size_t at = text.find("| `" + std::string(key) + "` |");
    BOOST_TEST_REQUIRE(at != std::string::npos, key);
    return text.substr(at, text.find('\n', at) - at);
  };
  const auto states = [&](std::string_view key, r::range range) {
    const std::string line = row(key);
    BOOST_TEST(line.find(std::to_string(range.min) + " to " + std::to_string(range.max)) != std::string::npos,
               line);
    BOOST_TEST(line.find("default " + std::to_string(range.fallback)) != std::string::npos, line);
  };
  states("streamt.registry.request.timeout.ms", r::request_timeout_range);
  states("streamt.registry.retry.backoff.ms", r::backoff_initial_range);
  states("streamt.registry.retry.backoff.max.ms", r::backoff_max_range);
  const r::config defaults;
  BOOST_TEST(defaults.request_timeout.count() == r::request_timeout_range.fallback);
  BOOST_TEST(defaults.backoff_initial.count() == r::backoff_initial_range.fallback);
  BOOST_TEST(defaults.backoff_max.count() == r::backoff_max_range.fallback);
}

BOOST_AUTO_TEST_SUITE_END()
