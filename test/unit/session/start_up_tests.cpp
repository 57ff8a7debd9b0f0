// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/session.hpp"

#include <boost/test/unit_test.hpp>

#include "client.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

// engine/session/start_up.hpp through run_session, step by step: the order of
// the start-up's steps, how long each waits for the brokers, the status a
// refused start ends with, and a stop at every step (a clean end, exit 0,
// with a line that names the step).

namespace ss = streamt::engine::session;
namespace k = streamt::kafka;
using ss::act;
using streamt::engine::run_status;
using streamt::test::client;
using namespace std::chrono_literals;

namespace {

ss::failure ok() { return {}; }
ss::failure slice_ended() {
  return client(k::txn_error_info::retriable_error(RD_KAFKA_RESP_ERR__TIMED_OUT), "Local: Timed out");
}
ss::failure all_brokers_down() {
  return client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR__TRANSPORT), "Local: Broker transport failure");
}

constexpr ss::stop_facts graceful{.requested = true, .terminal = false, .deadline = false};

ss::config start_config() {
  ss::config c;
  c.application_id = "orders-app";
  c.source_topic = "orders";
  c.sink_topics = {"big-orders"};
  c.stall_timeout = 20s;
  c.start.bootstrap_servers = "127.0.0.1:9092";
  c.start.connect_timeout = 10s;
  return c;
}

// Without the batch cap and the plan log (librdkafka's mock cluster's
// start): topics, transactions, the state directory, the group.
ss::config bare_start_config() {
  ss::config c = start_config();
  c.start.cap_batches = false;
  c.start.claim_plans = false;
  return c;
}

// Without the plan log: the producer's branch alone, so each round holds one
// step (the cases about init_transactions' waits).
ss::config producer_only_config() {
  ss::config c = start_config();
  c.start.claim_plans = false;
  return c;
}

ss::our_plan our_plan() {
  ss::our_plan p;
  p.digest = "sha256:" + std::string(64, 'a');
  p.output_shape = "sha256:" + std::string(64, 'b');
  return p;
}

std::vector<act> kinds(const ss::action& a) {
  std::vector<act> k;
  for (const ss::action& step : a.steps) k.push_back(step.kind);
  return k;
}

const ss::action& step_of(const ss::action& round, act kind) {
  for (const ss::action& step : round.steps)
    if (step.kind == kind) return step;
  BOOST_FAIL("no " << kind << " step in the round");
  return round;
}

// A start-up and the driver's side of it: `now` is the test's clock.
struct start {
  ss::run_session s;
  ss::clock::time_point now = ss::clock::time_point{} + 1h;
  std::vector<ss::log_record> plan_log;
  ss::action last;  // the action in hand

  explicit start(ss::config c = start_config()) : s(std::move(c)) {}

  ss::action begin() { return s.on(ss::starting{}); }
  ss::action prepared(ss::our_plan plan = our_plan()) {
    ss::prepared p;
    p.plan = std::move(plan);
    p.instance_id = "i-1";
    return s.on(p);
  }
  ss::action listed(std::set<std::string> names = {"orders", "big-orders"}) {
    const auto called = now;
    now += 3ms;
    return s.on(ss::topics_listed{std::move(names), {}, called, now});
  }
  ss::action unanswered_list(std::chrono::milliseconds took = 1000ms) {
    const auto called = now;
    now += took;
    return s.on(ss::topics_listed{std::nullopt, all_brokers_down(), called, now});
  }

  // The outcomes of the steps of a round, and the round's end.
  ss::action round(std::vector<ss::step_outcome> outcomes) {
    return s.on(ss::steps_done{std::move(outcomes)});
  }
  ss::step_outcome init(ss::failure e, std::chrono::milliseconds took = 1000ms) {
    const auto called = now;
    now += took;
    return ss::transactions_initialised{std::move(e), called, now};
  }
  // The whole plan log read, to its end.
  ss::step_outcome read() {
    return ss::plan_log_read{plan_log, {}, static_cast<std::int64_t>(plan_log.size())};
  }
  // A read of the plan log that got no log within its slice.
  ss::step_outcome unread(ss::failure e) {
    const auto called = now;
    now += 1000ms;
    return ss::plan_log_read{std::nullopt, std::move(e), 0, called, now};
  }
  // The round's claim appended: the plan log holds it, at the next offset.
  ss::step_outcome append(const ss::action& round) {
    const ss::action& a = step_of(round, act::append_claim);
    const std::int64_t at = static_cast<std::int64_t>(plan_log.size());
    plan_log.push_back({at, "orders-app", a.claim});
    return ss::claim_appended{at, {}};
  }
  ss::action initialised(ss::failure e, std::chrono::milliseconds took = 1000ms) {
    return round({init(std::move(e), took)});
  }
  ss::action log_read() { return round({read()}); }
  ss::action appended(const ss::action& r) { return round({append(r)}); }

