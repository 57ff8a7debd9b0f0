// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/metrics.hpp"

#include "engine/durable_file.hpp"
#include "engine/process_stats.hpp"
#include "engine/version.hpp"
#include "kafka/handles.hpp"
#include "plan/plan_json.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <charconv>
#include <utility>

namespace streamt::engine {

namespace {

// A label value with Prometheus's three escapes; everything else is literal.
void append_label_value(std::string& out, std::string_view v) {
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
}

void append_number(std::string& out, double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc{} ? end : buf);
}

void append_number(std::string& out, std::uint64_t v) { out += std::to_string(v); }
void append_number(std::string& out, std::int64_t v) { out += std::to_string(v); }

// Builds the exposition text: a family's HELP and TYPE once, then samples.
class exposition {
 public:
  void family(std::string_view name, std::string_view type, std::string_view help) {
    out_ += "# HELP ";
    out_ += name;
    out_ += ' ';
    out_ += help;
    out_ += "\n# TYPE ";
    out_ += name;
    out_ += ' ';
    out_ += type;
    out_ += '\n';
  }

  template <class Number>
  void sample(std::string_view name,
              std::initializer_list<std::pair<std::string_view, std::string_view>> labels, Number value) {
    out_ += name;
    if (labels.size() != 0) {
      out_ += '{';
      bool first = true;
      for (const auto& [k, v] : labels) {
        if (!first) out_ += ',';
        first = false;
        out_ += k;
        out_ += "=\"";
        append_label_value(out_, v);
        out_ += '"';
      }
      out_ += '}';
    }
    out_ += ' ';
    append_number(out_, value);
    out_ += '\n';
  }

  template <class Number>
  void single(std::string_view name, std::string_view type, std::string_view help, Number value) {
    family(name, type, help);
    sample(name, {}, value);
  }

  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

std::uint64_t as_count(const boost::json::value* v) {
  if (!v) return 0;
  if (const auto* i = v->if_int64(); i && *i > 0) return static_cast<std::uint64_t>(*i);
  if (const auto* u = v->if_uint64()) return *u;
  return 0;
}

}  // namespace

std::optional<client_statistics> parse_client_statistics(std::string_view json) {
  boost::system::error_code ec;
  boost::json::value doc = boost::json::parse(json, ec);
  if (ec || !doc.is_object()) return std::nullopt;
  const boost::json::object& top = doc.get_object();
  client_statistics s;
  s.queued_messages = as_count(top.if_contains("msg_cnt"));
  s.tx_bytes = as_count(top.if_contains("tx_bytes"));
  s.rx_bytes = as_count(top.if_contains("rx_bytes"));
  if (const boost::json::value* brokers = top.if_contains("brokers"); brokers && brokers->is_object()) {
    for (const auto& [key, value] : brokers->get_object()) {
      const boost::json::object* b = value.if_object();
      if (!b) continue;
      // Bootstrap entries (node id -1) stand for the configured addresses
      // until the cluster's real brokers are known; listing them would show
      // each broker twice.
      if (const boost::json::value* id = b->if_contains("nodeid");
          id && id->is_int64() && id->get_int64() < 0)
        continue;
      // The address and the node id are two labels: "host:port/id" in one
      // (librdkafka's name, with "ssl://" in front for TLS) cannot be
      // matched on the address alone.
      client_statistics::broker br;
      if (const boost::json::value* n = b->if_contains("nodename"); n && n->is_string())
        br.address = n->get_string();
      if (const boost::json::value* id = b->if_contains("nodeid"); id && id->is_int64())
        br.node_id = static_cast<std::int32_t>(id->get_int64());
      if (br.address.empty()) {  // not in the JSON: cut the name, "[proto://]host:port/id"
        std::string_view name = key;
        if (const auto scheme = name.find("://"); scheme != std::string_view::npos)
          name.remove_prefix(scheme + 3);
        const std::size_t slash = name.rfind('/');
        br.address = name.substr(0, slash);
        if (br.node_id < 0 && slash != std::string_view::npos) {
          const std::string_view id = name.substr(slash + 1);
          std::from_chars(id.data(), id.data() + id.size(), br.node_id);
        }
      }
      if (const boost::json::value* st = b->if_contains("state"); st && st->is_string())
        br.up = st->get_string() == "UP";
      if (const boost::json::value* rtt = b->if_contains("rtt"); rtt && rtt->is_object()) {
        // microseconds in the JSON
        br.rtt_avg_seconds = static_cast<double>(as_count(rtt->get_object().if_contains("avg"))) / 1e6;
        br.rtt_p99_seconds = static_cast<double>(as_count(rtt->get_object().if_contains("p99"))) / 1e6;
      }
      if (const boost::json::value* th = b->if_contains("throttle"); th && th->is_object())  // milliseconds
        br.throttle_max_seconds = static_cast<double>(as_count(th->get_object().if_contains("max"))) / 1e3;
      s.brokers.push_back(std::move(br));
    }
  }
  if (const boost::json::value* eos = top.if_contains("eos"); eos && eos->is_object())
    if (const boost::json::value* st = eos->get_object().if_contains("txn_state"); st && st->is_string())
      s.transaction_state = st->get_string();
  return s;
}

void metrics::set_identity(identity id) {
  std::lock_guard lock(mutex_);
  id_ = std::move(id);
}

void metrics::run_started() {
  std::lock_guard lock(mutex_);
  live_ = true;
  assigned_ = false;
  stopping_ = false;
  owned_ = 0;
  registry_requests_base_ += std::exchange(registry_requests_run_, 0);
  // A restarted run takes its partitions anew; positions of partitions it
  // does not get back must not linger.
  partitions_.clear();
  client_.reset();
}

void metrics::run_ended() {
  std::lock_guard lock(mutex_);
  live_ = false;
  assigned_ = false;
  end_registry_wait();
}

void metrics::assigned(std::size_t partitions_owned) {
  std::lock_guard lock(mutex_);
  assigned_ = true;
  owned_ = partitions_owned;
}

void metrics::revoked(std::size_t partitions_owned,
                      const std::vector<std::pair<std::string, std::int32_t>>& gone) {
  std::lock_guard lock(mutex_);
  owned_ = partitions_owned;
  for (const auto& tp : gone) partitions_.erase(tp);
}

void metrics::stopping() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
}

