// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// What bench_loadgen, bench_copy and bench_probe share: librdkafka handles
// with RAII, configuration that fails loudly, `--key value` options, the
// record generators and the order-independent digest of a set of records.
//
// These tools use librdkafka's C API directly, not kafka/: they measure the
// engine from outside, and the ceiling copy must be what any plain client
// does, not our wrappers.
#pragma once

#include "bench/debezium_fields.hpp"
#include "bench/order_fields.hpp"

#include <librdkafka/rdkafka.h>

#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace streamt::bench {

[[noreturn]] inline void die(const char* tool, const std::string& what) {
  std::fprintf(stderr, "%s: error: %s\n", tool, what.c_str());
  std::exit(1);
}

struct kafka_deleter {
  void operator()(rd_kafka_t* p) const { rd_kafka_destroy(p); }
  void operator()(rd_kafka_conf_t* p) const { rd_kafka_conf_destroy(p); }
  void operator()(rd_kafka_topic_partition_list_t* p) const { rd_kafka_topic_partition_list_destroy(p); }
  void operator()(rd_kafka_message_t* p) const { rd_kafka_message_destroy(p); }
  void operator()(rd_kafka_queue_t* p) const { rd_kafka_queue_destroy(p); }
};
using kafka_ptr = std::unique_ptr<rd_kafka_t, kafka_deleter>;
using conf_ptr = std::unique_ptr<rd_kafka_conf_t, kafka_deleter>;
using partitions_ptr = std::unique_ptr<rd_kafka_topic_partition_list_t, kafka_deleter>;
using message_ptr = std::unique_ptr<rd_kafka_message_t, kafka_deleter>;
using queue_ptr = std::unique_ptr<rd_kafka_queue_t, kafka_deleter>;

using settings = std::vector<std::pair<std::string, std::string>>;

// Set by SIGTERM or SIGINT once stop_on_signals() ran. A plain flag is
// enough for a benchmark tool: its loop wakes at least every 100 ms to look.
inline volatile std::sig_atomic_t stop_requested = 0;
inline void stop_on_signals() {
  std::signal(SIGTERM, [](int) { stop_requested = 1; });
  std::signal(SIGINT, [](int) { stop_requested = 1; });
}

// The consumer default the engine sets (kafka/consumer.cpp says why), so
// that the copies compete on equal terms: with librdkafka's 1000 ms a
// consumer whose prefetch queue filled stands idle for most of a second.
inline void add_consumer_defaults(settings& s) {
  if (rd_kafka_version() >= 0x020200ff) s.emplace_back("fetch.queue.backoff.ms", "50");
}

