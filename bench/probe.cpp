// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// bench_probe: bench/compare's observer. It shares no code with the engine
// (librdkafka's C API only) and reads everything under read_committed, so
// what it counts is what a downstream exactly-once consumer would see.
//
//   bench_probe backlog --bootstrap-servers B --input I --output O --group G [--timeout-s S]
//     Prints {"event":"ready"} once it watches, then follows the group's
//     committed offsets on I (every 20 ms) until they reach I's end offsets
//     (taken at start), and the output O until its first record. Prints
//     {"t_ready":MS,"t_first_output":MS,"t_done":MS,"input_records":N,
//      "samples":[[MS,COMMITTED],...]} with wall-clock milliseconds;
//     samples hold the sum of committed offsets each time it changed.
//     It stops reading O after the first record so as not to compete with
//     the process it measures for the machine's two cores.
//
//   bench_probe latency --bootstrap-servers B --output O --primer P --expect N
//                       [--warmup-ms W] [--timeout-s S]
//     Prints {"event":"ready"}; reads O from the beginning; after the first P
//     records (the primer that shows the processor is up) prints
//     {"event":"primed"}; then, for each record, latency = receive time -
//     record timestamp, until N records in all. Records whose timestamp is
//     within W ms of the earliest load record are warm-up and not counted.
//     Prints {"records":N,"measured":M,"p50_ms":..,"p99_ms":..,"max_ms":..}.
//
//   bench_probe warmup --bootstrap-servers B --topic T
//     Commits offset 0 of T/0 for a throwaway group and runs one empty
//     transaction, so the broker's internal topics exist before any run.
//
//   bench_probe count --bootstrap-servers B --topic T [--timeout-s S]
//     Reads T from the beginning to the end of every partition and prints
//     {"records":N,"digest":"..."} (the multiset digest of kafka_bench.hpp).
//
//   bench_probe version
//     Prints the version of the librdkafka it links (the build's).
//
// Exit 1 on a Kafka error or a timeout (with what it has on stdout).

#include "bench/kafka_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <thread>

namespace {

using namespace streamt::bench;
constexpr const char* tool = "bench_probe";
using clock_type = std::chrono::steady_clock;

std::int32_t partition_count(rd_kafka_t* rk, const std::string& topic) {
  const auto deadline = clock_type::now() + std::chrono::seconds(30);
  for (;;) {
    rd_kafka_topic_t* t = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
    const rd_kafka_metadata_t* md = nullptr;
    const rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 0, t, &md, 5000);
    std::int32_t n = -1;
    if (!err && md->topic_cnt == 1 && !md->topics[0].err) n = md->topics[0].partition_cnt;
    if (md) rd_kafka_metadata_destroy(md);
    rd_kafka_topic_destroy(t);
    if (n > 0) return n;
    if (clock_type::now() > deadline) die(tool, "no metadata for topic " + topic);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // metadata of a new topic settles
  }
}

kafka_ptr reader(const options& opt, const std::string& group, settings more = {}) {
  settings s{{"bootstrap.servers", opt.get("bootstrap-servers")},
             {"group.id", group},
             {"enable.auto.commit", "false"},
             {"isolation.level", "read_committed"},
             {"fetch.wait.max.ms", "10"},
             // The output topic is created just before the processor starts:
             // a fetch from it can fail while its leadership settles, and
             // librdkafka's default backoff after a fetch error (500 ms) and
             // its reconnect pause (50 ms with librdkafka 2.10 and later, see
             // kafka/config.cpp) would be the probe's delay, not the
             // processor's, in "first output s".
             {"fetch.error.backoff.ms", "10"},
             {"reconnect.backoff.ms", "20"}};
  s.insert(s.end(), more.begin(), more.end());
  s.insert(s.end(), opt.extra.begin(), opt.extra.end());
  kafka_ptr rk = make_client(tool, RD_KAFKA_CONSUMER, make_conf(tool, s));
  rd_kafka_poll_set_consumer(rk.get());
  return rk;
}

partitions_ptr all_partitions(rd_kafka_t* rk, const std::string& topic, std::int64_t offset) {
  const std::int32_t n = partition_count(rk, topic);
  partitions_ptr list{rd_kafka_topic_partition_list_new(n)};
  for (std::int32_t p = 0; p < n; ++p)
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p)->offset = offset;
  return list;
}

void assign(rd_kafka_t* rk, const rd_kafka_topic_partition_list_t* list) {
  if (auto err = rd_kafka_assign(rk, list)) die(tool, std::string("assign: ") + rd_kafka_err2str(err));
}

void print_event(const char* name) {
  std::printf("{\"event\":\"%s\"}\n", name);
  std::fflush(stdout);
}