  // Up to init_transactions alone (no plan log), with a healthy cluster.
  ss::action to_init() {
    BOOST_TEST_REQUIRE(begin().kind == act::prepare);
    BOOST_TEST_REQUIRE(prepared().kind == act::list_topics);
    BOOST_TEST_REQUIRE(kinds(listed()) == std::vector<act>{act::cap_batches});
    const ss::action init = round({ss::batches_capped{}});
    BOOST_TEST_REQUIRE(kinds(init) == std::vector<act>{act::init_transactions});
    return init;
  }
  // Up to the first read of an existing plan log: the round that holds it,
  // beside init_transactions.
  ss::action to_read() {
    begin();
    prepared();
    BOOST_TEST_REQUIRE((kinds(listed()) == std::vector<act>{act::cap_batches, act::create_plan_log}));
    const ss::action r = round({ss::batches_capped{}, ss::plan_log_created{}});
    BOOST_TEST_REQUIRE((kinds(r) == std::vector<act>{act::init_transactions, act::read_plan_log}));
    return r;
  }

  // Another instance's claim reached the plan log.
  void claimed_elsewhere(const ss::plan_claim& c) {
    plan_log.push_back({static_cast<std::int64_t>(plan_log.size()), "orders-app", ss::to_claim_record(c)});
  }

  // A start of `plan` up to its first claim, which lands behind `theirs`
  // (another instance's claim, appended between the read and this one's
  // append): the action that follows, a second read.
  ss::action claim_behind(ss::our_plan plan, const ss::plan_claim& theirs) {
    begin();
    prepared(std::move(plan));
    listed();
    round({ss::batches_capped{}, ss::plan_log_created{}});
    const ss::action first = round({init(ok()), read()});
    claimed_elsewhere(theirs);
    return appended(first);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(start_up)

BOOST_AUTO_TEST_CASE(a_start_checks_topics_then_initialises_transactions_and_claims_the_plan_together) {
  start t;
  BOOST_TEST_REQUIRE(t.begin().kind == act::prepare);
  BOOST_TEST_REQUIRE(t.prepared().kind == act::list_topics);
  // The producer's branch and the plan log's, in rounds of steps performed
  // at the same time.
  const ss::action first = t.listed();
  BOOST_TEST_REQUIRE(first.kind == act::together);
  BOOST_TEST_REQUIRE((kinds(first) == std::vector<act>{act::cap_batches, act::create_plan_log}));
  BOOST_TEST(step_of(first, act::create_plan_log).topic == "orders-app-streamt-plans");
  const ss::action second = t.round({ss::batches_capped{}, ss::plan_log_created{}});
  BOOST_TEST_REQUIRE((kinds(second) == std::vector<act>{act::init_transactions, act::read_plan_log}));
  BOOST_TEST(step_of(second, act::init_transactions).slice == 1000ms);
  BOOST_TEST(!step_of(second, act::read_plan_log).must_exist);
  const ss::action third = t.round({t.init(ok(), 40ms), t.read()});
  BOOST_TEST_REQUIRE((kinds(third) == std::vector<act>{act::append_claim}));
  // The claim landed where the read ended: it stands, with no second read.
  const ss::action commit_state = t.appended(third);
  BOOST_TEST_REQUIRE(commit_state.kind == act::commit_state);
  BOOST_TEST(commit_state.info.find("claimed orders-app for plan sha256:aaa") == 0);
  BOOST_TEST(commit_state.info.ends_with(" at offset 0 of its plan log; it stands"), commit_state.info);
  BOOST_TEST_REQUIRE(t.s.on(ss::state_committed{}).kind == act::subscribe);
  const ss::action poll = t.s.on(ss::subscribed{ok()});
  BOOST_TEST(poll.kind == act::poll);
  BOOST_TEST(poll.info == "joined group orders-app; waiting for partitions");
  BOOST_TEST(t.s.plan().digest == our_plan().digest);
}

BOOST_AUTO_TEST_CASE(a_plan_log_this_start_created_is_claimed_at_once_without_a_read) {
  start t;
  t.begin();
  t.prepared();
  t.listed();
  const ss::action next = t.round({ss::batches_capped{}, ss::plan_log_created{ok(), true}});
  BOOST_TEST_REQUIRE((kinds(next) == std::vector<act>{act::init_transactions, act::append_claim}));
  const ss::action commit_state = t.round({t.init(ok()), t.append(next)});
  BOOST_TEST(commit_state.kind == act::commit_state);
  BOOST_TEST(commit_state.info.find("it stands") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_plan_log_the_topic_list_names_is_read_without_being_created) {
  start t;
  t.begin();
  t.prepared();
  const ss::action first = t.listed({"orders", "big-orders", "orders-app-streamt-plans"});
  BOOST_TEST_REQUIRE((kinds(first) == std::vector<act>{act::cap_batches, act::read_plan_log}));
  // This plan's own claim stands: nothing is appended.
  t.claimed_elsewhere({{our_plan().digest, "i-1", our_plan().output_shape, {}}, {}});
  const ss::action second = t.round({ss::batches_capped{}, t.read()});
  BOOST_TEST_REQUIRE((kinds(second) == std::vector<act>{act::init_transactions}));
  BOOST_TEST(second.info.find("holds orders-app in its plan log") != std::string::npos);
  BOOST_TEST(t.initialised(ok()).kind == act::commit_state);
}

BOOST_AUTO_TEST_CASE(a_refusal_in_one_branch_ends_the_start_though_the_other_branchs_step_succeeded) {
  start t;
  t.begin();
  t.prepared();
  t.listed();
  const ss::action close =
      t.round({ss::batches_capped{},
               ss::plan_log_created{
                   client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR_POLICY_VIOLATION), "no policy")}});
  BOOST_TEST(close.kind == act::close);
  BOOST_TEST(!close.leave_group);
  BOOST_TEST((t.s.outcome().status == run_status::unavailable));
  BOOST_TEST(t.s.outcome().message == "the plan log orders-app-streamt-plans: no policy");
}

// The brokers vanish while the plan log is claimed (tools/faults: a broker
// killed 0.3 s after the start): each step is asked for a slice, asked
// again while unanswered, said once to still wait, and fails at the stall
// timeout; init_transactions, beside it, completed.
BOOST_AUTO_TEST_CASE(an_unanswered_plan_log_step_is_asked_again_each_slice_until_the_stall_timeout) {
  start t;
  const ss::action first = t.to_read();
  BOOST_TEST(step_of(first, act::read_plan_log).slice == 1000ms);
  ss::action a = t.round({t.init(ok()), t.read()});
  BOOST_TEST_REQUIRE((kinds(a) == std::vector<act>{act::append_claim}));
  const std::string claim = a.steps[0].claim;
  int slices = 0;
  int warnings = 0;
  for (;;) {
    const auto called = t.now;
    t.now += 1000ms;
    a = t.round({ss::claim_appended{std::nullopt,
                                    client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR__TIMED_OUT),
                                           "writing to orders-app-streamt-plans: Local: Timed out"),
                                    called, t.now}});
    ++slices;
    if (a.kind == act::close) break;
    BOOST_TEST_REQUIRE((kinds(a) == std::vector<act>{act::append_claim}));
    BOOST_TEST(a.steps[0].claim == claim);  // the same claim, asked again
    if (!a.steps[0].warning.empty()) ++warnings;
  }
  BOOST_TEST(slices == 20);  // --stall-timeout-ms 20000
  BOOST_TEST(warnings == 1);
  BOOST_TEST((t.s.outcome().status == run_status::unavailable));
  BOOST_TEST(t.s.outcome().message.find("the brokers have not answered for the plan log "
                                        "orders-app-streamt-plans for 20 s (the stall timeout") == 0,
             t.s.outcome().message);
}

