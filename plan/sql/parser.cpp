// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/sql/parser.hpp"

#include "plan/schema_file.hpp"
#include "plan/spelling.hpp"
#include "plan/sql/keywords.hpp"

#include <array>
#include <limits>

namespace streamt::plan::sql {
namespace {

constexpr std::string_view only_columns =
    "the projection lists columns only (names or dot paths such as after.amount), each with an optional AS "
    "alias";
constexpr std::string_view only_comparisons =
    "a predicate is `column op literal` (op: = <> < <= > >=) or `column IS [NOT] NULL`";

bool is_comparison(token_kind k) {
  return k == token_kind::eq || k == token_kind::ne || k == token_kind::lt || k == token_kind::le ||
         k == token_kind::gt || k == token_kind::ge;
}

compare_op to_compare_op(token_kind k) {
  switch (k) {
    case token_kind::ne:
      return compare_op::ne;
    case token_kind::lt:
      return compare_op::lt;
    case token_kind::le:
      return compare_op::le;
    case token_kind::gt:
      return compare_op::gt;
    case token_kind::ge:
      return compare_op::ge;
    default:
      return compare_op::eq;
  }
}

// The operator that keeps the meaning when the operands are swapped.
std::string_view mirrored(token_kind k) {
  switch (k) {
    case token_kind::lt:
      return ">";
    case token_kind::le:
      return ">=";
    case token_kind::gt:
      return "<";
    case token_kind::ge:
      return "<=";
    case token_kind::ne:
      return "<>";
    default:
      return "=";
  }
}

bool is_aggregate(std::string_view name) {
  static constexpr std::array<std::string_view, 5> names{"COUNT", "SUM", "AVG", "MIN", "MAX"};
  for (auto n : names) {
    if (n.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < n.size(); ++i) {
      char c = name[i];
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      if (c != n[i]) same = false;
    }
    if (same) return true;
  }
  return false;
}

class parser {
 public:
  explicit parser(const std::vector<token>& tokens) : t_(tokens) {}

  result<statements> run() {
    statements out;
    // The first statement decides what the file is: one SELECT, or routes.
    const bool routed = insert_at(0);
    // A loop over statements, not recursion: no input can exhaust the stack.
    for (;;) {
      query q;
      q.start = cur().pos;
      if (routed) {
        if (out.size() == max_routes)
          return error("too_many_routes", cur(),
                       "this is INSERT statement " + std::to_string(out.size() + 1) +
                           "; a plan holds at most " + std::to_string(max_routes) +
                           " routes (each costs every record a predicate): split the statements into several "
                           "applications");
        if (auto r = insert_into(q); !r) return r.error();
      }
      if (auto r = statement_start(routed); !r) return r.error();
      if (auto r = projection(q); !r) return r.error();
      if (auto r = source(q); !r) return r.error();
      if (kw(cur(), "WHERE")) {
        next();
        if (auto r = predicates(q); !r) return r.error();
      }
      if (partition_by_at(0)) {
        if (!routed)
          return error(
              "unsupported_partition_by", cur(),
              "PARTITION BY is not supported on a single SELECT, whose output keeps the input key; "
              "to set the key, write the query as INSERT INTO <sink> SELECT ... PARTITION BY <column> "
              "(and leave out --sink-topic)");
        if (auto r = partition_by(q); !r) return r.error();
      }
      const std::string_view where = q.partition_by        ? "after PARTITION BY"
                                     : q.predicate.empty() ? "after the source"
                                                           : "after the predicate";
      const std::string continuation = q.partition_by        ? std::string()
                                       : q.predicate.empty() ? std::string("WHERE, ")
                                                             : std::string("AND, ");
      auto more = tail(where, routed ? continuation + (q.partition_by ? "" : "PARTITION BY, ") : continuation,
                       routed, q.partition_by.has_value());
      if (!more) return more.error();
      out.push_back(std::move(q));
      if (!*more) return out;
    }
  }

 private:
  // --- token access -------------------------------------------------------
  const token& at(std::size_t k) const {
    const std::size_t i = i_ + k;
    return i < t_.size() ? t_[i] : t_.back();
  }
  const token& cur() const { return at(0); }
  void next() {
    if (i_ + 1 < t_.size()) ++i_;
  }
  static bool kw(const token& t, std::string_view word) {
    return t.kind == token_kind::keyword && t.word == word;
  }
  // TIMESTAMP is not reserved (a column may be called timestamp): it starts
  // a literal only when a string follows it, where no name can stand.
  bool timestamp_literal_at(std::size_t k) const {
    const token& t = at(k);
    return t.kind == token_kind::identifier && !t.quoted && equal_ignoring_case(t.word, "TIMESTAMP") &&
           at(k + 1).kind == token_kind::string;
  }
  bool literal_at(std::size_t k) const {
    const token& t = at(k);
    return t.kind == token_kind::integer || t.kind == token_kind::decimal || t.kind == token_kind::string ||
           t.kind == token_kind::minus || kw(t, "TRUE") || kw(t, "FALSE") || kw(t, "NULL") ||
           timestamp_literal_at(k);
  }
  static bool is_number(const token& t) {
    return t.kind == token_kind::integer || t.kind == token_kind::decimal;
  }
  // A column as messages name it between single quotes: the name as meant
  // for one segment (as before paths existed), the path as written otherwise.
  static std::string shown(const name_ref& n) { return n.path.size() > 1 ? n.written() : n.name; }
  static diagnostic error(std::string code, const token& t, std::string message) {
    return make_diagnostic(phase::parse, std::move(code), t.pos, std::move(message));
  }