void metrics::registry_waiting(std::string reason) {
  std::lock_guard lock(mutex_);
  if (!registry_wait_since_) registry_wait_since_ = std::chrono::steady_clock::now();
  registry_wait_reason_ = std::move(reason);
}

void metrics::registry_answered() {
  std::lock_guard lock(mutex_);
  end_registry_wait();
}

// The wait under way, if any, ends: its time is counted. With mutex_ held.
void metrics::end_registry_wait() {
  if (!registry_wait_since_) return;
  registry_waited_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - *registry_wait_since_).count();
  registry_wait_since_.reset();
  registry_wait_reason_.clear();
}

void metrics::registry_requests(std::uint64_t sent) {
  std::lock_guard lock(mutex_);
  registry_requests_run_ = sent;
}

void metrics::committed(const record_counts& records, std::chrono::steady_clock::duration took) {
  const double seconds = std::chrono::duration<double>(took).count();
  std::lock_guard lock(mutex_);
  records_ += records;
  ++committed_txns_;
  std::size_t bucket = 0;
  while (bucket < std::size(commit_latency_buckets) && seconds > commit_latency_buckets[bucket]) ++bucket;
  ++latency_counts_[bucket];
  latency_sum_ += seconds;
  last_commit_ = std::chrono::system_clock::now();
}

void metrics::aborted(std::uint64_t records_rolled_back) {
  std::lock_guard lock(mutex_);
  ++aborted_txns_;
  rolled_back_ += records_rolled_back;
}

void metrics::commit_retried() {
  std::lock_guard lock(mutex_);
  ++commit_retries_;
}

void metrics::rewound() {
  std::lock_guard lock(mutex_);
  ++rewinds_;
}

void metrics::restarted() {
  std::lock_guard lock(mutex_);
  ++restarts_;
}

void metrics::invalid_record() {
  std::lock_guard lock(mutex_);
  ++invalid_;
}

void metrics::partition_position(const std::string& topic, std::int32_t partition, std::int64_t committed,
                                 std::optional<std::int64_t> end) {
  std::lock_guard lock(mutex_);
  partition_state& p = partitions_[{topic, partition}];
  p.committed = committed;
  if (end) p.end = end;
  p.read_to.reset();
}

