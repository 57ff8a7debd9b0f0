// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Data-driven cases under test/data/<dir>/: `<name>.json` is the input. A
// `<name>.error` sidecar lists what the diagnostic must hold, one `key: value`
// a line (code, path, message — a substring —, line, column); a case without
// one must load, and its name must start with `valid_` so that a forgotten
// sidecar is reported instead of silently turning a case into a valid one.

#include "plan/diagnostic.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace streamt::test {

inline std::filesystem::path data_dir(const std::string& sub) {
  return std::filesystem::path(STREAMT_TEST_DATA_DIR) / sub;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Case names (file stems of *.json), sorted so failures are reproducible.
inline std::vector<std::string> case_names(const std::string& sub) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(data_dir(sub)))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The `key: value` lines of test/data/<sub>/<name><suffix> (".expected").
inline std::map<std::string, std::string> read_key_values(const std::string& sub, const std::string& name,
                                                          const std::string& suffix) {
  std::map<std::string, std::string> fields;
  std::istringstream in(read_file(data_dir(sub) / (name + suffix)));
  std::string line;
  while (std::getline(in, line))
    if (auto colon = line.find(": "); colon != std::string::npos)
      fields[line.substr(0, colon)] = line.substr(colon + 2);
  return fields;
}

struct expectation {
  std::map<std::string, std::string> fields;
};

inline std::optional<expectation> read_expectation(const std::string& sub, const std::string& name) {
  auto p = data_dir(sub) / (name + ".error");
  if (!std::filesystem::exists(p)) return std::nullopt;
  expectation e;
  std::istringstream in(read_file(p));
  std::string line;
  while (std::getline(in, line)) {
    auto colon = line.find(": ");
    if (colon == std::string::npos) continue;
    e.fields[line.substr(0, colon)] = line.substr(colon + 2);
  }
  return e;
}

// Checks `d` against every field the sidecar names.
inline void check_diagnostic(const diagnostic& d, const expectation& e, streamt::phase expected_phase) {
  BOOST_TEST_CONTEXT("diagnostic: code=" << d.code << " path=" << d.path << " at " << d.line << ":"
                                         << d.column << " message=" << d.message) {
    BOOST_TEST(static_cast<int>(d.phase) == static_cast<int>(expected_phase));
    BOOST_TEST(!d.message.empty());
    BOOST_TEST(e.fields.count("code") == 1u, "every sidecar names the expected code");
    for (const auto& [key, value] : e.fields) {
      BOOST_TEST_INFO("expected " << key << ": " << value);
      if (key == "code") {
        BOOST_TEST(d.code == value);
      } else if (key == "path") {
        BOOST_TEST(d.path == value);
      } else if (key == "message") {
        BOOST_TEST(d.message.find(value) != std::string::npos);
      } else if (key == "line") {
        BOOST_TEST(d.line == std::stoul(value));
      } else if (key == "column") {
        BOOST_TEST(d.column == std::stoul(value));
      } else {
        BOOST_TEST(false, "unknown sidecar key " << key);
      }
    }
  }
}

}  // namespace streamt::test