BOOST_AUTO_TEST_CASE(a_stop_while_the_plan_log_waits_for_lost_brokers_ends_the_start_cleanly) {
  start t;
  t.to_read();
  const ss::action again = t.round(
      {t.init(ok(), 0ms), t.unread(client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR__TRANSPORT), "down"))});
  // Transactions are initialised: the read is asked again alone.
  BOOST_TEST_REQUIRE((kinds(again) == std::vector<act>{act::read_plan_log}));
  const ss::action close = t.s.on(ss::stop_seen{graceful});
  BOOST_TEST(close.kind == act::close);
  BOOST_TEST(!close.leave_group);
  BOOST_TEST(close.info.find("(while claiming the application in its plan log)") != std::string::npos,
             close.info);
  BOOST_TEST((t.s.outcome().status == run_status::stopped));
}

BOOST_AUTO_TEST_CASE(a_plan_log_just_created_and_not_yet_known_is_read_again) {
  start t;
  t.to_read();
  const ss::action again = t.round(
      {t.init(ok(), 0ms),
       t.unread(client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART), "unknown"))});
  BOOST_TEST((kinds(again) == std::vector<act>{act::read_plan_log}));
}

BOOST_AUTO_TEST_CASE(
    without_the_batch_cap_and_the_plan_log_a_start_goes_from_topics_to_transactions_to_the_state) {
  start t(bare_start_config());
  t.begin();
  t.prepared();
  BOOST_TEST_REQUIRE((kinds(t.listed()) == std::vector<act>{act::init_transactions}));
  BOOST_TEST(t.initialised(ok()).kind == act::commit_state);
}

BOOST_AUTO_TEST_CASE(refused_local_checks_end_the_start_with_the_status_of_what_was_refused) {
  const std::vector<std::pair<ss::start_refusal, run_status>> cases{
      {ss::start_refusal::settings, run_status::rejected_config},
      {ss::start_refusal::identity, run_status::rejected_config},
      {ss::start_refusal::state_dir, run_status::state_dir},
  };
  for (const auto& [why, status] : cases) {
    start t;
    t.begin();
    ss::prepared p;
    p.refused = why;
    p.message = "refused because";
    const ss::action close = t.s.on(p);
    BOOST_TEST(close.kind == act::close);
    BOOST_TEST(!close.leave_group);
    BOOST_TEST((t.s.outcome().status == status));
    BOOST_TEST(t.s.outcome().message == "refused because");
  }
}

BOOST_AUTO_TEST_CASE(unanswered_topic_lists_are_asked_again_each_second_until_the_connect_timeout) {
  start t;
  t.begin();
  t.prepared();
  int asked = 1;
  for (;;) {
    const ss::action a = t.unanswered_list();
    if (a.kind == act::close) break;
    BOOST_TEST_REQUIRE(a.kind == act::retry_after);
    BOOST_TEST(a.delay == 0ms);  // the slice was waited out already
    const ss::action again = t.s.on(ss::retry_elapsed{});
    BOOST_TEST_REQUIRE(again.kind == act::list_topics);
    BOOST_TEST(again.slice <= 1000ms);
    ++asked;
  }
  BOOST_TEST(asked == 10);  // --connect-timeout-ms 10000, in slices of a second
  BOOST_TEST((t.s.outcome().status == run_status::unavailable));
  BOOST_TEST(t.s.outcome().message.find("cannot reach the brokers at 127.0.0.1:9092 within 10 s") == 0);
}

