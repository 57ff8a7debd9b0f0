// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// A run's session and the driver's side of it, one event at a time, for the
// step-by-step session tests (session_tests.cpp, cluster_fault_tests.cpp):
// the errors librdkafka reports, the stop facts, and `run`, which performs
// the actions as a driver would.

#include "engine/session/session.hpp"

#include "client.hpp"
#include "records.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace streamt::test::steps {

namespace ss = streamt::engine::session;
namespace k = streamt::kafka;
using ss::act;
using streamt::engine::batch_result;
using streamt::engine::invalid_record;
using streamt::engine::record_counts;
using streamt::engine::record_view;
using streamt::engine::run_status;
using namespace std::chrono_literals;

using streamt::test::client;
inline ss::failure ok() { return {}; }
inline ss::failure timed_out() {
  return client(k::txn_error_info::retriable_error(RD_KAFKA_RESP_ERR__TIMED_OUT), "timed out");
}
// librdkafka's answer when a commit or abort slice ends with the call under
// way, and when the whole call timed out: the same retriable timeout.
inline ss::failure slice_ended() {
  return client(k::txn_error_info::retriable_error(RD_KAFKA_RESP_ERR__TIMED_OUT), "slice ended");
}
inline ss::failure coordinator_moved() {
  return client(k::txn_error_info::retriable_error(RD_KAFKA_RESP_ERR_NOT_COORDINATOR), "coordinator moved");
}
inline ss::failure abortable(rd_kafka_resp_err_t code = RD_KAFKA_RESP_ERR__MSG_TIMED_OUT) {
  return client(k::txn_error_info::abortable_error(code), "abortable");
}
inline ss::failure fenced() {
  return client(k::txn_error_info::fatal_error(RD_KAFKA_RESP_ERR_PRODUCER_FENCED), "fenced by a newer epoch");
}
inline ss::failure too_large() {
  return client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE),
                "Broker: Message size too large");
}

constexpr ss::stop_facts graceful{.requested = true, .terminal = false, .deadline = false};
constexpr ss::stop_facts terminal{.requested = true, .terminal = true, .deadline = false};
constexpr ss::stop_facts deadline{.requested = true, .terminal = true, .deadline = true};

inline ss::config config_with(std::chrono::milliseconds interval = 100ms) {
  ss::config c;
  c.application_id = "orders-app";
  c.source_topic = "orders";
  c.sink_topics = {"big-orders"};
  c.commit_interval = interval;
  return c;
}

// A run's session and the driver's side of it, one event at a time: `now` is
// the test's clock, `batch` the records in hand.
struct run {
  ss::run_session s;
  ss::clock::time_point now = ss::clock::time_point{} + 1h;
  std::vector<record_view> batch;

  explicit run(ss::config c = config_with()) : s(std::move(c)) {}

  // Started and owning `partitions`: the session asks to poll.
  ss::action owning(std::vector<std::int32_t> partitions) {
    BOOST_TEST_REQUIRE(s.on(ss::started{}).kind == act::poll);
    std::vector<ss::partition_id> ids;
    for (std::int32_t p : partitions) ids.push_back({p});
    return s.on(ss::assigned{ids});
  }

  ss::action arrive(std::initializer_list<std::pair<std::int32_t, std::int64_t>> at) {
    batch = streamt::test::records(at);
    return s.on(ss::records_arrived{batch, now});
  }

  // Performs a produce action: every record it takes emits one output of
  // `size` bytes (announced to the sink tracker, as the producer adapter
  // does), unless `invalid_at` stops the batch there.
  ss::action produce(const ss::action& a, std::optional<std::size_t> invalid_at = std::nullopt,
                     std::size_t size = 10) {
    BOOST_TEST_REQUIRE(a.kind == act::produce);
    batch_result r;
    r.handled = std::min(a.take, invalid_at.value_or(a.take));
    // The session's batch, as the driver takes it: what arrived less what
    // the session dropped.
    const std::span<const record_view> in_hand = s.batch();
    for (std::size_t i = 0; i < r.handled; ++i) s.sink().producing(in_hand[i], size);
    if (invalid_at) {
      streamt::diagnostic d;
      d.phase = streamt::phase::record;
      d.code = "type_mismatch";
      d.message = "column 'amount' expects BIGINT";
      const record_view& v = in_hand[*invalid_at];
      r.invalid = invalid_record{std::string(v.topic), v.partition, v.offset, d};
    }
    record_counts counts;
    counts.consumed = r.handled;
    counts.emitted = r.handled;
    return s.on(ss::batch_produced{r, counts, now});
  }

  // Records arrive in an idle run: begun, produced; the session polls again.
  ss::action open_with(std::initializer_list<std::pair<std::int32_t, std::int64_t>> at) {
    BOOST_TEST_REQUIRE(arrive(at).kind == act::begin);
    const ss::action produce_it = s.on(ss::began{ok(), now});
    return produce(produce_it);
  }

  ss::action commit_returns(ss::failure e, std::chrono::milliseconds took = 5ms) {
    const auto called = now;
    now += took;
    return s.on(ss::commit_returned{std::move(e), called, now});
  }

  ss::action abort_returns(ss::failure e, std::chrono::milliseconds took = 5ms) {
    const auto called = now;
    now += took;
    return s.on(ss::abort_returned{std::move(e), called, now});
  }

  // The commit interval ended: offsets sent, commit called; the outcome is
  // the caller's.
  void to_commit() {
    BOOST_TEST_REQUIRE(s.on(ss::commit_due{}).kind == act::send_offsets);
    const ss::action c = s.on(ss::offsets_sent{ok()});
    BOOST_TEST_REQUIRE(c.kind == act::commit);
    BOOST_TEST(c.first_slice);
  }

  // The transaction's record `index` was refused for good (too large): the
  // commit fails, the transaction is aborted and rewound, and `at` arrive
  // again in a new transaction.
  void refused_for_good_and_taken_again(std::uint64_t index,
                                        std::initializer_list<std::pair<std::int32_t, std::int64_t>> at) {
    s.sink().delivery_failed((std::uint64_t{1} << 32) | index, too_large());
    to_commit();
    BOOST_TEST_REQUIRE(commit_returns(abortable(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE)).kind == act::abort);
    BOOST_TEST_REQUIRE(abort_returns(ok()).kind == act::rewind);
    BOOST_TEST_REQUIRE(s.on(ss::rewound{ok()}).kind == act::poll);
    BOOST_TEST_REQUIRE(arrive(at).kind == act::begin);
  }

  // With the records before an unproducible one sent: they commit, and the
  // run ends at that record with `code`.
  void commits_and_stops_at(std::string_view code, std::int64_t at) {
    BOOST_TEST_REQUIRE(s.on(ss::offsets_sent{ok()}).kind == act::commit);
    BOOST_TEST_REQUIRE(commit_returns(ok()).kind == act::close);
    const ss::ending e = s.outcome();
    BOOST_TEST((e.status == run_status::invalid_record));
    BOOST_TEST_REQUIRE(e.invalid.has_value());
    BOOST_TEST(e.invalid->error.code == code);
    BOOST_TEST(e.invalid->offset == at);
    BOOST_TEST(committed(0) == at);
  }

  std::int64_t pending(std::int32_t p) const { return s.ledger().pending().at(ss::partition_id{p}).value; }
  std::int64_t committed(std::int32_t p) const {
    return s.ledger().committed_by_us(ss::partition_id{p}).value_or(ss::offset{-1}).value;
  }
};

}  // namespace streamt::test::steps
