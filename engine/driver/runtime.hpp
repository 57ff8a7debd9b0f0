// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The driver of one run attempt: performs the session's actions against
// kafka/ and feeds their outcomes back. It decides nothing about the run
// (engine/session/ does, start-up included); what it keeps is how to talk
// to Kafka, the delivery-report coroutine, logs and metrics. Its methods
// live in one file per concern:
//
//   loop.cpp              run() and loop(): ask, perform, feed back; the
//                         transaction's calls (poll, produce, commit, ...)
//   start_steps.cpp       the start-up's actions: settings, state
//                         directory, clients, topics, init_transactions,
//                         the plan log, subscribe
//   consumer_side.cpp     rebalances (committed offsets and watermarks for
//                         the session's start decisions), rewinds, consumer
//                         errors, the waits for the brokers
//   delivery_reports.cpp  the producer's events, served all the time
//   reporting.cpp         log lines, metrics, the run report, last-run.json

#include "engine/client_failure.hpp"
#include "engine/driver/kafka_sink.hpp"
#include "engine/driver/stop_request.hpp"
#include "engine/kafka_runtime.hpp"
#include "engine/log.hpp"
#include "engine/progress.hpp"
#include "engine/session/session.hpp"
#include "engine/state_dir.hpp"
#include "kafka/consumer.hpp"
#include "kafka/plan_log.hpp"
#include "kafka/producer.hpp"
#include "kafka/registry/client.hpp"
#include "operators/stage_pipeline.hpp"
#include "plan/plan.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace streamt::engine::driver {

namespace asio = boost::asio;
namespace ss = streamt::engine::session;
using std::chrono::steady_clock;

class runtime {
 public:
  // `lg` is async_run's logger (the pipeline's identity, and `txn` among its
  // attributes): the runtime sets `txn` at each begin, and async_run's own
  // lines show the transaction its last attempt reached.
  runtime(plan::plan p, run_options o, logger lg, transaction_sequence txn, const stop_request& stop);

  // The whole attempt, start-up to close.
  asio::awaitable<run_report> run();
  // Whether the run ended on a fatal producer error a new producer gets past.
  bool restartable() const noexcept { return restartable_; }

 private:
  // ---- loop.cpp
  asio::awaitable<void> loop();
  asio::awaitable<ss::action> poll(ss::action a);
  asio::awaitable<boost::system::error_code> ready_accepting_total();
  asio::awaitable<std::tuple<boost::system::error_code>> deadline_accepting_total(
      asio::steady_timer& deadline);
  ss::action produce(const ss::action& a);
  asio::awaitable<ss::action> send_offsets();
  asio::awaitable<ss::action> commit(ss::action a);
  asio::awaitable<ss::action> abort(ss::action a);
  asio::awaitable<ss::action> retry_after(ss::action a);
  ss::action give_up(const ss::action& a);
  asio::awaitable<void> close(ss::action a);
  // ---- schemas.cpp
  std::optional<std::string> make_registry_client();
  asio::awaitable<ss::action> fetch_schema(ss::action a);
  asio::awaitable<ss::action> register_sink_schema(ss::action a);
  ss::action learn_schema(const ss::action& a);
  void report_registry_wait();
  bool stop_news() const noexcept;
  bool stop_asked() const noexcept;

  // ---- start_steps.cpp
  ss::prepared prepare();
  std::string make_producer(const kafka::settings& producer_settings);
  asio::awaitable<ss::topics_listed> list_topics(std::chrono::milliseconds slice);
  asio::awaitable<ss::steps_done> together(std::vector<ss::action> steps);
  asio::awaitable<ss::step_outcome> start_step(ss::action a);
  asio::awaitable<ss::batches_capped> cap_batches();
  asio::awaitable<ss::transactions_initialised> init_transactions(std::chrono::milliseconds slice);
  asio::awaitable<ss::plan_log_created> create_plan_log(const ss::action& a);
  asio::awaitable<ss::plan_log_read> read_plan_log(const ss::action& a);
  asio::awaitable<ss::claim_appended> append_claim(const ss::action& a);
  ss::state_committed commit_state();
  ss::subscribed subscribe();

