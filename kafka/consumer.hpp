// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The consumer side of exactly-once: a thin, honest wrapper over a librdkafka
// KafkaConsumer that never decides anything the engine must decide.
//
// Fixed settings (engine-owned, see config.hpp): group.id = the application
// id; isolation.level=read_committed (aborted output is never read);
// enable.auto.commit=false and enable.auto.offset.store=false (offsets are
// committed only through the producer's transaction); auto.offset.reset=error
// (a missing or out-of-range offset surfaces as an error the engine turns into
// "start from earliest, and say so" or "refuse, naming the log start").
//
// partition.assignment.strategy=cooperative-sticky. With the eager `range`
// strategy every rebalance revokes every partition of every member, so all
// instances must finish their open transactions at once (stop-the-world).
// Cooperative rebalancing revokes only the partitions that move; the engine
// commits the open transaction (which carries the offsets of the revoked
// partitions) before acknowledging the revoke, and keeps going on the rest.
// Exactly-once does not depend on the choice: in both cases a revoke is
// acknowledged only after the transaction holding those offsets committed or
// aborted (and after an abort, every owned partition is rewound).
//
// Rebalances are not handled inside librdkafka's callback. The callback only
// records a rebalance_event (plain data) which async_poll_batch returns; the
// engine finishes its transaction and then calls incremental_assign /
// incremental_unassign. librdkafka holds the group protocol until that call.
//
// The main queue is forwarded to the consumer queue (rd_kafka_poll_set_consumer)
// so one queue_waker serves messages, rebalances and errors.
//
// Threads: all member functions are called from the io executor given to
// create(), one at a time. The async_ functions that block (committed, seek,
// watermarks, close) run on an internal one-thread pool.

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
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace streamt::kafka {

struct rebalance_event {
  enum class kind { assigned, revoked };
  kind what = kind::assigned;
  // Revoked because the assignment was lost (session timeout, fenced member):
  // another member may own these partitions already, so the open transaction
  // can't commit their offsets; abort it.
  bool lost = false;
  std::vector<topic_partition> partitions;
};

struct consumer_error {
  error_report error;
  std::optional<topic_partition> partition;  // set for per-partition errors
  std::int64_t offset = no_offset;           // the offset concerned, if any
};

struct poll_batch {
  // Messages in the order librdkafka delivered them (per partition: offset order).
  std::vector<message_ptr> messages;
  // Errors seen while polling (handle them after `messages`). Taken one
  // message at a time, the batch stops at the first.
  std::vector<consumer_error> errors;
  // A rebalance ends the batch: process `messages` first, then handle it and
  // acknowledge it with incremental_assign / incremental_unassign.
  std::optional<rebalance_event> rebalance;

  bool empty() const noexcept { return messages.empty() && errors.empty() && !rebalance; }
};

// The polled `messages` as views, in their order: `views` gets one each
// (cleared first and reused, so a batch costs no allocation once it has
// grown); the views stay valid while `messages` lives. Headers are not
// read: each view points at its message (message_view::consumed), and the
// producer copies an emitted record's headers from there. The one place a
// consumed rd_kafka_message_t is read, besides that copy.
void view_messages(std::span<const message_ptr> messages, std::vector<message_view>& views);

// Whether librdkafka `version` (rd_kafka_version()'s encoding) is one whose
// batch consume call is used: 2.1.0 and later (see consumer::drain).
constexpr bool batch_consume_is_safe(int version) noexcept { return version >= 0x020100ff; }
// Whether librdkafka `version` knows fetch.queue.backoff.ms (2.2.0 and
// later), which the consumer then sets (see consumer::create).
constexpr bool has_fetch_queue_backoff(int version) noexcept { return version >= 0x020200ff; }

class consumer {
 public:
  // Creates the client (no network I/O yet). `user` holds bootstrap.servers
  // and the user's -X / --config settings; an engine-owned key in it is an
  // error naming that key. `group_instance_id` makes the member static
  // (KIP-345) when `member` asks for it under the protocol `user` chose
  // (is_static); empty, the member is dynamic whatever `member` says.
  static config_result<std::unique_ptr<consumer>> create(boost::asio::any_io_executor ex,
                                                         std::string group_id, std::string group_instance_id,
                                                         const settings& user,
                                                         membership member = membership::automatic);

  consumer(const consumer&) = delete;
  consumer& operator=(const consumer&) = delete;
  // If async_close() did not complete, destroys the handle WITHOUT leaving the
  // group (the terminal path: the group notices after session.timeout.ms);
  // never blocks on the network.
  ~consumer();
  // How many handles this process left to its exit (a member destroyed
  // between its JoinGroup and its first assignment: see ~consumer()). Their
  // threads run until the process ends, so a program that sees one ends
  // with _Exit once its output is flushed: the static destructors that exit
  // runs would pull state from under them (a crash at exit, seen as
  // SIGSEGV after "stopped cleanly").
  static std::size_t left_to_exit() noexcept;

  error_report subscribe(const std::vector<std::string>& topics);

  // Up to `max` messages, or the errors/rebalance that interrupted them; waits
  // (without polling timers) until at least one item is available.
  //
  // Completion: co_return result<poll_batch>; error: operation_aborted when
  //   cancelled, errc::closed after async_close.
  // Completes on: the awaiting coroutine's executor.
  // Cancellation: the waiting part honours the coroutine's cancellation
  //   (terminal by default); nothing is consumed when it is cancelled.
  // On error: no message is lost; polling again resumes where it was.
  boost::asio::awaitable<boost::system::result<poll_batch>> async_poll_batch(std::size_t max);

  // What is ready right now, up to `max`: the same items, order and batch
  // ends as async_poll_batch, but an empty batch instead of a wait. No
  // coroutine, no timer: the engine takes queued records this way and awaits
  // async_poll_batch only when nothing is ready.
  // Error: errc::closed after async_close. Never blocks.
  boost::system::result<poll_batch> try_poll_batch(std::size_t max);

  // Waits until something may be ready, and consumes nothing: for a wait
  // raced against another (`||`), whose loser's result is thrown away. A
  // batch drained inside the race and lost there would skip its records
  // (librdkafka's position has moved past them) or leave a rebalance
  // unacknowledged; waiting alone loses nothing. Call it only right after a
  // try_poll_batch that came back empty (the queue was empty, so the next
  // enqueue writes the eventfd), then try_poll_batch again; the batch may
  // be empty after a wake-up (an event librdkafka served itself).
  // Error: operation_aborted when cancelled, errc::closed after async_close.
  boost::asio::awaitable<boost::system::error_code> async_wait_ready();

  // Acknowledge a rebalance_event. `offsets` may carry the start offset per
  // partition (absolute, RD_KAFKA_OFFSET_BEGINNING/END) or no_offset for
  // "the committed offset". Non-blocking.
  error_report incremental_assign(const std::vector<partition_offset>& offsets);
  error_report incremental_unassign(const std::vector<topic_partition>& partitions);
  kafka_result<std::vector<topic_partition>> assignment() const;

  // Committed offsets of the group (nullopt where none). Blocking call run
  // on the consumer's pool, bounded by `timeout`.
  // Completion: co_return kafka_result<vector<partition_offset>>; completes on
  //   the awaiting coroutine's executor; cancellation not honoured (bounded
  //   by `timeout` instead); on error nothing changes.
  boost::asio::awaitable<kafka_result<std::vector<committed_offset>>> async_committed(
      std::vector<topic_partition> partitions, std::chrono::milliseconds timeout);

  // Moves the fetch position of assigned partitions (the rewind after an
  // abort). Messages fetched before the seek are discarded by librdkafka.
  // Completion: co_return error_report (per-partition errors name the
  //   partition); completes on the awaiting coroutine's executor; not
  //   cancellable (a local operation, quick); on error positions may be
  //   partly moved: rewinding again is safe.
  boost::asio::awaitable<error_report> async_seek(std::vector<partition_offset> offsets);

  // Log start and end offsets of one partition, from the broker.
  // Completion: co_return kafka_result<watermarks>; completes on the awaiting
  //   coroutine's executor; bounded by `timeout`, not cancellable.
  boost::asio::awaitable<kafka_result<watermarks>> async_query_watermarks(topic_partition partition,
                                                                          std::chrono::milliseconds timeout);

  // The partition's log start and end offsets as the last fetch response
  // said, without asking the broker (non-blocking): for the lag. Each is
  // nullopt until the partition has been fetched from.
  struct known_watermarks {
    std::optional<std::int64_t> low;   // where a partition read from the earliest offset starts
    std::optional<std::int64_t> high;  // the end offset
  };
  known_watermarks cached_watermarks(const topic_partition& partition) const;
  // The offset after the last one the application has been handed or
  // librdkafka skipped for it (commit markers, aborted records), without
  // asking the broker (non-blocking). nullopt before the partition's first.
  std::optional<std::int64_t> position(const topic_partition& partition) const;

  // Leaves the group explicitly (revoking and unassigning what we own, as the
  // engine has finished its transaction by now) and stops fetching. A static
  // member of the classic protocol leaves too: librdkafka sends no
  // LeaveGroup for one that closes (KIP-345), so it first unsubscribes,
  // which does send it, and closes once the leave is under way.
  // Completion: co_return error_report; completes on the awaiting coroutine's
  //   executor; not cancellable (bounded by session.timeout.ms inside
  //   librdkafka); on error the consumer is closed anyway.
  // Don't call async_poll_batch concurrently or afterwards.
  boost::asio::awaitable<error_report> async_close();

  // For send_offsets_to_transaction: the group's generation and member id, so
  // the broker rejects offsets from a member that was rebalanced out (KIP-447).
  group_metadata_ptr group_metadata() const;

  rd_kafka_t* native_handle() const noexcept { return rk_.get(); }

 private:
  consumer() = default;
  static void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                           rd_kafka_topic_partition_list_t* partitions, void* opaque);
  static void on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  poll_batch drain(std::size_t max);
  poll_batch drain_one_by_one(std::size_t max, poll_batch batch);
  void take(message_ptr m, poll_batch& batch);
  void add_pending(poll_batch& batch);

  kafka_ptr rk_;
  boost::asio::thread_pool blocking_{1};
  std::optional<queue_waker> waker_;
  // The consumer queue (the main queue is forwarded to it), read a batch
  // per call where librdkafka's batch call is safe; fetched_ is that call's
  // output array, kept so a batch allocates nothing of ours beyond the
  // batch's own vector.
  queue_ptr queue_;
  bool batch_consume_ = false;
  std::vector<rd_kafka_message_t*> fetched_;
  std::deque<rebalance_event> pending_rebalances_;
  std::vector<consumer_error> pending_errors_;
  // Set before rd_kafka_consumer_close runs on the pool: from then on the
  // rebalance callback acknowledges revokes itself (on the pool thread) since
  // nobody polls any more. Written before the post, read after it: the post
  // orders the two.
  bool closing_ = false;
  bool closed_ = false;
  // Subscribed, and whether an assignment ever arrived: see ~consumer().
  bool subscribed_ = false;
  bool assigned_once_ = false;
  // A static member (group.instance.id) of the classic protocol: see
  // async_close.
  bool static_classic_ = false;
};

}  // namespace streamt::kafka
