// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/config.hpp"

#include <librdkafka/rdkafka.h>
#include <boost/test/unit_test.hpp>

#include <cstdlib>
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

BOOST_AUTO_TEST_CASE(group_protocol_is_classic_unless_the_user_chose_consumer_in_any_case) {
  BOOST_TEST((k::group_protocol_of({}).value() == k::group_protocol::classic));
  BOOST_TEST((k::group_protocol_of({{"group.protocol", "classic"}}).value() == k::group_protocol::classic));
  // The last one given wins, as in librdkafka and Java's Properties.
  const k::settings twice{{"group.protocol", "CONSUMER"}, {"group.protocol", "Classic"}};
  BOOST_TEST((k::group_protocol_of(twice).value() == k::group_protocol::classic));
  const auto consumer = k::group_protocol_of({{"group.protocol", "Consumer"}});
  if (rd_kafka_version() >= 0x020c00ff) {
    BOOST_TEST_REQUIRE(consumer.has_value());
    BOOST_TEST((*consumer == k::group_protocol::consumer));
    BOOST_TEST(k::check_user_settings({{"group.protocol", "consumer"}, {"group.remote.assignor", "uniform"}})
                   .has_value());
  } else {
    // The floor build: refused before librdkafka says "no such property".
    BOOST_TEST_REQUIRE(consumer.has_error());
    BOOST_TEST(consumer.error().message.find("needs librdkafka 2.12.0 or newer") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(membership_is_static_by_default_with_the_classic_protocol_and_dynamic_with_kip_848s) {
  using m = k::membership;
  using p = k::group_protocol;
  BOOST_TEST(k::is_static(m::automatic, p::classic));
  // KIP-848 refuses a static member's restart until its session expires.
  BOOST_TEST(!k::is_static(m::automatic, p::consumer));
  // An explicit choice wins under either protocol.
  BOOST_TEST(k::is_static(m::static_member, p::consumer));
  BOOST_TEST(k::is_static(m::static_member, p::classic));
  BOOST_TEST(!k::is_static(m::dynamic_member, p::classic));
  BOOST_TEST(!k::is_static(m::dynamic_member, p::consumer));
}

BOOST_AUTO_TEST_CASE(a_group_protocol_other_than_classic_or_consumer_is_refused_naming_the_value) {
  const auto r = k::check_user_settings({{"group.protocol", "share"}});
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().key == "group.protocol");
  BOOST_TEST(r.error().message.starts_with("setting 'group.protocol' takes classic or consumer, not '"));
  // The floor's librdkafka does not know the key, and an unknown key's value
  // is withheld like any other (it may be a mistyped secret).
  const bool known = rd_kafka_version() >= 0x020c00ff;
  BOOST_TEST(r.error().message.find(known ? "'share'" : "withheld") != std::string::npos, r.error().message);
}

BOOST_AUTO_TEST_CASE(build_conf_applies_user_settings_and_then_the_engine_settings) {
  auto conf =
      k::build_conf({{"isolation.level", "read_committed"}}, {{"client.id", "mine"}, {"linger.ms", "7"}});
  BOOST_TEST_REQUIRE(conf.has_value());
  BOOST_TEST(get(*conf, "client.id") == "mine");
  BOOST_TEST(get(*conf, "linger.ms") == "7");
  BOOST_TEST(get(*conf, "isolation.level") == "read_committed");
}

BOOST_AUTO_TEST_CASE(build_conf_takes_an_engine_default_unless_the_user_sets_the_key) {
  auto taken = k::build_conf({}, {{"linger.ms", "7"}}, {{"connections.max.idle.ms", "15000"}});
  BOOST_TEST_REQUIRE(taken.has_value());
  BOOST_TEST(get(*taken, "connections.max.idle.ms") == "15000");
  BOOST_TEST(get(*taken, "linger.ms") == "7");
  auto replaced =
      k::build_conf({}, {{"connections.max.idle.ms", "60000"}}, {{"connections.max.idle.ms", "15000"}});
  BOOST_TEST_REQUIRE(replaced.has_value());
  BOOST_TEST(get(*replaced, "connections.max.idle.ms") == "60000");
}

BOOST_AUTO_TEST_CASE(every_client_reconnects_after_20_ms_unless_the_user_or_the_client_says_otherwise) {
  auto plain = k::build_conf({}, {});
  BOOST_TEST_REQUIRE(plain.has_value());
  BOOST_TEST(get(*plain, "reconnect.backoff.ms") == "20");
  auto clients = k::build_conf({}, {}, {{"reconnect.backoff.ms", "30"}});
  BOOST_TEST_REQUIRE(clients.has_value());
  BOOST_TEST(get(*clients, "reconnect.backoff.ms") == "30");
  auto users = k::build_conf({}, {{"reconnect.backoff.ms", "100"}});
  BOOST_TEST_REQUIRE(users.has_value());
  BOOST_TEST(get(*users, "reconnect.backoff.ms") == "100");
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
        "sasl.oauthbearer.assertion.private.key.pem", "ssl.keystore.key", "SASL.PASSWORD", "Sasl.Jaas.Config",
        "my.api.token", "ssl.key.location", "sasl.pasword.typo.secret"}) {
    BOOST_TEST(k::is_secret(key), key);
    BOOST_TEST(k::redact(key, "s3cret") == "[redacted]");
  }
  // Identities, CA paths and public certificates stay readable: they are
  // what an operator needs to debug a failed connection.
  for (auto key : {"sasl.username", "ssl.certificate.pem", "ssl.ca.location", "ssl.ca.pem", "client.id"})
    BOOST_TEST(!k::is_secret(key), key);
  BOOST_TEST(k::redact("sasl.username", "alice") == "alice");
  BOOST_TEST(k::redacted({{"sasl.username", "alice"}, {"sasl.password", "s3cret"}}) ==
             "sasl.username=alice sasl.password=[redacted]");
}

