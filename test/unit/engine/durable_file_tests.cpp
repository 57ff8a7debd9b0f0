// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/durable_file.hpp"

#include "test/support/temp_dir.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

// The test's directory.
struct scratch {
  streamt::test::temp_dir tmp{"streamt-durable"};
  fs::path dir = tmp.path();
};

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(durable_file)

BOOST_AUTO_TEST_CASE(a_durable_write_replaces_the_file_whole_and_leaves_no_temporary_file) {
  scratch s;
  const std::string path = (s.dir / "identity.json").string();
  BOOST_TEST(!streamt::engine::write_file_durably(path, "first\n").has_value());
  BOOST_TEST(!streamt::engine::write_file_durably(path, "second\n", 0600).has_value());
  BOOST_TEST(read(path) == "second\n");
  BOOST_TEST(entries(s.dir) == 1u);
  BOOST_TEST((fs::status(path).permissions() == (fs::perms::owner_read | fs::perms::owner_write)));
}

BOOST_AUTO_TEST_CASE(a_durable_write_into_a_missing_directory_fails_naming_it) {
  scratch s;
  const std::string path = (s.dir / "missing" / "plan.json").string();
  auto e = streamt::engine::write_file_durably(path, "x");
  BOOST_TEST_REQUIRE(e.has_value());
  BOOST_TEST(e->find((s.dir / "missing").string()) != std::string::npos, *e);
}

BOOST_AUTO_TEST_CASE(a_durable_append_adds_lines_in_order) {
  scratch s;
  const std::string path = (s.dir / "history").string();
  BOOST_TEST(!streamt::engine::append_durably(path, "one\n").has_value());
  BOOST_TEST(!streamt::engine::append_durably(path, "two\n").has_value());
  BOOST_TEST(read(path) == "one\ntwo\n");
}

BOOST_AUTO_TEST_SUITE_END()
