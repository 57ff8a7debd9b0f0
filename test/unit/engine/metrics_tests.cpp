// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/metrics.hpp"
#include "engine/metrics_server.hpp"
#include "engine/process_stats.hpp"
#include "test/support/temp_dir.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

// engine/metrics.hpp and engine/metrics_server.hpp: what /metrics, /healthz
// and /readyz say, without Kafka.

namespace engine = streamt::engine;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

// The samples of an exposition: "name{labels}" -> value text. Also checks
// the format line by line: every sample's family has HELP and TYPE first.
std::map<std::string, std::string> samples_of(const std::string& text) {
  std::map<std::string, std::string> out;
  std::map<std::string, std::string> types;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    BOOST_TEST_REQUIRE(!line.empty());
    if (line.rfind("# HELP ", 0) == 0) continue;
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream t(line.substr(7));
      std::string name, type;
      t >> name >> type;
      types[name] = type;
      continue;
    }
    const std::size_t space = line.rfind(' ');
    BOOST_TEST_REQUIRE(space != std::string::npos);
    const std::string key = line.substr(0, space);
    std::string family = key.substr(0, key.find('{'));
    for (const char* suffix : {"_bucket", "_sum", "_count"})
      if (!types.count(family) && family.size() > std::strlen(suffix) &&
          family.compare(family.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
        family.resize(family.size() - std::strlen(suffix));
    BOOST_TEST_INFO("sample " << key);
    BOOST_TEST(types.count(family) == 1u);
    out[key] = line.substr(space + 1);
  }
  return out;
}

