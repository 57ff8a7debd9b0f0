// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "test/cli/run_process.hpp"
#include "test/support/closed_port.hpp"

#define BOOST_TEST_MODULE cli
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json/parse.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using streamt::test::contains;
using streamt::test::process_result;
using streamt::test::read_text;
using streamt::test::run_streamt;
using streamt::test::temp_dir;
using streamt::test::write_text;

namespace {

const std::string examples = streamt::test::examples_dir("orders");
const std::string schema = examples + "orders.schema.json";

// Compiles the example query into dir/plan.json and returns its path.
std::string compile_example(const temp_dir& dir, const std::string& sql_file = "big_orders.sql") {
  const std::string plan = dir.file("plan.json");
  process_result r = run_streamt({"compile", "--schema", schema, "--application-id", "orders-big",
                                  "--sink-topic", "big-orders", "--output", plan, examples + sql_file});
  BOOST_TEST_REQUIRE(r.exit_code == 0, "compile failed: " << r.err);
  return plan;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compile)

BOOST_AUTO_TEST_CASE(writes_a_plan_that_check_accepts) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  const std::string text = read_text(plan);
  BOOST_TEST(contains(text, "\"plan_version\": 1"));
  BOOST_TEST(contains(text, "\"digest\": \"sha256:"));
  process_result check = run_streamt({"check", plan});
  BOOST_TEST(check.exit_code == 0);
  BOOST_TEST(contains(check.out, "application_id: orders-big"));
  BOOST_TEST(contains(check.out, "sink_topic:     big-orders"));
  // The digest check prints is the one recorded in the file.
  const auto at = check.out.find("sha256:");
  BOOST_TEST_REQUIRE(at != std::string::npos);
  BOOST_TEST(contains(text, check.out.substr(at, 7 + 64)));
}

BOOST_AUTO_TEST_CASE(reads_sql_from_standard_input_and_writes_the_plan_to_stdout) {
  process_result r = run_streamt(
      {"compile", "--schema", schema, "--application-id", "orders-big", "--sink-topic", "big-orders", "-"},
      "select id as order_id from orders where note is null");
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(contains(r.out, "\"order_id\""));
  BOOST_TEST(r.err.empty());
}

// With no SQL_FILE and a terminal on standard input, compile would look
// hung; it says first what it waits for. The terminal is a pseudo-terminal
// (posix_openpt: no tool besides the C library); the test waits for the
// note on stderr (a pipe) before it types anything, then ends the input as a
// user does, with Ctrl-D on an empty line.
BOOST_AUTO_TEST_CASE(compile_reading_a_terminal_says_it_waits_for_the_statement_and_ends_at_ctrl_d) {
  using std::chrono::steady_clock;
  temp_dir dir;
  const int terminal = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  BOOST_TEST_REQUIRE(terminal >= 0, "posix_openpt: " << std::strerror(errno));
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } close_terminal{terminal};
  BOOST_TEST_REQUIRE((::grantpt(terminal) == 0 && ::unlockpt(terminal) == 0));
  const std::string user_side = ::ptsname(terminal);
  int err_pipe[2];
  BOOST_TEST_REQUIRE(::pipe2(err_pipe, O_CLOEXEC) == 0);
  closer close_err_read{err_pipe[0]};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, user_side.c_str(), O_RDWR | O_NOCTTY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, dir.file("stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  std::vector<std::string> storage{STREAMT_BINARY,     "compile",    "--schema",     schema,
                                   "--application-id", "orders-big", "--sink-topic", "big-orders"};
  std::vector<char*> argv;
  for (std::string& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, STREAMT_BINARY, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(err_pipe[1]);
  BOOST_TEST_REQUIRE(spawned == 0);

  // Reads stderr until `done` holds or the pipe ends (true), or until the
  // deadline (false). The deadline is a test limit, not a synchronisation:
  // past it the test fails.
  std::string err;
  const auto deadline = steady_clock::now() + std::chrono::seconds(30);
  auto read_err_until = [&](auto done) {
    while (!done()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady_clock::now());
      pollfd p{err_pipe[0], POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      char buf[4096];
      const ssize_t n = ::read(err_pipe[0], buf, sizeof buf);
      if (n <= 0) return true;
      err.append(buf, static_cast<std::size_t>(n));
    }
    return true;
  };
  const std::string note =
      "streamt compile: reading the SQL statement from standard input (end it with Ctrl-D); give a SQL_FILE "
      "to "
      "read it from a file\n";
  const bool noted = read_err_until([&] { return contains(err, note); }) && contains(err, note);
  bool typed = false;
  if (noted) {
    const std::string input = "select id as order_id from orders where note is null\n\x04";
    typed = ::write(terminal, input.data(), input.size()) == static_cast<ssize_t>(input.size());
  }
  // The pipe ends when the process does.
  const bool ended = typed && read_err_until([] { return false; });
  if (!ended) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  BOOST_TEST_REQUIRE(noted, "no note on stderr: '" << err << "'");
  BOOST_TEST_REQUIRE(typed);
  BOOST_TEST_REQUIRE(ended, "did not end at Ctrl-D; stderr: " << err);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0, err);
  BOOST_TEST(err == note);  // the note once, and nothing else
  BOOST_TEST(contains(read_text(dir.file("stdout")), "\"order_id\""));
}

BOOST_AUTO_TEST_CASE(compiles_against_an_avro_schema_whose_fields_become_the_columns) {
  temp_dir dir;
  const std::string avro = streamt::test::examples_dir("avro");
  const std::string plan = dir.file("plan.json");
  process_result r = run_streamt({"compile", "--schema", avro + "payments.avsc", "--source-topic",
                                  "shop.public.payments", "--application-id", "payments-big", "--sink-topic",
                                  "big-payments", "--output", plan, avro + "big_payments.sql"});
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  const auto p = boost::json::parse(read_text(plan));
  BOOST_TEST(p.at("plan_version").as_int64() == 2);
  BOOST_TEST(p.at("identity").at("source_topic").as_string() == "shop.public.payments");
  BOOST_TEST(p.at("schema").at("source").as_string() == "payments");
  BOOST_TEST(p.at("schema").at("avro").at("fingerprint").as_string().size() == 16u);
  BOOST_TEST(p.at("schema").at("columns").at(1).at("name").as_string() == "after");
  BOOST_TEST(p.at("schema").at("columns").at(1).at("type").as_string() == "ROW");

  process_result explained = run_streamt({"explain", plan});
  BOOST_TEST(explained.exit_code == 0);
  BOOST_TEST(contains(explained.out, "Avro in the Confluent wire format"));

  // Its records' writer schemas come from a registry: run without one is a
  // usage error before anything touches Kafka.
  process_result ran = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:9"});
  BOOST_TEST(ran.exit_code == 2);
  BOOST_TEST(contains(ran.err, "give --schema-registry URL"), ran.err);
}

BOOST_AUTO_TEST_CASE(a_comparison_on_an_avro_array_names_the_avro_type_kept_as_json) {
  temp_dir dir;
  write_text(dir.file("s.avsc"), R"({"type": "record", "name": "R", "fields": [
      {"name": "tags", "type": {"type": "array", "items": "string"}}]})");
  write_text(dir.file("q.sql"), "SELECT tags FROM r WHERE tags = 'x'");
  process_result r = run_streamt({"compile", "--schema", dir.file("s.avsc"), "--application-id", "a",
                                  "--sink-topic", "b", dir.file("q.sql")});
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(contains(r.err, "q.sql:1:31"));
  BOOST_TEST(contains(r.err, "its Avro type, array, is kept as JSON"));
}

