#include "operators/decode.hpp"

#include "plan/utf8.hpp"

#include "operators/encode.hpp"

#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

namespace streamt::operators {

decode_definition::decode_definition(const plan::schema& s, std::size_t max_value_bytes)
    : columns_(s.columns), max_value_bytes_(max_value_bytes) {}

std::optional<std::size_t> decode_definition::find(std::string_view key, std::size_t hint) const noexcept {
  // Length and first byte first: most mismatches end there, without a call to memcmp.
  auto same = [key](const std::string& name) {
    return name.size() == key.size() &&
           (key.empty() || (name[0] == key[0] && std::memcmp(name.data(), key.data(), key.size()) == 0));
  };
  if (hint < columns_.size() && same(columns_[hint].name)) return hint;
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (same(columns_[i].name)) return i;
  return std::nullopt;
}

namespace {

namespace json = boost::json;

enum class failure {
  none,
  not_an_object,
  unknown_field,
  duplicate_field,
  missing_column,
  unexpected_null,
  wrong_type,
  bigint_out_of_range,
};

// What the parser had just read when the handler refused it. Boost.JSON
// reports a handler failure at a token-dependent place (a string's closing
// quote, the end of a number, the first byte of a literal or bracket), so the
// offset of the token's first byte is recovered from it afterwards: tracking
// positions during the parse would cost every record, failures are rare.
enum class token { key, string, number, other };

// Runs inside basic_parser. Depth 0 is outside the top-level object, depth 1
// inside it; any nested object or array is refused where it begins, so the
// parse never goes deeper and an unknown or wrongly typed subtree is never
// walked.
class handler {
 public:
  static constexpr std::size_t max_object_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_array_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_key_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_string_size = std::numeric_limits<std::size_t>::max();

  void start(const decode_definition& def, row& out) {
    def_ = &def;
    row_ = &out;
    depth_ = 0;
    seen_count_ = 0;
    seen_.assign(def.column_count(), 0);
    current_ = 0;
    in_string_ = false;
    key_.clear();
    number_.clear();
    failure_ = failure::none;
    text_.clear();
  }

  failure failed() const noexcept { return failure_; }
  token failed_token() const noexcept { return failed_token_; }
  std::size_t failed_column() const noexcept { return current_; }
  std::string_view found() const noexcept { return found_; }
  const std::string& failed_text() const noexcept { return text_; }

  // The first declared column absent from a complete object.
  std::size_t first_missing() const noexcept {
    auto it = std::find(seen_.begin(), seen_.end(), 0);
    return static_cast<std::size_t>(it - seen_.begin());
  }

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }

  bool on_object_begin(json::error_code& ec) {
    if (depth_ == 0) {
      depth_ = 1;
      return true;
    }
    return refuse_value(ec, "an object", token::other);
  }

  bool on_object_end(std::size_t, json::error_code& ec) {
    depth_ = 0;
    if (seen_count_ == seen_.size()) return true;
    current_ = first_missing();
    return fail(ec, failure::missing_column, token::other);
  }

  bool on_array_begin(json::error_code& ec) { return refuse_value(ec, "an array", token::other); }
  // Unreachable: every array is refused where it begins.
  bool on_array_end(std::size_t, json::error_code&) { return true; }

  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    key_.append(s.data(), s.size());
    return true;
  }

  bool on_key(json::string_view s, std::size_t, json::error_code& ec) {
    std::string_view key(s.data(), s.size());
    if (!key_.empty()) {
      key_.append(s.data(), s.size());
      key = key_;
    }
    auto column = def_->find(key, seen_count_);
    if (!column) {
      text_.assign(key);
      key_.clear();
      return fail(ec, failure::unknown_field, token::key);
    }
    key_.clear();
    current_ = *column;
    if (seen_[current_]) return fail(ec, failure::duplicate_field, token::key);
    seen_[current_] = 1;
    ++seen_count_;
    return true;
  }

