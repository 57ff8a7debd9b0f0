// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#define BOOST_TEST_MODULE fuzz_regressions
// Replays every file of corpus/<target>/ and regressions/<target>/ through the
// fuzz target bodies in the normal (gcc) build, so an input that once crashed
// a fuzzer stays a test without clang or libFuzzer. A violated invariant
// aborts the test with the input printed (see fuzz_support.hpp).
#include "test/fuzz/fuzz_support.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

fs::path fuzz_dir() { return fs::path(STREAMT_TEST_DATA_DIR) / ".." / "fuzz"; }

// Input files (not dot files such as .gitkeep), sorted for a stable order.
std::vector<fs::path> inputs(const fs::path& dir) {
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename().string().front() != '.') files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `body` over the target's corpus and regressions; the corpus must not
// be empty (a lost corpus would make this test pass vacuously).
template <class Body>
void replay(const std::string& target, Body body) {
  auto corpus = inputs(fuzz_dir() / "corpus" / target);
  auto regressions = inputs(fuzz_dir() / "regressions" / target);
  BOOST_TEST_REQUIRE(corpus.size() >= 10u,
                     "corpus/" << target << " holds only " << corpus.size() << " inputs");
  for (const auto* set : {&corpus, &regressions})
    for (const auto& p : *set) {
      BOOST_TEST_CHECKPOINT(p.string());
      body(read_bytes(p));
    }
  BOOST_TEST_MESSAGE(target << ": " << corpus.size() << " corpus inputs, " << regressions.size()
                            << " regression inputs replayed");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fuzz_regressions)

BOOST_AUTO_TEST_CASE(every_sql_corpus_and_regression_input_keeps_the_compiler_invariants) {
  replay("sql", [](const std::string& s) { streamt::fuzz::sql_one_input(s); });
}

BOOST_AUTO_TEST_CASE(every_plan_corpus_and_regression_input_keeps_the_loader_invariants) {
  replay("plan", [](const std::string& s) { streamt::fuzz::plan_one_input(s); });
}

BOOST_AUTO_TEST_CASE(every_record_corpus_and_regression_input_keeps_the_pipeline_invariants) {
  replay("record", [](const std::string& s) { streamt::fuzz::record_one_input(s); });
}

BOOST_AUTO_TEST_CASE(every_values_corpus_and_regression_input_keeps_the_decimal_and_timestamp_invariants) {
  replay("values", [](const std::string& s) { streamt::fuzz::values_one_input(s); });
}

BOOST_AUTO_TEST_CASE(every_avro_schema_corpus_and_regression_input_keeps_the_schema_invariants) {
  replay("avro_schema", [](const std::string& s) { streamt::fuzz::avro_schema_one_input(s); });
}

BOOST_AUTO_TEST_CASE(every_avro_record_corpus_and_regression_input_keeps_the_decoder_invariants) {
  replay("avro_record", [](const std::string& s) { streamt::fuzz::avro_record_one_input(s); });
}

BOOST_AUTO_TEST_SUITE_END()
