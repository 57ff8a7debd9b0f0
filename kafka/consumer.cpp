// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/consumer.hpp"

#include "kafka/blocking_call.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

namespace streamt::kafka {
namespace {

std::atomic<std::size_t> handles_left_to_exit{0};

bool cooperative(rd_kafka_t* rk) { return std::strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0; }

// Acknowledges a rebalance without the engine: only used while closing, when
// the engine has already finished its transaction.
void acknowledge_during_close(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                              rd_kafka_topic_partition_list_t* parts) {
  if (cooperative(rk)) {
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      error_ptr e(rd_kafka_incremental_assign(rk, parts));
      return;
    }
    // Only what is still assigned: the engine may have given partitions up
    // already (a stop that came before the first assignment takes it and
    // gives it back), and librdkafka refuses an unassign naming one it
    // does not hold, and then never finishes the revocation: the leave of a
    // static member (async_close) waited out its bound, and the close
    // never returned (stop_signals). An empty list still acknowledges.
    rd_kafka_topic_partition_list_t* held = nullptr;
    partition_list_ptr still(rd_kafka_topic_partition_list_new(parts->cnt));
    if (rd_kafka_assignment(rk, &held) == RD_KAFKA_RESP_ERR_NO_ERROR && held) {
      partition_list_ptr owned(held);
      for (int i = 0; i < parts->cnt; ++i)
        if (rd_kafka_topic_partition_list_find(owned.get(), parts->elems[i].topic, parts->elems[i].partition))
          rd_kafka_topic_partition_list_add(still.get(), parts->elems[i].topic, parts->elems[i].partition);
    }
    error_ptr e(rd_kafka_incremental_unassign(rk, still.get()));
  } else {
    rd_kafka_assign(rk, err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS ? parts : nullptr);
  }
}

// Repeats a bare-code query while it fails transiently, until `timeout` is
// spent. After a broker restart or pause the cached metadata still names the
// old leader for a while, and a watermark query answers
// NOT_LEADER_FOR_PARTITION: taken as final, that stopped the engine with exit
// 69 in the middle of a rebalance (tools/faults broker_pause). It runs on the
// blocking pool, so the waits between attempts never hold the io_context.
template <class Query>
rd_kafka_resp_err_t retry_transient(Query query, std::chrono::milliseconds timeout) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + timeout;
  std::chrono::milliseconds backoff{100};
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    const rd_kafka_resp_err_t err = query(std::max(left, std::chrono::milliseconds{1}));
    if (!is_transient_code(err) || clock::now() + backoff >= deadline) return err;
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds{1000});
  }
}

}  // namespace

