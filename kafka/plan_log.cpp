// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/plan_log.hpp"

#include "kafka/admin_call.hpp"
#include "kafka/handles.hpp"

#include <algorithm>
#include <string_view>
#include <thread>

namespace streamt::kafka {

namespace {

using clock = std::chrono::steady_clock;

int ms_left(clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
  return static_cast<int>(std::clamp<std::chrono::milliseconds::rep>(left.count(), 0, 1000));
}

struct new_topic_deleter {
  void operator()(rd_kafka_NewTopic_t* p) const noexcept { rd_kafka_NewTopic_destroy(p); }
};

error_report named(error_report e, std::string_view what) {
  e.message = std::string(what) + ": " + e.message;
  return e;
}

kafka_result<kafka_ptr> client(rd_kafka_type_t type, const settings& engine, const settings& user) {
  auto conf = build_conf(engine, user);
  if (!conf) {
    error_report e = report_of(RD_KAFKA_RESP_ERR__INVALID_ARG);
    e.message = conf.error().message;
    return e;
  }
  char errstr[512] = {};
  kafka_ptr rk(rd_kafka_new(type, conf->get(), errstr, sizeof errstr));
  if (!rk) {
    error_report e = report_of(RD_KAFKA_RESP_ERR__INVALID_ARG);
    e.message = errstr;
    return e;
  }
  (void)conf->release();  // rd_kafka_new took it
  return rk;
}

}  // namespace

error_report create_log_topic(rd_kafka_t* rk, const std::string& topic, std::chrono::milliseconds timeout) {
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
  for (std::size_t i = 0; i < n; ++i) {
    const rd_kafka_resp_err_t code = rd_kafka_topic_result_error(answered[i]);
    if (code == RD_KAFKA_RESP_ERR_NO_ERROR || code == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) continue;
    error_report e = report_of(code);
    if (const char* s = rd_kafka_topic_result_error_string(answered[i]); s && *s) e.message = s;
    return e;
  }
  return {};
}

kafka_result<std::vector<log_record>> read_log(const settings& user, const std::string& topic,
                                               std::size_t max_records, std::chrono::milliseconds timeout) {
  // The legacy partition consumer: no group, so nothing to join, commit or
  // authorise beyond reading the topic. partition.eof marks the end, which
  // under read_committed is the last stable offset.
  const settings engine{{"enable.auto.commit", "false"},
                        {"isolation.level", "read_committed"},
                        {"enable.partition.eof", "true"},
                        {"auto.offset.reset", "earliest"}};
  kafka_result<kafka_ptr> rk = client(RD_KAFKA_CONSUMER, engine, user);
  if (!rk) return named(rk.error(), "plan log reader");
  topic_ptr t(rd_kafka_topic_new(rk->get(), topic.c_str(), nullptr));
  if (!t) return named(report_of(rd_kafka_last_error()), "plan log reader");
  const clock::time_point deadline = clock::now() + timeout;
  // The legacy consumer retries a topic it may not see without a word: ask
  // the metadata first, and end at once on a refusal. A topic created a
  // moment ago may not be known to every broker yet: wait for that.
  for (;;) {
    const rd_kafka_metadata_t* md = nullptr;
    const rd_kafka_resp_err_t err =
        rd_kafka_metadata(rk->get(), 0, t.get(), &md, std::max(ms_left(deadline), 1));
    rd_kafka_resp_err_t topic_err = err;
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      topic_err = md->topic_cnt == 1 ? md->topics[0].err : RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
      if (topic_err == RD_KAFKA_RESP_ERR_NO_ERROR && md->topics[0].partition_cnt == 0)
        topic_err = RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
      rd_kafka_metadata_destroy(md);
    }
    if (topic_err == RD_KAFKA_RESP_ERR_NO_ERROR) break;
    if (topic_err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED)
      return named(report_of(topic_err), "reading " + topic);
    if (clock::now() >= deadline)
      return named(report_of(topic_err),
                   "reading " + topic + " (not there within " + std::to_string(timeout.count()) + " ms)");
    // A retry's pause on this pool thread: metadata has no event to wait for.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (rd_kafka_consume_start(t.get(), 0, RD_KAFKA_OFFSET_BEGINNING) == -1)
    return named(report_of(rd_kafka_last_error()), "reading " + topic);
  struct stop_consuming {
    rd_kafka_topic_t* t;
    ~stop_consuming() { rd_kafka_consume_stop(t, 0); }
  } stopper{t.get()};

  std::vector<log_record> records;
  error_report last = report_of(RD_KAFKA_RESP_ERR__TIMED_OUT);
  while (clock::now() < deadline) {
    message_ptr m(rd_kafka_consume(t.get(), 0, ms_left(deadline)));
    if (!m) continue;  // nothing within the slice
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) return records;
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      last = report_of(m->err);
      // A topic created a moment ago is not known everywhere yet, a leader
      // may move: wait for those. Anything else (not authorised) is final.
      if (is_transient_code(m->err) || m->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
          m->err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC)
        continue;
      return named(std::move(last), "reading " + topic);
    }
    if (records.size() == max_records) {
      error_report e = report_of(RD_KAFKA_RESP_ERR__FAIL);
      e.message = "reading " + topic + ": more than " + std::to_string(max_records) + " records";
      return e;
    }
    log_record r;
    r.offset = m->offset;
    if (m->key) r.key.assign(static_cast<const char*>(m->key), m->key_len);
    if (m->payload) r.value.assign(static_cast<const char*>(m->payload), m->len);
    records.push_back(std::move(r));
  }
  return named(std::move(last),
               "reading " + topic + " to its end within " + std::to_string(timeout.count()) + " ms");
}

kafka_result<std::int64_t> append_log(const settings& user, const std::string& topic, const std::string& key,
                                      const std::string& value, std::chrono::milliseconds timeout) {
  const settings engine{{"enable.idempotence", "true"},
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
    // Nothing may call back into `out` once this returns.
    (void)rd_kafka_purge(rk.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    (void)rd_kafka_flush(rk.get(), 1000);
    if (!out.delivered) return named(report_of(RD_KAFKA_RESP_ERR__TIMED_OUT), "writing to " + topic);
  }
  if (out.err != RD_KAFKA_RESP_ERR_NO_ERROR) return named(report_of(out.err), "writing to " + topic);
  return out.offset;
}

}  // namespace streamt::kafka
