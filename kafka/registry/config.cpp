// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/registry/config.hpp"

#include "kafka/config.hpp"

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>

namespace streamt::kafka::registry {

void throw_exception_from_error(const config_error& e, const boost::source_location&) {
  throw std::logic_error("unchecked registry config result: " + e.message);
}

std::string registry_url::to_string() const {
  std::string out = tls ? "https://" : "http://";
  if (host.find(':') != std::string::npos)
    out += "[" + host + "]";
  else
    out += host;
  out += ":" + std::to_string(port) + prefix;
  return out;
}

bool is_loopback_host(std::string_view host) noexcept {
  if (host == "localhost") return true;
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(std::string(host), ec);
  return !ec && address.is_loopback();
}

std::string config::to_string() const {
  std::string out = "url=" + url.to_string();
  out += " basic.auth=" + std::string(basic_auth ? "[redacted]" : "none");
  if (!ca_location.empty()) out += " schema.registry.ssl.ca.location=" + ca_location;
  if (!certificate_location.empty())
    out += " schema.registry.ssl.certificate.location=" + certificate_location;
  // The key's path is withheld as librdkafka's ssl.key.location is
  // (kafka::is_secret): a value pasted under the wrong key must not leak.
  if (!key_location.empty()) out += " schema.registry.ssl.key.location=[withheld]";
  if (!key_password.empty()) out += " schema.registry.ssl.key.password=[redacted]";
  out += " streamt.registry.request.timeout.ms=" + std::to_string(request_timeout.count());
  out += " streamt.registry.retry.backoff.ms=" + std::to_string(backoff_initial.count());
  out += " streamt.registry.retry.backoff.max.ms=" + std::to_string(backoff_max.count());
  return out;
}

namespace {

constexpr std::string_view url_option = "--schema-registry";

config_error url_error(std::string message) { return {{}, 0, 0, std::string(url_option) + ": " + message}; }

bool is_control(char c) noexcept { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hex_value(s[i + 1]);
    const int lo = hex_value(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

bool has_control(std::string_view s) noexcept { return std::any_of(s.begin(), s.end(), is_control); }

// A user and password as an Authorization header will carry them: the
// user without ':' (the header's separator) and neither with a control
// character (a line break would end the header early and smuggle the rest
// in as a header of its own).
std::optional<std::string> credentials_problem(const basic_credentials& c) {
  if (c.user.empty()) return "the user name is empty";
  if (c.user.find(':') != std::string::npos) return "the user name holds a ':'";
  if (c.password.empty()) return "the password is empty";
  if (has_control(c.user) || has_control(c.password))
    return "the user name or the password holds a control character (a line break?)";
  return std::nullopt;
}

bool is_host_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_';
}

// The characters a path segment may hold unencoded (RFC 3986 pchar, less
// '@': see parse_url).
bool is_path_char(char c) noexcept {
  if (is_host_char(c) || c == '~' || c == '/') return true;
  return std::string_view("!$&'()*+,;=:%").find(c) != std::string_view::npos;
}

}  // namespace

config_result<parsed_url> parse_url(std::string_view text) {
  // No part of the text is ever quoted back: a mistyped URL may hold a
  // password anywhere (a '/' in it cuts the authority short, a forgotten
  // '@' makes it the port), so each message says what is wrong, not where.
  parsed_url out;
  std::string_view rest;
  if (text.starts_with("https://")) {
    out.url.tls = true;
    rest = text.substr(8);
  } else if (text.starts_with("http://")) {
    rest = text.substr(7);
  } else {
    return url_error(
        "expected a URL starting with http:// or https:// (the URL is not shown: it may hold "
        "credentials)");
  }
  if (has_control(rest) || rest.find(' ') != std::string_view::npos)
    return url_error("the URL holds a space or a control character (a line break?)");
  if (rest.find_first_of("?#") != std::string_view::npos)
    return url_error(
        "the URL has a query or a fragment ('?', '#'); a registry URL has neither (a '?' or '#' "
        "in a password must be written %3F or %23)");
  const std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  if (path.find('@') != std::string_view::npos)
    return url_error("the URL holds an '@' after its host: a password with a '/' must write it %2F");
  if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
    const std::size_t colon = userinfo.find(':');
    if (colon == std::string_view::npos)
      return url_error("the URL's credentials have no ':' between the user name and the password");
    auto user = percent_decode(userinfo.substr(0, colon));
    auto password = percent_decode(userinfo.substr(colon + 1));
    if (!user || !password) return url_error("the URL's credentials hold a malformed %XX escape");
    basic_credentials c{std::move(*user), std::move(*password)};
    if (auto problem = credentials_problem(c)) return url_error("in the URL's credentials, " + *problem);
    out.userinfo = std::move(c);
  }
  std::string_view host = authority;
  std::string_view port_text;
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return url_error("the URL's IPv6 address has no closing ']'");
    host = authority.substr(1, close - 1);
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(':'))
      return url_error("the URL's IPv6 address is followed by something other than ':PORT'");
    if (!after.empty()) port_text = after.substr(1);
    boost::system::error_code ec;
    const auto a = boost::asio::ip::make_address(std::string(host), ec);
    if (ec || !a.is_v6()) return url_error("the URL's host in brackets is not an IPv6 address");
    if (after == ":") return url_error("the URL's port is empty");
  } else {
    const std::size_t colon = authority.find(':');
    if (colon != std::string_view::npos) {
      host = authority.substr(0, colon);
      port_text = authority.substr(colon + 1);
      if (port_text.empty()) return url_error("the URL's port is empty");
    }
    if (!std::all_of(host.begin(), host.end(), is_host_char))
      return url_error("the URL's host holds a character a host name can't (an '@' missing?)");
  }
  if (host.empty()) return url_error("the URL has no host");
  out.url.host = std::string(host);
  out.url.port = out.url.tls ? 443 : 80;
  if (!port_text.empty()) {
    unsigned port = 0;
    const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc{} || end != port_text.data() + port_text.size() || port == 0 || port > 65535)
      return url_error("the URL's port is not a number from 1 to 65535");
    out.url.port = static_cast<std::uint16_t>(port);
  }
  if (!std::all_of(path.begin(), path.end(), is_path_char))
    return url_error("the URL's path holds a character a path can't unencoded");
  while (path.ends_with('/')) path.remove_suffix(1);
  out.url.prefix = std::string(path);
  return out;
}

