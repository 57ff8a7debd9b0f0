// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/strict_json.hpp"

#include "plan/utf8.hpp"

#include "plan/json_support.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/error.hpp>
#include <boost/json/value_stack.hpp>

#include <string>
#include <unordered_set>
#include <vector>

namespace streamt::plan {

namespace {

using boost::json::error_code;
using boost::json::string_view;

constexpr std::size_t npos = static_cast<std::size_t>(-1);

// Builds the DOM through value_stack while tracking where it is (for the
// path of a duplicate) and which keys each open object already holds.
class strict_handler {
 public:
  static constexpr std::size_t max_object_size = boost::json::object::max_size();
  static constexpr std::size_t max_array_size = boost::json::array::max_size();
  static constexpr std::size_t max_key_size = boost::json::string::max_size();
  static constexpr std::size_t max_string_size = boost::json::string::max_size();

  strict_handler() { stack_.reset(); }

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }

  bool on_array_begin(error_code&) {
    frames_.push_back(frame{false, 0, {}, {}});
    return true;
  }
  bool on_array_end(std::size_t n, error_code&) {
    frames_.pop_back();
    stack_.push_array(n);
    element_done();
    return true;
  }
  bool on_object_begin(error_code&) {
    frames_.push_back(frame{true, 0, {}, {}});
    return true;
  }
  bool on_object_end(std::size_t n, error_code&) {
    frames_.pop_back();
    stack_.push_object(n);
    element_done();
    return true;
  }

  bool on_string_part(string_view s, std::size_t, error_code&) {
    stack_.push_chars(s);
    return true;
  }
  bool on_string(string_view s, std::size_t, error_code&) {
    stack_.push_string(s);
    element_done();
    return true;
  }
  bool on_key_part(string_view s, std::size_t, error_code&) {
    key_.append(s.data(), s.size());
    stack_.push_chars(s);
    return true;
  }
  bool on_key(string_view s, std::size_t, error_code& ec) {
    key_.append(s.data(), s.size());
    frame& f = frames_.back();
    if (!f.keys.insert(key_).second) {
      duplicate_path_ = detail::path_key(path_to(frames_.size() - 1), key_);
      duplicate_key_ = key_;
      ec = boost::json::error::syntax;
      return false;
    }
    f.key = key_;
    key_.clear();
    stack_.push_key(s);
    return true;
  }

  bool on_number_part(string_view, error_code&) { return true; }
  bool on_int64(std::int64_t i, string_view, error_code&) {
    stack_.push_int64(i);
    element_done();
    return true;
  }
  bool on_uint64(std::uint64_t u, string_view, error_code&) {
    stack_.push_uint64(u);
    element_done();
    return true;
  }
  bool on_double(double d, string_view, error_code&) {
    stack_.push_double(d);
    element_done();
    return true;
  }
  bool on_bool(bool b, error_code&) {
    stack_.push_bool(b);
    element_done();
    return true;
  }
  bool on_null(error_code&) {
    stack_.push_null();
    element_done();
    return true;
  }
  // Comments are disabled in the parse options, so these are never called.
  bool on_comment_part(string_view, error_code&) { return true; }
  bool on_comment(string_view, error_code&) { return true; }

  boost::json::value release() { return stack_.release(); }
  const std::string& duplicate_path() const noexcept { return duplicate_path_; }
  const std::string& duplicate_key() const noexcept { return duplicate_key_; }

 private:
  struct frame {
    bool is_object;
    std::size_t index;  // arrays: the element being parsed
    std::string key;    // objects: the member being parsed
    std::unordered_set<std::string> keys;
  };

  void element_done() noexcept {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().index;
  }

  // The path of the value that frames_[count - 1] is positioned on.
  std::string path_to(std::size_t count) const {
    std::string p = "$";
    for (std::size_t i = 0; i < count; ++i)
      p = frames_[i].is_object ? detail::path_key(p, frames_[i].key)
                               : detail::path_index(p, frames_[i].index);
    return p;
  }

