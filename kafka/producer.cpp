// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/producer.hpp"

#include "kafka/admin_call.hpp"
#include "kafka/blocking_call.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace streamt::kafka {
namespace {

// librdkafka treats a null pointer as "null" and a non-null pointer with size
// 0 as "empty"; an empty std::string_view may have a null data().
const void* bytes_of(std::string_view s) { return s.data() != nullptr ? s.data() : ""; }

error_report fatal_report(rd_kafka_t* rk) {
  char buf[512] = {};
  const auto code = rd_kafka_fatal_error(rk, buf, sizeof buf);
  return {txn_error_info::fatal_error(code), std::string(rd_kafka_err2name(code)) + " (fatal): " + buf};
}

}  // namespace

config_result<std::unique_ptr<producer>> producer::create(boost::asio::any_io_executor ex,
                                                          std::string transactional_id,
                                                          const settings& user) {
  const settings engine{
      {"transactional.id", std::move(transactional_id)},
      {"enable.idempotence", "true"},
      {"acks", "all"},
      {"partitioner", "murmur2_random"},
  };
  // Defaults the user may override (-X), applied before the user's settings.
  //
  // connections.max.idle.ms: librdkafka 2.10 and later (the pinned 2.15.1
  // too) can leave send_offsets_to_transaction waiting for good when the
  // broker that was the group coordinator is killed: the coordinator stays
  // cached as a broker object librdkafka has decommissioned, the request's
  // own timeout is never checked (librdkafka issues 5456 and 5511), and only
  // a state change of some broker connection makes it look the coordinator
  // up again. Seen in tools/faults' txn_coordinator_kill and
  // group_coordinator_kill on a 3-node cluster: no record, no log line, for
  // 300 s. An idle connection that closes is such a change; while the call
  // waits, every connection of the producer is idle, so this bounds the wait
  // to about 15 s. A busy connection never idles; one idle for 15 s costs a
  // reconnect when it is next needed.
  //
  // retry.backoff.ms: a transaction's first AddPartitionsToTxn (and
  // AddOffsetsToTxn) that comes while the coordinator still writes the
  // previous commit's markers is answered CONCURRENT_TRANSACTIONS, and
  // librdkafka asks again only after this backoff: with its default of 100
  // every transaction begun right after a commit (a backlog, the first
  // output of a start) stood still for 100 ms at its flush. Java's producer
  // asks again after 20 ms for the same reason. Produce retries still back
  // off exponentially from it, up to retry.backoff.max.ms (1 s; librdkafka
  // 2.4 and later).
  auto conf = build_conf(engine, user, {{"connections.max.idle.ms", "15000"}, {"retry.backoff.ms", "20"}});
  if (!conf) return conf.error();
  // Delivery reports, errors and statistics become events on the main queue
  // instead of callbacks run from inside a poll call.
  rd_kafka_conf_set_events(conf->get(), RD_KAFKA_EVENT_DR | RD_KAFKA_EVENT_ERROR | RD_KAFKA_EVENT_STATS);

  std::unique_ptr<producer> self(new producer());
  char errstr[512] = {};
  self->rk_.reset(rd_kafka_new(RD_KAFKA_PRODUCER, conf->get(), errstr, sizeof errstr));
  if (!self->rk_)
    return config_error{errc::client_creation_failed, {}, 0, std::string("producer: ") + errstr};
  (void)conf->release();

  auto waker = queue_waker::create(std::move(ex), queue_ptr(rd_kafka_queue_get_main(self->rk_.get())));
  if (!waker)
    return config_error{errc::client_creation_failed, {}, 0, "producer: " + waker.error().message()};
  self->waker_.emplace(std::move(*waker));
  return self;
}

producer::~producer() {
  waker_.reset();
  txn_pool_.join();
}