  // --- statement ----------------------------------------------------------
  result<void> statement_start(bool routed) {
    const token& t = cur();
    if (routed) {
      // After INSERT INTO <sink>: only the SELECT that feeds it.
      if (kw(t, "SELECT")) {
        next();
        return {};
      }
      if (t.kind == token_kind::lparen)
        return error("unsupported_column_list", t,
                     "a column list after the sink is not supported; the output's members are the SELECT's "
                     "names (rename with AS): write INSERT INTO <sink> SELECT <columns> FROM <source>");
      if (t.kind == token_kind::identifier && !t.quoted && equal_ignoring_case(t.word, "VALUES"))
        return error("unsupported_statement", t,
                     "VALUES is not supported: a route writes what it reads; write INSERT INTO <sink> SELECT "
                     "<columns> FROM <source> [WHERE ...]");
      if (kw(t, "WITH"))
        return error("unsupported_with", t,
                     "WITH (common table expressions) is not supported; write INSERT INTO <sink> SELECT "
                     "<columns> FROM <source> [WHERE ...]");
      return error("unexpected_token", t,
                   "expected SELECT after INSERT INTO <sink>, found " + describe(t) +
                       "; write INSERT INTO <sink> SELECT <columns> FROM <source> [WHERE ...]");
    }
    if (t.kind == token_kind::end || t.kind == token_kind::semicolon)
      return error("empty_statement", t,
                   "the statement is empty; write SELECT <columns> FROM <source> [WHERE ...]");
    if (kw(t, "WITH"))
      return error("unsupported_with", t,
                   "WITH (common table expressions) is not supported; the subset is a single "
                   "SELECT <columns> FROM <source> [WHERE ...]");
    if (t.kind == token_kind::lparen)
      return error("unsupported_subquery", t,
                   "a parenthesised query is not supported; write the SELECT without parentheses");
    if (!kw(t, "SELECT"))
      return error("unsupported_statement", t,
                   "the statement starts with " + describe(t) +
                       "; only a SELECT statement is supported: SELECT <columns> FROM <source> [WHERE ...], "
                       "or INSERT INTO <sink> SELECT ... statements");
    next();
    return {};
  }

  // --- INSERT INTO ----------------------------------------------------------
  // INSERT, INTO and PARTITION are read as words where a name cannot stand,
  // unquoted only: "insert" in double quotes is a name.
  bool word_at(std::size_t k, std::string_view w) const {
    const token& t = at(k);
    return t.kind == token_kind::identifier && !t.quoted && equal_ignoring_case(t.word, w);
  }
  bool insert_at(std::size_t k) const { return word_at(k, "INSERT"); }
  bool partition_by_at(std::size_t k) const { return word_at(k, "PARTITION") && kw(at(k + 1), "BY"); }

  // Tokens written without space between them, from the cursor: how a user
  // wrote a name that needed quotes (orders.eu, orders-eu, eu-2).
  std::string adjacent_text(std::size_t& count) const {
    std::string text(cur().text);
    count = 1;
    for (;;) {
      const token& prev = at(count - 1);
      const token& t = at(count);
      const bool part = t.kind == token_kind::identifier || t.kind == token_kind::integer ||
                        t.kind == token_kind::decimal || t.kind == token_kind::dot ||
                        t.kind == token_kind::minus || t.kind == token_kind::keyword;
      if (!part || t.pos.offset != prev.pos.offset + prev.text.size()) return text;
      text += t.text;
      ++count;
    }
  }

