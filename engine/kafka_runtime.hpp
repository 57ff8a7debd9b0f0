// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The exactly-once Kafka runtime (`streamt run`, contract §5): consume
// read_committed → the operators' stages → produce transactionally → send the
// consumed offsets → commit, every commit interval or record bound.
//
// One runtime is one pipeline: it runs on the executor of the coroutine that
// awaits it (use a single-threaded io_context or a strand) and touches its
// state only from there. Blocking librdkafka calls run on the kafka/ pools.
//
// Every decision of a run, start-up included, is the session's
// (engine/session/session.hpp, sans-io, `on(event) -> action`); the driver in
// engine/driver/ performs its actions against kafka/ and feeds the outcomes
// back, and engine/async_run.cpp runs the attempts and the two-phase stop
// (engine/README.md has the reading order).

#include "engine/exit_codes.hpp"
#include "engine/metrics.hpp"
#include "engine/process_batch.hpp"
#include "engine/run_counters.hpp"
#include "engine/run_defaults.hpp"
#include "engine/run_status.hpp"
#include "engine/session/position_policy.hpp"
#include "kafka/config.hpp"
#include "kafka/registry/config.hpp"
#include "plan/plan.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace streamt::engine {

struct run_report;

struct run_options {
  std::string bootstrap_servers;
  // -X and --config settings; engine-owned keys are refused by name, and
  // ${env:NAME} / ${file:PATH} references are resolved when the run starts.
  kafka::settings client_settings;
  std::string state_dir;
  // Kafka Streams' exactly-once default; a transaction also ends at the bound.
  std::chrono::milliseconds commit_interval = defaults::commit_interval;
  // The bound is a backstop, not the pace: below 500,000 records/s the
  // interval ends each transaction first. At 10,000 it cut transactions at
  // 125,000 records/s (bench/compare), and each commit stalls consumption
  // for a few broker round trips: 50,000 bought 15-25% throughput there.
  // It stays under librdkafka's queue.buffering.max.messages (100,000): a
  // transaction's records must fit the producer's queue, or QUEUE_FULL
  // would abort it.
  std::size_t max_records_per_transaction = defaults::max_records_per_transaction;
  reset_policy reset_offsets = reset_policy::none;
  bool allow_output_change = false;
  // How the consumer is a member of its group (docs/operations.md "Group
  // membership"). By default, with the classic protocol, a static member
  // (KIP-345): group.instance.id is the instance's transactional id
  // (<application id>-<instance id>), kept by the state directory, so an
  // instance restarted after a crash takes its partitions back at once with
  // no rebalance; a clean stop still leaves the group, so its partitions
  // move at once too (kafka::consumer::async_close). With KIP-848's protocol
  // a static member that restarts before its session expires is refused
  // (UNRELEASED_INSTANCE_ID), so there the default is a dynamic member.
  kafka::membership membership = kafka::membership::automatic;
  // Read the max.message.bytes of the sink and dead-letter topics at start
  // (DescribeConfigs, up to 5 s) and cap the producer's batch.size to it,
  // so that an output too large for the topic is found alone in its batch
  // (contract §5); the source's cleanup.policy is read in the same step, so
  // that a compacted source the plan chose no changelog for is refused.
  // Off: librdkafka's batch.size as configured and no source check, for a
  // cluster that answers no DescribeConfigs (librdkafka's mock cluster
  // waits out the 5 s at every start; test/unit/mock turns it off).
  bool cap_batches_to_topic_limits = true;
  // Claim the application id for this plan in its plan log before joining
  // the group (session/claims.hpp), so that of two unrelated plans started
  // at once on a new group only one runs. Off only for librdkafka's mock
  // cluster (test/unit/mock), which keeps no such topic for the test to
  // mean anything; a real fleet always claims.
  bool claim_plans = true;
  // When not empty, every record the run writes (outputs and dead-letter
  // records) carries one more header of this name, after the input's own:
  // "sha256:<plan digest>;p=<source partition>;o=<source offset>"
  // (engine/lineage.hpp, contract §5). A name lineage_header_name_problem
  // refuses ends the run at start with rejected_config.
  std::string lineage_header;
  // How long the brokers may take to answer at start-up (until partitions are
  // first taken). A running engine waits for them up to stall_timeout.
  std::chrono::milliseconds connect_timeout{30000};
  // How long a running engine waits for one answer from its brokers (an
  // offsets query, a commit's or an abort's outcome) before the run fails:
  // exit 69 for a query, 75 for a commit or abort, without leaving the group.
  // A wait that long is no outage a restart would not also ride out, and a
  // run that waits forever says nothing: the exit line names what was not
  // answered (and, for committed offsets, how to end a hanging transaction),
  // and a supervisor's restart gets new clients. The default is Kafka
  // Streams' task.timeout.ms.
  std::chrono::milliseconds stall_timeout = defaults::stall_timeout;
  // How long a graceful stop may take: past it the stop becomes terminal
  // (the open transaction is aborted, a commit or abort still under way is
  // left to the broker's transaction timeout), as a caller's own terminal
  // stop would make it. Counted from the first graceful stop.
  std::chrono::milliseconds stop_timeout = defaults::stop_timeout;
  // Called after each committed transaction, on the pipeline's executor,
  // with the report so far (status `stopped`, counters up to date). For
  // observers that stop the run once some work is done (the mock-cluster
  // tests do); it must not block, and it may not touch the runtime.
  std::function<void(const run_report&)> on_commit;
  // Where the run reports what it does (docs/metrics.md): counters of
  // committed work, readiness, lag, librdkafka's statistics. Serve it with
  // engine::metrics_server, or read it yourself; it may outlive the run and
  // be passed to the next one (counters keep counting). Left empty, the run
  // keeps its own.
  std::shared_ptr<streamt::engine::metrics> metrics;  // qualified: the member takes the name
  // How often librdkafka reports its statistics to `metrics` (producer
  // statistics.interval.ms), unless the settings set that key themselves.
  std::chrono::milliseconds statistics_interval{15000};
  // The Schema Registry an Avro source's writer schemas come from (and an
  // Avro sink's schema is registered with): required by such a plan, which
  // is refused at start (rejected_config) without it; ignored by others.
  // Each schema id is asked for once per run; a registry that does not
  // answer stalls the run at the record that needs it, up to stall_timeout.
  std::optional<kafka::registry::config> schema_registry;
  // An Avro sink's schema is registered under its subject at start
  // (registering an identical schema again answers its id). False: it must
  // be registered already (`streamt run --no-register`), for a registry
  // whose subjects only an administrator may write.
  bool register_sink_schema = true;
};

