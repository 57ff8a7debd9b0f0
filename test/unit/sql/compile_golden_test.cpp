// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#define BOOST_TEST_MODULE sql
#include "plan/schema_file.hpp"
#include "plan/sql/compile.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

// Golden SQL cases, sqllogictest style. A file in test/data/sql/ holds:
//
//   # comment (outside a case)
//   schema <source> <topic>            once, before the cases
//   column <name> <TYPE> NULL|NOT NULL  one per column, in order
// or, for a schema the column lines cannot express (nested ROW columns):
//   schema_file <name>                 test/data/schemas/<name>, once
//
//   accept <name>
//   <sql, one or more lines; none for the empty statement>
//   ----
//   <expected to_sql() output; \n stands for a line break>
//
//   reject <name>
//   <sql>
//   ----
//   <line>:<column> <code> <text the message must contain>
//
// A case ends at the first blank line after its expected line.

namespace {

using namespace streamt;
using namespace streamt::plan;

struct golden_case {
  std::string file;
  std::size_t header_line = 0;
  bool accept = true;
  std::string name;
  std::string sql;
  std::string expected;
};

struct golden_file {
  schema source;
  std::vector<golden_case> cases;
};

std::string data_dir() { return std::string(STREAMT_TEST_DATA_DIR) + "/sql"; }

std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// Loads one file; a malformed file is a failed test, not a crash.
std::optional<golden_file> load(const std::filesystem::path& path) {
  std::ifstream in(path);
  BOOST_TEST_REQUIRE(in.good(), "cannot open " << path);
  golden_file out;
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::size_t i = 0;
  while (i < lines.size()) {
    const std::string& line = lines[i];
    const auto words = split_words(line);
    if (words.empty() || words[0][0] == '#') {
      ++i;
      continue;
    }
    if (words[0] == "schema" && words.size() == 3) {
      out.source.source = words[1];
      out.source.topic = words[2];
      ++i;
      continue;
    }
    if (words[0] == "schema_file" && words.size() == 2) {
      std::ifstream schema_in(std::filesystem::path(STREAMT_TEST_DATA_DIR) / "schemas" / words[1]);
      std::ostringstream text;
      text << schema_in.rdbuf();
      auto loaded = load_schema(text.str());
      if (!loaded) {
        BOOST_ERROR(path << ":" << i + 1 << ": schema " << words[1] << ": " << format(loaded.error()));
        return std::nullopt;
      }
      out.source = std::move(*loaded);
      ++i;
      continue;
    }
    if (words[0] == "column" && (words.size() == 4 || words.size() == 5)) {
      column c;
      c.name = words[1];
      if (words[2] == "STRING")
        c.type = column_type::string;
      else if (words[2] == "BIGINT")
        c.type = column_type::bigint;
      else if (words[2] == "BOOLEAN")
        c.type = column_type::boolean;
      else
        BOOST_FAIL(path << ":" << i + 1 << ": unknown type " << words[2]);
      c.nullable = words.size() == 4;
      out.source.columns.push_back(c);
      ++i;
      continue;
    }
    if ((words[0] == "accept" || words[0] == "reject") && words.size() == 2) {
      golden_case c;
      c.file = path.filename().string();
      c.header_line = i + 1;
      c.accept = words[0] == "accept";
      c.name = words[1];
      ++i;
      std::vector<std::string> sql;
      while (i < lines.size() && lines[i] != "----") sql.push_back(lines[i++]);
      if (i >= lines.size()) {
        BOOST_ERROR(path << ":" << c.header_line << ": case " << c.name << " has no ----");
        return std::nullopt;
      }
      ++i;  // ----
      for (std::size_t k = 0; k < sql.size(); ++k) c.sql += (k == 0 ? "" : "\n") + sql[k];
      if (i >= lines.size() || lines[i].empty()) {
        BOOST_ERROR(path << ":" << c.header_line << ": case " << c.name << " has no expected line");
        return std::nullopt;
      }
      c.expected = lines[i++];
      if (i < lines.size() && !lines[i].empty()) {
        BOOST_ERROR(path << ":" << i + 1 << ": case " << c.name << " must end with a blank line");
        return std::nullopt;
      }
      out.cases.push_back(std::move(c));
      continue;
    }
    BOOST_ERROR(path << ":" << i + 1 << ": cannot read line: " << line);
    return std::nullopt;
  }
  return out;
}

std::vector<std::filesystem::path> golden_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(data_dir()))
    if (e.path().extension() == ".sqltest") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// INSERT INTO statements name their sinks; --sink-topic is for a SELECT.
