// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/config.hpp"

#include <atomic>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace streamt::kafka {
namespace {

constexpr std::array<std::string_view, 15> owned_keys{
    "group.id",                       // the application id; the group is our identity
    "transactional.id",               // derived from the application id and instance
    "isolation.level",                // read_committed, or aborted output is read
    "enable.auto.commit",             // offsets are committed only inside the transaction
    "auto.commit.enable",             // librdkafka's alias of enable.auto.commit
    "enable.auto.offset.store",       // the engine stores offsets, after the output is produced
    "offset.store.method",            // "file" would keep offsets outside Kafka
    "enable.idempotence",             // required by transactions
    "acks",                           // idempotence requires all
    "request.required.acks",          // librdkafka's alias of acks
    "partitioner",                    // murmur2_random: keys land where Java puts them
    "auto.offset.reset",              // the engine decides what a missing offset means
    "partition.assignment.strategy",  // cooperative-sticky (classic), the broker's (consumer)
    "enable.partition.eof",           // the poll loop does not expect EOF events
    "group.instance.id",              // --static-membership derives it from the instance id
};

bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\f'; }

config_error syntax_error(std::size_t line, std::string message) {
  return {errc::properties_syntax, {}, line, "line " + std::to_string(line) + ": " + message};
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::optional<char32_t> hex4(std::string_view s, std::size_t at) {
  if (at + 4 > s.size()) return std::nullopt;
  char32_t v = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    const char c = s[i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= static_cast<char32_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= static_cast<char32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= static_cast<char32_t>(c - 'A' + 10);
    else
      return std::nullopt;
  }
  return v;
}

config_result<std::string> unescape(std::string_view s, std::size_t line) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (++i == s.size()) break;  // a lone trailing backslash escapes nothing
    switch (const char c = s[i]) {
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 'f':
        out += '\f';
        break;
      case 'u': {
        auto cp = hex4(s, i + 1);
        if (!cp) return syntax_error(line, "malformed \\uXXXX escape");
        i += 4;
        if (*cp >= 0xD800 && *cp <= 0xDBFF) {
          // A UTF-16 high surrogate must be followed by an escaped low one.
          const auto low =
              (i + 2 < s.size() && s[i + 1] == '\\' && s[i + 2] == 'u') ? hex4(s, i + 3) : std::nullopt;
          if (!low || *low < 0xDC00 || *low > 0xDFFF)
            return syntax_error(line, "unpaired UTF-16 surrogate in \\u escape");
          cp = 0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00);
          i += 6;
        } else if (*cp >= 0xDC00 && *cp <= 0xDFFF) {
          return syntax_error(line, "unpaired UTF-16 surrogate in \\u escape");
        }
        append_utf8(out, *cp);
        break;
      }
      default:
        out += c;
        break;
    }
  }
  return out;
}

struct logical_line {
  std::string text;
  std::size_t line = 0;  // where it started
  // Where each natural line joined into `text` starts: its offset in
  // `text`, its line and the column of its first character kept (leading
  // whitespace is dropped), so a position in `text` maps back to the file.
  struct piece {
    std::size_t offset = 0;
    std::size_t line = 0;
    std::size_t column = 0;
  };
  std::vector<piece> pieces;

  property_position position_of(std::size_t offset) const {
    const piece* at = &pieces.front();
    for (const piece& p : pieces)
      if (p.offset <= offset) at = &p;
    return {at->line, at->column + (offset - at->offset)};
  }
};