  // INSERT INTO <sink>: the sink is a Kafka topic, an identifier or a
  // double-quoted name, checked against Kafka's rule where it is written.
  result<void> insert_into(query& q) {
    const token& insert = cur();
    if (!insert_at(0))
      return error(kw(insert, "SELECT") ? "mixed_statements" : "unexpected_token", insert,
                   kw(insert, "SELECT")
                       ? "a SELECT after INSERT INTO statements; a query file is either one SELECT (with "
                         "--sink-topic) or INSERT INTO statements: write this one as INSERT INTO <sink> "
                         "SELECT ..."
                       : "expected INSERT INTO <sink> SELECT ... after ';', found " + describe(insert) +
                             "; every statement of a file of routes is an INSERT INTO");
    next();
    if (!word_at(0, "INTO"))
      return error("missing_into", cur(),
                   "expected INTO after INSERT, found " + describe(cur()) +
                       "; write INSERT INTO <sink> SELECT <columns> FROM <source>");
    next();
    const token& t = cur();
    constexpr std::string_view rule =
        "a Kafka topic name: 1 to 249 characters of [a-zA-Z0-9._-], not \".\" or \"..\"";
    if (kw(t, "SELECT") || t.kind == token_kind::end || t.kind == token_kind::semicolon)
      return error("missing_sink", t,
                   "expected the sink topic after INSERT INTO, found " + describe(t) +
                       "; write INSERT INTO <sink> SELECT ... (a name such as orders.eu in double quotes)");
    std::size_t count = 1;
    const std::string written = adjacent_text(count);
    if (count > 1 && (t.kind == token_kind::identifier || t.kind == token_kind::keyword ||
                      t.kind == token_kind::integer)) {
      std::string message = "the sink topic " + written +
                            " is not a plain name; write it in double quotes: "
                            "INSERT INTO \"" +
                            written + "\"";
      if (!is_valid_topic_name(written)) message += " (and make it " + std::string(rule) + ")";
      return error("unquoted_topic_name", t, std::move(message));
    }
    if (t.kind == token_kind::keyword)
      return error("keyword_as_name", t,
                   "'" + std::string(t.text) +
                       "' is a reserved word; to use it as the sink topic, write it in double quotes (\"" +
                       std::string(t.text) + "\")");
    if (t.kind != token_kind::identifier)
      return error("missing_sink", t,
                   "expected the sink topic after INSERT INTO, found " + describe(t) +
                       "; a topic is a name, double-quoted unless it is a plain identifier (\"orders.eu\")");
    if (!is_valid_topic_name(t.word))
      return error("invalid_topic_name", t,
                   "the sink topic " + sql_name(t.word) + " (" + std::to_string(t.word.size()) +
                       " bytes) is not a valid topic name; use " + std::string(rule));
    q.sink = name_ref{t.word, t.pos, t.quoted, {t.word}, {t.pos}};
    next();
    return {};
  }

  // PARTITION BY <column>: one column, a dot path allowed.
  result<void> partition_by(query& q) {
    next();  // PARTITION
    next();  // BY
    constexpr std::string_view allowed = "PARTITION BY takes one column (a name or a dot path)";
    const token& t = cur();
    if (t.kind == token_kind::end || t.kind == token_kind::semicolon)
      return error("missing_column", t, "expected a column after PARTITION BY, found " + describe(t));
    if (t.kind != token_kind::identifier || timestamp_literal_at(0))
      return not_a_column(t, "in PARTITION BY", allowed);
    auto column = column_path(allowed);
    if (!column) return column.error();
    q.partition_by = std::move(*column);
    if (cur().kind == token_kind::comma)
      return error("unsupported_partition_by", cur(),
                   "PARTITION BY takes one column; the key is one column's value (STRING or BIGINT): remove "
                   "the columns after the first");
    return {};
  }

  // Constructs that can start where a column name is expected, in the
  // projection or in a predicate, and are not columns.
  result<void> not_a_column(const token& t, std::string_view where, std::string_view allowed) {
    const std::string tail = "; " + std::string(allowed);
    if (t.kind == token_kind::star)
      return error("unsupported_star", t,
                   "'*' is not supported; list the columns explicitly (SELECT id, amount, ...)");
    if (kw(t, "CAST")) return error("unsupported_cast", t, "CAST is not supported (no conversions)" + tail);
    if (kw(t, "CASE")) return error("unsupported_case", t, "CASE is not supported" + tail);
    if (kw(t, "EXISTS")) return error("unsupported_subquery", t, "EXISTS (subquery) is not supported" + tail);
    if (kw(t, "NOT"))
      return error("unsupported_not", t,
                   "NOT is not supported; the subset allows NOT only in IS NOT NULL (write the opposite "
                   "comparison instead, e.g. amount < 50 for NOT amount >= 50)");
    if (t.kind == token_kind::lparen) {
      if (kw(at(1), "SELECT")) return error("unsupported_subquery", t, "subqueries are not supported" + tail);
      return error("unsupported_expression", t, "parentheses are not supported " + std::string(where) + tail);
    }
    if (literal_at(0)) {
      const bool negative = t.kind == token_kind::minus && is_number(at(1));
      const std::string text = negative                  ? "-" + at(1).word
                               : timestamp_literal_at(0) ? "TIMESTAMP " + std::string(at(1).text)
                                                         : std::string(t.text);
      return error("unsupported_expression", t,
                   "literal " + text + " " + std::string(where) + " is not supported" + tail);
    }
    if (t.kind == token_kind::keyword)
      return error("keyword_as_name", t,
                   "'" + std::string(t.text) +
                       "' is a reserved word; to use it as a name, write it in double quotes (" +
                       sql_name(t.text) + ")" + tail);
    return error("unexpected_token", t, "expected a column name, found " + describe(t) + tail);
  }

