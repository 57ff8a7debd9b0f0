// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// What `streamt run --lineage-header` costs the thread that produces: the
// time of one produce call with the headers the engine builds, on a plain
// librdkafka producer whose broker never answers (so the calls only enqueue,
// and nothing is serialised or sent: the broker thread's share, writing the
// header into the batch, is not counted here).
//
//   bench_lineage_header [N]     N records per variant, default 50000
//
// Variants, each over N records of about 60 bytes:
//   none         no header (the engine without the option)
//   one          one header, engine::lineage_stamp's value (the option)
//   three        NAME, NAME-partition, NAME-offset (the form not chosen)
//   input+one    the input's two headers copied, then the lineage header
// Prints CPU ns per record (CLOCK_THREAD_CPUTIME_ID), the least of nine
// interleaved rounds. Figures are reported,
// never asserted: see bench/README.md.

#include "engine/lineage.hpp"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>

namespace {

double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

rd_kafka_t* new_producer() {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  // A port nothing listens on: every record stays queued, never sent.
  for (const auto& [k, v] :
       {std::pair{"bootstrap.servers", "127.0.0.1:1"}, std::pair{"queue.buffering.max.messages", "2000000"},
        std::pair{"queue.buffering.max.kbytes", "2097151"}, std::pair{"log_level", "0"}})
    if (rd_kafka_conf_set(conf, k, v, err, sizeof err) != RD_KAFKA_CONF_OK) {
      std::fprintf(stderr, "%s: %s\n", k, err);
      std::exit(1);
    }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk) {
    std::fprintf(stderr, "rd_kafka_new: %s\n", err);
    std::exit(1);
  }
  return rk;
}

enum class variant { none, one, three, input_and_one };

double run(variant v, long n) {
  rd_kafka_t* rk = new_producer();
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, "sink", nullptr);
  streamt::engine::lineage_stamp stamp("streamt-lineage", "sha256:" + std::string(64, 'e'));
  rd_kafka_headers_t* input = rd_kafka_headers_new(2);
  rd_kafka_header_add(input, "trace-id", -1, "4bf92f3577b34da6a3ce929d0e0e4736", -1);
  rd_kafka_header_add(input, "source", -1, "checkout", -1);
  const std::string value = R"({"id":"o-000123","amount":734,"note":"fragile"})";
  const std::string key = "customer-0042";
  const double began = thread_seconds();
  for (long i = 0; i < n; ++i) {
    const std::int32_t partition = static_cast<std::int32_t>(i % 6);
    const std::int64_t offset = 1'000'000 + i;
    rd_kafka_headers_t* h = nullptr;
    switch (v) {
      case variant::none:
        break;
      case variant::one: {
        const streamt::kafka::header_view s = stamp.header(partition, offset);
        h = rd_kafka_headers_new(1);
        rd_kafka_header_add(h, s.name.data(), static_cast<ssize_t>(s.name.size()), s.value->data(),
                            static_cast<ssize_t>(s.value->size()));
        break;
      }
      case variant::three: {
        char p[16], o[24];
        const auto pn = std::to_chars(p, p + sizeof p, partition).ptr - p;
        const auto on = std::to_chars(o, o + sizeof o, offset).ptr - o;
        h = rd_kafka_headers_new(3);
        rd_kafka_header_add(h, "streamt-lineage", -1,
                            "sha256:eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", 71);
        rd_kafka_header_add(h, "streamt-lineage-partition", -1, p, pn);
        rd_kafka_header_add(h, "streamt-lineage-offset", -1, o, on);
        break;
      }
      case variant::input_and_one: {
        const streamt::kafka::header_view s = stamp.header(partition, offset);
        h = rd_kafka_headers_copy(input);
        rd_kafka_header_add(h, s.name.data(), static_cast<ssize_t>(s.name.size()), s.value->data(),
                            static_cast<ssize_t>(s.value->size()));
        break;
      }
    }
    rd_kafka_vu_t vu[6];
    int k = 0;
    vu[k].vtype = RD_KAFKA_VTYPE_RKT;
    vu[k++].u.rkt = rkt;
    vu[k].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
    vu[k++].u.i = RD_KAFKA_MSG_F_COPY;
    vu[k].vtype = RD_KAFKA_VTYPE_VALUE;
    vu[k].u.mem.ptr = const_cast<char*>(value.data());
    vu[k++].u.mem.size = value.size();
    vu[k].vtype = RD_KAFKA_VTYPE_KEY;
    vu[k].u.mem.ptr = const_cast<char*>(key.data());
    vu[k++].u.mem.size = key.size();
    if (h) {
      vu[k].vtype = RD_KAFKA_VTYPE_HEADERS;
      vu[k++].u.headers = h;
    }
    rd_kafka_error_t* e = rd_kafka_produceva(rk, vu, static_cast<std::size_t>(k));
    if (e) {
      std::fprintf(stderr, "produce: %s\n", rd_kafka_error_string(e));
      std::exit(1);
    }
  }
  const double took = thread_seconds() - began;
  rd_kafka_headers_destroy(input);
  rd_kafka_purge(rk, RD_KAFKA_PURGE_F_QUEUE);
  rd_kafka_poll(rk, 0);
  rd_kafka_topic_destroy(rkt);
  rd_kafka_destroy(rk);
  return took / static_cast<double>(n) * 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 50000;
  if (n <= 0) {
    std::fprintf(stderr, "usage: bench_lineage_header [N]\n");
    return 2;
  }
  // Nine rounds, the variants interleaved, the least of each kept: on a
  // shared machine a round can lose its core, and the first pass over fresh
  // memory pays its page faults.
  const std::pair<const char*, variant> variants[] = {{"none", variant::none},
                                                      {"one", variant::one},
                                                      {"three", variant::three},
                                                      {"input+one", variant::input_and_one}};
  double best[4] = {1e18, 1e18, 1e18, 1e18};
  for (int round = 0; round < 9; ++round)
    for (int i = 0; i < 4; ++i) best[i] = std::min(best[i], run(variants[i].second, n));
  for (int i = 0; i < 4; ++i)
    std::printf("%-10s %7.1f ns/record (CPU, producing thread; least of 9)\n", variants[i].first, best[i]);
  return 0;
}