BOOST_AUTO_TEST_CASE(a_key_librdkafka_does_not_know_has_its_value_withheld_from_logs) {
  // sasl.pasword is not secret by its name, but it is what a mistyped
  // sasl.password looks like.
  BOOST_TEST(!k::is_known_key("sasl.pasword"));
  BOOST_TEST(k::is_known_key("sasl.username"));
  BOOST_TEST(k::is_known_key("acks"));  // a topic property
  BOOST_TEST(k::redact("sasl.pasword", "hunter2") == "[withheld: not a librdkafka setting]");
  BOOST_TEST(k::redacted({{"sasl.pasword", "hunter2"}, {"linger.ms", "5"}}) ==
             "sasl.pasword=[withheld: not a librdkafka setting] linger.ms=5");
}

BOOST_AUTO_TEST_CASE(a_malformed_dash_x_setting_names_its_key_and_never_shows_the_rest) {
  auto s = k::parse_setting("sasl.password hunter2");
  BOOST_TEST_REQUIRE(s.has_error());
  BOOST_TEST(s.error().message.find("hunter2") == std::string::npos);
  BOOST_TEST(s.error().message.find("'sasl.password' followed by 8 more characters") != std::string::npos);
  auto colon = k::parse_setting("sasl.password:hunter2");
  BOOST_TEST_REQUIRE(colon.has_error());
  BOOST_TEST(colon.error().message.find("hunter2") == std::string::npos);
  BOOST_TEST(k::parse_setting("=hunter2").error().message.find("hunter2") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(only_names_librdkafka_knows_or_shaped_like_setting_names_are_shown) {
  BOOST_TEST(k::shows_as_key("acks"));          // known, one word
  BOOST_TEST(k::shows_as_key("sasl.pasword"));  // misspelt, but shaped like a setting name
  BOOST_TEST(k::shows_as_key("my.custom-key_2"));
  BOOST_TEST(!k::shows_as_key("hunter2xyzzy"));  // one unknown word: maybe the secret itself
  BOOST_TEST(!k::shows_as_key("sasl.password hunter2xyzzy"));
  BOOST_TEST(!k::shows_as_key("Hunter2.Xyzzy"));
  BOOST_TEST(!k::shows_as_key("a..b"));
  BOOST_TEST(!k::shows_as_key(".a"));
  BOOST_TEST(!k::shows_as_key("a."));
  BOOST_TEST(k::shown_key("hunter2xyzzy").find("hunter2") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_secret_that_lands_where_a_key_belongs_is_never_echoed) {
  // -X with the key forgotten.
  auto lone = k::parse_setting("hunter2xyzzy");
  BOOST_TEST_REQUIRE(lone.has_error());
  BOOST_TEST(lone.error().message.find("hunter2") == std::string::npos, lone.error().message);
  BOOST_TEST(lone.error().message.find("12 characters with no '='") != std::string::npos);
  // A space typed for the '=': librdkafka refuses the key, and neither the
  // error nor the log line shows it.
  auto spaced = k::build_conf({}, {{"sasl.password hunter2xyzzy", "1"}});
  BOOST_TEST_REQUIRE(spaced.has_error());
  BOOST_TEST(spaced.error().message.find("hunter2") == std::string::npos, spaced.error().message);
  BOOST_TEST(spaced.error().message.find("no such setting") != std::string::npos, spaced.error().message);
  const std::string logged = k::redacted({{"hunter2xyzzy", ""}, {"linger.ms", "5"}});
  BOOST_TEST(logged.find("hunter2") == std::string::npos, logged);
  BOOST_TEST(logged.find("linger.ms=5") != std::string::npos, logged);
}

BOOST_AUTO_TEST_CASE(a_secret_value_split_onto_the_next_line_is_an_error_that_shows_neither_line) {
  const auto r = k::parse_properties("security.protocol=SASL_SSL\nsasl.password=\nhunter2xyzzy\n");
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().message.find("hunter2") == std::string::npos, r.error().message);
  BOOST_TEST(r.error().message.find("line 3") != std::string::npos, r.error().message);
  BOOST_TEST(r.error().message.find("sasl.password (line 2)") != std::string::npos, r.error().message);
  // An empty secret followed by a setting is no split value.
  BOOST_TEST(k::parse_properties("sasl.password=\nlinger.ms=5\n").has_value());
  // A blank line between them: not taken for a split either.
  BOOST_TEST(k::parse_properties("sasl.password=\n\nacks\n").has_value());
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

// ---- ${env:NAME} and ${file:PATH} references --------------------------------

namespace {

// An environment variable set for one test and removed afterwards; its name
// carries the pid so parallel test runs can't see each other's.
class scoped_env {
 public:
  scoped_env(const std::string& stem, const char* value) : name_(stem + "_" + std::to_string(::getpid())) {
    ::setenv(name_.c_str(), value, 1);
  }
  ~scoped_env() { ::unsetenv(name_.c_str()); }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;
  const std::string& name() const { return name_; }
  std::string ref() const { return "${env:" + name_ + "}"; }

 private:
  std::string name_;
};

// A file removed when the test ends.
class scoped_file {
 public:
  scoped_file(const std::string& stem, std::string_view contents)
      : path_((std::filesystem::temp_directory_path() /
               ("streamt_config_ref_" + stem + "_" + std::to_string(::getpid())))
                  .string()) {
    std::ofstream out(path_, std::ios::binary);
    out << contents;
  }
  ~scoped_file() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  scoped_file(const scoped_file&) = delete;
  scoped_file& operator=(const scoped_file&) = delete;
  const std::string& path() const { return path_; }
  std::string ref() const { return "${file:" + path_ + "}"; }

 private:
  std::string path_;
};

k::config_error resolve_error(k::settings s) {
  auto r = k::resolve_references(s);
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().code == k::errc::unresolved_reference);
  BOOST_TEST((boost::system::error_code(r.error().code) == k::condition::configuration));
  return r.error();
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_env_reference_takes_the_variables_value_and_keeps_the_reference) {
  scoped_env pw("STREAMT_TEST_PW", "s3cret-env");
  k::settings s{{"sasl.password", pw.ref()}, {"client.id", "plain"}};
  BOOST_TEST_REQUIRE(k::resolve_references(s).has_value());
  BOOST_TEST(s[0].value == "s3cret-env");
  BOOST_TEST(s[0].reference == pw.ref());
  BOOST_TEST(s[1].value == "plain");
  BOOST_TEST(s[1].reference.empty());
}

BOOST_AUTO_TEST_CASE(a_set_but_empty_variable_gives_an_empty_value) {
  scoped_env empty("STREAMT_TEST_EMPTY", "");
  k::settings s{{"sasl.username", empty.ref()}};
  BOOST_TEST_REQUIRE(k::resolve_references(s).has_value());
  BOOST_TEST(s[0].value.empty());
}

BOOST_AUTO_TEST_CASE(a_file_reference_takes_the_contents_without_one_trailing_line_ending) {
  scoped_file lf("lf", "s3cret\n");
  scoped_file crlf("crlf", "s3cret\r\n");
  scoped_file none("none", "s3cret");
  scoped_file two("two", "s3cret\n\n");
  scoped_file pem("pem", "-----BEGIN X-----\nAAAA\n-----END X-----\n");
  k::settings s{{"a", lf.ref()}, {"b", crlf.ref()}, {"c", none.ref()}, {"d", two.ref()}, {"e", pem.ref()}};
  BOOST_TEST_REQUIRE(k::resolve_references(s).has_value());
  BOOST_TEST(s[0].value == "s3cret");
  BOOST_TEST(s[1].value == "s3cret");
  BOOST_TEST(s[2].value == "s3cret");
  BOOST_TEST(s[3].value == "s3cret\n");
  BOOST_TEST(s[4].value == "-----BEGIN X-----\nAAAA\n-----END X-----");
}

BOOST_AUTO_TEST_CASE(references_may_be_part_of_a_value_and_appear_several_times) {
  scoped_env user("STREAMT_TEST_USER", "alice");
  scoped_file pw("jaas_pw", "s3cret\n");
  const std::string written =
      "org.example.Login required username=\"" + user.ref() + "\" password=\"" + pw.ref() + "\";";
  k::settings s{{"sasl.jaas.config", written}};
  BOOST_TEST_REQUIRE(k::resolve_references(s).has_value());
  BOOST_TEST(s[0].value == "org.example.Login required username=\"alice\" password=\"s3cret\";");
  BOOST_TEST(s[0].reference == written);
}

BOOST_AUTO_TEST_CASE(substituted_text_is_not_scanned_again) {
  scoped_env inner("STREAMT_TEST_INNER", "never");
  scoped_env outer("STREAMT_TEST_OUTER", ("${env:" + inner.name() + "}").c_str());
  k::settings s{{"client.id", outer.ref()}};
  BOOST_TEST_REQUIRE(k::resolve_references(s).has_value());
  BOOST_TEST(s[0].value == "${env:" + inner.name() + "}");
}

BOOST_AUTO_TEST_CASE(other_dollar_brace_text_is_left_as_written) {
  // As Kafka leaves references to providers it does not know; the names are
  // case-sensitive there too.
  k::settings s{{"a", "${vault:secret/kafka:pw}"}, {"b", "${ENV:HOME}"}, {"c", "$env:HOME"}, {"d", "${}"}};
  const k::settings before = s;
  BOOST_TEST_REQUIRE(k::resolve_references(s).has_value());
  BOOST_TEST((s == before));
  BOOST_TEST(!k::has_reference("${vault:x}"));
  BOOST_TEST(k::has_reference("x${env:Y}"));
  BOOST_TEST(k::has_reference("${file:/p}"));
}

BOOST_AUTO_TEST_CASE(an_unset_variable_is_an_error_naming_the_key_and_the_variable_but_no_value) {
  const std::string unset = "STREAMT_TEST_UNSET_" + std::to_string(::getpid());
  ::unsetenv(unset.c_str());
  const auto e = resolve_error({{"sasl.jaas.config", "password=\"inline-s3cret\" ${env:" + unset + "}"}});
  BOOST_TEST(e.key == "sasl.jaas.config");
  BOOST_TEST(e.message.find("'sasl.jaas.config'") != std::string::npos, e.message);
  BOOST_TEST(e.message.find(unset) != std::string::npos, e.message);
  BOOST_TEST(e.message.find("inline-s3cret") == std::string::npos, e.message);
}

BOOST_AUTO_TEST_CASE(an_unreadable_file_is_an_error_naming_the_key_and_the_path) {
  const std::string missing =
      (std::filesystem::temp_directory_path() / ("streamt_config_ref_missing_" + std::to_string(::getpid())))
          .string();
  const auto e = resolve_error({{"ssl.key.password", "${file:" + missing + "}"}});
  BOOST_TEST(e.key == "ssl.key.password");
  BOOST_TEST(e.message.find("'ssl.key.password'") != std::string::npos, e.message);
  BOOST_TEST(e.message.find(missing) != std::string::npos, e.message);
  BOOST_TEST(e.message.find("No such file") != std::string::npos, e.message);

  const std::string dir = std::filesystem::temp_directory_path().string();
  const auto d = resolve_error({{"ssl.key.password", "${file:" + dir + "}"}});
  BOOST_TEST(d.message.find("is a directory") != std::string::npos, d.message);
}

BOOST_AUTO_TEST_CASE(a_reference_without_its_closing_brace_or_its_name_is_an_error) {
  scoped_env pw("STREAMT_TEST_PW2", "s3cret");
  const auto open = resolve_error({{"sasl.password", "${env:" + pw.name()}});
  BOOST_TEST(open.message.find("closing '}'") != std::string::npos, open.message);
  const auto open_file = resolve_error({{"sasl.password", "${file:/etc/hostname"}});
  BOOST_TEST(open_file.message.find("${file:") != std::string::npos, open_file.message);
  const auto no_name = resolve_error({{"sasl.password", "${env:}"}});
  BOOST_TEST(no_name.message.find("names no variable") != std::string::npos, no_name.message);
  const auto no_path = resolve_error({{"sasl.password", "${file:}"}});
  BOOST_TEST(no_path.message.find("names no file") != std::string::npos, no_path.message);
}

BOOST_AUTO_TEST_CASE(a_file_over_the_limit_or_holding_a_nul_byte_is_refused) {
  scoped_file big("big", std::string(k::max_reference_file_bytes + 1, 'x'));
  const auto e = resolve_error({{"ssl.key.pem", big.ref()}});
  BOOST_TEST(e.message.find("more than") != std::string::npos, e.message);
  scoped_file nul("nul", std::string("ab\0cd", 5));
  const auto n = resolve_error({{"sasl.password", nul.ref()}});
  BOOST_TEST(n.message.find("NUL") != std::string::npos, n.message);
}

BOOST_AUTO_TEST_CASE(the_first_failing_reference_fails_the_whole_set_and_names_its_key) {
  scoped_env ok("STREAMT_TEST_OK", "fine");
  const std::string unset = "STREAMT_TEST_UNSET2_" + std::to_string(::getpid());
  ::unsetenv(unset.c_str());
  const auto e = resolve_error({{"sasl.username", ok.ref()}, {"sasl.password", "${env:" + unset + "}"}});
  BOOST_TEST(e.key == "sasl.password");
}

BOOST_AUTO_TEST_CASE(a_substituted_secret_logs_redacted_and_other_substituted_values_log_their_reference) {
  scoped_env pw("STREAMT_TEST_PW3", "s3cret-env");
  scoped_env id("STREAMT_TEST_ID", "client-from-env");
  k::settings s{{"sasl.password", pw.ref()}, {"client.id", id.ref()}, {"linger.ms", "5"}};
  BOOST_TEST_REQUIRE(k::resolve_references(s).has_value());
  const std::string line = k::redacted(s);
  BOOST_TEST(line == "sasl.password=[redacted] client.id=" + id.ref() + " linger.ms=5");
  BOOST_TEST(line.find("s3cret-env") == std::string::npos);
  BOOST_TEST(line.find("client-from-env") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_rejected_substituted_value_is_withheld_from_the_error) {
  scoped_env linger("STREAMT_TEST_LINGER", "soon-and-private");
  k::settings s{{"linger.ms", linger.ref()}};
  BOOST_TEST_REQUIRE(k::resolve_references(s).has_value());
  auto r = k::build_conf({}, s);
  BOOST_TEST_REQUIRE(r.has_error());
  BOOST_TEST(r.error().key == "linger.ms");
  BOOST_TEST(r.error().message.find("soon-and-private") == std::string::npos, r.error().message);
  BOOST_TEST(r.error().message.find(linger.ref()) != std::string::npos, r.error().message);
}

BOOST_AUTO_TEST_CASE(a_resolved_value_reaches_librdkafka) {
  scoped_env id("STREAMT_TEST_ID2", "client-from-env");
  k::settings s{{"client.id", id.ref()}};
  BOOST_TEST_REQUIRE(k::resolve_references(s).has_value());
  auto conf = k::build_conf({}, s);
  BOOST_TEST_REQUIRE(conf.has_value());
  BOOST_TEST(get(*conf, "client.id") == "client-from-env");
}

// ---- positions, for readers with rules of their own -------------------------

BOOST_AUTO_TEST_CASE(located_properties_point_at_each_key_and_value_across_continuations) {
  const auto r = k::parse_located_properties("# c\n  a = 1\nbb:\\\n   two\n\nc\n");
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST_REQUIRE(r->size() == 3u);
  BOOST_TEST((*r)[0].s.key == "a");
  BOOST_TEST(((*r)[0].key == k::property_position{2, 3}));
  BOOST_TEST(((*r)[0].value == k::property_position{2, 7}));
  BOOST_TEST((*r)[1].s.value == "two");
  BOOST_TEST(((*r)[1].key == k::property_position{3, 1}));
  BOOST_TEST(((*r)[1].value == k::property_position{4, 4}));
  BOOST_TEST(((*r)[2].key == k::property_position{6, 1}));
  BOOST_TEST(((*r)[2].value == k::property_position{6, 2}));
}
