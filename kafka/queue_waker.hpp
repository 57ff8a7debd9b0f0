// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Wakes a coroutine when a librdkafka queue receives something, without
// polling on a timer.
//
// librdkafka writes a payload to a file descriptor when an element is enqueued
// on a queue that was EMPTY (rd_kafka_queue_io_event_enable). We give it an
// eventfd and wait for readability with an Asio stream_descriptor, so the
// pipeline's io_context sleeps in epoll until Kafka has work for it.
//
// The caveat that shapes every caller: the fd is written only on the
// empty → non-empty transition. If the queue already holds events when you
// start waiting, no write will come and async_wait() never completes. So the
// only correct loop is:
//
//     for (;;) {
//       while (auto* ev = rd_kafka_queue_poll(q, 0)) handle(ev);   // drain
//       co_await waker.async_wait(...);                             // then wait
//     }
//
// A spurious wake-up (the counter was bumped by an element you already
// drained) is harmless: the drain finds nothing and you wait again. A missed
// one is impossible because the drain happens before the wait is armed and
// any enqueue after the drain writes the eventfd, which stays readable.
//
// If the queue is the destination of forwarding (the consumer queue with the
// main queue forwarded to it), enable the waker on the destination only; that
// is what librdkafka requires.

#include "kafka/error.hpp"
#include "kafka/handles.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/compose.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/system/error_code.hpp>
#include <boost/system/result.hpp>

#include <cstdint>

namespace streamt::kafka {

class queue_waker {
 public:
  // Takes the queue reference; enables io events on it. Fails only if the
  // eventfd can't be created (descriptor limit).
  static boost::system::result<queue_waker> create(boost::asio::any_io_executor ex, queue_ptr queue);

  queue_waker(queue_waker&&) noexcept = default;
  queue_waker& operator=(queue_waker&&) = delete;
  // Disables io events before the eventfd closes: otherwise librdkafka would
  // write into a closed (or reused!) descriptor number.
  ~queue_waker();

  rd_kafka_queue_t* queue() const noexcept { return queue_.get(); }

  // Waits until the queue has become non-empty since the last wait (or since
  // creation), then drains the eventfd counter.
  //
  // Completion signature: void(boost::system::error_code); success, or
  //   boost::asio::error::operation_aborted when cancelled.
  // Completes on: the handler's associated executor (default: the executor
  //   given to create()).
  // Cancellation: terminal, partial and total are all honoured (waiting has no
  //   side effect to undo); the op completes promptly with operation_aborted.
  // On error: nothing is consumed from the queue; the caller may wait again.
  // One wait at a time per waker.
  template <class CompletionToken>
  auto async_wait(CompletionToken&& token) {
    return boost::asio::async_compose<CompletionToken, void(boost::system::error_code)>(
        [this, started = false](auto& self, boost::system::error_code ec = {}) mutable {
          if (!started) {
            started = true;
            self.reset_cancellation_state(boost::asio::enable_total_cancellation());
            fd_.async_wait(boost::asio::posix::descriptor_base::wait_read, std::move(self));
            return;
          }
          if (!ec) drain_counter();
          self.complete(ec);
        },
        token, fd_);
  }

 private:
  queue_waker(queue_ptr queue, boost::asio::posix::stream_descriptor fd) noexcept;
  void drain_counter() noexcept;

  queue_ptr queue_;
  boost::asio::posix::stream_descriptor fd_;
};

}  // namespace streamt::kafka
