// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// bench_eos_copy: the floor of bench/compare. The least any exactly-once
// processor on this client must do: read_committed batches
// (rd_kafka_consume_batch_queue), every passed record produced inside a
// transaction, and every commit interval the consumed positions sent to the
// transaction (send_offsets_to_transaction) and the transaction committed.
// No JSON: a record passes when the number after its first "amount": is at
// least --min-amount (a scan, the cost of which is ~nothing), which is the
// engine's `WHERE amount >= N` on bench/compare's orders.
//
//   bench_eos_copy --bootstrap-servers B --group G --transactional-id T
//                  --input T --output T [--min-amount N]
//                  [--commit-interval-ms 100] [-X key=value]...
//
// One instance only: it takes whatever the group assigns and does not
// handle a rebalance beyond librdkafka's own (its offsets are committed
// in its transactions, so a second instance would still not duplicate,
// but it is not what this tool measures). Any error ends it (exit 1).
// SIGTERM or SIGINT: commit the open transaction, leave the group, exit 0.

#include "bench/kafka_bench.hpp"

#include <chrono>
#include <cstring>

namespace {

using namespace streamt::bench;
constexpr const char* tool = "bench_eos_copy";

void check(rd_kafka_error_t* e, const char* what) {
  if (!e) return;
  const std::string message = std::string(what) + ": " + rd_kafka_error_string(e);
  rd_kafka_error_destroy(e);
  die(tool, message);
}

// The integer after the first "amount": of a JSON object, or -1.
std::int64_t amount_of(const rd_kafka_message_t* m) {
  static constexpr char field[] = "\"amount\":";
  const auto* p = static_cast<const char*>(m->payload);
  if (!p) return -1;
  const char* end = p + m->len;
  const void* at = memmem(p, m->len, field, sizeof field - 1);
  if (!at) return -1;
  const char* c = static_cast<const char*>(at) + sizeof field - 1;
  std::int64_t v = 0;
  bool digits = false;
  for (; c < end && *c >= '0' && *c <= '9'; ++c, digits = true) v = v * 10 + (*c - '0');
  return digits ? v : -1;
}

}  // namespace

int main(int argc, char** argv) {
  const options opt(tool, argc, argv, 1);
  const std::string bootstrap = opt.get("bootstrap-servers");
  const std::string input = opt.get("input");
  const std::string output = opt.get("output");
  const std::int64_t min_amount = opt.num("min-amount", -1);
  const auto commit_interval = std::chrono::milliseconds(opt.num("commit-interval-ms", 100));

  settings cs{{"bootstrap.servers", bootstrap},      {"group.id", opt.get("group")},
              {"isolation.level", "read_committed"}, {"enable.auto.commit", "false"},
              {"enable.auto.offset.store", "false"}, {"auto.offset.reset", "earliest"}};
  add_consumer_defaults(cs);
  cs.insert(cs.end(), opt.extra.begin(), opt.extra.end());
  kafka_ptr consumer = make_client(tool, RD_KAFKA_CONSUMER, make_conf(tool, cs));
  rd_kafka_poll_set_consumer(consumer.get());

  settings ps{{"bootstrap.servers", bootstrap},
              {"transactional.id", opt.get("transactional-id")},
              {"partitioner", "murmur2_random"}};
  ps.insert(ps.end(), opt.extra.begin(), opt.extra.end());
  kafka_ptr producer = make_client(tool, RD_KAFKA_PRODUCER, make_conf(tool, ps));
  check(rd_kafka_init_transactions(producer.get(), 60000), "init_transactions");

  partitions_ptr topics{rd_kafka_topic_partition_list_new(1)};
  rd_kafka_topic_partition_list_add(topics.get(), input.c_str(), RD_KAFKA_PARTITION_UA);
  if (auto err = rd_kafka_subscribe(consumer.get(), topics.get()))
    die(tool, std::string("subscribe: ") + rd_kafka_err2str(err));
  rd_kafka_topic_t* out = rd_kafka_topic_new(producer.get(), output.c_str(), nullptr);

  stop_on_signals();

  // The next offset per input partition, what the transaction commits.
  std::vector<std::int64_t> next;
  bool open = false;
  auto commit = [&] {
    if (!open) return;
    partitions_ptr offsets{rd_kafka_topic_partition_list_new(static_cast<int>(next.size()))};
    for (std::size_t p = 0; p < next.size(); ++p)
      if (next[p] >= 0)
        rd_kafka_topic_partition_list_add(offsets.get(), input.c_str(), static_cast<std::int32_t>(p))
            ->offset = next[p];
    rd_kafka_consumer_group_metadata_t* group = rd_kafka_consumer_group_metadata(consumer.get());
    check(rd_kafka_send_offsets_to_transaction(producer.get(), offsets.get(), group, -1),
          "send_offsets_to_transaction");
    rd_kafka_consumer_group_metadata_destroy(group);
    check(rd_kafka_commit_transaction(producer.get(), -1), "commit_transaction");
    open = false;
  };

  queue_ptr queue{rd_kafka_queue_get_consumer(consumer.get())};
  std::vector<rd_kafka_message_t*> batch(10000);
  auto next_commit = std::chrono::steady_clock::now() + commit_interval;
  while (!stop_requested) {
    const ssize_t n = rd_kafka_consume_batch_queue(queue.get(), 100, batch.data(), batch.size());
    if (n < 0) die(tool, std::string("consume: ") + rd_kafka_err2str(rd_kafka_last_error()));
    for (ssize_t i = 0; i < n; ++i) {
      message_ptr m{batch[static_cast<std::size_t>(i)]};
      if (m->err) {
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) continue;
        die(tool, std::string("consumer: ") + rd_kafka_message_errstr(m.get()));
      }
      if (!open) {
        check(rd_kafka_begin_transaction(producer.get()), "begin_transaction");
        open = true;
      }
      if (static_cast<std::size_t>(m->partition) >= next.size())
        next.resize(static_cast<std::size_t>(m->partition) + 1, -1);
      next[static_cast<std::size_t>(m->partition)] = m->offset + 1;
      if (min_amount >= 0 && amount_of(m.get()) < min_amount) continue;
      rd_kafka_vu_t vu[6];
      vu[0].vtype = RD_KAFKA_VTYPE_RKT;
      vu[0].u.rkt = out;
      vu[1].vtype = RD_KAFKA_VTYPE_KEY;
      vu[1].u.mem = {m->key, m->key_len};
      vu[2].vtype = RD_KAFKA_VTYPE_VALUE;
      vu[2].u.mem = {m->payload, m->len};
      vu[3].vtype = RD_KAFKA_VTYPE_TIMESTAMP;
      vu[3].u.i64 = rd_kafka_message_timestamp(m.get(), nullptr);
      vu[4].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
      vu[4].u.i = RD_KAFKA_MSG_F_COPY;
      for (;;) {
        rd_kafka_error_t* e = rd_kafka_produceva(producer.get(), vu, 5);
        if (!e) break;
        const bool full = rd_kafka_error_code(e) == RD_KAFKA_RESP_ERR__QUEUE_FULL;
        if (!full) check(e, "produce");
        rd_kafka_error_destroy(e);
        rd_kafka_poll(producer.get(), 10);
      }
    }
    rd_kafka_poll(producer.get(), 0);
    if (std::chrono::steady_clock::now() >= next_commit) {
      commit();
      next_commit = std::chrono::steady_clock::now() + commit_interval;
    }
  }
  commit();
  rd_kafka_topic_destroy(out);
  rd_kafka_consumer_close(consumer.get());
  return 0;
}
