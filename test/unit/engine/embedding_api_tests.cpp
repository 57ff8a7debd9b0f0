// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/streamt.hpp"

#include "test/support/temp_dir.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

// The embedding API (<streamt/engine.hpp>): plan loading, and the
// completion-token form of async_run against a broker that is not there. The
// run itself is engine::async_run, tested by test_mock and, from an installed
// package against a real broker, by the `embed` integration test.

namespace {

using namespace streamt;
namespace fs = std::filesystem;
namespace asio = boost::asio;
using namespace std::chrono_literals;

const std::string data_dir = STREAMT_TEST_DATA_DIR;

// The test's directory.
struct scratch {
  streamt::test::temp_dir tmp{"streamt-embed"};
  fs::path dir = tmp.path();
};

}  // namespace

BOOST_AUTO_TEST_SUITE(embedding_api)

BOOST_AUTO_TEST_CASE(a_plan_file_loads_as_the_same_plan_as_its_text) {
  const std::string path = data_dir + "/plans/valid_orders.json";
  result<plan::plan> from_file = load_plan_file(path);
  BOOST_TEST_REQUIRE(from_file.has_value());
  std::ifstream in(path, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  result<plan::plan> from_text = load_plan(text);
  BOOST_TEST_REQUIRE(from_text.has_value());
  BOOST_TEST(plan::digest(*from_file) == plan::digest(*from_text));
}

BOOST_AUTO_TEST_CASE(a_missing_plan_file_is_a_diagnostic_naming_the_path) {
  scratch s;
  const std::string path = (s.dir / "absent.json").string();
  result<plan::plan> p = load_plan_file(path);
  BOOST_TEST_REQUIRE(!p.has_value());
  BOOST_TEST(p.error().code == "unreadable_input");
  BOOST_TEST(p.error().message.find(path) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_plan_file_the_loader_refuses_carries_the_loaders_diagnostic) {
  scratch s;
  const fs::path path = s.dir / "plan.json";
  std::ofstream(path) << "{\"plan_version\": 2}";
  result<plan::plan> p = load_plan_file(path.string());
  BOOST_TEST_REQUIRE(!p.has_value());
  BOOST_TEST(to_string(p.error().phase) == std::string("plan"));
  BOOST_TEST(p.error().code != "unreadable_input");
  BOOST_TEST(!p.error().path.empty());
}

// Port 1 on loopback: refused at once, so librdkafka keeps retrying until the
// connect timeout, as with any unreachable broker.
engine::run_options unreachable_broker(const fs::path& state_dir, std::chrono::milliseconds connect_timeout) {
  engine::run_options o;
  o.bootstrap_servers = "127.0.0.1:1";
  o.state_dir = state_dir.string();
  o.connect_timeout = connect_timeout;
  o.client_settings = {{"log_level", "0"}};
  return o;
}

BOOST_AUTO_TEST_CASE(the_token_form_completes_with_the_report_on_the_given_executor) {
  scratch s;
  result<plan::plan> p = load_plan_file(data_dir + "/plans/valid_orders.json");
  BOOST_TEST_REQUIRE(p.has_value());
  asio::io_context io(1);
  bool completed = false;
  bool on_io_thread = false;
  engine::run_report report;
  streamt::async_run(io.get_executor(), std::move(*p), unreachable_broker(s.dir / "state", 500ms),
                     [&](std::exception_ptr e, engine::run_report r) {
                       BOOST_TEST(!e);
                       completed = true;
                       on_io_thread = io.get_executor().running_in_this_thread();
                       report = std::move(r);
                     });
  io.run();
  BOOST_TEST_REQUIRE(completed);
  BOOST_TEST(on_io_thread);
  BOOST_TEST(engine::to_int(engine::exit_code_of(report.status)) == 69);
  BOOST_TEST(report.message.find("127.0.0.1:1") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_total_cancellation_through_the_tokens_slot_stops_the_run_while_it_waits_for_brokers) {
  scratch s;
  result<plan::plan> p = load_plan_file(data_dir + "/plans/valid_orders.json");
  BOOST_TEST_REQUIRE(p.has_value());
  asio::io_context io(1);
  asio::cancellation_signal stop;
  std::optional<engine::run_report> report;
  // Without the stop the run would end as unavailable after a minute: the
  // status tells the two apart.
  streamt::async_run(
      io.get_executor(), std::move(*p), unreachable_broker(s.dir / "state", 60s),
      asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr e, engine::run_report r) {
        BOOST_TEST(!e);
        report = std::move(r);
      }));
  // The stop arrives while the engine waits for the brokers, as an
  // application's would; the timer only lets the run get that far.
  asio::steady_timer later(io, 300ms);
  later.async_wait([&](boost::system::error_code) { stop.emit(asio::cancellation_type::total); });
  io.run();
  BOOST_TEST_REQUIRE(report.has_value());
  BOOST_TEST((report->status == engine::run_status::stopped));
  BOOST_TEST(engine::to_int(engine::exit_code_of(report->status)) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
