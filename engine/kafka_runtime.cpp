// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/kafka_runtime.hpp"

#include "engine/aborted_tail.hpp"
#include "engine/commit_machine.hpp"
#include "engine/log.hpp"
#include "engine/state_dir.hpp"
#include "kafka/config.hpp"
#include "kafka/consumer.hpp"
#include "kafka/producer.hpp"
#include "operators/stage_pipeline.hpp"
#include "plan/plan_json.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <tuple>
#include <variant>

namespace streamt::engine {
namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using std::chrono::steady_clock;

exit_code exit_code_of(run_status s) noexcept {
  switch (s) {
    case run_status::stopped:
      return exit_code::ok;
    case run_status::invalid_record:
      return exit_code::invalid_record;
    case run_status::unavailable:
      return exit_code::unavailable;
    case run_status::failed:
    case run_status::fenced:
      return exit_code::temporary_failure;
    case run_status::rejected_config:
      return exit_code::config;
    case run_status::state_dir:
      return exit_code::cannot_write;
  }
  return exit_code::internal;
}

namespace {

// An error no retry can cure for this record: the sink will never accept it
// (larger than the topic's max.message.bytes or the client's
// message.max.bytes, or refused as invalid). Aborting and replaying it would
// loop forever, so it stops the engine like an invalid input record.
bool unproducible(rd_kafka_resp_err_t code) noexcept {
  return code == RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE || code == RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE ||
         code == RD_KAFKA_RESP_ERR_INVALID_RECORD;
}

// The input record whose output the sink refused for good.
struct unproducible_record {
  std::int32_t partition = 0;
  std::int64_t offset = 0;
  std::size_t size = 0;  // of the output value
  std::string reason;
};

// The producer side of process_batch(): each output record goes to the sink
// topic with the input's key, timestamp and headers. A record librdkafka
// refuses at once (queue full, too large) fails the transaction: the first
// such error is kept and handled as an abortable failure after the batch.
// Each output carries an opaque naming its input record (transaction
// generation in the high half, so a late report of an aborted transaction
// is never taken for a record of the current one; index in the low half).
class kafka_sink {
 public:
  kafka_sink(kafka::producer& p, std::string topic) : producer_(&p), topic_(std::move(topic)) {}

  void new_transaction() {
    ++generation_;
    sources_.clear();
  }

  void emit(const record_view& in, std::string_view value) {
    headers_.clear();
    for (const header_view& h : in.headers) headers_.push_back({h.name, h.value});
    kafka::outgoing_record out;
    out.key = in.key;
    out.value = value;
    out.headers = headers_;
    out.timestamp_ms = in.timestamp.value_or(0);
    out.opaque = (std::uint64_t{generation_} << 32) | sources_.size();
    sources_.push_back({in.partition, in.offset, value.size(), {}});
    kafka::error_report e = producer_->produce(topic_, out);
    if (e.failed() && unproducible(e.info.code)) note_unproducible(sources_.back(), e.message);
    if (e.failed() && !error_) error_ = std::move(e);
  }

  // A failed delivery report: remember its input record if no retry can help.
  void on_failed_delivery(const kafka::delivery_report& d) {
    if (!unproducible(d.error.info.code) || (d.opaque >> 32) != generation_) return;
    const std::size_t index = d.opaque & 0xffffffffu;
    if (index < sources_.size()) note_unproducible(sources_[index], d.error.message);
  }

  // A record written: see aborted_tail.hpp. Every report of a transaction
  // is polled before its commit or abort returns, so a report of an earlier
  // generation does not occur; it is ignored rather than misfiled.
  void on_delivered(const kafka::delivery_report& d) {
    if ((d.opaque >> 32) != generation_) return;
    if (std::optional<std::string> s = tail_.delivered(d.partition.partition, d.offset); s && !trailing_)
      trailing_ = std::move(s);
  }
  void transaction_aborted() {
    tail_.aborted();
    trailing_.reset();  // the abort just written ends that record too
  }
  void transaction_committed() { tail_.committed(); }
  // Whether a commit must first wait for every delivery report (flush): a
  // record landing right behind an aborted one is found only in its report.
  bool commit_needs_reports() const noexcept { return tail_.armed(); }
  std::optional<std::string> take_trailing() { return std::exchange(trailing_, std::nullopt); }

  std::optional<kafka::error_report> take_error() { return std::exchange(error_, std::nullopt); }
  const std::optional<unproducible_record>& unproducible_found() const { return unproducible_; }
  const std::string& topic() const { return topic_; }

 private:
  // The broker refuses a whole batch when it is too large, so every record
  // of it reports the error: the largest of them is the one to blame.
  void note_unproducible(unproducible_record r, const std::string& reason) {
    if (unproducible_ && unproducible_->size >= r.size) return;
    r.reason = reason;
    unproducible_ = std::move(r);
  }

  kafka::producer* producer_;
  std::string topic_;
  std::vector<kafka::header_view> headers_;
  std::optional<kafka::error_report> error_;
  std::uint32_t generation_ = 0;
  std::vector<unproducible_record> sources_;  // input record of each output of the transaction
  std::optional<unproducible_record> unproducible_;
  aborted_tail tail_;
  std::optional<std::string> trailing_;  // a record of an aborted transaction inside the open one
};

std::string describe(const kafka::topic_partition& tp) {
  return tp.topic + "/" + std::to_string(tp.partition);
}

// A stop asked for, as a fact: every stop signal that reaches async_run's
// coroutine is recorded here by the cancellation filter itself, at the
// moment it is emitted, whatever the coroutine is awaiting then (a blocking
// librdkafka call, a child coroutine not started yet) and however often the
// cancellation state is reset afterwards. The runtime checks it when each
// child coroutine starts and before each wait; a cancellation signal alone
// is emitted once and lost if nothing cancellable is waiting.
struct stop_request {
  asio::cancellation_type seen = asio::cancellation_type::none;
  // run_options::stop_timeout passed since the graceful stop (async_run's
  // stop deadline sets it, with a terminal stop): whatever is still under
  // way (a commit, an abort) is left to the broker.
  bool deadline = false;
  bool requested() const noexcept { return seen != asio::cancellation_type::none; }
  bool terminal() const noexcept {
    return (seen & asio::cancellation_type::terminal) != asio::cancellation_type::none;
  }
};

// The cancellation filter of async_run's coroutine: lets terminal, partial
// and total cancellation in (as enable_total_cancellation does) and records
// each one in the stop request, which lives in async_run's frame (async_run
// detaches the filter before it returns). A plain pointer, trivially
// destructible: GCC 12 destroys some temporaries of a co_await expression
// twice, and a shared_ptr here was released early (seen: a stop "requested"
// by garbage in an unstopped run).
struct recording_filter {
  stop_request* stop;
  asio::cancellation_type operator()(asio::cancellation_type t) const noexcept {
    stop->seen = stop->seen | t;
    return t & (asio::cancellation_type::terminal | asio::cancellation_type::partial |
                asio::cancellation_type::total);
  }
};

class runtime {
 public:
  // `lg` is async_run's logger (the pipeline's identity, and `txn` among its
  // attributes): the runtime sets `txn` at each begin, and async_run's own
  // lines show the transaction its last attempt reached.
  runtime(plan::plan p, run_options o, logger lg, transaction_sequence txn, const stop_request& stop)
      : stop_(&stop),
        plan_(std::move(p)),
        options_(std::move(o)),
        log_(std::move(lg)),
        txn_(std::move(txn)),
        stages_(plan_),
        metrics_(options_.metrics) {}

  // Whether the run ended on a fatal producer error a new producer gets past.
  bool restartable() const noexcept { return restartable_; }