namespace {

// Each header's name and value bytes.
std::size_t header_bytes(const rd_kafka_headers_t* h) {
  std::size_t total = 0;
  const char* name = nullptr;
  const void* value = nullptr;
  std::size_t size = 0;
  for (std::size_t i = 0; rd_kafka_header_get_all(h, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
       ++i)
    total += std::strlen(name) + size;
  return total;
}

}  // namespace

std::size_t record_bytes(const outgoing_record& record) {
  std::size_t total = (record.key ? record.key->size() : 0) + (record.value ? record.value->size() : 0);
  for (const header_view& h : record.headers) total += h.name.size() + (h.value ? h.value->size() : 0);
  for (const header_view& h : record.extra_headers) total += h.name.size() + (h.value ? h.value->size() : 0);
  rd_kafka_headers_t* in = nullptr;
  if (record.headers_of != nullptr &&
      rd_kafka_message_headers(as_native(record.headers_of), &in) == RD_KAFKA_RESP_ERR_NO_ERROR)
    total += header_bytes(in);
  return total;
}

error_report producer::produce(std::string_view topic, const outgoing_record& record) {
  const auto add = [](rd_kafka_headers_t* to, const header_view& h) {
    rd_kafka_header_add(to, h.name.data(), static_cast<ssize_t>(h.name.size()),
                        h.value ? bytes_of(*h.value) : nullptr,
                        h.value ? static_cast<ssize_t>(h.value->size()) : 0);
  };
  const std::size_t extra = record.extra_headers.size();
  headers_ptr headers;
  if (record.headers_of != nullptr) {
    // The consumed record's own headers: parsed now, for this record only,
    // and copied (produceva takes ownership of what it gets).
    rd_kafka_headers_t* in = nullptr;
    if (rd_kafka_message_headers(as_native(record.headers_of), &in) == RD_KAFKA_RESP_ERR_NO_ERROR &&
        rd_kafka_header_cnt(in) > 0)
      // In one call, and byte for byte: rd_kafka_header_get_all would give
      // the names as C strings, cut at a NUL a name may hold. The copy's
      // list is sized for the source's headers, so an extra header added
      // after it grows the list once (librdkafka doubles it).
      headers.reset(rd_kafka_headers_copy(in));
  } else if (!record.headers.empty()) {
    headers.reset(rd_kafka_headers_new(record.headers.size() + extra));
    for (const auto& h : record.headers) add(headers.get(), h);
  }
  if (extra != 0) {
    if (!headers) headers.reset(rd_kafka_headers_new(extra));
    for (const auto& h : record.extra_headers) add(headers.get(), h);
  }
  rd_kafka_topic_t* rkt = topic_handle(topic);
  if (!rkt) return report_of(rd_kafka_last_error());
  rd_kafka_vu_t vu[8];
  std::size_t n = 0;
  vu[n].vtype = RD_KAFKA_VTYPE_RKT;
  vu[n++].u.rkt = rkt;
  vu[n].vtype = RD_KAFKA_VTYPE_PARTITION;
  vu[n++].u.i32 = RD_KAFKA_PARTITION_UA;
  vu[n].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
  vu[n++].u.i = RD_KAFKA_MSG_F_COPY;
  vu[n].vtype = RD_KAFKA_VTYPE_VALUE;
  vu[n].u.mem.ptr = record.value ? const_cast<void*>(bytes_of(*record.value)) : nullptr;
  vu[n++].u.mem.size = record.value ? record.value->size() : 0;
  vu[n].vtype = RD_KAFKA_VTYPE_KEY;
  vu[n].u.mem.ptr = record.key ? const_cast<void*>(bytes_of(*record.key)) : nullptr;
  vu[n++].u.mem.size = record.key ? record.key->size() : 0;
  vu[n].vtype = RD_KAFKA_VTYPE_TIMESTAMP;
  vu[n++].u.i64 = record.timestamp_ms;
  vu[n].vtype = RD_KAFKA_VTYPE_OPAQUE;
  vu[n++].u.ptr = reinterpret_cast<void*>(static_cast<std::uintptr_t>(record.opaque));
  if (headers) {
    vu[n].vtype = RD_KAFKA_VTYPE_HEADERS;
    vu[n++].u.headers = headers.get();
  }
  auto result = take_error(rd_kafka_produceva(rk_.get(), vu, n));
  // librdkafka owns the headers only if the record was accepted.
  if (!result.failed()) (void)headers.release();
  return result;
}

rd_kafka_topic_t* producer::topic_handle(std::string_view topic) {
  if (topic_ && topic == topic_name_) return topic_.get();
  topic_name_ = topic;
  // No topic configuration of its own: it takes the producer's defaults
  // (partitioner included), as a produce call naming the topic would.
  topic_.reset(rd_kafka_topic_new(rk_.get(), topic_name_.c_str(), nullptr));
  return topic_.get();
}

void producer::drain(std::size_t max, producer_events& out) {
  while (out.deliveries.size() < max) {
    event_ptr ev(rd_kafka_queue_poll(waker_->queue(), 0));
    if (!ev) return;
    switch (rd_kafka_event_type(ev.get())) {
      case RD_KAFKA_EVENT_DR:
        while (const rd_kafka_message_t* m = rd_kafka_event_message_next(ev.get())) {
          delivery_report r;
          r.partition = m->partition;
          r.offset = m->offset;
          r.opaque = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(m->_private));
          // Not rd_kafka_message_errstr: for a delivery report it reads the
          // record's payload as a C string (a heap over-read under ASan).
          if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            r.error = report_of(m->err);
            r.bytes = m->key_len + m->len;
            rd_kafka_headers_t* h = nullptr;
            if (rd_kafka_message_headers(m, &h) == RD_KAFKA_RESP_ERR_NO_ERROR) r.bytes += header_bytes(h);
          }
          out.deliveries.push_back(std::move(r));
        }
        break;
      case RD_KAFKA_EVENT_ERROR:
        if (rd_kafka_event_error_is_fatal(ev.get())) {
          out.errors.push_back(fatal_report(rk_.get()));
        } else {
          // Non-fatal client errors are informational: librdkafka retries.
          const auto code = rd_kafka_event_error(ev.get());
          out.errors.push_back(
              {txn_error_info::retriable_error(code),
               std::string(rd_kafka_err2name(code)) + ": " + rd_kafka_event_error_string(ev.get())});
        }
        break;
      case RD_KAFKA_EVENT_STATS:
        out.statistics.emplace_back(rd_kafka_event_stats(ev.get()));
        break;
      default:
        break;  // not enabled; destroyed unread
    }
  }
}

