// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/sql/lexer.hpp"

#include "plan/utf8.hpp"

#include "plan/sql/keywords.hpp"

#include <cstdint>
#include <cstdio>

namespace streamt::plan::sql {

diagnostic make_diagnostic(streamt::phase ph, std::string code, position at, std::string message) {
  diagnostic d;
  d.phase = ph;
  d.code = std::move(code);
  d.line = at.line;
  d.column = at.column;
  d.message = std::move(message);
  return d;
}

std::string describe(const token& t) {
  switch (t.kind) {
    case token_kind::end:
      return "the end of the statement";
    case token_kind::string:
      return "the string " + std::string(t.text);
    case token_kind::integer:
    case token_kind::decimal:
      return "the number " + std::string(t.text);
    default:
      return "'" + std::string(t.text) + "'";
  }
}

namespace {

bool is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

std::string code_point_name(std::uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

class lexer {
 public:
  explicit lexer(std::string_view sql) : sql_(sql) {}

  result<std::vector<token>> run() {
    if (auto r = validate_utf8(); !r) return r.error();
    std::vector<token> out;
    for (;;) {
      skip_whitespace();
      if (i_ >= sql_.size()) {
        token t;
        t.kind = token_kind::end;
        t.pos = here();
        out.push_back(std::move(t));
        return out;
      }
      auto t = next();
      if (!t) return t.error();
      out.push_back(std::move(*t));
    }
  }

 private:
  position here() const { return pos_; }

  char peek(std::size_t k = 0) const { return i_ + k < sql_.size() ? sql_[i_ + k] : '\0'; }

  // True when the byte just before the cursor ends a name (or a number),
  // so that a '.' here separates path segments.
  bool after_name() const {
    if (i_ == 0) return false;
    const char c = sql_[i_ - 1];
    return is_alpha(c) || is_digit(c) || c == '"';
  }

  // Moves over `n` bytes, keeping line and column (in code points) current.
  void advance(std::size_t n) {
    for (std::size_t k = 0; k < n && i_ < sql_.size(); ++k, ++i_) {
      const auto b = static_cast<unsigned char>(sql_[i_]);
      if (b == '\n') {
        ++pos_.line;
        pos_.column = 1;
      } else if (!is_continuation(b)) {
        ++pos_.column;
      }
    }
    pos_.offset = i_;
  }

  // Done once up front so that every later phase can treat the text as
  // valid UTF-8 and count columns in code points.
  result<void> validate_utf8() {
    position p;
    std::size_t i = 0;
    while (i < sql_.size()) {
      std::uint32_t cp = 0;
      const std::size_t n = utf8_sequence_length(sql_, i, cp);
      if (n == 0) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(sql_[i])));
        p.offset = i;
        return make_diagnostic(
            phase::lex, "invalid_utf8", p,
            std::string("invalid UTF-8 byte ") + buf + "; the SQL text must be valid UTF-8");
      }
      if (cp == '\n') {
        ++p.line;
        p.column = 1;
      } else {
        ++p.column;
      }
      i += n;
    }
    return {};
  }

