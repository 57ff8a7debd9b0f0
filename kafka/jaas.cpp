// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/jaas.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string_view>

namespace streamt::kafka {
namespace {

constexpr std::string_view key = "sasl.jaas.config";

config_error refused(std::string message) {
  return config_error{errc::invalid_setting, std::string(key), 0,
                      "setting '" + std::string(key) + "': " + message};
}

std::string at(std::size_t i) { return " (column " + std::to_string(i + 1) + ")"; }

// The JAAS text of one login module: `Class flag name="value" ... ;`.
class reader {
 public:
  explicit reader(std::string_view text) : t_(text) {}

  void skip_space() {
    while (i_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[i_]))) ++i_;
  }
  bool done() {
    skip_space();
    return i_ >= t_.size();
  }
  std::size_t pos() const noexcept { return i_; }
  bool take(char c) {
    skip_space();
    if (i_ < t_.size() && t_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  // A class name or an option name: letters, digits, '.', '_', '$', '-'.
  std::string_view word() {
    skip_space();
    const std::size_t b = i_;
    while (i_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[i_])) || t_[i_] == '.' ||
                              t_[i_] == '_' || t_[i_] == '$' || t_[i_] == '-'))
      ++i_;
    return t_.substr(b, i_ - b);
  }
  // A value: "quoted, with \" and \\ escapes" or a bare word.
  std::optional<std::string> value() {
    skip_space();
    if (i_ < t_.size() && t_[i_] == '"') {
      std::string out;
      for (++i_; i_ < t_.size(); ++i_) {
        if (t_[i_] == '\\' && i_ + 1 < t_.size()) {
          out += t_[++i_];
        } else if (t_[i_] == '"') {
          ++i_;
          return out;
        } else {
          out += t_[i_];
        }
      }
      return std::nullopt;  // no closing quote
    }
    const std::size_t b = i_;
    while (i_ < t_.size() && !std::isspace(static_cast<unsigned char>(t_[i_])) && t_[i_] != ';') ++i_;
    if (i_ == b) return std::nullopt;
    return std::string(t_.substr(b, i_ - b));
  }

 private:
  std::string_view t_;
  std::size_t i_ = 0;
};

constexpr std::string_view plain_module = "org.apache.kafka.common.security.plain.PlainLoginModule";
constexpr std::string_view scram_module = "org.apache.kafka.common.security.scram.ScramLoginModule";

std::optional<std::string> instead_of(std::string_view module) {
  if (module.ends_with(".OAuthBearerLoginModule"))
    return "the OAuthBearerLoginModule is the Java client's; with librdkafka set sasl.mechanism=OAUTHBEARER, "
           "sasl.oauthbearer.method=oidc, sasl.oauthbearer.client.id, sasl.oauthbearer.client.secret and "
           "sasl.oauthbearer.token.endpoint.url instead";
  if (module.ends_with(".Krb5LoginModule"))
    return "the Krb5LoginModule is the JDK's; with librdkafka set sasl.mechanism=GSSAPI, "
           "sasl.kerberos.service.name, sasl.kerberos.principal and sasl.kerberos.keytab instead";
  return std::nullopt;
}

}  // namespace

config_result<void> translate_jaas(settings& s) {
  // The last entry of a key wins, as everywhere in settings.
  const auto last = std::find_if(s.rbegin(), s.rend(), [](const setting& x) { return x.key == key; });
  if (last == s.rend()) return {};
  for (const setting& x : s)
    if (x.key == "sasl.username" || x.key == "sasl.password")
      return refused("given together with " + x.key +
                     "; write either sasl.jaas.config (as for the Java client) or sasl.username and "
                     "sasl.password, not both");
  reader r(last->value);
  const std::string_view module = r.word();
  if (module.empty()) return refused("expected a login module class name" + at(r.pos()));
  if (module != plain_module && module != scram_module) {
    if (std::optional<std::string> other = instead_of(module)) return refused(*other);
    return refused("librdkafka has no JAAS; only " + std::string(plain_module) + " and " +
                   std::string(scram_module) +
                   " are translated (into sasl.username and sasl.password), not this login module");
  }
  const std::string_view flag = r.word();
  constexpr std::array<std::string_view, 4> flags{"required", "requisite", "sufficient", "optional"};
  if (std::find(flags.begin(), flags.end(), flag) == flags.end())
    return refused(
        "expected a control flag (required, requisite, sufficient or optional) after the login "
        "module" +
        at(r.pos()));
  std::optional<std::string> username;
  std::optional<std::string> password;
  while (!r.done() && !r.take(';')) {
    const std::size_t where = r.pos();
    const std::string name(r.word());
    if (name.empty() || !r.take('=')) return refused("expected name=\"value\"" + at(where));
    std::optional<std::string> v = r.value();
    if (!v) return refused("the value of option '" + name + "' is empty or has no closing quote" + at(where));
    if (name == "username")
      username = std::move(v);
    else if (name == "password")
      password = std::move(v);
    else
      return refused("option '" + name +
                     "' is not translated (only username and password are; SCRAM delegation tokens, "
                     "tokenauth, have no librdkafka setting)" +
                     at(where));
  }
  if (!r.done()) return refused("text after the ';' that ends the login module" + at(r.pos()));
  if (!username || !password) return refused("the login module needs both username and password");
  // The translated password keeps its origin: logs show it as redacted, as
  // any password, and the reference tells where it came from.
  const std::string origin =
      last->reference.empty() ? std::string("(from sasl.jaas.config)") : last->reference;
  s.erase(std::remove_if(s.begin(), s.end(), [](const setting& x) { return x.key == key; }), s.end());
  s.push_back({"sasl.username", std::move(*username), {}});
  s.push_back({"sasl.password", std::move(*password), origin});
  return {};
}

}  // namespace streamt::kafka