BOOST_AUTO_TEST_CASE(a_refusal_that_comes_back_early_waits_out_its_slice) {
  start t;
  t.begin();
  t.prepared();
  const ss::action pause = t.unanswered_list(20ms);
  BOOST_TEST_REQUIRE(pause.kind == act::retry_after);
  BOOST_TEST(pause.delay == 980ms);
}

BOOST_AUTO_TEST_CASE(a_missing_topic_ends_the_start_with_unavailable_and_names_it) {
  start t;
  t.begin();
  t.prepared();
  const ss::action close = t.listed({"orders"});
  BOOST_TEST(close.kind == act::close);
  BOOST_TEST((t.s.outcome().status == run_status::unavailable));
  BOOST_TEST(t.s.outcome().message.find("topic 'big-orders' does not exist on 127.0.0.1:9092") == 0);
}

BOOST_AUTO_TEST_CASE(a_dead_letter_plan_needs_its_dead_letter_topic_too) {
  ss::config c = start_config();
  c.dead_letter_topic = "orders-dlq";
  start t(c);
  t.begin();
  t.prepared();
  BOOST_TEST(t.listed().kind == act::close);
  BOOST_TEST(t.s.outcome().message.find("topic 'orders-dlq' does not exist") == 0);
}

BOOST_AUTO_TEST_CASE(a_producer_the_batch_cap_cannot_make_ends_the_start_with_a_configuration_error) {
  start t(producer_only_config());
  t.begin();
  t.prepared();
  t.listed();
  BOOST_TEST(t.round({ss::batches_capped{"batch.size: out of range"}}).kind == act::close);
  BOOST_TEST((t.s.outcome().status == run_status::rejected_config));
}

// The source's cleanup.policy, read in the batch cap's step: a compacted
// source needs the plan's changelog choice.
ss::batches_capped source_policy(std::string policy) {
  ss::batches_capped b;
  b.source_cleanup_policy = std::move(policy);
  return b;
}

ss::config with_changelog(std::optional<streamt::plan::changelog> c, int version) {
  ss::config config = start_config();
  config.start.changelog = c;
  config.start.plan_version = version;
  return config;
}

BOOST_AUTO_TEST_CASE(
    a_compacted_source_without_a_changelog_choice_ends_a_version_2_start_with_what_to_declare) {
  for (const std::string policy : {"compact", "compact,delete", "delete,compact"}) {
    start t(with_changelog(std::nullopt, 2));
    t.begin();
    t.prepared();
    t.listed();
    // Refused in the first round: before any claim is appended to the plan log.
    const ss::action close = t.round({source_policy(policy), ss::plan_log_created{}});
    BOOST_TEST(close.kind == act::close);
    BOOST_TEST(!close.leave_group);
    BOOST_TEST((t.s.outcome().status == run_status::rejected_config));
    const std::string& m = t.s.outcome().message;
    BOOST_TEST(m.starts_with("source topic 'orders' is compacted (cleanup.policy=" + policy + ")"), m);
    BOOST_TEST(m.find("deleted and stale keys in sink topic 'big-orders'") != std::string::npos, m);
    BOOST_TEST(m.find("Declare \"changelog\": \"upsert\" in the schema for table semantics, or "
                      "\"changelog\": \"append\" to keep treating it as a stream, and recompile") !=
                   std::string::npos,
               m);
  }
}

BOOST_AUTO_TEST_CASE(a_compacted_source_refuses_a_version_1_plan_that_cannot_choose) {
  start t(with_changelog(std::nullopt, 1));
  t.begin();
  t.prepared();
  t.listed();
  BOOST_TEST(t.round({source_policy("compact"), ss::plan_log_created{}}).kind == act::close);
  BOOST_TEST((t.s.outcome().status == run_status::rejected_config));
  const std::string& m = t.s.outcome().message;
  BOOST_TEST(m.starts_with("source topic 'orders' is compacted (cleanup.policy=compact)"), m);
  BOOST_TEST(m.find("This plan is version 1, which cannot say: to keep today's behaviour, recompile it with "
                    "\"changelog\": \"append\" in the schema") != std::string::npos,
             m);
  BOOST_TEST(m.find("--supersedes") != std::string::npos, m);
}

BOOST_AUTO_TEST_CASE(a_compacted_source_starts_with_either_changelog_choice) {
  for (const auto c : {streamt::plan::changelog::append, streamt::plan::changelog::upsert})
    for (const int version : {1, 2}) {
      start t(with_changelog(c, version));
      t.begin();
      t.prepared();
      t.listed();
      const ss::action next = t.round({source_policy("compact"), ss::plan_log_created{}});
      BOOST_TEST_REQUIRE((kinds(next) == std::vector<act>{act::init_transactions, act::read_plan_log}));
      BOOST_TEST(step_of(next, act::init_transactions).warning.empty());
    }
}

BOOST_AUTO_TEST_CASE(a_source_that_is_not_compacted_starts_without_a_changelog_choice) {
  for (const int version : {1, 2}) {
    start t(with_changelog(std::nullopt, version));
    t.begin();
    t.prepared();
    t.listed();
    const ss::action next = t.round({source_policy("delete"), ss::plan_log_created{}});
    BOOST_TEST_REQUIRE((kinds(next) == std::vector<act>{act::init_transactions, act::read_plan_log}));
    BOOST_TEST(step_of(next, act::init_transactions).warning.empty());
  }
}