// Joins continuation lines and drops comments and blank lines.
std::vector<logical_line> logical_lines(std::string_view text) {
  std::vector<logical_line> lines;
  std::optional<logical_line> current;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = pos;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    std::string_view natural = text.substr(pos, end - pos);
    // \n, \r and \r\n each end one natural line.
    if (end + 1 < text.size() && text[end] == '\r' && text[end + 1] == '\n')
      pos = end + 2;
    else
      pos = end < text.size() ? end + 1 : end;
    ++line_no;
    std::size_t start = 0;
    while (start < natural.size() && is_space(natural[start])) ++start;
    natural.remove_prefix(start);
    if (!current) {
      if (natural.empty() || natural.front() == '#' || natural.front() == '!') continue;
      current = logical_line{{}, line_no, {}};
    }
    current->pieces.push_back({current->text.size(), line_no, start + 1});
    std::size_t backslashes = 0;
    while (backslashes < natural.size() && natural[natural.size() - 1 - backslashes] == '\\') ++backslashes;
    if (backslashes % 2 == 1) {
      current->text.append(natural.substr(0, natural.size() - 1));
      continue;
    }
    current->text.append(natural);
    lines.push_back(std::move(*current));
    current.reset();
  }
  if (current) lines.push_back(std::move(*current));
  return lines;
}

}  // namespace

std::span<const std::string_view> engine_owned_keys() noexcept { return owned_keys; }

bool is_engine_owned(std::string_view key) noexcept {
  for (auto k : owned_keys)
    if (k == key) return true;
  return false;
}

config_result<void> check_user_settings(const settings& user) {
  for (const auto& s : user) {
    if (is_engine_owned(s.key)) {
      return config_error{errc::engine_owned_setting, s.key, 0,
                          "setting '" + s.key +
                              "' is owned by the engine (exactly-once depends on its value) and cannot be "
                              "overridden with -X or --config"};
    }
  }
  if (auto p = group_protocol_of(user); !p) return p.error();
  return {};
}

config_result<group_protocol> group_protocol_of(const settings& user) {
  group_protocol chosen = group_protocol::classic;
  for (const auto& s : user) {
    if (s.key != "group.protocol") continue;
    // Any case, as the Java client reads it (and librdkafka matches it).
    std::string v(s.value);
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    if (v == "classic") {
      chosen = group_protocol::classic;
    } else if (v == "consumer") {
      chosen = group_protocol::consumer;
    } else {
      return config_error{errc::invalid_setting, s.key, 0,
                          "setting 'group.protocol' takes classic or consumer, not '" + redact(s) + "'"};
    }
  }
  // librdkafka before 2.4 does not know the key; 2.4 to 2.11 had KIP-848
  // in early access and preview, with contract changes still to come.
  if (chosen == group_protocol::consumer && rd_kafka_version() < 0x020c00ff)
    return config_error{
        errc::invalid_setting, "group.protocol", 0,
        std::string("group.protocol=consumer (KIP-848) needs librdkafka 2.12.0 or newer; this "
                    "build links librdkafka ") +
            rd_kafka_version_str() + ": leave group.protocol out (classic)"};
  return chosen;
}

bool is_secret(std::string_view key) noexcept {
  // By part of the name, in any case (SASL.PASSWORD is as secret as
  // sasl.password, and a mistyped key is still a secret to whoever typed
  // it), so that keys librdkafka adds later are covered too: sasl.password,
  // ssl.key.password (password); sasl.oauthbearer.client.secret (secret);
  // sasl.jaas.config (jaas); ssl.key.pem, ssl_key, ssl.keystore.key (key);
  // OAuth tokens (token); private-key passphrases (passphrase). Paths such
  // as ssl.key.location are withheld with them: a value pasted under the
  // wrong key must not be what leaks.
  constexpr std::array<std::string_view, 6> parts{"password", "secret", "passphrase", "jaas", "token", "key"};
  // Whole values that are credentials, whatever their name says.
  constexpr std::array<std::string_view, 2> exact{"sasl.oauthbearer.config", "sasl.oauthbearer.extensions"};
  std::array<char, 256> lower{};
  if (key.size() > lower.size()) return true;  // no librdkafka key is that long: withhold it
  for (std::size_t i = 0; i < key.size(); ++i)
    lower[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(key[i])));
  const std::string_view k(lower.data(), key.size());
  for (auto e : exact)
    if (e == k) return true;
  for (auto p : parts)
    if (k.find(p) != std::string_view::npos) return true;
  return false;
}