namespace {

constexpr std::string_view source_key = "basic.auth.credentials.source";
constexpr std::string_view user_info_key = "basic.auth.user.info";
constexpr std::string_view ca_key = "schema.registry.ssl.ca.location";
constexpr std::string_view certificate_key = "schema.registry.ssl.certificate.location";
constexpr std::string_view key_location_key = "schema.registry.ssl.key.location";
constexpr std::string_view key_password_key = "schema.registry.ssl.key.password";
constexpr std::string_view timeout_key = "streamt.registry.request.timeout.ms";
constexpr std::string_view backoff_key = "streamt.registry.retry.backoff.ms";
constexpr std::string_view backoff_max_key = "streamt.registry.retry.backoff.max.ms";

constexpr std::array<std::string_view, 9> known_keys{source_key,      user_info_key,    ca_key,
                                                     certificate_key, key_location_key, key_password_key,
                                                     timeout_key,     backoff_key,      backoff_max_key};

bool is_secret_key(std::string_view key) noexcept { return key == user_info_key || key == key_password_key; }

std::string known_list() {
  std::string out;
  for (std::string_view k : known_keys) out += (out.empty() ? "" : ", ") + std::string(k);
  return out;
}

struct located_error_maker {
  std::string_view file;
  config_error operator()(std::string key, property_position at, std::string message) const {
    std::string text =
        std::string(file) + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " + message;
    return {std::move(key), at.line, at.column, std::move(text)};
  }
};

config_result<std::chrono::milliseconds> milliseconds_of(const located_setting& s, range r,
                                                         const located_error_maker& error) {
  const std::string& v = s.s.value;
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  const bool digits =
      !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
  const std::string bounds = "from " + std::to_string(r.min) + " to " + std::to_string(r.max);
  if (!digits || ec == std::errc::invalid_argument || end != v.data() + v.size())
    return error(s.s.key, s.value, "'" + s.s.key + "' must be a whole number of milliseconds " + bounds);
  if (ec == std::errc::result_out_of_range || n < r.min || n > r.max)
    return error(s.s.key, s.value,
                 "'" + s.s.key + "' is " +
                     (ec == std::errc{} ? std::to_string(n) : std::string("too large")) +
                     ", out of its range: write a number of milliseconds " + bounds);
  return std::chrono::milliseconds(n);
}

}  // namespace

