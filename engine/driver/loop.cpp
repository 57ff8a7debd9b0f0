// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The loop: ask the session, perform its action, feed the outcome back, from
// the first start-up step to close. Every decision is the session's; the
// calls the transaction makes are here, the start-up's in start_steps.cpp.

#include "engine/driver/runtime.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <span>
#include <utility>

namespace streamt::engine::driver {

using namespace asio::experimental::awaitable_operators;
using ss::act;

namespace {

// The session's settings, from the run's: the defaults are run_options',
// written once (engine/run_defaults.hpp).
ss::config session_config(const plan::plan& p, const run_options& o) {
  ss::config c;
  c.application_id = p.identity.application_id;
  c.source_topic = p.identity.source_topic;
  c.sink_topics = topics_written(p);
  c.dead_letter_topic = p.identity.dead_letter_topic;
  c.commit_interval = o.commit_interval;
  c.max_records_per_transaction = o.max_records_per_transaction;
  c.stop_timeout = o.stop_timeout;
  c.stall_timeout = o.stall_timeout;
  c.start.bootstrap_servers = o.bootstrap_servers;
  c.start.connect_timeout = o.connect_timeout;
  c.start.cap_batches = o.cap_batches_to_topic_limits;
  c.start.claim_plans = o.claim_plans;
  c.start.changelog = p.schema.changelog;
  c.start.plan_version = p.version;
  if (p.sink.avro) c.start.sink_schema_subject = p.sink.avro->subject;
  c.start.register_sink_schema = o.register_sink_schema;
  if (o.schema_registry) {
    c.registry_backoff = {o.schema_registry->backoff_initial, o.schema_registry->backoff_max};
    c.start.registry_backoff = c.registry_backoff;
  }
  return c;
}

}  // namespace

runtime::runtime(plan::plan p, run_options o, logger lg, transaction_sequence txn, const stop_request& stop)
    : stop_(&stop),
      plan_(std::move(p)),
      options_(std::move(o)),
      log_(std::move(lg)),
      txn_(std::move(txn)),
      stages_(plan_),
      session_(session_config(plan_, options_)),
      metrics_(options_.metrics) {}

asio::awaitable<run_report> runtime::run() {
  // async_run set the coroutine's cancellation filter (recording_filter): it
  // is not reset here or in any nested frame, which would forget a
  // cancellation already emitted. Child coroutines check stop_ instead.
  co_await asio::this_coro::throw_if_cancelled(false);
  ex_ = co_await asio::this_coro::executor;
  co_await loop();
  co_await stop_delivery_reports();
  // Read once the delivery reports are all in: a fatal producer error
  // reported last still decides the outcome.
  co_return finish(outcome());
}

bool runtime::stop_news() const noexcept {
  return session_.stop_news_of(stop_->facts()) != ss::stop_news::none;
}

// A stop signal, not a stop on an invalid record (that one still wants its
// records before it committed, so it waits for the brokers like a run): what
// cuts a wait for the brokers short.
bool runtime::stop_asked() const noexcept { return session_.stop().signalled() || stop_->requested(); }

// The whole driver. A stop recorded by async_run's filter is fed before
// every action, whatever the run was awaiting when it came (a blocking call
// ignores cancellation; a cancellation signal alone is emitted once).
asio::awaitable<void> runtime::loop() {
  ss::action a = session_.on(ss::starting{});
  for (;;) {
    if (stop_news()) {
      a = session_.on(ss::stop_seen{stop_->facts(), steady_clock::now()});
      metrics_->stopping();
    }
    log_decision(a);
    switch (a.kind) {
      // start-up (start_steps.cpp)
      case act::prepare:
        a = session_.on(prepare());
        break;
      case act::list_topics: {
        auto op = list_topics(a.slice);
        auto outcome = co_await std::move(op);
        a = session_.on(std::move(outcome));
        break;
      }
      case act::together: {
        auto op = together(std::move(a.steps));
        auto outcome = co_await std::move(op);
        a = session_.on(std::move(outcome));
        break;
      }
      case act::cap_batches:
      case act::init_transactions:
      case act::create_plan_log:
      case act::read_plan_log:
      case act::append_claim: {
        // The steps of a together round; one alone is a round of one.
        auto op = together({std::move(a)});
        auto outcome = co_await std::move(op);
        a = session_.on(std::move(outcome));
        break;
      }
      case act::register_schema: {
        auto op = register_sink_schema(std::move(a));
        a = co_await std::move(op);
        break;
      }
      case act::commit_state:
        a = session_.on(commit_state());
        break;
      case act::subscribe:
        a = session_.on(subscribe());
        break;
      // the run
      case act::poll: {
        auto op = poll(std::move(a));
        a = co_await std::move(op);
        break;
      }
      case act::begin:
        txn_.set(txn_.get() + 1);
        a = session_.on(ss::began{failure_of(producer_->begin_transaction()), steady_clock::now()});
        break;
      case act::produce:
        a = produce(a);
        break;
      case act::dead_letter:
        sink_->dead_letter(session_.batch().front(), *a.dead);
        a = session_.on(ss::dead_lettered{steady_clock::now()});
        break;
      case act::fetch_schema: {
        auto op = fetch_schema(std::move(a));
        a = co_await std::move(op);
        break;
      }
      case act::learn_schema:
      case act::forget_schema:
        a = learn_schema(a);
        break;
      case act::flush: {
        // Every delivery report of the transaction, before its offsets go
        // (see aborted_tail.hpp).
        auto op = producer_->async_flush(std::chrono::seconds(30));
        kafka::error_report e = co_await std::move(op);
        a = session_.on(ss::flushed{failure_of(e)});
        break;
      }
      case act::send_offsets: {
        auto op = send_offsets();
        a = co_await std::move(op);
        break;
      }
      case act::commit: {
        auto op = commit(std::move(a));
        a = co_await std::move(op);
        break;
      }
      case act::abort: {
        auto op = abort(std::move(a));
        a = co_await std::move(op);
        break;
      }
      case act::rewind: {
        const std::uint64_t before = session_.counters().rewinds;
        auto op = rewind(a.partitions);
        ss::rewound r = co_await std::move(op);
        r.cut_short_by_stop = r.result.failed() && stop_asked();
        a = session_.on(std::move(r));
        if (session_.counters().rewinds != before) metrics_->rewound();
        break;
      }
      case act::retry_after: {
        auto op = retry_after(std::move(a));
        a = co_await std::move(op);
        break;
      }
      case act::give_up:
        a = give_up(a);
        break;
      case act::close: {
        auto op = close(std::move(a));
        co_await std::move(op);
        co_return;
      }
    }
  }
}

// Takes records, or what the last poll brought besides them (consumer
// errors, a rebalance), which the session hears once its records are
// produced.
asio::awaitable<ss::action> runtime::poll(ss::action a) {
  if (held_ && !held_->errors.empty()) {
    std::vector<kafka::consumer_error> errors = std::exchange(held_->errors, {});
    for (const kafka::consumer_error& e : errors)
      if (std::optional<ss::run_failed> f = on_consumer_error(e)) co_return session_.on(std::move(*f));
  }
  if (held_ && held_->rebalance) {
    kafka::rebalance_event ev = std::move(*held_->rebalance);
    held_->rebalance.reset();
    auto op = on_rebalance(std::move(ev));
    ss::action next = co_await std::move(op);
    co_return next;
  }
  held_.reset();
  views_.clear();
  const auto ex = co_await asio::this_coro::executor;
  // Records already queued are taken as they are: racing a poll against the
  // commit deadline (two child coroutines and a timerfd_settime per batch)
  // cost ~11% of the engine's CPU in a backlog.
  boost::system::result<kafka::poll_batch> polled = consumer_->try_poll_batch(a.max_records);
  if (polled && !polled->empty()) {
    // One turn of the io_context between batches: delivery reports and
    // signals are served by other handlers, and a backlog would otherwise
    // keep this loop from suspending until the commit (queue.buffering
    // filling up with unserved delivery reports if that takes long).
    auto turn = asio::post(ex, asio::use_awaitable);
    co_await std::move(turn);
  } else if (polled && a.commit_at) {
    // Wait for records, or for the open transaction's commit deadline.
    asio::steady_timer commit_timer(ex, *a.commit_at);
    // The race only waits: what is ready is taken after it, so nothing
    // drained is thrown away with the loser (see async_wait_ready).
    auto either = co_await (ready_accepting_total() || deadline_accepting_total(commit_timer));
    if (either.index() == 1) {
      const auto [ec] = std::get<1>(either);
      if (!ec) co_return session_.on(ss::commit_due{});
      co_return a;  // a stop: the loop feeds it
    }
    if (const boost::system::error_code ec = std::get<0>(either)) {
      polled = ec;
    } else {
      polled = consumer_->try_poll_batch(a.max_records);
      if (polled && polled->empty()) co_return a;  // woken for nothing: poll again
    }
  } else if (polled) {
    polled = co_await consumer_->async_poll_batch(a.max_records);
  }
  if (!polled) {
    if (polled.error() == asio::error::operation_aborted) co_return a;  // a stop: the loop feeds it
    co_return session_.on(ss::client_failed{"polling the consumer failed: " + polled.error().message()});
  }
  held_ = std::move(*polled);
  kafka::view_messages(held_->messages, views_);
  if (!views_.empty()) co_return session_.on(ss::records_arrived{views_, steady_clock::now()});
  report_positions();
  co_return a;  // nothing but errors or a rebalance: taken at the next poll
}

// The wait for records inside `||` runs as a child coroutine, which by
// default lets only terminal cancellation in: this one lets the graceful stop
// in too. A stop emitted before this child started never reached it: stop_
// holds it, so the child does not start waiting.
asio::awaitable<boost::system::error_code> runtime::ready_accepting_total() {
  co_await asio::this_coro::reset_cancellation_state(asio::enable_total_cancellation());
  if (stop_news()) co_return boost::system::error_code(asio::error::operation_aborted);
  auto op = consumer_->async_wait_ready();
  const boost::system::error_code ec = co_await std::move(op);
  co_return ec;
}

// The commit deadline inside `||`, a child coroutine too, letting the
// graceful stop in as well. It must: a parallel group forwards only the
// first cancellation it is asked, and its own "the other one completed" is
// one too. A deadline wait that let only terminal cancellation in kept the
// whole `||` (and the stop) waiting for the end of the commit interval after
// the poll was cancelled, and the terminal stop that followed was never
// forwarded (issue 14: exit 75 with a 60 s interval).
asio::awaitable<std::tuple<boost::system::error_code>> runtime::deadline_accepting_total(
    asio::steady_timer& deadline) {
  co_await asio::this_coro::reset_cancellation_state(asio::enable_total_cancellation());
  if (stop_news()) co_return std::tuple{boost::system::error_code(asio::error::operation_aborted)};
  auto op = deadline.async_wait(asio::as_tuple(asio::use_awaitable));
  std::tuple<boost::system::error_code> r = co_await std::move(op);
  co_return r;
}

// Runs the first a.take records of the batch in hand through the stages into
// the producer.
ss::action runtime::produce(const ss::action& a) {
  record_counts counts;
  // The session's batch: the polled records less any it dropped.
  const std::span<const record_view> take = session_.batch().first(a.take);
  sink_->batch_begins();
  batch_result r = process_batch(take, stages_, *sink_, counts);
  return session_.on(ss::batch_produced{std::move(r), counts, steady_clock::now()});
}

asio::awaitable<ss::action> runtime::send_offsets() {
  std::vector<kafka::partition_offset> offsets;
  for (const auto& [p, next] : session_.ledger().pending())
    offsets.push_back({{plan_.identity.source_topic, p.value}, next.value});
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  auto op = producer_->async_send_offsets_to_transaction(std::move(offsets), consumer_->group_metadata(),
                                                         stamp_commit_metadata(lineage_, now.count()));
  kafka::error_report e = co_await std::move(op);
  co_return session_.on(ss::offsets_sent{failure_of(e)});
}

asio::awaitable<ss::action> runtime::commit(ss::action a) {
  if (a.first_slice) call_began_ = steady_clock::now();
  const auto called = steady_clock::now();
  auto op = producer_->async_commit_transaction(a.slice);
  kafka::error_report e = co_await std::move(op);
  const bool committed = !e.failed();
  ss::action next = session_.on(ss::commit_returned{failure_of(e), called, steady_clock::now()});
  if (committed) {
    const auto took = steady_clock::now() - call_began_;
    log_commit(took);
    report_commit(took);
    if (options_.on_commit) options_.on_commit(progress(run_report{}));
  }
  co_return next;
}

asio::awaitable<ss::action> runtime::abort(ss::action a) {
  const auto called = steady_clock::now();
  auto op = producer_->async_abort_transaction(a.slice);
  kafka::error_report e = co_await std::move(op);
  const bool aborted = !e.failed();
  ss::action next = session_.on(ss::abort_returned{failure_of(e), called, steady_clock::now()});
  if (aborted) metrics_->aborted(session_.last_transaction().consumed);
  co_return next;
}

asio::awaitable<ss::action> runtime::retry_after(ss::action a) {
  if (a.commit_retry) metrics_->commit_retried();
  asio::steady_timer pause(co_await asio::this_coro::executor);
  pause.expires_after(a.delay);
  auto waited = co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
  (void)waited;  // cut short by a stop: the loop feeds it before the next action
  co_return session_.on(ss::retry_elapsed{});
}

ss::action runtime::give_up(const ss::action& a) {
  std::vector<kafka::topic_partition> parts = source_partitions(a.partitions);
  kafka::error_report e = consumer_->incremental_unassign(parts);
  ss::action next = session_.on(ss::given_up{failure_of(e)});
  std::vector<std::pair<std::string, std::int32_t>> gone;
  for (const kafka::topic_partition& tp : parts) gone.emplace_back(tp.topic, tp.partition);
  metrics_->revoked(session_.ledger().owned().size(), gone);
  return next;
}

// Gives up the partitions of a revocation that was ending (librdkafka 2.0.2
// cannot close a consumer with a revocation unacknowledged: consumer_close
// never returns, seen in tools/faults txn_timeout), then leaves the group if
// the session says so (explicitly, so partitions move at once, not after the
// session timeout).
asio::awaitable<void> runtime::close(ss::action a) {
  if (!a.partitions.empty()) {
    if (kafka::error_report e = consumer_->incremental_unassign(source_partitions(a.partitions)); e.failed())
      STREAMT_LOG(log_, warning) << "giving up partitions before stopping: " << e.message;
  }
  // A terminal stop asked for while the graceful one ran counts too.
  if (stop_news()) a = session_.on(ss::stop_seen{stop_->facts(), steady_clock::now()});
  if (a.leave_group) {
    STREAMT_LOG(log_, debug) << "leaving the group";
    kafka::error_report e = co_await consumer_->async_close();
    STREAMT_LOG(log_, debug) << "left the group";
    if (e.failed()) STREAMT_LOG(log_, warning) << "leaving the group: " << e.message;
  }
}

}  // namespace streamt::engine::driver
