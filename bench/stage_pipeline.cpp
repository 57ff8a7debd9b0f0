// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// Throughput of the synchronous stage pipeline (decode → predicate → project
// → encode) on one thread, over generated order records of about 100 bytes
// (a flat version 1 schema), or with --nested over Debezium change events of
// about 400 bytes (plan version 2: nested ROWs, DECIMAL, DOUBLE, TIMESTAMP,
// JSON; issue 36).
//
//   bench_stage_pipeline [--nested] [N]     N records, default 5000000
//
// Prints records/s, ns/record, MB/s of input and heap allocations per record
// during the measured loop (counted by the replaced global operator new
// below), then the same with an Avro sink, for a json-registry source (the
// same records framed) and for the decode stage alone. Then (flat records
// only) routed plans (issue 39): the same records through one route and
// through three (each with its own predicate and projection, one keyed by
// PARTITION BY), timed in turns, with the median and range of the CPU per
// record of each and of their ratio (the target: three routes at most 1.3
// times one).
// Figures are reported, never asserted: see bench/README.md.

#include "operators/stage_pipeline.hpp"
#include "bench/debezium_fields.hpp"
#include "bench/order_fields.hpp"
#include "operators/avro_decode.hpp"
#include "operators/avro_encode.hpp"
#include "operators/decode.hpp"
#include "plan/avro_schema.hpp"
#include "plan/avro_sink.hpp"
#include "plan/plan.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <new>
#include <stdexcept>
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

// The payments table as Debezium's PostgreSQL connector writes its change
// events. `before` and `after` are the row; `source` declares the two members
// a query might read and ignores the others (which are still parsed and
// checked, so their bytes cost what a real event's do).
plan::plan payments_plan() {
  using plan::column;
  using plan::column_type;
  auto change = [](const char* name) {
    column c{name, column_type::row, true};
    c.fields = {{"id", column_type::bigint, false},       {"amount", column_type::decimal, false, 10, 2},
                {"currency", column_type::string, false}, {"tenant", column_type::string, false},
                {"score", column_type::double_, true},    {"paid_at", column_type::timestamp, true},
                {"tags", column_type::json, true}};
    return c;
  };
  column source{"source", column_type::row, false};
  source.fields = {{"db", column_type::string, false}, {"table", column_type::string, false}};
  source.unknown_fields = plan::unknown_fields::ignore;

  plan::plan p;
  p.identity = {"bench", "shop.public.payments", "big-payments"};
  p.schema.source = "payments";
  p.schema.topic = "shop.public.payments";
  p.schema.columns = {change("before"),
                      change("after"),
                      source,
                      {"op", column_type::string, false},
                      {"ts_ms", column_type::timestamp, false}};
  const auto nodes = plan::flatten(p.schema);
  auto node = [&](std::vector<std::string> path) {
    if (auto i = plan::find_path(nodes, path)) return *i;
    throw std::logic_error("bench: no column " + plan::path_text(path));
  };
  // WHERE op = 'c' AND after.amount >= 50.00 (5000 unscaled at scale 2).
  p.predicate = {{node({"op"}), plan::compare_op::eq, std::string("c")},
                 {node({"after", "amount"}), plan::compare_op::ge, plan::decimal_value{5000}}};
  p.projection = {{node({"after", "id"}), "id"},
                  {node({"after", "amount"}), "amount"},
                  {node({"after", "currency"}), "currency"}};
  p.version = plan::required_version(p);
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

// Debezium change events of about 400 bytes (bench/debezium_fields.hpp, the
// same as bench/compare --nested loads): 70% creates, 20% updates, 10% deletes.
corpus generate_nested(std::size_t n) {
  corpus c;
  c.bytes.reserve(n * 420);
  c.spans.reserve(n);
  rng r{42};
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t start = c.bytes.size();
    const std::uint64_t x = r.next();
    const std::uint64_t y = r.next();
    streamt::bench::put_change_event(c.bytes, i, 1000000 + i % 1000000, x, y);
    c.spans.emplace_back(start, c.bytes.size() - start);
  }
  return c;
}

// The orders' Avro schema: what a registry would hold for them.
constexpr const char* orders_avro_schema =
    R"({"type": "record", "name": "Order", "namespace": "shop", "fields": [
  {"name": "id", "type": "string"},
  {"name": "amount", "type": "long"},
  {"name": "note", "type": ["null", "string"]},
  {"name": "flag", "type": ["null", "boolean"]}]})";