  // `f(...)` where a name is expected.
  result<void> not_a_call(const token& t, std::string_view allowed) {
    const std::string tail = "; " + std::string(allowed);
    if (at(1).kind != token_kind::lparen) return {};
    if (is_aggregate(t.word))
      return error("unsupported_aggregate", t,
                   "aggregate " + t.word +
                       "(...) is not supported: the transform is stateless, one output row per input "
                       "row" +
                       tail);
    return error("unsupported_function", t, "function call " + t.word + "(...) is not supported" + tail);
  }

  // A column: a name, or a dot path of names into ROW columns
  // (after.amount, payload."user-id"), each segment plain or double-quoted.
  // Whether the path exists, and what `orders.id` means when orders is the
  // source, is for the binder, which has the schema.
  result<name_ref> column_path(std::string_view allowed) {
    const token& t = cur();
    if (auto r = not_a_call(t, allowed); !r) return r.error();
    name_ref n{t.word, t.pos, t.quoted, {t.word}, {t.pos}};
    next();
    while (cur().kind == token_kind::dot) {
      const token& part = at(1);
      if (part.kind == token_kind::identifier) {
        next();
        if (auto r = not_a_call(part, allowed); !r) return r.error();
        n.name = part.word;
        n.quoted = part.quoted;
        n.path.push_back(part.word);
        n.segment_pos.push_back(part.pos);
        next();
        continue;
      }
      const std::string so_far = n.written();
      if (part.kind == token_kind::star)
        return error(
            "unsupported_star", t,
            "'" + so_far + ".*' is not supported; list the columns explicitly (SELECT id, amount, ...)");
      // `after. FROM` is a path cut short, not a segment named FROM.
      const bool structure = kw(part, "FROM") || kw(part, "WHERE") || kw(part, "AND") || kw(part, "AS") ||
                             kw(part, "IS") || kw(part, "OR");
      if (part.kind == token_kind::keyword && !structure)
        return error("keyword_as_name", part,
                     "'" + std::string(part.text) +
                         "' is a reserved word; to use it as a name in a path, write it in double quotes (" +
                         so_far + "." + sql_name(part.text) + ")");
      return error("missing_name", part,
                   "expected a name after '" + so_far + ".', found " + describe(part) +
                       "; a path joins names with '.' (after.amount), a name that is not a plain identifier "
                       "double-quoted (payload.\"user-id\")");
    }
    return n;
  }

  // An identifier that must stand alone (the source): not `f(...)`, not `a.b`.
  result<name_ref> plain_name(std::string_view role, std::string_view allowed) {
    const token& t = cur();
    if (auto r = not_a_call(t, allowed); !r) return r.error();
    if (at(1).kind == token_kind::dot) {
      std::string full = t.word;
      std::string last = t.word;
      for (std::size_t k = 1; at(k).kind == token_kind::dot; k += 2) {
        const token& part = at(k + 1);
        if (part.kind != token_kind::identifier && part.kind != token_kind::star) break;
        full += "." + std::string(part.text);
        last = std::string(part.text);
        if (part.kind == token_kind::star)
          return error(
              "unsupported_star", t,
              "'" + full + "' is not supported; list the columns explicitly (SELECT id, amount, ...)");
      }
      return error("unsupported_qualified_name", t,
                   "qualified name '" + full + "' is not supported; write the " + std::string(role) +
                       " name alone (" + sql_name(last) + ")");
    }
    name_ref n{t.word, t.pos, t.quoted, {t.word}, {t.pos}};
    next();
    return n;
  }

  // --- projection ---------------------------------------------------------
  result<void> projection(query& q) {
    if (kw(cur(), "DISTINCT"))
      return error("unsupported_distinct", cur(),
                   "DISTINCT is not supported: the transform is stateless and cannot remove duplicates; "
                   "write SELECT followed by the columns");
    if (kw(cur(), "ALL"))
      return error("unexpected_token", cur(),
                   "SELECT ALL is not supported; write SELECT followed by the columns");
    for (;;) {
      const token& t = cur();
      if (t.kind != token_kind::identifier) {
        if (kw(t, "FROM")) {
          if (q.projection.empty())
            return error("missing_column", t, "SELECT needs at least one column before FROM");
          return error("trailing_comma", t,
                       "',' must be followed by another column; remove the trailing ','");
        }
        if (t.kind == token_kind::end)
          return error("missing_column", t, "expected a column name, found the end of the statement");
        return not_a_column(t, "in the projection", only_columns);
      }
      if (timestamp_literal_at(0)) return not_a_column(t, "in the projection", only_columns);
      auto column = column_path(only_columns);
      if (!column) return column.error();
      select_item item{std::move(*column), std::nullopt};
      if (kw(cur(), "AS")) {
        next();
        const token& a = cur();
        if (a.kind == token_kind::keyword)
          return error("keyword_as_name", a,
                       "expected an alias after AS, found reserved word '" + std::string(a.text) +
                           "'; to use it as a name, write it in double quotes (" + sql_name(a.text) + ")");
        if (a.kind != token_kind::identifier)
          return error("unexpected_token", a,
                       "expected an alias after AS, found " + describe(a) +
                           "; an alias is a name ([A-Za-z_][A-Za-z0-9_]*, or any text in double quotes)");
        item.alias = name_ref{a.word, a.pos, a.quoted};
        next();
      } else if (cur().kind == token_kind::identifier) {
        return error("missing_as", cur(),
                     "an alias needs AS; write " + item.column.written() + " AS " + sql_name(cur().word));
      }
      q.projection.push_back(std::move(item));
      if (auto r = after_projection_item(); !r) return r.error();
      if (cur().kind == token_kind::comma) {
        next();
        continue;
      }
      next();  // FROM
      return {};
    }
  }