config_result<std::unique_ptr<consumer>> consumer::create(boost::asio::any_io_executor ex,
                                                          std::string group_id, std::string group_instance_id,
                                                          const settings& user, membership member) {
  auto protocol = group_protocol_of(user);
  if (!protocol) return protocol.error();
  if (!is_static(member, *protocol)) group_instance_id.clear();
  settings engine{
      {"group.id", std::move(group_id)}, {"isolation.level", "read_committed"},
      {"enable.auto.commit", "false"},   {"enable.auto.offset.store", "false"},
      {"auto.offset.reset", "error"},    {"enable.partition.eof", "false"},
  };
  // The classic protocol's assignor runs in the group's leader: ours. With
  // KIP-848's the broker assigns, incrementally too, and librdkafka refuses
  // the key.
  if (*protocol == group_protocol::classic)
    engine.push_back({"partition.assignment.strategy", "cooperative-sticky"});
  const bool static_classic = !group_instance_id.empty() && *protocol == group_protocol::classic;
  if (!group_instance_id.empty()) engine.push_back({"group.instance.id", std::move(group_instance_id)});
  // fetch.queue.backoff.ms (librdkafka 2.2.0 and later, 1000 by default):
  // how long a partition waits to be fetched again once the prefetch queue
  // is over queued.min.messages or queued.max.messages.kbytes. A backlog
  // fills that queue in milliseconds, so with 1000 the consumer stood idle
  // most of each second while the engine, done with its batch, waited:
  // 50 took the engine from about 200k to 600k records/s at 10 % pass on
  // this bench machine, with the same CPU per record and memory
  // (bench/README.md, issue 16). Earlier versions back off a fixed second
  // and refuse the key, so it is set only where it exists. A user's -X wins.
  settings defaults;
  if (has_fetch_queue_backoff(rd_kafka_version())) defaults.push_back({"fetch.queue.backoff.ms", "50"});
  // heartbeat.interval.ms (3000 by default): a member learns of a
  // rebalance at its next heartbeat, so when an instance stops or joins,
  // the others gave up and took partitions up to 3 s later, twice over with
  // the cooperative protocol's two rounds. 1000 took a scale-in from about
  // 3 s to about 1 s (docs/operations.md, "Group membership"), for one small
  // request a second to the coordinator. KIP-848's protocol takes the
  // interval from the broker and refuses the key. A user's -X wins.
  if (*protocol == group_protocol::classic) defaults.push_back({"heartbeat.interval.ms", "1000"});
  auto conf = build_conf(engine, user, defaults);
  if (!conf) return conf.error();

  std::unique_ptr<consumer> self(new consumer());
  self->static_classic_ = static_classic;
  rd_kafka_conf_set_opaque(conf->get(), self.get());
  rd_kafka_conf_set_rebalance_cb(conf->get(), &consumer::on_rebalance);
  rd_kafka_conf_set_error_cb(conf->get(), &consumer::on_error);

  char errstr[512] = {};
  // rd_kafka_new takes over the conf only on success.
  self->rk_.reset(rd_kafka_new(RD_KAFKA_CONSUMER, conf->get(), errstr, sizeof errstr));
  if (!self->rk_)
    return config_error{errc::client_creation_failed, {}, 0, std::string("consumer: ") + errstr};
  (void)conf->release();

  if (const auto err = rd_kafka_poll_set_consumer(self->rk_.get()); err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return config_error{
        errc::client_creation_failed, {}, 0, std::string("consumer: ") + rd_kafka_err2str(err)};
  }
  self->queue_.reset(rd_kafka_queue_get_consumer(self->rk_.get()));
  self->batch_consume_ = batch_consume_is_safe(rd_kafka_version());
  auto waker = queue_waker::create(std::move(ex), queue_ptr(rd_kafka_queue_get_consumer(self->rk_.get())));
  if (!waker)
    return config_error{errc::client_creation_failed, {}, 0, "consumer: " + waker.error().message()};
  self->waker_.emplace(std::move(*waker));
  return self;
}

std::size_t consumer::left_to_exit() noexcept { return handles_left_to_exit.load(std::memory_order_relaxed); }

consumer::~consumer() {
  // Order matters: the waker drops its queue reference and disables the
  // eventfd, the pool finishes any blocking call that uses the handle, and
  // only then the handle goes.
  waker_.reset();
  queue_.reset();
  blocking_.join();
  if (rk_ && subscribed_ && !assigned_once_ && (!closed_ || rd_kafka_version() < 0x020300ff)) {
    // A member between its JoinGroup and its first assignment cannot be
    // destroyed without closing it: librdkafka before 2.3.0 fails an
    // assertion (SIGABRT, librdkafka issue 4312: a SIGTERM right after
    // start-up ended a clean stop that way in the tools/faults restarts
    // soak), and later versions never return from rd_kafka_destroy (its
    // main thread spins in rd_kafka_cgrp_try_terminate; seen with 2.15.1
    // in about one stop in twenty, 5 ms after the group was joined). And
    // closing it waits for a LeaveGroup the coordinator queues behind that
    // JoinGroup. So such a handle is left to the process's exit (an
    // embedding application keeps its threads until then); the group
    // expires the member after session.timeout.ms. Before 2.3.0 even a
    // closed one is (the assertion does not ask whether it was closed).
    (void)rk_.release();
    handles_left_to_exit.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (rk_ && !closed_) rd_kafka_destroy_flags(rk_.release(), RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
}

void consumer::on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                            rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  auto* self = static_cast<consumer*>(opaque);
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) self->assigned_once_ = true;
  if (self->closing_) {
    acknowledge_during_close(rk, err, partitions);
    return;
  }
  if (err != RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS && err != RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
    // A rebalance failure (e.g. an assignor error): librdkafka expects the
    // assignment to be dropped; the engine sees the error and stops.
    self->pending_errors_.push_back({report_of(err), std::nullopt, no_offset});
    rd_kafka_assign(rk, nullptr);
    return;
  }
  rebalance_event ev;
  ev.what = err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS ? rebalance_event::kind::assigned
                                                        : rebalance_event::kind::revoked;
  ev.lost = ev.what == rebalance_event::kind::revoked && rd_kafka_assignment_lost(rk) != 0;
  ev.partitions = partitions_of(partitions);
  self->pending_rebalances_.push_back(std::move(ev));
}