// Each JSON order of `json` as the Avro body of orders_avro_schema.
corpus as_avro(const corpus& json) {
  corpus c;
  c.bytes.reserve(json.bytes.size());
  c.spans.reserve(json.spans.size());
  for (std::size_t i = 0; i < json.spans.size(); ++i) {
    const boost::json::object o = boost::json::parse(json.at(i)).as_object();
    const std::size_t start = c.bytes.size();
    ops::append_avro_bytes(c.bytes, o.at("id").as_string());
    ops::append_avro_long(c.bytes, o.at("amount").as_int64());
    if (o.at("note").is_null()) {
      ops::append_avro_long(c.bytes, 0);
    } else {
      ops::append_avro_long(c.bytes, 1);
      ops::append_avro_bytes(c.bytes, o.at("note").as_string());
    }
    if (o.at("flag").is_null()) {
      ops::append_avro_long(c.bytes, 0);
    } else {
      ops::append_avro_long(c.bytes, 1);
      c.bytes += static_cast<char>(o.at("flag").as_bool() ? 1 : 0);
    }
    c.spans.emplace_back(start, c.bytes.size() - start);
  }
  return c;
}

struct counts {
  std::size_t emitted = 0, filtered = 0, invalid = 0, out_bytes = 0;
};

// The orders plan as INSERT INTO routes: its own SELECT as the first, and,
// with `three`, two more that read other columns and overlap it (noted
// orders, keyed by id; flagged orders with their amount).
plan::plan routed_orders(bool three) {
  plan::plan p = orders_plan();
  p.routes.push_back({"big-orders", p.predicate, p.projection, std::nullopt});
  if (three) {
    p.routes.push_back(
        {"noted-orders", {{2, plan::compare_op::is_not_null, {}}}, {{0, "id"}, {2, "note"}}, 0});
    p.routes.push_back({"flagged-orders", {{3, plan::compare_op::eq, true}}, {{0, "id"}, {1, "amount"}}});
  }
  p.identity.sink_topic.clear();
  p.predicate.clear();
  p.projection.clear();
  p.version = 2;
  return p;
}

// A split, the usual use of routes: every record to one route of three by
// its amount (uniform in 0..999), against one route that writes every
// record. Both write one output a record of the same projection, so the
// ratio is what routing itself costs: two more predicates a record and the
// bookkeeping of several routes.
plan::plan split_orders(bool three) {
  plan::plan p = orders_plan();
  const std::vector<plan::projection_item> items{{0, "id"}, {1, "amount"}};
  if (!three) {
    p.routes.push_back({"orders", {}, items, std::nullopt});
  } else {
    p.routes.push_back({"small-orders", {{1, plan::compare_op::lt, std::int64_t{300}}}, items, std::nullopt});
    p.routes.push_back(
        {"medium-orders",
         {{1, plan::compare_op::ge, std::int64_t{300}}, {1, plan::compare_op::lt, std::int64_t{700}}},
         items,
         std::nullopt});
    p.routes.push_back({"big-orders", {{1, plan::compare_op::ge, std::int64_t{700}}}, items, std::nullopt});
  }
  p.identity.sink_topic.clear();
  p.predicate.clear();
  p.projection.clear();
  p.version = 2;
  return p;
}

double median3(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct timing {
  double wall = 0, cpu = 0;
  std::uint64_t allocations = 0;
};

// Times `body(i)` for every record; allocations are counted inside the
// timed loop only.
template <class Body>
timing timed(std::size_t n, Body body) {
  timing t;
  const std::uint64_t allocations_before = allocations;
  // CPU time of this thread as well as wall time: on a shared machine the
  // wall clock also counts time spent waiting for a core.
  const double cpu0 = thread_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < n; ++i) body(i);
  const auto t1 = std::chrono::steady_clock::now();
  t.cpu = thread_cpu_seconds() - cpu0;
  t.allocations = allocations - allocations_before;
  t.wall = std::chrono::duration<double>(t1 - t0).count();
  return t;
}

