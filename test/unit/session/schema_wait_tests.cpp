// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include <boost/test/unit_test.hpp>

#include "engine/session/session.hpp"

#include "records.hpp"
#include "steps.hpp"

#include <chrono>
#include <string>

// engine/session/session_schemas.cpp, step by step: a record of an Avro
// source whose writer schema id the stages have not learnt stops its batch
// (batch_result::needs_schema); the session fetches the schema, has the
// stages learn it, and takes the batch up again at that record. A registry
// that does not answer is waited for, never blamed on the record.

using namespace streamt::test::steps;

namespace {

// The driver's side of a produce action whose record `at` is written with
// writer schema `id`, unknown to the stages: the records before it are
// produced, the batch stops there.
ss::action produce_until_schema(run& r, const ss::action& a, std::size_t at, std::uint32_t id) {
  BOOST_TEST_REQUIRE(a.kind == act::produce);
  BOOST_TEST_REQUIRE(at < a.take);
  batch_result res;
  res.handled = at;
  const std::span<const record_view> in_hand = r.s.batch();
  for (std::size_t i = 0; i < at; ++i) r.s.sink().producing(in_hand[i], 10);
  res.needs_schema = id;
  record_counts counts;
  counts.consumed = at;
  counts.emitted = at;
  return r.s.on(ss::batch_produced{res, counts, r.now});
}

ss::schema_answered answer(run& r, std::uint32_t id, ss::schema_answer how, std::string text = {}) {
  ss::schema_answered e;
  e.id = id;
  e.answer = how;
  if (how == ss::schema_answer::found)
    e.text = text.empty() ? R"({"type":"record","name":"order","fields":[]})" : std::move(text);
  else
    e.message = "schema registry http://127.0.0.1:8081: GET /schemas/ids/" + std::to_string(id) +
                ": connection refused";
  e.now = r.now;
  e.jitter = 0.0;
  return e;
}

ss::config dead_lettering() {
  ss::config c = config_with();
  c.dead_letter_topic = "orders-dlq";
  return c;
}

// Records 0..2 of partition 0 arrive, are begun, and the stages stop at
// record 1 (offset 1), written with writer schema 7.
ss::action waiting_at_offset_1(run& r) {
  r.owning({0});
  BOOST_TEST_REQUIRE(r.arrive({{0, 0}, {0, 1}, {0, 2}}).kind == act::begin);
  return produce_until_schema(r, r.s.on(ss::began{ok(), r.now}), 1, 7);
}

// The registry answers a fetch with `how` (no schema): what came before
// the waiting record is committed; the commit's outcome is the caller's.
void commit_before_waiting(run& r, ss::schema_answer how) {
  BOOST_TEST_REQUIRE(r.s.on(answer(r, 7, how)).kind == act::send_offsets);
  BOOST_TEST_REQUIRE(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
}

// A wait under way: the record at offset 1 waits for schema 7, the registry
// answered `how`, what came before it committed, and the session pauses.
void waiting_after_commit(run& r, ss::schema_answer how) {
  BOOST_TEST_REQUIRE(waiting_at_offset_1(r).kind == act::fetch_schema);
  commit_before_waiting(r, how);
  BOOST_TEST_REQUIRE(r.commit_returns(ok()).kind == act::retry_after);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(schema_registry_waits)

BOOST_AUTO_TEST_CASE(
    an_unknown_writer_schema_is_fetched_learnt_and_the_rest_of_the_batch_produced_in_the_same_transaction) {
  run r;
  const ss::action fetch = waiting_at_offset_1(r);
  BOOST_TEST_REQUIRE(fetch.kind == act::fetch_schema);
  BOOST_TEST(fetch.schema_id == 7u);
  BOOST_TEST(r.s.batch().front().offset == 1);  // the record that waits heads the batch in hand
  BOOST_TEST(r.pending(0) == 1);                // the record before it is handed over
  const ss::action learn = r.s.on(answer(r, 7, ss::schema_answer::found, R"({"type":"long"})"));
  BOOST_TEST_REQUIRE(learn.kind == act::learn_schema);
  BOOST_TEST(learn.schema_id == 7u);
  BOOST_TEST(learn.schema_known);
  BOOST_TEST(learn.schema_text == R"({"type":"long"})");
  BOOST_TEST(!r.s.waiting_for_registry().has_value());  // answered at once: no wait
  const ss::action rest = r.s.on(ss::schema_learnt{});
  BOOST_TEST_REQUIRE(rest.kind == act::produce);
  BOOST_TEST(rest.take == 2u);
  BOOST_TEST(r.s.batch().front().offset == 1);
  BOOST_TEST(r.produce(rest).kind == act::poll);
  r.to_commit();
  BOOST_TEST(r.commit_returns(ok()).kind == act::poll);
  BOOST_TEST(r.committed(0) == 3);
  BOOST_TEST(r.s.counters().transactions_committed == 1u);
}

BOOST_AUTO_TEST_CASE(
    an_id_the_registry_does_not_have_is_given_to_the_stages_as_unknown_and_the_record_fails_there) {
  run r;
  BOOST_TEST_REQUIRE(waiting_at_offset_1(r).kind == act::fetch_schema);
  const ss::action learn = r.s.on(answer(r, 7, ss::schema_answer::unknown_id));
  BOOST_TEST_REQUIRE(learn.kind == act::learn_schema);
  BOOST_TEST(!learn.schema_known);
  // The stages now call the record invalid (unknown_schema_id): the run
  // stops at it with the record before it committed.
  const ss::action rest = r.s.on(ss::schema_learnt{});
  const ss::action stop = r.produce(rest, 0);
  BOOST_TEST(stop.kind == act::send_offsets);
  BOOST_TEST(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  BOOST_TEST(r.commit_returns(ok()).kind == act::close);
  BOOST_TEST((r.s.outcome().status == run_status::invalid_record));
  BOOST_TEST(r.committed(0) == 1);
}

BOOST_AUTO_TEST_CASE(
    the_registrys_word_that_it_has_no_such_id_stands_for_the_ttl_then_the_stages_forget_it_and_ask_again) {
  ss::config c = dead_lettering();
  c.unknown_schema_ttl = 60s;
  run r(c);
  BOOST_TEST_REQUIRE(waiting_at_offset_1(r).kind == act::fetch_schema);
  BOOST_TEST_REQUIRE(r.s.on(answer(r, 7, ss::schema_answer::unknown_id)).kind == act::learn_schema);
  BOOST_TEST_REQUIRE(r.produce(r.s.on(ss::schema_learnt{}), 0).kind == act::dead_letter);
  BOOST_TEST_REQUIRE(r.produce(r.s.on(ss::dead_lettered{r.now})).kind == act::poll);
  r.to_commit();
  BOOST_TEST_REQUIRE(r.commit_returns(ok()).kind == act::poll);
  // Within the minute a batch is processed as it comes: the stages judge
  // the id's records with the word they have (no forget_schema, no fetch).
  r.now += 59s;
  BOOST_TEST(r.open_with({{0, 3}}).kind == act::poll);
  r.to_commit();
  BOOST_TEST_REQUIRE(r.commit_returns(ok()).kind == act::poll);
  // Past it, the batch that arrives first has the stages forget the id;
  // then the batch goes on, and its first record with the id asks again.
  r.now += 2s;
  const ss::action forget = r.arrive({{0, 4}});
  BOOST_TEST_REQUIRE(forget.kind == act::forget_schema);
  BOOST_TEST(forget.schema_id == 7u);
  BOOST_TEST(forget.info.find("writer schema id 7") != std::string::npos);
  BOOST_TEST_REQUIRE(r.s.on(ss::schema_learnt{}).kind == act::begin);
  const ss::action fetch = produce_until_schema(r, r.s.on(ss::began{ok(), r.now}), 0, 7);
  BOOST_TEST(fetch.kind == act::fetch_schema);
  // Found this time (a replica had caught up): the word is gone for good.
  BOOST_TEST_REQUIRE(r.s.on(answer(r, 7, ss::schema_answer::found)).kind == act::learn_schema);
  const ss::action rest = r.s.on(ss::schema_learnt{});
  BOOST_TEST_REQUIRE(rest.kind == act::produce);
  BOOST_TEST(r.produce(rest).kind == act::poll);
  r.to_commit();
  BOOST_TEST_REQUIRE(r.commit_returns(ok()).kind == act::poll);
  r.now += 10min;
  BOOST_TEST(r.arrive({{0, 5}}).kind == act::begin);
  BOOST_TEST(r.committed(0) == 5);
}

BOOST_AUTO_TEST_CASE(
    with_a_dead_letter_topic_a_record_of_an_unknown_id_is_dead_lettered_and_the_batch_goes_on) {
  run r(dead_lettering());
  BOOST_TEST_REQUIRE(waiting_at_offset_1(r).kind == act::fetch_schema);
  BOOST_TEST_REQUIRE(r.s.on(answer(r, 7, ss::schema_answer::unknown_id)).kind == act::learn_schema);
  const ss::action dead = r.produce(r.s.on(ss::schema_learnt{}), 0);
  BOOST_TEST_REQUIRE(dead.kind == act::dead_letter);
  BOOST_TEST(dead.dead->offset == 1);
}

BOOST_AUTO_TEST_CASE(an_unavailable_registry_commits_what_came_before_the_record_then_waits_and_asks_again) {
  run r;
  BOOST_TEST_REQUIRE(waiting_at_offset_1(r).kind == act::fetch_schema);
  const ss::action commit_first = r.s.on(answer(r, 7, ss::schema_answer::unavailable));
  BOOST_TEST(commit_first.kind == act::send_offsets);
  BOOST_TEST(commit_first.warning.find("waiting for the schema registry") != std::string::npos,
             commit_first.warning);
  BOOST_TEST(commit_first.warning.find("orders/0@1") != std::string::npos, commit_first.warning);
  const std::optional<ss::registry_wait> w = r.s.waiting_for_registry();
  BOOST_TEST_REQUIRE(w.has_value());
  BOOST_TEST(w->schema_id == 7u);
  BOOST_TEST(w->reason.find("connection refused") != std::string::npos);
  BOOST_TEST(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  const ss::action pause = r.commit_returns(ok());
  BOOST_TEST_REQUIRE(pause.kind == act::retry_after);
  BOOST_TEST(r.committed(0) == 1);        // the record before the waiting one
  BOOST_TEST(pause.delay.count() >= 50);  // the backoff's first delay, at its floor (jitter 0)
  BOOST_TEST(!pause.commit_retry);
  r.now += pause.delay;
  const ss::action again = r.s.on(ss::retry_elapsed{});
  BOOST_TEST_REQUIRE(again.kind == act::fetch_schema);
  BOOST_TEST(again.schema_id == 7u);
  // Still down: nothing is open, so it only waits, longer.
  const ss::action longer = r.s.on(answer(r, 7, ss::schema_answer::unavailable));
  BOOST_TEST_REQUIRE(longer.kind == act::retry_after);
  BOOST_TEST(longer.delay > pause.delay);
  r.now += longer.delay;
  BOOST_TEST_REQUIRE(r.s.on(ss::retry_elapsed{}).kind == act::fetch_schema);
  const ss::action learn = r.s.on(answer(r, 7, ss::schema_answer::found));
  BOOST_TEST_REQUIRE(learn.kind == act::learn_schema);
  BOOST_TEST(learn.info.find("answered") != std::string::npos, learn.info);
  // A new transaction begins with the record that waited.
  BOOST_TEST_REQUIRE(r.s.on(ss::schema_learnt{}).kind == act::begin);
  BOOST_TEST(!r.s.waiting_for_registry().has_value());
  const ss::action rest = r.s.on(ss::began{ok(), r.now});
  BOOST_TEST_REQUIRE(rest.kind == act::produce);
  BOOST_TEST(rest.take == 2u);
  BOOST_TEST(r.s.batch().front().offset == 1);
  BOOST_TEST(r.produce(rest).kind == act::poll);
  r.to_commit();
  BOOST_TEST(r.commit_returns(ok()).kind == act::poll);
  BOOST_TEST(r.committed(0) == 3);
  BOOST_TEST(r.s.counters().counts.dead_lettered == 0u);
}

BOOST_AUTO_TEST_CASE(a_registry_down_past_the_stall_timeout_ends_the_run_unavailable_at_the_waiting_record) {
  ss::config c = config_with();
  c.stall_timeout = 10s;
  run r(c);
  BOOST_TEST_REQUIRE(waiting_at_offset_1(r).kind == act::fetch_schema);
  commit_before_waiting(r, ss::schema_answer::unavailable);
  ss::action a = r.commit_returns(ok());
  int attempts = 1;
  while (a.kind == act::retry_after) {
    r.now += a.delay;
    BOOST_TEST_REQUIRE(r.s.on(ss::retry_elapsed{}).kind == act::fetch_schema);
    a = r.s.on(answer(r, 7, ss::schema_answer::unavailable));
    ++attempts;
    BOOST_TEST_REQUIRE(attempts < 100);
  }
  BOOST_TEST_REQUIRE(a.kind == act::close);
  const ss::ending e = r.s.outcome();
  BOOST_TEST((e.status == run_status::unavailable));
  BOOST_TEST(e.message.find("stall timeout") != std::string::npos, e.message);
  BOOST_TEST(e.message.find("orders/0@1") != std::string::npos, e.message);
  BOOST_TEST(!e.invalid.has_value());  // nobody blames the record
  BOOST_TEST(r.committed(0) == 1);     // nothing at or after it
  BOOST_TEST(r.s.counters().counts.dead_lettered == 0u);
  BOOST_TEST(!r.s.waiting_for_registry().has_value());
}

BOOST_AUTO_TEST_CASE(
    a_registry_that_refuses_the_credentials_ends_the_run_as_a_refused_setting_after_committing_what_came_before) {
  run r;
  BOOST_TEST_REQUIRE(waiting_at_offset_1(r).kind == act::fetch_schema);
  ss::schema_answered refused = answer(r, 7, ss::schema_answer::misconfigured);
  refused.message = "schema registry http://127.0.0.1:8081: GET /schemas/ids/7: 401 Unauthorized";
  const ss::action a = r.s.on(refused);
  BOOST_TEST(a.kind == act::send_offsets);
  BOOST_TEST(r.s.on(ss::offsets_sent{ok()}).kind == act::commit);
  BOOST_TEST(r.commit_returns(ok()).kind == act::close);
  const ss::ending e = r.s.outcome();
  BOOST_TEST((e.status == run_status::rejected_config));
  BOOST_TEST(e.message.find("401") != std::string::npos, e.message);
  BOOST_TEST(e.message.find("--registry-config") != std::string::npos, e.message);
  BOOST_TEST(r.committed(0) == 1);
}

BOOST_AUTO_TEST_CASE(a_graceful_stop_during_a_wait_ends_the_run_cleanly_without_the_waiting_record) {
  run r;
  waiting_after_commit(r, ss::schema_answer::unavailable);
  const ss::action stop = r.s.on(ss::stop_seen{graceful, r.now});
  BOOST_TEST(stop.kind == act::close);
  BOOST_TEST((r.s.outcome().status == run_status::stopped));
  BOOST_TEST(r.committed(0) == 1);
}

BOOST_AUTO_TEST_CASE(a_stop_that_cut_the_request_short_is_no_failure_of_the_record) {
  run r;
  // Cancelled like an unanswered request: what came before commits, and
  // the stop that cancelled it, fed next, ends the run cleanly.
  waiting_after_commit(r, ss::schema_answer::cancelled);
  BOOST_TEST(r.s.on(ss::stop_seen{graceful, r.now}).kind == act::close);
  const ss::ending e = r.s.outcome();
  BOOST_TEST((e.status == run_status::stopped));
  BOOST_TEST(!e.invalid.has_value());
  BOOST_TEST(r.committed(0) == 1);
}

BOOST_AUTO_TEST_CASE(an_abort_while_waiting_forgets_the_records_in_hand_and_reads_them_again) {
  run r;
  BOOST_TEST_REQUIRE(waiting_at_offset_1(r).kind == act::fetch_schema);
  commit_before_waiting(r, ss::schema_answer::unavailable);
  BOOST_TEST_REQUIRE(r.commit_returns(abortable()).kind == act::abort);
  BOOST_TEST_REQUIRE(r.abort_returns(ok()).kind == act::rewind);
  BOOST_TEST(r.s.batch().empty());
  BOOST_TEST(!r.s.waiting_for_registry().has_value());
  BOOST_TEST(r.s.on(ss::rewound{ok()}).kind == act::poll);
  // Read again from the committed offset: the same record asks again.
  BOOST_TEST_REQUIRE(r.arrive({{0, 0}, {0, 1}, {0, 2}}).kind == act::begin);
  const ss::action fetch = produce_until_schema(r, r.s.on(ss::began{ok(), r.now}), 1, 7);
  BOOST_TEST(fetch.kind == act::fetch_schema);
}

BOOST_AUTO_TEST_SUITE_END()