  // Parts of a string arrive when it holds escapes or is very long. A
  // non-STRING column ignores them and refuses the string once it is complete,
  // so the failure is always reported at the same place.
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
    if (depth_ != 1 || def_->column(current_).type != plan::column_type::string) return true;
    auto& slot = row_->slots[current_];
    if (!in_string_) {
      slot.string.clear();
      in_string_ = true;
    }
    slot.string.append(s.data(), s.size());
    return true;
  }

  bool on_string(json::string_view s, std::size_t, json::error_code& ec) {
    if (depth_ != 1 || def_->column(current_).type != plan::column_type::string)
      return refuse_value(ec, "a string", token::string);
    auto& slot = row_->slots[current_];
    if (in_string_) {
      slot.string.append(s.data(), s.size());
      in_string_ = false;
    } else {
      slot.string.assign(s.data(), s.size());
    }
    slot.is_null = false;
    return true;
  }

  // Only when the input ends inside a number, which a complete value given in
  // one call cannot do before the end; kept so the number's text is whole.
  bool on_number_part(json::string_view s, json::error_code&) {
    number_.append(s.data(), s.size());
    return true;
  }

  bool on_int64(std::int64_t i, json::string_view s, json::error_code& ec) {
    if (depth_ != 1 || def_->column(current_).type != plan::column_type::bigint)
      return refuse_number(ec, "a number", s);
    number_.clear();
    auto& slot = row_->slots[current_];
    slot.bigint = i;
    slot.is_null = false;
    return true;
  }

  // Boost.JSON reports integers above INT64_MAX as uint64 (up to UINT64_MAX).
  bool on_uint64(std::uint64_t, json::string_view s, json::error_code& ec) {
    if (depth_ != 1 || def_->column(current_).type != plan::column_type::bigint)
      return refuse_number(ec, "a number", s);
    return out_of_range(ec, s);
  }

  // Fractions, exponents, and integers outside both int64 and uint64 (such as
  // -9223372036854775809) all arrive as doubles; only the text tells them apart.
  bool on_double(double, json::string_view s, json::error_code& ec) {
    if (depth_ != 1 || def_->column(current_).type != plan::column_type::bigint)
      return refuse_number(ec, "a number", s);
    std::string_view text(s.data(), s.size());
    if (text.find_first_of(".eE") == std::string_view::npos &&
        number_.find_first_of(".eE") == std::string::npos)
      return out_of_range(ec, s);
    return refuse_number(ec, "a number with a fraction or exponent", s);
  }

  bool on_bool(bool b, json::error_code& ec) {
    if (depth_ != 1 || def_->column(current_).type != plan::column_type::boolean)
      return refuse_value(ec, "a boolean", token::other);
    auto& slot = row_->slots[current_];
    slot.boolean = b;
    slot.is_null = false;
    return true;
  }

  bool on_null(json::error_code& ec) {
    if (depth_ != 1) return refuse_value(ec, "null", token::other);
    if (!def_->column(current_).nullable) return fail(ec, failure::unexpected_null, token::other);
    row_->slots[current_].is_null = true;
    return true;
  }

  // Comments are disabled in the parse options; these are never called.
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

 private:
  bool refuse_value(json::error_code& ec, std::string_view found, token t) {
    found_ = found;
    return fail(ec, depth_ == 0 ? failure::not_an_object : failure::wrong_type, t);
  }

  bool refuse_number(json::error_code& ec, std::string_view found, json::string_view s) {
    text_ = number_;
    text_.append(s.data(), s.size());
    return refuse_value(ec, found, token::number);
  }

  bool out_of_range(json::error_code& ec, json::string_view s) {
    text_ = number_;
    text_.append(s.data(), s.size());
    return fail(ec, failure::bigint_out_of_range, token::number);
  }

  bool fail(json::error_code& ec, failure f, token t) {
    failure_ = f;
    failed_token_ = t;
    // Any error stops the parser; which one does not matter, failure_ says why.
    ec = json::error::exception;
    return false;
  }

  const decode_definition* def_ = nullptr;
  row* row_ = nullptr;
  int depth_ = 0;
  std::size_t seen_count_ = 0;
  std::vector<unsigned char> seen_;  // bytes, not vector<bool>: cheaper to test and set
  std::size_t current_ = 0;
  bool in_string_ = false;
  std::string key_;     // a key that arrived in parts
  std::string number_;  // a number that arrived in parts
  failure failure_ = failure::none;
  token failed_token_ = token::other;
  std::string_view found_;
  std::string text_;  // the offending key or number, for the message
};

