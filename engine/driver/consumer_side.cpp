// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The consumer's side of a run: what the brokers say about partitions the
// group assigns (committed offsets, their lineage, watermarks: the session
// decides where each starts, and whether this plan may take it at all), the
// rewinds after an abort, consumer errors, and the waits for the brokers
// those take.

#include "engine/driver/runtime.hpp"

#include "engine/session/position_policy.hpp"
#include "engine/session/refusal.hpp"
#include "engine/session/succession.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <map>

namespace streamt::engine::driver {

namespace {

std::string describe(const kafka::topic_partition& tp) {
  return tp.topic + "/" + std::to_string(tp.partition);
}

// For the duration_ms field of a line about a wait.
std::int64_t waited_ms(steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

// The committed offsets are read stable (read_committed): while a
// transaction holding offsets of the group is open, the broker answers
// "unstable" and librdkafka asks again until the call times out. A broker
// that lost a transaction's markers keeps it open for good (a hanging
// transaction: tools/faults broker_pause on one node, before kafka-local
// gave its broker a longer lease), and only an operator can end it. The
// line says how, since from here it looks like any other timeout.
std::string committed_offsets_failed(const kafka::error_report& e) {
  std::string line = "reading committed offsets failed: " + e.message;
  if (kafka::is_transient_code(e.info.code))
    line +=
        ". If the brokers answer other requests, a transaction left open on the group's offsets may hold "
        "them (a hanging transaction, whose markers the brokers lost): list it with kafka-transactions.sh "
        "find-hanging --broker-id N and end it with kafka-transactions.sh abort --topic T --partition P "
        "--start-offset O";
  return line;
}

std::optional<ss::offset> session_offset(const kafka::committed_offset& co) {
  if (!co.offset) return std::nullopt;
  return ss::offset{*co.offset};
}

}  // namespace

std::vector<kafka::topic_partition> runtime::source_partitions(
    const std::vector<ss::partition_id>& ids) const {
  std::vector<kafka::topic_partition> parts;
  for (ss::partition_id p : ids) parts.push_back({plan_.identity.source_topic, p.value});
  return parts;
}

// A consumer error, as the session's position policy judges it: a line to
// log, or the end of the run.
std::optional<ss::run_failed> runtime::on_consumer_error(const kafka::consumer_error& e) {
  ss::consumer_error_effect effect = ss::effect_of(consumer_error_of(e), plan_.identity.source_topic,
                                                   topics_written(plan_), plan_.identity.application_id);
  if (!effect.warning.empty()) STREAMT_LOG(log_, warning) << effect.warning;
  if (!effect.end) return std::nullopt;
  return ss::run_failed{effect.end->status, std::move(effect.end->message)};
}

// ---- rebalances --------------------------------------------------------

asio::awaitable<ss::action> runtime::on_rebalance(kafka::rebalance_event ev) {
  std::vector<ss::partition_id> ids;
  std::vector<std::int32_t> numbers;
  for (const kafka::topic_partition& tp : ev.partitions) {
    ids.push_back({tp.partition});
    numbers.push_back(tp.partition);
  }
  // Which partitions, by number: "revoked 3 partition(s)" did not say.
  const std::string named = name_partitions(plan_.identity.source_topic, std::move(numbers));
  if (ev.what == kafka::rebalance_event::kind::revoked) {
    STREAMT_LOG(log_, info) << (ev.lost ? "lost " : "revoked ") << named;
    co_return session_.on(ss::revoked{std::move(ids), ev.lost});
  }
  STREAMT_LOG(log_, info) << "assigned " << named;
  kafka::kafka_result<std::vector<kafka::committed_offset>> committed =
      co_await committed_offsets(ev.partitions);
  if (!committed) {
    ss::run_failed failure =
        session_.unanswered(committed_offsets_failed(committed.error()), stop_->requested());
    co_return refuse_assignment(ev.partitions, std::move(failure));
  }
  std::vector<kafka::partition_offset> start;
  std::map<ss::partition_id, ss::offset> positions;
  for (const kafka::committed_offset& co : *committed) {
    const std::optional<ss::offset> ours = session_offset(co);
    kafka::partition_offset po{co.partition, kafka::offset_beginning};
    std::optional<ss::watermarks> marks;
    if (ours) {
      auto marks_op =
          patiently<kafka::watermarks>("the offsets of " + describe(po.partition),
                                       [this, tp = po.partition](std::chrono::milliseconds slice) {
                                         return consumer_->async_query_watermarks(tp, slice);
                                       });
      kafka::kafka_result<kafka::watermarks> answer = co_await std::move(marks_op);
      if (!answer) {
        ss::run_failed failure = session_.unanswered(
            "reading the offsets of " + describe(po.partition) + " failed: " + answer.error().message,
            stop_->requested());
        co_return refuse_assignment(ev.partitions, std::move(failure));
      }
      marks = watermarks_of(*answer);
    }
    auto decided = ss::partition_start_of(describe(po.partition), ours, from_commit_metadata(co.metadata),
                                          session_.plan(), marks, options_.reset_offsets);
    if (auto* refused = std::get_if<ss::ending>(&decided))
      co_return refuse_assignment(ev.partitions,
                                  ss::run_failed{refused->status, std::move(refused->message)});
    const ss::partition_start& taken = std::get<ss::partition_start>(decided);
    if (!taken.handover.empty()) STREAMT_LOG(log_, info) << taken.handover;
    const ss::start_at& at = taken.at;
    // The offset field is where it starts; left out for "the earliest",
    // which only the broker knows.
    std::optional<log_field> start_offset;
    if (at.at) start_offset.emplace(log_attribute::offset, at.at->value);
    BOOST_LOG_SEV(log_, at.reset ? severity::warning : severity::info)
        << log_field(log_attribute::topic, po.partition.topic)
        << log_field(log_attribute::partition, po.partition.partition) << start_offset << at.note;
    po.offset = at.at ? at.at->value : kafka::offset_beginning;
    if (at.at) positions[ss::partition_id{po.partition.partition}] = *at.at;
    if (marks)
      metrics_->partition_position(po.partition.topic, po.partition.partition, po.offset, marks->high.value);
    start.push_back(po);
  }
  if (kafka::error_report e = consumer_->incremental_assign(start); e.failed())
    co_return session_.on(ss::client_failed{"taking partitions failed: " + e.message});
  ss::action next = session_.on(ss::assigned{std::move(ids), std::move(positions)});
  metrics_->assigned(session_.ledger().owned().size());
  co_return next;
}

// Stops while an assignment waits for its acknowledgement. librdkafka
// 2.0.2 holds the rebalance open until incremental_assign is called, and
// destroying the consumer then spins forever in its main thread (seen in
// tools/faults retention: the refusal was logged, the process never
// exited and ignored SIGTERM). So acknowledge the assignment (nothing is
// consumed from it: we stop), then let the session close the run.
ss::action runtime::refuse_assignment(std::vector<kafka::topic_partition> parts, ss::run_failed failure) {
  std::vector<kafka::partition_offset> at_end;
  for (kafka::topic_partition& tp : parts) at_end.push_back({std::move(tp), kafka::offset_end});
  if (kafka::error_report e = consumer_->incremental_assign(at_end); e.failed()) {
    STREAMT_LOG(log_, warning) << "acknowledging the assignment before stopping: " << e.message;
    return session_.on(std::move(failure));
  }
  return session_.on(ss::assignment_refused{failure.status, std::move(failure.message)});
}

// After an abort, every owned partition goes back to its committed offset:
// the aborted records are produced again, the offsets sent again.
// The outcome says where each partition went: the session drops records
// fetched before the seek that are older than that.
asio::awaitable<ss::rewound> runtime::rewind(std::vector<ss::partition_id> ids) {
  ss::rewound r;
  std::vector<kafka::topic_partition> parts = source_partitions(ids);
  if (parts.empty()) co_return r;
  kafka::kafka_result<std::vector<kafka::committed_offset>> committed = co_await committed_offsets(parts);
  if (!committed) {
    r.result = failure_of(committed.error());
    co_return r;
  }
  std::vector<kafka::partition_offset> to;
  for (const kafka::committed_offset& co : *committed) {
    to.push_back({co.partition, co.offset.value_or(kafka::offset_beginning)});
    if (co.offset) r.positions[ss::partition_id{co.partition.partition}] = ss::offset{*co.offset};
  }
  STREAMT_LOG(log_, info) << "rewound " << parts.size() << " partition(s) to their committed offsets";
  auto seek = consumer_->async_seek(std::move(to));
  r.result = failure_of(co_await std::move(seek));
  co_return r;
}

// The group's committed offsets of `parts`, once the session takes them
// (run_session::judge: never behind an offset this process committed; it
// says when to ask again and when the wait ends). Asked once a second.
asio::awaitable<kafka::kafka_result<std::vector<kafka::committed_offset>>> runtime::committed_offsets(
    std::vector<kafka::topic_partition> parts) {
  const auto began = steady_clock::now();
  asio::steady_timer pause(co_await asio::this_coro::executor);
  for (;;) {
    auto op = patiently<std::vector<kafka::committed_offset>>(
        "the committed offsets",
        [this, parts](std::chrono::milliseconds slice) { return consumer_->async_committed(parts, slice); });
    kafka::kafka_result<std::vector<kafka::committed_offset>> committed = co_await std::move(op);
    if (!committed) co_return committed;
    ss::committed_answer answer;
    for (const kafka::committed_offset& co : *committed)
      answer.offsets[ss::partition_id{co.partition.partition}] = session_offset(co);
    const auto waited = steady_clock::now() - began;
    answer.waited = waited;
    answer.stop_requested = stop_asked();
    ss::committed_verdict verdict = session_.judge(answer);
    switch (verdict.what) {
      case ss::committed_verdict::kind::take:
        co_return committed;
      case ss::committed_verdict::kind::end: {
        kafka::error_report e;
        e.info = kafka::txn_error_info::plain(kafka::code_of(kafka::local_error::inconsistent));
        e.message = std::move(verdict.line);
        co_return e;
      }
      case ss::committed_verdict::kind::ask_again:
        if (!verdict.line.empty())
          STREAMT_LOG(log_, warning) << log_field(log_attribute::duration_ms, waited_ms(waited))
                                     << verdict.line;
        break;
    }
    pause.expires_after(std::chrono::seconds(1));
    auto waited_out = co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
    (void)waited_out;
  }
}

// Asks `query(slice)` until it answers or the session says the wait ends
// (run_session::broker_wait_ends): before the first partitions were taken,
// --connect-timeout-ms bounds it, and a wrong address or a missing broker
// is a start-up error (exit 69). Once running, an engine waits for its
// brokers up to the stall timeout: a broker restart outlasting the connect
// timeout stopped it with exit 69 in tools/faults broker_kill, leaving the
// restart to a supervisor that would only have waited too; but a request
// that is never answered (committed offsets a hanging transaction holds)
// must end in a line that says so, not in silence. Asked in slices of at most 5 s
// with a stop check between them (the blocking call itself cannot be
// interrupted); a stop while waiting returns the last error, and callers
// ask stop_asked() to tell it from a failure.
template <class T, class Query>
asio::awaitable<kafka::kafka_result<T>> runtime::patiently(std::string what, Query query) {
  const auto began = steady_clock::now();
  const auto slice = std::min(options_.connect_timeout, std::chrono::milliseconds(5000));
  auto warned = began;
  for (;;) {
    auto op = query(session_.established() ? slice : options_.connect_timeout);
    kafka::kafka_result<T> answer = co_await std::move(op);
    if (answer) co_return answer;
    const auto now = steady_clock::now();
    if (std::optional<std::string> ends =
            session_.broker_wait_ends({what, now - began, failure_of(answer.error())})) {
      kafka::error_report e = answer.error();
      e.message = std::move(*ends);
      co_return e;
    }
    if (stop_asked()) co_return answer;
    if (warned == began || now - warned >= std::chrono::seconds(30)) {
      warned = now;
      STREAMT_LOG(log_, warning) << log_field(log_attribute::duration_ms, waited_ms(now - began))
                                 << "the brokers have not answered for " << what << " for "
                                 << std::chrono::round<std::chrono::seconds>(now - began).count()
                                 << " s: " << answer.error().message << "; still waiting, up to "
                                 << std::chrono::round<std::chrono::seconds>(options_.stall_timeout).count()
                                 << " s (--stall-timeout-ms; stop it with SIGTERM)";
    }
  }
}

// The committed transaction's records and where each owned partition now

}  // namespace streamt::engine::driver