using streamt::test::closed_port;

BOOST_AUTO_TEST_CASE(compile_from_a_registry_that_is_down_exits_69_naming_it_without_credentials) {
  const std::string port = std::to_string(closed_port());
  process_result r = run_streamt({"compile", "--schema-registry", "http://alice:pa55word@127.0.0.1:" + port,
                                  "--application-id", "a", "--sink-topic", "b"},
                                 "SELECT id FROM orders");
  BOOST_TEST(r.exit_code == 69, r.err);
  BOOST_TEST(contains(r.err, "schema registry http://127.0.0.1:" + port), r.err);
  BOOST_TEST(contains(r.err, "subject 'orders-value'"), r.err);
  BOOST_TEST(!contains(r.err, "pa55word"), r.err);
  BOOST_TEST(r.out.empty());
}

BOOST_AUTO_TEST_CASE(compile_takes_its_schema_from_a_file_or_a_registry_not_both) {
  process_result both =
      run_streamt({"compile", "--schema", schema, "--schema-registry", "http://127.0.0.1:1",
                   "--application-id", "a", "--sink-topic", "b", examples + "big_orders.sql"});
  BOOST_TEST(both.exit_code == 2);
  BOOST_TEST(contains(both.err, "give one"));
  process_result neither =
      run_streamt({"compile", "--application-id", "a", "--sink-topic", "b", examples + "big_orders.sql"});
  BOOST_TEST(neither.exit_code == 2);
  BOOST_TEST(contains(neither.err, "missing --schema (or --schema-registry)"));
  process_result version_alone =
      run_streamt({"compile", "--schema", schema, "--schema-version", "2", "--application-id", "a",
                   "--sink-topic", "b", examples + "big_orders.sql"});
  BOOST_TEST(version_alone.exit_code == 2);
  BOOST_TEST(contains(version_alone.err, "--schema-version is used only with --schema-registry URL"));
}

BOOST_AUTO_TEST_CASE(compile_from_a_registry_reports_a_query_that_does_not_parse_without_asking_it) {
  // Port 1: were it asked, the answer would be 69, not the query's 1.
  process_result r = run_streamt(
      {"compile", "--schema-registry", "http://127.0.0.1:1", "--application-id", "a", "--sink-topic", "b"},
      "SELECT id FROM");
  BOOST_TEST(r.exit_code == 1, r.err);
  BOOST_TEST(contains(r.err, "<stdin>:1:"), r.err);
}

BOOST_AUTO_TEST_CASE(check_against_a_registry_needs_a_plan_with_an_avro_source) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  process_result r = run_streamt({"check", plan, "--schema-registry", "http://127.0.0.1:1"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "source is JSON"), r.err);
  BOOST_TEST(r.out.empty());
}

BOOST_AUTO_TEST_CASE(check_against_a_registry_that_is_down_exits_69_after_the_plans_identity) {
  temp_dir dir;
  const std::string avro = streamt::test::examples_dir("avro");
  const std::string plan = dir.file("plan.json");
  process_result compiled =
      run_streamt({"compile", "--schema", avro + "payments.avsc", "--source-topic", "shop.public.payments",
                   "--application-id", "payments-big", "--sink-topic", "big-payments", "--output", plan,
                   avro + "big_payments.sql"});
  BOOST_TEST_REQUIRE(compiled.exit_code == 0, compiled.err);
  const std::string port = std::to_string(closed_port());
  process_result r = run_streamt({"check", plan, "--schema-registry", "http://127.0.0.1:" + port});
  BOOST_TEST(r.exit_code == 69, r.err);
  BOOST_TEST(contains(r.out, "digest:"));
  // A plan compiled from a file names no subject: the topic's value subject.
  BOOST_TEST(contains(r.err, "subject 'shop.public.payments-value'"), r.err);
  BOOST_TEST(contains(r.err, "schema registry http://127.0.0.1:" + port), r.err);
}

BOOST_AUTO_TEST_CASE(source_topic_belongs_to_an_avro_schema_only) {
  process_result r = run_streamt({"compile", "--schema", schema, "--source-topic", "x", "--application-id",
                                  "a", "--sink-topic", "b", examples + "big_orders.sql"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "--source-topic is for an Avro schema"));
}

BOOST_AUTO_TEST_CASE(rejects_or_with_its_position_and_writes_nothing) {
  temp_dir dir;
  const std::string plan = dir.file("plan.json");
  process_result r =
      run_streamt({"compile", "--schema", schema, "--application-id", "orders-big", "--sink-topic",
                   "big-orders", "--output", plan, examples + "bad_query.sql"});
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(contains(r.err, "bad_query.sql:3:20: error:"), r.err);
  BOOST_TEST(contains(r.err, "OR"));
  BOOST_TEST(contains(r.err, "                   ^"), "caret under the column: " << r.err);
  BOOST_TEST(!std::filesystem::exists(plan));
  BOOST_TEST(r.out.empty());
}

// Over plan::max_sql_bytes (64 KiB) the compiler itself refuses the text,
// naming the limit and the position past it: rejected SQL (1), not usage.
BOOST_AUTO_TEST_CASE(rejects_sql_over_64_kib_as_sql_too_large_with_exit_1) {
  temp_dir dir;
  std::string sql = "SELECT id FROM orders WHERE amount >= 50\n";
  while (sql.size() <= 64 * 1024) sql += "AND amount >= 50\n";
  write_text(dir.file("big.sql"), sql);
  process_result r = run_streamt(
      {"compile", "--schema", schema, "--application-id", "a", "--sink-topic", "b", dir.file("big.sql")});
  BOOST_TEST(r.exit_code == 1, r.err);
  BOOST_TEST(contains(r.err, "65536"), r.err);
  BOOST_TEST(contains(r.err, "big.sql:"), r.err);
  BOOST_TEST(r.out.empty());
}

// Far larger input (a wrong path to a big file) is not read to the end, and
// is still rejected SQL (1).
BOOST_AUTO_TEST_CASE(rejects_a_sql_file_over_the_read_limit_with_exit_1_without_reading_it_all) {
  temp_dir dir;
  write_text(dir.file("huge.sql"), std::string((2u << 20), 'x'));
  process_result r = run_streamt(
      {"compile", "--schema", schema, "--application-id", "a", "--sink-topic", "b", dir.file("huge.sql")});
  BOOST_TEST(r.exit_code == 1, r.err);
  BOOST_TEST(contains(r.err, "holds more than"), r.err);
  BOOST_TEST(r.out.empty());
}

BOOST_AUTO_TEST_CASE(rejects_a_type_mismatch_naming_both_types) {
  process_result r =
      run_streamt({"compile", "--schema", schema, "--application-id", "a", "--sink-topic", "b"},
                  "SELECT id FROM orders WHERE amount >= '50'");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(contains(r.err, "<stdin>:1:"));
  BOOST_TEST(contains(r.err, "BIGINT"));
  BOOST_TEST(r.out.empty());
}