  result<void> after_projection_item() {
    const token& t = cur();
    switch (t.kind) {
      case token_kind::comma:
        return {};
      case token_kind::operator_:
      case token_kind::minus:
      case token_kind::star:
        return error("unsupported_expression", t,
                     "expressions are not supported: operator '" + std::string(t.text) +
                         "' in the projection; " + std::string(only_columns) +
                         " (compute derived values downstream)");
      case token_kind::eq:
      case token_kind::ne:
      case token_kind::lt:
      case token_kind::le:
      case token_kind::gt:
      case token_kind::ge:
      case token_kind::bang_eq:
      case token_kind::eq_eq:
        return error("unsupported_expression", t,
                     "a comparison (" + std::string(t.text) + ") in the projection is not supported; " +
                         std::string(only_columns) + " (filter with WHERE)");
      case token_kind::end:
        return error("missing_from", t, "FROM is missing; write SELECT <columns> FROM <source>");
      default:
        break;
    }
    if (kw(t, "FROM")) return {};
    if (kw(t, "OVER"))
      return error("unsupported_window", t, "windows (OVER) are not supported; " + std::string(only_columns));
    if (kw(t, "WHERE"))
      return error("missing_from", t,
                   "FROM is missing before WHERE; write SELECT <columns> FROM <source> WHERE ...");
    if (kw(t, "AND") || kw(t, "OR") || kw(t, "IS") || kw(t, "IN") || kw(t, "LIKE") || kw(t, "BETWEEN") ||
        kw(t, "NOT"))
      return error(
          "unsupported_expression", t,
          "expression with " + t.word + " in the projection is not supported; " + std::string(only_columns));
    return error("unexpected_token", t, "expected ',' or FROM after the column, found " + describe(t));
  }

  // --- FROM -----------------------------------------------------------------
  result<void> source(query& q) {
    const token& t = cur();
    constexpr std::string_view allowed = "FROM names the one source of the schema, unqualified";
    if (t.kind == token_kind::lparen) {
      if (kw(at(1), "SELECT"))
        return error("unsupported_subquery", t, "subqueries are not supported; " + std::string(allowed));
      return error("unexpected_token", t, "expected the source name after FROM, found '('");
    }
    if (t.kind == token_kind::end)
      return error("missing_source", t,
                   "expected the source name after FROM, found the end of the statement");
    if (t.kind == token_kind::keyword)
      return error("keyword_as_name", t,
                   "expected the source name after FROM, found reserved word '" + std::string(t.text) +
                       "'; to use it as a name, write it in double quotes (" + sql_name(t.text) + ")");
    if (t.kind != token_kind::identifier)
      return error("unexpected_token", t, "expected the source name after FROM, found " + describe(t));
    auto name = plain_name("source", allowed);
    if (!name) return name.error();
    q.source = std::move(*name);

    const token& after = cur();
    constexpr std::string_view join_tail = "; the query reads exactly one source (join upstream)";
    if (after.kind == token_kind::comma)
      return error("unsupported_join", after,
                   "a comma-separated FROM (a join) is not supported" + std::string(join_tail));
    if (kw(after, "JOIN") || kw(after, "INNER") || kw(after, "LEFT") || kw(after, "RIGHT") ||
        kw(after, "FULL") || kw(after, "CROSS") || kw(after, "OUTER") ||
        (after.kind == token_kind::identifier && kw(at(1), "JOIN")))
      return error("unsupported_join", after, "joins are not supported" + std::string(join_tail));
    if (kw(after, "AS") || (after.kind == token_kind::identifier && !partition_by_at(0) && !insert_at(0)))
      return error("unsupported_table_alias", after,
                   "table aliases are not supported; refer to the source by its name and to columns by their "
                   "plain names");
    return {};
  }

  // --- WHERE ----------------------------------------------------------------
  result<void> predicates(query& q) {
    for (;;) {
      auto p = predicate();
      if (!p) return p.error();
      q.predicate.push_back(std::move(*p));
      if (!kw(cur(), "AND")) return {};
      next();
    }
  }