engine::record_counts counts(std::uint64_t consumed, std::uint64_t emitted, std::uint64_t filtered,
                             std::uint64_t tombstones) {
  engine::record_counts c;
  c.consumed = consumed;
  c.emitted = emitted;
  c.filtered = filtered;
  c.tombstones = tombstones;
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(metrics)

BOOST_AUTO_TEST_CASE(counts_records_of_committed_transactions_and_rolled_back_ones_apart) {
  engine::metrics m;
  m.committed(counts(10, 4, 5, 1), 20ms);
  m.aborted(7);
  m.committed(counts(3, 3, 0, 0), 30ms);
  const auto s = samples_of(m.prometheus_text());
  BOOST_TEST(s.at("streamt_records_consumed_total") == "13");
  BOOST_TEST(s.at("streamt_records_produced_total") == "7");
  BOOST_TEST(s.at("streamt_records_filtered_total") == "5");
  BOOST_TEST(s.at("streamt_records_tombstones_total") == "1");
  BOOST_TEST(s.at("streamt_records_rolled_back_total") == "7");
  BOOST_TEST(s.at("streamt_transactions_committed_total") == "2");
  BOOST_TEST(s.at("streamt_transactions_aborted_total") == "1");
  BOOST_TEST(s.at("streamt_records_invalid_total") == "0");
  BOOST_TEST(s.count("streamt_last_commit_timestamp_seconds") == 1u);
}

// The null values a plan writes (forwarded tombstones, an upsert's deleted
// keys) are counted within tombstones and filtered, not in produced.
BOOST_AUTO_TEST_CASE(counts_the_null_values_written_within_tombstones_and_filtered) {
  engine::metrics m;
  engine::record_counts c = counts(5, 2, 2, 1);
  c.tombstones_forwarded = 1;
  c.deleted = 2;
  m.committed(c, 20ms);
  const auto s = samples_of(m.prometheus_text());
  BOOST_TEST(s.at("streamt_records_consumed_total") == "5");
  BOOST_TEST(s.at("streamt_records_produced_total") == "2");
  BOOST_TEST(s.at("streamt_records_filtered_total") == "2");
  BOOST_TEST(s.at("streamt_records_deleted_total") == "2");
  BOOST_TEST(s.at("streamt_records_tombstones_total") == "1");
  BOOST_TEST(s.at("streamt_records_tombstones_forwarded_total") == "1");
}

BOOST_AUTO_TEST_CASE(commit_latency_buckets_are_cumulative_and_end_at_the_count) {
  engine::metrics m;
  m.committed({}, 3ms);   // <= 0.005
  m.committed({}, 40ms);  // <= 0.05
  m.committed({}, 40ms);  // <= 0.05
  m.committed({}, 20s);   // only +Inf
  const auto s = samples_of(m.prometheus_text());
  BOOST_TEST(s.at("streamt_commit_duration_seconds_bucket{le=\"0.005\"}") == "1");
  BOOST_TEST(s.at("streamt_commit_duration_seconds_bucket{le=\"0.025\"}") == "1");
  BOOST_TEST(s.at("streamt_commit_duration_seconds_bucket{le=\"0.05\"}") == "3");
  BOOST_TEST(s.at("streamt_commit_duration_seconds_bucket{le=\"10\"}") == "3");
  BOOST_TEST(s.at("streamt_commit_duration_seconds_bucket{le=\"+Inf\"}") == "4");
  BOOST_TEST(s.at("streamt_commit_duration_seconds_count") == "4");
  BOOST_TEST(std::stod(s.at("streamt_commit_duration_seconds_sum")) == 20.083,
             boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(lag_is_the_end_offset_minus_the_committed_offset_per_partition) {
  engine::metrics m;
  m.partition_position("orders", 0, 90, 100);
  m.partition_position("orders", 1, 5, std::nullopt);  // not fetched yet: no lag claimed
  auto s = samples_of(m.prometheus_text());
  BOOST_TEST(s.at("streamt_consumer_lag_records{topic=\"orders\",partition=\"0\"}") == "10");
  BOOST_TEST(s.at("streamt_committed_offset{topic=\"orders\",partition=\"1\"}") == "5");
  BOOST_TEST(s.count("streamt_consumer_lag_records{topic=\"orders\",partition=\"1\"}") == 0u);
  m.revoked(1, {{"orders", 0}});
  s = samples_of(m.prometheus_text());
  BOOST_TEST(s.count("streamt_consumer_lag_records{topic=\"orders\",partition=\"0\"}") == 0u);
  BOOST_TEST(s.at("streamt_assigned_partitions") == "1");
}

BOOST_AUTO_TEST_CASE(lag_counts_from_the_position_read_past_transaction_markers_once_nothing_waits) {
  engine::metrics m;
  // Committed 100 of a source whose end is 101: the last offset is an
  // upstream producer's commit marker, no record.
  m.partition_position("orders", 0, 100, 101);
  BOOST_TEST(
      samples_of(m.prometheus_text()).at("streamt_consumer_lag_records{topic=\"orders\",partition=\"0\"}") ==
      "1");
  m.partition_read_to("orders", 0, 101);
  BOOST_TEST(
      samples_of(m.prometheus_text()).at("streamt_consumer_lag_records{topic=\"orders\",partition=\"0\"}") ==
      "0");
  // A position behind the committed offset (just rewound) never shortens the lag.
  m.partition_position("orders", 0, 100, 140);
  m.partition_read_to("orders", 0, 90);
  BOOST_TEST(
      samples_of(m.prometheus_text()).at("streamt_consumer_lag_records{topic=\"orders\",partition=\"0\"}") ==
      "40");
}

BOOST_AUTO_TEST_CASE(the_last_commit_timestamp_is_there_from_the_start_so_an_engine_that_never_commits_ages) {
  const double before =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  engine::metrics m;
  const auto s = samples_of(m.prometheus_text());
  BOOST_TEST(std::stod(s.at("streamt_last_commit_timestamp_seconds")) >= before - 1);
}

BOOST_AUTO_TEST_CASE(build_info_and_process_metrics_are_exposed_and_process_ones_can_be_left_out) {
  engine::metrics m;
  auto s = samples_of(m.prometheus_text());
  BOOST_TEST(s.count("process_cpu_seconds_total") == 1u);
  BOOST_TEST(std::stod(s.at("process_resident_memory_bytes")) > 0);
  BOOST_TEST(std::stod(s.at("process_open_fds")) > 0);
  BOOST_TEST(std::stod(s.at("process_start_time_seconds")) > 1.7e9);
  bool build_info = false;
  for (const auto& [k, v] : s)
    if (k.starts_with("streamt_build_info{version=\"") && v == "1") build_info = true;
  BOOST_TEST(build_info);
  // The librdkafka version is a build fact: in streamt_build_info, and in no
  // other series.
  std::size_t with_librdkafka_version = 0;
  for (const auto& [k, v] : s)
    if (k.find("librdkafka_version=") != std::string::npos) {
      BOOST_TEST_INFO("series " << k);
      BOOST_TEST(k.starts_with("streamt_build_info{"));
      ++with_librdkafka_version;
    }
  BOOST_TEST(with_librdkafka_version == 1u);
  m.include_process_metrics(false);
  s = samples_of(m.prometheus_text());
  BOOST_TEST(s.count("process_cpu_seconds_total") == 0u);
}

BOOST_AUTO_TEST_CASE(proc_stat_fields_are_counted_from_the_last_parenthesis_whatever_the_command_name_holds) {
  // Fields 3..24 of proc(5) after a command name with spaces and ')' in it;
  // utime 14 = 7, stime 15 = 8, starttime 22 = 900, vsize 23 = 4096, rss 24 = 3.
  const std::string line =
      "42 ((a b) (c)) S 1 2 3 4 5 6 7 8 9 10 7 8 0 0 20 0 1 0 900 4096 3 18446744073709551615 1\n";
  const auto f = engine::parse_proc_self_stat(line);
  BOOST_TEST_REQUIRE(f.has_value());
  BOOST_TEST(f->utime_ticks == 7u);
  BOOST_TEST(f->stime_ticks == 8u);
  BOOST_TEST(f->start_ticks == 900u);
  BOOST_TEST(f->vsize_bytes == 4096u);
  BOOST_TEST(f->rss_pages == 3u);
  BOOST_TEST(!engine::parse_proc_self_stat("42 (short) S 1 2 3").has_value());
  BOOST_TEST(!engine::parse_proc_self_stat("no parenthesis at all").has_value());
  BOOST_TEST(engine::parse_boot_time("cpu  1 2 3\nbtime 1764800000\nprocesses 9\n").value_or(0) ==
             1764800000u);
  BOOST_TEST(!engine::parse_boot_time("cpu  1 2 3\n").has_value());
}

BOOST_AUTO_TEST_CASE(the_metrics_file_has_no_process_families_and_at_exit_the_exit_code) {
  streamt::test::temp_dir dir("metrics-file");
  const std::string path = dir.file("streamt.prom");
  engine::metrics m;
  m.invalid_record();
  auto file = [&] {
    std::ifstream in(path);
    return samples_of(std::string(std::istreambuf_iterator<char>(in), {}));
  };
  BOOST_TEST_REQUIRE(!m.write_textfile(path).has_value());
  auto s = file();
  BOOST_TEST(s.at("streamt_records_invalid_total") == "1");
  BOOST_TEST(s.count("streamt_exit_code") == 0u);  // not before the exit
  BOOST_TEST(s.count("process_cpu_seconds_total") == 0u);
  m.exiting(65);
  BOOST_TEST_REQUIRE(!m.write_textfile(path).has_value());
  s = file();
  BOOST_TEST(s.at("streamt_exit_code") == "65");
  BOOST_TEST(std::stod(s.at("streamt_exit_timestamp_seconds")) > 1.7e9);
  // The endpoint keeps its process families.
  BOOST_TEST(samples_of(m.prometheus_text()).count("process_cpu_seconds_total") == 1u);
  BOOST_TEST(m.write_textfile(dir.file("no/such/dir/streamt.prom")).has_value());
}

BOOST_AUTO_TEST_CASE(label_values_escape_backslash_quote_and_newline) {
  engine::metrics m;
  m.set_identity({"app\"1\\x\ny", "sha256:00", "in", "out"});
  const std::string text = m.prometheus_text();
  BOOST_TEST(text.find("application_id=\"app\\\"1\\\\x\\ny\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(is_ready_only_between_the_first_assignment_and_a_stop) {
  engine::metrics m;
  BOOST_TEST(!m.live());
  BOOST_TEST(!m.ready().ready);
  m.run_started();
  BOOST_TEST(m.live());
  BOOST_TEST(!m.ready().ready);
  BOOST_TEST(m.ready().detail == "waiting for the group to assign partitions");
  m.assigned(0);
  BOOST_TEST(m.ready().ready);  // more instances than partitions: standing by, still ready
  BOOST_TEST(m.ready().detail.find("standing by") != std::string::npos);
  m.assigned(3);
  BOOST_TEST(m.ready().detail == "3 partition(s) assigned");
  m.stopping();
  BOOST_TEST(!m.ready().ready);
  BOOST_TEST(m.live());
  m.run_ended();
  BOOST_TEST(!m.live());
}

BOOST_AUTO_TEST_CASE(a_restarted_run_is_not_ready_until_it_is_assigned_again_and_forgets_old_partitions) {
  engine::metrics m;
  m.run_started();
  m.assigned(2);
  m.partition_position("orders", 0, 1, 1);
  m.committed(counts(1, 1, 0, 0), 1ms);
  m.run_started();
  BOOST_TEST(!m.ready().ready);
  const auto s = samples_of(m.prometheus_text());
  BOOST_TEST(s.count("streamt_committed_offset{topic=\"orders\",partition=\"0\"}") == 0u);
  BOOST_TEST(s.at("streamt_records_consumed_total") == "1");  // counters survive the restart
}

BOOST_AUTO_TEST_CASE(takes_brokers_queue_and_transaction_state_from_librdkafka_statistics) {
  const std::string json = R"({"name":"rdkafka#producer-1","type":"producer","msg_cnt":12,"tx_bytes":3456,
    "rx_bytes":789,"brokers":{
      "127.0.0.1:9092/bootstrap":{"name":"127.0.0.1:9092/bootstrap","nodeid":-1,"state":"INIT","rtt":{"avg":0,"p99":0}},
      "127.0.0.1:9092/1":{"name":"127.0.0.1:9092/1","nodeid":1,"state":"UP","rtt":{"avg":1500,"p99":20000},
        "throttle":{"min":0,"max":850,"avg":120}}},
    "eos":{"idemp_state":"Assigned","txn_state":"InTransaction"}})";
  const std::optional<engine::client_statistics> s = engine::parse_client_statistics(json);
  BOOST_TEST_REQUIRE(s.has_value());
  BOOST_TEST(s->queued_messages == 12u);
  BOOST_TEST(s->tx_bytes == 3456u);
  BOOST_TEST_REQUIRE(s->brokers.size() == 1u);
  BOOST_TEST(s->brokers[0].address == "127.0.0.1:9092");
  BOOST_TEST(s->brokers[0].node_id == 1);
  BOOST_TEST(s->brokers[0].up);
  BOOST_TEST(s->brokers[0].rtt_avg_seconds == 0.0015, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(s->brokers[0].throttle_max_seconds == 0.85, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(s->transaction_state == "InTransaction");
  engine::metrics m;
  m.statistics(*s);
  const auto samples = samples_of(m.prometheus_text());
  BOOST_TEST(samples.at("streamt_kafka_broker_up{broker=\"127.0.0.1:9092\",node_id=\"1\"}") == "1");
  BOOST_TEST(
      samples.at("streamt_kafka_broker_throttle_max_seconds{broker=\"127.0.0.1:9092\",node_id=\"1\"}") ==
      "0.85");
  BOOST_TEST(samples.at("streamt_kafka_producer_queue_messages") == "12");
  BOOST_TEST(samples.at("streamt_kafka_transaction_state{state=\"InTransaction\"}") == "1");
}

// librdkafka names a broker "[proto://]host:port/id"; without the JSON's
// nodename and nodeid the labels come from that name.
BOOST_AUTO_TEST_CASE(the_broker_address_and_node_id_are_two_labels_even_from_a_tls_broker_name) {
  const std::string json = R"({"brokers":{
      "ssl://kafka-2.example:9093/2":{"nodeid":2,"nodename":"kafka-2.example:9093","state":"UP"},
      "ssl://kafka-3.example:9093/3":{"state":"DOWN"}}})";
  const std::optional<engine::client_statistics> s = engine::parse_client_statistics(json);
  BOOST_TEST_REQUIRE(s.has_value());
  engine::metrics m;
  m.statistics(*s);
  const auto samples = samples_of(m.prometheus_text());
  BOOST_TEST(samples.at("streamt_kafka_broker_up{broker=\"kafka-2.example:9093\",node_id=\"2\"}") == "1");
  BOOST_TEST(samples.at("streamt_kafka_broker_up{broker=\"kafka-3.example:9093\",node_id=\"3\"}") == "0");
  BOOST_TEST(
      samples.count("streamt_kafka_broker_rtt_avg_seconds{broker=\"kafka-3.example:9093\",node_id=\"3\"}") ==
      1u);
}

// Every state librdkafka knows is a series from the start, 1 for the current
// one and 0 for the others, so none comes and goes with the state.
BOOST_AUTO_TEST_CASE(every_transaction_state_is_exported_with_1_for_the_current_one_and_0_for_the_others) {
  auto states = [](const engine::metrics& m) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : samples_of(m.prometheus_text()))
      if (k.starts_with("streamt_kafka_transaction_state{")) out[k] = v;
    return out;
  };
  const std::size_t known = std::size(engine::transaction_states);
  BOOST_TEST(known == 13u);
  engine::metrics m;
  auto before = states(m);  // before the first statistics report: all 0
  BOOST_TEST(before.size() == known);
  for (const auto& [k, v] : before) BOOST_TEST(v == "0");
  for (const std::string state : {"Ready", "InTransaction", "CommittingTransaction", "FatalError"}) {
    engine::client_statistics s;
    s.transaction_state = state;
    m.statistics(s);
    const auto now = states(m);
    BOOST_TEST(now.size() == known);
    for (const auto& [k, v] : now) {
      BOOST_TEST_INFO("series " << k);
      BOOST_TEST(v == (k == "streamt_kafka_transaction_state{state=\"" + state + "\"}" ? "1" : "0"));
    }
  }
  // A state of a newer librdkafka is shown besides the known ones.
  engine::client_statistics s;
  s.transaction_state = "SomethingNew";
  m.statistics(s);
  const auto newer = states(m);
  BOOST_TEST(newer.size() == known + 1);
  BOOST_TEST(newer.at("streamt_kafka_transaction_state{state=\"SomethingNew\"}") == "1");
  BOOST_TEST(newer.at("streamt_kafka_transaction_state{state=\"Ready\"}") == "0");
}