void metrics::partition_read_to(const std::string& topic, std::int32_t partition, std::int64_t read_to) {
  std::lock_guard lock(mutex_);
  if (auto it = partitions_.find({topic, partition}); it != partitions_.end()) it->second.read_to = read_to;
}

void metrics::include_process_metrics(bool on) {
  std::lock_guard lock(mutex_);
  process_metrics_ = on;
}

void metrics::statistics(client_statistics s) {
  std::lock_guard lock(mutex_);
  client_ = std::move(s);
}

bool metrics::live() const {
  std::lock_guard lock(mutex_);
  return live_;
}

metrics::identity metrics::identity_of(const plan::plan& p) {
  identity id{p.identity.application_id, plan::digest(p), p.identity.source_topic, plan::sink_topics_text(p)};
  if (plan::is_routed(p))
    for (std::size_t i = 0; i < p.routes.size(); ++i) id.routes.push_back(plan::route_name(p.routes, i));
  return id;
}

metrics::readiness metrics::ready() const {
  std::lock_guard lock(mutex_);
  if (!live_) return {false, "not running"};
  if (stopping_) return {false, "stopping"};
  if (!assigned_) return {false, "waiting for the group to assign partitions"};
  if (registry_wait_since_) return {false, "waiting for the schema registry: " + registry_wait_reason_};
  std::string detail = std::to_string(owned_) + " partition(s) assigned";
  if (owned_ == 0) detail += " (more instances than partitions: standing by)";
  return {true, std::move(detail)};
}

record_counts metrics::committed_records() const {
  std::lock_guard lock(mutex_);
  return records_;
}

void metrics::exiting(int code) {
  std::lock_guard lock(mutex_);
  exit_code_ = code;
  exit_time_ = std::chrono::system_clock::now();
}

std::string metrics::prometheus_text() const { return text(true); }

std::optional<std::string> metrics::write_textfile(const std::string& path) const {
  return write_file_durably(path, text(false));
}