  result<predicate_ref> predicate() {
    const token& t = cur();
    if (t.kind == token_kind::end || t.kind == token_kind::semicolon || kw(t, "AND") || kw(t, "OR") ||
        kw(t, "GROUP") || kw(t, "ORDER") || kw(t, "LIMIT"))
      return error("missing_predicate", t,
                   "expected a predicate, found " + describe(t) + "; " + std::string(only_comparisons));
    if (literal_at(0)) return literal_on_left();
    if (t.kind != token_kind::identifier) {
      auto r = not_a_column(t, "in a predicate", only_comparisons);
      return r.error();
    }
    auto column = column_path(only_comparisons);
    if (!column) return column.error();
    predicate_ref p;
    p.column = std::move(*column);

    const token& op = cur();
    p.op_pos = op.pos;
    if (is_comparison(op.kind)) {
      p.op = to_compare_op(op.kind);
      next();
      auto value = comparison_literal(p, op);
      if (!value) return value.error();
      p.value = std::move(*value);
      if (auto r = no_arithmetic_after("the literal"); !r) return r.error();
      return p;
    }
    if (kw(op, "IS")) {
      const token& n1 = at(1);
      if (kw(n1, "NULL")) {
        p.op = compare_op::is_null;
        next();
        next();
        return p;
      }
      if (kw(n1, "NOT") && kw(at(2), "NULL")) {
        p.op = compare_op::is_not_null;
        next();
        next();
        next();
        return p;
      }
      if (n1.kind != token_kind::keyword && n1.kind != token_kind::identifier)
        return error("unsupported_is", n1, "expected NULL or NOT NULL after IS, found " + describe(n1));
      std::string hint = "after IS the subset allows only NULL or NOT NULL";
      if (kw(n1, "TRUE") || kw(n1, "FALSE") || (kw(n1, "NOT") && (kw(at(2), "TRUE") || kw(at(2), "FALSE"))))
        hint += " (write " + p.column.written() + " = TRUE or " + p.column.written() + " = FALSE)";
      return error("unsupported_is", op, "IS " + std::string(n1.text) + " is not supported; " + hint);
    }
    if (op.kind == token_kind::bang_eq)
      return error("unsupported_operator", op, "'!=' is not supported; write <>");
    if (op.kind == token_kind::eq_eq)
      return error("unsupported_operator", op, "'==' is not supported; write =");
    if (kw(op, "NOT")) {
      const token& n1 = at(1);
      if (kw(n1, "BETWEEN") || kw(n1, "IN") || kw(n1, "LIKE")) return negatable(n1, op, p.column.written());
      return error("unsupported_not", op,
                   "NOT is not supported here; the subset allows NOT only in IS NOT NULL; " +
                       std::string(only_comparisons));
    }
    if (kw(op, "BETWEEN") || kw(op, "IN") || kw(op, "LIKE")) return negatable(op, op, p.column.written());
    if (op.kind == token_kind::operator_ || op.kind == token_kind::minus || op.kind == token_kind::star)
      return error("unsupported_expression", op,
                   "expressions are not supported: operator '" + std::string(op.text) + "' after column '" +
                       shown(p.column) + "'; " + std::string(only_comparisons));
    if (kw(op, "AND") || kw(op, "OR") || op.kind == token_kind::end || op.kind == token_kind::semicolon)
      return make_diagnostic(phase::parse, "missing_comparison", p.column.pos,
                             "column '" + shown(p.column) +
                                 "' alone is not a predicate; compare it with a literal (" +
                                 p.column.written() + " = TRUE for a BOOLEAN column) or use IS [NOT] NULL");
    return error("unexpected_token", op,
                 "expected a comparison operator (= <> < <= > >=) or IS [NOT] NULL after column '" +
                     shown(p.column) + "', found " + describe(op));
  }

  // BETWEEN, IN, LIKE, with or without NOT: `which` names the construct,
  // `at_token` is where it starts (NOT when negated); `column` is written as SQL.
  result<predicate_ref> negatable(const token& which, const token& at_token, const std::string& column) {
    const std::string what = (&which == &at_token) ? which.word : "NOT " + which.word;
    if (which.word == "BETWEEN")
      return error("unsupported_between", at_token,
                   what + " is not supported; write two comparisons joined by AND (" + column +
                       " >= low AND " + column + " <= high)");
    if (which.word == "IN")
      return error("unsupported_in", at_token,
                   what + " is not supported; the subset has no OR, so compare with one literal (" + column +
                       " = value) and filter for the other values downstream");
    return error("unsupported_like", at_token,
                 what + " is not supported; strings compare only by exact equality (= or <>)");
  }