  boost::json::value_stack stack_;
  std::vector<frame> frames_;
  std::string key_;
  std::string duplicate_path_;
  std::string duplicate_key_;
};

// Where the key string that ends at or before `offset` starts: Boost stops
// after a duplicate key, but the user wants to be pointed at the key itself.
std::size_t key_start(std::string_view text, std::size_t offset) noexcept {
  if (text.empty()) return 0;
  std::size_t j = offset < text.size() ? offset : text.size() - 1;
  while (j > 0 && text[j] != '"') --j;
  // A quote inside a string is always escaped by an odd run of backslashes;
  // the opening quote follows `{` or `,` (and whitespace), never a backslash.
  for (std::size_t k = j; k-- > 0;) {
    if (text[k] != '"') continue;
    std::size_t slashes = 0;
    while (k >= slashes + 1 && text[k - slashes - 1] == '\\') ++slashes;
    if (slashes % 2 == 0) return k;
  }
  return offset;
}

std::string describe_byte(char ch) {
  auto c = static_cast<unsigned char>(ch);
  static constexpr char hex[] = "0123456789ABCDEF";
  if (c >= 0x20 && c < 0x7F) return std::string("'") + ch + "'";
  std::string s = "byte 0x";
  s += hex[c >> 4];
  s += hex[c & 0xF];
  if (c < 0x20) s += " (a control character: inside a string it must be escaped)";
  return s;
}

diagnostic at(std::string_view text, std::size_t offset, streamt::phase ph, std::string code,
              std::string message) {
  auto pos = position_at(text, offset);
  diagnostic d = detail::error(ph, std::move(code), {}, std::move(message));
  d.line = pos.line;
  d.column = pos.column;
  return d;
}

std::string syntax_message(std::string_view text, std::size_t offset, const error_code& ec) {
  if (ec == boost::json::error::incomplete) {
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return "the document is empty";
    return "the document ends before it is complete (an unclosed string, array or object?)";
  }
  if (offset >= text.size()) return ec.message();
  char c = text[offset];
  if (c == '/') return "comments are not allowed in JSON";
  if (c == ']' || c == '}') {
    std::size_t prev = text.find_last_not_of(" \t\r\n", offset == 0 ? 0 : offset - 1);
    if (offset > 0 && prev != std::string_view::npos && text[prev] == ',')
      return std::string("a trailing comma before '") + c + "' is not allowed";
  }
  return "unexpected " + describe_byte(c) + " (" + ec.message() + ")";
}

}  // namespace

text_position position_at(std::string_view text, std::size_t offset) noexcept {
  if (offset > text.size()) offset = text.size();
  text_position pos;
  for (std::size_t i = 0; i < offset; ++i) {
    char c = text[i];
    if (c == '\n') {
      ++pos.line;
      pos.column = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++pos.column;
    }
  }
  return pos;
}

result<boost::json::value> parse_strict_json(std::string_view text, streamt::phase what,
                                             std::size_t max_depth) {
  const std::string doc = to_string(what);
  if (text.size() > max_document_bytes)
    return at(text, max_document_bytes, what, "too_large",
              "the " + doc + " is " + std::to_string(text.size()) + " bytes; at most " +
                  std::to_string(max_document_bytes) + " bytes are accepted (a " + doc +
                  " is a few kilobytes: is this the right file?)");

  if (std::size_t bad = first_invalid_utf8(text); bad != npos)
    return at(text, bad, what, "malformed_json",
              "malformed " + doc + " JSON: invalid UTF-8 at " + describe_byte(text[bad]) +
                  "; the document must be UTF-8 text");

  boost::json::parse_options opt;
  opt.max_depth = max_depth;
  opt.allow_comments = false;
  opt.allow_trailing_commas = false;
  opt.allow_invalid_utf8 = false;
  boost::json::basic_parser<strict_handler> parser(opt);
  error_code ec;
  std::size_t n = parser.write_some(false, text.data(), text.size(), ec);
  if (ec) {
    const auto& h = parser.handler();
    if (!h.duplicate_path().empty()) {
      diagnostic d = at(text, key_start(text, n), what, "duplicate_key",
                        "malformed " + doc + " JSON: duplicate key " + detail::quote(h.duplicate_key()) +
                            " at " + h.duplicate_path() + "; a key may appear only once in an object");
      d.path = h.duplicate_path();
      return d;
    }
    if (ec == boost::json::error::too_deep)
      return at(
          text, n, what, "too_deep",
          "the " + doc + " nests arrays and objects more than " + std::to_string(max_depth) +
              (max_depth == max_document_depth
                   ? " levels deep (ROW columns nested 16 deep, the most a schema may declare, need 34: "
                     "is this the right file?)"
                   : " levels deep; is this the right file?"));
    return at(text, n, what, "malformed_json", "malformed " + doc + " JSON: " + syntax_message(text, n, ec));
  }
  if (n < text.size())
    return at(text, n, what, "malformed_json",
              "malformed " + doc + " JSON: unexpected " + describe_byte(text[n]) +
                  " after the end of the document; a file holds exactly one JSON document");
  return parser.handler().release();
}

}  // namespace streamt::plan