BOOST_AUTO_TEST_CASE(rejects_a_malformed_schema_with_its_json_path) {
  temp_dir dir;
  write_text(
      dir.file("s.json"),
      R"({"source":"orders","topic":"orders","columns":[{"name":"id","type":"TEXT","nullable":false}]})");
  process_result r =
      run_streamt({"compile", "--schema", dir.file("s.json"), "--application-id", "a", "--sink-topic", "b"},
                  "SELECT id FROM orders");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(contains(r.err, "$.columns[0].type"), r.err);
}

BOOST_AUTO_TEST_CASE(rejects_an_application_id_kafka_cannot_use) {
  process_result r =
      run_streamt({"compile", "--schema", schema, "--application-id", "orders big!", "--sink-topic", "b"},
                  "SELECT id FROM orders");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(contains(r.err, "--application-id"), r.err);
  BOOST_TEST(r.out.empty());
}

BOOST_AUTO_TEST_CASE(missing_options_are_usage_errors) {
  process_result r = run_streamt({"compile", "--schema", schema}, "SELECT id FROM orders");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "missing --application-id"));
  BOOST_TEST(run_streamt({"compile", "--bogus"}).exit_code == 2);
  BOOST_TEST(run_streamt({"compile", "--schema", "/nonexistent/schema.json", "--application-id", "a",
                          "--sink-topic", "b"},
                         "SELECT id FROM orders")
                 .exit_code == 2);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(check_and_explain)

BOOST_AUTO_TEST_CASE(check_refuses_a_plan_edited_after_compiling) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  std::string text = read_text(plan);
  const auto at = text.find("\"value\": 50");
  BOOST_TEST_REQUIRE(at != std::string::npos, text);
  text.replace(at, 11, "\"value\": 5");
  write_text(plan, text);
  process_result r = run_streamt({"check", plan});
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(contains(r.err, "$.digest"), r.err);
  BOOST_TEST(r.out.empty());
}

BOOST_AUTO_TEST_CASE(check_refuses_an_unknown_field_with_its_path) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  std::string text = read_text(plan);
  text.replace(text.find('{'), 1, "{\"extra\": 1,");
  write_text(plan, text);
  process_result r = run_streamt({"check", plan});
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(contains(r.err, "extra"), r.err);
}

BOOST_AUTO_TEST_CASE(check_needs_exactly_one_plan) {
  BOOST_TEST(run_streamt({"check"}).exit_code == 2);
  BOOST_TEST(run_streamt({"check", "/nonexistent/plan.json"}).exit_code == 2);
}

BOOST_AUTO_TEST_CASE(a_report_that_cannot_be_written_exits_74_not_0) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  for (const char* command : {"check", "explain"}) {
    process_result r = run_streamt({command, plan}, {}, "/dev/full");
    BOOST_TEST(r.exit_code == 74, command << ": " << r.err);
    BOOST_TEST(contains(r.err, "writing to standard output failed"), r.err);
  }
}

BOOST_AUTO_TEST_CASE(status_names_itself_in_its_errors) {
  process_result r =
      run_streamt({"status", "orders-app", "--bootstrap-servers", "127.0.0.1:1", "--timeout-ms", "300"});
  BOOST_TEST(r.exit_code == 69, r.err);
  BOOST_TEST(contains(r.err, "streamt status: describing group 'orders-app': "), r.err);
  BOOST_TEST(!contains(r.err, "streamt offsets"), r.err);
}

BOOST_AUTO_TEST_CASE(explain_prints_the_four_stages_in_order) {
  temp_dir dir;
  process_result r = run_streamt({"explain", compile_example(dir)});
  BOOST_TEST(r.exit_code == 0, r.err);
  const auto d = r.out.find("1. decode"), f = r.out.find("2. filter"), p = r.out.find("3. project"),
             e = r.out.find("4. encode");
  BOOST_TEST((d != std::string::npos && d < f && f < p && p < e && e != std::string::npos), r.out);
  BOOST_TEST(contains(r.out, "amount >= 50"));
  BOOST_TEST(contains(r.out, "SELECT id, amount FROM orders WHERE amount >= 50"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(replay)

BOOST_AUTO_TEST_CASE(replays_the_orders_example_to_a_d_and_e) {
  temp_dir dir;
  process_result r = run_streamt({"replay", compile_example(dir), "--input", examples + "orders.jsonl"});
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(
      r.out ==
      R"({"topic":"big-orders","key":"a","payload":"{\"id\":\"a\",\"amount\":120}","source":{"topic":"orders","partition":0,"offset":0}})"
      "\n"
      R"({"topic":"big-orders","key":"d","payload":"{\"id\":\"d\",\"amount\":90}","source":{"topic":"orders","partition":0,"offset":3}})"
      "\n"
      R"({"topic":"big-orders","key":"e","payload":"{\"id\":\"e\",\"amount\":110}","source":{"topic":"orders","partition":0,"offset":4}})"
      "\n");
  BOOST_TEST(contains(r.err, "7 consumed, 3 emitted, 3 filtered, 1 tombstones"), r.err);
}

// The version 2 examples: each folder's query compiled against its schema
// and replayed over its records gives exactly its expected.jsonl.
void check_example(const std::string& folder, const std::string& schema_file, const std::string& sql_file,
                   const std::string& sink, const std::string& summary, const std::string& explained) {
  const std::string at = streamt::test::examples_dir(folder);
  temp_dir dir;
  const std::string plan = dir.file("plan.json");
  process_result c = run_streamt({"compile", "--schema", at + schema_file, "--application-id", sink,
                                  "--sink-topic", sink, "--output", plan, at + sql_file});
  BOOST_TEST_REQUIRE(c.exit_code == 0, c.err);
  process_result check = run_streamt({"check", plan});
  BOOST_TEST(contains(check.out, "plan_version:   2"), check.out);
  process_result explain = run_streamt({"explain", plan});
  BOOST_TEST(contains(explain.out, explained), explain.out);
  process_result r = run_streamt({"replay", plan, "--input", at + "records.jsonl"});
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(r.out == read_text(at + "expected.jsonl"));
  BOOST_TEST(contains(r.err, summary), r.err);
}

BOOST_AUTO_TEST_CASE(replays_the_debezium_example_with_its_tombstone_forwarded) {
  check_example("debezium", "payments.schema.json", "big_payments.sql", "big-payments",
                "7 consumed, 4 emitted, 2 filtered, 1 tombstones (1 forwarded)",
                "      amount DECIMAL(10,2) NOT NULL\n");
}

BOOST_AUTO_TEST_CASE(replays_the_tenants_example_filtered_on_a_header) {
  check_example("tenants", "events.schema.json", "acme_events.sql", "acme-events",
                "6 consumed, 3 emitted, 3 filtered",
                "tenant STRING NULL (from the record's header:tenant, not the value)");
}

BOOST_AUTO_TEST_CASE(replays_the_routes_example_split_by_tenant_with_its_coverage_reported) {
  const std::string at = streamt::test::examples_dir("routes");
  temp_dir dir;
  const std::string plan = dir.file("plan.json");
  process_result c =
      run_streamt({"compile", "--schema", at + "events.schema.json", "--application-id", "tenant-split",
                   "--unrouted-topic", "untagged_events", "--output", plan, at + "tenant_split.sql"});
  BOOST_TEST_REQUIRE(c.exit_code == 0, c.err);
  // What the example's README shows.
  BOOST_TEST(contains(c.err, "tenant_split.sql: coverage: no route takes {\"tenant\": null}\n"), c.err);
  BOOST_TEST(contains(c.err, "coverage: records no route takes are written to untagged_events\n"), c.err);
  process_result r = run_streamt({"replay", plan, "--input", at + "records.jsonl"});
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(r.out == read_text(at + "expected.jsonl"));
  BOOST_TEST(contains(r.err,
                      "6 consumed, 5 emitted, 1 filtered, 0 tombstones; unrouted: 0 dropped, 1 written; "
                      "routes: acme_events 4, tenant_events 1"),
             r.err);
}

