// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The producer side of exactly-once: a transactional, idempotent librdkafka
// producer, wrapped thinly.
//
// Fixed settings (engine-owned, see config.hpp): transactional.id (stable per
// instance, from the application id), enable.idempotence=true, acks=all, and
// partitioner=murmur2_random. murmur2_random hashes a non-null key with
// murmur2, exactly as the Java client's default partitioner, so a key lands
// on the partition a Java producer would choose. For a null key the Java
// client uses its sticky partitioner (fill one batch, then move on) while
// murmur2_random picks a random partition per record; both spread null-keyed
// records arbitrarily and neither is a placement anyone can rely on, so the
// difference is throughput only.
//
// Delivery reports and client errors arrive as events on the main queue
// (rd_kafka_conf_set_events), woken by a queue_waker, and are handed out by
// async_poll_events. (librdkafka's separate "background queue" may not be
// polled by the application, so it can't serve a waker.)
//
// The transactional calls that block run on a one-thread pool owned by the
// producer, with timeout -1 (librdkafka then bounds init, commit and abort by
// transaction.timeout.ms) except send_offsets_to_transaction, for which -1
// means no limit: it gets 60 s, then fails retriably. Meanwhile the caller's io_context
// keeps serving delivery reports: commit_transaction waits for all of them.
// They complete back on the awaiting coroutine's executor with the error
// copied out as plain data (error_report). None honours cancellation: a
// started commit must run to an outcome (STYLE.md), and completing any of
// them early would let the next transactional call overlap with it.
//
// Threads: member functions are called from the io executor given to
// create(), one transactional call at a time. Keep the producer alive until
// every async call completed.

#include "kafka/config.hpp"
#include "kafka/error.hpp"
#include "kafka/handles.hpp"
#include "kafka/message_view.hpp"
#include "kafka/queue_waker.hpp"
#include "kafka/topic_partition.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::kafka {

// Views into the caller's buffers; produce() copies everything before it
// returns, so the buffers may be reused at once.
struct outgoing_record {
  std::optional<std::string_view> key{};    // nullopt: null key
  std::optional<std::string_view> value{};  // nullopt: null value; "" is an empty, non-null value
  std::span<const header_view> headers{};
  // Instead of `headers`: the headers of this consumed message, copied by
  // librdkafka from the message itself (message_view::consumed).
  const consumed_message* headers_of = nullptr;
  // Added after those (a dead-letter record's streamt.* headers).
  std::span<const header_view> extra_headers{};
  std::int64_t timestamp_ms = 0;  // 0: librdkafka stamps the current time
  std::uint64_t opaque = 0;       // returned in the delivery report
};

struct delivery_report {
  // The partition written to, without its topic's name: a record is known
  // by its opaque, which says what it was for, and building the name as a
  // string cost every delivered record an allocation (0.12 us each).
  std::int32_t partition = 0;
  std::int64_t offset = no_offset;
  std::uint64_t opaque = 0;
  error_report error;  // success, or why the record was not written
  // For a failed delivery: the record's key, value and header bytes, as the
  // size limits count them (message.max.bytes, max.message.bytes).
  std::size_t bytes = 0;
};

// The key, value and header bytes of `record` as produced (its consumed
// headers read from the consumed message): for messages about a refused
// record, not for every record (reading consumed headers allocates).
std::size_t record_bytes(const outgoing_record& record);

struct producer_events {
  std::vector<delivery_report> deliveries;
  std::vector<error_report> errors;  // client-level; a fatal one ends the producer
  // librdkafka's statistics JSON, one per statistics.interval.ms (never when
  // that setting is 0, its default).
  std::vector<std::string> statistics;
  bool empty() const noexcept { return deliveries.empty() && errors.empty() && statistics.empty(); }
};

class producer {
 public:
  // For commit and abort: no slice, librdkafka bounds the call by the
  // remaining transaction timeout itself (its -1).
  static constexpr std::chrono::milliseconds whole_call{-1};

  static config_result<std::unique_ptr<producer>> create(boost::asio::any_io_executor ex,
                                                         std::string transactional_id, const settings& user);

  producer(const producer&) = delete;
  producer& operator=(const producer&) = delete;
  // Joins the transactional pool, then destroys the handle without flushing:
  // an open transaction is left to the broker's transaction timeout.
  ~producer();

  // Enqueues one record for `topic` (partitioned by key), copying key, value
  // and headers. Non-blocking. QUEUE_FULL means: serve delivery reports
  // (async_poll_events), then try again. The topic's handle is kept from
  // one call to the next: naming the topic by string makes librdkafka look
  // it up (lock, hash, reference) for every record.
  error_report produce(std::string_view topic, const outgoing_record& record);

  // Delivery reports and client errors, at least one item, up to about `max`
  // deliveries; waits without polling timers.
  // Completion: co_return result<producer_events>; operation_aborted when
  //   cancelled. Completes on the awaiting coroutine's executor. Cancellation:
  //   as the coroutine's state allows (terminal by default); nothing is lost.
  boost::asio::awaitable<boost::system::result<producer_events>> async_poll_events(std::size_t max);

