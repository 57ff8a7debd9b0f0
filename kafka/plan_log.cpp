// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/plan_log.hpp"

#include "kafka/admin_call.hpp"
#include "kafka/blocking_call.hpp"
#include "kafka/handles.hpp"
#include "kafka/partition_reader.hpp"

#include <algorithm>
#include <span>
#include <string_view>
#include <thread>

namespace streamt::kafka {

namespace {

using clock = std::chrono::steady_clock;

struct new_topic_deleter {
  void operator()(rd_kafka_NewTopic_t* p) const noexcept { rd_kafka_NewTopic_destroy(p); }
};

error_report named(error_report e, std::string_view what) {
  e.message = std::string(what) + ": " + e.message;
  return e;
}

}  // namespace

kafka_result<bool> create_log_topic(rd_kafka_t* rk, const std::string& topic,
                                    std::chrono::milliseconds timeout) {
  char errstr[512] = {};
  std::unique_ptr<rd_kafka_NewTopic_t, new_topic_deleter> t(
      rd_kafka_NewTopic_new(topic.c_str(), 1, -1, errstr, sizeof errstr));
  if (!t) {
    error_report e = report_of(RD_KAFKA_RESP_ERR__INVALID_ARG);
    e.message = errstr;
    return e;
  }
  for (const auto& [key, value] : {std::pair{"retention.ms", "-1"}, std::pair{"retention.bytes", "-1"},
                                   std::pair{"cleanup.policy", "delete"}})
    (void)rd_kafka_NewTopic_set_config(t.get(), key, value);
  rd_kafka_NewTopic_t* topics[] = {t.get()};
  queue_ptr q(rd_kafka_queue_new(rk));
  admin_options_ptr o = options_for(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS, timeout);
  rd_kafka_CreateTopics(rk, topics, 1, o.get(), q.get());
  kafka_result<event_ptr> ev = wait_result(q.get(), timeout);
  if (!ev) return ev.error();
  const rd_kafka_CreateTopics_result_t* result = rd_kafka_event_CreateTopics_result(ev->get());
  if (!result) return report_of(RD_KAFKA_RESP_ERR__BAD_MSG);
  std::size_t n = 0;
  const rd_kafka_topic_result_t** answered = rd_kafka_CreateTopics_result_topics(result, &n);
  if (n != 1) return report_of(RD_KAFKA_RESP_ERR__BAD_MSG);
  const rd_kafka_resp_err_t code = rd_kafka_topic_result_error(answered[0]);
  if (code == RD_KAFKA_RESP_ERR_NO_ERROR) return true;
  if (code == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) return false;
  error_report e = report_of(code);
  if (const char* s = rd_kafka_topic_result_error_string(answered[0]); s && *s) e.message = s;
  return e;
}

kafka_result<log_contents> read_log(const std::string& bootstrap_servers, const settings& user,
                                    const std::string& topic, std::size_t max_records, bool wait_for_topic,
                                    std::chrono::milliseconds timeout) {
  config_result<partition_reader> reader = partition_reader::connect(bootstrap_servers, user);
  if (!reader) {
    error_report e = report_of(RD_KAFKA_RESP_ERR__INVALID_ARG);
    e.message = "plan log reader: " + reader.error().message;
    return e;
  }
  // A topic created a moment ago is not known to every broker yet: the
  // broker answering metadata may name a leader that has not applied the
  // new topic, and that leader answers ListOffsets with UNKNOWN_TOPIC_OR_PART
  // (seen on the 3-node cluster). So the partition count and the watermarks
  // are asked together, and retried together. The metadata has no event to
  // wait for: a short pause between questions, on this pool thread.
  const clock::time_point deadline = clock::now() + timeout;
  const topic_partition p{topic, 0};
  // Each question gets what is left of the timeout, so retries stay within it.
  auto left = [&] {
    return std::max(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()),
                    std::chrono::milliseconds(1));
  };
  auto locate = [&]() -> kafka_result<watermarks> {
    kafka_result<std::int32_t> partitions = reader->partition_count(topic, left());
    if (!partitions) return partitions.error();
    if (*partitions < 1) return report_of(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART);
    return reader->query_watermarks(p, left());
  };
  kafka_result<watermarks> marks = locate();
  while (!marks) {
    const error_report& e = marks.error();
    const bool not_yet = e.info.code == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART
                             ? wait_for_topic
                             : is_transient_code(e.info.code);
    if (!not_yet || clock::now() >= deadline) return named(e, "reading " + topic);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    marks = locate();
  }
  std::vector<log_record> records;
  bool too_many = false;
  // One record past the bound tells "exactly max_records" from "more".
  kafka_result<std::int64_t> read = reader->read(
      p, marks->low, marks->high, max_records + 1, timeout, [&](std::span<const message_view> batch) {
        for (const message_view& m : batch) {
          if (records.size() == max_records) {
            too_many = true;
            return;
          }
          records.push_back({m.offset, std::string(m.key.value_or("")), std::string(m.value.value_or(""))});
        }
      });
  if (!read) return named(read.error(), "reading " + topic);
  if (too_many) {
    error_report e = report_of(RD_KAFKA_RESP_ERR__FAIL);
    e.message = "reading " + topic + ": more than " + std::to_string(max_records) + " records";
    return e;
  }
  return log_contents{std::move(records), *read};
}