std::string metrics::text(bool with_process) const {
  // Read before the lock: /proc is the kernel's, and the pipeline's writes
  // should not wait for it.
  const std::optional<process_stats> ps = with_process ? read_process_stats() : std::nullopt;
  std::lock_guard lock(mutex_);
  exposition x;
  // The versions are build facts, in streamt_build_info alone; streamt_info
  // says what runs.
  x.family("streamt_info", "gauge", "Identity of the running plan; always 1.");
  x.sample("streamt_info",
           {{"application_id", id_.application_id},
            {"plan_digest", id_.plan_digest},
            {"source_topic", id_.source_topic},
            {"sink_topic", id_.sink_topic}},
           std::uint64_t{1});
  x.family("streamt_build_info", "gauge", "The engine's version and the librdkafka it runs on; always 1.");
  x.sample("streamt_build_info",
           {{"version", std::string(version)}, {"librdkafka_version", kafka::library_version()}},
           std::uint64_t{1});
  x.single("streamt_running", "gauge", "1 while the engine runs (/healthz).", std::uint64_t{live_ ? 1u : 0u});
  const bool is_ready = live_ && !stopping_ && assigned_ && !registry_wait_since_;
  x.single("streamt_ready", "gauge",
           "1 once partitions are assigned and until a stop begins, except while the run waits for the "
           "schema registry (/readyz).",
           std::uint64_t{is_ready ? 1u : 0u});
  x.single("streamt_assigned_partitions", "gauge", "Source partitions this instance owns.",
           std::uint64_t{owned_});

  x.single("streamt_records_consumed_total", "counter",
           "Input records whose offsets a committed transaction holds.", records_.consumed);
  x.single("streamt_records_produced_total", "counter", "Output records in committed transactions.",
           records_.emitted);
  x.single("streamt_records_filtered_total", "counter",
           "Input records the predicate dropped, in committed transactions.", records_.filtered);
  x.single("streamt_records_tombstones_total", "counter",
           "Input records with a null value (dropped or forwarded), in committed transactions.",
           records_.tombstones);
  x.single("streamt_records_tombstones_forwarded_total", "counter",
           "Input records with a null value written to the sink as one, in committed transactions.",
           records_.tombstones_forwarded);
  x.single("streamt_records_deleted_total", "counter",
           "Input records the predicate did not pass, written to the sink as a tombstone of their key "
           "(changelog upsert), in committed transactions.",
           records_.deleted);
  x.single("streamt_records_dead_lettered_total", "counter",
           "Invalid input records written to the dead-letter topic, in committed transactions.",
           records_.dead_lettered);
  if (!id_.routes.empty()) {
    x.family("streamt_route_records_produced_total", "counter",
             "Output records of each route of a routed plan (INSERT INTO), in committed transactions; a "
             "record several routes take counts once in streamt_records_produced_total and once here per "
             "route.");
    for (std::size_t i = 0; i < id_.routes.size(); ++i)
      x.sample("streamt_route_records_produced_total", {{"route", id_.routes[i]}},
               i < records_.route_outputs.size() ? records_.route_outputs[i] : 0);
    x.family("streamt_records_unrouted_total", "counter",
             "Input records of a routed plan that no route took, by what happened to them (dropped, or "
             "written to the unrouted topic), in committed transactions; they add up to "
             "streamt_records_filtered_total.");
    x.sample("streamt_records_unrouted_total", {{"outcome", "dropped"}}, records_.unrouted_dropped);
    x.sample("streamt_records_unrouted_total", {{"outcome", "written"}}, records_.unrouted_written);
  }
  x.single("streamt_records_invalid_total", "counter",
           "Records the engine stopped at: invalid input, or output the sink refused for good.", invalid_);
  x.single("streamt_records_rolled_back_total", "counter",
           "Input records processed in transactions that were aborted (processed again after a rewind).",
           rolled_back_);

  x.single("streamt_transactions_committed_total", "counter", "Transactions committed.", committed_txns_);
  x.single("streamt_transactions_aborted_total", "counter", "Transactions aborted.", aborted_txns_);
  x.single("streamt_commit_retries_total", "counter",
           "commit_transaction calls repeated after an unknown outcome.", commit_retries_);
  x.single("streamt_rewinds_total", "counter",
           "Times every owned partition was sought back to its committed offset after an abort.", rewinds_);
  double waited = registry_waited_seconds_;
  if (registry_wait_since_)
    waited += std::chrono::duration<double>(std::chrono::steady_clock::now() - *registry_wait_since_).count();
  x.single("streamt_registry_waiting", "gauge",
           "1 while the run waits for the schema registry to answer for a record's writer schema.",
           std::uint64_t{registry_wait_since_ ? 1u : 0u});
  x.single("streamt_registry_wait_seconds_total", "counter",
           "Time the run spent waiting for the schema registry to answer (an outage: nothing after the "
           "waiting record is produced meanwhile).",
           waited);
  x.single("streamt_registry_requests_total", "counter",
           "Requests sent to the schema registry (one per writer schema id, plus a wait's retries).",
           registry_requests_base_ + registry_requests_run_);
  x.single("streamt_restarts_total", "counter",
           "In-process restarts after a fatal producer error that a new producer gets past.", restarts_);

  x.family("streamt_commit_duration_seconds", "histogram",
           "Time commit_transaction took: flushing the transaction's records and committing.");
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < std::size(commit_latency_buckets); ++i) {
    cumulative += latency_counts_[i];
    std::string le;
    append_number(le, commit_latency_buckets[i]);
    x.sample("streamt_commit_duration_seconds_bucket", {{"le", le}}, cumulative);
  }
  cumulative += latency_counts_[std::size(commit_latency_buckets)];
  x.sample("streamt_commit_duration_seconds_bucket", {{"le", "+Inf"}}, cumulative);
  x.sample("streamt_commit_duration_seconds_sum", {}, latency_sum_);
  x.sample("streamt_commit_duration_seconds_count", {}, cumulative);
  x.single("streamt_last_commit_timestamp_seconds", "gauge",
           "Unix time of the last committed transaction (before the first: when the engine started); alert "
           "when it stops moving while there is lag.",
           std::chrono::duration<double>(last_commit_.value_or(created_).time_since_epoch()).count());

  if (!partitions_.empty()) {
    x.family("streamt_committed_offset", "gauge",
             "Next offset to consume, as committed for the group, per owned source partition.");
    for (const auto& [tp, p] : partitions_) {
      const std::string part = std::to_string(tp.second);
      x.sample("streamt_committed_offset", {{"topic", tp.first}, {"partition", part}}, p.committed);
    }
    x.family("streamt_end_offset", "gauge",
             "End offset (high watermark) of each owned source partition, as last seen by the consumer.");
    for (const auto& [tp, p] : partitions_) {
      if (!p.end) continue;
      const std::string part = std::to_string(tp.second);
      x.sample("streamt_end_offset", {{"topic", tp.first}, {"partition", part}}, *p.end);
    }
    x.family("streamt_consumer_lag_records", "gauge",
             "Offsets not yet committed per owned source partition: end offset minus committed offset, "
             "less the transaction markers the consumer has read past.");
    for (const auto& [tp, p] : partitions_) {
      if (!p.end || p.committed < 0) continue;
      const std::string part = std::to_string(tp.second);
      x.sample("streamt_consumer_lag_records", {{"topic", tp.first}, {"partition", part}},
               std::max<std::int64_t>(0, *p.end - std::max(p.committed, p.read_to.value_or(p.committed))));
    }
  }

  if (client_) {
    // One family per value, each with a sample per broker, labelled by its
    // address and node id.
    auto per_broker = [&](std::string_view name, std::string_view help, auto value) {
      x.family(name, "gauge", help);
      for (const auto& b : client_->brokers)
        x.sample(name, {{"broker", b.address}, {"node_id", std::to_string(b.node_id)}}, value(b));
    };
    per_broker("streamt_kafka_broker_up", "1 if the producer's connection to the broker is up.",
               [](const client_statistics::broker& b) { return std::uint64_t{b.up ? 1u : 0u}; });
    per_broker("streamt_kafka_broker_rtt_avg_seconds",
               "Producer request round-trip time to the broker, average over the last statistics interval.",
               [](const client_statistics::broker& b) { return b.rtt_avg_seconds; });
    per_broker("streamt_kafka_broker_rtt_p99_seconds",
               "Producer request round-trip time to the broker, 99th percentile over the last interval.",
               [](const client_statistics::broker& b) { return b.rtt_p99_seconds; });
    per_broker("streamt_kafka_broker_throttle_max_seconds",
               "Longest time the broker held back a producer response for a quota, over the last interval.",
               [](const client_statistics::broker& b) { return b.throttle_max_seconds; });
    x.single("streamt_kafka_producer_queue_messages", "gauge",
             "Records handed to the producer and not yet delivered.", client_->queued_messages);
    x.single("streamt_kafka_producer_sent_bytes_total", "counter",
             "Bytes the producer sent to the brokers (resets when the producer is recreated).",
             client_->tx_bytes);
    x.single("streamt_kafka_producer_received_bytes_total", "counter",
             "Bytes the producer received from the brokers (resets when the producer is recreated).",
             client_->rx_bytes);
  }
  // Every state, always (all 0 until the first statistics report): a series
  // that appears only while its state is current would leave a query over
  // time with gaps, and an alert on it with nothing to compare.
  const std::string_view current =
      client_ ? std::string_view(client_->transaction_state) : std::string_view();
  x.family(
      "streamt_kafka_transaction_state", "gauge",
      "The producer's transaction state as librdkafka names it: 1 for the current one, 0 for the others.");
  bool known = current.empty();
  for (const std::string_view state : transaction_states) {
    known = known || state == current;
    x.sample("streamt_kafka_transaction_state", {{"state", state}},
             std::uint64_t{state == current ? 1u : 0u});
  }
  if (!known) x.sample("streamt_kafka_transaction_state", {{"state", current}}, std::uint64_t{1});
  if (exit_code_) {
    x.single("streamt_exit_code", "gauge", "The exit code the process ended with (docs/contract.md).",
             static_cast<std::uint64_t>(*exit_code_));
    x.single("streamt_exit_timestamp_seconds", "gauge", "When the process ended, in Unix seconds.",
             std::chrono::duration<double>(exit_time_.time_since_epoch()).count());
  }
  if (process_metrics_ && with_process) {
    if (ps) {
      x.single("process_cpu_seconds_total", "counter", "User and system CPU time spent, in seconds.",
               ps->cpu_seconds);
      x.single("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
               ps->resident_bytes);
      x.single("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", ps->virtual_bytes);
      x.single("process_open_fds", "gauge", "Open file descriptors.", ps->open_fds);
      x.single("process_max_fds", "gauge", "The limit of open file descriptors.", ps->max_fds);
      x.single("process_start_time_seconds", "gauge", "Start time of the process, in Unix seconds.",
               ps->start_time_seconds);
    }
  }
  return x.take();
}

}  // namespace streamt::engine
