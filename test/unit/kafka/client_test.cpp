// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/consumer.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>

#include "kafka/producer.hpp"

#include <librdkafka/rdkafka_mock.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <chrono>
#include <string>

// GCC 12 false positive on Asio's coroutine frame operator new/delete pair
// in large coroutine lambdas (GCC bug 104316 family); the pair does match.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace asio = boost::asio;
namespace k = streamt::kafka;
using namespace asio::experimental::awaitable_operators;
using namespace std::chrono_literals;

BOOST_TEST_DONT_PRINT_LOG_VALUE(k::errc)

namespace {

// librdkafka's in-process mock cluster lives inside the producer that created
// it; the consumer connects to it by its bootstrap address. Client-side paths
// only: it is not a broker we test broker behaviour against.
struct mock_clients {
  asio::io_context io;
  std::unique_ptr<k::producer> producer;
  std::unique_ptr<k::consumer> consumer;

  mock_clients() {
    auto p = k::producer::create(io.get_executor(), "streamt-test-txn", {{"test.mock.num.brokers", "1"}});
    BOOST_TEST_REQUIRE(p.has_value(), (p.has_error() ? p.error().message : ""));
    producer = std::move(*p);
    auto* mock = rd_kafka_handle_mock_cluster(producer->native_handle());
    BOOST_TEST_REQUIRE(mock != nullptr);
    rd_kafka_mock_topic_create(mock, "in", 1, 1);
    rd_kafka_mock_topic_create(mock, "out", 1, 1);
    auto c = k::consumer::create(io.get_executor(), "streamt-test-group", "",
                                 {{"bootstrap.servers", rd_kafka_mock_cluster_bootstraps(mock)}});
    BOOST_TEST_REQUIRE(c.has_value(), (c.has_error() ? c.error().message : ""));
    consumer = std::move(*c);
  }
  ~mock_clients() { consumer.reset(); }

  template <class Awaitable>
  void run(Awaitable a) {
    auto done = asio::co_spawn(io, std::move(a), asio::use_future);
    io.run();
    done.get();
  }
};

// Waits for `op` but never longer than `limit`; returns nullopt on timeout.
template <class T>
asio::awaitable<std::optional<T>> within(asio::awaitable<T> op, std::chrono::seconds limit) {
  asio::steady_timer timer(co_await asio::this_coro::executor, limit);
  auto r = co_await (std::move(op) || timer.async_wait(asio::as_tuple(asio::use_awaitable)));
  if (r.index() == 1) co_return std::nullopt;
  co_return std::move(std::get<0>(r));
}

asio::awaitable<std::size_t> await_deliveries(k::producer& p, std::size_t n,
                                              std::vector<k::delivery_report>& out) {
  while (out.size() < n) {
    auto events = co_await within(p.async_poll_events(64), 20s);
    if (!events || !*events) co_return out.size();
    for (auto& d : (*events)->deliveries) out.push_back(std::move(d));
  }
  co_return out.size();
}

// Serves delivery reports until cancelled. librdkafka in event mode counts a
// record as outstanding until its report was polled and destroyed, so
// commit_transaction and abort_transaction only complete while this runs.
asio::awaitable<void> serve_deliveries(k::producer& p) {
  for (;;) {
    auto events = co_await p.async_poll_events(64);
    if (!events) co_return;
  }
}

// `op` (a commit or abort) raced against serving delivery reports; the serving
// loop never finishes by itself, so the result is always op's.
asio::awaitable<k::error_report> served(k::producer& p, asio::awaitable<k::error_report> op) {
  auto r = co_await (std::move(op) || serve_deliveries(p));
  co_return std::get<0>(std::move(r));
}

std::string_view payload(const k::message_ptr& m) { return {static_cast<const char*>(m->payload), m->len}; }

// A setting as the created client holds it (librdkafka's own copy).
std::string setting_of(rd_kafka_t* rk, const char* key) {
  char value[256] = {};
  std::size_t size = sizeof value;
  if (rd_kafka_conf_get(rd_kafka_conf(rk), key, value, &size) != RD_KAFKA_CONF_OK) return "?";
  return value;
}

// Assigns partition 0 of `topic` from its beginning and polls until `n` of
// its records have come (other assigned topics' records are left out).
asio::awaitable<std::vector<k::message_ptr>> read_from(mock_clients& t, std::string topic, std::size_t n) {
  BOOST_TEST_REQUIRE(!t.consumer->incremental_assign({{{topic, 0}, RD_KAFKA_OFFSET_BEGINNING}}).failed());
  std::vector<k::message_ptr> got;
  while (got.size() < n) {
    auto batch = co_await within(t.consumer->async_poll_batch(10), 20s);
    BOOST_TEST_REQUIRE(batch.has_value());
    BOOST_TEST_REQUIRE(batch->has_value());
    BOOST_TEST_REQUIRE((*batch)->errors.empty(),
                       ((*batch)->errors.empty() ? "" : (*batch)->errors.front().error.message));
    for (auto& m : (*batch)->messages)
      if (rd_kafka_topic_name(m->rkt) == topic) got.push_back(std::move(m));
  }
  co_return got;
}

}  // namespace