int backlog(const options& opt) {
  const std::string input = opt.get("input"), output = opt.get("output");
  const auto deadline = clock_type::now() + std::chrono::seconds(opt.num("timeout-s", 900));

  // Watches the processor's group without joining it: a consumer that never
  // subscribes only sends OffsetFetch requests to the group's coordinator.
  // read_uncommitted, because under read_committed librdkafka asks for
  // stable offsets only (KIP-447): while the processor's transaction holds
  // offsets, rd_kafka_committed retries inside until that transaction ends,
  // and this loop, which also watches the output, stood still for up to
  // 0.7 s. The offsets it reads are the committed ones either way.
  kafka_ptr group = reader(opt, opt.get("group"), {{"isolation.level", "read_uncommitted"}});
  partitions_ptr ends = all_partitions(group.get(), input, 0);
  std::int64_t input_records = 0;
  for (int i = 0; i < ends->cnt; ++i) {
    auto& tp = ends->elems[i];
    std::int64_t low = 0, high = 0;
    if (auto err =
            rd_kafka_query_watermark_offsets(group.get(), input.c_str(), tp.partition, &low, &high, 10000))
      die(tool, std::string("watermarks: ") + rd_kafka_err2str(err));
    tp.offset = high;
    input_records += high - low;
  }
  partitions_ptr committed{rd_kafka_topic_partition_list_copy(ends.get())};

  kafka_ptr out = reader(opt, "bench-probe-never-commits");
  assign(out.get(), all_partitions(out.get(), output, RD_KAFKA_OFFSET_BEGINNING).get());

  const double t_ready = now_ms();
  print_event("ready");
  double t_first = -1, t_done = -1;
  std::int64_t last_sum = -1;
  std::vector<std::pair<double, std::int64_t>> samples;
  auto next_sample = clock_type::now();
  while (t_done < 0 || t_first < 0) {
    if (clock_type::now() > deadline) {
      std::fprintf(stderr, "%s: timed out (committed %" PRId64 " of %" PRId64 ", first output %s)\n", tool,
                   last_sum, input_records, t_first < 0 ? "not seen" : "seen");
      return 1;
    }
    if (t_first < 0) {
      message_ptr m{rd_kafka_consumer_poll(out.get(), 10)};
      if (m && !m->err) {
        t_first = now_ms();
        rd_kafka_assign(out.get(), nullptr);
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // pacing the offset queries
    }
    if (t_done < 0 && clock_type::now() >= next_sample) {
      next_sample += std::chrono::milliseconds(20);
      for (int i = 0; i < committed->cnt; ++i) committed->elems[i].offset = RD_KAFKA_OFFSET_INVALID;
      const rd_kafka_resp_err_t err = rd_kafka_committed(group.get(), committed.get(), 5000);
      if (err) continue;  // coordinator loading or moving: ask again next time
      const double t = now_ms();
      std::int64_t sum = 0;
      bool at_end = true;
      for (int i = 0; i < committed->cnt; ++i) {
        const std::int64_t o = committed->elems[i].offset;
        sum += std::max<std::int64_t>(o, 0);
        if (o < ends->elems[i].offset) at_end = false;
      }
      if (sum != last_sum) samples.emplace_back(t, sum);
      last_sum = sum;
      if (at_end) t_done = t;
    }
  }
  std::printf("{\"t_ready\":%.3f,\"t_first_output\":%.3f,\"t_done\":%.3f,\"input_records\":%" PRId64
              ",\"samples\":[",
              t_ready, t_first, t_done, input_records);
  for (std::size_t i = 0; i < samples.size(); ++i)
    std::printf("%s[%.3f,%" PRId64 "]", i ? "," : "", samples[i].first, samples[i].second);
  std::printf("]}\n");
  return 0;
}

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return -1;
  // Nearest rank: the smallest value with at least q of the samples at or below it.
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

int latency(const options& opt) {
  const std::string output = opt.get("output");
  const auto primer = opt.num("primer");
  const auto expect = opt.num("expect");
  const auto warmup_ms = static_cast<double>(opt.num("warmup-ms", 0));
  const auto deadline = clock_type::now() + std::chrono::seconds(opt.num("timeout-s", 300));

  kafka_ptr out = reader(opt, "bench-probe-never-commits", {{"fetch.wait.max.ms", "5"}});
  assign(out.get(), all_partitions(out.get(), output, RD_KAFKA_OFFSET_BEGINNING).get());
  print_event("ready");
  std::int64_t seen = 0;
  std::vector<std::pair<double, double>> load;  // (timestamp, latency) of each record after the primer
  load.reserve(static_cast<std::size_t>(std::max<std::int64_t>(expect - primer, 0)));
  int rc = 0;
  if (primer == 0) print_event("primed");
  while (seen < expect) {
    if (clock_type::now() > deadline) {
      std::fprintf(stderr, "%s: timed out after %" PRId64 " of %" PRId64 " records\n", tool, seen, expect);
      rc = 1;
      break;
    }
    message_ptr m{rd_kafka_consumer_poll(out.get(), 50)};
    if (!m) continue;
    if (m->err) {
      std::fprintf(stderr, "%s: %s\n", tool, rd_kafka_message_errstr(m.get()));
      continue;
    }
    const double received = now_ms();
    if (seen >= primer) {
      const auto ts = static_cast<double>(rd_kafka_message_timestamp(m.get(), nullptr));
      load.emplace_back(ts, received - ts);
    }
    if (++seen == primer) print_event("primed");
  }
  double first_ts = HUGE_VAL;
  for (const auto& [ts, l] : load) first_ts = std::min(first_ts, ts);
  std::vector<double> measured;
  for (const auto& [ts, l] : load)
    if (ts >= first_ts + warmup_ms) measured.push_back(l);
  std::sort(measured.begin(), measured.end());
  std::printf("{\"records\":%" PRId64 ",\"measured\":%zu,\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f}\n",
              seen, measured.size(), percentile(measured, 0.50), percentile(measured, 0.99),
              measured.empty() ? -1.0 : measured.back());
  return rc;
}

int count(const options& opt) {
  const std::string topic = opt.get("topic");
  const auto deadline = clock_type::now() + std::chrono::seconds(opt.num("timeout-s", 600));
  kafka_ptr rk = reader(opt, "bench-probe-never-commits", {{"enable.partition.eof", "true"}});
  partitions_ptr list = all_partitions(rk.get(), topic, RD_KAFKA_OFFSET_BEGINNING);
  assign(rk.get(), list.get());
  // Under read_committed a partition's end is its last stable offset: an
  // open or aborted transaction's records are never counted.
  std::vector<bool> at_end(static_cast<std::size_t>(list->cnt), false);
  int remaining = list->cnt;
  std::uint64_t records = 0, digest = 0;
  while (remaining > 0) {
    if (clock_type::now() > deadline)
      die(tool, "count timed out after " + std::to_string(records) + " records");
    message_ptr m{rd_kafka_consumer_poll(rk.get(), 100)};
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      auto p = static_cast<std::size_t>(m->partition);
      if (p < at_end.size() && !at_end[p]) {
        at_end[p] = true;
        --remaining;
      }
      continue;
    }
    if (m->err) die(tool, std::string("count: ") + rd_kafka_message_errstr(m.get()));
    ++records;
    digest += record_hash({static_cast<const char*>(m->key), m->key ? m->key_len : 0}, m->key == nullptr,
                          {static_cast<const char*>(m->payload), m->payload ? m->len : 0});
  }
  std::printf("{\"records\":%" PRIu64 ",\"digest\":\"%016" PRIx64 "\"}\n", records, digest);
  return 0;
}