  asio::awaitable<run_report> run() {
    // async_run set the coroutine's cancellation filter (recording_filter):
    // it is not reset here or in any nested frame, which would forget a
    // cancellation already emitted. Child coroutines check stop_ instead.
    co_await asio::this_coro::throw_if_cancelled(false);
    if (std::optional<run_report> failed = co_await start()) co_return finish(std::move(*failed));
    // Delivery reports are served by their own coroutine for as long as the
    // producer lives: commit_transaction waits for every one of them, also
    // during a graceful stop. So the outer stop signals don't reach it; it
    // ends when consume_loop() is done, by its own signal.
    const auto ex = co_await asio::this_coro::executor;
    asio::steady_timer drain_done(ex, steady_clock::time_point::max());
    bool drain_finished = false;
    std::exception_ptr drain_crashed;
    asio::co_spawn(ex, drain_events(),
                   asio::bind_cancellation_slot(drain_stop_.slot(), [&](std::exception_ptr e) {
                     drain_finished = true;
                     drain_crashed = e;
                     drain_done.cancel();
                   }));
    run_report report = co_await consume_loop();
    drain_stop_.emit(asio::cancellation_type::terminal);
    if (!drain_finished) co_await drain_done.async_wait(asio::as_tuple(asio::use_awaitable));
    if (drain_crashed) std::rethrow_exception(drain_crashed);  // a bug: surfaces as an internal error
    if (!producer_failure_.empty() && report.status == run_status::stopped)
      report = fail(run_status::failed, producer_failure_);
    co_return finish(std::move(report));
  }

 private:
  // ---- start -------------------------------------------------------------

  asio::awaitable<std::optional<run_report>> start() {
    // ${env:...} and ${file:...} in client settings are resolved here, so an
    // embedding application gets them as `streamt run` does: after the check
    // of engine-owned keys (a refused key needs no secret to be refused),
    // before the state directory is touched, and again at each in-process
    // restart (a rotated secret file is read anew).
    if (auto owned = kafka::check_user_settings(options_.client_settings); !owned)
      co_return fail(run_status::rejected_config, owned.error().message);
    if (auto resolved = kafka::resolve_references(options_.client_settings); !resolved)
      co_return fail(run_status::rejected_config, resolved.error().message);
    result<state_dir> dir = state_dir::open(options_.state_dir);
    if (!dir) co_return fail(run_status::state_dir, dir.error().message);
    state_.emplace(std::move(*dir));
    if (result<void> admitted = state_->admit(plan_, options_.allow_output_change); !admitted) {
      const bool identity =
          admitted.error().code == "identity_changed" || admitted.error().code == "output_changed";
      co_return fail(identity ? run_status::rejected_config : run_status::state_dir,
                     admitted.error().message);
    }
    const std::string txn_id = transactional_id(plan_, *state_);
    STREAMT_LOG(log_, info) << "starting " << plan_.identity.application_id << ": "
                            << plan_.identity.source_topic << " -> " << plan_.identity.sink_topic << ", plan "
                            << plan::digest(plan_) << ", transactional id " << txn_id << ", librdkafka "
                            << kafka::library_version() << ", state directory " << options_.state_dir
                            << (state_->first_run() ? " (new instance)" : "");

    kafka::settings settings{{"bootstrap.servers", options_.bootstrap_servers}};
    settings.insert(settings.end(), options_.client_settings.begin(), options_.client_settings.end());
    if (!options_.client_settings.empty())
      STREAMT_LOG(log_, info) << "client settings: " << kafka::redacted(options_.client_settings);
    const auto ex = co_await asio::this_coro::executor;
    // The producer's statistics feed the broker and queue metrics; the
    // consumer's would only be dropped (lag is measured by the engine).
    kafka::settings producer_settings = settings;
    if (std::none_of(settings.begin(), settings.end(),
                     [](const kafka::setting& s) { return s.key == "statistics.interval.ms"; }))
      producer_settings.push_back(
          {"statistics.interval.ms", std::to_string(options_.statistics_interval.count())});
    auto producer = kafka::producer::create(ex, txn_id, producer_settings);
    if (!producer) co_return fail(run_status::rejected_config, producer.error().message);
    producer_ = std::move(*producer);
    sink_.emplace(*producer_, plan_.identity.sink_topic);
    auto consumer = kafka::consumer::create(ex, plan_.identity.application_id, settings);
    if (!consumer) co_return fail(run_status::rejected_config, consumer.error().message);
    consumer_ = std::move(*consumer);

    if (std::optional<run_report> missing = co_await check_topics()) co_return missing;
    if (stop_->requested()) co_return stopped_in_start_up("before init_transactions");

    // init_transactions fences any older instance with our transactional id
    // and resolves a transaction it left open, before we consume anything.
    for (int attempt = 1;; ++attempt) {
      kafka::error_report e = co_await producer_->async_init_transactions();
      if (!e.failed()) break;
      if (e.what() == kafka::condition::retriable && attempt < 5) {
        STREAMT_LOG(log_, warning) << "init_transactions: " << e.message << " (retrying)";
        continue;
      }
      co_return fail(run_status::unavailable,
                     "the broker refused transactions (init_transactions: " + e.message +
                         "); exactly-once needs a broker with transactions enabled and "
                         "transaction.state.log.min.isr satisfiable");
    }
    if (stop_->requested())
      co_return stopped_in_start_up("after init_transactions, before joining the group");
    // Kafka has admitted the run: only now is the state directory written,
    // so a start refused before this point leaves it as it found it.
    if (result<void> committed = state_->commit(); !committed)
      co_return fail(run_status::state_dir, committed.error().message);
    if (kafka::error_report e = consumer_->subscribe({plan_.identity.source_topic}); e.failed())
      co_return fail(run_status::failed, "subscribe: " + e.message);
    STREAMT_LOG(log_, info) << "joined group " << plan_.identity.application_id << "; waiting for partitions";
    co_return std::nullopt;
  }

  // A stop signal during start-up, before any transaction: nothing is open,
  // so the run ends here, cleanly (exit 0).
  run_report stopped_in_start_up(std::string_view where) {
    STREAMT_LOG(log_, info) << "stopping: a stop signal arrived during start-up (" << where
                            << "); no transaction was opened";
    signalled_ = true;
    terminal_ = stop_->terminal();
    metrics_->stopping();
    return fail(run_status::stopped, "stopped during start-up");
  }

  // A missing topic is a clear error before any transaction, not a retry
  // loop: streamt never creates topics, and librdkafka would wait forever.
  asio::awaitable<std::optional<run_report>> check_topics() {
    const auto deadline = steady_clock::now() + options_.connect_timeout;
    asio::steady_timer pause(co_await asio::this_coro::executor);
    kafka::error_report err = kafka::report_of(RD_KAFKA_RESP_ERR__TIMED_OUT);
    std::optional<std::set<std::string>> topics;
    // Asked in slices of at most a second, with a stop check between them:
    // one blocking call for the whole --connect-timeout-ms could not be
    // interrupted, so a SIGTERM to an engine whose brokers are unreachable
    // went unanswered for up to that long.
    for (;;) {
      const auto slice_start = steady_clock::now();
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - slice_start);
      const auto slice = std::clamp(left, std::chrono::milliseconds(1), std::chrono::milliseconds(1000));
      auto op = producer_->async_topic_names(slice);
      kafka::kafka_result<std::set<std::string>> answer = co_await std::move(op);
      if (answer) {
        topics = std::move(*answer);
        break;
      }
      err = answer.error();
      if (steady_clock::now() >= deadline) break;
      if (stop_->requested()) {
        STREAMT_LOG(log_, info) << "stopped while waiting for the brokers at " << options_.bootstrap_servers;
        co_return fail(run_status::stopped, "stopped before the brokers answered");
      }
      // A refusal that came back early waits out its slice (no busy loop).
      pause.expires_at(slice_start + std::chrono::seconds(1));
      auto waited = co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
      (void)waited;
      if (stop_->requested()) {
        STREAMT_LOG(log_, info) << "stopped while waiting for the brokers at " << options_.bootstrap_servers;
        co_return fail(run_status::stopped, "stopped before the brokers answered");
      }
      if (steady_clock::now() >= deadline) break;
    }
    if (!topics)
      co_return fail(run_status::unavailable,
                     // A refused TLS handshake or SASL login looks the same
                     // here as an unreachable broker (librdkafka retries
                     // both); its own error line above names the cause.
                     "cannot reach the brokers at " + options_.bootstrap_servers + " within " +
                         std::to_string(options_.connect_timeout.count() / 1000) + " s: " + err.message +
                         "; check --bootstrap-servers, the network, and the TLS and SASL settings (a failed "
                         "certificate verification or authentication is logged above by librdkafka)");
    for (const std::string& t : {plan_.identity.source_topic, plan_.identity.sink_topic})
      if (!topics->count(t))
        co_return fail(
            run_status::unavailable,
            "topic '" + t + "' does not exist on " + options_.bootstrap_servers +
                "; streamt does not create topics: create it with the partitions and retention you want");
    co_return std::nullopt;
  }

