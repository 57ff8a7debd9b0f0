// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/queue_waker.hpp"

#include <boost/test/unit_test.hpp>

#include <librdkafka/rdkafka_mock.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <chrono>
#include <optional>

namespace asio = boost::asio;
namespace k = streamt::kafka;
using namespace asio::experimental::awaitable_operators;
using namespace std::chrono_literals;

namespace {

constexpr auto tuple_awaitable = asio::as_tuple(asio::use_awaitable);

// A producer on librdkafka's in-process mock cluster (client-side paths only),
// with delivery reports as events on its main queue.
k::kafka_ptr mock_producer() {
  k::conf_ptr conf(rd_kafka_conf_new());
  char err[256];
  BOOST_TEST_REQUIRE(rd_kafka_conf_set(conf.get(), "test.mock.num.brokers", "1", err, sizeof err) ==
                     RD_KAFKA_CONF_OK);
  rd_kafka_conf_set_events(conf.get(), RD_KAFKA_EVENT_DR);
  k::kafka_ptr rk(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), err, sizeof err));
  BOOST_TEST_REQUIRE(rk != nullptr, err);
  (void)conf.release();
  return rk;
}

template <class Awaitable>
void run(asio::io_context& io, Awaitable a) {
  auto done = asio::co_spawn(io, std::move(a), asio::use_future);
  io.run();
  done.get();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_wait_with_nothing_arriving_loses_to_a_timer_and_returns_promptly) {
  asio::io_context io;
  auto rk = mock_producer();
  auto waker = k::queue_waker::create(io.get_executor(), k::queue_ptr(rd_kafka_queue_new(rk.get())));
  BOOST_TEST_REQUIRE(waker.has_value());
  run(io, [&]() -> asio::awaitable<void> {
    asio::steady_timer timer(io, 50ms);
    const auto start = std::chrono::steady_clock::now();
    auto winner = co_await (waker->async_wait(tuple_awaitable) || timer.async_wait(tuple_awaitable));
    const auto elapsed = std::chrono::steady_clock::now() - start;
    BOOST_TEST(winner.index() == 1u);
    BOOST_TEST((elapsed >= 50ms));
    BOOST_TEST((elapsed < 5s));
  }());
}

BOOST_AUTO_TEST_CASE(a_cancelled_wait_completes_with_operation_aborted_for_every_cancellation_type) {
  auto rk = mock_producer();
  for (auto type : {asio::cancellation_type::terminal, asio::cancellation_type::partial,
                    asio::cancellation_type::total}) {
    asio::io_context io;
    auto waker = k::queue_waker::create(io.get_executor(), k::queue_ptr(rd_kafka_queue_new(rk.get())));
    BOOST_TEST_REQUIRE(waker.has_value());
    asio::cancellation_signal signal;
    std::optional<boost::system::error_code> result;
    waker->async_wait(
        asio::bind_cancellation_slot(signal.slot(), [&](boost::system::error_code ec) { result = ec; }));
    asio::post(io, [&] { signal.emit(type); });
    io.run_for(5s);
    BOOST_TEST_REQUIRE(result.has_value());
    BOOST_TEST((*result == asio::error::operation_aborted));
  }
}

BOOST_AUTO_TEST_CASE(a_delivery_report_on_the_main_queue_wakes_the_waiter_and_can_then_be_polled) {
  asio::io_context io;
  auto rk = mock_producer();
  rd_kafka_mock_topic_create(rd_kafka_handle_mock_cluster(rk.get()), "waker", 1, 1);
  auto waker = k::queue_waker::create(io.get_executor(), k::queue_ptr(rd_kafka_queue_get_main(rk.get())));
  BOOST_TEST_REQUIRE(waker.has_value());
  run(io, [&]() -> asio::awaitable<void> {
    BOOST_TEST(rd_kafka_producev(
                   rk.get(), RD_KAFKA_V_TOPIC("waker"), RD_KAFKA_V_VALUE(const_cast<char*>("v"), 1),
                   RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR_NO_ERROR);
    asio::steady_timer timer(io, 20s);
    auto winner = co_await (waker->async_wait(tuple_awaitable) || timer.async_wait(tuple_awaitable));
    BOOST_TEST_REQUIRE(winner.index() == 0u);
    BOOST_TEST(!std::get<0>(std::get<0>(winner)));
    k::event_ptr ev(rd_kafka_queue_poll(waker->queue(), 0));
    BOOST_TEST_REQUIRE(ev != nullptr);
    BOOST_TEST(rd_kafka_event_type(ev.get()) == RD_KAFKA_EVENT_DR);
    const rd_kafka_message_t* m = rd_kafka_event_message_next(ev.get());
    BOOST_TEST_REQUIRE(m != nullptr);
    BOOST_TEST(m->err == RD_KAFKA_RESP_ERR_NO_ERROR);
    BOOST_TEST(m->offset == 0);
  }());
}