kafka_result<std::int64_t> append_log(const std::string& bootstrap_servers, const settings& user,
                                      const std::string& topic, const std::string& key,
                                      const std::string& value, std::chrono::milliseconds timeout) {
  const settings engine{{"bootstrap.servers", bootstrap_servers},
                        {"enable.idempotence", "false"},
                        {"acks", "all"},
                        {"message.timeout.ms", std::to_string(std::max<std::int64_t>(timeout.count(), 1))}};
  struct outcome {
    bool delivered = false;
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR__TIMED_OUT;
    std::int64_t offset = -1;
  } out;
  auto conf = build_conf(engine, user);
  if (!conf) {
    error_report e = report_of(RD_KAFKA_RESP_ERR__INVALID_ARG);
    e.message = conf.error().message;
    return e;
  }
  rd_kafka_conf_set_dr_msg_cb(conf->get(), [](rd_kafka_t*, const rd_kafka_message_t* m, void*) {
    auto* o = static_cast<outcome*>(m->_private);
    o->delivered = true;
    o->err = m->err;
    o->offset = m->offset;
  });
  char errstr[512] = {};
  kafka_ptr rk(rd_kafka_new(RD_KAFKA_PRODUCER, conf->get(), errstr, sizeof errstr));
  if (!rk) {
    error_report e = report_of(RD_KAFKA_RESP_ERR__INVALID_ARG);
    e.message = std::string("plan log writer: ") + errstr;
    return e;
  }
  (void)conf->release();
  const rd_kafka_resp_err_t queued = rd_kafka_producev(
      rk.get(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
      RD_KAFKA_V_KEY(key.data(), key.size()), RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(&out), RD_KAFKA_V_END);
  if (queued != RD_KAFKA_RESP_ERR_NO_ERROR) return named(report_of(queued), "writing to " + topic);
  // The delivery report comes within message.timeout.ms; flush serves it.
  (void)rd_kafka_flush(rk.get(), static_cast<int>(timeout.count()) + 1000);
  if (!out.delivered) {
    // Nothing may call back into `out` once this returns. The purged claim
    // is reported as purged: it timed out all the same (no answer).
    (void)rd_kafka_purge(rk.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    (void)rd_kafka_flush(rk.get(), 1000);
    return named(report_of(RD_KAFKA_RESP_ERR__TIMED_OUT), "writing to " + topic);
  }
  // A claim that timed out in the queue had no answer from the brokers: the
  // same as a call that timed out (the caller may ask again).
  if (out.err == RD_KAFKA_RESP_ERR__MSG_TIMED_OUT)
    return named(report_of(RD_KAFKA_RESP_ERR__TIMED_OUT), "writing to " + topic);
  if (out.err != RD_KAFKA_RESP_ERR_NO_ERROR) return named(report_of(out.err), "writing to " + topic);
  return out.offset;
}

plan_log_client::plan_log_client(const consumer& admin_via, std::string bootstrap_servers, settings user)
    : admin_(admin_via.native_handle()),
      bootstrap_servers_(std::move(bootstrap_servers)),
      user_(std::move(user)) {}

plan_log_client::~plan_log_client() { pool_.join(); }

boost::asio::awaitable<kafka_result<bool>> plan_log_client::async_create(std::string topic,
                                                                         std::chrono::milliseconds timeout) {
  auto op = detail::run_blocking<kafka_result<bool>>(
      pool_.get_executor(),
      [rk = admin_, topic = std::move(topic), timeout] { return create_log_topic(rk, topic, timeout); });
  co_return co_await std::move(op);
}

boost::asio::awaitable<kafka_result<log_contents>> plan_log_client::async_read(
    std::string topic, std::size_t max_records, bool wait_for_topic, std::chrono::milliseconds timeout) {
  auto op = detail::run_blocking<kafka_result<log_contents>>(
      pool_.get_executor(), [this, topic = std::move(topic), max_records, wait_for_topic, timeout] {
        return read_log(bootstrap_servers_, user_, topic, max_records, wait_for_topic, timeout);
      });
  co_return co_await std::move(op);
}

boost::asio::awaitable<kafka_result<std::int64_t>> plan_log_client::async_append(
    std::string topic, std::string key, std::string value, std::chrono::milliseconds timeout) {
  auto op = detail::run_blocking<kafka_result<std::int64_t>>(
      pool_.get_executor(),
      [this, topic = std::move(topic), key = std::move(key), value = std::move(value), timeout] {
        return append_log(bootstrap_servers_, user_, topic, key, value, timeout);
      });
  co_return co_await std::move(op);
}

}  // namespace streamt::kafka