namespace {

// A fatal consumer error reaches us as __FATAL, by the error callback or as
// a consumer_poll message; the underlying cause (FENCED_INSTANCE_ID, say) is
// what classification needs, and only rd_kafka_fatal_error has it.
error_report fatal_cause(rd_kafka_t* rk) {
  char buf[512] = {};
  const rd_kafka_resp_err_t code = rd_kafka_fatal_error(rk, buf, sizeof buf);
  return {txn_error_info::fatal_error(code), std::string(rd_kafka_err2name(code)) + " (fatal): " + buf};
}

}  // namespace

void consumer::on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  auto* self = static_cast<consumer*>(opaque);
  auto code = static_cast<rd_kafka_resp_err_t>(err);
  consumer_error e;
  if (code == RD_KAFKA_RESP_ERR__FATAL) {
    e.error = fatal_cause(rk);
  } else {
    // Client-level errors (all brokers down, resolution failures) are
    // informational: librdkafka keeps retrying. We surface them, flagged
    // retriable, so the engine can log them.
    e.error = {txn_error_info::retriable_error(code), std::string(rd_kafka_err2name(code)) + ": " + reason};
  }
  self->pending_errors_.push_back(std::move(e));
}

// One message from librdkafka into the batch: a record, or a consumer error
// (which librdkafka hands over as a message with `err` set).
void consumer::take(message_ptr m, poll_batch& batch) {
  if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    batch.messages.push_back(std::move(m));
    return;
  }
  consumer_error e;
  e.error = report_of(m->err);
  // A consumer error message carries its text as the payload, which is
  // not guaranteed to be NUL-terminated: copy it with its length.
  const std::string text = m->payload != nullptr && m->len > 0
                               ? std::string(static_cast<const char*>(m->payload), m->len)
                               : std::string(rd_kafka_err2str(m->err));
  e.error.message = std::string(rd_kafka_err2name(m->err)) + ": " + text;
  if (m->err == RD_KAFKA_RESP_ERR__FATAL) e.error = fatal_cause(rk_.get());
  if (m->rkt != nullptr) e.partition = topic_partition{rd_kafka_topic_name(m->rkt), m->partition};
  e.offset = m->offset;
  batch.errors.push_back(std::move(e));
}

// The errors the callbacks noted, and the first rebalance they queued.
void consumer::add_pending(poll_batch& batch) {
  for (auto& e : pending_errors_) batch.errors.push_back(std::move(e));
  pending_errors_.clear();
  if (!pending_rebalances_.empty()) {
    batch.rebalance = std::move(pending_rebalances_.front());
    pending_rebalances_.pop_front();
  }
}

poll_batch consumer::drain(std::size_t max) {
  poll_batch batch;
  if (max == 0) return batch;
  if (!batch_consume_) return drain_one_by_one(max, std::move(batch));
  // One call, one queue lock for the whole batch (rd_kafka_consumer_poll
  // takes it, and reads the clock, per message). A rebalance that
  // librdkafka serves during the call runs our callback, which only queues
  // it: nothing is assigned or unassigned until the session acknowledges
  // it, after this batch's records. So every record here belongs to a
  // partition assigned when it was fetched, the revoked ones included: they
  // go into the open transaction, which commits (or, for a lost
  // assignment, aborts) before the partitions are given up. What the
  // consumer hands over after that (offset_ledger::current) the session
  // drops.
  fetched_.resize(max);
  const ssize_t n = rd_kafka_consume_batch_queue(queue_.get(), 0, fetched_.data(), max);
  if (n < 0) {
    batch.errors.push_back({report_of(rd_kafka_last_error()), std::nullopt, no_offset});
  } else {
    batch.messages.reserve(static_cast<std::size_t>(n));
    for (ssize_t i = 0; i < n; ++i) take(message_ptr(fetched_[static_cast<std::size_t>(i)]), batch);
  }
  add_pending(batch);
  return batch;
}

// librdkafka before 2.1.0 (the 2.0.2 floor): its batch call could lose
// messages or return ones of revoked partitions when a rebalance or seek
// ran during it (its CHANGELOG, 2.0.0 known issues; fixed in 2.1.0), so
// the floor takes one message per call and stops at a rebalance or error.
poll_batch consumer::drain_one_by_one(std::size_t max, poll_batch batch) {
  while (batch.messages.size() < max) {
    message_ptr m(rd_kafka_consumer_poll(rk_.get(), 0));
    // Tested before `m` is moved into the batch: whether the queue answered
    // at all decides whether to go on taking records.
    const bool answered = m != nullptr;
    if (answered) take(std::move(m), batch);
    add_pending(batch);
    if (!answered || !batch.errors.empty() || batch.rebalance) break;
  }
  return batch;
}