  // ---- the loop ------------------------------------------------------------

  asio::awaitable<run_report> consume_loop() {
    co_await asio::this_coro::throw_if_cancelled(false);
    const auto ex = co_await asio::this_coro::executor;
    asio::steady_timer deadline(ex);
    for (;;) {
      // A stop that arrived while nothing cancellable was waiting (during a
      // blocking librdkafka call, which ignores cancellation, during
      // start-up, or while this coroutine ran) is held by stop_: no wait
      // sees it, and without new input the run would never stop.
      if (stop_unhandled()) {
        if (auto stop = co_await on_cancel()) co_return std::move(*stop);
        continue;
      }
      if (machine_.current() == commit::machine::state::producing && due()) {
        commit::next_action a = machine_.step(commit::produced_ok{});
        if (auto stop = co_await drive(std::move(a))) co_return std::move(*stop);
        continue;
      }
      // Records already queued are taken as they are: racing a poll against
      // the commit deadline (two child coroutines and a timerfd_settime per
      // batch) cost ~11% of the engine's CPU in a backlog. The deadline and
      // a stop are still seen, by due() and stop_unhandled() above, on every
      // iteration.
      boost::system::result<kafka::poll_batch> polled = consumer_->try_poll_batch(poll_max());
      if (polled && !polled->empty()) {
        // One turn of the io_context between batches: delivery reports and
        // signals are served by other handlers, and a backlog would otherwise
        // keep this loop from suspending until the commit (queue.buffering
        // filling up with unserved delivery reports if that takes long).
        auto turn = asio::post(ex, asio::use_awaitable);
        co_await std::move(turn);
      } else if (polled && machine_.current() == commit::machine::state::producing) {
        // Wait for records, or for the open transaction's commit deadline.
        deadline.expires_at(txn_started_ + options_.commit_interval);
        auto either = co_await (poll_accepting_total(poll_max()) || deadline_accepting_total(deadline));
        if (either.index() == 1) continue;  // the deadline (due() is true now), or a stop (seen above)
        polled = std::move(std::get<0>(either));
      } else if (polled) {
        polled = co_await consumer_->async_poll_batch(poll_max());
      }
      if (!polled) {
        if (polled.error() == asio::error::operation_aborted) {
          if (auto stop = co_await on_cancel()) co_return std::move(*stop);
          continue;
        }
        co_return fail(run_status::failed, "polling the consumer failed: " + polled.error().message());
      }
      kafka::poll_batch& batch = *polled;
      if (!batch.messages.empty()) {
        if (auto stop = co_await process(batch.messages)) co_return std::move(*stop);
      }
      for (const kafka::consumer_error& e : batch.errors) {
        if (auto stop = on_consumer_error(e)) co_return std::move(*stop);
      }
      if (batch.rebalance) {
        if (auto stop = co_await on_rebalance(std::move(*batch.rebalance))) co_return std::move(*stop);
      }
    }
  }

  // async_poll_batch inside `||` runs as a child coroutine, which by default
  // lets only terminal cancellation in: this one lets the graceful stop in
  // too. A stop emitted before this child started never reached it: stop_
  // holds it, so the child does not start waiting.
  asio::awaitable<boost::system::result<kafka::poll_batch>> poll_accepting_total(std::size_t max) {
    co_await asio::this_coro::reset_cancellation_state(asio::enable_total_cancellation());
    if (stop_unhandled()) co_return boost::system::error_code(asio::error::operation_aborted);
    auto op = consumer_->async_poll_batch(max);
    boost::system::result<kafka::poll_batch> r = co_await std::move(op);
    co_return r;
  }

  // The commit deadline inside `||`, a child coroutine too, letting the
  // graceful stop in as well. It must: a parallel group forwards only the
  // first cancellation it is asked, and its own "the other one completed"
  // is one too. A deadline wait that let only terminal cancellation in kept
  // the whole `||` (and the stop) waiting for the end of the commit
  // interval after the poll was cancelled, and the terminal stop that
  // followed was never forwarded (issue 14: exit 75 with a 60 s interval).
  asio::awaitable<std::tuple<boost::system::error_code>> deadline_accepting_total(
      asio::steady_timer& deadline) {
    co_await asio::this_coro::reset_cancellation_state(asio::enable_total_cancellation());
    if (stop_unhandled()) co_return std::tuple{boost::system::error_code(asio::error::operation_aborted)};
    auto op = deadline.async_wait(asio::as_tuple(asio::use_awaitable));
    std::tuple<boost::system::error_code> r = co_await std::move(op);
    co_return r;
  }

  // Never more than the transaction's record bound allows (due() commits
  // before polling once the bound is reached, so this is at least 1).
  std::size_t poll_max() const {
    return std::min<std::size_t>(1000, options_.max_records_per_transaction - txn_records_);
  }

  bool due() const {
    return txn_records_ >= options_.max_records_per_transaction ||
           steady_clock::now() >= txn_started_ + options_.commit_interval;
  }

  // A stop asked for and not yet acted on: the first one, or a terminal one
  // after a graceful one.
  bool stop_unhandled() const noexcept {
    if (!stop_->requested()) return false;
    return !signalled_ || (stop_->terminal() && !terminal_);
  }

  // The stop deadline passed and the machine has not been told yet.
  bool deadline_unhandled() const noexcept { return stop_->deadline && !deadline_handled_; }

  commit::next_action on_deadline() {
    deadline_handled_ = true;
    terminal_ = true;
    STREAMT_LOG(log_, warning) << "the graceful stop did not end within the stop timeout ("
                               << options_.stop_timeout.count() << " ms); stopping now";
    return machine_.step(commit::deadline_passed{});
  }

  // commit_transaction and abort_transaction are called in slices of
  // call_slice (see commit::commit_pending), so the stop deadline is seen
  // within a slice of passing. A slice that ends with the call under way is
  // not an outcome until the call has taken as long as librdkafka itself
  // would give it (the remaining transaction timeout, 60 s by default): then
  // the timeout is one, an unknown outcome the machine retries and counts.
  static constexpr std::chrono::milliseconds call_slice{1000};
  static constexpr std::chrono::milliseconds whole_call_limit{60000};
  bool still_under_way(const kafka::error_report& e) const {
    return e.info.code == RD_KAFKA_RESP_ERR__TIMED_OUT && call_began_ &&
           steady_clock::now() - *call_began_ < whole_call_limit;
  }

  // A graceful stop commits what is open; a terminal one aborts it. Returns
  // the final report, or nothing if the machine wants to go on (a graceful
  // stop arriving while no transaction is open ends at once).
  asio::awaitable<std::optional<run_report>> on_cancel() {
    // Stopping for a signal that was already acted on (an aborted poll
    // after the graceful stop was handled) changes nothing.
    if (!stop_unhandled() && signalled_) co_return std::nullopt;
    if (deadline_unhandled()) {
      signalled_ = true;
      stopping_ = true;
      metrics_->stopping();
      if (auto stop = co_await drive(on_deadline())) co_return stop;
      co_return std::nullopt;
    }
    const bool terminal = stop_->terminal();
    terminal_ = terminal_ || terminal;
    signalled_ = true;
    STREAMT_LOG(log_, info) << (terminal ? "stopping now (second signal)"
                                         : "stopping: finishing the open transaction");
    stopping_ = true;
    metrics_->stopping();
    commit::next_action a = machine_.step(
        commit::cancel_requested{terminal ? commit::stop_kind::terminal : commit::stop_kind::graceful});
    if (auto stop = co_await drive(std::move(a))) co_return stop;
    co_return std::nullopt;
  }