inline conf_ptr make_conf(const char* tool, const settings& s) {
  conf_ptr conf{rd_kafka_conf_new()};
  char err[512];
  for (const auto& [k, v] : s) {
    if (rd_kafka_conf_set(conf.get(), k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
      die(tool, k + "=" + v + ": " + err);
  }
  return conf;
}

inline kafka_ptr make_client(const char* tool, rd_kafka_type_t type, conf_ptr conf) {
  char err[512];
  // rd_kafka_new owns the configuration only when it succeeds.
  rd_kafka_t* rk = rd_kafka_new(type, conf.get(), err, sizeof err);
  if (!rk) die(tool, std::string("rd_kafka_new: ") + err);
  (void)conf.release();
  return kafka_ptr{rk};
}

// Wall-clock milliseconds: record timestamps (CreateTime) are wall-clock
// milliseconds too, and the harness compares these with its own time.time().
inline double now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// `--key value` pairs; `-X key=value` collects librdkafka settings.
struct options {
  const char* tool;
  std::map<std::string, std::string> values;
  settings extra;

  options(const char* t, int argc, char** argv, int first) : tool(t) {
    for (int i = first; i < argc; i += 2) {
      std::string k = argv[i];
      if (i + 1 >= argc) die(tool, "option " + k + " needs a value");
      std::string v = argv[i + 1];
      if (k == "-X") {
        auto eq = v.find('=');
        if (eq == std::string::npos) die(tool, "-X needs key=value, got " + v);
        extra.emplace_back(v.substr(0, eq), v.substr(eq + 1));
      } else if (k.rfind("--", 0) == 0) {
        values[k.substr(2)] = v;
      } else {
        die(tool, "unexpected argument " + k);
      }
    }
  }
  std::string get(const std::string& k) const {
    auto it = values.find(k);
    if (it == values.end()) die(tool, "missing --" + k);
    return it->second;
  }
  std::string get(const std::string& k, const std::string& fallback) const {
    auto it = values.find(k);
    return it == values.end() ? fallback : it->second;
  }
  std::int64_t num(const std::string& k, std::int64_t fallback) const {
    auto it = values.find(k);
    if (it == values.end()) return fallback;
    char* end = nullptr;
    const long long v = std::strtoll(it->second.c_str(), &end, 10);
    if (it->second.empty() || *end != '\0') die(tool, "--" + k + " needs an integer, got " + it->second);
    return v;
  }
  std::int64_t num(const std::string& k) const {
    if (!values.count(k)) die(tool, "missing --" + k);
    return num(k, 0);
  }
};

inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A multiset digest: the sum of a hash of each (key, value). Equal sets of
// records give equal digests in any order and any partitioning, so the
// engine's and Kafka Streams' outputs can be compared without sorting
// millions of records, and a duplicate or a lost record changes it.
inline std::uint64_t record_hash(std::string_view key, bool null_key, std::string_view value) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  auto feed = [&h](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  };
  feed(key);
  h = (h ^ (null_key ? 0x1ffU : 0x100U)) * 0x100000001b3ULL;
  feed(value);
  return mix64(h);
}

// The benchmark's input: order i has key and id "o-%07d" (i), an amount
// uniform in [0, 1000) drawn from i alone (so any range of ids can be
// counted without producing it), and one of a few notes (plain, escaped,
// raw UTF-8, null) and flags, about 100 bytes in all.
struct order_generator {
  static constexpr auto& notes = order_notes;
  static constexpr auto& flags = order_flags;

  static std::uint64_t draw(std::uint64_t i) {
    return mix64(i * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL);
  }
  static std::int64_t amount(std::uint64_t i) { return static_cast<std::int64_t>(draw(i) % 1000); }
  // Which of `notes` and of `flags` order i has.
  static std::size_t note(std::uint64_t i) { return (draw(i) >> 16) % std::size(notes); }
  static std::size_t flag(std::uint64_t i) { return (draw(i) >> 32) % std::size(flags); }

  // Writes order i's key (also its id) into `key`.
  static void make_key(std::uint64_t i, std::string& key) {
    char id[24];
    std::snprintf(id, sizeof id, "o-%07llu", static_cast<unsigned long long>(i));
    key = id;
  }

  // Writes order i's key into `key` and its value into `value`.
  static void make(std::uint64_t i, std::string& key, std::string& value) {
    make_key(i, key);
    value.clear();
    value += "{\"id\":\"";
    value += key;
    value += "\",\"amount\":";
    value += std::to_string(amount(i));
    value += ",\"note\":";
    value += notes[note(i)];
    value += ",\"flag\":";
    value += flags[flag(i)];
    value += '}';
  }
};

// The nested input (bench/compare --nested): event i is a Debezium change
// event of payment 1000000 + i (debezium_fields.hpp) with the key Debezium
// gives it, {"id":...}. Both draws come from i alone, like the orders', so
// any range of ids can be counted without producing it.
struct change_event_generator {
  static std::uint64_t draw(std::uint64_t i) { return order_generator::draw(i); }
  // The `before` image's draw: another stream, so it does not repeat `after`.
  static std::uint64_t draw_before(std::uint64_t i) { return mix64(~i * 0xd1b54a32d192ed03ULL); }

  // Whether event i passes `op = 'c' AND after.amount >= cents / 100`.
  static bool passes(std::uint64_t i, std::int64_t cents) {
    const std::uint64_t x = draw(i);
    return debezium_op(x) == 'c' && static_cast<std::int64_t>(debezium_cents(x)) >= cents;
  }

  static void make(std::uint64_t i, std::string& key, std::string& value) {
    const std::uint64_t id = 1000000 + i;
    key = "{\"id\":" + std::to_string(id) + "}";
    value.clear();
    put_change_event(value, i, id, draw(i), draw_before(i));
  }

  // What the engine writes for event i under bench/compare's query (SELECT
  // after.id AS id, after.amount AS amount, after.currency AS currency), so
  // the loader can give the digest of the expected output: a DECIMAL is
  // written as a JSON number with its scale's digits, and a delete's null
  // `after` makes every column null.
  static void output(std::uint64_t i, std::string& value) {
    const std::uint64_t x = draw(i);
    if (debezium_op(x) == 'd') {
      value = R"({"id":null,"amount":null,"currency":null})";
      return;
    }
    char buf[96];
    const unsigned cents = debezium_cents(x);
    std::snprintf(buf, sizeof buf, R"({"id":%llu,"amount":%u.%02u,"currency":"%s"})",
                  static_cast<unsigned long long>(1000000 + i), cents / 100, cents % 100,
                  debezium_currency(x));
    value = buf;
  }
};

}  // namespace streamt::bench