boost::asio::awaitable<boost::system::result<producer_events>> producer::async_poll_events(std::size_t max) {
  for (;;) {
    producer_events out;
    drain(max, out);
    if (!out.empty()) co_return out;
    auto [ec] = co_await waker_->async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    if (ec) co_return ec;
  }
}

template <class F>
boost::asio::awaitable<error_report> producer::run_transactional(F call) {
  auto op = detail::run_blocking<error_report>(txn_pool_.get_executor(), std::move(call));
  co_return co_await std::move(op);
}

error_report producer::begin_transaction() { return take_error(rd_kafka_begin_transaction(rk_.get())); }

boost::asio::awaitable<error_report> producer::async_send_offsets_to_transaction(
    std::vector<partition_offset> offsets, group_metadata_ptr group, std::string metadata) {
  rd_kafka_t* rk = rk_.get();
  return run_transactional(
      [rk, offsets = std::move(offsets), group = std::move(group), metadata = std::move(metadata)] {
        const auto list = to_list(offsets);
        for (int i = 0; i < list->cnt; ++i) set_commit_metadata(rk, list->elems[i], metadata);
        // Unlike commit and abort, -1 here means no limit at all: a TxnOffsetCommit
        // that never gets an answer (a group coordinator connection stuck after
        // a broker pause) would hold the engine for good, silently. Bounded, the
        // call fails retriably and the commit machine decides.
        constexpr int send_offsets_timeout_ms = 60000;
        return take_error(
            rd_kafka_send_offsets_to_transaction(rk, list.get(), group.get(), send_offsets_timeout_ms));
      });
}

