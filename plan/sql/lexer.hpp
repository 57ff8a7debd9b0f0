// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Phase 1 of the SQL compiler: text → tokens. The lexer knows nothing of the
// grammar; it validates the bytes (UTF-8, ASCII outside string literals),
// refuses what can never appear in the subset at any position (comments,
// backquoted names, malformed numbers, stray characters) and records
// where each token starts so that later phases can point at it.
//
// Positions are 1-based. Lines are separated by '\n' ("\r\n" works because
// '\r' is whitespace). Columns count Unicode code points, not bytes, so that
// "1:17" lands on the character an editor shows at column 17 even after a
// multi-byte string literal.

#include "plan/diagnostic.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::plan::sql {

struct position {
  std::size_t line = 1;
  std::size_t column = 1;
  std::size_t offset = 0;  // byte offset in the SQL text
  friend bool operator==(const position&, const position&) = default;
};

enum class token_kind {
  identifier,  // [A-Za-z_][A-Za-z0-9_]* that is not a reserved word, or "any text" ("" → ")
  keyword,     // a reserved word; `word` holds it upper-cased
  integer,     // unsigned decimal digits; the sign is the parser's business
  decimal,     // digits with a fraction and/or an exponent (12.5, 1e3, 1.5E-2); `word` holds the text
  string,      // single-quoted; `word` holds the decoded value ('' → ')
  comma,
  semicolon,
  dot,
  lparen,
  rparen,
  star,
  eq,         // =
  ne,         // <>
  lt,         // <
  le,         // <=
  gt,         // >
  ge,         // >=
  minus,      // -  (a negative literal is `-` directly followed by a number)
  bang_eq,    // != : lexed so the parser can say "write <> instead"
  eq_eq,      // == : lexed so the parser can say "write = instead"
  operator_,  // + / % || | & ^ ~ ! :: (an expression operator the subset rejects)
  end,        // end of input; its position is just past the last character
};

struct token {
  token_kind kind = token_kind::end;
  std::string_view text;  // the exact source text; points into the SQL passed to lex()
  std::string word;       // keyword upper-cased, identifier as written (unquoted), string decoded
  position pos;
  bool quoted = false;  // an identifier written in double quotes
};

// A diagnostic of an SQL phase pointing at `at`.
diagnostic make_diagnostic(streamt::phase ph, std::string code, position at, std::string message);

// Human wording of a token for messages: "'FROM'", "','", "the end of the statement".
std::string describe(const token& t);

// Tokenises `sql`. Always ends with one token_kind::end token on success.
// Errors (phase::lex): invalid_utf8, non_ascii, unexpected_character,
// unterminated_string, comment_not_supported, quoted_identifier (backquotes),
// unterminated_identifier, empty_identifier, name_too_long, malformed_number
// (also "1." and ".5": a point needs digits on both sides).
result<std::vector<token>> lex(std::string_view sql);

}  // namespace streamt::plan::sql