boost::asio::awaitable<boost::system::result<poll_batch>> consumer::async_poll_batch(std::size_t max) {
  for (;;) {
    if (closing_ || closed_) co_return boost::system::error_code(errc::closed);
    poll_batch batch = drain(max);
    if (!batch.empty()) co_return batch;
    // drain() just saw the queue empty, so the next enqueue writes the eventfd.
    auto [ec] = co_await waker_->async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    if (ec) co_return ec;
  }
}

boost::asio::awaitable<boost::system::error_code> consumer::async_wait_ready() {
  if (closing_ || closed_) co_return boost::system::error_code(errc::closed);
  auto [ec] = co_await waker_->async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
  co_return ec;
}

boost::system::result<poll_batch> consumer::try_poll_batch(std::size_t max) {
  if (closing_ || closed_) return boost::system::error_code(errc::closed);
  return drain(max);
}

error_report consumer::subscribe(const std::vector<std::string>& topics) {
  partition_list_ptr list(rd_kafka_topic_partition_list_new(static_cast<int>(topics.size())));
  for (const auto& t : topics)
    rd_kafka_topic_partition_list_add(list.get(), t.c_str(), RD_KAFKA_PARTITION_UA);
  subscribed_ = true;
  return report_of(rd_kafka_subscribe(rk_.get(), list.get()));
}

error_report consumer::incremental_assign(const std::vector<partition_offset>& offsets) {
  const auto list = to_list(offsets);
  return take_error(rd_kafka_incremental_assign(rk_.get(), list.get()));
}

error_report consumer::incremental_unassign(const std::vector<topic_partition>& partitions) {
  const auto list = to_list(partitions);
  return take_error(rd_kafka_incremental_unassign(rk_.get(), list.get()));
}

kafka_result<std::vector<topic_partition>> consumer::assignment() const {
  rd_kafka_topic_partition_list_t* raw = nullptr;
  if (const auto err = rd_kafka_assignment(rk_.get(), &raw); err != RD_KAFKA_RESP_ERR_NO_ERROR)
    return report_of(err);
  const partition_list_ptr list(raw);
  return partitions_of(list.get());
}

boost::asio::awaitable<kafka_result<std::vector<committed_offset>>> consumer::async_committed(
    std::vector<topic_partition> partitions, std::chrono::milliseconds timeout) {
  rd_kafka_t* rk = rk_.get();
  auto op = detail::run_blocking<kafka_result<std::vector<committed_offset>>>(
      blocking_.get_executor(),
      [rk, partitions = std::move(partitions), timeout]() -> kafka_result<std::vector<committed_offset>> {
        const auto list = to_list(partitions);
        const auto err = retry_transient(
            [&](std::chrono::milliseconds left) {
              const auto err = rd_kafka_committed(rk, list.get(), static_cast<int>(left.count()));
              // A partition still covered by an open transaction's offsets
              // answers UNSTABLE_OFFSET_COMMIT on its own: wait for it too.
              if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return err;
              for (int i = 0; i < list->cnt; ++i)
                if (is_transient_code(list->elems[i].err)) return list->elems[i].err;
              return err;
            },
            timeout);
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return report_of(err);
        if (auto e = first_partition_error(list.get()); e.failed()) return e;
        return committed_of(list.get());
      });
  co_return co_await std::move(op);
}

boost::asio::awaitable<error_report> consumer::async_seek(std::vector<partition_offset> offsets) {
  rd_kafka_t* rk = rk_.get();
  auto op = detail::run_blocking<error_report>(
      blocking_.get_executor(), [rk, offsets = std::move(offsets)]() -> error_report {
        const auto list = to_list(offsets);
        if (auto e = take_error(rd_kafka_seek_partitions(rk, list.get(), -1)); e.failed()) return e;
        return first_partition_error(list.get());
      });
  co_return co_await std::move(op);
}

boost::asio::awaitable<kafka_result<watermarks>> consumer::async_query_watermarks(
    topic_partition partition, std::chrono::milliseconds timeout) {
  rd_kafka_t* rk = rk_.get();
  auto op = detail::run_blocking<kafka_result<watermarks>>(
      blocking_.get_executor(),
      [rk, partition = std::move(partition), timeout]() -> kafka_result<watermarks> {
        watermarks w;
        const auto err = retry_transient(
            [&](std::chrono::milliseconds left) {
              return rd_kafka_query_watermark_offsets(rk, partition.topic.c_str(), partition.partition,
                                                      &w.low, &w.high, static_cast<int>(left.count()));
            },
            timeout);
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return report_of(err);
        return w;
      });
  co_return co_await std::move(op);
}

