// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// `streamt compile --supersedes DIGEST` and `--supersedes-standing` through
// the binary: what a digest must look like, how it is told from a plan
// file, and the usage and broker errors of reading the plan log. The plan
// log itself is read on a real broker in test/integration/plan_succession.sh.

#include "test/cli/run_process.hpp"
#include "test/support/closed_port.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using streamt::test::contains;
using streamt::test::process_result;
using streamt::test::read_text;
using streamt::test::run_streamt;
using streamt::test::temp_dir;

namespace {

const std::string examples = streamt::test::examples_dir("orders");

// `streamt compile` of the example query on application orders-big, with
// `extra` before the SQL file.
process_result compile_with(const std::string& application_id, const std::vector<std::string>& extra) {
  std::vector<std::string> args{"compile",          "--schema",     examples + "orders.schema.json",
                                "--application-id", application_id, "--sink-topic",
                                "big-orders"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(examples + "big_orders.sql");
  return run_streamt(args);
}

// The digest `streamt check` prints for `plan`, or empty.
std::string digest_of(const std::string& plan) {
  const std::string out = run_streamt({"check", plan}).out;
  const auto at = out.find("digest:         ");
  return at == std::string::npos ? std::string() : out.substr(at + 16, 71);
}

// The line `streamt check` prints for the predecessors of `plan`, or empty.
std::string supersedes_line(const std::string& plan) {
  const std::string out = run_streamt({"check", plan}).out;
  const auto at = out.find("supersedes:     ");
  return at == std::string::npos ? std::string() : out.substr(at + 16, out.find('\n', at) - at - 16);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compile_supersedes)

BOOST_AUTO_TEST_CASE(a_plan_compiled_with_supersedes_names_its_predecessor_then_that_ones_own) {
  temp_dir dir;
  const std::string a = dir.file("a.json"), b = dir.file("b.json"), c = dir.file("c.json");
  BOOST_TEST_REQUIRE(compile_with("orders-big", {"--output", a}).exit_code == 0);
  process_result r = compile_with("orders-big", {"--supersedes", a, "--output", b});
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  r = compile_with("orders-big", {"--supersedes", b, "--output", c});
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  // The same query each time: only the succession tells the plans apart.
  BOOST_TEST(digest_of(a) != digest_of(b));
  const std::string checked = run_streamt({"check", c}).out;
  BOOST_TEST(contains(checked, "supersedes:     " + digest_of(b) + " (and 1 before it)"), checked);
  const std::string explained = run_streamt({"explain", c}).out;
  BOOST_TEST(contains(explained, "succeeds   " + digest_of(b)), explained);
  BOOST_TEST(contains(explained, "             " + digest_of(a)), explained);
  BOOST_TEST(!contains(run_streamt({"check", a}).out, "supersedes:"));
  // Another application's plan is no predecessor.
  r = compile_with("orders-other", {"--supersedes", a});
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(contains(r.err, "its application id is 'orders-big', this plan's 'orders-other'"), r.err);
  // A predecessor that is no valid plan is refused as check refuses it.
  const std::string broken = dir.file("broken.json");
  std::ofstream(broken) << "{}";
  BOOST_TEST(compile_with("orders-big", {"--supersedes", broken}).exit_code == 1);
}

BOOST_AUTO_TEST_CASE(a_digest_is_put_first_in_the_chain_alone_and_gives_the_plan_its_file_would) {
  temp_dir dir;
  const std::string a = dir.file("a.json"), b = dir.file("b.json");
  BOOST_TEST_REQUIRE(compile_with("orders-big", {"--output", a}).exit_code == 0);
  BOOST_TEST_REQUIRE(compile_with("orders-big", {"--supersedes", a, "--output", b}).exit_code == 0);
  const std::string digest_a = digest_of(a), digest_b = digest_of(b);
  BOOST_TEST_REQUIRE(digest_a.starts_with("sha256:"));
  // A has no predecessors: its digest alone names all its file would.
  const std::string by_digest = dir.file("by-digest.json");
  process_result r = compile_with("orders-big", {"--supersedes", digest_a, "--output", by_digest});
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  BOOST_TEST(r.err.empty(), r.err);
  BOOST_TEST(read_text(by_digest) == read_text(b));
  // B's digest alone: B first, and not B's own predecessor A, which only
  // B's file names.
  const std::string c = dir.file("c.json"), c_from_file = dir.file("c-from-file.json");
  BOOST_TEST_REQUIRE(compile_with("orders-big", {"--supersedes", digest_b, "--output", c}).exit_code == 0);
  BOOST_TEST(supersedes_line(c) == digest_b);
  BOOST_TEST_REQUIRE(compile_with("orders-big", {"--supersedes", b, "--output", c_from_file}).exit_code == 0);
  BOOST_TEST(supersedes_line(c_from_file) == digest_b + " (and 1 before it)");
  // Nothing is known of the plan behind a digest: not even its application id.
  r = compile_with("orders-other", {"--supersedes", digest_a});
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(contains(r.out, "\"" + digest_a + "\""), r.out);
}

BOOST_AUTO_TEST_CASE(a_value_that_starts_with_sha256_is_a_digest_and_must_be_a_whole_lowercase_one) {
  const std::string hex(64, 'a');
  struct refused {
    std::string value;
    std::string why;
  };
  const std::vector<refused> cases{
      {"sha256:" + hex.substr(0, 12), "it has 12 characters after 'sha256:'; a digest has 64"},
      {"sha256:" + hex + "a", "it has 65 characters after 'sha256:'; a digest has 64"},
      {"sha256:" + hex.substr(0, 63) + "g", "character 71 is not a hex digit"},
      {"sha256:" + std::string(64, 'A'), "it has upper-case hex digits; a digest is written in lower case"},
      {"SHA256:" + hex, "it must start with 'sha256:' in lower case"},
  };
  for (const refused& c : cases) {
    process_result r = compile_with("orders-big", {"--supersedes", c.value});
    BOOST_TEST(r.exit_code == 2, c.value << ": " << r.err);
    BOOST_TEST(contains(r.err, "--supersedes '" + c.value + "' is not a plan digest: " + c.why), r.err);
    BOOST_TEST(r.out.empty());
  }
  // The hex without its prefix, where no such file is, is neither: say how.
  process_result r = compile_with("orders-big", {"--supersedes", hex});
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(contains(r.err, "is no plan file; to name a plan by its digest, write it as sha256:" + hex),
             r.err);
}

BOOST_AUTO_TEST_CASE(a_value_without_the_prefix_is_a_plan_file_whatever_its_name) {
  temp_dir dir;
  const std::string a = dir.file("a.json");
  BOOST_TEST_REQUIRE(compile_with("orders-big", {"--output", a}).exit_code == 0);
  // A file named like a digest is a file when its path does not start with
  // sha256: (here, a directory before it).
  const std::string named_like_a_digest = dir.file("sha256:" + std::string(64, 'b'));
  std::filesystem::copy_file(a, named_like_a_digest);
  process_result r = compile_with("orders-big", {"--supersedes", named_like_a_digest});
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(contains(r.out, "\"" + digest_of(a) + "\""), r.out);
  // So is one named by the hex alone, when it exists.
  const std::string bare = dir.file(std::string(64, 'c'));
  std::filesystem::copy_file(a, bare);
  const std::filesystem::path was = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  r = compile_with("orders-big", {"--supersedes", std::string(64, 'c')});
  std::filesystem::current_path(was);
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(contains(r.out, "\"" + digest_of(a) + "\""), r.out);
}

BOOST_AUTO_TEST_CASE(a_successor_from_a_file_whose_output_has_another_shape_is_warned_about) {
  temp_dir dir;
  const std::string a = dir.file("a.json");
  BOOST_TEST_REQUIRE(compile_with("orders-big", {"--output", a}).exit_code == 0);
  const std::vector<std::string> args{"compile",
                                      "--schema",
                                      examples + "orders.schema.json",
                                      "--application-id",
                                      "orders-big",
                                      "--sink-topic",
                                      "big-orders",
                                      "--supersedes",
                                      a,
                                      "-"};
  process_result r = run_streamt(args, "SELECT id FROM orders");
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(
      contains(r.err, "streamt compile: warning: the plan " + a +
                          " writes output of another shape (projection or schema) than this plan: run it "
                          "with --allow-output-change"),
      r.err);
  // Another predicate, the same projection: nothing to say.
  r = run_streamt(args, "SELECT id, amount FROM orders WHERE amount > 7");
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(r.err.empty(), r.err);
}

BOOST_AUTO_TEST_CASE(supersedes_standing_needs_bootstrap_servers_and_excludes_supersedes) {
  process_result r = compile_with("orders-big", {"--supersedes-standing"});
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(contains(r.err,
                      "--supersedes-standing reads the application's plan log from Kafka; give "
                      "--bootstrap-servers HOSTS"),
             r.err);
  r = compile_with("orders-big", {"--supersedes-standing", "--bootstrap-servers", "127.0.0.1:1",
                                  "--supersedes", "sha256:" + std::string(64, 'a')});
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(contains(r.err, "--supersedes and --supersedes-standing are two ways"), r.err);
  // The brokers' options mean nothing without it.
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--bootstrap-servers", "127.0.0.1:1"},
        std::vector<std::string>{"-b", "127.0.0.1:1"}, std::vector<std::string>{"--timeout-ms", "100"},
        std::vector<std::string>{"-X", "client.id=x"}, std::vector<std::string>{"--config", "/dev/null"}}) {
    r = compile_with("orders-big", extra);
    BOOST_TEST(r.exit_code == 2, extra.front() << ": " << r.err);
    BOOST_TEST(contains(r.err, " is used only with --supersedes-standing"), r.err);
  }
  // Read as the other commands read them.
  r = compile_with("orders-big", {"--supersedes-standing", "--bootstrap-servers", "a:9092,"});
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(contains(r.err, "has an empty entry"), r.err);
  r = compile_with("orders-big",
                   {"--supersedes-standing", "--bootstrap-servers", "127.0.0.1:1", "--timeout-ms", "0"});
  BOOST_TEST(r.exit_code == 2, r.err);
  r = compile_with("orders-big", {"--supersedes-standing", "--bootstrap-servers", "127.0.0.1:1", "-X",
                                  "transactional.id=mine"});
  BOOST_TEST(r.exit_code == 78, r.err);
  BOOST_TEST(contains(r.err, "'transactional.id' is owned by the engine"), r.err);
}