BOOST_AUTO_TEST_CASE(exits_65_at_the_first_invalid_record_with_earlier_outputs_written) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  process_result r = run_streamt({"replay", plan}, read_text(examples + "orders_poisoned.jsonl"));
  BOOST_TEST(r.exit_code == 65);
  BOOST_TEST(contains(r.out, "\"key\":\"g\""));
  BOOST_TEST(!contains(r.out, "\"key\":\"i\""));
  BOOST_TEST(contains(r.err, "orders/0@7"), r.err);
  BOOST_TEST(contains(r.err, "amount"), r.err);
}

BOOST_AUTO_TEST_CASE(a_malformed_envelope_line_exits_65_naming_the_line) {
  temp_dir dir;
  process_result r = run_streamt({"replay", compile_example(dir)}, "{\"payload\":\"{}\"\n");
  BOOST_TEST(r.exit_code == 65);
  BOOST_TEST(contains(r.err, "input line 1"), r.err);
}

BOOST_AUTO_TEST_CASE(an_invalid_plan_exits_1_before_reading_input) {
  temp_dir dir;
  write_text(dir.file("plan.json"), "{\"plan_version\": 2}");
  process_result r = run_streamt({"replay", dir.file("plan.json")}, "this is not read");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(r.out.empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(replay_of_a_directory_or_a_device_is_a_usage_error) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  std::filesystem::create_directory(dir.file("records"));
  for (const auto& [input, why] : std::vector<std::pair<std::string, std::string>>{
           {dir.file("records"), "is a directory, not a file"}, {"/dev/zero", "is a device or a socket"}}) {
    process_result r = run_streamt({"replay", plan, "--input", input});
    BOOST_TEST(r.exit_code == 2, r.err);
    BOOST_TEST(contains(r.err, "--input: '" + input + "' " + why), r.err);
  }
}

BOOST_AUTO_TEST_SUITE(run_settings)

// None of these reach a broker: settings are checked and resolved before any
// Kafka client exists, except where a test says so.

BOOST_AUTO_TEST_CASE(an_unset_environment_variable_exits_78_naming_the_key_and_the_variable) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  const std::string unset = "STREAMT_CLI_UNSET_" + std::to_string(::getpid());
  ::unsetenv(unset.c_str());
  process_result r = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir",
                                  dir.file("state"), "-X", "sasl.password=${env:" + unset + "}"});
  BOOST_TEST(r.exit_code == 78, r.err);
  BOOST_TEST(contains(r.err, "'sasl.password'"), r.err);
  BOOST_TEST(contains(r.err, "environment variable " + unset + " is not set"), r.err);
  BOOST_TEST(!std::filesystem::exists(dir.file("state")));
}

BOOST_AUTO_TEST_CASE(a_config_that_is_a_directory_a_device_or_too_large_is_a_usage_error_before_it_is_read) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  std::filesystem::create_directory(dir.file("conf.d"));
  const std::string big = dir.file("big.properties");
  write_text(big, "client.id=" + std::string(1u << 20, 'x') + "\n");
  const std::vector<std::pair<std::string, std::string>> cases{
      {dir.file("conf.d"), "is a directory, not a file"},
      {"/dev/zero", "is a device or a socket, not a file"},
      {big, "holds more than 1048576 bytes"},
      {dir.file("missing.properties"), "cannot read"},
  };
  for (const auto& [config, why] : cases) {
    for (const char* command : {"run", "offsets"}) {
      std::vector<std::string> args{command};
      if (std::string(command) == "run")
        args.insert(args.end(), {plan, "--state-dir", dir.file("state")});
      else
        args.push_back("orders-app");
      args.insert(args.end(), {"--bootstrap-servers", "127.0.0.1:1", "--config", config});
      process_result r = run_streamt(args);
      BOOST_TEST(r.exit_code == 2, command << " --config " << config << ": " << r.err);
      BOOST_TEST(contains(r.err, "--config: "), r.err);
      BOOST_TEST(contains(r.err, why), r.err);
    }
  }
  BOOST_TEST(!std::filesystem::exists(dir.file("state")));
}

BOOST_AUTO_TEST_CASE(a_malformed_config_file_exits_78_naming_the_file_and_the_line) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  const std::string config = dir.file("client.properties");
  write_text(config, "security.protocol=SASL_SSL\nsasl.username=\\u12G4\n");
  process_result r = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir",
                                  dir.file("state"), "--config", config});
  BOOST_TEST(r.exit_code == 78, r.err);
  BOOST_TEST(contains(r.err, config + ": "), r.err);
}

BOOST_AUTO_TEST_CASE(a_commit_interval_the_transaction_timeout_cannot_hold_exits_78_naming_both) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  process_result r = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir",
                                  dir.file("state"), "--commit-interval-ms", "70000"});
  BOOST_TEST(r.exit_code == 78, r.err);
  BOOST_TEST(contains(r.err, "--commit-interval-ms 70000 leaves no room within transaction.timeout.ms 60000"),
             r.err);
  process_result raised = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir",
                                       dir.file("state"), "--commit-interval-ms", "70000", "-X",
                                       "transaction.timeout.ms=200000", "--connect-timeout-ms", "200"});
  BOOST_TEST(raised.exit_code == 69, raised.err);  // past the check, no broker at that address
  BOOST_TEST(!contains(raised.err, "leaves no room"), raised.err);
}

BOOST_AUTO_TEST_CASE(an_unreadable_secret_file_in_a_config_file_exits_78_naming_the_key_and_the_path) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  const std::string config = dir.file("client.properties");
  write_text(config, "security.protocol=SASL_SSL\nsasl.password=${file:" + dir.file("missing") + "}\n");
  process_result r = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir",
                                  dir.file("state"), "--config", config});
  BOOST_TEST(r.exit_code == 78, r.err);
  BOOST_TEST(contains(r.err, "'sasl.password'"), r.err);
  BOOST_TEST(contains(r.err, dir.file("missing")), r.err);
}

BOOST_AUTO_TEST_CASE(an_inline_secret_warns_without_echoing_it_and_a_reference_does_not_warn) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  // The engine-owned override makes the run stop (78) before any client exists.
  process_result inline_secret =
      run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir", dir.file("state"), "-X",
                   "sasl.password=hunter2-inline", "-X", "isolation.level=read_uncommitted"});
  BOOST_TEST(inline_secret.exit_code == 78, inline_secret.err);
  BOOST_TEST(contains(inline_secret.err, "warning: -X sasl.password puts a secret on the command line"),
             inline_secret.err);
  BOOST_TEST(!contains(inline_secret.err, "hunter2-inline"), inline_secret.err);
  BOOST_TEST(contains(inline_secret.err, "'isolation.level' is owned by the engine"), inline_secret.err);

  process_result referenced =
      run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir", dir.file("state"), "-X",
                   "sasl.password=${env:HOME}", "-X", "isolation.level=read_uncommitted"});
  BOOST_TEST(referenced.exit_code == 78, referenced.err);
  BOOST_TEST(!contains(referenced.err, "warning"), referenced.err);
}

