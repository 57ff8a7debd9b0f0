// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// bench_loadgen: writes the benchmark's order records into a topic, as fast as
// it can (the preload) or at a fixed rate (the latency load), and says how
// many of them pass each filter.
//
//   bench_loadgen --bootstrap-servers B --topic T --records N [--first-id K]
//                 [--partitions 4] [--rate R] [--thresholds 900,500,0]
//                 [--count-only 1] [--nested 1] [--avro-schema-id ID]
//                 [-X key=value]...
//
// Record i (K <= i < K+N) goes to partition i % P with key "o-%07d" and the
// value of order_generator (kafka_bench.hpp); with --avro-schema-id ID, the
// same order as Avro in the Confluent wire format (avro_orders below, issue
// 37); with --nested 1, with key {"id":1000000+i} and the Debezium change
// event of change_event_generator (issue 36). The producer is idempotent with
// acks=all, so a retry never duplicates an input record and the expected
// output counts are exact. --rate R paces records at R per second (the
// record timestamp is the producer's CreateTime, taken when each record is
// handed to librdkafka). --count-only produces nothing and prints what would
// be produced. Prints one JSON object on stdout:
//
//   {"records":N,"first_id":K,"bytes":...,"seconds":...,"digest":"...",
//    "pass":{"900":...,"500":...,"0":N}}
//
// where pass[t] counts records with amount >= t (nested: with op = 'c' and
// after.amount >= t / 100, t in cents) and digest is the multiset
// digest of (key, value) over all records. With --nested 1 it also prints
// "output_digest":{"t":...,"all":...}, the digest of what the engine writes
// for the records that pass t, and for all of them (no WHERE). Exit 1 on any failed delivery.

#include "bench/kafka_bench.hpp"
#include "operators/avro_encode.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <optional>
#include <sstream>
#include <thread>

namespace {

using namespace streamt::bench;
constexpr const char* tool = "bench_loadgen";

struct delivery_state {
  std::uint64_t failed = 0;
  std::string first_error;
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* s = static_cast<delivery_state*>(opaque);
  if (m->err) {
    if (s->failed++ == 0) s->first_error = rd_kafka_err2str(m->err);
  }
}

std::vector<std::int64_t> parse_thresholds(const std::string& list) {
  std::vector<std::int64_t> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0') die(tool, "--thresholds takes integers separated by commas");
    out.push_back(v);
  }
  return out;
}

// The orders as bench/compare --avro reads them: order i framed with the id
// under which compare registered its schema, then the Avro body of that
// schema (shop.Order: id string, amount long, note ["null","string"], flag
// ["null","boolean"]), the same values as the JSON order.
class avro_orders {
 public:
  explicit avro_orders(std::uint32_t schema_id) : schema_id_(schema_id) {
    // The notes are JSON literals (order_fields.hpp): decoded once, here.
    for (const char* n : order_notes) {
      const boost::json::value v = boost::json::parse(n);
      notes_.push_back(v.is_null() ? std::nullopt : std::optional<std::string>(v.as_string()));
    }
  }

  void make(std::uint64_t i, std::string& key, std::string& value) const {
    namespace ops = streamt::operators;
    order_generator::make_key(i, key);
    value.clear();
    ops::append_registry_frame(value, schema_id_);
    ops::append_avro_bytes(value, key);
    ops::append_avro_long(value, order_generator::amount(i));
    // A union is its branch's index, then the branch's value: null is 0.
    const std::optional<std::string>& note = notes_[order_generator::note(i)];
    ops::append_avro_long(value, note ? 1 : 0);
    if (note) ops::append_avro_bytes(value, *note);
    const std::string_view flag = order_flags[order_generator::flag(i)];
    ops::append_avro_long(value, flag == "null" ? 0 : 1);
    if (flag != "null") value += static_cast<char>(flag == "true" ? 1 : 0);
  }

 private:
  std::uint32_t schema_id_;
  std::vector<std::optional<std::string>> notes_;
};

}  // namespace