  // Runs one polled batch through the stages into the producer.
  asio::awaitable<std::optional<run_report>> process(std::vector<kafka::message_ptr>& messages) {
    if (machine_.current() == commit::machine::state::idle) {
      commit::next_action a = machine_.step(commit::batch_ready{});
      if (auto stop = co_await drive(std::move(a))) co_return stop;
      txn_started_ = steady_clock::now();
      sink_->new_transaction();
      txn_counts_ = {};
    }
    kafka::view_messages(messages, views_, headers_);
    // Each partition's records must come in increasing offsets. librdkafka
    // 2.0.2 has handed one over twice after a rewind followed by a lost
    // assignment (tools/faults broker_pause: one record committed twice in
    // one transaction; its refetch-from-an-older-position bugs are fixed in
    // 2.4.0). Skipping the repeat could lose records when the stale one came
    // first, so any step back aborts the open transaction and rewinds: the
    // redo starts again from the committed offsets.
    if (std::optional<std::string> back = went_back(views_)) {
      STREAMT_LOG(log_, warning) << *back << "; aborting the transaction and rewinding";
      commit::next_action a = machine_.step(commit::delivery_failed{consumer_went_back(*back)});
      if (auto stop = co_await drive(std::move(a))) co_return stop;
      co_return std::nullopt;
    }
    // A record whose output the sink refused for good (found when an earlier
    // attempt of this transaction was aborted): process up to it, commit,
    // and stop there as at an invalid record.
    std::optional<invalid_record> refused;
    if (const std::optional<unproducible_record>& u = sink_->unproducible_found()) {
      for (std::size_t i = 0; i < views_.size(); ++i) {
        if (views_[i].partition != u->partition || views_[i].offset != u->offset) continue;
        diagnostic d;
        d.phase = phase::record;
        d.code = "output_refused_by_sink";
        d.message = "its output of " + std::to_string(u->size) +
                    " bytes can never be written to sink topic '" + sink_->topic() + "' (" + u->reason +
                    "); raise the topic's max.message.bytes (and the client's message.max.bytes), or "
                    "change the query";
        refused = invalid_record{std::string(views_[i].topic), views_[i].partition, views_[i].offset, d};
        views_.resize(i);
        break;
      }
    }
    record_counts batch;
    batch_result r = process_batch(views_, stages_, *sink_, batch);
    counts_ += batch;
    txn_counts_ += batch;
    if (refused && !r.invalid) r.invalid = std::move(refused);
    // One map update per run of records from the same partition, not per
    // record: the key is a topic_partition with an owned string.
    for (std::size_t i = 0; i < r.handled; ++i) {
      const bool last_of_run = i + 1 == r.handled || views_[i + 1].partition != views_[i].partition ||
                               views_[i + 1].topic != views_[i].topic;
      if (last_of_run)
        next_offsets_[{std::string(views_[i].topic), views_[i].partition}] = views_[i].offset + 1;
    }
    txn_records_ += r.handled;

    if (std::optional<kafka::error_report> e = sink_->take_error()) {
      STREAMT_LOG(log_, warning) << "producing failed: " << e->message << "; aborting the transaction";
      commit::next_action a = machine_.step(commit::delivery_failed{std::move(*e)});
      if (auto stop = co_await drive(std::move(a))) co_return stop;
      co_return std::nullopt;
    }
    if (r.invalid) {
      // Everything before the invalid record commits; its own offset is the
      // committed offset of its partition, so nothing at or after it is
      // consumed, and a restart stops at it again until it is dealt with.
      next_offsets_[{r.invalid->topic, r.invalid->partition}] = r.invalid->offset;
      STREAMT_LOG(log_, error) << "invalid record at " << r.invalid->describe() << " ["
                               << r.invalid->error.code << "]; committing the records before it and stopping";
      stopping_ = true;
      invalid_ = r.invalid;
      committed_before_invalid_ = machine_.transactions_committed();
      commit::next_action a = machine_.step(commit::cancel_requested{commit::stop_kind::graceful});
      if (auto stop = co_await drive(std::move(a))) co_return stop;
      if (!invalid_) co_return std::nullopt;  // aborted: processing up to it again (see drive)
      co_return fail(run_status::failed,
                     "the transaction holding the records before the invalid record did not end");
    }
    co_return std::nullopt;
  }

  std::optional<run_report> on_consumer_error(const kafka::consumer_error& e) {
    const rd_kafka_resp_err_t code = e.error.info.code;
    if (code == RD_KAFKA_RESP_ERR__PARTITION_EOF) return std::nullopt;
    if (code == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET || code == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE) {
      return fail(
          run_status::rejected_config,
          "the position of " + (e.partition ? describe(*e.partition) : std::string("a partition")) +
              " is out of range (records were deleted by retention?): " + e.error.message +
              ". Restart with --reset-offsets earliest|latest to continue; records are skipped or replayed");
    }
    if (code == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
        code == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
        code == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED || e.error.info.fatal)
      return fail(run_status::unavailable, "consumer: " + e.error.message);
    // Transport errors and the like: librdkafka reconnects by itself.
    STREAMT_LOG(log_, warning) << "consumer: " << e.error.message;
    return std::nullopt;
  }

  // ---- rebalances --------------------------------------------------------

  asio::awaitable<std::optional<run_report>> on_rebalance(kafka::rebalance_event ev) {
    if (ev.what == kafka::rebalance_event::kind::revoked) {
      // The open transaction holds offsets of the revoked partitions: it must
      // end before they are given up, or the next owner reprocesses them.
      // With a lost assignment another member may own them already: abort.
      if (machine_.current() == commit::machine::state::producing) {
        commit::next_action a = ev.lost ? machine_.step(commit::delivery_failed{lost_assignment()})
                                        : machine_.step(commit::produced_ok{});
        // If this ends the engine (fenced while aborting), close() must
        // acknowledge the revocation first (see unacknowledged_revoke_).
        unacknowledged_revoke_ = ev.partitions;
        std::optional<run_report> stop = co_await drive(std::move(a));
        unacknowledged_revoke_.reset();
        if (stop) co_return stop;
      }
      std::vector<std::pair<std::string, std::int32_t>> gone;
      for (const kafka::topic_partition& tp : ev.partitions) {
        owned_.erase(tp);
        gone.emplace_back(tp.topic, tp.partition);
      }
      if (kafka::error_report e = consumer_->incremental_unassign(ev.partitions); e.failed())
        co_return fail(run_status::failed, "giving up partitions failed: " + e.message);
      metrics_->revoked(owned_.size(), gone);
      STREAMT_LOG(log_, info) << "revoked " << ev.partitions.size() << " partition(s)"
                              << (ev.lost ? " (lost)" : "");
      co_return std::nullopt;
    }
    kafka::kafka_result<std::vector<kafka::partition_offset>> committed =
        co_await committed_offsets(ev.partitions);
    if (!committed) {
      auto failure_op = unavailable("reading committed offsets failed: " + committed.error().message);
      run_report failure = co_await std::move(failure_op);
      std::optional<run_report> refused = co_await refuse_assignment(ev.partitions, std::move(failure));
      co_return refused;
    }
    std::vector<kafka::partition_offset> start;
    for (kafka::partition_offset po : *committed) {
      if (po.offset == kafka::no_offset) {
        STREAMT_LOG(log_, info)
            << describe(po.partition)
            << ": no committed offset (a new application id): starting from the earliest offset";
        po.offset = RD_KAFKA_OFFSET_BEGINNING;
      } else {
        auto marks_op =
            patiently<kafka::watermarks>("the offsets of " + describe(po.partition),
                                         [this, tp = po.partition](std::chrono::milliseconds slice) {
                                           return consumer_->async_query_watermarks(tp, slice);
                                         });
        kafka::kafka_result<kafka::watermarks> marks = co_await std::move(marks_op);
        if (!marks) {
          auto failure_op = unavailable("reading the offsets of " + describe(po.partition) +
                                        " failed: " + marks.error().message);
          run_report failure = co_await std::move(failure_op);
          std::optional<run_report> refused = co_await refuse_assignment(ev.partitions, std::move(failure));
          co_return refused;
        }
        if (po.offset < marks->low || po.offset > marks->high) {
          const std::string what = describe(po.partition) + ": committed offset " +
                                   std::to_string(po.offset) + " is out of range (log start " +
                                   std::to_string(marks->low) + ", end " + std::to_string(marks->high) + ")";
          if (options_.reset_offsets == reset_policy::none) {
            std::optional<run_report> refused = co_await refuse_assignment(
                ev.partitions,
                fail(run_status::rejected_config,
                     what + "; records were deleted before they were processed. Restart with "
                            "--reset-offsets earliest (process what is left) or latest (skip to the end)"));
            co_return refused;
          }
          po.offset = options_.reset_offsets == reset_policy::earliest ? marks->low : marks->high;
          STREAMT_LOG(log_, warning) << what << "; --reset-offsets: starting at " << po.offset;
        } else {
          STREAMT_LOG(log_, info) << describe(po.partition) << ": resuming at committed offset " << po.offset;
        }
        metrics_->partition_position(po.partition.topic, po.partition.partition, po.offset, marks->high);
      }
      owned_.insert(po.partition);
      start.push_back(po);
    }
    if (kafka::error_report e = consumer_->incremental_assign(start); e.failed())
      co_return fail(run_status::failed, "taking partitions failed: " + e.message);
    established_ = true;
    metrics_->assigned(owned_.size());
    co_return std::nullopt;
  }

