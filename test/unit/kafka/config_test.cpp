#include "kafka/config.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace k = streamt::kafka;

BOOST_TEST_DONT_PRINT_LOG_VALUE(k::errc)

namespace {

std::string get(const k::conf_ptr& conf, const char* key) {
  char buf[256] = {};
  size_t size = sizeof buf;
  if (rd_kafka_conf_get(conf.get(), key, buf, &size) != RD_KAFKA_CONF_OK) return "<unset>";
  return buf;
}

k::settings parse_ok(std::string_view text) {
  auto r = k::parse_properties(text);
  BOOST_TEST_REQUIRE(r.has_value(), (r.has_error() ? r.error().message : std::string()));
  return *r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_engine_owned_key_is_rejected_as_a_user_override_naming_the_key) {
  for (auto key : k::engine_owned_keys()) {
    const auto r = k::check_user_settings({{"client.id", "x"}, {std::string(key), "anything"}});
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().code == k::errc::engine_owned_setting);
    BOOST_TEST(r.error().key == key);
    BOOST_TEST(r.error().message.find("'" + std::string(key) + "'") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(the_engine_owns_the_settings_exactly_once_depends_on) {
  for (auto key : {"isolation.level", "transactional.id", "enable.auto.commit", "enable.auto.offset.store",
                   "enable.idempotence", "group.id", "auto.commit.enable"}) {
    BOOST_TEST(k::is_engine_owned(key), key);
  }
  BOOST_TEST(!k::is_engine_owned("bootstrap.servers"));
  BOOST_TEST(!k::is_engine_owned("security.protocol"));
  BOOST_TEST(!k::is_engine_owned("transaction.timeout.ms"));
}

BOOST_AUTO_TEST_CASE(build_conf_applies_user_settings_and_then_the_engine_settings) {
  auto conf =
      k::build_conf({{"isolation.level", "read_committed"}}, {{"client.id", "mine"}, {"linger.ms", "7"}});
  BOOST_TEST_REQUIRE(conf.has_value());
  BOOST_TEST(get(*conf, "client.id") == "mine");
  BOOST_TEST(get(*conf, "linger.ms") == "7");
  BOOST_TEST(get(*conf, "isolation.level") == "read_committed");
}

BOOST_AUTO_TEST_CASE(build_conf_rejects_an_owned_override_before_creating_anything) {
  auto conf = k::build_conf({}, {{"isolation.level", "read_uncommitted"}});
  BOOST_TEST_REQUIRE(conf.has_error());
  BOOST_TEST(conf.error().key == "isolation.level");
  BOOST_TEST((boost::system::error_code(conf.error().code) == k::condition::configuration));
}

BOOST_AUTO_TEST_CASE(an_unknown_key_or_invalid_value_is_an_error_naming_the_key) {
  auto unknown = k::build_conf({}, {{"no.such.setting", "1"}});
  BOOST_TEST_REQUIRE(unknown.has_error());
  BOOST_TEST(unknown.error().code == k::errc::invalid_setting);
  BOOST_TEST(unknown.error().key == "no.such.setting");
  BOOST_TEST(unknown.error().message.find("no.such.setting") != std::string::npos);

  auto invalid = k::build_conf({}, {{"linger.ms", "soon"}});
  BOOST_TEST_REQUIRE(invalid.has_error());
  BOOST_TEST(invalid.error().key == "linger.ms");
}

BOOST_AUTO_TEST_CASE(a_rejected_secret_value_never_appears_in_the_error) {
  // sasl.mechanisms accepts a fixed list; use a secret-looking key librdkafka
  // rejects: an unknown *.password key.
  auto r = k::build_conf({}, {{"bogus.password", "hunter2"}});
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().message.find("hunter2") == std::string::npos);
  BOOST_TEST(r.error().message.find("bogus.password") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(secrets_are_redacted_and_other_values_are_kept) {
  for (auto key :
       {"sasl.password", "ssl.key.password", "ssl.keystore.password", "sasl.oauthbearer.client.secret",
        "sasl.oauthbearer.config", "ssl.key.pem", "sasl.jaas.config", "some.future.password", "ssl_key",
        "sasl.oauthbearer.extensions", "sasl.oauthbearer.assertion.private.key.passphrase",
        "sasl.oauthbearer.assertion.private.key.pem", "ssl.keystore.key"}) {
    BOOST_TEST(k::is_secret(key), key);
    BOOST_TEST(k::redact(key, "s3cret") == "[redacted]");
  }
  // Identities, paths and public certificates stay readable: they are what
  // an operator needs to debug a failed connection.
  for (auto key :
       {"sasl.username", "ssl.key.location", "ssl.certificate.pem", "ssl.ca.location", "ssl.ca.pem"})
    BOOST_TEST(!k::is_secret(key), key);
  BOOST_TEST(k::redact("sasl.username", "alice") == "alice");
  BOOST_TEST(k::redacted({{"sasl.username", "alice"}, {"sasl.password", "s3cret"}}) ==
             "sasl.username=alice sasl.password=[redacted]");
}

BOOST_AUTO_TEST_CASE(a_dash_x_setting_splits_at_the_first_equals_sign) {
  auto s = k::parse_setting("sasl.jaas.config=a=b");
  BOOST_TEST_REQUIRE(s.has_value());
  BOOST_TEST(s->key == "sasl.jaas.config");
  BOOST_TEST(s->value == "a=b");
  BOOST_TEST(k::parse_setting("linger.ms=").has_value());
  BOOST_TEST(k::parse_setting("linger.ms").has_error());
  BOOST_TEST(k::parse_setting("=5").has_error());
}

BOOST_AUTO_TEST_CASE(properties_accept_equals_colon_and_whitespace_separators) {
  const auto s = parse_ok("a=1\nb: 2\nc 3\n  d  =  4  \ne\n");
  const k::settings expected{{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4  "}, {"e", ""}};
  BOOST_TEST((s == expected));
}

BOOST_AUTO_TEST_CASE(properties_skip_hash_and_bang_comments_and_blank_lines) {
  const auto s =
      parse_ok("# comment\n! also a comment\n\n   \n  # indented comment\nkey=value # not a comment\n");
  BOOST_TEST_REQUIRE(s.size() == 1u);
  BOOST_TEST(s[0].value == "value # not a comment");
}

BOOST_AUTO_TEST_CASE(properties_join_continuation_lines_dropping_leading_whitespace) {
  const auto s = parse_ok("sasl.jaas.config=first \\\n      second\\\n\tthird\nnext=1");
  BOOST_TEST_REQUIRE(s.size() == 2u);
  BOOST_TEST(s[0].value == "first secondthird");
  BOOST_TEST(s[1].key == "next");
}

BOOST_AUTO_TEST_CASE(properties_treat_an_even_number_of_trailing_backslashes_as_literal) {
  const auto s = parse_ok("path=C:\\\\dir\\\\\nnext=1");
  BOOST_TEST_REQUIRE(s.size() == 2u);
  BOOST_TEST(s[0].value == "C:\\dir\\");
}

BOOST_AUTO_TEST_CASE(properties_decode_escapes_in_keys_and_values) {
  const auto s = parse_ok("a\\=b\\:c\\ d=tab\\there\\nnl \\u00e9\\uD83D\\uDE00 \\q");
  BOOST_TEST_REQUIRE(s.size() == 1u);
  BOOST_TEST(s[0].key == "a=b:c d");
  BOOST_TEST(s[0].value == "tab\there\nnl \xC3\xA9\xF0\x9F\x98\x80 q");
}

BOOST_AUTO_TEST_CASE(properties_accept_crlf_and_cr_line_endings) {
  const auto s = parse_ok("a=1\r\nb=2\rc=3");
  const k::settings expected{{"a", "1"}, {"b", "2"}, {"c", "3"}};
  BOOST_TEST((s == expected));
}

BOOST_AUTO_TEST_CASE(properties_keep_later_duplicates_in_order_so_the_last_one_wins) {
  const auto s = parse_ok("a=1\na=2\n");
  BOOST_TEST_REQUIRE(s.size() == 2u);
  BOOST_TEST(s.back().value == "2");
}

BOOST_AUTO_TEST_CASE(a_malformed_unicode_escape_is_an_error_with_its_line) {
  const auto r = k::parse_properties("a=1\n# c\nb=\\u12G4\n");
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().line == 3u);
  BOOST_TEST(r.error().message.find("line 3") != std::string::npos);
  BOOST_TEST(k::parse_properties("b=\\uD83D alone").has_error());
  BOOST_TEST(k::parse_properties("b=\\u12").has_error());
}

BOOST_AUTO_TEST_CASE(an_empty_key_is_rejected) {
  const auto r = k::parse_properties("=value\n");
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == k::errc::properties_syntax);
}

BOOST_AUTO_TEST_CASE(a_properties_file_is_read_and_a_missing_one_is_an_error_naming_it) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto path = dir / ("streamt_kafka_config_test_" + std::to_string(::getpid()) + ".properties");
  {
    std::ofstream out(path);
    out << "security.protocol=SASL_SSL\nsasl.password=s3cret\n";
  }
  const auto r = k::read_properties_file(path);
  std::filesystem::remove(path);
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(r->size() == 2u);
  const auto missing = k::read_properties_file(path);
  BOOST_TEST_REQUIRE(missing.has_error());
  BOOST_TEST(missing.error().code == k::errc::file_unreadable);
  BOOST_TEST(missing.error().message.find(path.string()) != std::string::npos);
}
