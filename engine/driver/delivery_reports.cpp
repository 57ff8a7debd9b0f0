// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The producer's events, served by a coroutine of their own for as long as
// the producer lives: delivery reports (notes for the session's sink
// tracker), statistics (metrics), errors (a fatal one fails the run).

#include "engine/driver/runtime.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace streamt::engine::driver {

// commit_transaction waits for every delivery report, also during a
// graceful stop, so the outer stop signals don't reach this coroutine: it
// ends when the loop is done, by its own signal. Started once the group is
// joined (records may come); before that, what the producer reports waits
// in its queue.
void runtime::serve_delivery_reports() {
  drain_done_.emplace(ex_, steady_clock::time_point::max());
  asio::co_spawn(ex_, drain_events(),
                 asio::bind_cancellation_slot(drain_stop_.slot(), [this](std::exception_ptr e) {
                   drain_finished_ = true;
                   drain_crashed_ = e;
                   drain_done_->cancel();
                 }));
}

asio::awaitable<void> runtime::stop_delivery_reports() {
  if (!drain_done_) co_return;  // never started
  drain_stop_.emit(asio::cancellation_type::terminal);
  if (!drain_finished_) co_await drain_done_->async_wait(asio::as_tuple(asio::use_awaitable));
  if (drain_crashed_) std::rethrow_exception(drain_crashed_);  // a bug: surfaces as an internal error
}

// Delivery reports must be served while commit_transaction waits for them,
// including during a graceful stop: only a terminal cancellation (or the
// end of the loop) stops this loop. What they say goes to the session as
// notes (sink_tracker).
asio::awaitable<void> runtime::drain_events() {
  co_await asio::this_coro::reset_cancellation_state(asio::enable_terminal_cancellation());
  co_await asio::this_coro::throw_if_cancelled(false);
  for (;;) {
    boost::system::result<kafka::producer_events> ev = co_await producer_->async_poll_events(10000);
    if (!ev) {
      STREAMT_LOG(log_, debug) << "delivery report loop ended: " << ev.error().message();
      co_return;
    }
    // A refused transaction fails every record in it, thousands a second:
    // one line per error code and batch of reports, with the count.
    std::vector<std::pair<const kafka::delivery_report*, std::size_t>> failures;
    for (const kafka::delivery_report& d : ev->deliveries) {
      if (!d.error.failed()) {
        session_.sink().delivered(d.opaque, d.partition, d.offset);
        continue;
      }
      ss::failure f = failure_of(d.error);
      f.record_bytes = d.bytes;
      session_.sink().delivery_failed(d.opaque, f);
      auto same = std::find_if(failures.begin(), failures.end(),
                               [&](const auto& f) { return f.first->error.info.code == d.error.info.code; });
      if (same == failures.end())
        failures.emplace_back(&d, 1);
      else
        ++same->second;
      // The open transaction will fail to commit (librdkafka reports it
      // abortable) and be aborted and rewound: nothing to do here.
    }
    for (const auto& [first, count] : failures) {
      const std::string topic = session_.sink().dead_letter_write(first->opaque)
                                    ? plan_.identity.dead_letter_topic
                                    : topics_written(plan_).at(session_.sink().topic_of(first->opaque));
      STREAMT_LOG(log_, warning) << log_field(log_attribute::topic, topic)
                                 << log_field(log_attribute::partition, first->partition) << "delivery to "
                                 << topic << "/" << first->partition << " failed: " << first->error.message
                                 << (count > 1 ? " (and " + std::to_string(count - 1) + " more records)"
                                               : "");
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
        session_.producer_fatal(e.message);
        continue;
      }
      STREAMT_LOG(log_, warning) << "producer: " << e.message;
    }
  }
}

}  // namespace streamt::engine::driver