config_result<config> parse_config(std::string_view url_text, std::string_view file_text,
                                   std::string_view file_name) {
  const located_error_maker error{file_name};
  auto parsed = parse_url(url_text);
  if (!parsed) return parsed.error();
  config out;
  out.url = std::move(parsed->url);

  auto located = parse_located_properties(file_text);
  if (!located) {
    // The shared reader's messages name the line and never a value.
    const kafka::config_error& e = located.error();
    return config_error{{}, e.line, 0, std::string(file_name) + ":" + e.message};
  }
  // Each key at most once: a second value is more often a leftover than a
  // deliberate override, and which one wins should not be a guess.
  std::vector<located_setting> settings;
  std::size_t previous_secret_line = 0;
  for (auto& l : *located) {
    const std::string& key = l.s.key;
    const bool known = std::find(known_keys.begin(), known_keys.end(), key) != known_keys.end();
    if (!known) {
      // An unknown key is shown only when it looks like a setting's name,
      // has a value of its own, and is not the line right after a secret: a
      // lone word there is likely the rest of a secret cut by a line break.
      const bool lone = l.s.value.empty();
      const bool after_secret = previous_secret_line != 0 && previous_secret_line + 1 == l.key.line;
      if (shows_as_key(key) && !lone && !after_secret)
        return error(key, l.key, "unknown key '" + key + "'; the keys are " + known_list());
      return error({}, l.key,
                   "a line that is no known key (not shown: it may be part of a secret, cut by a line "
                   "break); write KEY=VALUE on one line with one of " +
                       known_list());
    }
    previous_secret_line = is_secret_key(key) ? l.key.line : 0;
    for (const auto& earlier : settings)
      if (earlier.s.key == key)
        return error(key, l.key,
                     "'" + key + "' is given twice (first at line " + std::to_string(earlier.key.line) +
                         "); keep one");
    if (l.s.value.empty())
      return error(key, l.value, "'" + key + "' has no value; give one or remove the line");
    settings.push_back(std::move(l));
  }
  // ${env:...} and ${file:...}, one setting at a time so that an error
  // points at its line; the shared resolver's messages name the key and the
  // variable or path, never a value.
  for (auto& l : settings) {
    kafka::settings one{l.s};
    if (auto r = resolve_references(one); !r) return error(l.s.key, l.value, r.error().message);
    l.s = std::move(one.front());
  }

  const located_setting* source = nullptr;
  const located_setting* user_info = nullptr;
  const located_setting* certificate = nullptr;
  const located_setting* key_location = nullptr;
  const located_setting* key_password = nullptr;
  const located_setting* first_tls = nullptr;
  const located_setting* backoff = nullptr;
  const located_setting* backoff_max = nullptr;
  for (const auto& l : settings) {
    const std::string& key = l.s.key;
    const std::string& value = l.s.value;
    if (key.starts_with("schema.registry.ssl.") && !first_tls) first_tls = &l;
    if (key == source_key) {
      source = &l;
      if (value != "USER_INFO" && value != "URL") {
        const bool showable = value.size() <= 32 && std::all_of(value.begin(), value.end(), [](char c) {
                                return (c >= 'A' && c <= 'Z') || c == '_';
                              });
        return error(key, l.value,
                     "'" + key + "' is " + (showable ? "'" + value + "'" : std::string("a value not shown")) +
                         "; streamt reads USER_INFO (basic.auth.user.info=USER:PASSWORD) or URL "
                         "(https://USER:PASSWORD@HOST/...); other sources (SASL_INHERIT, ...) are not "
                         "supported");
      }
    } else if (key == user_info_key) {
      user_info = &l;
    } else if (key == ca_key) {
      out.ca_location = value;
    } else if (key == certificate_key) {
      certificate = &l;
      out.certificate_location = value;
    } else if (key == key_location_key) {
      key_location = &l;
      out.key_location = value;
    } else if (key == key_password_key) {
      key_password = &l;
      if (has_control(value))
        return error(key, l.value, "'" + key + "' holds a control character (a line break?)");
      out.key_password = value;
    } else if (key == timeout_key) {
      auto ms = milliseconds_of(l, request_timeout_range, error);
      if (!ms) return ms.error();
      out.request_timeout = *ms;
    } else if (key == backoff_key) {
      backoff = &l;
      auto ms = milliseconds_of(l, backoff_initial_range, error);
      if (!ms) return ms.error();
      out.backoff_initial = *ms;
    } else if (key == backoff_max_key) {
      backoff_max = &l;
      auto ms = milliseconds_of(l, backoff_max_range, error);
      if (!ms) return ms.error();
      out.backoff_max = *ms;
    }
  }
  if (out.backoff_max < out.backoff_initial) {
    const located_setting* at = backoff_max ? backoff_max : backoff;
    return error(at->s.key, at->value,
                 std::string(backoff_max_key) + " (" + std::to_string(out.backoff_max.count()) +
                     ") is below " + std::string(backoff_key) + " (" +
                     std::to_string(out.backoff_initial.count()) +
                     "); the cap must be at least the first delay");
  }

  // Where the credentials come from. Unset, the source is URL (the URL's
  // userinfo, if any), as for the Confluent clients; a basic.auth.user.info
  // they would then ignore is refused rather than silently unused, so the
  // same file means the same to them and to us.
  const bool from_url = !source || source->s.value == "URL";
  if (from_url) {
    if (user_info)
      return error(user_info->s.key, user_info->key,
                   std::string(user_info_key) + " is given but " + std::string(source_key) + " is " +
                       (source ? "URL" : "unset (URL, as for the Confluent clients)") +
                       ", which ignores it; set " + std::string(source_key) +
                       "=USER_INFO or remove the line");
    if (source && !parsed->userinfo)
      return error(source->s.key, source->value,
                   std::string(source_key) +
                       "=URL but the --schema-registry URL has no USER:PASSWORD@; add them, or use "
                       "USER_INFO with " +
                       std::string(user_info_key));
    out.basic_auth = std::move(parsed->userinfo);
  } else {
    if (parsed->userinfo)
      return error(source ? source->s.key : user_info->s.key, source ? source->value : user_info->key,
                   "the --schema-registry URL holds credentials too; with " + std::string(source_key) +
                       "=USER_INFO remove them from the URL (two sources for one password is one too many)");
    if (!user_info)
      return error(
          source->s.key, source->value,
          std::string(source_key) + "=USER_INFO needs " + std::string(user_info_key) + "=USER:PASSWORD");
    const std::string& v = user_info->s.value;
    const std::size_t colon = v.find(':');
    if (colon == std::string::npos)
      return error(user_info->s.key, user_info->value,
                   std::string(user_info_key) + " must be USER:PASSWORD; it has no ':' (value not shown)");
    basic_credentials c{v.substr(0, colon), v.substr(colon + 1)};
    if (auto problem = credentials_problem(c))
      return error(user_info->s.key, user_info->value,
                   "in " + std::string(user_info_key) + ", " + *problem + " (value not shown)");
    out.basic_auth = std::move(c);
  }

  // Basic auth over plain http is readable by every hop: only this
  // machine's own loopback is exempt (tests, a sidecar).
  if (out.basic_auth && !out.url.tls && !is_loopback_host(out.url.host)) {
    const std::string why =
        "credentials would cross the network in clear text to a host that is not this "
        "machine; use an https:// URL";
    if (user_info) return error(user_info->s.key, user_info->key, why);
    return url_error(why);
  }
  if (first_tls && !out.url.tls)
    return error(first_tls->s.key, first_tls->key,
                 "'" + first_tls->s.key +
                     "' is a TLS setting but the --schema-registry URL is http://; use "
                     "https:// or remove the line");
  if (certificate && !key_location)
    return error(certificate->s.key, certificate->key,
                 std::string(certificate_key) + " needs " + std::string(key_location_key) +
                     " (the client certificate's private key)");
  if (key_location && !certificate)
    return error(key_location->s.key, key_location->key,
                 std::string(key_location_key) + " needs " + std::string(certificate_key));
  if (key_password && !key_location)
    return error(key_password->s.key, key_password->key,
                 std::string(key_password_key) + " is given without " + std::string(key_location_key));
  return out;
}

}  // namespace streamt::kafka::registry