BOOST_AUTO_TEST_CASE(refuses_statistics_that_are_not_a_json_object) {
  BOOST_TEST(!engine::parse_client_statistics("{\"brokers\":").has_value());
  BOOST_TEST(!engine::parse_client_statistics("[1,2]").has_value());
}

BOOST_AUTO_TEST_CASE(reads_listen_addresses_and_says_what_is_wrong_with_bad_ones) {
  auto v4 = engine::parse_listen_address("127.0.0.1:9400");
  BOOST_TEST_REQUIRE(v4.has_value());
  BOOST_TEST(v4->port() == 9400);
  auto v6 = engine::parse_listen_address("[::1]:0");
  BOOST_TEST_REQUIRE(v6.has_value());
  BOOST_TEST(v6->address().is_v6());
  auto local = engine::parse_listen_address("localhost:1");
  BOOST_TEST_REQUIRE(local.has_value());
  BOOST_TEST(local->address().to_string() == "127.0.0.1");
  BOOST_TEST(engine::parse_listen_address("9400").error().find("HOST:PORT") != std::string::npos);
  BOOST_TEST(engine::parse_listen_address("127.0.0.1:65536").error().find("port") != std::string::npos);
  BOOST_TEST(engine::parse_listen_address("127.0.0.1:").error().find("port") != std::string::npos);
  BOOST_TEST(engine::parse_listen_address("example.com:80").error().find("not an IP address") !=
             std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(metrics_server)

namespace {

// One HTTP/1.1 request on a fresh connection (Connection: close), the whole
// answer back as text.
asio::awaitable<std::string> request(asio::ip::tcp::endpoint at, std::string method, std::string target) {
  asio::ip::tcp::socket socket(co_await asio::this_coro::executor);
  co_await socket.async_connect(at, asio::use_awaitable);
  const std::string req = method + " " + target + " HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n";
  co_await asio::async_write(socket, asio::buffer(req), asio::use_awaitable);
  std::string answer;
  auto [ec, n] =
      co_await asio::async_read(socket, asio::dynamic_buffer(answer), asio::as_tuple(asio::use_awaitable));
  (void)n;
  BOOST_TEST((ec == asio::error::eof || !ec));
  co_return answer;
}

// A metrics server listening on a free loopback port.
struct listening {
  asio::io_context io;
  std::shared_ptr<engine::metrics> m = std::make_shared<engine::metrics>();
  std::unique_ptr<engine::metrics_server> server;
  asio::ip::tcp::endpoint at;

  explicit listening(engine::metrics_server::limits l = {}) {
    auto made =
        engine::metrics_server::listen(io.get_executor(), *engine::parse_listen_address("127.0.0.1:0"), m, l);
    BOOST_TEST_REQUIRE(made.has_value());
    server = std::move(*made);
    at = server->local_endpoint();
  }
};

std::string status_line(const std::string& answer) { return answer.substr(0, answer.find("\r\n")); }
std::string body(const std::string& answer) { return answer.substr(answer.find("\r\n\r\n") + 4); }

}  // namespace

BOOST_AUTO_TEST_CASE(answers_health_readiness_and_metrics_as_the_run_goes) {
  listening srv;
  BOOST_TEST(srv.at.port() != 0);
  bool served = false;
  asio::co_spawn(srv.io, srv.server->serve(), [&](std::exception_ptr e) {
    BOOST_TEST(!e);
    served = true;
  });
  bool checked = false;
  asio::co_spawn(
      srv.io,
      [&]() -> asio::awaitable<void> {
        std::string a = co_await request(srv.at, "GET", "/healthz");
        BOOST_TEST(status_line(a) == "HTTP/1.1 503 Service Unavailable");
        srv.m->run_started();
        a = co_await request(srv.at, "GET", "/healthz");
        BOOST_TEST(status_line(a) == "HTTP/1.1 200 OK");
        a = co_await request(srv.at, "GET", "/readyz");
        BOOST_TEST(status_line(a) == "HTTP/1.1 503 Service Unavailable");
        BOOST_TEST(body(a) == "not ready: waiting for the group to assign partitions\n");
        srv.m->assigned(4);
        a = co_await request(srv.at, "GET", "/readyz?verbose");
        BOOST_TEST(status_line(a) == "HTTP/1.1 200 OK");
        BOOST_TEST(body(a) == "ready: 4 partition(s) assigned\n");
        srv.m->committed(counts(5, 2, 3, 0), 1ms);
        a = co_await request(srv.at, "GET", "/metrics");
        BOOST_TEST(status_line(a) == "HTTP/1.1 200 OK");
        BOOST_TEST(a.find("Content-Type: text/plain; version=0.0.4; charset=utf-8") != std::string::npos);
        BOOST_TEST(samples_of(body(a)).at("streamt_records_produced_total") == "2");
        a = co_await request(srv.at, "HEAD", "/metrics");
        BOOST_TEST(status_line(a) == "HTTP/1.1 200 OK");
        BOOST_TEST(body(a).empty());
        a = co_await request(srv.at, "POST", "/metrics");
        BOOST_TEST(status_line(a) == "HTTP/1.1 405 Method Not Allowed");
        a = co_await request(srv.at, "GET", "/");
        BOOST_TEST(status_line(a) == "HTTP/1.1 404 Not Found");
        checked = true;
        srv.server->stop();
      },
      [](std::exception_ptr e) { BOOST_TEST(!e); });
  srv.io.run();  // returns only once stop() ended the accept loop
  BOOST_TEST(checked);
  BOOST_TEST(served);
}

BOOST_AUTO_TEST_CASE(stop_closes_a_kept_alive_connection_so_the_io_context_runs_out_of_work) {
  listening srv;
  asio::co_spawn(srv.io, srv.server->serve(), asio::detached);
  std::string answer;
  boost::system::error_code after_stop;
  asio::co_spawn(
      srv.io,
      [&]() -> asio::awaitable<void> {
        asio::ip::tcp::socket socket(co_await asio::this_coro::executor);
        co_await socket.async_connect(srv.at, asio::use_awaitable);
        const std::string req = "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n";  // keep-alive
        co_await asio::async_write(socket, asio::buffer(req), asio::use_awaitable);
        char buf[512];
        const std::size_t n = co_await socket.async_read_some(asio::buffer(buf), asio::use_awaitable);
        answer.assign(buf, n);
        srv.server->stop();
        // The server's own idle timeout (30 s) would close it too: the read
        // must end well before, or stop() left the connection open.
        using namespace asio::experimental::awaitable_operators;
        asio::steady_timer bound(co_await asio::this_coro::executor, 10s);
        auto either =
            co_await (socket.async_read_some(asio::buffer(buf), asio::as_tuple(asio::use_awaitable)) ||
                      bound.async_wait(asio::use_awaitable));
        BOOST_TEST_REQUIRE(either.index() == 0u);
        after_stop = std::get<0>(std::get<0>(either));
      },
      [](std::exception_ptr e) { BOOST_TEST(!e); });
  srv.io.run();
  BOOST_TEST(status_line(answer) == "HTTP/1.1 503 Service Unavailable");
  BOOST_TEST(after_stop == asio::error::eof);
}

BOOST_AUTO_TEST_CASE(a_taken_port_is_an_error_at_listen) {
  asio::io_context io;
  auto m = std::make_shared<engine::metrics>();
  auto first =
      engine::metrics_server::listen(io.get_executor(), *engine::parse_listen_address("127.0.0.1:0"), m);
  BOOST_TEST_REQUIRE(first.has_value());
  auto second = engine::metrics_server::listen(io.get_executor(), (*first)->local_endpoint(), m);
  BOOST_TEST(!second.has_value());
  BOOST_TEST(second.error() == asio::error::address_in_use);
}

// The whole answer to raw request bytes sent on a fresh connection.
asio::awaitable<std::string> raw_request(asio::ip::tcp::endpoint at, std::string bytes) {
  asio::ip::tcp::socket socket(co_await asio::this_coro::executor);
  co_await socket.async_connect(at, asio::use_awaitable);
  co_await asio::async_write(socket, asio::buffer(bytes), asio::use_awaitable);
  std::string answer;
  auto [ec, n] =
      co_await asio::async_read(socket, asio::dynamic_buffer(answer), asio::as_tuple(asio::use_awaitable));
  (void)ec;
  (void)n;
  co_return answer;
}

BOOST_AUTO_TEST_CASE(headers_over_the_limit_get_431_and_a_malformed_request_gets_400) {
  listening srv;
  asio::co_spawn(srv.io, srv.server->serve(), [](std::exception_ptr e) { BOOST_TEST(!e); });
  bool checked = false;
  asio::co_spawn(
      srv.io,
      [&]() -> asio::awaitable<void> {
        const std::string big =
            "GET /metrics HTTP/1.1\r\nHost: t\r\nX-Big: " + std::string(9000, 'a') + "\r\n\r\n";
        std::string a = co_await raw_request(srv.at, big);
        BOOST_TEST(status_line(a) == "HTTP/1.1 431 Request Header Fields Too Large");
        a = co_await raw_request(srv.at, "GET /metrics HTTP/9\r\n\r\n");
        BOOST_TEST(status_line(a) == "HTTP/1.1 400 Bad Request");
        a = co_await request(srv.at, "GET", "/healthz");  // still serving
        BOOST_TEST(status_line(a) == "HTTP/1.1 503 Service Unavailable");
        checked = true;
        srv.server->stop();
      },
      [](std::exception_ptr e) { BOOST_TEST(!e); });
  srv.io.run();
  BOOST_TEST(checked);
}

BOOST_AUTO_TEST_CASE(
    at_the_connection_cap_the_oldest_connection_is_closed_and_a_health_probe_answered_at_once) {
  // An idle timeout far longer than the test's bound: the probe's answer
  // can only come from the server making room.
  listening srv{engine::metrics_server::limits{.max_connections = 2, .idle_timeout = 60s}};
  asio::co_spawn(srv.io, srv.server->serve(), [](std::exception_ptr e) { BOOST_TEST(!e); });
  // What happened, in order: "idle N closed" for each idle connection the
  // server closed, "answered" for the probe that came third.
  std::vector<std::string> events;
  // Each wakes when its idle client has connected: the second connects
  // after the first, the probe after both.
  asio::steady_timer first_connected(srv.io, std::chrono::steady_clock::time_point::max());
  asio::steady_timer both_connected(srv.io, std::chrono::steady_clock::time_point::max());
  auto idle = [&](std::string name, asio::steady_timer& connected) -> asio::awaitable<void> {
    asio::ip::tcp::socket socket(co_await asio::this_coro::executor);
    co_await socket.async_connect(srv.at, asio::use_awaitable);
    connected.cancel();
    char buf[16];
    auto [ec, n] = co_await socket.async_read_some(asio::buffer(buf), asio::as_tuple(asio::use_awaitable));
    (void)n;
    BOOST_TEST((ec == asio::error::eof || ec == asio::error::connection_reset));
    events.push_back(name + " closed");
  };
  asio::co_spawn(srv.io, idle("idle 1", first_connected), [](std::exception_ptr e) { BOOST_TEST(!e); });
  asio::co_spawn(
      srv.io,
      [&]() -> asio::awaitable<void> {
        // The second idle client connects after the first, so the first is
        // the oldest.
        auto [waited] = co_await first_connected.async_wait(asio::as_tuple(asio::use_awaitable));
        (void)waited;
        co_await idle("idle 2", both_connected);
      },
      [](std::exception_ptr e) { BOOST_TEST(!e); });
  asio::co_spawn(
      srv.io,
      [&]() -> asio::awaitable<void> {
        auto [waited] = co_await both_connected.async_wait(asio::as_tuple(asio::use_awaitable));
        (void)waited;
        using namespace asio::experimental::awaitable_operators;
        asio::steady_timer bound(co_await asio::this_coro::executor, 10s);
        auto either = co_await (request(srv.at, "GET", "/healthz") || bound.async_wait(asio::use_awaitable));
        BOOST_TEST_REQUIRE(either.index() == 0u,
                           "the probe was not answered before the idle clients timed out");
        BOOST_TEST(status_line(std::get<0>(either)) == "HTTP/1.1 503 Service Unavailable");
        events.push_back("answered");
        srv.server->stop();
      },
      [](std::exception_ptr e) { BOOST_TEST(!e); });
  srv.io.run();
  BOOST_TEST_REQUIRE(events.size() == 3u);
  BOOST_TEST(events.at(0) == "idle 1 closed");  // the oldest, to make room
  BOOST_TEST(events.at(1) == "answered");
  BOOST_TEST(events.at(2) == "idle 2 closed");  // by stop()
}

BOOST_AUTO_TEST_SUITE_END()