  // The literal after a comparison operator.
  result<literal_ref> comparison_literal(const predicate_ref& p, const token& op) {
    const token& t = cur();
    if (kw(t, "NULL")) {
      std::string use = p.op == compare_op::ne ? "IS NOT NULL" : "IS NULL";
      return error("null_comparison", t,
                   "'" + std::string(op.text) + " NULL' is never true (SQL's three-valued logic); write " +
                       p.column.written() + " " + use);
    }
    if (literal_at(0)) return literal();
    if (t.kind == token_kind::identifier) {
      auto other = column_path(only_comparisons);
      if (!other) return other.error();
      std::string message = "comparing column '" + shown(p.column) + "' with column '" + shown(*other) +
                            "' is not supported; compare a column with a literal";
      // `note = "x"` is a comparison with a column named x in SQL; the
      // likelier intent is the string.
      if (t.quoted && other->path.size() == 1) {
        std::string literal = "'";
        for (char ch : t.word) literal += ch == '\'' ? std::string("''") : std::string(1, ch);
        message += " (a double-quoted text is a name; a string literal is single-quoted: " + literal + "')";
      }
      return make_diagnostic(phase::parse, "column_comparison", other->pos, std::move(message));
    }
    if (t.kind == token_kind::end || t.kind == token_kind::semicolon || t.kind == token_kind::keyword) {
      if (kw(t, "CAST") || kw(t, "CASE") || kw(t, "EXISTS") || kw(t, "NOT"))
        return not_a_column(t, "in a predicate", only_comparisons).error();
      return error("missing_literal", t,
                   "expected a literal (a number, a 'string', TRUE, FALSE or TIMESTAMP '...') after '" +
                       std::string(op.text) + "', found " + describe(t));
    }
    if (t.kind == token_kind::lparen) {
      if (kw(at(1), "SELECT"))
        return error("unsupported_subquery", t,
                     "subqueries are not supported; " + std::string(only_comparisons));
      return error("unsupported_expression", t,
                   "parentheses are not supported; " + std::string(only_comparisons));
    }
    if (t.kind == token_kind::operator_)
      return error("unsupported_expression", t,
                   "operator '" + std::string(t.text) +
                       "' before a literal is not supported; write the literal alone");
    return error("unexpected_token", t,
                 "expected a literal (a number, a 'string', TRUE, FALSE or TIMESTAMP '...') after '" +
                     std::string(op.text) + "', found " + describe(t));
  }

  result<void> no_arithmetic_after(std::string_view what) {
    const token& t = cur();
    if (t.kind == token_kind::operator_ || t.kind == token_kind::minus || t.kind == token_kind::star)
      return error("unsupported_expression", t,
                   "expressions are not supported: operator '" + std::string(t.text) + "' after " +
                       std::string(what) + "; write a single literal");
    return {};
  }

  // One literal at the cursor: integer, -integer, decimal number, -decimal
  // number, 'string', TRUE, FALSE, TIMESTAMP 'text'. NULL is handled by the
  // callers, which know what to suggest.
  result<literal_ref> literal() {
    const token& t = cur();
    literal_ref lit;
    lit.pos = t.pos;
    if (t.kind == token_kind::string) {
      lit.value = t.word;
      lit.text = std::string(t.text);
      next();
      return lit;
    }
    if (kw(t, "TRUE") || kw(t, "FALSE")) {
      lit.value = kw(t, "TRUE");
      lit.text = t.word;
      next();
      return lit;
    }
    if (timestamp_literal_at(0)) {
      const token& text = at(1);
      lit.text = "TIMESTAMP " + std::string(text.text);
      std::string problem;
      const std::optional<timestamp_value> v = parse_timestamp(text.word, problem);
      if (!v) return make_diagnostic(phase::parse, "invalid_timestamp", lit.pos, lit.text + " " + problem);
      lit.value = *v;
      next();
      next();
      return lit;
    }
    bool negative = false;
    if (t.kind == token_kind::minus) {
      const token& digits = at(1);
      if (!is_number(digits))
        return error(
            "unsupported_expression", t,
            "unary minus is supported only directly before digits (-5); expressions are not supported");
      if (digits.pos.offset != t.pos.offset + 1)
        return error(
            "unsupported_expression", t,
            "'-' followed by a space is an expression; write the negative literal without a space (-" +
                digits.word + ")");
      negative = true;
      next();
    }
    if (cur().kind == token_kind::decimal) {
      lit.text = (negative ? "-" : "") + cur().word;
      lit.value = decimal_text{lit.text};
      next();
      return lit;
    }
    const token& digits = cur();
    lit.text = (negative ? "-" : "") + digits.word;
    // Accumulate the magnitude; 2^63 is allowed only with the sign, so that
    // -9223372036854775808 is the literal it reads as, not -(overflow).
    constexpr std::uint64_t max_magnitude = std::uint64_t{1} << 63;
    const std::uint64_t limit = negative ? max_magnitude : max_magnitude - 1;
    std::uint64_t magnitude = 0;
    bool overflow = false;
    for (char c : digits.word) {
      const auto d = static_cast<std::uint64_t>(c - '0');
      if (magnitude > (limit - d) / 10) {
        overflow = true;
        break;
      }
      magnitude = magnitude * 10 + d;
    }
    if (overflow)
      return make_diagnostic(
          phase::parse, "integer_out_of_range", lit.pos,
          "integer " + lit.text +
              " is outside the BIGINT range -9223372036854775808..9223372036854775807 (for a DECIMAL or "
              "DOUBLE column write it with a fraction: " +
              lit.text + ".0)");
    if (negative) {
      // magnitude <= 2^63: negate in unsigned arithmetic, then convert
      // (well-defined modular conversion since C++20).
      lit.value = static_cast<std::int64_t>(~magnitude + 1);
    } else {
      lit.value = static_cast<std::int64_t>(magnitude);
    }
    next();
    return lit;
  }