int main(int argc, char** argv) {
  const options opt(tool, argc, argv, 1);
  const auto first_id = static_cast<std::uint64_t>(opt.num("first-id", 0));
  const auto records = static_cast<std::uint64_t>(opt.num("records"));
  const auto partitions = static_cast<std::int32_t>(opt.num("partitions", 4));
  const auto rate = static_cast<double>(opt.num("rate", 0));
  const bool count_only = opt.num("count-only", 0) != 0;
  const bool nested = opt.num("nested", 0) != 0;
  const std::int64_t avro_schema_id = opt.num("avro-schema-id", -1);
  if (avro_schema_id > std::int64_t{UINT32_MAX}) die(tool, "--avro-schema-id must fit in 4 bytes");
  if (nested && avro_schema_id >= 0) die(tool, "--nested and --avro-schema-id: the Avro orders are flat");
  const std::optional<avro_orders> avro =
      avro_schema_id < 0 ? std::nullopt
                         : std::optional<avro_orders>(static_cast<std::uint32_t>(avro_schema_id));
  const auto thresholds = parse_thresholds(opt.get("thresholds", "900,500,0"));
  if (partitions <= 0) die(tool, "--partitions must be positive");

  delivery_state delivery;
  kafka_ptr producer;
  std::string topic;
  if (!count_only) {
    topic = opt.get("topic");
    settings s{{"bootstrap.servers", opt.get("bootstrap-servers")},
               {"enable.idempotence", "true"},
               {"acks", "all"},
               {"linger.ms", rate > 0 ? "1" : "20"},
               {"queue.buffering.max.messages", "1000000"}};
    s.insert(s.end(), opt.extra.begin(), opt.extra.end());
    conf_ptr conf = make_conf(tool, s);
    rd_kafka_conf_set_dr_msg_cb(conf.get(), &on_delivery);
    rd_kafka_conf_set_opaque(conf.get(), &delivery);
    producer = make_client(tool, RD_KAFKA_PRODUCER, std::move(conf));
  }

  std::vector<std::uint64_t> pass(thresholds.size(), 0);
  std::vector<std::uint64_t> output_digest(thresholds.size() + 1, 0);  // the last: every record
  std::string output;
  std::uint64_t digest = 0, bytes = 0;
  std::string key, value;
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t n = 0; n < records; ++n) {
    const std::uint64_t i = first_id + n;
    if (nested) {
      change_event_generator::make(i, key, value);
      change_event_generator::output(i, output);
      const std::uint64_t h = record_hash(key, false, output);
      for (std::size_t t = 0; t < thresholds.size(); ++t) {
        const bool passed = change_event_generator::passes(i, thresholds[t]);
        pass[t] += passed ? 1 : 0;
        output_digest[t] += passed ? h : 0;
      }
      output_digest.back() += h;
    } else {
      if (avro)
        avro->make(i, key, value);
      else
        order_generator::make(i, key, value);
      const std::int64_t amount = order_generator::amount(i);
      for (std::size_t t = 0; t < thresholds.size(); ++t) pass[t] += amount >= thresholds[t] ? 1 : 0;
    }
    digest += record_hash(key, false, value);
    bytes += value.size();
    if (count_only) continue;
    if (rate > 0) {
      // Pace by the schedule, not by sleeping a fixed step: a late record
      // is sent at once, so the offered load stays R on average.
      const auto due = start + std::chrono::duration<double>(static_cast<double>(n) / rate);
      for (auto now = std::chrono::steady_clock::now(); now < due; now = std::chrono::steady_clock::now()) {
        const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(due - now).count();
        if (wait >= 1)
          rd_kafka_poll(producer.get(), static_cast<int>(wait));
        else
          std::this_thread::sleep_until(due);
      }
    }
    for (;;) {
      const rd_kafka_resp_err_t err = rd_kafka_producev(
          producer.get(), RD_KAFKA_V_TOPIC(topic.c_str()),
          RD_KAFKA_V_PARTITION(static_cast<std::int32_t>(i % static_cast<std::uint64_t>(partitions))),
          RD_KAFKA_V_KEY(key.data(), key.size()), RD_KAFKA_V_VALUE(value.data(), value.size()),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR) break;
      if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) die(tool, std::string("produce: ") + rd_kafka_err2str(err));
      rd_kafka_poll(producer.get(), 10);  // the local queue is full: let deliveries drain it
    }
    if ((n & 1023) == 0) rd_kafka_poll(producer.get(), 0);
  }
  if (!count_only) {
    const rd_kafka_resp_err_t err = rd_kafka_flush(producer.get(), 120000);
    if (err) die(tool, std::string("flush: ") + rd_kafka_err2str(err));
    if (delivery.failed) {
      die(tool, std::to_string(delivery.failed) +
                    " records were not delivered (first: " + delivery.first_error + ")");
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::printf("{\"records\":%" PRIu64 ",\"first_id\":%" PRIu64 ",\"bytes\":%" PRIu64
              ",\"seconds\":%.3f,\"digest\":\"%016" PRIx64 "\",\"pass\":{",
              records, first_id, bytes, seconds, digest);
  for (std::size_t t = 0; t < thresholds.size(); ++t)
    std::printf("%s\"%" PRId64 "\":%" PRIu64, t ? "," : "", thresholds[t], pass[t]);
  std::printf("}");
  if (nested) {
    std::printf(",\"output_digest\":{");
    for (std::size_t t = 0; t < thresholds.size(); ++t)
      std::printf("\"%" PRId64 "\":\"%016" PRIx64 "\",", thresholds[t], output_digest[t]);
    std::printf("\"all\":\"%016" PRIx64 "\"}", output_digest.back());
  }
  std::printf("}\n");
  return 0;
}
