// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// bench_copy: the ceiling of bench/compare. A plain librdkafka
// consume-then-produce copy of every record, at least once, with no
// transactions and no JSON work: what the broker and one client pair move on
// this machine.
//
//   bench_copy --bootstrap-servers B --group G --input T --output T
//              [--commit-interval-ms 100] [-X key=value]...
//
// Records keep their key, value and timestamp; the output partition is the
// key's murmur2 (librdkafka's murmur2_random, as the engine and Java use).
// Every commit interval it flushes the producer and then commits the consumed
// positions (asynchronously): every committed offset's record was delivered
// first, so a crash can only repeat records, never lose them. The consumer
// and producer otherwise use librdkafka's defaults, as the engine does.
// SIGTERM or SIGINT: flush, commit synchronously, leave the group, exit 0.

#include "bench/kafka_bench.hpp"

#include <chrono>

namespace {

using namespace streamt::bench;
constexpr const char* tool = "bench_copy";

std::uint64_t failed_deliveries = 0;
void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void*) {
  if (m->err) {
    if (failed_deliveries++ == 0)
      std::fprintf(stderr, "%s: delivery failed: %s\n", tool, rd_kafka_err2str(m->err));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const options opt(tool, argc, argv, 1);
  const std::string bootstrap = opt.get("bootstrap-servers");
  const std::string input = opt.get("input");
  const std::string output = opt.get("output");
  const auto commit_interval = std::chrono::milliseconds(opt.num("commit-interval-ms", 100));

  settings cs{{"bootstrap.servers", bootstrap},
              {"group.id", opt.get("group")},
              {"enable.auto.commit", "false"},
              {"auto.offset.reset", "earliest"}};
  add_consumer_defaults(cs);
  cs.insert(cs.end(), opt.extra.begin(), opt.extra.end());
  kafka_ptr consumer = make_client(tool, RD_KAFKA_CONSUMER, make_conf(tool, cs));
  rd_kafka_poll_set_consumer(consumer.get());

  settings ps{{"bootstrap.servers", bootstrap}, {"acks", "all"}, {"partitioner", "murmur2_random"}};
  ps.insert(ps.end(), opt.extra.begin(), opt.extra.end());
  conf_ptr pconf = make_conf(tool, ps);
  rd_kafka_conf_set_dr_msg_cb(pconf.get(), &on_delivery);
  kafka_ptr producer = make_client(tool, RD_KAFKA_PRODUCER, std::move(pconf));

  partitions_ptr topics{rd_kafka_topic_partition_list_new(1)};
  rd_kafka_topic_partition_list_add(topics.get(), input.c_str(), RD_KAFKA_PARTITION_UA);
  if (auto err = rd_kafka_subscribe(consumer.get(), topics.get()))
    die(tool, std::string("subscribe: ") + rd_kafka_err2str(err));

  stop_on_signals();

  queue_ptr queue{rd_kafka_queue_get_consumer(consumer.get())};
  std::vector<rd_kafka_message_t*> batch(10000);
  bool consumed_since_commit = false;
  auto next_commit = std::chrono::steady_clock::now() + commit_interval;
  auto commit = [&](bool sync) {
    if (auto err = rd_kafka_flush(producer.get(), -1))
      die(tool, std::string("flush: ") + rd_kafka_err2str(err));
    if (failed_deliveries) die(tool, "records were not delivered; not committing their offsets");
    // NULL: the current assignment's positions, each one past the last
    // record handed to us, all of which are now delivered.
    const rd_kafka_resp_err_t err = rd_kafka_commit(consumer.get(), nullptr, sync ? 0 : 1);
    if (err && err != RD_KAFKA_RESP_ERR__NO_OFFSET)
      die(tool, std::string("commit: ") + rd_kafka_err2str(err));
    consumed_since_commit = false;
  };

  while (!stop_requested) {
    const ssize_t n = rd_kafka_consume_batch_queue(queue.get(), 100, batch.data(), batch.size());
    if (n < 0) die(tool, std::string("consume: ") + rd_kafka_err2str(rd_kafka_last_error()));
    for (ssize_t i = 0; i < n; ++i) {
      message_ptr m{batch[static_cast<std::size_t>(i)]};
      if (m->err) {
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) continue;
        std::fprintf(stderr, "%s: consumer: %s\n", tool, rd_kafka_message_errstr(m.get()));
        continue;
      }
      const std::int64_t ts = rd_kafka_message_timestamp(m.get(), nullptr);
      for (;;) {
        const rd_kafka_resp_err_t err = rd_kafka_producev(
            producer.get(), RD_KAFKA_V_TOPIC(output.c_str()), RD_KAFKA_V_KEY(m->key, m->key_len),
            RD_KAFKA_V_VALUE(m->payload, m->len), RD_KAFKA_V_TIMESTAMP(ts),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR) break;
        if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) die(tool, std::string("produce: ") + rd_kafka_err2str(err));
        rd_kafka_poll(producer.get(), 10);
      }
      consumed_since_commit = true;
    }
    rd_kafka_poll(producer.get(), 0);
    if (std::chrono::steady_clock::now() >= next_commit) {
      if (consumed_since_commit) commit(false);
      next_commit = std::chrono::steady_clock::now() + commit_interval;
    }
  }
  commit(true);
  rd_kafka_consumer_close(consumer.get());
  return 0;
}