bool is_hex(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// True if the backslash at `pos` starts an escape (it is not itself escaped).
bool starts_escape(std::string_view s, std::size_t pos) noexcept {
  std::size_t run = 0;
  while (run < pos && s[pos - 1 - run] == '\\') ++run;
  return run % 2 == 0;
}

// True if s[pos..pos+6) is an escape \uD800-\uDFFF.
bool surrogate_escape_at(std::string_view s, std::size_t pos) noexcept {
  if (pos + 6 > s.size() || s[pos] != '\\' || s[pos + 1] != 'u') return false;
  char d = s[pos + 2], x = s[pos + 3];
  if (d != 'd' && d != 'D') return false;
  if (!((x >= '8' && x <= '9') || (x >= 'a' && x <= 'f') || (x >= 'A' && x <= 'F'))) return false;
  return is_hex(s[pos + 4]) && is_hex(s[pos + 5]) && starts_escape(s, pos);
}

// The surrogate escape that made Boost.JSON stop near `n`: it reports the
// position just after a lone leading surrogate, or inside the escape that
// should have been its trailing half.
std::size_t surrogate_offset(std::string_view s, std::size_t n) noexcept {
  std::size_t p = std::min(n, s.size());
  for (std::size_t back = 0; back <= 12 && p > 0; ++back) {
    --p;
    if (surrogate_escape_at(s, p)) {
      if (p >= 6 && surrogate_escape_at(s, p - 6)) return p - 6;
      return p;
    }
  }
  return std::string_view::npos;
}

// First byte of the token the handler refused; see `token`.
std::size_t token_start(std::string_view s, std::size_t n, token t) noexcept {
  if (n >= s.size()) n = s.size() == 0 ? 0 : s.size() - 1;
  switch (t) {
    case token::key:
    case token::string:
      // n is the closing quote; the opening one is the previous quote that is
      // not escaped (the parser has just accepted the string, so there is one).
      for (std::size_t p = n; p > 0; --p)
        if (s[p - 1] == '"' && starts_escape(s, p - 1)) return p - 1;
      return n;
    case token::number: {
      std::size_t p = n;
      while (p > 0 && std::string_view("0123456789+-.eE").find(s[p - 1]) != std::string_view::npos) --p;
      return p;
    }
    case token::other:
      return n;
  }
  return n;
}

void set_error(diagnostic& d, std::string_view code, std::string message) {
  d.phase = phase::record;
  d.code.assign(code);
  d.line = 0;
  d.column = 0;
  d.path.clear();
  d.message = std::move(message);
}

// 'name' for messages: JSON-escaped so control characters stay visible, and
// cut (at a character boundary) so a huge key cannot flood the log.
std::string quoted(std::string_view s) {
  constexpr std::size_t limit = 64;
  bool cut = s.size() > limit;
  if (cut) {
    std::size_t end = limit;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    s = s.substr(0, end);
  }
  std::string out = "'";
  append_escaped(out, s);
  if (cut) out += "...";
  out += '\'';
  return out;
}

std::string at_byte(std::size_t offset) { return " at byte " + std::to_string(offset); }

std::string column_name(const decode_definition& def, std::size_t i) { return quoted(def.column(i).name); }

void report_refusal(const decode_definition& def, const handler& h, std::string_view value, std::size_t n,
                    diagnostic& error) {
  std::size_t offset = token_start(value, n, h.failed_token());
  switch (h.failed()) {
    case failure::not_an_object:
      set_error(error, "not_an_object", "value is " + std::string(h.found()) + ", expected a JSON object");
      return;
    case failure::unknown_field:
      set_error(error, "unknown_field", "unknown field " + quoted(h.failed_text()) + at_byte(offset));
      return;
    case failure::duplicate_field:
      set_error(error, "duplicate_field",
                "duplicate field " + column_name(def, h.failed_column()) + at_byte(offset));
      return;
    case failure::missing_column:
      set_error(error, "missing_column", "column " + column_name(def, h.failed_column()) + " is missing");
      return;
    case failure::unexpected_null:
      set_error(
          error, "unexpected_null",
          "column " + column_name(def, h.failed_column()) + " is not nullable, found null" + at_byte(offset));
      return;
    case failure::wrong_type: {
      const auto& col = def.column(h.failed_column());
      std::string found(h.found());
      if (!h.failed_text().empty() && h.failed_token() == token::number)
        found += " (" + h.failed_text() + ")";
      set_error(error, "wrong_type",
                "column " + quoted(col.name) + " expects " + std::string(plan::to_string(col.type)) +
                    ", found " + found + at_byte(offset));
      return;
    }
    case failure::bigint_out_of_range:
      set_error(error, "bigint_out_of_range",
                "column " + column_name(def, h.failed_column()) + " expects BIGINT, found " +
                    h.failed_text() + at_byte(offset) + ", outside the signed 64-bit range");
      return;
    case failure::none:
      break;
  }
}

void report_parse_error(const json::error_code& ec, std::string_view value, std::size_t n,
                        diagnostic& error) {
  if (ec == json::error::illegal_leading_surrogate || ec == json::error::illegal_trailing_surrogate ||
      ec == json::error::expected_utf16_escape ||
      (ec == json::error::syntax && surrogate_offset(value, n) != std::string_view::npos &&
       surrogate_offset(value, n) + 6 == std::min(n, value.size()))) {
    std::size_t offset = surrogate_offset(value, n);
    set_error(error, "invalid_utf8",
              "\\u escape of a lone UTF-16 surrogate" +
                  (offset == std::string_view::npos ? std::string() : at_byte(offset)) +
                  " is not valid Unicode");
    return;
  }
  // Boost.JSON reports bad UTF-8 as a plain syntax error at the offending byte.
  std::size_t bad = plan::first_invalid_utf8(value);
  if (bad != std::string_view::npos && bad <= n) {
    set_error(error, "invalid_utf8", "invalid UTF-8" + at_byte(bad));
    return;
  }
  if (ec == json::error::incomplete) {
    set_error(error, "malformed_json", "malformed JSON: the value ends inside the document" + at_byte(n));
    return;
  }
  set_error(error, "malformed_json", "malformed JSON" + at_byte(n) + " (" + ec.message() + ")");
}

void report_trailing(std::string_view value, std::size_t n, diagnostic& error) {
  // A second document is the likeliest trailing data (two values concatenated
  // by a producer bug): say so when the next byte could start one.
  char c = value[n];
  bool document = std::string_view("{[\"-0123456789tfn").find(c) != std::string_view::npos;
  set_error(error, "trailing_data",
            (document ? "a second JSON document" : "trailing data") + at_byte(n) + " after the object");
}

}  // namespace

