// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// What a running engine reports to an operator: the Prometheus metrics of
// docs/metrics.md, and the liveness and readiness that /healthz and /readyz
// answer (engine/metrics_server.hpp serves them over HTTP).
//
// The runtime writes; anyone reads. Records are counted when their
// transaction commits, not as they pass through the stages: a transaction
// that is aborted and redone must not count its records twice, or
// streamt_records_produced_total would drift away from what the sink topic
// holds. Records of an aborted transaction are counted apart, as rolled back.
//
// Threads: every member may be called from any thread. Writes come from the
// pipeline's executor once per polled batch or transaction, never per
// record, so one mutex is cheap; a scrape takes it once.

#include "engine/process_batch.hpp"
#include "plan/plan.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace streamt::engine {

// The librdkafka statistics an operator looks at, taken out of the producer's
// statistics JSON (statistics.interval.ms) as plain data.
struct client_statistics {
  struct broker {
    std::string address;  // "host:port" (librdkafka's nodename)
    std::int32_t node_id = -1;
    bool up = false;  // connection state UP
    double rtt_avg_seconds = 0;
    double rtt_p99_seconds = 0;
    // How long the broker held its responses back for a quota (KIP-219:
    // quotas throttle, they fail nothing), longest over the last window.
    double throttle_max_seconds = 0;
  };
  std::vector<broker> brokers;        // the bootstrap placeholders left out
  std::uint64_t queued_messages = 0;  // msg_cnt: produced, not yet delivered
  std::uint64_t tx_bytes = 0;         // sent to the brokers since the client started
  std::uint64_t rx_bytes = 0;
  std::string transaction_state;  // eos.txn_state, e.g. "InTransaction"
};

// The transaction states librdkafka reports (eos.txn_state), in its order.
// streamt_kafka_transaction_state has one series for each, always, so that
// none comes and goes; a state a newer librdkafka adds is shown as well
// while it is the current one.
inline constexpr std::string_view transaction_states[] = {"Init",
                                                          "WaitPID",
                                                          "ReadyNotAcked",
                                                          "Ready",
                                                          "InTransaction",
                                                          "BeginCommit",
                                                          "CommittingTransaction",
                                                          "CommitNotAcked",
                                                          "BeginAbort",
                                                          "AbortingTransaction",
                                                          "AbortedNotAcked",
                                                          "AbortableError",
                                                          "FatalError"};

// Parses librdkafka's statistics JSON; nullopt if it is not the object
// librdkafka documents (STATISTICS.md), which only a newer librdkafka
// changing its format would cause.
std::optional<client_statistics> parse_client_statistics(std::string_view json);

// Upper bounds (seconds) of the commit-latency histogram's buckets.
inline constexpr double commit_latency_buckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                    0.5,   1.0,  2.5,   5.0,  10.0};

class metrics {
 public:
  struct identity {
    std::string application_id;
    std::string plan_digest;
    std::string source_topic;
    std::string sink_topic;  // a routed plan's sink topics, joined with ","
    // A routed plan's route names (plan::route_name, routes_of order), the
    // `route` label of its per-route counters; empty for a single SELECT,
    // whose metrics are those it always had.
    std::vector<std::string> routes{};
  };
  // What `p` is, as the metrics name it: the one place it is derived, for
  // `streamt run` (before the run starts) and the run itself.
  static identity identity_of(const plan::plan& p);
  struct readiness {
    bool ready = false;
    std::string detail;  // why not, or what "ready" stands on
  };

  // ---- written by the runtime ----------------------------------------------

  void set_identity(identity id);

  // A run (or an in-process restart) started: live, not ready until its first
  // assignment.
  void run_started();
  // The run ended (any status): neither live nor ready.
  void run_ended();
  // The group gave this member its partitions (possibly none: more instances
  // than partitions). Ready from here on.
  void assigned(std::size_t partitions_owned);
  void revoked(std::size_t partitions_owned, const std::vector<std::pair<std::string, std::int32_t>>& gone);
  // A stop was asked for: no longer ready (the open transaction finishes).
  void stopping();
  // The run waits for the Schema Registry (an Avro record's writer schema):
  // not ready, with `reason`, until registry_answered(); the wait's time is
  // counted. Calling it again while waiting only updates the reason.
  void registry_waiting(std::string reason);
  void registry_answered();
  // Requests sent to the Schema Registry so far in this run (its client's
  // count: at most one per schema id, plus the retries of a wait).
  void registry_requests(std::uint64_t sent);