BOOST_AUTO_TEST_CASE(resolved_values_never_reach_the_log) {
  // This run gets as far as creating its clients, logging their settings, and
  // failing to reach a broker on a port where none listens (exit 69).
  temp_dir dir;
  const std::string plan = compile_example(dir);
  const std::string secret_file = dir.file("password");
  write_text(secret_file, "file-s3cret-4711\n");
  const std::string client_env = "STREAMT_CLI_CLIENT_ID_" + std::to_string(::getpid());
  ::setenv(client_env.c_str(), "env-client-4711", 1);
  process_result r =
      run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir", dir.file("state"),
                   "--connect-timeout-ms", "1000", "--log-level", "trace", "-X",
                   "sasl.password=${file:" + secret_file + "}", "-X", "client.id=${env:" + client_env + "}"});
  ::unsetenv(client_env.c_str());
  BOOST_TEST(r.exit_code == 69, r.err);
  BOOST_TEST(contains(r.err, "sasl.password=[redacted]"), r.err);
  BOOST_TEST(contains(r.err, "client.id=${env:" + client_env + "}"), r.err);
  BOOST_TEST(!contains(r.err + r.out, "file-s3cret-4711"));
  BOOST_TEST(!contains(r.err + r.out, "env-client-4711"));
}

BOOST_AUTO_TEST_CASE(a_malformed_metrics_address_is_a_usage_error_saying_what_is_wrong) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  process_result r = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir",
                                  dir.file("state"), "--metrics-address", "9400"});
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(contains(r.err, "--metrics-address: expected HOST:PORT"), r.err);
}

BOOST_AUTO_TEST_CASE(a_metrics_address_that_is_taken_exits_78_before_the_state_directory_is_touched) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor taken(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  const std::string address = "127.0.0.1:" + std::to_string(taken.local_endpoint().port());
  process_result r = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir",
                                  dir.file("state"), "--metrics-address", address});
  BOOST_TEST(r.exit_code == 78, r.err);
  BOOST_TEST(contains(r.err, "cannot serve metrics on " + address), r.err);
  BOOST_TEST(contains(r.err, "choose another --metrics-address"), r.err);
  BOOST_TEST(!std::filesystem::exists(dir.file("state")));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(run_state_directory)

// These runs fail to reach a broker on a port where none listens (exit 69),
// or are refused before they try.

BOOST_AUTO_TEST_CASE(a_first_start_that_cannot_reach_the_brokers_leaves_no_state_directory) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  const std::string state = dir.file("state");
  process_result r = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir", state,
                                  "--connect-timeout-ms", "1000"});
  BOOST_TEST(r.exit_code == 69, r.err);
  BOOST_TEST(!std::filesystem::exists(state), "the failed first start left " << state);
}

BOOST_AUTO_TEST_CASE(a_damaged_identity_exits_73_naming_the_file_and_what_to_do_without_quoting_it) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  const std::string state = dir.file("state");
  std::filesystem::create_directories(state);
  const std::string damaged = "{\"password\":\"hunter2-in-identity\"}\n";
  write_text(state + "/identity.json", damaged);
  write_text(state + "/plan.json", read_text(plan));
  process_result r = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir", state,
                                  "--connect-timeout-ms", "1000"});
  BOOST_TEST(r.exit_code == 73, r.err);
  BOOST_TEST(
      contains(r.err, "'" + state + "/identity.json' is damaged: it holds fields streamt does not write"),
      r.err);
  BOOST_TEST(contains(r.err, "move the directory '" + state + "' aside (or point --state-dir at a new one)"),
             r.err);
  BOOST_TEST(!contains(r.err + r.out, "hunter2"), r.err);
  BOOST_TEST(read_text(state + "/identity.json") == damaged);
}

BOOST_AUTO_TEST_CASE(an_empty_identity_exits_73_and_stays_empty) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  const std::string state = dir.file("state");
  std::filesystem::create_directories(state);
  write_text(state + "/identity.json", "");
  process_result r = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir", state,
                                  "--connect-timeout-ms", "1000"});
  BOOST_TEST(r.exit_code == 73, r.err);
  BOOST_TEST(contains(r.err, "identity.json' is damaged: it is empty"), r.err);
  BOOST_TEST(read_text(state + "/identity.json").empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(run_log)

// These runs get as far as creating their clients and fail to reach a
// broker on a port where none listens (exit 69): enough for lines of every
// channel.

BOOST_AUTO_TEST_CASE(with_log_format_json_every_line_is_a_json_object_naming_the_application_and_plan) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  const std::string digest(boost::json::parse(read_text(plan)).at("digest").as_string());
  process_result r = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir",
                                  dir.file("state"), "--connect-timeout-ms", "1000", "--log-format", "json"});
  BOOST_TEST(r.exit_code == 69, r.err);
  std::set<std::string> channels;
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) {
    BOOST_TEST_INFO("line: " << line);
    // Strict: Boost.JSON's parser refuses invalid UTF-8 as well as bad syntax.
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(line, ec);
    BOOST_TEST_REQUIRE((!ec && v.is_object()));
    const boost::json::object& o = v.as_object();
    BOOST_TEST(o.contains("time"));
    BOOST_TEST(o.contains("level"));
    BOOST_TEST(o.contains("message"));
    BOOST_TEST((o.contains("application_id") && o.at("application_id") == "orders-big"));
    BOOST_TEST((o.contains("plan_digest") && o.at("plan_digest").as_string() == digest));
    const std::string channel = o.contains("channel") ? std::string(o.at("channel").as_string()) : "";
    channels.insert(channel);
    // No transaction begins without a broker; the engine's lines say so.
    if (channel == "engine") BOOST_TEST((o.contains("txn") && o.at("txn") == 0));
  }
  BOOST_TEST(channels.count("engine") == 1u, r.err);  // the start line and the failure
  BOOST_TEST(channels.count("cli") == 0u, r.err);     // nothing repeats the engine's closing error
  // librdkafka's "Connection refused", from its own thread: named through
  // the process-wide attributes the CLI sets.
  BOOST_TEST(channels.count("kafka") == 1u, r.err);
}

BOOST_AUTO_TEST_CASE(
    the_text_log_has_utc_times_names_the_application_plan_and_transaction_and_says_a_fatal_error_once) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  const std::string digest(boost::json::parse(read_text(plan)).at("digest").as_string());
  process_result r = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir",
                                  dir.file("state"), "--connect-timeout-ms", "1000"});
  BOOST_TEST(r.exit_code == 69, r.err);
  const std::string bracket =
      " info engine [orders-big " + digest.substr(0, 19) + " txn 0]: starting orders-big";
  const std::size_t at = r.err.find(bracket);
  BOOST_TEST_REQUIRE(at != std::string::npos, r.err);
  // "2026-12-01T05:00:00.123456Z" right before it, at the start of the line.
  BOOST_TEST_REQUIRE(at >= 27u);
  BOOST_TEST(r.err[at - 1] == 'Z');
  BOOST_TEST(r.err[at - 17] == 'T');
  BOOST_TEST((at == 27u || r.err[at - 28] == '\n'), r.err);
  // One line per fatal error: the engine's, at level error, and no copy.
  std::size_t said = 0;
  for (std::size_t at = r.err.find("cannot reach the brokers"); at != std::string::npos;
       at = r.err.find("cannot reach the brokers", at + 1))
    ++said;
  BOOST_TEST(said == 1u, r.err);
  BOOST_TEST(contains(r.err, " error engine [orders-big "), r.err);
  BOOST_TEST(!contains(r.err, "streamt run: "), r.err);
}