BOOST_AUTO_TEST_CASE(an_unread_source_policy_starts_with_a_warning_unless_the_plan_chose) {
  ss::batches_capped unread;
  unread.source_error = "topic 'orders': Broker: Topic authorization failed";
  {
    start t(with_changelog(std::nullopt, 2));
    t.begin();
    t.prepared();
    t.listed();
    const ss::action next = t.round({unread, ss::plan_log_created{}});
    BOOST_TEST_REQUIRE((kinds(next) == std::vector<act>{act::init_transactions, act::read_plan_log}));
    const std::string& w = step_of(next, act::init_transactions).warning;
    BOOST_TEST(
        w.starts_with("could not read the cleanup.policy of source topic 'orders' (topic 'orders': Broker: "
                      "Topic authorization failed): if it is compacted, declare \"changelog\""),
        w);
  }
  {
    start t(with_changelog(streamt::plan::changelog::upsert, 2));
    t.begin();
    t.prepared();
    t.listed();
    const ss::action next = t.round({unread, ss::plan_log_created{}});
    BOOST_TEST(step_of(next, act::init_transactions).warning.empty());
  }
}

// The brokers vanish while init_transactions runs (tools/faults: a broker
// killed 0.3 s after the start): each slice returns a timeout, the session
// asks again, says once it still waits, and fails at the stall timeout.
BOOST_AUTO_TEST_CASE(
    init_transactions_without_an_answer_is_asked_again_until_the_stall_timeout_then_unavailable) {
  start t(producer_only_config());
  t.to_init();
  int warnings = 0;
  int slices = 0;
  for (;;) {
    const ss::action a = t.initialised(slice_ended());
    ++slices;
    if (a.kind == act::close) break;
    const ss::action& init = step_of(a, act::init_transactions);
    if (!init.warning.empty()) {
      ++warnings;
      BOOST_TEST(init.warning.find("the brokers have not completed init_transactions for") == 0);
    }
  }
  BOOST_TEST(slices == 20);   // --stall-timeout-ms 20000
  BOOST_TEST(warnings == 1);  // at 5 s; the next would be at 35 s
  BOOST_TEST((t.s.outcome().status == run_status::unavailable));
  BOOST_TEST(t.s.outcome().message.find("the brokers have not completed init_transactions for 20 s") == 0);
}

BOOST_AUTO_TEST_CASE(a_stop_while_init_transactions_waits_for_lost_brokers_ends_the_start_cleanly) {
  start t(producer_only_config());
  t.to_init();
  for (int i = 0; i < 5; ++i)
    BOOST_TEST_REQUIRE((kinds(t.initialised(slice_ended())) == std::vector<act>{act::init_transactions}));
  const ss::action close = t.s.on(ss::stop_seen{graceful});
  BOOST_TEST(close.kind == act::close);
  BOOST_TEST(!close.leave_group);
  BOOST_TEST(
      close.info ==
      "stopping: a stop signal arrived during start-up (while initialising transactions); no transaction "
      "was opened");
  BOOST_TEST((t.s.outcome().status == run_status::stopped));
}