  // A transaction committed, holding these records, after commit_transaction
  // took `took`.
  void committed(const record_counts& records, std::chrono::steady_clock::duration took);
  // A transaction was aborted; its records will be processed again.
  void aborted(std::uint64_t records_rolled_back);
  void commit_retried();
  void rewound();
  void restarted();
  // The engine stopped at an invalid record, or one the sink refused for good.
  void invalid_record();

  // Where a partition stands: the offset the last committed transaction (or
  // the group, at assignment) holds for it, and the partition's end offset as
  // the consumer last saw it. The lag is their difference. A new position
  // forgets what partition_read_to said (the read position may be older).
  void partition_position(const std::string& topic, std::int32_t partition, std::int64_t committed,
                          std::optional<std::int64_t> end);

  // Between commits, while nothing waits to be committed: the consumer's
  // position, past the commit markers (and aborted records) after the last
  // record, which a read_committed consumer skips. The lag counts from it,
  // so a source written by a transactional producer (one streamt feeding
  // another) rests at 0, not at one marker per partition. Ignored for a
  // partition not reported by partition_position.
  void partition_read_to(const std::string& topic, std::int32_t partition, std::int64_t read_to);

  void statistics(client_statistics s);

  // The process_* metrics (CPU, memory, descriptors, start time; on by
  // default): off for an application that embeds the engine and exports its
  // own, since the names would collide.
  void include_process_metrics(bool on);

  // The process is about to exit with `code` (streamt run's exit code):
  // shown as streamt_exit_code and streamt_exit_timestamp_seconds, for the
  // metrics file that outlives the process (write_textfile).
  void exiting(int code);

  // ---- read by /metrics, /healthz, /readyz, and tests --------------------

  // Prometheus text exposition format 0.0.4.
  std::string prometheus_text() const;

  // The same, durably written to `path` for node_exporter's textfile
  // collector (streamt run --metrics-file): without the process_* families,
  // which node_exporter exports for itself and refuses twice. Returns an
  // error message.
  std::optional<std::string> write_textfile(const std::string& path) const;

 private:
  std::string text(bool with_process) const;
  void end_registry_wait();

 public:
  bool live() const;
  readiness ready() const;
  record_counts committed_records() const;

 private:
  struct partition_state {
    std::int64_t committed = -1;
    std::optional<std::int64_t> end;
    std::optional<std::int64_t> read_to;
  };

  mutable std::mutex mutex_;
  identity id_;
  bool live_ = false;
  bool assigned_ = false;
  bool stopping_ = false;
  std::size_t owned_ = 0;
  record_counts records_;
  std::uint64_t rolled_back_ = 0;
  std::uint64_t invalid_ = 0;
  std::uint64_t committed_txns_ = 0;
  std::uint64_t aborted_txns_ = 0;
  std::uint64_t commit_retries_ = 0;
  std::uint64_t rewinds_ = 0;
  std::uint64_t restarts_ = 0;
  // The waits for the Schema Registry: the one under way, and the time the
  // ended ones took.
  std::optional<std::chrono::steady_clock::time_point> registry_wait_since_;
  std::string registry_wait_reason_;
  double registry_waited_seconds_ = 0;
  std::uint64_t registry_requests_base_ = 0;  // earlier runs' (in-process restarts)
  std::uint64_t registry_requests_run_ = 0;
  std::uint64_t latency_counts_[std::size(commit_latency_buckets) + 1] = {};  // last: +Inf
  double latency_sum_ = 0;
  std::optional<std::chrono::system_clock::time_point> last_commit_;
  // What streamt_last_commit_timestamp_seconds says before the first commit:
  // an engine that never commits (stuck at start-up) ages from here, so the
  // alert on the commit's age fires for it too.
  std::chrono::system_clock::time_point created_ = std::chrono::system_clock::now();
  bool process_metrics_ = true;
  std::optional<int> exit_code_;
  std::chrono::system_clock::time_point exit_time_;
  std::map<std::pair<std::string, std::int32_t>, partition_state> partitions_;
  std::optional<client_statistics> client_;
};

}  // namespace streamt::engine
