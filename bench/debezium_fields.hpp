// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The Debezium change events of the benchmarks' nested mode (issue 36),
// shared by bench_stage_pipeline --nested (in memory) and bench/compare
// --nested's loader (on a topic), so both measure the same records. Each
// event is made from two random draws: the stage benchmark takes them from
// its sequential generator, the loader from the record's index alone (so any
// range of indices can be counted without producing it). Header-only and
// free of librdkafka: the stage benchmark links neither.

#include <cstdint>
#include <cstdio>
#include <string>

namespace streamt::bench {

// The change kind drawn by `x`: 70% creates ('c', `before` null), 20%
// updates ('u', both row images), 10% deletes ('d', `after` null).
inline char debezium_op(std::uint64_t x) {
  const unsigned kind = static_cast<unsigned>(x % 10);
  return kind < 7 ? 'c' : kind < 9 ? 'u' : 'd';
}

// The amount of the row image drawn by `x`, in cents: uniform in
// [0.00, 100.00). The loader counts the records a filter passes with it.
inline unsigned debezium_cents(std::uint64_t x) { return static_cast<unsigned>(x % 10000); }

// The currency of the row image drawn by `x`.
inline const char* debezium_currency(std::uint64_t x) {
  static constexpr const char* currencies[] = {"EUR", "USD", "GBP", "CHF"};
  return currencies[(x >> 15) % 4];
}

// One row image of the payments table, as `"before":` or `"after":` holds it.
// Amounts are half written as JSON numbers and half as strings (Debezium's
// decimal.handling.mode=string); paid_at is epoch milliseconds, a quarter of
// the time an RFC 3339 string or null.
inline void put_payment(std::string& out, std::uint64_t x, std::uint64_t id) {
  static constexpr const char* tags[] = {R"(["card","web"])", R"(["sepa"])", R"({"risk":"low","retries":0})",
                                         "null"};
  char buf[160];
  const unsigned cents = debezium_cents(x);
  const char* quote = (x >> 14) & 1 ? "\"" : "";
  std::snprintf(buf, sizeof buf, R"({"id":%llu,"amount":%s%u.%02u%s,"currency":"%s","tenant":"tenant-%04u",)",
                static_cast<unsigned long long>(id), quote, cents / 100, cents % 100, quote,
                debezium_currency(x), static_cast<unsigned>((x >> 17) % 10000));
  out += buf;
  std::snprintf(buf, sizeof buf, R"("score":0.%03u,)", static_cast<unsigned>((x >> 31) % 1000));
  out += buf;
  switch ((x >> 41) % 8) {
    case 0:
      out += R"("paid_at":"2026-12-05T10:00:00.250Z",)";
      break;
    case 1:
      out += R"("paid_at":null,)";
      break;
    default:
      std::snprintf(buf, sizeof buf, R"("paid_at":%llu,)",
                    1764928800000ULL + static_cast<unsigned long long>((x >> 20) % 86400000));
      out += buf;
  }
  out += R"("tags":)";
  out += tags[(x >> 44) % 4];
  out += '}';
}

// Appends change event `i` of payment `id`, about 400 bytes: `x` draws the
// kind and the `after` image, `y` the `before` image of updates and deletes.
inline void put_change_event(std::string& out, std::uint64_t i, std::uint64_t id, std::uint64_t x,
                             std::uint64_t y) {
  const char op = debezium_op(x);
  out += R"({"before":)";
  if (op == 'c')
    out += "null";
  else
    put_payment(out, y, id);
  out += R"(,"after":)";
  if (op == 'd')
    out += "null";
  else
    put_payment(out, x, id);
  const unsigned long long ts = 1764928800000ULL + i;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                R"(,"source":{"version":"2.5.0.Final","connector":"postgresql","name":"shop","ts_ms":%llu,)"
                R"("db":"shop","schema":"public","table":"payments","txId":%llu,"lsn":%llu},)"
                R"("op":"%c","ts_ms":%llu})",
                ts, 7000ULL + i / 4, 24023128ULL + i * 64, op, ts + 17);
  out += buf;
}

}  // namespace streamt::bench