// The producer's own defaults (kafka/producer.cpp says why for each): the
// idle-connection bound that ends librdkafka's wait after the group
// coordinator's node dies, and the 20 ms retry that keeps a transaction
// begun right after a commit from waiting 100 ms for the coordinator. A
// user's -X value wins over each.
BOOST_AUTO_TEST_CASE(the_producer_sets_its_defaults_unless_the_user_sets_another_value) {
  struct default_setting {
    std::string key, engine_value, user_value;
  };
  const std::vector<default_setting> defaults{{"connections.max.idle.ms", "15000", "60000"},
                                              {"retry.backoff.ms", "20", "250"}};
  asio::io_context io;
  for (const default_setting& d : defaults) {
    auto plain =
        k::producer::create(io.get_executor(), "streamt-test-defaults", {{"test.mock.num.brokers", "1"}});
    BOOST_TEST_REQUIRE(plain.has_value(), (plain.has_error() ? plain.error().message : ""));
    BOOST_TEST(setting_of((*plain)->native_handle(), d.key.c_str()) == d.engine_value, d.key);
    auto told = k::producer::create(io.get_executor(), "streamt-test-defaults",
                                    {{"test.mock.num.brokers", "1"}, {d.key, d.user_value}});
    BOOST_TEST_REQUIRE(told.has_value(), (told.has_error() ? told.error().message : ""));
    BOOST_TEST(setting_of((*told)->native_handle(), d.key.c_str()) == d.user_value, d.key);
  }
}

// The default that keeps a full prefetch queue from idling the consumer for
// a second (kafka/consumer.cpp says why); librdkafka before 2.2.0 has no
// such key, and the engine leaves it out there.
BOOST_AUTO_TEST_CASE(the_consumer_backs_off_a_full_prefetch_queue_50_ms_unless_the_user_sets_another_value) {
  if (!k::has_fetch_queue_backoff(rd_kafka_version())) {
    BOOST_TEST_MESSAGE("librdkafka " << rd_kafka_version_str() << " has no fetch.queue.backoff.ms");
    return;
  }
  asio::io_context io;
  auto plain =
      k::consumer::create(io.get_executor(), "streamt-test-backoff", "", {{"test.mock.num.brokers", "1"}});
  BOOST_TEST_REQUIRE(plain.has_value(), (plain.has_error() ? plain.error().message : ""));
  BOOST_TEST(setting_of((*plain)->native_handle(), "fetch.queue.backoff.ms") == "50");
  auto told = k::consumer::create(io.get_executor(), "streamt-test-backoff", "",
                                  {{"test.mock.num.brokers", "1"}, {"fetch.queue.backoff.ms", "1000"}});
  BOOST_TEST_REQUIRE(told.has_value(), (told.has_error() ? told.error().message : ""));
  BOOST_TEST(setting_of((*told)->native_handle(), "fetch.queue.backoff.ms") == "1000");
}