BOOST_AUTO_TEST_CASE(a_number_outside_its_range_is_a_usage_error_naming_the_range) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  struct refused {
    std::string option, value, range;
  };
  // Past the range, at zero, negative, with a unit, and past 64 bits: each
  // once overflowed or was read as something else.
  for (const refused& c :
       {refused{"--connect-timeout-ms", "9223372036854775807", "from 1 to 3600000"},
        refused{"--commit-interval-ms", "9223372036854775807", "from 1 to 600000"},
        refused{"--commit-interval-ms", "0", "from 1 to 600000"},
        refused{"--stop-timeout-ms", "-5", "from 1 to 3600000"},
        refused{"--stop-timeout-ms", "30s", "from 1 to 3600000"},
        refused{"--stall-timeout-ms", "4999", "from 5000 to 86400000"},
        refused{"--stall-timeout-ms", "86400001", "from 5000 to 86400000"},
        refused{"--max-records-per-transaction", "99999999999999999999", "from 1 to 1000000"}}) {
    process_result r = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir",
                                    dir.file("state"), c.option, c.value});
    BOOST_TEST(r.exit_code == 2, c.option << " " << c.value << ": " << r.err);
    BOOST_TEST(contains(r.err, c.option + " takes a whole number of"), r.err);
    BOOST_TEST(contains(r.err, c.range), r.err);
    BOOST_TEST(!std::filesystem::exists(dir.file("state")), "a usage error touched the state directory");
  }
}

BOOST_AUTO_TEST_CASE(the_largest_number_in_each_range_is_accepted) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  // Nothing answers on port 1: accepted options get as far as the connect
  // check (exit 69), a refused one would stop at the usage error (exit 2).
  // A transaction timeout that holds the longest commit interval (no broker
  // is asked whether it allows it).
  process_result r =
      run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir", dir.file("state"), "-X",
                   "transaction.timeout.ms=1200000", "--commit-interval-ms", "600000",
                   "--max-records-per-transaction", "1000000", "--stop-timeout-ms", "3600000",
                   "--connect-timeout-ms", "1", "--stall-timeout-ms", "86400000"});
  BOOST_TEST(r.exit_code == 69, r.err);
}

// Each of stderr's lines parsed as a JSON object; a line that is not one
// fails the test.
std::vector<boost::json::object> json_lines(const std::string& err) {
  std::vector<boost::json::object> out;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(line, ec);
    BOOST_TEST_REQUIRE((!ec && v.is_object()), "not a JSON object: " << line);
    out.push_back(v.as_object());
  }
  return out;
}

BOOST_AUTO_TEST_CASE(under_log_format_json_a_usage_error_is_one_json_line_carrying_exit_code_2) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  // --log-format anywhere on the line, before or after what is refused.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", plan, "--log-format", "json", "--comit-interval-ms", "5"},
        std::vector<std::string>{"run", plan, "--commit-interval-ms", "0", "--log-format=json", "-b",
                                 "127.0.0.1:1"},
        std::vector<std::string>{"run", plan, "--log-format", "json"},
        std::vector<std::string>{"run", dir.file("missing.json"), "-b", "127.0.0.1:1", "--log-format",
                                 "json"}}) {
    process_result r = run_streamt(args);
    BOOST_TEST_INFO("args: " << args[2] << " " << args[3] << "; stderr: " << r.err);
    BOOST_TEST(r.exit_code == 2);
    BOOST_TEST(r.out.empty());
    const std::vector<boost::json::object> lines = json_lines(r.err);
    BOOST_TEST_REQUIRE(lines.size() == 1u);
    const boost::json::object& o = lines[0];
    BOOST_TEST(o.at("level") == "error");
    BOOST_TEST(o.at("channel") == "cli");
    BOOST_TEST_REQUIRE(o.at("exit_code").is_int64());
    BOOST_TEST(o.at("exit_code").as_int64() == 2);
    BOOST_TEST(o.contains("time"));
    BOOST_TEST(!o.at("message").as_string().empty());
    BOOST_TEST(!std::filesystem::exists(dir.file("state")), "a usage error touched the state directory");
  }
  process_result r = run_streamt({"run", plan, "--log-format", "json", "--comit-interval-ms", "5"});
  BOOST_TEST(
      contains(r.err,
               R"("message":"unknown option '--comit-interval-ms'; did you mean '--commit-interval-ms'?")"),
      r.err);
}

BOOST_AUTO_TEST_CASE(under_log_format_json_a_refused_plan_is_one_json_line_with_its_code_and_the_hint) {
  process_result r = run_streamt(
      {"run", examples + "big_orders.sql", "--bootstrap-servers", "127.0.0.1:1", "--log-format", "json"});
  BOOST_TEST(r.exit_code == 1, r.err);
  const std::vector<boost::json::object> lines = json_lines(r.err);
  BOOST_TEST_REQUIRE(lines.size() == 1u, r.err);
  BOOST_TEST(lines[0].at("exit_code").as_int64() == 1);
  BOOST_TEST(!lines[0].at("code").as_string().empty(), r.err);
  BOOST_TEST(contains(std::string(lines[0].at("message").as_string()), "looks like SQL, not a plan"), r.err);
}