namespace {

// Every property name librdkafka has (global and topic), read once from its
// own table (rd_kafka_conf_properties_show, CONFIGURATION.md's rows:
// "name | C/P | ..."). rd_kafka_conf_get cannot tell: it answers "unknown"
// for a known string property that is not set.
std::set<std::string, std::less<>> librdkafka_property_names() {
  std::set<std::string, std::less<>> names;
  char* text = nullptr;
  std::size_t size = 0;
  FILE* out = ::open_memstream(&text, &size);
  if (!out) return names;
  rd_kafka_conf_properties_show(out);
  std::fclose(out);
  std::istringstream lines(std::string(text, size));
  std::free(text);
  for (std::string line; std::getline(lines, line);) {
    const auto bar = line.find('|');
    if (bar == std::string::npos) continue;
    std::string_view name(line.data(), bar);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name.empty() || name == "Property" || name.find_first_of(" -") == 0) continue;
    names.emplace(name);
  }
  return names;
}

}  // namespace

bool is_known_key(std::string_view key) {
  static const std::set<std::string, std::less<>> names = librdkafka_property_names();
  return names.find(key) != names.end();
}

bool shows_as_key(std::string_view key) {
  if (is_known_key(key)) return true;
  if (key.empty() || key.size() > 128 || key.find('.') == std::string_view::npos) return false;
  bool word_starts = true;
  for (char c : key) {
    if (c == '.') {
      if (word_starts) return false;  // an empty word
      word_starts = true;
      continue;
    }
    const bool lower = c >= 'a' && c <= 'z';
    const bool digit_or_joint = (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!lower && !(digit_or_joint && !word_starts)) return false;
    word_starts = false;
  }
  return !word_starts;
}

std::string shown_key(std::string_view key) {
  if (shows_as_key(key)) return "'" + std::string(key) + "'";
  return "a key that is no setting name (not shown: it may be a secret)";
}

std::string redact(std::string_view key, std::string_view value) {
  if (is_secret(key)) return "[redacted]";
  // A misspelled key (sasl.pasword) may hold what was meant for a secret
  // one: its value is not shown either.
  if (!is_known_key(key)) return "[withheld: not a librdkafka setting]";
  return std::string(value);
}

std::string redact(const setting& s) { return redact(s.key, s.reference.empty() ? s.value : s.reference); }

std::string redacted(const settings& s) {
  std::string out;
  for (const auto& kv : s) {
    if (!out.empty()) out += ' ';
    out += shows_as_key(kv.key) ? kv.key : std::string("[withheld: not a setting name]");
    out += '=';
    out += redact(kv);
  }
  return out;
}

namespace {

constexpr std::string_view env_prefix = "${env:";
constexpr std::string_view file_prefix = "${file:";

config_error reference_error(const std::string& key, std::string what) {
  return {errc::unresolved_reference, key, 0, "setting " + shown_key(key) + ": " + std::move(what)};
}

// The contents of `path` for ${file:PATH}, bounded, one line ending stripped.
config_result<std::string> read_reference_file(const std::string& key, const std::string& path) {
  const std::string where = std::string(file_prefix) + path + "}";
  // A directory opens on Linux and only fails when read, not always as badbit.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return reference_error(key, "cannot read " + where + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return reference_error(key, "cannot read " + where + ": " + std::strerror(errno));
  std::string data;
  char buf[4096];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    data.append(buf, static_cast<std::size_t>(in.gcount()));
    if (data.size() > max_reference_file_bytes)
      return reference_error(key, where + " holds more than " + std::to_string(max_reference_file_bytes) +
                                      " bytes; is it the right file?");
  }
  if (in.bad()) return reference_error(key, "cannot read " + where + ": " + std::strerror(errno));
  if (data.ends_with('\n')) {
    data.pop_back();
    if (data.ends_with('\r')) data.pop_back();
  }
  return data;
}

}  // namespace