  // Stops while an assignment waits for its acknowledgement. librdkafka
  // 2.0.2 holds the rebalance open until incremental_assign is called, and
  // destroying the consumer then spins forever in its main thread (seen in
  // tools/faults retention: the refusal was logged, the process never
  // exited and ignored SIGTERM). So acknowledge the assignment (nothing is
  // consumed from it: we stop), then leave the group through close().
  asio::awaitable<std::optional<run_report>> refuse_assignment(std::vector<kafka::topic_partition> parts,
                                                               run_report failure) {
    std::vector<kafka::partition_offset> at_end;
    for (kafka::topic_partition& tp : parts) at_end.push_back({std::move(tp), RD_KAFKA_OFFSET_END});
    if (kafka::error_report e = consumer_->incremental_assign(at_end); e.failed())
      STREAMT_LOG(log_, warning) << "acknowledging the assignment before stopping: " << e.message;
    std::optional<run_report> closed = co_await close(std::move(failure));
    co_return closed;
  }

  // Whether a record in `views` has an offset at or below one already handed
  // over for its partition in the open transaction (in this batch or an
  // earlier one). One map look-up per partition and batch, not per record.
  std::optional<std::string> went_back(const std::vector<record_view>& views) const {
    std::vector<std::pair<std::int32_t, std::int64_t>> next;  // partition, next offset expected
    for (const record_view& v : views) {
      auto it = std::find_if(next.begin(), next.end(), [&](const auto& p) { return p.first == v.partition; });
      if (it == next.end()) {
        const auto known = next_offsets_.find({std::string(v.topic), v.partition});
        next.emplace_back(v.partition, known == next_offsets_.end() ? -1 : known->second);
        it = std::prev(next.end());
      }
      if (it->second >= 0 && v.offset < it->second)
        return std::string(v.topic) + "/" + std::to_string(v.partition) + "@" + std::to_string(v.offset) +
               " was delivered again after offset " + std::to_string(it->second - 1);
      it->second = v.offset + 1;
    }
    return std::nullopt;
  }

  static kafka::error_report consumer_went_back(std::string what) {
    kafka::error_report e;
    e.info = kafka::txn_error_info::abortable_error(RD_KAFKA_RESP_ERR__INCONSISTENT);
    e.message = "the consumer went back: " + std::move(what);
    return e;
  }

  static kafka::error_report lost_assignment() {
    kafka::error_report e;
    e.info = kafka::txn_error_info::abortable_error(RD_KAFKA_RESP_ERR__ASSIGNMENT_LOST);
    e.message = "partitions were lost to another member before the transaction committed";
    return e;
  }

  // ---- the commit state machine's actions -------------------------------

  // Performs actions until the machine wants records (consume, produce) or
  // stops. Returns the final report when it stops.
  asio::awaitable<std::optional<run_report>> drive(commit::next_action a) {
    asio::steady_timer retry_timer(co_await asio::this_coro::executor);
    for (;;) {
      // The stop deadline passed while the machine was at work (a slow
      // commit, an abort, a retry wait): it decides what is left to the broker.
      if (!a.is_terminal() && deadline_unhandled()) {
        a = on_deadline();
        continue;
      }
      switch (a.kind) {
        case commit::action::consume:
          next_offsets_.clear();
          txn_records_ = 0;
          if (stopping_) {
            std::optional<run_report> closed = co_await close(std::nullopt);
            co_return closed;
          }
          co_return std::nullopt;
        case commit::action::produce:
          co_return std::nullopt;
        case commit::action::wait:
          co_return std::nullopt;
        case commit::action::begin:
          txn_.set(txn_.get() + 1);
          a = machine_.step(commit::begun{producer_->begin_transaction()});
          break;
        case commit::action::send_offsets: {
          if (sink_->commit_needs_reports()) {
            // See aborted_tail.hpp: commit_transaction would flush and end
            // the transaction in one call, too late to look at the reports.
            auto flush = producer_->async_flush(std::chrono::seconds(30));
            kafka::error_report flushed = co_await std::move(flush);
            if (flushed.failed()) {
              flushed.info =
                  kafka::txn_error_info::abortable_error(flushed.info.code);  // unknown: abort, never commit
              flushed.message = "waiting for the delivery reports before committing: " + flushed.message;
              a = machine_.step(commit::offsets_sent{std::move(flushed)});
              break;
            }
          }
          if (std::optional<std::string> trailing = sink_->take_trailing()) {
            STREAMT_LOG(log_, warning) << *trailing << "; aborting the transaction and rewinding";
            kafka::error_report e;
            e.info = kafka::txn_error_info::abortable_error(RD_KAFKA_RESP_ERR__INCONSISTENT);
            e.message = *trailing;
            a = machine_.step(commit::offsets_sent{std::move(e)});
            break;
          }
          std::vector<kafka::partition_offset> offsets;
          for (const auto& [tp, next] : next_offsets_) offsets.push_back({tp, next});
          if (offsets.empty()) {
            a = machine_.step(commit::offsets_sent{});
            break;
          }
          auto op =
              producer_->async_send_offsets_to_transaction(std::move(offsets), consumer_->group_metadata());
          kafka::error_report e = co_await std::move(op);
          if (e.failed()) STREAMT_LOG(log_, warning) << "send_offsets_to_transaction failed: " << e.message;
          a = machine_.step(commit::offsets_sent{std::move(e)});
          break;
        }
        case commit::action::commit: {
          if (!call_began_) {
            call_began_ = steady_clock::now();
            STREAMT_LOG(log_, debug) << "committing transaction " << machine_.transactions_committed() + 1;
          }
          const auto began = *call_began_;
          kafka::error_report e = co_await producer_->async_commit_transaction(call_slice);
          if (still_under_way(e)) {
            // Past the stop deadline, each further slice is left to the broker.
            a = stop_->deadline ? machine_.step(commit::deadline_passed{})
                                : machine_.step(commit::commit_pending{});
            break;
          }
          call_began_.reset();
          const bool committed = !e.failed();
          if (committed) {
            const auto took = steady_clock::now() - began;
            sink_->transaction_committed();
            log_commit(took);
            for (const auto& [tp, next] : next_offsets_) committed_by_us_[tp] = next;
            report_commit(took);
          } else
            STREAMT_LOG(log_, warning)
                << "commit_transaction failed after "
                << std::chrono::duration_cast<std::chrono::milliseconds>(steady_clock::now() - began).count()
                << " ms: " << e.message;
          a = machine_.step(commit::commit_result{std::move(e)});
          if (committed && options_.on_commit) options_.on_commit(progress(run_report{}));
          break;
        }
        case commit::action::abort: {
          if (!call_began_) {
            call_began_ = steady_clock::now();
            STREAMT_LOG(log_, warning) << "aborting the open transaction";
          }
          kafka::error_report e = co_await producer_->async_abort_transaction(call_slice);
          if (still_under_way(e)) {
            a = stop_->deadline ? machine_.step(commit::deadline_passed{})
                                : machine_.step(commit::abort_pending{});
            break;
          }
          call_began_.reset();
          if (e.failed()) {
            STREAMT_LOG(log_, warning) << "abort_transaction failed: " << e.message;
          } else {
            sink_->transaction_aborted();
            metrics_->aborted(std::exchange(txn_counts_, {}).consumed);
          }
          a = machine_.step(commit::abort_result{std::move(e)});
          break;
        }
        case commit::action::rewind_to_committed: {
          kafka::error_report e = co_await rewind();
          if (e.failed() && stop_requested(co_await asio::this_coro::cancellation_state)) {
            // Nothing is open after the abort: stopping here loses nothing,
            // the next start resumes at the committed offsets.
            run_report stopped =
                fail(run_status::stopped,
                     "stopped while waiting for the brokers to rewind after an abort: " + e.message);
            std::optional<run_report> closed = co_await close(std::move(stopped));
            co_return closed;
          }
          if (!e.failed()) {
            ++rewinds_;
            metrics_->rewound();
          }
          a = machine_.step(commit::rewound{std::move(e)});
          break;
        }
        case commit::action::retry_after:
          ++(machine_.commit_started() ? commit_retries_ : retries_);
          if (machine_.commit_started()) metrics_->commit_retried();
          retry_timer.expires_after(a.delay);
          co_await retry_timer.async_wait(asio::as_tuple(asio::use_awaitable));
          a = machine_.step(commit::retry_elapsed{});
          break;
        case commit::action::done:
          // Stopping at an invalid (or unproducible) record, but the
          // transaction holding the records before it was aborted (e.g.
          // librdkafka 2.0.2 fails the first transaction after an
          // epoch-bumping abort with OUT_OF_ORDER_SEQUENCE_NUMBER, seen in
          // tools/faults too_large): exiting 65 now would claim a commit
          // that did not happen. Rewind and process up to the record again.
          if (invalid_ && !terminal_ && machine_.transactions_committed() == committed_before_invalid_ &&
              invalid_retries_ < 5) {
            ++invalid_retries_;
            STREAMT_LOG(log_, warning) << "the transaction before the record at " << invalid_->describe()
                                       << " was aborted; processing up to it again";
            committed_base_ += machine_.transactions_committed();
            aborted_base_ += machine_.transactions_aborted();
            machine_ = commit::machine{};
            invalid_.reset();
            stopping_ = false;
            kafka::error_report e = co_await rewind();
            if (e.failed()) {
              std::optional<run_report> closed =
                  co_await close(fail(run_status::failed, "rewind to the committed offsets: " + e.message));
              co_return closed;
            }
            co_return std::nullopt;
          }
          [[fallthrough]];
        case commit::action::fenced:
        case commit::action::fatal: {
          // Named locals around every co_await: GCC 12 destroys temporaries
          // of a full-expression holding a co_await incorrectly.
          std::optional<run_report> failure;
          if (a.kind == commit::action::fenced)
            failure = fail(run_status::fenced, a.reason + "; another instance runs with this identity");
          else if (a.kind == commit::action::fatal)
            failure = fail(run_status::failed, a.reason);
          else if (!a.reason.empty())
            STREAMT_LOG(log_, warning) << a.reason;
          std::optional<run_report> closed = co_await close(std::move(failure));
          co_return closed;
        }
      }
    }
  }

