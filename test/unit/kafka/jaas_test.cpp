// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/jaas.hpp"

#include <boost/test/unit_test.hpp>

// kafka/jaas.hpp: a Java client's sasl.jaas.config, for PLAIN and SCRAM,
// becomes sasl.username and sasl.password; the rest is refused with what to
// write instead, and no error shows the password.

namespace k = streamt::kafka;

namespace {

const k::setting* find(const k::settings& s, std::string_view key) {
  for (const k::setting& x : s)
    if (x.key == key) return &x;
  return nullptr;
}

std::string refusal(std::string jaas) {
  k::settings s{{"sasl.jaas.config", std::move(jaas)}};
  auto r = k::translate_jaas(s);
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().key == "sasl.jaas.config");
  return r.error().message;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(jaas)

BOOST_AUTO_TEST_CASE(a_scram_login_module_becomes_sasl_username_and_password) {
  k::settings s{{"sasl.mechanism", "SCRAM-SHA-512"},
                {"sasl.jaas.config",
                 "org.apache.kafka.common.security.scram.ScramLoginModule required\n"
                 "    username=\"alice\" password=\"p4ss \\\"word\\\"\";"}};
  BOOST_TEST_REQUIRE(k::translate_jaas(s).has_value());
  BOOST_TEST(!find(s, "sasl.jaas.config"));
  BOOST_TEST_REQUIRE(find(s, "sasl.username"));
  BOOST_TEST(find(s, "sasl.username")->value == "alice");
  BOOST_TEST(find(s, "sasl.password")->value == "p4ss \"word\"");
  BOOST_TEST(find(s, "sasl.mechanism")->value == "SCRAM-SHA-512");
  BOOST_TEST(k::redacted(s).find("p4ss") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_plain_login_module_with_bare_values_and_no_semicolon_is_translated_too) {
  k::settings s{
      {"sasl.jaas.config",
       "org.apache.kafka.common.security.plain.PlainLoginModule optional username=bob password=x1"}};
  BOOST_TEST_REQUIRE(k::translate_jaas(s).has_value());
  BOOST_TEST(find(s, "sasl.username")->value == "bob");
  BOOST_TEST(find(s, "sasl.password")->value == "x1");
}

BOOST_AUTO_TEST_CASE(settings_without_sasl_jaas_config_are_left_as_they_are) {
  k::settings s{{"sasl.username", "alice"}, {"sasl.password", "p"}};
  BOOST_TEST_REQUIRE(k::translate_jaas(s).has_value());
  BOOST_TEST(s.size() == 2u);
}

BOOST_AUTO_TEST_CASE(oauthbearer_and_kerberos_modules_are_refused_naming_librdkafka_s_own_keys) {
  BOOST_TEST(refusal("org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;")
                 .find("sasl.oauthbearer.method=oidc") != std::string::npos);
  BOOST_TEST(refusal("com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true;")
                 .find("sasl.kerberos.keytab") != std::string::npos);
  BOOST_TEST(
      refusal("com.example.CustomLoginModule required secret=\"hunter2\";").find("librdkafka has no JAAS") !=
      std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_malformed_string_is_refused_with_a_column_and_never_shows_the_password) {
  const std::string unclosed = refusal(
      "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\" password=\"hunter2");
  BOOST_TEST(unclosed.find("no closing quote (column 79)") != std::string::npos);
  BOOST_TEST(unclosed.find("hunter2") == std::string::npos);
  BOOST_TEST(refusal("org.apache.kafka.common.security.plain.PlainLoginModule username=\"a\";")
                 .find("control flag") != std::string::npos);
  BOOST_TEST(refusal("org.apache.kafka.common.security.scram.ScramLoginModule required username=\"a\";")
                 .find("needs both username and password") != std::string::npos);
  const std::string token = refusal(
      "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"a\" password=\"hunter2\" "
      "tokenauth=true;");
  BOOST_TEST(token.find("option 'tokenauth'") != std::string::npos);
  BOOST_TEST(token.find("hunter2") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(sasl_jaas_config_together_with_sasl_username_is_refused_as_ambiguous) {
  k::settings s{
      {"sasl.username", "alice"},
      {"sasl.jaas.config",
       "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"b\" password=\"c\";"}};
  auto r = k::translate_jaas(s);
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().message.find("not both") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