bool has_reference(std::string_view value) noexcept {
  return value.find(env_prefix) != std::string_view::npos ||
         value.find(file_prefix) != std::string_view::npos;
}

config_result<void> resolve_references(settings& s) {
  for (auto& kv : s) {
    if (!has_reference(kv.value)) continue;
    std::string out;
    std::size_t pos = 0;
    while (pos < kv.value.size()) {
      const std::size_t env_at = kv.value.find(env_prefix, pos);
      const std::size_t file_at = kv.value.find(file_prefix, pos);
      const std::size_t at = std::min(env_at, file_at);
      if (at == std::string::npos) {
        out.append(kv.value, pos);
        break;
      }
      out.append(kv.value, pos, at - pos);
      const bool is_env = at == env_at;
      const std::string_view kind = is_env ? env_prefix : file_prefix;
      const std::size_t name_at = at + kind.size();
      const std::size_t close = kv.value.find('}', name_at);
      if (close == std::string::npos)
        return reference_error(kv.key, "a " + std::string(kind) + " reference has no closing '}'");
      const std::string name = kv.value.substr(name_at, close - name_at);
      if (name.empty())
        return reference_error(
            kv.key, "a " + std::string(kind) + "} reference names no " + (is_env ? "variable" : "file"));
      if (is_env) {
        const char* v = std::getenv(name.c_str());
        if (!v) return reference_error(kv.key, "environment variable " + name + " is not set");
        out += v;
      } else {
        auto contents = read_reference_file(kv.key, name);
        if (!contents) return contents.error();
        if (contents->find('\0') != std::string::npos)
          return reference_error(
              kv.key, std::string(file_prefix) + name + "} holds a NUL byte, which a setting can't");
        out += *contents;
      }
      pos = close + 1;
    }
    kv.reference = std::move(kv.value);
    kv.value = std::move(out);
  }
  return {};
}

config_result<void> apply(rd_kafka_conf_t* conf, const setting& s) {
  char errstr[512] = {};
  const auto r = rd_kafka_conf_set(conf, s.key.c_str(), s.value.c_str(), errstr, sizeof errstr);
  if (r == RD_KAFKA_CONF_OK) return {};
  std::string message = "setting " + shown_key(s.key) + ": ";
  // librdkafka's message can quote the value, and the key as given.
  if (!shows_as_key(s.key))
    message += "librdkafka has no such setting";
  else if (is_secret(s.key))
    message += "rejected by librdkafka (message withheld: the key holds a secret)";
  else if (!s.reference.empty())
    message += "rejected by librdkafka (message withheld: the value came from " + s.reference + ")";
  else
    message += errstr;
  return config_error{errc::invalid_setting, s.key, 0, std::move(message)};
}

namespace {
std::atomic<log_handler> installed_log_handler{nullptr};

void forward_log(const rd_kafka_t*, int level, const char* facility, const char* message) {
  if (log_handler h = installed_log_handler.load(std::memory_order_acquire)) h(level, facility, message);
}
}  // namespace

const settings& client_defaults() {
  // reconnect.backoff.ms: librdkafka 2.10 and later drop the bootstrap
  // broker's connection once the first metadata names the real brokers, and
  // a request already on it (the first metadata a new client asks for) is
  // sent again on a new connection only after the "sparse connect" pause,
  // half this value: 50 ms with librdkafka's default of 100. Every client of
  // a start pays it once (the producer's topic list, each plan log client),
  // which was a third of a start's time to its first output. With 20 the
  // pause is librdkafka's floor (11 ms); a broker that stays down is still
  // retried with exponential backoff up to reconnect.backoff.max.ms (10 s).
  static const settings defaults{{"reconnect.backoff.ms", "20"}};
  return defaults;
}

void set_log_handler(log_handler handler) noexcept {
  installed_log_handler.store(handler, std::memory_order_release);
}