compile_options test_options(const std::string& sql) {
  const std::size_t start = sql.find_first_not_of(" \t\n");
  std::string word = start == std::string::npos ? std::string() : sql.substr(start, 6);
  for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (word == "INSERT") return {"orders-big", ""};
  return {"orders-big", "big-orders"};
}

std::string describe(const diagnostic& d) {
  return std::to_string(d.line) + ":" + std::to_string(d.column) + " " + to_string(d.phase) + " " + d.code +
         " " + d.message;
}

struct counts {
  std::size_t accepted = 0;
  std::size_t rejected = 0;
};

void run_accept(const golden_file& f, const golden_case& c) {
  auto p = compile(c.sql, f.source, test_options(c.sql));
  if (!p) {
    BOOST_ERROR("case " << c.name << " was rejected: " << describe(p.error()));
    return;
  }
  // A routed plan's statements are joined by ";\n": the expected line
  // writes that line break as \n.
  std::string expected = c.expected;
  for (std::size_t at = expected.find("\\n"); at != std::string::npos; at = expected.find("\\n", at + 1))
    expected.replace(at, 2, "\n");
  BOOST_TEST(to_sql(*p) == expected, "case " << c.name << ": to_sql gave [" << to_sql(*p) << "]");
  // The normal form compiles to the same plan, so explain output can be
  // pasted back as a query without changing what runs.
  auto again = compile(to_sql(*p), f.source, test_options(c.sql));
  if (!again) {
    BOOST_ERROR("case " << c.name << ": to_sql output was rejected: " << describe(again.error()));
    return;
  }
  BOOST_TEST((*again == *p), "case " << c.name << ": to_sql output compiles to a different plan");
}

void run_reject(const golden_file& f, const golden_case& c, std::map<std::string, phase>& phase_of_code) {
  auto p = compile(c.sql, f.source, test_options(c.sql));
  if (p) {
    BOOST_ERROR("case " << c.name << " was accepted: " << to_sql(*p));
    return;
  }
  const diagnostic& d = p.error();
  std::istringstream in(c.expected);
  std::string where, code;
  in >> where >> code;
  std::string text;
  std::getline(in >> std::ws, text);
  if (text.empty()) {
    BOOST_ERROR("case " << c.name << ": expected line needs <line>:<col> <code> <text>");
    return;
  }
  const std::string actual_where = std::to_string(d.line) + ":" + std::to_string(d.column);
  BOOST_TEST(actual_where == where, "case " << c.name << ": position " << actual_where << " != " << where
                                            << " (" << describe(d) << ")");
  BOOST_TEST(d.code == code,
             "case " << c.name << ": code " << d.code << " != " << code << " (" << describe(d) << ")");
  BOOST_TEST(d.message.find(text) != std::string::npos,
             "case " << c.name << ": message [" << d.message << "] lacks [" << text << "]");
  BOOST_TEST((d.phase == phase::lex || d.phase == phase::parse || d.phase == phase::bind),
             "case " << c.name << ": phase " << to_string(d.phase));
  // A code means one thing: it always comes from the same phase.
  auto [it, inserted] = phase_of_code.emplace(d.code, d.phase);
  BOOST_TEST((inserted || it->second == d.phase),
             "case " << c.name << ": code " << d.code << " from two phases");
}

}  // namespace

BOOST_AUTO_TEST_CASE(golden_sql_cases_compile_or_fail_as_recorded) {
  const auto files = golden_files();
  BOOST_TEST_REQUIRE(!files.empty(), "no .sqltest files in " << data_dir());
  counts n;
  std::set<std::string> names;
  std::map<std::string, phase> phase_of_code;
  for (const auto& path : files) {
    auto f = load(path);
    BOOST_TEST_REQUIRE(f.has_value(), "cannot load " << path);
    BOOST_TEST_REQUIRE(!f->source.columns.empty(), path << " declares no schema");
    for (const auto& c : f->cases) {
      BOOST_TEST_CONTEXT(c.file << ":" << c.header_line << " case " << c.name) {
        BOOST_TEST(names.insert(c.name).second, "case name " << c.name << " is used twice");
        if (c.accept) {
          run_accept(*f, c);
          ++n.accepted;
        } else {
          run_reject(*f, c, phase_of_code);
          ++n.rejected;
        }
      }
    }
  }
  BOOST_TEST_MESSAGE("golden SQL cases: " << n.accepted << " accepted, " << n.rejected << " rejected");
  BOOST_TEST(n.accepted >= 40u);
  BOOST_TEST(n.rejected >= 60u);
}