BOOST_AUTO_TEST_CASE(the_text_format_keeps_usage_errors_as_plain_lines) {
  process_result r = run_streamt({"run", "plan.json", "--log-format", "text", "--frobnicate"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(r.err == "streamt run: unknown option '--frobnicate'\nTry 'streamt run --help'.\n");
}

// Fields that need a broker to appear (an invalid record's topic, partition
// and offset; a start position) are checked through the engine against
// librdkafka's mock cluster (test/unit/mock/); the closing line of a run
// that never reaches one carries its status.
BOOST_AUTO_TEST_CASE(a_failed_json_run_says_why_once_and_that_line_carries_the_status_as_a_field) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  process_result r = run_streamt({"run", plan, "--bootstrap-servers", "127.0.0.1:1", "--state-dir",
                                  dir.file("state"), "--connect-timeout-ms", "1000", "--log-format", "json"});
  BOOST_TEST(r.exit_code == 69, r.err);
  std::size_t closing = 0;
  for (const boost::json::object& o : json_lines(r.err)) {
    if (!contains(std::string(o.at("message").as_string()), "cannot reach the brokers")) continue;
    ++closing;
    BOOST_TEST(o.at("level") == "error");
    BOOST_TEST((o.contains("status") && o.at("status") == "unavailable"), r.err);
  }
  BOOST_TEST(closing == 1u, r.err);
}

BOOST_AUTO_TEST_CASE(an_unknown_log_format_is_a_usage_error) {
  process_result r =
      run_streamt({"run", "plan.json", "--bootstrap-servers", "127.0.0.1:1", "--log-format", "xml"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "--log-format takes text or json"), r.err);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(command_line)

BOOST_AUTO_TEST_CASE(every_command_has_help_that_names_its_exit_codes) {
  for (const char* cmd : {"compile", "check", "explain", "replay", "offsets", "diff"}) {
    process_result r = run_streamt({cmd, "--help"});
    BOOST_TEST_INFO("command " << cmd);
    BOOST_TEST(r.exit_code == 0);
    BOOST_TEST(contains(r.out, "usage: streamt " + std::string(cmd)));
    BOOST_TEST(contains(r.out, "exit codes:"));
  }
}

BOOST_AUTO_TEST_CASE(an_unknown_command_is_a_usage_error) {
  process_result r = run_streamt({"frobnicate"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "unknown command 'frobnicate'"));
  BOOST_TEST(run_streamt({}).exit_code == 2);
}

BOOST_AUTO_TEST_CASE(the_dead_letter_policy_is_compiled_into_the_plan_and_shown_by_check_and_explain) {
  temp_dir dir;
  const std::vector<std::string> base{"compile",    "--schema",     schema,      "--application-id",
                                      "orders-big", "--sink-topic", "big-orders"};
  auto compile_with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(examples + "big_orders.sql");
    return run_streamt(args);
  };
  const std::string plan = dir.file("plan.json");
  process_result r =
      compile_with({"--on-invalid", "dead-letter", "--dead-letter-topic", "orders-dlq", "--output", plan});
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.err);
  BOOST_TEST(contains(run_streamt({"check", plan}).out, "on_invalid:     dead-letter to orders-dlq"));
  BOOST_TEST(
      contains(run_streamt({"explain", plan}).out, "invalid to topic orders-dlq in the same transaction"));
  BOOST_TEST(contains(run_streamt({"explain", compile_example(dir)}).out, "(on_invalid: fail)"));
  // Each half without the other, an unknown policy, a reused topic.
  BOOST_TEST(compile_with({"--on-invalid", "dead-letter"}).exit_code == 2);
  BOOST_TEST(compile_with({"--dead-letter-topic", "orders-dlq"}).exit_code == 2);
  BOOST_TEST(contains(compile_with({"--on-invalid", "skip"}).err, "it must be fail or dead-letter"));
  r = compile_with({"--on-invalid", "dead-letter", "--dead-letter-topic", "big-orders"});
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(contains(r.err, "--dead-letter-topic: error: 'big-orders' is also the sink topic"), r.err);
}

BOOST_AUTO_TEST_CASE(a_misspelt_command_or_option_is_answered_with_what_was_meant) {
  process_result r = run_streamt({"complie"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "unknown command 'complie'; did you mean 'compile'?"), r.err);
  r = run_streamt({"compile", "--schem", schema});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "unknown option '--schem'; did you mean '--schema'?"), r.err);
  r = run_streamt({"run", "plan.json", "--comit-interval-ms", "5"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "did you mean '--commit-interval-ms'?"), r.err);
  // Nothing near: no guess.
  r = run_streamt({"run", "plan.json", "--frobnicate"});
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(!contains(r.err, "did you mean"), r.err);
}

BOOST_AUTO_TEST_CASE(a_lineage_header_name_that_cannot_be_one_is_a_usage_error_with_the_name_meant) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  const auto run_with = [&](const std::string& name) {
    return run_streamt(
        {"run", plan, "-b", "127.0.0.1:1", "--state-dir", dir.file("state"), "--lineage-header", name});
  };
  process_result r = run_with("streamt lineage");
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(contains(r.err, "--lineage-header: the lineage header name has a space at character 8"), r.err);
  BOOST_TEST(contains(r.err, "did you mean 'streamt-lineage'?"), r.err);
  r = run_with("streamt.plan.digest");
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(contains(r.err, "did you mean 'streamt-plan.digest'?"), r.err);
  r = run_with(std::string(129, 'h'));
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(contains(r.err, "129 characters long"), r.err);
  BOOST_TEST(!contains(r.err, "did you mean"), r.err);
  BOOST_TEST(run_streamt({"run", plan, "-b", "127.0.0.1:1", "--lineage-header="}).exit_code == 2);
  BOOST_TEST(!std::filesystem::exists(dir.file("state")), "a usage error touched the state directory");
  r = run_streamt({"run", plan, "-b", "127.0.0.1:1", "--lineage-headr", "x"});
  BOOST_TEST(contains(r.err, "did you mean '--lineage-header'?"), r.err);
}

BOOST_AUTO_TEST_CASE(static_and_dynamic_membership_together_are_a_usage_error_before_the_state_directory) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  process_result r = run_streamt({"run", plan, "-b", "127.0.0.1:1", "--state-dir", dir.file("state"),
                                  "--static-membership", "--dynamic-membership"});
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(contains(r.err, "--static-membership and --dynamic-membership exclude each other"), r.err);
  BOOST_TEST(!std::filesystem::exists(dir.file("state")), "a usage error touched the state directory");
}

BOOST_AUTO_TEST_CASE(kafka_tools_spellings_of_the_bootstrap_option_are_taken_for_it) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  for (const std::vector<std::string>& spelling :
       {std::vector<std::string>{"-b", "127.0.0.1:1"},
        std::vector<std::string>{"--bootstrap-server", "127.0.0.1:1"},
        std::vector<std::string>{"--bootstrap-server=127.0.0.1:1"}}) {
    std::vector<std::string> args{"run", plan, "--state-dir", dir.file("state"), "--connect-timeout-ms",
                                  "1000"};
    args.insert(args.end(), spelling.begin(), spelling.end());
    process_result r = run_streamt(args);
    BOOST_TEST_INFO("spelling " << spelling[0]);
    // Taken, and the run then finds no broker there (exit 69), not a usage error.
    BOOST_TEST(r.exit_code == 69, r.err);
    BOOST_TEST(contains(r.err, "cannot reach the brokers at 127.0.0.1:1"), r.err);
  }
}

BOOST_AUTO_TEST_CASE(an_empty_value_or_an_empty_broker_entry_is_a_usage_error_at_once) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  for (const std::string hosts : {"", ",", "127.0.0.1:1,", "127.0.0.1:1,, 127.0.0.1:2"}) {
    process_result r =
        run_streamt({"run", plan, "--bootstrap-servers", hosts, "--state-dir", dir.file("state")});
    BOOST_TEST_INFO("hosts '" << hosts << "'");
    BOOST_TEST(r.exit_code == 2, r.err);
    BOOST_TEST(!std::filesystem::exists(dir.file("state")));
  }
  process_result r =
      run_streamt({"compile", "--schema", "", "--application-id", "a", "--sink-topic", "t", "-"}, "");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(contains(r.err, "option '--schema' needs a value, and '' is empty"), r.err);
}