void report(const char* what, const timing& t, std::size_t n, double in_bytes) {
  const double records = static_cast<double>(n);
  std::printf("%s\n", what);
  std::printf("  elapsed            %.3f s wall, %.3f s thread CPU\n", t.wall, t.cpu);
  std::printf("  records/s          %.0f (per CPU second: %.0f)\n", records / t.wall, records / t.cpu);
  std::printf("  ns/record          %.1f (CPU: %.1f)\n", t.wall * 1e9 / records, t.cpu * 1e9 / records);
  std::printf("  ns/input byte      %.3f (CPU: %.3f)\n", t.wall * 1e9 / in_bytes, t.cpu * 1e9 / in_bytes);
  std::printf("  MB/s (input)       %.1f (per CPU second: %.1f)\n", in_bytes / 1e6 / t.wall,
              in_bytes / 1e6 / t.cpu);
  std::printf("  allocations/record %.4f (%llu in total)\n", static_cast<double>(t.allocations) / records,
              static_cast<unsigned long long>(t.allocations));
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = 5'000'000;
  bool nested = false;
  for (int a = 1; a < argc; ++a) {
    if (std::string_view(argv[a]) == "--nested") {
      nested = true;
      continue;
    }
    char* end = nullptr;
    unsigned long long v = std::strtoull(argv[a], &end, 10);
    if (end == argv[a] || *end != '\0' || v == 0) {
      std::fprintf(stderr, "usage: %s [--nested] [N records, default 5000000]\n", argv[0]);
      return 2;
    }
    n = static_cast<std::size_t>(v);
  }

  const corpus records = nested ? generate_nested(n) : generate(n);
  const plan::plan the_plan = nested ? payments_plan() : orders_plan();
  ops::stage_pipeline pipeline(the_plan);

  // Warm-up: grows the pipeline's buffers to their steady-state capacity and
  // warms caches and branch predictors.
  std::size_t warm = n < 100'000 ? n : 100'000;
  for (std::size_t i = 0; i < warm; ++i) (void)pipeline.process(records.at(i));

  counts c;
  const timing whole = timed(n, [&](std::size_t i) {
    ops::step s = pipeline.process(records.at(i));
    switch (s.outcome) {
      case ops::outcome::emitted:
        ++c.emitted;
        c.out_bytes += s.output.size();
        break;
      case ops::outcome::filtered:
      case ops::outcome::delete_key:
        ++c.filtered;
        break;
      case ops::outcome::needs_schema:  // not from these JSON plans
      case ops::outcome::invalid:
        if (c.invalid++ == 0) std::fprintf(stderr, "record %zu invalid: %s\n", i, s.error->message.c_str());
        break;
      case ops::outcome::tombstone:
      case ops::outcome::forward_tombstone:
        break;
    }
  });

  // The same pipeline writing an Avro sink (issue 37): the same stages,
  // each output encoded as the registry frame and the Avro body of the
  // plan's derived sink schema instead of JSON.
  plan::plan avro_sink_plan = the_plan;
  avro_sink_plan.sink.format = plan::sink_format::avro;
  auto pinned = plan::avro::pin_sink_schema(avro_sink_plan);
  if (!pinned) throw std::logic_error("bench: the Avro sink schema: " + pinned.error().message);
  avro_sink_plan.sink.avro = std::move(*pinned);
  ops::stage_pipeline avro_sink_pipeline(avro_sink_plan);
  avro_sink_pipeline.sink_schema_id(1);
  for (std::size_t i = 0; i < warm; ++i) (void)avro_sink_pipeline.process(records.at(i));
  std::size_t avro_sink_bytes = 0;
  const timing avro_sink = timed(n, [&](std::size_t i) {
    const ops::step s = avro_sink_pipeline.process(records.at(i));
    if (s.outcome == ops::outcome::emitted) avro_sink_bytes += s.output.size();
  });

  // The same records framed as Confluent's JsonSchemaSerializer writes them
  // (a zero byte, a 4-byte schema id), through a json-registry plan: what
  // checking and stripping the frame adds to the whole pipeline.
  corpus framed;
  framed.bytes.reserve(records.bytes.size() + 5 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t start = framed.bytes.size();
    framed.bytes.append(std::string_view("\0\0\0\0\1", 5));
    framed.bytes.append(records.at(i));
    framed.spans.emplace_back(start, framed.bytes.size() - start);
  }
  plan::plan framed_plan = the_plan;
  framed_plan.schema.value_format = plan::value_format::json_registry;
  ops::stage_pipeline framed_pipeline(framed_plan);
  for (std::size_t i = 0; i < warm; ++i) (void)framed_pipeline.process(framed.at(i));
  std::size_t framed_refused = 0;
  const timing json_registry = timed(n, [&](std::size_t i) {
    framed_refused += framed_pipeline.process(framed.at(i)).outcome == ops::outcome::invalid ? 1 : 0;
  });

  // The decode stage alone, with its own definition, state and row, warmed
  // up the same way: what the issue's per-byte decode target compares.
  const ops::decode_definition decode(the_plan.schema);
  ops::decode_state state;
  ops::row row;
  streamt::diagnostic error;
  std::size_t refused = 0;
  for (std::size_t i = 0; i < warm; ++i) (void)ops::decode(decode, state, records.at(i), row, error);
  const timing decode_only = timed(
      n, [&](std::size_t i) { refused += ops::decode(decode, state, records.at(i), row, error) ? 0 : 1; });

  // The same orders as Avro bodies (issue 37): the Avro decoder of the
  // orders' Avro schema, read as itself, against the JSON decode above.
  timing avro_only;
  double avro_bytes = 0;
  if (!nested) {
    const corpus bodies = as_avro(records);
    avro_bytes = static_cast<double>(bodies.bytes.size());
    const auto schema = plan::avro::parse_schema(orders_avro_schema);
    if (!schema) throw std::logic_error("bench: the orders' Avro schema: " + schema.error().message);
    plan::schema columns = the_plan.schema;
    columns.columns = plan::avro::to_columns(*schema)->columns;
    auto decoder = ops::avro_decoder::build(columns, *schema, *schema, ops::avro_needs(the_plan));
    if (!decoder) throw std::logic_error("bench: the orders' Avro decoder: " + decoder.error().message);
    ops::row avro_row(plan::flatten(columns).size());
    for (std::size_t i = 0; i < warm; ++i) (void)decoder->decode(bodies.at(i), avro_row, error);
    avro_only =
        timed(n, [&](std::size_t i) { refused += decoder->decode(bodies.at(i), avro_row, error) ? 0 : 1; });
  }

  const double in_bytes = static_cast<double>(records.bytes.size());
  std::printf("%s records       %zu (avg %.1f bytes, %zu emitted, %zu filtered, %zu invalid)\n",
              nested ? "nested" : "flat", n, in_bytes / static_cast<double>(n), c.emitted, c.filtered,
              c.invalid);
  std::printf("output bytes       %zu\n", c.out_bytes);
  report("stage pipeline (decode, predicate, project, encode)", whole, n, in_bytes);
  report("decode alone", decode_only, n, in_bytes);
  report("stage pipeline of a json-registry source (the frame checked and stripped, then as above)",
         json_registry, n, static_cast<double>(framed.bytes.size()));
  std::printf("json-registry / JSON, CPU per record: %.3f\n", json_registry.cpu / whole.cpu);
  std::printf("Avro sink output bytes %zu\n", avro_sink_bytes);
  report("stage pipeline with an Avro sink (decode, predicate, project, Avro encode and frame)", avro_sink, n,
         in_bytes);
  if (!nested) {
    std::printf("the same orders as Avro: %.1f bytes on average\n", avro_bytes / static_cast<double>(n));
    report("Avro decode alone", avro_only, n, avro_bytes);
    std::printf("Avro decode / JSON decode, CPU per record: %.3f\n", avro_only.cpu / decode_only.cpu);
  }
  std::size_t routed_invalid = 0;
  if (!nested) {
    // In turns, so that a neighbour's load on a shared machine falls on both.
    for (const bool split : {false, true}) {
      ops::stage_pipeline one(split ? split_orders(false) : routed_orders(false)),
          three(split ? split_orders(true) : routed_orders(true));
      std::size_t outputs_one = 0, outputs_three = 0;
      auto run = [&](ops::stage_pipeline& pipe, std::size_t& outputs) {
        outputs = 0;
        return timed(n, [&](std::size_t i) {
          const ops::step s = pipe.process(records.at(i));
          outputs += s.outputs.size();
          routed_invalid += s.outcome == ops::outcome::invalid ? 1 : 0;
        });
      };
      for (std::size_t i = 0; i < warm; ++i)
        (void)one.process(records.at(i)), (void)three.process(records.at(i));
      constexpr int turns = 5;
      std::vector<double> cpu_one, cpu_three, ratio;
      std::uint64_t routed_allocations = 0;
      for (int t = 0; t < turns; ++t) {
        const timing a = run(one, outputs_one);
        const timing b = run(three, outputs_three);
        routed_allocations += a.allocations + b.allocations;
        cpu_one.push_back(a.cpu * 1e9 / static_cast<double>(n));
        cpu_three.push_back(b.cpu * 1e9 / static_cast<double>(n));
        ratio.push_back(b.cpu / a.cpu);
      }
      auto line = [](const char* what, const std::vector<double>& v, const char* unit) {
        std::printf("  %-28s median %.3f%s (range %.3f to %.3f over %zu turns)\n", what, median3(v), unit,
                    *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()), v.size());
      };
      std::printf("routed plans, %s, the same records in turns (%zu outputs of 1 route, %zu of 3 routes)\n",
                  split ? "a split by amount" : "overlapping routes", outputs_one, outputs_three);
      line("1 route, CPU ns/record", cpu_one, "");
      line("3 routes, CPU ns/record", cpu_three, "");
      line("3 routes / 1 route, CPU", ratio, "");
      std::printf("  allocations in the timed loops: %llu\n",
                  static_cast<unsigned long long>(routed_allocations));
    }
  }
  if (routed_invalid != 0) std::fprintf(stderr, "%zu records invalid in a routed plan\n", routed_invalid);
  if (refused != 0) std::fprintf(stderr, "%zu records refused by a decoder\n", refused);
  if (framed_refused != 0) std::fprintf(stderr, "%zu framed records refused\n", framed_refused);
  return c.invalid == 0 && refused == 0 && framed_refused == 0 && routed_invalid == 0 ? 0 : 1;
}