BOOST_AUTO_TEST_CASE(creating_a_consumer_with_an_engine_owned_override_fails_naming_the_key) {
  asio::io_context io;
  auto c = k::consumer::create(io.get_executor(), "g", "", {{"enable.auto.commit", "true"}});
  BOOST_TEST_REQUIRE(c.has_error());
  BOOST_TEST(c.error().code == k::errc::engine_owned_setting);
  BOOST_TEST(c.error().key == "enable.auto.commit");
}

BOOST_AUTO_TEST_CASE(a_committed_transaction_is_delivered_and_read_back_with_key_value_and_headers) {
  mock_clients t;
  t.run([&]() -> asio::awaitable<void> {
    auto init = co_await t.producer->async_init_transactions();
    BOOST_TEST_REQUIRE(!init.failed(), init.message);
    BOOST_TEST_REQUIRE(!t.producer->begin_transaction().failed());

    const k::header_view headers[] = {{"trace", std::string_view("abc")}, {"nil", std::nullopt}};
    BOOST_TEST(
        !t.producer->produce("out", {.key = "k1", .value = "v1", .headers = headers, .opaque = 1}).failed());
    BOOST_TEST(!t.producer->produce("out", {.key = std::nullopt, .value = "", .opaque = 2}).failed());
    BOOST_TEST(!t.producer->produce("out", {.key = "k3", .value = std::nullopt, .opaque = 3}).failed());

    std::vector<k::delivery_report> deliveries;
    BOOST_TEST_REQUIRE(co_await await_deliveries(*t.producer, 3, deliveries) == 3u);
    for (const auto& d : deliveries) {
      BOOST_TEST(!d.error.failed(), d.error.message);
      BOOST_TEST(d.partition == 0);
    }
    BOOST_TEST(deliveries[0].opaque == 1u);
    BOOST_TEST(deliveries[2].opaque == 3u);

    auto commit = co_await served(*t.producer, t.producer->async_commit_transaction());
    BOOST_TEST_REQUIRE(!commit.failed(), commit.message);

    std::vector<k::message_ptr> got = co_await read_from(t, "out", 3);
    BOOST_TEST(payload(got[0]) == "v1");
    BOOST_TEST(std::string_view(static_cast<const char*>(got[0]->key), got[0]->key_len) == "k1");
    rd_kafka_headers_t* hdrs = nullptr;
    BOOST_TEST_REQUIRE(rd_kafka_message_headers(got[0].get(), &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR);
    const void* value = nullptr;
    size_t size = 0;
    BOOST_TEST(rd_kafka_header_get_last(hdrs, "trace", &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR);
    BOOST_TEST(std::string_view(static_cast<const char*>(value), size) == "abc");
    BOOST_TEST(rd_kafka_header_get_last(hdrs, "nil", &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR);
    BOOST_TEST(value == nullptr);
    BOOST_TEST(got[1]->key == nullptr);      // a null key stays null
    BOOST_TEST(got[1]->payload != nullptr);  // an empty value is not a tombstone
    BOOST_TEST(got[1]->len == 0u);
    BOOST_TEST(got[2]->payload == nullptr);  // a tombstone stays a tombstone

    const k::topic_partition out0{"out", 0};
    auto marks = co_await t.consumer->async_query_watermarks(out0, 10s);
    BOOST_TEST_REQUIRE(marks.has_value(), (marks.has_error() ? marks.error().message : ""));
    BOOST_TEST(marks->low == 0);
    BOOST_TEST(marks->high >= 3);

    auto closed = co_await t.consumer->async_close();
    BOOST_TEST(!closed.failed(), closed.message);
    auto after = co_await t.consumer->async_poll_batch(1);
    BOOST_TEST((after.error() == boost::system::error_code(k::errc::closed)));
  }());
}

// The mock acknowledges TxnOffsetCommit without storing the offsets, so the
// committed value itself is checked against the real broker (integration).
BOOST_AUTO_TEST_CASE(offsets_are_sent_to_a_transaction_with_the_consumers_group_metadata_and_committed) {
  mock_clients t;
  t.run([&]() -> asio::awaitable<void> {
    BOOST_TEST_REQUIRE(!(co_await t.producer->async_init_transactions()).failed());
    // GCC 12 miscompiles braced initializer lists inside co_await
    // expressions ("array used as initializer"): build arguments first.
    const std::vector<k::topic_partition> in0{{"in", 0}};
    auto before = co_await t.consumer->async_committed(in0, 10s);
    BOOST_TEST_REQUIRE(before.has_value(), (before.has_error() ? before.error().message : ""));
    BOOST_TEST(!before->at(0).offset.has_value());

    BOOST_TEST_REQUIRE(!t.producer->begin_transaction().failed());
    BOOST_TEST(!t.producer->produce("out", {.key = "k", .value = "v"}).failed());
    std::vector<k::partition_offset> next{{{"in", 0}, 6}};
    auto sent =
        co_await t.producer->async_send_offsets_to_transaction(std::move(next), t.consumer->group_metadata());
    BOOST_TEST_REQUIRE(!sent.failed(), sent.message);
    auto commit = co_await served(*t.producer, t.producer->async_commit_transaction());
    BOOST_TEST_REQUIRE(!commit.failed(), commit.message);

    auto after = co_await t.consumer->async_committed(in0, 10s);
    BOOST_TEST_REQUIRE(after.has_value(), (after.has_error() ? after.error().message : ""));
    BOOST_TEST(after->size() == 1u);
  }());
}

BOOST_AUTO_TEST_CASE(an_aborted_transaction_completes_and_the_producer_can_begin_again) {
  mock_clients t;
  t.run([&]() -> asio::awaitable<void> {
    BOOST_TEST_REQUIRE(!(co_await t.producer->async_init_transactions()).failed());
    BOOST_TEST_REQUIRE(!t.producer->begin_transaction().failed());
    BOOST_TEST(!t.producer->produce("out", {.key = "k", .value = "doomed"}).failed());
    auto aborted = co_await served(*t.producer, t.producer->async_abort_transaction());
    BOOST_TEST(!aborted.failed(), aborted.message);
    BOOST_TEST(!t.producer->begin_transaction().failed());
    BOOST_TEST(!(co_await served(*t.producer, t.producer->async_abort_transaction())).failed());
  }());
}

BOOST_AUTO_TEST_CASE(a_second_begin_without_commit_is_an_error_value_not_an_exception) {
  mock_clients t;
  t.run([&]() -> asio::awaitable<void> {
    BOOST_TEST_REQUIRE(!(co_await t.producer->async_init_transactions()).failed());
    BOOST_TEST_REQUIRE(!t.producer->begin_transaction().failed());
    const auto again = t.producer->begin_transaction();
    BOOST_TEST(again.failed());
    BOOST_TEST(!again.message.empty());
  }());
}

BOOST_AUTO_TEST_CASE(polling_an_idle_consumer_loses_to_a_timer_and_returns_promptly) {
  mock_clients t;
  t.run([&]() -> asio::awaitable<void> {
    BOOST_TEST_REQUIRE(!t.consumer->incremental_assign({{{"in", 0}, RD_KAFKA_OFFSET_BEGINNING}}).failed());
    const auto start = std::chrono::steady_clock::now();
    auto r = co_await within(t.consumer->async_poll_batch(10), 1s);
    BOOST_TEST(!r.has_value());
    BOOST_TEST((std::chrono::steady_clock::now() - start < 10s));
  }());
}

// The engine takes queued records with try_poll_batch and awaits only when it
// finds nothing: both must see the same records, in order, and an empty
// queue must answer at once rather than wait.
BOOST_AUTO_TEST_CASE(try_poll_batch_takes_what_is_queued_and_answers_empty_at_once_when_nothing_is) {
  mock_clients t;
  t.run([&]() -> asio::awaitable<void> {
    auto idle = t.consumer->try_poll_batch(10);
    BOOST_TEST_REQUIRE(idle.has_value());
    BOOST_TEST(idle->empty());

    BOOST_TEST_REQUIRE(!(co_await t.producer->async_init_transactions()).failed());
    BOOST_TEST_REQUIRE(!t.producer->begin_transaction().failed());
    for (const char* v : {"a", "b", "c", "d"})
      BOOST_TEST(!t.producer->produce("in", {.key = "k", .value = std::string_view(v)}).failed());
    auto commit = co_await served(*t.producer, t.producer->async_commit_transaction());
    BOOST_TEST_REQUIRE(!commit.failed(), commit.message);

    BOOST_TEST_REQUIRE(!t.consumer->incremental_assign({{{"in", 0}, RD_KAFKA_OFFSET_BEGINNING}}).failed());
    std::string got;
    std::size_t taken_without_waiting = 0;
    while (got.size() < 4) {
      auto ready = t.consumer->try_poll_batch(3);
      BOOST_TEST_REQUIRE(ready.has_value());
      BOOST_TEST_REQUIRE(ready->errors.empty());
      BOOST_TEST(ready->messages.size() <= 3u);
      taken_without_waiting += ready->messages.size();
      for (const auto& m : ready->messages) got += payload(m);
      if (!ready->empty()) continue;
      auto waited = co_await within(t.consumer->async_poll_batch(1), 20s);
      BOOST_TEST_REQUIRE(waited.has_value());
      BOOST_TEST_REQUIRE(waited->has_value());
      for (const auto& m : (*waited)->messages) got += payload(m);
    }
    BOOST_TEST(got == "abcd");
    // async_poll_batch(1) took at most one record per wake-up: the others
    // were queued and taken without waiting.
    BOOST_TEST(taken_without_waiting >= 1u);
    auto drained = t.consumer->try_poll_batch(10);
    BOOST_TEST_REQUIRE(drained.has_value());
    BOOST_TEST(drained->messages.empty());

    BOOST_TEST(!(co_await t.consumer->async_close()).failed());
    auto after = t.consumer->try_poll_batch(1);
    BOOST_TEST((after.error() == boost::system::error_code(k::errc::closed)));
  }());
}

// Records "0", "1", ... of key "k" written to "in" in one committed
// transaction: a backlog for the consumer tests.
asio::awaitable<void> commit_numbered(mock_clients& t, int records) {
  BOOST_TEST_REQUIRE(!(co_await t.producer->async_init_transactions()).failed());
  BOOST_TEST_REQUIRE(!t.producer->begin_transaction().failed());
  for (int i = 0; i < records; ++i) {
    const std::string v = std::to_string(i);
    BOOST_TEST(!t.producer->produce("in", {.key = "k", .value = std::string_view(v)}).failed());
  }
  auto commit = co_await served(*t.producer, t.producer->async_commit_transaction());
  BOOST_TEST_REQUIRE(!commit.failed(), commit.message);
}

// A backlog is taken in full batches: one loop turn of the engine per batch,
// not per record. (A batch of one record each was the cost of a moved-from
// pointer tested after the move.)
BOOST_AUTO_TEST_CASE(a_queued_backlog_is_taken_in_full_batches_in_order) {
  mock_clients t;
  t.run([&]() -> asio::awaitable<void> {
    constexpr int records = 50;
    co_await commit_numbered(t, records);

    BOOST_TEST_REQUIRE(!t.consumer->incremental_assign({{{"in", 0}, RD_KAFKA_OFFSET_BEGINNING}}).failed());
    std::vector<std::string> got;
    std::size_t largest = 0;
    while (got.size() < static_cast<std::size_t>(records)) {
      auto batch = co_await within(t.consumer->async_poll_batch(20), 20s);
      BOOST_TEST_REQUIRE(batch.has_value());
      BOOST_TEST_REQUIRE(batch->has_value());
      BOOST_TEST_REQUIRE((*batch)->errors.empty());
      BOOST_TEST((*batch)->messages.size() <= 20u);
      largest = std::max(largest, (*batch)->messages.size());
      for (const auto& m : (*batch)->messages) got.emplace_back(payload(m));
    }
    // One fetch brings the whole committed transaction, so the queue holds
    // more than a batch: at least one batch is full.
    BOOST_TEST(largest == 20u);
    for (int i = 0; i < records; ++i) BOOST_TEST(got[static_cast<std::size_t>(i)] == std::to_string(i));
  }());
}

// The engine emits a record with its input's headers without reading them
// first: the view points at the consumed message, and the producer copies
// its headers from there. Null header values stay null; a record without
// headers gets none.
BOOST_AUTO_TEST_CASE(a_consumed_record_s_headers_are_copied_to_its_output_from_the_message_itself) {
  mock_clients t;
  t.run([&]() -> asio::awaitable<void> {
    BOOST_TEST_REQUIRE(!(co_await t.producer->async_init_transactions()).failed());
    BOOST_TEST_REQUIRE(!t.producer->begin_transaction().failed());
    const k::header_view headers[] = {{"trace", std::string_view("abc")}, {"nil", std::nullopt}};
    BOOST_TEST(!t.producer->produce("in", {.key = "a", .value = "1", .headers = headers}).failed());
    BOOST_TEST(!t.producer->produce("in", {.key = "b", .value = "2"}).failed());
    auto commit = co_await served(*t.producer, t.producer->async_commit_transaction());
    BOOST_TEST_REQUIRE(!commit.failed(), commit.message);

    std::vector<k::message_ptr> in = co_await read_from(t, "in", 2);
    std::vector<k::message_view> views;
    k::view_messages(in, views);
    BOOST_TEST_REQUIRE(views.size() == 2u);
    BOOST_TEST(views[0].headers.empty());  // not read: left in the message
    BOOST_TEST_REQUIRE(views[0].consumed != nullptr);

    BOOST_TEST_REQUIRE(!t.producer->begin_transaction().failed());
    for (const k::message_view& v : views)
      BOOST_TEST(
          !t.producer->produce("out", {.key = v.key, .value = v.value, .headers_of = v.consumed}).failed());
    auto second = co_await served(*t.producer, t.producer->async_commit_transaction());
    BOOST_TEST_REQUIRE(!second.failed(), second.message);

    std::vector<k::message_ptr> out = co_await read_from(t, "out", 2);
    rd_kafka_headers_t* hdrs = nullptr;
    BOOST_TEST_REQUIRE(rd_kafka_message_headers(out[0].get(), &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR);
    BOOST_TEST(rd_kafka_header_cnt(hdrs) == 2u);
    const void* value = nullptr;
    size_t size = 0;
    BOOST_TEST(rd_kafka_header_get_last(hdrs, "trace", &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR);
    BOOST_TEST(std::string_view(static_cast<const char*>(value), size) == "abc");
    BOOST_TEST(rd_kafka_header_get_last(hdrs, "nil", &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR);
    BOOST_TEST(value == nullptr);
    rd_kafka_headers_t* none = nullptr;
    BOOST_TEST(rd_kafka_message_headers(out[1].get(), &none) == RD_KAFKA_RESP_ERR__NOENT);
  }());
}

// After a rewind (an abort's seek back to the committed offset) no batch
// yields a record fetched before the seek: the next record is the one
// sought to, and every later one follows it in order. The engine's own
// guard (offset_ledger::current) drops older ones too; this is librdkafka's
// part, with its batch call on the default build.
BOOST_AUTO_TEST_CASE(after_a_seek_back_the_next_batches_start_at_the_position_sought_to_in_order) {
  mock_clients t;
  t.run([&]() -> asio::awaitable<void> {
    constexpr int records = 60;
    co_await commit_numbered(t, records);

    BOOST_TEST_REQUIRE(!t.consumer->incremental_assign({{{"in", 0}, RD_KAFKA_OFFSET_BEGINNING}}).failed());
    std::int64_t last = -1;
    while (last < 19) {
      auto batch = co_await within(t.consumer->async_poll_batch(20), 20s);
      BOOST_TEST_REQUIRE(batch.has_value());
      BOOST_TEST_REQUIRE(batch->has_value());
      for (const auto& m : (*batch)->messages) last = m->offset;
    }
    // The fetched records past `last` are still queued when the seek runs.
    std::vector<k::partition_offset> back{{{"in", 0}, 5}};
    auto seek = t.consumer->async_seek(std::move(back));
    BOOST_TEST_REQUIRE(!(co_await std::move(seek)).failed());
    std::vector<std::int64_t> after;
    while (after.empty() || after.back() < records - 1) {
      auto batch = co_await within(t.consumer->async_poll_batch(20), 20s);
      BOOST_TEST_REQUIRE(batch.has_value());
      BOOST_TEST_REQUIRE(batch->has_value());
      BOOST_TEST_REQUIRE((*batch)->errors.empty());
      for (const auto& m : (*batch)->messages) after.push_back(m->offset);
    }
    BOOST_TEST_REQUIRE(after.size() == static_cast<std::size_t>(records - 5));
    for (std::size_t i = 0; i < after.size(); ++i) BOOST_TEST(after[i] == static_cast<std::int64_t>(i + 5));
  }());
}

BOOST_AUTO_TEST_CASE(polling_an_idle_producer_loses_to_a_timer_and_returns_promptly) {
  mock_clients t;
  t.run([&]() -> asio::awaitable<void> {
    auto r = co_await within(t.producer->async_poll_events(10), 1s);
    BOOST_TEST(!r.has_value());
  }());
}

BOOST_AUTO_TEST_CASE(
    a_subscription_reports_the_assignment_as_a_rebalance_event_and_a_missing_offset_as_an_error) {
  mock_clients t;
  t.run([&]() -> asio::awaitable<void> {
    BOOST_TEST_REQUIRE(!t.consumer->subscribe({"in"}).failed());
    std::optional<k::rebalance_event> rebalance;
    while (!rebalance) {
      auto batch = co_await within(t.consumer->async_poll_batch(10), 30s);
      BOOST_TEST_REQUIRE(batch.has_value());
      BOOST_TEST_REQUIRE(batch->has_value());
      rebalance = std::move((*batch)->rebalance);
    }
    BOOST_TEST((rebalance->what == k::rebalance_event::kind::assigned));
    BOOST_TEST_REQUIRE(rebalance->partitions.size() == 1u);
    BOOST_TEST(rebalance->partitions[0].topic == "in");
    // Nothing committed and auto.offset.reset=error: the engine hears about it.
    BOOST_TEST_REQUIRE(!t.consumer->incremental_assign({{rebalance->partitions[0], k::no_offset}}).failed());
    std::optional<k::consumer_error> error;
    while (!error) {
      auto batch = co_await within(t.consumer->async_poll_batch(10), 30s);
      BOOST_TEST_REQUIRE(batch.has_value());
      BOOST_TEST_REQUIRE(batch->has_value());
      if (!(*batch)->errors.empty()) error = (*batch)->errors.front();
    }
    BOOST_TEST(error->error.info.code == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET);
    BOOST_TEST_REQUIRE(error->partition.has_value());
    BOOST_TEST(error->partition->topic == "in");
    BOOST_TEST(!(co_await t.consumer->async_close()).failed());
  }());
}