BOOST_AUTO_TEST_CASE(
    a_commit_interval_over_half_the_transaction_timeout_is_refused_before_any_broker_is_asked) {
  ss::config c = start_config();
  c.commit_interval = 70s;
  start t(c);
  t.begin();
  ss::prepared p;
  p.plan = our_plan();
  p.transaction_timeout = 60s;
  const ss::action close = t.s.on(p);
  BOOST_TEST(close.kind == act::close);
  BOOST_TEST(!close.leave_group);
  BOOST_TEST((t.s.outcome().status == run_status::rejected_config));
  BOOST_TEST(t.s.outcome().message.find("--commit-interval-ms 70000 leaves no room within "
                                        "transaction.timeout.ms 60000") == 0,
             t.s.outcome().message);
  BOOST_TEST(t.s.outcome().message.find("at most half of it (30000)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_commit_interval_of_half_the_transaction_timeout_starts) {
  ss::config c = start_config();
  c.commit_interval = 30s;
  start t(c);
  t.begin();
  ss::prepared p;
  p.plan = our_plan();
  p.transaction_timeout = 60s;
  BOOST_TEST(t.s.on(p).kind == act::list_topics);
}

BOOST_AUTO_TEST_CASE(a_transaction_timeout_the_brokers_refuse_ends_the_start_as_a_setting_to_fix) {
  start t(producer_only_config());
  t.begin();
  ss::prepared p;
  p.plan = our_plan();
  p.transaction_timeout = std::chrono::milliseconds(2147483647);
  t.s.on(p);
  t.listed();
  t.round({ss::batches_capped{}});
  t.initialised(client(k::txn_error_info::fatal_error(RD_KAFKA_RESP_ERR_INVALID_TRANSACTION_TIMEOUT),
                       "Broker: Transaction timeout is larger than the maximum value allowed by the broker"));
  BOOST_TEST((t.s.outcome().status == run_status::rejected_config));
  BOOST_TEST(t.s.outcome().message.find("the brokers refuse transaction.timeout.ms 2147483647") == 0,
             t.s.outcome().message);
  BOOST_TEST(t.s.outcome().message.find("lower -X transaction.timeout.ms") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_retriable_init_transactions_error_is_logged_and_asked_again) {
  start t(producer_only_config());
  t.to_init();
  const ss::action again = t.initialised(
      client(k::txn_error_info::retriable_error(RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS), "loading"),
      10ms);
  BOOST_TEST(step_of(again, act::init_transactions).warning == "init_transactions: loading (retrying)");
}

BOOST_AUTO_TEST_CASE(an_acl_refusal_of_init_transactions_ends_the_start_with_what_to_grant) {
  start t(producer_only_config());
  t.to_init();
  t.initialised(
      client(k::txn_error_info::fatal_error(RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
             "Transactional Id authorization failed"));
  BOOST_TEST((t.s.outcome().status == run_status::unavailable));
  BOOST_TEST(
      t.s.outcome().message.find("Grant its principal Write and Describe on the transactional ids with "
                                 "prefix 'orders-app-'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_broker_without_transactions_ends_the_start_with_what_it_needs) {
  start t(producer_only_config());
  t.to_init();
  t.initialised(client(k::txn_error_info::fatal_error(RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION), "unsupported"));
  BOOST_TEST((t.s.outcome().status == run_status::unavailable));
  BOOST_TEST(t.s.outcome().message.find("the broker refused transactions") == 0);
}

BOOST_AUTO_TEST_CASE(
    a_plan_log_that_may_not_be_created_and_does_not_exist_ends_the_start_with_what_to_grant) {
  start t;
  t.begin();
  t.prepared();
  t.listed();
  const ss::action read = t.round(
      {ss::batches_capped{},
       ss::plan_log_created{client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED),
                                   "create refused")}});
  BOOST_TEST(step_of(read, act::read_plan_log).must_exist);
  t.round({t.init(ok()),
           ss::plan_log_read{
               std::nullopt,
               client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART), "unknown topic")}});
  BOOST_TEST((t.s.outcome().status == run_status::unavailable));
  BOOST_TEST(t.s.outcome().message.find("it does not exist, and creating it was refused (create refused)") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_claim_behind_another_instances_claim_of_the_same_plan_reads_again_and_the_plan_holds) {
  start t;
  t.to_read();
  const ss::action append = t.round({t.init(ok()), t.read()});
  // Between the read and the append, another instance of this plan claimed.
  t.claimed_elsewhere({{our_plan().digest, "i-2", our_plan().output_shape, {}}, {}});
  const ss::action reread = t.appended(append);
  const ss::action& read = step_of(reread, act::read_plan_log);
  BOOST_TEST(read.info.find("at offset 1 of its plan log") != std::string::npos);
  BOOST_TEST(read.info.find("it stands") == std::string::npos);
  const ss::action commit_state = t.log_read();
  BOOST_TEST_REQUIRE(commit_state.kind == act::commit_state);
  BOOST_TEST(commit_state.info.find("holds orders-app in its plan log orders-app-streamt-plans (claimed at "
                                    "offset 0)") != std::string::npos);
}

// A plan that supersedes C, started while C's first instance claims: it
// loses the first round to C's claim, then replaces C's in the next.
BOOST_AUTO_TEST_CASE(a_claim_that_lost_its_round_to_a_plan_it_supersedes_claims_again_replacing_it) {
  const std::string c = "sha256:" + std::string(64, 'c');
  ss::our_plan ours = our_plan();
  ours.supersedes = {c};
  start t;
  const ss::action reread = t.claim_behind(ours, {{c, "i-9", our_plan().output_shape, {}}, {}});
  BOOST_TEST_REQUIRE((kinds(reread) == std::vector<act>{act::read_plan_log}));
  const ss::action second = t.log_read();
  BOOST_TEST(ss::from_claim_record(step_of(second, act::append_claim).claim).value().replaces == c);
  const ss::action commit_state = t.appended(second);
  BOOST_TEST_REQUIRE(commit_state.kind == act::commit_state);
  BOOST_TEST(commit_state.info.find("at offset 2 of its plan log, replacing plan " + c) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_claim_that_loses_every_round_ends_the_start_unavailable) {
  const std::string c = "sha256:" + std::string(64, 'c');
  ss::our_plan ours = our_plan();
  ours.supersedes = {c};
  ss::config cfg = start_config();
  cfg.start.max_claim_rounds = 1;
  start t(cfg);
  BOOST_TEST_REQUIRE((kinds(t.claim_behind(ours, {{c, "i-9", our_plan().output_shape, {}}, {}})) ==
                      std::vector<act>{act::read_plan_log}));
  BOOST_TEST(t.log_read().kind == act::close);
  BOOST_TEST((t.s.outcome().status == run_status::unavailable));
  BOOST_TEST(t.s.outcome().message.find("this plan's claim lost 1 times in a row") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_plan_log_held_by_an_unrelated_plan_refuses_the_start) {
  start t;
  t.to_read();
  ss::plan_claim theirs{{"sha256:" + std::string(64, 'c'), "i-9", "sha256:" + std::string(64, 'd'), {}}, {}};
  t.plan_log.push_back({0, "orders-app", ss::to_claim_record(theirs)});
  BOOST_TEST(t.round({t.init(ok()), t.read()}).kind == act::close);
  BOOST_TEST((t.s.outcome().status == run_status::rejected_config));
}

BOOST_AUTO_TEST_CASE(a_state_directory_that_cannot_be_written_and_a_failed_subscribe_end_the_start) {
  const auto admitted = [] {
    auto t = std::make_unique<start>(bare_start_config());
    t->begin();
    t->prepared();
    t->listed();
    BOOST_TEST_REQUIRE(t->initialised(ok()).kind == act::commit_state);
    return t;
  };
  {
    auto t = admitted();
    BOOST_TEST(t->s.on(ss::state_committed{"disk full"}).kind == act::close);
    BOOST_TEST((t->s.outcome().status == run_status::state_dir));
  }
  {
    auto tp = admitted();
    start& t = *tp;
    t.s.on(ss::state_committed{});
    t.s.on(ss::subscribed{client(k::txn_error_info::plain(RD_KAFKA_RESP_ERR__INVALID_ARG), "bad topic")});
    BOOST_TEST((t.s.outcome().status == run_status::failed));
    BOOST_TEST(t.s.outcome().message == "subscribe: bad topic");
  }
}

// A stop can arrive before any step of the start-up: each ends the run at
// once, cleanly, with a line that names the step.
BOOST_AUTO_TEST_CASE(a_stop_before_any_start_up_step_ends_the_run_cleanly_and_names_the_step) {
  using step = std::function<ss::action(start&)>;
  const step prepared = [](start& t) { return t.prepared(); };
  const step listed = [](start& t) { return t.listed(); };
  const step created = [](start& t) { return t.round({ss::batches_capped{}, ss::plan_log_created{}}); };
  const step read = [](start& t) { return t.round({t.init(ok()), t.read()}); };
  const step appended = [](start& t) { return t.appended(t.last); };
  const std::vector<std::pair<std::string, std::vector<step>>> stops{
      {"before the brokers were asked anything", {}},
      {"before the brokers answered", {prepared}},
      {"before the brokers answered", {prepared, [](start& t) { return t.unanswered_list(); }}},
      {"while reading the topics' limits and claiming the application in its plan log", {prepared, listed}},
      {"while initialising transactions and claiming the application in its plan log",
       {prepared, listed, created}},
      {"while claiming the application in its plan log", {prepared, listed, created, read}},
      {"before joining the group", {prepared, listed, created, read, appended}},
      // This plan's claim stands already: the producer's branch is left.
      {"while initialising transactions",
       {prepared,
        [](start& t) {
          t.claimed_elsewhere({{our_plan().digest, "i-1", our_plan().output_shape, {}}, {}});
          return t.listed({"orders", "big-orders", "orders-app-streamt-plans"});
        },
        [](start& t) {
          return t.round({ss::batches_capped{}, t.read()});
        }}},
  };
  for (const auto& [where, steps] : stops) {
    start t;
    t.last = t.begin();
    for (const step& st : steps) {
      BOOST_TEST_REQUIRE(t.last.kind != act::close);
      t.last = st(t);
    }
    const ss::action close = t.s.on(ss::stop_seen{graceful});
    BOOST_TEST(close.kind == act::close);
    BOOST_TEST(!close.leave_group);
    BOOST_TEST(close.info.find("(" + where + ")") != std::string::npos, close.info << " names " << where);
    BOOST_TEST((t.s.outcome().status == run_status::stopped));
  }
}

// ---- an Avro sink's schema, registered before anything reaches a broker ----------

namespace {

ss::config avro_sink_config(bool register_new = true) {
  ss::config c = start_config();
  c.start.sink_schema_subject = "big-orders-value";
  c.start.register_sink_schema = register_new;
  c.start.registry_backoff = {100ms, 1000ms};
  return c;
}

ss::sink_schema_registered registry_answers(start& st, ss::schema_answer a,
                                            std::optional<std::uint32_t> id = {},
                                            std::chrono::milliseconds took = 5ms) {
  ss::sink_schema_registered e;
  e.id = id;
  e.answer = a;
  if (a != ss::schema_answer::found)
    e.message = "schema registry http://127.0.0.1:8081: POST /subjects/big-orders-value/versions: refused";
  e.called = st.now;
  st.now += took;
  e.now = st.now;
  return e;
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_avro_sinks_schema_is_registered_under_its_subject_before_the_topics_are_listed) {
  start st(avro_sink_config());
  BOOST_TEST_REQUIRE(st.begin().kind == act::prepare);
  const ss::action reg = st.prepared();
  BOOST_TEST_REQUIRE(reg.kind == act::register_schema);
  BOOST_TEST(reg.subject == "big-orders-value");
  BOOST_TEST(reg.register_new);
  const ss::action list = st.s.on(registry_answers(st, ss::schema_answer::found, 42u));
  BOOST_TEST(list.kind == act::list_topics);
  BOOST_TEST(list.info.find("id 42") != std::string::npos, list.info);
}

BOOST_AUTO_TEST_CASE(with_no_register_the_start_asks_to_find_the_schema_and_refuses_a_subject_without_it) {
  start st(avro_sink_config(false));
  st.begin();
  const ss::action reg = st.prepared();
  BOOST_TEST_REQUIRE(reg.kind == act::register_schema);
  BOOST_TEST(!reg.register_new);
  BOOST_TEST(st.s.on(registry_answers(st, ss::schema_answer::refused)).kind == act::close);
  const ss::ending e = st.s.outcome();
  BOOST_TEST((e.status == run_status::rejected_config));
  BOOST_TEST(e.message.find("--no-register") != std::string::npos, e.message);
}

BOOST_AUTO_TEST_CASE(a_registry_that_refuses_the_sink_schema_ends_the_start_as_a_refused_setting) {
  start st(avro_sink_config());
  st.begin();
  st.prepared();
  BOOST_TEST(st.s.on(registry_answers(st, ss::schema_answer::refused)).kind == act::close);
  BOOST_TEST((st.s.outcome().status == run_status::rejected_config));
  BOOST_TEST(st.s.outcome().message.find("compatibility") != std::string::npos, st.s.outcome().message);
}

BOOST_AUTO_TEST_CASE(a_registry_refusing_the_credentials_at_start_is_a_refused_setting) {
  start st(avro_sink_config());
  st.begin();
  st.prepared();
  BOOST_TEST(st.s.on(registry_answers(st, ss::schema_answer::misconfigured)).kind == act::close);
  BOOST_TEST((st.s.outcome().status == run_status::rejected_config));
  BOOST_TEST(st.s.outcome().message.find("--registry-config") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_unanswered_registration_is_asked_again_after_a_backoff_until_the_connect_timeout) {
  start st(avro_sink_config());
  st.begin();
  st.prepared();
  ss::action a = st.s.on(registry_answers(st, ss::schema_answer::unavailable, {}, 1000ms));
  BOOST_TEST_REQUIRE(a.kind == act::retry_after);
  BOOST_TEST(a.delay.count() >= 50);
  BOOST_TEST(!a.warning.empty());
  int attempts = 1;
  while (a.kind == act::retry_after) {
    st.now += a.delay;
    const ss::action again = st.s.on(ss::retry_elapsed{});
    BOOST_TEST_REQUIRE(again.kind == act::register_schema);
    a = st.s.on(registry_answers(st, ss::schema_answer::unavailable, {}, 1000ms));
    BOOST_TEST_REQUIRE(++attempts < 50);
  }
  BOOST_TEST(a.kind == act::close);
  BOOST_TEST((st.s.outcome().status == run_status::unavailable));
  BOOST_TEST(st.s.outcome().message.find("--connect-timeout-ms") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_registry_that_answers_after_an_outage_lets_the_start_go_on) {
  start st(avro_sink_config());
  st.begin();
  st.prepared();
  const ss::action pause = st.s.on(registry_answers(st, ss::schema_answer::unavailable));
  BOOST_TEST_REQUIRE(pause.kind == act::retry_after);
  st.now += pause.delay;
  BOOST_TEST_REQUIRE(st.s.on(ss::retry_elapsed{}).kind == act::register_schema);
  BOOST_TEST(st.s.on(registry_answers(st, ss::schema_answer::found, 7u)).kind == act::list_topics);
}

BOOST_AUTO_TEST_CASE(a_stop_while_registering_ends_the_start_cleanly) {
  start st(avro_sink_config());
  st.begin();
  BOOST_TEST_REQUIRE(st.prepared().kind == act::register_schema);
  const ss::action a = st.s.on(ss::stop_seen{graceful, st.now});
  BOOST_TEST(a.kind == act::close);
  BOOST_TEST((st.s.outcome().status == run_status::stopped));
  BOOST_TEST(a.info.find("registering the sink's schema") != std::string::npos, a.info);
}

// A routed plan (issue 39) writes several topics: each is needed at the
// start, and the refusal names the one missing.
BOOST_AUTO_TEST_CASE(a_routed_plan_whose_second_sink_is_missing_is_refused_at_start_naming_it) {
  ss::config c = start_config();
  c.sink_topics = {"big-orders", "eu-orders", "orders-unrouted"};
  start t(c);
  t.begin();
  t.prepared();
  BOOST_TEST(t.listed({"orders", "big-orders", "orders-unrouted"}).kind == act::close);
  BOOST_TEST((t.s.outcome().status == run_status::unavailable));
  BOOST_TEST(t.s.outcome().message.find("topic 'eu-orders' does not exist on 127.0.0.1:9092") == 0,
             t.s.outcome().message);
}

BOOST_AUTO_TEST_CASE(a_routed_plan_whose_unrouted_topic_is_missing_is_refused_at_start_naming_it) {
  ss::config c = start_config();
  c.sink_topics = {"big-orders", "eu-orders", "orders-unrouted"};
  start t(c);
  t.begin();
  t.prepared();
  BOOST_TEST(t.listed({"orders", "big-orders", "eu-orders"}).kind == act::close);
  BOOST_TEST(t.s.outcome().message.find("topic 'orders-unrouted' does not exist") == 0,
             t.s.outcome().message);
}

BOOST_AUTO_TEST_CASE(a_routed_plan_with_every_topic_it_writes_goes_on_past_the_topic_list) {
  ss::config c = start_config();
  c.sink_topics = {"big-orders", "eu-orders"};
  start t(c);
  t.begin();
  t.prepared();
  BOOST_TEST(t.listed({"orders", "big-orders", "eu-orders"}).kind != act::close);
}

BOOST_AUTO_TEST_SUITE_END()
