// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Runs a blocking librdkafka call on a dedicated executor (a one-thread pool)
// and completes on the caller's executor. The io_context that serves delivery
// reports and fetched messages must never block: commit_transaction waits for
// every outstanding delivery, so blocking the thread that handles delivery
// reports in it would stall the very thing it waits for.

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <utility>

namespace streamt::kafka::detail {

// Completion signature void(R), on the awaiting coroutine's executor, which
// is kept alive (outstanding work) while the call runs. No cancellation: a
// blocking librdkafka call can't be interrupted, and completing early would
// let the caller start the next transactional call while this one still runs
// (librdkafka then fails it with a conflict). Whatever `call` captures must
// stay valid until completion.
//
// Callers: store the returned awaitable in a named variable and then
// `co_await std::move(op)`. GCC 12 mishandles a capturing lambda temporary
// that lives in the same full-expression as a co_await (it was destroyed
// twice: heap corruption in async_committed); a named local avoids it.
template <class R, class F>
boost::asio::awaitable<R> run_blocking(boost::asio::thread_pool::executor_type pool, F call) {
  return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>&, void(R)>(
      [pool](auto handler, F fn) {
        auto home = boost::asio::prefer(boost::asio::get_associated_executor(handler),
                                        boost::asio::execution::outstanding_work.tracked);
        boost::asio::post(
            pool, [handler = std::move(handler), fn = std::move(fn), home = std::move(home)]() mutable {
              R result = fn();
              boost::asio::post(home, [handler = std::move(handler), result = std::move(result)]() mutable {
                std::move(handler)(std::move(result));
              });
            });
      },
      boost::asio::use_awaitable, std::move(call));
}

}  // namespace streamt::kafka::detail