namespace {
int slice_ms(std::chrono::milliseconds slice) {
  if (slice.count() < 0) return -1;
  return static_cast<int>(std::clamp<std::int64_t>(slice.count(), 1, std::numeric_limits<int>::max()));
}
}  // namespace

boost::asio::awaitable<error_report> producer::async_init_transactions() {
  rd_kafka_t* rk = rk_.get();
  return run_transactional([rk] { return take_error(rd_kafka_init_transactions(rk, -1)); });
}

boost::asio::awaitable<error_report> producer::async_init_transactions(std::chrono::milliseconds slice) {
  rd_kafka_t* rk = rk_.get();
  const int ms = slice_ms(slice);
  return run_transactional([rk, ms] { return take_error(rd_kafka_init_transactions(rk, ms)); });
}

boost::asio::awaitable<error_report> producer::async_commit_transaction(std::chrono::milliseconds slice) {
  rd_kafka_t* rk = rk_.get();
  const int ms = slice_ms(slice);
  return run_transactional([rk, ms] { return take_error(rd_kafka_commit_transaction(rk, ms)); });
}

boost::asio::awaitable<error_report> producer::async_abort_transaction(std::chrono::milliseconds slice) {
  rd_kafka_t* rk = rk_.get();
  const int ms = slice_ms(slice);
  return run_transactional([rk, ms] { return take_error(rd_kafka_abort_transaction(rk, ms)); });
}

boost::asio::awaitable<kafka_result<std::set<std::string>>> producer::async_topic_names(
    std::chrono::milliseconds timeout) {
  rd_kafka_t* rk = rk_.get();
  const int ms = slice_ms(timeout);
  auto op = detail::run_blocking<kafka_result<std::set<std::string>>>(
      txn_pool_.get_executor(), [rk, ms]() -> kafka_result<std::set<std::string>> {
        const rd_kafka_metadata_t* md = nullptr;
        // all_topics=1: the whole cluster's topics, without creating any
        // (a single-topic request may auto-create it on some brokers).
        const rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 1, nullptr, &md, ms);
        if (e != RD_KAFKA_RESP_ERR_NO_ERROR) return report_of(e);
        std::set<std::string> names;
        for (int i = 0; i < md->topic_cnt; ++i)
          if (md->topics[i].err == RD_KAFKA_RESP_ERR_NO_ERROR) names.insert(md->topics[i].topic);
        rd_kafka_metadata_destroy(md);
        return names;
      });
  co_return co_await std::move(op);
}

boost::asio::awaitable<kafka_result<topic_settings>> producer::async_topic_settings(
    std::vector<std::string> topics, std::vector<std::string> keys, std::chrono::milliseconds timeout) {
  rd_kafka_t* rk = rk_.get();
  auto op = detail::run_blocking<kafka_result<topic_settings>>(
      txn_pool_.get_executor(), [rk, topics = std::move(topics), keys = std::move(keys), timeout] {
        return describe_topic_settings(rk, topics, keys, timeout);
      });
  co_return co_await std::move(op);
}

rd_kafka_resp_err_t producer::fatal_cause() const noexcept {
  return rd_kafka_fatal_error(rk_.get(), nullptr, 0);
}

std::chrono::milliseconds producer::transaction_timeout() const {
  char value[32] = {};
  std::size_t size = sizeof value;
  if (rd_kafka_conf_get(rd_kafka_conf(rk_.get()), "transaction.timeout.ms", value, &size) != RD_KAFKA_CONF_OK)
    return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(std::strtoll(value, nullptr, 10));
}

boost::asio::awaitable<error_report> producer::async_flush(std::chrono::milliseconds timeout) {
  rd_kafka_t* rk = rk_.get();
  return run_transactional(
      [rk, timeout] { return report_of(rd_kafka_flush(rk, static_cast<int>(timeout.count()))); });
}

std::size_t producer::outstanding() const noexcept {
  return static_cast<std::size_t>(rd_kafka_outq_len(rk_.get()));
}

}  // namespace streamt::kafka