  // After an abort, every owned partition goes back to its committed offset:
  // the aborted records are produced again, the offsets sent again.
  asio::awaitable<kafka::error_report> rewind() {
    next_offsets_.clear();
    txn_records_ = 0;
    std::vector<kafka::topic_partition> parts(owned_.begin(), owned_.end());
    if (parts.empty()) co_return kafka::error_report{};
    kafka::kafka_result<std::vector<kafka::partition_offset>> committed = co_await committed_offsets(parts);
    if (!committed) co_return committed.error();
    for (kafka::partition_offset& po : *committed)
      if (po.offset == kafka::no_offset) po.offset = RD_KAFKA_OFFSET_BEGINNING;
    STREAMT_LOG(log_, info) << "rewound " << parts.size() << " partition(s) to their committed offsets";
    auto seek = consumer_->async_seek(std::move(*committed));
    co_return co_await std::move(seek);
  }

  // The group's committed offsets of `parts`, never behind one this process
  // committed itself. After a broker was killed and restarted, the
  // coordinator has answered "no committed offset", or an older one, for
  // partitions this process had committed a second earlier, for more than
  // 30 s (tools/faults broker_kill; the commit's markers are recovered only
  // later). Taken as it is, that replays committed records and duplicates
  // their output; stopping instead (exit 75) is no better, since a restarted
  // process no longer knows what it committed and would take the stale
  // answer. So ask again, once a second, for as long as it takes, like any
  // other wait for the brokers of a running engine; a stop signal ends the
  // wait (nothing is open then: this runs at an assignment or a rewind).
  // An offset ahead of ours is fine: another instance went on.
  asio::awaitable<kafka::kafka_result<std::vector<kafka::partition_offset>>> committed_offsets(
      std::vector<kafka::topic_partition> parts) {
    const auto began = steady_clock::now();
    auto warned = steady_clock::time_point{};
    asio::steady_timer pause(co_await asio::this_coro::executor);
    for (;;) {
      auto op = patiently<std::vector<kafka::partition_offset>>(
          "the committed offsets", [this, parts](std::chrono::milliseconds slice) {
            return consumer_->async_committed(parts, slice);
          });
      kafka::kafka_result<std::vector<kafka::partition_offset>> committed = co_await std::move(op);
      if (!committed) co_return committed;
      std::string behind;
      for (const kafka::partition_offset& po : *committed) {
        const auto ours = committed_by_us_.find(po.partition);
        if (ours != committed_by_us_.end() && (po.offset == kafka::no_offset || po.offset < ours->second))
          behind = describe(po.partition) + ": the group coordinator answered committed offset " +
                   (po.offset == kafka::no_offset ? std::string("none") : std::to_string(po.offset)) +
                   ", behind offset " + std::to_string(ours->second) + " that this process committed";
      }
      if (behind.empty()) co_return committed;
      if (stop_requested(co_await asio::this_coro::cancellation_state)) {
        kafka::error_report e;
        e.info = kafka::txn_error_info::plain(RD_KAFKA_RESP_ERR__INCONSISTENT);
        e.message = behind + "; stopped while waiting for the coordinator to catch up";
        co_return e;
      }
      const auto now = steady_clock::now();
      if (warned == steady_clock::time_point{} || now - warned >= std::chrono::seconds(30)) {
        warned = now;
        STREAMT_LOG(log_, warning) << behind << " (for "
                                   << std::chrono::round<std::chrono::seconds>(now - began).count()
                                   << " s); not reprocessing from there (it would duplicate output): asking "
                                      "again every second until the coordinator catches up";
      }
      pause.expires_after(std::chrono::seconds(1));
      auto waited = co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
      (void)waited;
    }
  }

  // Asks `query(slice)` until it answers or fails for a reason waiting does
  // not fix. Before the first partitions were taken, --connect-timeout-ms
  // bounds the wait: a wrong address or a missing broker is a start-up error
  // (exit 69). Once running, an engine waits for its brokers as long as they
  // take: a broker restart outlasting the connect timeout stopped it with
  // exit 69 in tools/faults broker_kill, leaving the restart to a supervisor
  // that would only have waited too. Asked in slices of at most 5 s with a
  // stop check between them (the blocking call itself cannot be
  // interrupted); a stop while waiting returns the last error, and callers
  // ask stop_requested() to tell it from a failure.
  template <class T, class Query>
  asio::awaitable<kafka::kafka_result<T>> patiently(std::string what, Query query) {
    const auto began = steady_clock::now();
    const auto slice = std::min(options_.connect_timeout, std::chrono::milliseconds(5000));
    auto warned = began;
    for (;;) {
      auto op = query(established_ ? slice : options_.connect_timeout);
      kafka::kafka_result<T> answer = co_await std::move(op);
      if (answer || !established_ || !kafka::is_transient_code(answer.error().info.code)) co_return answer;
      if (stop_requested(co_await asio::this_coro::cancellation_state)) co_return answer;
      const auto now = steady_clock::now();
      if (warned == began || now - warned >= std::chrono::seconds(30)) {
        warned = now;
        STREAMT_LOG(log_, warning) << "the brokers have not answered for " << what << " for "
                                   << std::chrono::round<std::chrono::seconds>(now - began).count()
                                   << " s: " << answer.error().message
                                   << "; still waiting (a running engine waits for its "
                                   << "brokers to come back; stop it with SIGTERM)";
      }
    }
  }