consumer::known_watermarks consumer::cached_watermarks(const topic_partition& partition) const {
  std::int64_t low = RD_KAFKA_OFFSET_INVALID, high = RD_KAFKA_OFFSET_INVALID;
  if (rd_kafka_get_watermark_offsets(rk_.get(), partition.topic.c_str(), partition.partition, &low, &high) !=
      RD_KAFKA_RESP_ERR_NO_ERROR)
    return {};
  const auto known = [](std::int64_t v) { return v < 0 ? std::nullopt : std::optional<std::int64_t>(v); };
  return {known(low), known(high)};
}

std::optional<std::int64_t> consumer::position(const topic_partition& partition) const {
  partition_list_ptr list = to_list(std::vector<topic_partition>{partition});
  if (rd_kafka_position(rk_.get(), list.get()) != RD_KAFKA_RESP_ERR_NO_ERROR || list->cnt != 1 ||
      list->elems[0].err != RD_KAFKA_RESP_ERR_NO_ERROR || list->elems[0].offset < 0)
    return std::nullopt;
  return list->elems[0].offset;
}

namespace {

// Has a static member of the classic protocol leave the group before it
// closes. librdkafka's close sends no LeaveGroup for a static member (a
// restart is meant to take its partitions back), so a stopped instance kept
// its partitions idle for session.timeout.ms (45 s), and scaling in waited
// that long. Unsubscribing does send it once the revocation is acknowledged
// (here, by acknowledge_during_close), and the close then waits for its
// answer. A process that dies without a stop sends nothing, so a restart
// from the same state directory still takes its partitions back at once.
// Bounded: at most `bound` spent serving the revocation; a leave not under
// way by then is left to the close, which sends none (the old behaviour).
void leave_as_static_member(rd_kafka_t* rk, std::chrono::milliseconds bound) {
  if (rd_kafka_unsubscribe(rk) != RD_KAFKA_RESP_ERR_NO_ERROR) return;
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (std::chrono::steady_clock::now() < deadline) {
    // Serves the revocation; a record fetched meanwhile is dropped unread:
    // the engine committed what it processed, and the next owner starts there.
    if (rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 20)) rd_kafka_message_destroy(m);
    // librdkafka clears the member id as it sends the LeaveGroup.
    char* id = rd_kafka_memberid(rk);
    const bool leaving = id == nullptr || *id == '\0';
    if (id) rd_kafka_mem_free(rk, id);
    if (leaving) return;
  }
}

}  // namespace

boost::asio::awaitable<error_report> consumer::async_close() {
  closing_ = true;
  rd_kafka_t* rk = rk_.get();
  // Only a member that got partitions once: one still between its JoinGroup
  // and its first assignment has its close wait behind that JoinGroup
  // (see ~consumer()), and owns nothing to hand over.
  const bool leave_first = static_classic_ && assigned_once_;
  auto op = detail::run_blocking<error_report>(blocking_.get_executor(), [rk, leave_first]() -> error_report {
    if (leave_first) leave_as_static_member(rk, std::chrono::seconds(5));
    return report_of(rd_kafka_consumer_close(rk));
  });
  auto result = co_await std::move(op);
  closed_ = true;
  co_return result;
}

group_metadata_ptr consumer::group_metadata() const {
  return group_metadata_ptr(rd_kafka_consumer_group_metadata(rk_.get()));
}

void view_messages(std::span<const message_ptr> messages, std::vector<message_view>& views) {
  views.clear();
  views.reserve(messages.size());
  for (const message_ptr& mp : messages) {
    const rd_kafka_message_t* m = mp.get();
    message_view v;
    v.topic = rd_kafka_topic_name(m->rkt);
    v.partition = m->partition;
    v.offset = m->offset;
    if (m->key) v.key = std::string_view(static_cast<const char*>(m->key), m->key_len);
    // librdkafka gives a null payload pointer only for a null value; an
    // empty value has a pointer and length 0 (and is invalid, not a tombstone).
    if (m->payload) v.value = std::string_view(static_cast<const char*>(m->payload), m->len);
    rd_kafka_timestamp_type_t ts_type;
    const std::int64_t ts = rd_kafka_message_timestamp(m, &ts_type);
    if (ts_type != RD_KAFKA_TIMESTAMP_NOT_AVAILABLE) v.timestamp = ts;
    v.consumed = as_consumed(m);
    views.push_back(v);
  }
}

}  // namespace streamt::kafka