  // ---- consumer_side.cpp
  asio::awaitable<ss::action> on_rebalance(kafka::rebalance_event ev);
  ss::action refuse_assignment(std::vector<kafka::topic_partition> parts, ss::run_failed failure);
  asio::awaitable<ss::rewound> rewind(std::vector<ss::partition_id> ids);
  asio::awaitable<kafka::kafka_result<std::vector<kafka::committed_offset>>> committed_offsets(
      std::vector<kafka::topic_partition> parts);
  template <class T, class Query>
  asio::awaitable<kafka::kafka_result<T>> patiently(std::string what, Query query);
  std::optional<ss::run_failed> on_consumer_error(const kafka::consumer_error& e);
  std::vector<kafka::topic_partition> source_partitions(const std::vector<ss::partition_id>& ids) const;

  // ---- delivery_reports.cpp
  void serve_delivery_reports();
  asio::awaitable<void> stop_delivery_reports();
  asio::awaitable<void> drain_events();

  // ---- reporting.cpp
  void log_decision(ss::action& a);
  void log_commit(steady_clock::duration took);
  void report_commit(steady_clock::duration took);
  void report_positions();
  void report_progress();
  bool settled() const;
  void report_previous_run();
  run_report fail(run_status s, std::string message) const;
  run_report outcome() const;
  run_report progress(run_report r) const;
  run_report finish(run_report r);
  void record_end(const run_report& r);

  const stop_request* stop_;  // async_run's: outlives this runtime
  asio::any_io_executor ex_;  // the pipeline's: the clients complete on it
  plan::plan plan_;
  run_options options_;
  logger log_;
  transaction_sequence txn_;
  operators::stage_pipeline stages_;
  ss::run_session session_;  // every decision of the run
  std::optional<state_dir> state_;
  std::string txn_id_;
  // The client settings (the user's, bootstrap servers and client.id), and
  // the producer's (with its statistics interval, and the batch cap).
  kafka::settings settings_;
  kafka::settings producer_settings_;
  std::vector<sink_rules> sink_rules_;  // what each topic written refuses, read by cap_batches
  // The offset metadata of every commit: which plan, which instance
  // (engine/lineage.hpp).
  std::string lineage_;
  std::unique_ptr<kafka::producer> producer_;
  std::unique_ptr<kafka::consumer> consumer_;
  // The plan log's calls, on a thread of their own (start-up only; its
  // topic is created through the consumer's handle, so it goes first).
  std::unique_ptr<kafka::plan_log_client> plan_log_;
  // The Schema Registry's client, for a plan that reads Avro (schemas.cpp).
  std::unique_ptr<kafka::registry::client> registry_;
  // The backoff's spread between instances that failed together.
  std::minstd_rand jitter_{std::random_device{}()};
  std::optional<kafka_sink> sink_;
  std::shared_ptr<metrics> metrics_;
  // The last poll's batch: its records (views_ point into it) until the
  // next poll, and its errors and rebalance until the session has heard them.
  std::optional<kafka::poll_batch> held_;
  std::vector<record_view> views_;
  // When the commit under way was first called, for its duration in the log
  // and metrics (the session keeps its own for the protocol).
  steady_clock::time_point call_began_{};
  bool restartable_ = false;
  // The delivery-report coroutine (delivery_reports.cpp).
  asio::cancellation_signal drain_stop_;
  std::optional<asio::steady_timer> drain_done_;
  bool drain_finished_ = false;
  std::exception_ptr drain_crashed_;
  std::uint64_t commits_ = 0;
  steady_clock::time_point last_summary_{};
  // Whether the run is behind, and how fast it catches up (reporting.cpp);
  // where each owned partition stands, refilled at each report (kept, so
  // that a report allocates nothing once it has grown).
  progress_tracker progress_;
  std::vector<partition_standing> standing_;
};

}  // namespace streamt::engine::driver