  // A stop signal, not a stop on an invalid record (that one still wants its
  // records before it committed, so it waits for the brokers like a run).
  bool stop_requested(const asio::cancellation_state&) const { return signalled_ || stop_->requested(); }

  // The committed transaction's records and where each owned partition now
  // stands; once per commit, never per record.
  void report_commit(steady_clock::duration took) {
    metrics_->committed(std::exchange(txn_counts_, {}), took);
    for (const kafka::topic_partition& tp : owned_) {
      const auto ours = committed_by_us_.find(tp);
      if (ours != committed_by_us_.end())
        metrics_->partition_position(tp.topic, tp.partition, ours->second, consumer_->cached_end_offset(tp));
    }
  }

  void log_commit(steady_clock::duration took) {
    ++commits_;
    // A line per commit would drown the log at 10 commits/s: log the first
    // commits, then one summary a minute.
    const auto now = steady_clock::now();
    if (commits_ <= 3 || now - last_summary_ >= std::chrono::minutes(1)) {
      last_summary_ = now;
      STREAMT_LOG(log_, info) << "committed transaction " << commits_ << " ("
                              << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                              << " ms): " << counts_.consumed << " consumed, " << counts_.emitted
                              << " emitted, " << counts_.filtered << " filtered, " << counts_.tombstones
                              << " tombstones so far";
    }
  }

  // Leaves the group (explicitly, so partitions move at once, not after the
  // session timeout) unless the stop is terminal.
  asio::awaitable<std::optional<run_report>> close(std::optional<run_report> failure) {
    if (unacknowledged_revoke_) {
      // librdkafka 2.0.2 waits for a revocation to be acknowledged before it
      // can close or destroy the consumer; unacknowledged, consumer_close
      // never returns (seen in tools/faults txn_timeout: fenced while
      // aborting the revoked partitions' transaction, then hung for good).
      for (const kafka::topic_partition& tp : *unacknowledged_revoke_) owned_.erase(tp);
      if (kafka::error_report e = consumer_->incremental_unassign(*unacknowledged_revoke_); e.failed())
        STREAMT_LOG(log_, warning) << "giving up partitions before stopping: " << e.message;
      unacknowledged_revoke_.reset();
    }
    // A terminal stop asked for while the graceful one ran counts too.
    if (!terminal_ && !stop_->terminal()) {
      STREAMT_LOG(log_, debug) << "leaving the group";
      kafka::error_report e = co_await consumer_->async_close();
      STREAMT_LOG(log_, debug) << "left the group";
      if (e.failed()) STREAMT_LOG(log_, warning) << "leaving the group: " << e.message;
    }
    if (failure) co_return failure;
    if (invalid_) {
      metrics_->invalid_record();
      run_report r =
          fail(run_status::invalid_record,
               "invalid record at " + invalid_->describe() + " [" + invalid_->error.code +
                   "]; the records before it are committed. Fix the producer, then skip the record by "
                   "committing offset " +
                   std::to_string(invalid_->offset + 1) + " for partition " +
                   std::to_string(invalid_->partition) + " of group " + plan_.identity.application_id);
      r.invalid = invalid_;
      co_return r;
    }
    co_return run_report{};
  }

  // Delivery reports must be served while commit_transaction waits for them,
  // including during a graceful stop: only a terminal cancellation (or the
  // end of consume_loop) stops this loop.
  asio::awaitable<void> drain_events() {
    co_await asio::this_coro::reset_cancellation_state(asio::enable_terminal_cancellation());
    co_await asio::this_coro::throw_if_cancelled(false);
    for (;;) {
      boost::system::result<kafka::producer_events> ev = co_await producer_->async_poll_events(10000);
      if (!ev) {
        STREAMT_LOG(log_, debug) << "delivery report loop ended: " << ev.error().message();
        co_return;
      }
      for (const kafka::delivery_report& d : ev->deliveries) {
        if (!d.error.failed()) {
          sink_->on_delivered(d);
          continue;
        }
        sink_->on_failed_delivery(d);
        STREAMT_LOG(log_, warning) << "delivery to " << describe(d.partition)
                                   << " failed: " << d.error.message;
        // The open transaction will fail to commit (librdkafka reports it
        // abortable) and be aborted and rewound: nothing to do here.
      }
      for (const std::string& json : ev->statistics)
        if (std::optional<client_statistics> s = parse_client_statistics(json))
          metrics_->statistics(std::move(*s));
      for (const kafka::error_report& e : ev->errors) {
        if (e.info.fatal || e.what() == kafka::condition::fenced) {
          // Keep serving delivery reports: an abort_transaction in flight
          // waits until every outstanding record is reported, and would
          // hang forever if this loop ended here (seen in tools/faults
          // zombie: fenced while aborting). The transactional call itself
          // returns the fatal error, which stops the engine.
          if (producer_failure_.empty()) producer_failure_ = "producer: " + e.message;
          continue;
        }
        STREAMT_LOG(log_, warning) << "producer: " << e.message;
      }
    }
  }

  // A query the brokers did not answer: exit 69, unless a stop signal cut
  // the wait short (see patiently()), which is a clean stop.
  asio::awaitable<run_report> unavailable(std::string message) {
    const asio::cancellation_state cs = co_await asio::this_coro::cancellation_state;
    if (established_ && stop_requested(cs))
      co_return fail(run_status::stopped, "stopped while waiting for the brokers (" + message + ")");
    co_return fail(run_status::unavailable, std::move(message));
  }

  run_report fail(run_status s, std::string message) {
    run_report r;
    r.status = s;
    r.message = std::move(message);
    return r;
  }

  run_report progress(run_report r) const {
    r.counts = counts_;
    r.transactions_committed = committed_base_ + machine_.transactions_committed();
    r.transactions_aborted = aborted_base_ + machine_.transactions_aborted();
    r.commit_retries = commit_retries_;
    r.retries = retries_;
    r.rewinds = rewinds_;
    return r;
  }

  run_report finish(run_report r) {
    r = progress(std::move(r));
    // Decided here, once, for every way a run fails (a transactional call,
    // a fatal error event, a failed poll): what counts is the producer's
    // fatal error, if it has one.
    if (r.status == run_status::failed && producer_) {
      restartable_ = kafka::is_recoverable_by_new_producer(producer_->fatal_cause());
    }
    if (r.status == run_status::stopped)
      STREAMT_LOG(log_, info) << "stopped cleanly: " << counts_.consumed << " consumed, " << counts_.emitted
                              << " emitted, " << counts_.filtered << " filtered, " << counts_.tombstones
                              << " tombstones, " << r.transactions_committed << " transactions committed";
    else
      STREAMT_LOG(log_, error) << r.message;
    return r;
  }