BOOST_AUTO_TEST_CASE(run_check_and_explain_given_the_sql_say_to_compile_it_first) {
  for (const char* cmd : {"run", "check", "explain"}) {
    std::vector<std::string> args{cmd, examples + "big_orders.sql"};
    if (std::string_view(cmd) == "run") args.insert(args.end(), {"--bootstrap-servers", "127.0.0.1:1"});
    process_result r = run_streamt(args);
    BOOST_TEST_INFO("command " << cmd);
    BOOST_TEST(r.exit_code == 1, r.err);
    BOOST_TEST(contains(r.err, "looks like SQL, not a plan: compile it first (streamt compile --schema"),
               r.err);
  }
  // A plan that is merely broken gets no such hint.
  temp_dir dir;
  write_text(dir.file("broken.json"), "{\"plan_version\": 1");
  process_result r = run_streamt({"check", dir.file("broken.json")});
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(!contains(r.err, "looks like SQL"), r.err);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(diff)

namespace {
// A plan of the example query reading `topic` instead of orders.
std::string compile_reading(const temp_dir& dir, const std::string& topic) {
  const std::string other_schema = dir.file(topic + ".schema.json");
  std::string text = read_text(schema);
  const std::string from = "\"topic\": \"orders\"";
  const std::size_t at = text.find(from);
  BOOST_TEST_REQUIRE(at != std::string::npos, "the example schema names no topic: " << text);
  text.replace(at, from.size(), "\"topic\": \"" + topic + "\"");
  write_text(other_schema, text);
  const std::string plan = dir.file(topic + ".plan.json");
  process_result r =
      run_streamt({"compile", "--schema", other_schema, "--application-id", "orders-big", "--sink-topic",
                   "big-orders", "--output", plan, examples + "big_orders.sql"});
  BOOST_TEST_REQUIRE(r.exit_code == 0, "compile failed: " << r.err);
  return plan;
}
}  // namespace

BOOST_AUTO_TEST_CASE(diff_needs_two_plans_and_the_brokers) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  process_result r = run_streamt({"diff", plan, "--bootstrap-servers", "127.0.0.1:1"});
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(contains(r.err, "expected two plans: OLD_PLAN NEW_PLAN"), r.err);
  r = run_streamt({"diff", plan, plan});
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(contains(r.err, "missing --bootstrap-servers"), r.err);
  r = run_streamt({"diff", plan, plan, "--max-dif", "3", "-b", "127.0.0.1:1"});
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(contains(r.err, "did you mean '--max-diffs'?"), r.err);
}

BOOST_AUTO_TEST_CASE(a_number_outside_its_range_is_a_usage_error_naming_the_range) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  struct refused {
    std::string option, value, range;
  };
  for (const refused& c :
       {refused{"--max-records", "0", "from 1 to 1000000000"},
        refused{"--max-records", "1000000001", "from 1 to 1000000000"},
        refused{"--max-records", "99999999999999999999999", "from 1 to 1000000000"},
        refused{"--max-diffs", "-1", "from 0 to 10000"}, refused{"--max-diffs", "10001", "from 0 to 10000"},
        refused{"--timeout-ms", "0", "from 1 to 3600000"},
        refused{"--timeout-ms", "5s", "from 1 to 3600000"}}) {
    process_result r = run_streamt({"diff", plan, plan, "-b", "127.0.0.1:1", c.option, c.value});
    BOOST_TEST(r.exit_code == 2, c.option << " " << c.value << ": " << r.err);
    BOOST_TEST(contains(r.err, c.option + " takes a whole number of"), r.err);
    BOOST_TEST(contains(r.err, c.range), r.err);
  }
}

BOOST_AUTO_TEST_CASE(a_from_that_is_no_position_or_names_another_topic_is_a_usage_error) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  for (const std::string from :
       {"latest", "orders:0:5", "orders/0@5,", "orders/0@5,orders/0@7", "orders/-1@0"}) {
    process_result r = run_streamt({"diff", plan, plan, "-b", "127.0.0.1:1", "--from", from});
    BOOST_TEST_INFO("--from " << from);
    BOOST_TEST(r.exit_code == 2, r.err);
  }
  process_result r = run_streamt({"diff", plan, plan, "-b", "127.0.0.1:1", "--from", "payments/0@5"});
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(contains(r.err, "--from names topic 'payments', but the plans read 'orders'"), r.err);
}

BOOST_AUTO_TEST_CASE(a_from_last_n_outside_1_to_a_billion_or_not_a_number_is_a_usage_error_naming_the_range) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  for (const std::string n : {"0", "1000000001", "-5", "5x", "", " 5", "1e3", "99999999999999999999999999"}) {
    process_result r = run_streamt({"diff", plan, plan, "-b", "127.0.0.1:1", "--from", "last:" + n});
    BOOST_TEST_INFO("--from last:" << n);
    BOOST_TEST(r.exit_code == 2, r.err);
    BOOST_TEST(contains(r.err, "--from last:N takes a whole number of records from 1 to 1000000000"), r.err);
  }
  // In range, it is accepted: the brokers are asked (nothing listens: 69).
  for (const std::string n : {"1", "1000000000"}) {
    process_result r =
        run_streamt({"diff", plan, plan, "-b", "127.0.0.1:1", "--timeout-ms", "300", "--from", "last:" + n});
    BOOST_TEST_INFO("--from last:" << n);
    BOOST_TEST(r.exit_code == 69, r.err);
  }
  // A --from that is no form at all names last:N among the forms.
  process_result r = run_streamt({"diff", plan, plan, "-b", "127.0.0.1:1", "--from", "latest"});
  BOOST_TEST(contains(r.err, "--from takes earliest, committed, last:N, or TOPIC/PARTITION@OFFSET"), r.err);
}

BOOST_AUTO_TEST_CASE(diff_and_status_name_exit_4_for_nothing_to_judge_by_in_their_help) {
  process_result r = run_streamt({"diff", "--help"});
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(contains(r.out, "4 no record compared"), r.out);
  BOOST_TEST(contains(r.out, "last:N"), r.out);
  r = run_streamt({"status", "--help"});
  BOOST_TEST(r.exit_code == 0);
  BOOST_TEST(contains(r.out, "4 no committed offset"), r.out);
}

BOOST_AUTO_TEST_CASE(plans_reading_different_topics_are_refused_before_any_kafka_client) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  // Nothing listens on port 1: a refusal that tried the brokers first would exit 69.
  process_result r = run_streamt({"diff", plan, compile_reading(dir, "payments"), "-b", "127.0.0.1:1"});
  BOOST_TEST(r.exit_code == 1, r.err);
  BOOST_TEST(contains(r.err, "the plans read different topics"), r.err);
  // A broken plan is refused as check refuses it.
  write_text(dir.file("broken.json"), "{}");
  BOOST_TEST(run_streamt({"diff", plan, dir.file("broken.json"), "-b", "127.0.0.1:1"}).exit_code == 1);
}

BOOST_AUTO_TEST_CASE(unreachable_brokers_exit_69_and_an_inline_secret_is_never_echoed) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  process_result r = run_streamt({"diff", plan, plan, "-b", "127.0.0.1:1", "--timeout-ms", "1000", "-X",
                                  "sasl.password=hunter2-secret"});
  BOOST_TEST(r.exit_code == 69, r.err);
  BOOST_TEST(contains(r.err, "reading the partitions of topic 'orders'"), r.err);
  BOOST_TEST(contains(r.err, "puts a secret on the command line"), r.err);
  BOOST_TEST(!contains(r.err + r.out, "hunter2-secret"), r.err);
}

BOOST_AUTO_TEST_CASE(an_engine_owned_setting_is_refused_with_exit_78) {
  temp_dir dir;
  const std::string plan = compile_example(dir);
  process_result r = run_streamt({"diff", plan, plan, "-b", "127.0.0.1:1", "-X", "group.id=mine"});
  BOOST_TEST(r.exit_code == 78, r.err);
  BOOST_TEST(contains(r.err, "group.id"), r.err);
}

BOOST_AUTO_TEST_SUITE_END()
