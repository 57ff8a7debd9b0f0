// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// Throughput of the synchronous stage pipeline (decode → predicate → project
// → encode) on one thread, over generated order records of about 100 bytes.
//
//   bench_stage_pipeline [N]     N records, default 5000000
//
// Prints records/s, ns/record, MB/s of input and heap allocations per record
// during the measured loop (counted by the replaced global operator new
// below). Figures are reported, never asserted: see bench/README.md.

#include "operators/stage_pipeline.hpp"
#include "bench/order_fields.hpp"
#include "plan/plan.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {
// Plain counters: the benchmark is single-threaded.
std::uint64_t allocations = 0;
}  // namespace

// GCC pairs the inlined malloc in operator new with free in operator delete
// and flags a "mismatch" that is exactly what a replacement allocator does.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void* operator new(std::size_t n) {
  ++allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return ::operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  ++allocations;
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return ::operator new(n, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

namespace plan = streamt::plan;
namespace ops = streamt::operators;
using streamt::bench::order_flags;
using streamt::bench::order_notes;

plan::plan orders_plan() {
  plan::plan p;
  p.identity = {"bench", "orders", "big-orders"};
  p.schema.source = "orders";
  p.schema.topic = "orders";
  p.schema.columns = {{"id", plan::column_type::string, false},
                      {"amount", plan::column_type::bigint, false},
                      {"note", plan::column_type::string, true},
                      {"flag", plan::column_type::boolean, true}};
  p.predicate = {{1, plan::compare_op::ge, std::int64_t{500}}};
  p.projection = {{0, "order_id"}, {1, "amount"}, {2, "note"}, {3, "flag"}};
  return p;
}

// splitmix64: deterministic, so every run measures the same records.
struct rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

// All records in one buffer: generating them must not be what is measured.
struct corpus {
  std::string bytes;
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  std::string_view at(std::size_t i) const { return {bytes.data() + spans[i].first, spans[i].second}; }
};

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

corpus generate(std::size_t n) {
  static constexpr auto& notes = order_notes;
  static constexpr auto& flags = order_flags;
  corpus c;
  c.bytes.reserve(n * 104);
  c.spans.reserve(n);
  rng r{42};
  char id[16];
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t start = c.bytes.size();
    std::snprintf(id, sizeof id, "o-%06zu", i % 1000000);
    std::uint64_t x = r.next();
    // Amounts in [0, 1000): about half pass `amount >= 500`.
    long long amount = static_cast<long long>(x % 1000);
    c.bytes += "{\"id\":\"";
    c.bytes += id;
    c.bytes += "\",\"amount\":";
    c.bytes += std::to_string(amount);
    c.bytes += ",\"note\":";
    c.bytes += notes[(x >> 16) % std::size(notes)];
    c.bytes += ",\"flag\":";
    c.bytes += flags[(x >> 32) % std::size(flags)];
    c.bytes += '}';
    c.spans.emplace_back(start, c.bytes.size() - start);
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = 5'000'000;
  if (argc > 1) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0' || v == 0) {
      std::fprintf(stderr, "usage: %s [N records, default 5000000]\n", argv[0]);
      return 2;
    }
    n = static_cast<std::size_t>(v);
  }

  const corpus records = generate(n);
  ops::stage_pipeline pipeline(orders_plan());

  // Warm-up: grows the pipeline's buffers to their steady-state capacity and
  // warms caches and branch predictors.
  std::size_t warm = n < 100'000 ? n : 100'000;
  for (std::size_t i = 0; i < warm; ++i) (void)pipeline.process(records.at(i));

  std::size_t emitted = 0, filtered = 0, invalid = 0, out_bytes = 0;
  std::uint64_t allocations_before = allocations;
  // CPU time of this thread as well as wall time: on a shared machine the
  // wall clock also counts time spent waiting for a core.
  double cpu0 = thread_cpu_seconds();
  auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < n; ++i) {
    ops::step s = pipeline.process(records.at(i));
    switch (s.outcome) {
      case ops::outcome::emitted:
        ++emitted;
        out_bytes += s.output.size();
        break;
      case ops::outcome::filtered:
      case ops::outcome::delete_key:
        ++filtered;
        break;
      case ops::outcome::invalid:
        if (invalid++ == 0) std::fprintf(stderr, "record %zu invalid: %s\n", i, s.error->message.c_str());
        break;
      case ops::outcome::tombstone:
      case ops::outcome::forward_tombstone:
        break;
    }
  }
  auto t1 = std::chrono::steady_clock::now();
  double cpu = thread_cpu_seconds() - cpu0;
  std::uint64_t allocated = allocations - allocations_before;

  double seconds = std::chrono::duration<double>(t1 - t0).count();
  double in_bytes = static_cast<double>(records.bytes.size());
  std::printf("records            %zu (avg %.1f bytes, %zu emitted, %zu filtered, %zu invalid)\n", n,
              in_bytes / static_cast<double>(n), emitted, filtered, invalid);
  std::printf("elapsed            %.3f s wall, %.3f s thread CPU\n", seconds, cpu);
  std::printf("records/s          %.0f (per CPU second: %.0f)\n", static_cast<double>(n) / seconds,
              static_cast<double>(n) / cpu);
  std::printf("ns/record          %.1f (CPU: %.1f)\n", seconds * 1e9 / static_cast<double>(n),
              cpu * 1e9 / static_cast<double>(n));
  std::printf("MB/s (input)       %.1f (per CPU second: %.1f)\n", in_bytes / 1e6 / seconds,
              in_bytes / 1e6 / cpu);
  std::printf("output bytes       %zu\n", out_bytes);
  std::printf("allocations/record %.4f (%llu in total)\n",
              static_cast<double>(allocated) / static_cast<double>(n),
              static_cast<unsigned long long>(allocated));
  return invalid == 0 ? 0 : 1;
}