  const stop_request* stop_;  // async_run's: outlives this runtime
  plan::plan plan_;
  run_options options_;
  logger log_;
  transaction_sequence txn_;
  operators::stage_pipeline stages_;
  std::optional<state_dir> state_;
  std::unique_ptr<kafka::producer> producer_;
  std::unique_ptr<kafka::consumer> consumer_;
  std::optional<kafka_sink> sink_;
  commit::machine machine_;
  std::set<kafka::topic_partition> owned_;
  std::map<kafka::topic_partition, std::int64_t> next_offsets_;  // next offset to consume, per partition
  // The offsets this process's committed transactions stored: the group's
  // answer may be ahead of them (another instance), never behind.
  std::map<kafka::topic_partition, std::int64_t> committed_by_us_;
  std::size_t txn_records_ = 0;
  steady_clock::time_point txn_started_{};
  std::vector<record_view> views_;
  std::vector<header_view> headers_;
  record_counts counts_;
  record_counts txn_counts_;  // of the open transaction, reported when it commits or aborts
  std::shared_ptr<metrics> metrics_;
  std::optional<invalid_record> invalid_;
  // Partitions of a revocation being handled (its transaction ending) and
  // not yet given up: close() gives them up if the engine stops meanwhile.
  std::optional<std::vector<kafka::topic_partition>> unacknowledged_revoke_;
  std::uint64_t committed_before_invalid_ = 0;  // machine_'s commits when invalid_ was found
  int invalid_retries_ = 0;
  std::uint64_t committed_base_ = 0;  // of machines replaced after such a retry
  std::uint64_t aborted_base_ = 0;
  bool stopping_ = false;
  bool signalled_ = false;         // a stop signal arrived (graceful or terminal)
  bool established_ = false;       // partitions were taken once: the brokers and settings work
  bool terminal_ = false;          // a terminal stop: don't wait for anything more
  bool deadline_handled_ = false;  // the machine was told the stop deadline passed
  // When the commit_transaction or abort_transaction under way was first
  // called (it may take several slices).
  std::optional<steady_clock::time_point> call_began_;
  bool restartable_ = false;
  std::string producer_failure_;
  asio::cancellation_signal drain_stop_;
  std::uint64_t commits_ = 0;
  std::uint64_t commit_retries_ = 0;
  std::uint64_t retries_ = 0;
  std::uint64_t rewinds_ = 0;
  steady_clock::time_point last_summary_{};
};

}  // namespace

namespace {

// Adds the counters of a run that ended to those of the runs before it.
run_report merged(run_report earlier, run_report last) {
  last.counts += earlier.counts;
  last.transactions_committed += earlier.transactions_committed;
  last.transactions_aborted += earlier.transactions_aborted;
  last.commit_retries += earlier.commit_retries;
  last.retries += earlier.retries;
  last.rewinds += earlier.rewinds;
  last.restarts += earlier.restarts;
  return last;
}

}  // namespace

namespace {

// The attempts of async_run: one runtime each, restarted in-process after a
// fatal producer error a new producer gets past.
asio::awaitable<run_report> run_attempts(plan::plan p, run_options options, logger log,
                                         transaction_sequence txn, stop_request& stop) {
  // A coroutine of its own (async_run spawns it): its stack lets only
  // terminal cancellation in, and throws when cancelled, until told
  // otherwise here, before anything is awaited. A graceful stop forwarded
  // before this line ran was filtered out, but async_run recorded it in
  // `stop`, which the runtime reads before it waits for anything.
  co_await asio::this_coro::reset_cancellation_state(recording_filter{&stop});
  co_await asio::this_coro::throw_if_cancelled(false);
  constexpr std::size_t max_restarts = 3;
  constexpr auto restart_window = std::chrono::minutes(10);
  run_report total;
  std::deque<steady_clock::time_point> restarts;
  for (;;) {
    // One runtime per attempt: its destructor closes the clients and
    // releases the state directory's lock before the next one takes it.
    options.metrics->run_started();
    std::optional<runtime> rt(std::in_place, p, options, log, txn, stop);
    run_report r = co_await rt->run();
    const bool restartable = rt->restartable();
    rt.reset();
    total = merged(std::move(total), std::move(r));
    if (!restartable || stop.requested()) co_return total;
    const auto now = steady_clock::now();
    while (!restarts.empty() && now - restarts.front() > restart_window) restarts.pop_front();
    if (restarts.size() >= max_restarts) {
      total.message += "; " + std::to_string(max_restarts) +
                       " in-process restarts within ten minutes did not help: restart the engine, and if it "
                       "fails again look at the brokers' transaction coordinator";
      co_return total;
    }
    restarts.push_back(now);
    ++total.restarts;
    options.metrics->restarted();
    STREAMT_LOG(log, warning) << "restarting in-process after a fatal producer error (" << total.message
                              << "): new clients under the same identity resume from the committed offsets";
  }
}

}  // namespace

asio::awaitable<run_report> async_run(plan::plan p, run_options options) {
  logger log(boost::log::keywords::channel = "engine");
  add_pipeline_attributes(log, p.identity.application_id, plan::digest(p));
  // One sequence for all attempts: transaction numbers go on rising across
  // in-process restarts, so no two transactions of a run share one.
  transaction_sequence txn(0);
  log.add_attribute(log_attribute::transaction, txn);
  if (!options.metrics) options.metrics = std::make_shared<metrics>();
  options.metrics->set_identity(
      {p.identity.application_id, plan::digest(p), p.identity.source_topic, p.identity.sink_topic});
  // Whatever way the run ends (a status, or a bug's exception), it is no
  // longer live for /healthz. The guard owns a reference: `options` (and
  // its reference) is moved into the attempts below, and a caller that gave
  // no metrics object holds none, so a guard with a plain pointer would
  // mark a freed object at the end (ASan: heap-use-after-free).
  struct ended_guard {
    std::shared_ptr<metrics> m;
    ~ended_guard() { m->run_ended(); }
  } ended{options.metrics};
  // The stop signals this run is asked, recorded as they are emitted (see
  // stop_request); set before the first await, and not reset until the run
  // is over.
  stop_request stop;
  const recording_filter filter{&stop};
  co_await asio::this_coro::reset_cancellation_state(filter);
  co_await asio::this_coro::throw_if_cancelled(false);
  const auto ex = co_await asio::this_coro::executor;
  const std::chrono::milliseconds stop_timeout = options.stop_timeout;

  // The two-phase stop, here in the engine so that every caller gets it:
  // the run goes on in a coroutine of its own, and this one passes the
  // caller's stops on to it, graceful or terminal, and turns a graceful stop
  // that has not ended the run within stop_timeout into a terminal one (the
  // runtime then leaves what is under way to the broker, see
  // stop_request::deadline). Only a second signal of the caller's could do
  // that before, and an embedding application had no deadline at all.
  asio::cancellation_signal to_run;
  std::optional<run_report> report;
  std::exception_ptr crashed;
  // Woken by the run's end, by a stop of the caller's, and by the deadline.
  asio::steady_timer wake(ex, steady_clock::time_point::max());
  // Made before it is spawned (no temporaries: see recording_filter).
  auto attempts = run_attempts(std::move(p), std::move(options), log, txn, stop);
  asio::co_spawn(ex, std::move(attempts),
                 asio::bind_cancellation_slot(to_run.slot(), [&](std::exception_ptr e, run_report r) {
                   crashed = e;
                   if (!e) report = std::move(r);
                   wake.cancel();
                 }));
  asio::cancellation_type forwarded = asio::cancellation_type::none;
  bool deadline_armed = false;
  while (!report && !crashed) {
    const asio::cancellation_type fresh = stop.seen & ~forwarded;
    if (fresh != asio::cancellation_type::none) {
      forwarded = forwarded | fresh;
      if ((fresh & asio::cancellation_type::terminal) != asio::cancellation_type::none) {
        to_run.emit(asio::cancellation_type::terminal);
      } else {
        to_run.emit(asio::cancellation_type::total);
        if (!deadline_armed) {
          deadline_armed = true;
          wake.expires_after(stop_timeout);
        }
      }
    }
    auto [ec] = co_await wake.async_wait(asio::as_tuple(asio::use_awaitable));
    if (!ec && !report && !crashed && !stop.terminal()) {
      stop.deadline = true;
      stop.seen = stop.seen | asio::cancellation_type::terminal;
      wake.expires_at(steady_clock::time_point::max());
    }
  }
  // The filter points into this frame: detach it before the frame goes.
  co_await asio::this_coro::reset_cancellation_state(asio::enable_total_cancellation());
  if (crashed) std::rethrow_exception(crashed);  // a bug: the caller's completion gets it
  co_return std::move(*report);
}

}  // namespace streamt::engine