exit_code exit_code_of(run_status s) noexcept;

// How a run ended, and what it did (run_counters: records, transactions,
// and how the commit protocol got there).
struct run_report : run_counters {
  run_status status = run_status::stopped;
  std::string message;  // for every status but stopped: what happened and what to do
  std::optional<invalid_record> invalid;
  std::uint64_t restarts = 0;  // in-process restarts after a recoverable fatal producer error
};

// Runs the plan until stopped or failed. A fatal producer error that a new
// producer gets past (kafka::is_recoverable_by_new_producer) restarts the run
// in-process, as a supervisor would restart the process: new clients under the
// same identity, resuming from the committed offsets. At most three such
// restarts within ten minutes; the next one is reported as `failed`.
// Completion: co_return run_report; expected failures are statuses, never
//   exceptions.
// Executor: completes on the awaiting coroutine's executor, which must be
//   single-threaded (one pipeline, one strand).
// Cancellation: `total` is the graceful stop: the open transaction commits,
//   the consumer leaves its group, status `stopped`; if that takes longer
//   than run_options::stop_timeout, the stop becomes terminal by itself.
//   `terminal` stops at once: the open transaction is aborted (or, if its
//   commit already started, left to the broker) and the group is left
//   without waiting. A commit or abort that hangs inside librdkafka is
//   looked at once a second, so either stop is seen within about a second;
//   only leaving the group (a graceful stop's last step) cannot be cut short.
boost::asio::awaitable<run_report> async_run(plan::plan p, run_options options);

}  // namespace streamt::engine