// Makes the broker create its internal topics (__consumer_offsets,
// __transaction_state) before anything is measured: otherwise the first
// processor that joins a group, or the first that starts a transaction, pays
// for their creation in its start-up figures.
int warmup(const options& opt) {
  const std::string topic = opt.get("topic");
  kafka_ptr group = reader(opt, "bench-warmup");
  partitions_ptr offsets{rd_kafka_topic_partition_list_new(1)};
  rd_kafka_topic_partition_list_add(offsets.get(), topic.c_str(), 0)->offset = 0;
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
  for (int attempt = 0; attempt < 60; ++attempt) {
    err = rd_kafka_commit(group.get(), offsets.get(), 0);
    if (!err) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the offsets topic is being created
  }
  if (err) die(tool, std::string("warm-up commit: ") + rd_kafka_err2str(err));

  settings s{{"bootstrap.servers", opt.get("bootstrap-servers")}, {"transactional.id", "bench-warmup"}};
  s.insert(s.end(), opt.extra.begin(), opt.extra.end());
  kafka_ptr producer = make_client(tool, RD_KAFKA_PRODUCER, make_conf(tool, s));
  auto check = [](rd_kafka_error_t* e, const char* what) {
    if (!e) return;
    const std::string text = rd_kafka_error_string(e);
    rd_kafka_error_destroy(e);
    die(tool, std::string(what) + ": " + text);
  };
  check(rd_kafka_init_transactions(producer.get(), 120000), "init_transactions");
  check(rd_kafka_begin_transaction(producer.get()), "begin_transaction");
  check(rd_kafka_commit_transaction(producer.get(), 60000), "commit_transaction");
  print_event("warm");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2)
    die(tool, "usage: bench_probe backlog|latency|count|warmup|version --bootstrap-servers B ...");
  const std::string mode = argv[1];
  // The librdkafka the bench tools link: the engine's own build's.
  if (mode == "version") {
    std::printf("%s\n", rd_kafka_version_str());
    return 0;
  }
  const options opt(tool, argc, argv, 2);
  if (mode == "backlog") return backlog(opt);
  if (mode == "latency") return latency(opt);
  if (mode == "count") return count(opt);
  if (mode == "warmup") return warmup(opt);
  die(tool, "unknown mode " + mode);
}