struct decode_state::impl {
  impl() : parser(json::parse_options{}) {}
  json::basic_parser<handler> parser;
};

decode_state::decode_state() : impl_(std::make_unique<impl>()) {}
decode_state::~decode_state() = default;
decode_state::decode_state(decode_state&&) noexcept = default;
decode_state& decode_state::operator=(decode_state&&) noexcept = default;

bool decode(const decode_definition& def, decode_state& state, std::string_view value, row& out,
            diagnostic& error) {
  if (value.empty()) {
    set_error(error, "empty_value", "value is empty (zero bytes); only a null value is a tombstone");
    return false;
  }
  // Before parsing: the cost of refusing an oversized value must not grow
  // with its size.
  if (value.size() > def.max_value_bytes()) {
    set_error(error, "value_too_large",
              "value is " + std::to_string(value.size()) + " bytes, over the limit of " +
                  std::to_string(def.max_value_bytes()) +
                  " bytes per record value; producers must keep values below it (split large records)");
    return false;
  }
  if (out.slots.size() != def.column_count()) out.slots.resize(def.column_count());
  auto& parser = state.impl_->parser;
  parser.reset();
  parser.handler().start(def, out);
  json::error_code ec;
  std::size_t n = parser.write_some(false, value.data(), value.size(), ec);
  const handler& h = parser.handler();
  if (h.failed() != failure::none) {
    report_refusal(def, h, value, n, error);
    return false;
  }
  if (ec) {
    report_parse_error(ec, value, n, error);
    return false;
  }
  if (n < value.size()) {
    report_trailing(value, n, error);
    return false;
  }
  return true;
}

}  // namespace streamt::operators