config_result<conf_ptr> build_conf(const settings& engine, const settings& user, const settings& defaults) {
  if (auto r = check_user_settings(user); !r) return r.error();
  conf_ptr conf(rd_kafka_conf_new());
  if (installed_log_handler.load(std::memory_order_acquire))
    rd_kafka_conf_set_log_cb(conf.get(), &forward_log);
  for (const auto& s : client_defaults())
    if (auto r = apply(conf.get(), s); !r) return r.error();
  for (const auto& s : defaults)
    if (auto r = apply(conf.get(), s); !r) return r.error();
  for (const auto& s : user)
    if (auto r = apply(conf.get(), s); !r) return r.error();
  for (const auto& s : engine)
    if (auto r = apply(conf.get(), s); !r) return r.error();
  return conf;
}

config_result<setting> parse_setting(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == 0)
    return config_error{errc::invalid_setting, {}, 0, "expected key=value, got a value with no key"};
  if (eq == std::string_view::npos) {
    // Show no more than the key-like start of what was given: the rest may
    // be a secret typed with a space or a colon instead of the '='
    // (`-X 'sasl.password hunter2'`).
    std::size_t n = 0;
    while (n < text.size() && n < 64 &&
           (std::isalnum(static_cast<unsigned char>(text[n])) || text[n] == '.' || text[n] == '_' ||
            text[n] == '-'))
      ++n;
    const std::string shown(text.substr(0, n));
    // A lone word that is no setting name may be the secret itself (`-X
    // hunter2`, the key forgotten): nothing of it is shown.
    if (!shows_as_key(shown))
      return config_error{errc::invalid_setting,
                          {},
                          0,
                          "expected key=value, got " + std::to_string(text.size()) +
                              " characters with no '=' (not shown: they are no setting name, and may be a "
                              "secret)"};
    return config_error{errc::invalid_setting, shown, 0,
                        "expected key=value, got '" + shown + "'" +
                            (n < text.size() ? " followed by " + std::to_string(text.size() - n) +
                                                   " more characters (not shown: they may hold a secret)"
                                             : std::string()) +
                            " and no '='"};
  }
  return setting{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

config_result<std::vector<located_setting>> parse_located_properties(std::string_view text) {
  std::vector<located_setting> out;
  // The line of a secret key given no value (0: none; lines count from 1):
  // a lone word on the line right after it is most likely its value, split
  // off.
  std::size_t empty_secret_line = 0;
  for (const auto& l : logical_lines(text)) {
    const std::string_view s = l.text;
    std::size_t i = 0;
    while (i < s.size() && s[i] != '=' && s[i] != ':' && !is_space(s[i])) i += (s[i] == '\\') ? 2 : 1;
    if (i > s.size()) i = s.size();
    const std::string_view raw_key = s.substr(0, i);
    while (i < s.size() && is_space(s[i])) ++i;
    if (i < s.size() && (s[i] == '=' || s[i] == ':')) ++i;
    while (i < s.size() && is_space(s[i])) ++i;
    auto key = unescape(raw_key, l.line);
    if (!key) return key.error();
    if (key->empty()) return syntax_error(l.line, "empty key");
    auto value = unescape(s.substr(i), l.line);
    if (!value) return value.error();
    const bool lone_word = i >= s.size() && value->empty();
    if (lone_word && empty_secret_line != 0 && empty_secret_line + 1 == l.line)
      return syntax_error(l.line,
                          "a lone word right after " + out.back().s.key + " (line " +
                              std::to_string(empty_secret_line) +
                              ") was given no value: is its value split onto this line? Write KEY=VALUE "
                              "on one line (neither line is shown)");
    empty_secret_line = value->empty() && is_secret(*key) && shows_as_key(*key) ? l.line : 0;
    out.push_back({{std::move(*key), std::move(*value)}, l.position_of(0), l.position_of(i)});
  }
  return out;
}

config_result<settings> parse_properties(std::string_view text) {
  auto located = parse_located_properties(text);
  if (!located) return located.error();
  settings out;
  out.reserve(located->size());
  for (auto& l : *located) out.push_back(std::move(l.s));
  return out;
}

}  // namespace streamt::kafka