  // `50 <= amount`: say how to write it with the column first.
  result<predicate_ref> literal_on_left() {
    const token& first = cur();
    const bool is_null = kw(first, "NULL");
    std::string text;
    if (is_null) {
      text = "NULL";
      next();
    } else {
      auto lit = literal();
      if (!lit) return lit.error();
      text = lit->text;
    }
    const token& op = cur();
    const token& rhs = at(1);
    // The column on the right as written, a path included (after.amount).
    std::vector<std::string> segments{rhs.word};
    for (std::size_t k = 2; at(k).kind == token_kind::dot && at(k + 1).kind == token_kind::identifier; k += 2)
      segments.push_back(at(k + 1).word);
    const std::string column = path_text(segments);
    if (is_comparison(op.kind) && rhs.kind == token_kind::identifier) {
      if (is_null)
        return error("null_comparison", first,
                     "a comparison with NULL is never true (SQL's three-valued logic); write " + column +
                         (op.kind == token_kind::ne ? " IS NOT NULL" : " IS NULL"));
      return error("literal_on_left", first,
                   "a literal on the left of a comparison is not supported; write the column first: " +
                       column + " " + std::string(mirrored(op.kind)) + " " + text);
    }
    return error(
        "literal_on_left", first,
        "a predicate must start with a column name, found " + text + "; " + std::string(only_comparisons));
  }

  // --- after FROM / WHERE -----------------------------------------------------
  // What follows a statement. True when another statement follows (routes
  // only), false at the end.
  result<bool> tail(std::string_view where, std::string_view continuation, bool routed, bool partitioned) {
    const token& t = cur();
    if (kw(t, "GROUP"))
      return error("unsupported_group_by", t,
                   "GROUP BY is not supported: the transform is stateless, one output row per input row");
    if (kw(t, "HAVING"))
      return error("unsupported_having", t,
                   "HAVING is not supported: the transform is stateless and has no groups");
    if (kw(t, "ORDER"))
      return error("unsupported_order_by", t,
                   "ORDER BY is not supported: output keeps the input order per partition");
    if (kw(t, "LIMIT") || kw(t, "OFFSET") || kw(t, "FETCH"))
      return error("unsupported_limit", t,
                   t.word + " is not supported: a stream has no end to limit; filter with WHERE instead");
    if (kw(t, "UNION") || kw(t, "EXCEPT") || kw(t, "INTERSECT"))
      return error(
          "unsupported_set_operation", t,
          t.word + " is not supported; the subset is a single SELECT from one source" +
              (routed ? "" : " (to write to several sinks, write INSERT INTO <sink> SELECT ... statements)"));
    if (kw(t, "OR"))
      return error("unsupported_or", t,
                   "OR is not supported; the subset allows only AND between predicates (split the query or "
                   "filter downstream" +
                       std::string(routed ? "; two INSERT statements into one sink say OR" : "") + ")");
    if (kw(t, "OVER")) return error("unsupported_window", t, "windows (OVER) are not supported");
    if (partitioned && kw(t, "WHERE"))
      return error("unexpected_token", t, "WHERE comes before PARTITION BY; move the WHERE clause up");
    if (partitioned && partition_by_at(0))
      return error("unsupported_partition_by", t, "PARTITION BY is given twice; a statement has one");
    if (t.kind == token_kind::semicolon) {
      next();
      if (cur().kind == token_kind::end) return false;
      if (routed) return true;
      if (insert_at(0))
        return error("mixed_statements", cur(),
                     "INSERT INTO after a SELECT; a query file is either one SELECT (with --sink-topic) or "
                     "INSERT INTO statements: write the SELECT as INSERT INTO <sink> SELECT ... too");
      return error("multiple_statements", cur(),
                   "only one statement is allowed; remove everything after the first ';' (to write to "
                   "several sinks, write INSERT INTO <sink> SELECT ... statements)");
    }
    if (t.kind == token_kind::end) return false;
    if (routed && insert_at(0))
      return error("missing_semicolon", t, "the statements must be separated by ';'; add one before INSERT");
    return error("unexpected_token", t,
                 "found " + describe(t) + " " + std::string(where) + "; expected " +
                     std::string(continuation) + "';' or the end of the statement");
  }

  const std::vector<token>& t_;
  std::size_t i_ = 0;
};

}  // namespace

result<statements> parse(const std::vector<token>& tokens) {
  if (tokens.empty() || tokens.back().kind != token_kind::end) {
    diagnostic d;
    d.phase = phase::parse;
    d.code = "unexpected_token";
    d.message = "internal error: token list does not end with the end token";
    return d;
  }
  return parser(tokens).run();
}

}  // namespace streamt::plan::sql