  // Registers the transactional id with the coordinator and fences older
  // instances with the same id. Call once before the first transaction.
  // Completion: co_return error_report (retriable: call again; fatal/fenced:
  //   stop). Runs on the transactional pool, completes on the awaiting
  //   coroutine's executor. Not cancellable.
  boost::asio::awaitable<error_report> async_init_transactions();
  // The same for at most `slice`: a slice that ends with the call under way
  // returns a retriable timeout, and calling again takes it up where it was
  // (the engine calls it in slices so that a stop is seen between two).
  boost::asio::awaitable<error_report> async_init_transactions(std::chrono::milliseconds slice);

  // Local state change only, so not async.
  error_report begin_transaction();

  // Adds the consumed offsets to the open transaction, fenced by the group's
  // generation (KIP-447). `offsets` are the NEXT offsets to consume; each
  // is committed with `metadata` (the plan lineage, engine/lineage.hpp).
  // Completion: co_return error_report; retriable → call again, abortable →
  //   abort. Pool → awaiting coroutine's executor. Not cancellable.
  boost::asio::awaitable<error_report> async_send_offsets_to_transaction(
      std::vector<partition_offset> offsets, group_metadata_ptr group, std::string metadata = {});

  // Flushes outstanding records and commits. In librdkafka's event mode a
  // record stays outstanding until its delivery report has been polled, so
  // this completes only while async_poll_events is being served on the io
  // executor (e.g. `co_await (commit || serve_reports)`): the reason the call
  // runs on its own thread. A retriable error (including a
  // timeout) means the outcome is unknown: call it again, never abort.
  // Blocks at most `slice` (default: librdkafka's "the remaining
  // transaction timeout"); a call still under way then returns __TIMED_OUT
  // (retriable) and the next call resumes it (librdkafka supports that), so
  // a caller can look at the clock between slices.
  // Completion: co_return error_report. Pool → awaiting coroutine's
  //   executor. Not cancellable: once started it runs to an outcome.
  boost::asio::awaitable<error_report> async_commit_transaction(std::chrono::milliseconds slice = whole_call);

  // Aborts the open transaction (purging unsent records). Like commit, it
  // waits for the purged records' delivery reports to be polled.
  // `slice` as for commit.
  // Completion: co_return error_report; retriable → call again. Pool →
  //   awaiting coroutine's executor. Not cancellable.
  boost::asio::awaitable<error_report> async_abort_transaction(std::chrono::milliseconds slice = whole_call);

  // Waits until every record produced so far has its delivery report polled
  // (so, like commit, only while async_poll_events is served), or `timeout`
  // passes (_TIMED_OUT). Inside a transaction it commits nothing.
  // Completion: co_return error_report. Pool → awaiting coroutine's
  //   executor. Not cancellable.
  boost::asio::awaitable<error_report> async_flush(std::chrono::milliseconds timeout);

  // Records produced but not yet acknowledged or failed.
  std::size_t outstanding() const noexcept;

  // The names of the topics that exist, from the brokers' metadata; asks at
  // most `timeout` (a caller wanting to look at the clock asks in slices).
  // Completion: co_return kafka_result (failure: the brokers did not answer
  //   in time, or refused). Pool → awaiting coroutine's executor.
  boost::asio::awaitable<kafka_result<std::set<std::string>>> async_topic_names(
      std::chrono::milliseconds timeout);

  // The topic configurations `keys` of each of `topics` (DescribeConfigs),
  // by topic name, then key; asks at most `timeout`.
  // Completion: co_return kafka_result (failure: no answer in time, or a
  //   refusal, such as a principal without DescribeConfigs on a topic).
  //   Pool → awaiting coroutine's executor.
  boost::asio::awaitable<kafka_result<topic_settings>> async_topic_settings(
      std::vector<std::string> topics, std::vector<std::string> keys, std::chrono::milliseconds timeout);

  // The code of the producer's fatal error, or NO_ERROR if it has none.
  rd_kafka_resp_err_t fatal_cause() const noexcept;
  // The transaction.timeout.ms in force (the user's, or librdkafka's
  // default): the longest a transaction may stay open before the broker
  // aborts it.
  std::chrono::milliseconds transaction_timeout() const;

  rd_kafka_t* native_handle() const noexcept { return rk_.get(); }

 private:
  producer() = default;
  template <class F>
  boost::asio::awaitable<error_report> run_transactional(F call);
  void drain(std::size_t max, producer_events& out);

  rd_kafka_topic_t* topic_handle(std::string_view topic);

  kafka_ptr rk_;
  boost::asio::thread_pool txn_pool_{1};
  std::optional<queue_waker> waker_;
  // The last topic produced to (the engine has one sink). Declared after
  // rk_ so that it is destroyed first, as librdkafka requires.
  std::string topic_name_;
  topic_ptr topic_;
};

}  // namespace streamt::kafka