BOOST_AUTO_TEST_CASE(supersedes_standing_exits_69_within_its_timeout_when_no_broker_answers) {
  temp_dir dir;
  const std::string out = dir.file("b.json");
  const std::string servers = "127.0.0.1:" + std::to_string(streamt::test::closed_port());
  const auto started = std::chrono::steady_clock::now();
  process_result r = compile_with("orders-big", {"--supersedes-standing", "--bootstrap-servers", servers,
                                                 "--timeout-ms", "1500", "--output", out});
  const auto took = std::chrono::steady_clock::now() - started;
  BOOST_TEST(r.exit_code == 69, r.err);
  BOOST_TEST(contains(r.err, "streamt compile: --supersedes-standing: "), r.err);
  BOOST_TEST(contains(r.err, "orders-big-streamt-plans"), r.err);
  BOOST_TEST(contains(r.err, "check --bootstrap-servers and that the brokers are up, then try again"), r.err);
  BOOST_TEST(!std::filesystem::exists(out));
  // Two bounded requests at most (the log's place, then its records).
  BOOST_TEST(took < std::chrono::seconds(15));
}

BOOST_AUTO_TEST_CASE(supersedes_standing_tells_a_query_error_before_it_asks_the_brokers) {
  process_result r = run_streamt(
      {"compile", "--schema", examples + "orders.schema.json", "--application-id", "orders-big",
       "--sink-topic", "big-orders", "--supersedes-standing", "--bootstrap-servers", "127.0.0.1:1", "-"},
      "SELECT nope FROM orders");
  BOOST_TEST(r.exit_code == 1, r.err);
  BOOST_TEST(contains(r.err, "streamt compile: <stdin>:1:"), r.err);
  BOOST_TEST(!contains(r.err, "--supersedes-standing"), r.err);
}

BOOST_AUTO_TEST_SUITE_END()
