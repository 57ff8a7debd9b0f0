// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/partition_reader.hpp"

#include "kafka/admin_call.hpp"
#include "kafka/consumer.hpp"

#include <algorithm>
#include <vector>

namespace streamt::kafka {
namespace {

// What a consume call waits at most before the idle check runs again:
// short, since rd_kafka_consume_batch_queue waits this long whenever a
// batch is not full, which the last batch of a partition never is.
constexpr std::chrono::milliseconds poll_wait{100};
constexpr std::size_t batch_size = 1024;

std::string where(const topic_partition& p) { return p.topic + "/" + std::to_string(p.partition); }

// Stops the simple consumer of one partition however read() returns: a
// partition left started would go on fetching into a queue nobody reads.
class started_partition {
 public:
  started_partition(rd_kafka_topic_t* t, std::int32_t partition) : t_(t), partition_(partition) {}
  started_partition(const started_partition&) = delete;
  started_partition& operator=(const started_partition&) = delete;
  ~started_partition() { rd_kafka_consume_stop(t_, partition_); }

 private:
  rd_kafka_topic_t* t_;
  std::int32_t partition_;
};

}  // namespace

config_result<partition_reader> partition_reader::connect(const std::string& bootstrap_servers,
                                                          const settings& user) {
  const settings engine{{"bootstrap.servers", bootstrap_servers}, {"isolation.level", "read_committed"},
                        {"enable.auto.commit", "false"},          {"enable.auto.offset.store", "false"},
                        {"auto.offset.reset", "error"},           {"enable.partition.eof", "true"}};
  // As the engine's consumer sets it, for the same reason: with librdkafka's
  // default of 1000 a full prefetch queue idles the fetch for a second at a
  // time (kafka/consumer.cpp). A user's -X wins.
  settings defaults;
  if (has_fetch_queue_backoff(rd_kafka_version())) defaults.push_back({"fetch.queue.backoff.ms", "50"});
  auto conf = build_conf(engine, user, defaults);
  if (!conf) return conf.error();
  char errstr[512] = {};
  kafka_ptr rk(rd_kafka_new(RD_KAFKA_CONSUMER, conf->get(), errstr, sizeof errstr));
  if (!rk) return config_error{errc::client_creation_failed, {}, 0, std::string("reader: ") + errstr};
  (void)conf->release();  // rd_kafka_new took it
  return partition_reader(std::move(rk));
}

kafka_result<std::int32_t> partition_reader::partition_count(const std::string& topic,
                                                             std::chrono::milliseconds timeout) const {
  return topic_partition_count(rk_.get(), topic, timeout);
}

kafka_result<watermarks> partition_reader::query_watermarks(const topic_partition& p,
                                                            std::chrono::milliseconds timeout) const {
  return partition_watermarks(rk_.get(), p, timeout);
}

kafka_result<std::int64_t> partition_reader::read(const topic_partition& p, std::int64_t from,
                                                  std::int64_t end, std::uint64_t max_records,
                                                  std::chrono::milliseconds idle_timeout,
                                                  const batch_handler& take) {
  if (from >= end || max_records == 0) return from;
  topic_ptr t(rd_kafka_topic_new(rk_.get(), p.topic.c_str(), nullptr));
  if (!t) return report_of(rd_kafka_last_error());
  queue_ptr q(rd_kafka_queue_new(rk_.get()));
  if (rd_kafka_consume_start_queue(t.get(), p.partition, from, q.get()) == -1)
    return report_of(rd_kafka_last_error());
  const started_partition started(t.get(), p.partition);

  using clock = std::chrono::steady_clock;
  std::vector<rd_kafka_message_t*> fetched(batch_size);
  std::vector<message_ptr> records;
  std::vector<message_view> views;
  std::int64_t position = from;
  std::uint64_t handed = 0;
  auto last_news = clock::now();
  while (position < end && handed < max_records) {
    // Never more than the records still allowed: what is fetched is handed
    // out, and nothing past --max-records is. Nor more than the offsets left
    // before `end`: consume_batch returns when the batch is full or at its
    // timeout, and a batch that cannot fill waited the whole poll_wait (a
    // plan log of one claim took 100 ms to read at every start).
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(
        {batch_size, max_records - handed, static_cast<std::uint64_t>(end - position)}));
    const ssize_t n =
        rd_kafka_consume_batch_queue(q.get(), static_cast<int>(poll_wait.count()), fetched.data(), want);
    if (n < 0) return report_of(rd_kafka_last_error());
    records.clear();
    for (ssize_t i = 0; i < n; ++i) records.emplace_back(fetched[static_cast<std::size_t>(i)]);
    if (n == 0) {
      if (clock::now() - last_news >= idle_timeout) {
        error_report e = report_of(RD_KAFKA_RESP_ERR__TIMED_OUT);
        e.message = where(p) + ": nothing arrived for " + std::to_string(idle_timeout.count()) +
                    " ms at offset " + std::to_string(position) + " (" + e.message + ")";
        return e;
      }
      continue;
    }
    last_news = clock::now();
    bool at_end = false;
    std::vector<message_ptr> kept;
    kept.reserve(records.size());
    for (message_ptr& m : records) {
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        // The partition's end as the fetch found it: everything below it was
        // handed out or skipped (transaction markers, aborted records).
        if (m->offset >= end) at_end = true;
        continue;
      }
      if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        error_report e = report_of(m->err);
        e.message = where(p) + "@" + std::to_string(m->offset < 0 ? position : m->offset) + ": " +
                    rd_kafka_message_errstr(m.get());
        return e;
      }
      // Records written after the read began are not part of it.
      if (m->offset >= end) {
        at_end = true;
        break;
      }
      position = m->offset + 1;
      kept.push_back(std::move(m));
    }
    handed += kept.size();
    if (!kept.empty()) {
      view_messages(kept, views);
      take(views);
    }
    if (at_end) position = end;
  }
  return position;
}

}  // namespace streamt::kafka