  void skip_whitespace() {
    while (i_ < sql_.size()) {
      const char c = sql_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        advance(1);
      } else {
        break;
      }
    }
  }

  token make(token_kind kind, std::size_t start, position at, std::string word = {}) {
    token t;
    t.kind = kind;
    t.text = sql_.substr(start, i_ - start);
    t.word = std::move(word);
    t.pos = at;
    return t;
  }

  token simple(token_kind kind, std::size_t length) {
    const std::size_t start = i_;
    const position at = here();
    advance(length);
    return make(kind, start, at);
  }

  diagnostic error(std::string code, position at, std::string message) const {
    return make_diagnostic(phase::lex, std::move(code), at, std::move(message));
  }

  result<token> next() {
    const char c = peek();
    const position at = here();
    if (is_alpha(c)) return word();
    if (is_digit(c)) return number();
    switch (c) {
      case '\'':
        return string_literal();
      case '"':
        return quoted_identifier();
      case '`':
        return backquoted_identifier();
      case ',':
        return simple(token_kind::comma, 1);
      case ';':
        return simple(token_kind::semicolon, 1);
      case '(':
        return simple(token_kind::lparen, 1);
      case ')':
        return simple(token_kind::rparen, 1);
      case '*':
        return simple(token_kind::star, 1);
      case '.':
        // ".5" is a number (refused with a hint); "a.5" or "\"a\".5" is a path
        // whose segment is not a name, which the parser explains.
        if (is_digit(peek(1)) && !after_name()) return number();
        return simple(token_kind::dot, 1);
      case '-':
        if (peek(1) == '-')
          return error("comment_not_supported", at,
                       "comments ('--') are not supported; remove the comment from the query text");
        return simple(token_kind::minus, 1);
      case '/':
        if (peek(1) == '*')
          return error("comment_not_supported", at,
                       "comments ('/* */') are not supported; remove the comment from the query text");
        return simple(token_kind::operator_, 1);
      case '=':
        if (peek(1) == '=') return simple(token_kind::eq_eq, 2);
        return simple(token_kind::eq, 1);
      case '<':
        if (peek(1) == '=') return simple(token_kind::le, 2);
        if (peek(1) == '>') return simple(token_kind::ne, 2);
        return simple(token_kind::lt, 1);
      case '>':
        if (peek(1) == '=') return simple(token_kind::ge, 2);
        return simple(token_kind::gt, 1);
      case '!':
        if (peek(1) == '=') return simple(token_kind::bang_eq, 2);
        return simple(token_kind::operator_, 1);
      case '|':
        if (peek(1) == '|') return simple(token_kind::operator_, 2);
        return simple(token_kind::operator_, 1);
      case ':':
        if (peek(1) == ':') return simple(token_kind::operator_, 2);
        break;
      case '+':
      case '%':
      case '&':
      case '^':
      case '~':
        return simple(token_kind::operator_, 1);
      default:
        break;
    }
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x80) {
      std::uint32_t cp = 0;
      utf8_sequence_length(sql_, i_, cp);
      return error("non_ascii", at,
                   "non-ASCII character " + code_point_name(cp) +
                       " outside a string literal or a quoted name; an unquoted name is ASCII "
                       "([A-Za-z_][A-Za-z0-9_]*), any other is written in double quotes (\"name\") and "
                       "strings use ASCII single quotes");
    }
    const std::string shown = (b < 0x20 || b == 0x7F) ? code_point_name(b) : "'" + std::string(1, c) + "'";
    return error("unexpected_character", at,
                 "unexpected character " + shown +
                     "; the subset uses only names (double-quoted when they hold other characters), "
                     "number and single-quoted string literals, "
                     "',', ';', '(', ')' and the operators = <> < <= > >=");
  }

  result<token> word() {
    const std::size_t start = i_;
    const position at = here();
    while (is_alpha(peek()) || is_digit(peek())) advance(1);
    const std::string_view text = sql_.substr(start, i_ - start);
    if (is_keyword(text)) {
      std::string upper(text);
      for (char& ch : upper)
        if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
      return make(token_kind::keyword, start, at, std::move(upper));
    }
    return make(token_kind::identifier, start, at, std::string(text));
  }

  // A number: digits, an optional fraction (a point and at least one
  // digit) and an optional exponent (e or E, an optional sign, digits).
  // Digits alone are an integer; with a fraction or an exponent the token is
  // a decimal number whose exact text the binder reads against the column's
  // type, so nothing is rounded here. Letters or digits running on are lexed
  // into the same span so that the message quotes what the user wrote
  // ("12abc", "0x10"). A point needs digits on both sides: "1." and ".5"
  // are refused with the spelling to use rather than read, because a stray
  // point next to a path (after.amount) is more likely a typo than a number.
  result<token> number() {
    const std::size_t start = i_;
    const position at = here();
    if (peek() == '.') {
      advance(1);
      while (is_digit(peek())) advance(1);
      const std::string text(sql_.substr(start, i_ - start));
      return error("malformed_number", at,
                   "number " + text + " needs a digit before the point; write 0" + text);
    }
    bool fractional = false;
    bool exponent = false;
    while (is_digit(peek())) advance(1);
    if (peek() == '.') {
      fractional = true;
      advance(1);
      if (!is_digit(peek())) {
        const std::string text(sql_.substr(start, i_ - start));
        return error("malformed_number", at,
                     "number " + text + " needs a digit after the point; write " + text + "0 or " +
                         text.substr(0, text.size() - 1));
      }
      while (is_digit(peek())) advance(1);
    }
    if ((peek() == 'e' || peek() == 'E') &&
        (is_digit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && is_digit(peek(2))))) {
      exponent = true;
      advance(2);
      while (is_digit(peek())) advance(1);
    }
    bool junk = false;
    while (is_alpha(peek()) || is_digit(peek())) {
      junk = true;
      advance(1);
    }
    const std::string text(sql_.substr(start, i_ - start));
    if (junk)
      return error("malformed_number", at,
                   "'" + text +
                       "' is not a number or a name; a number is decimal digits with an optional fraction "
                       "and exponent (12, 12.5, 1.5e3) and names cannot start with a digit");
    return make(fractional || exponent ? token_kind::decimal : token_kind::integer, start, at, text);
  }

  result<token> string_literal() {
    const std::size_t start = i_;
    const position at = here();
    advance(1);
    std::string value;
    for (;;) {
      if (i_ >= sql_.size())
        return error("unterminated_string", at,
                     "string literal is not terminated; close it with ' (write '' for a quote inside)");
      const char c = peek();
      if (c == '\'') {
        if (peek(1) == '\'') {
          value += '\'';
          advance(2);
          continue;
        }
        advance(1);
        return make(token_kind::string, start, at, std::move(value));
      }
      value += c;
      advance(1);
    }
  }

  // A double-quoted name: any UTF-8 between the quotes, `""` standing for
  // one quote, taken exactly (case and all). It is a name and nothing else,
  // so quoting adds no construct to the subset: `"order"` is a column, never
  // the keyword.
  result<token> quoted_identifier() {
    const std::size_t start = i_;
    const position at = here();
    advance(1);
    std::string name;
    for (;;) {
      if (i_ >= sql_.size())
        return error("unterminated_identifier", at,
                     "double-quoted name is not terminated; close it with \" (write \"\" for a quote "
                     "inside); string literals use single quotes");
      if (peek() == '"') {
        if (peek(1) == '"') {
          name += '"';
          advance(2);
          continue;
        }
        advance(1);
        break;
      }
      name += peek();
      advance(1);
    }
    if (name.empty())
      return error("empty_identifier", at,
                   "\"\" is an empty name; a quoted name holds at least one character");
    if (name.size() > max_name_bytes)
      return error("name_too_long", at,
                   "the quoted name is " + std::to_string(name.size()) + " bytes; names are at most " +
                       std::to_string(max_name_bytes) + " bytes");
    token t = make(token_kind::identifier, start, at, std::move(name));
    t.quoted = true;
    return t;
  }

  // Backquotes are MySQL's; the subset quotes names the standard way.
  result<token> backquoted_identifier() {
    const position at = here();
    const std::size_t close = sql_.find('`', i_ + 1);
    std::string message = "backquoted names are not supported";
    if (close != std::string_view::npos && close > i_ + 1) {
      const std::string_view inner = sql_.substr(i_ + 1, close - i_ - 1);
      message += "; write " + sql_name(inner) + " (double quotes, or no quotes for a plain name)";
    } else {
      message += "; write the name in double quotes";
    }
    return error("quoted_identifier", at, std::move(message));
  }

  std::string_view sql_;
  std::size_t i_ = 0;
  position pos_;
};

}  // namespace

result<std::vector<token>> lex(std::string_view sql) { return lexer(sql).run(); }

}  // namespace streamt::plan::sql
