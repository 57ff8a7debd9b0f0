// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/claims.hpp"

#include <boost/test/unit_test.hpp>

// engine/session/claims.hpp: which plan holds an application id, from the
// total order of claims in its plan log, and what an instance does next.

namespace ss = streamt::engine::session;
using streamt::engine::lineage;

namespace {

std::string digest(char c) { return "sha256:" + std::string(64, c); }

const std::string shape = digest('s');

ss::our_plan plan(char c, std::vector<std::string> supersedes = {}, std::string ran_here = {}) {
  return {digest(c), shape, std::move(supersedes), std::move(ran_here), false};
}

ss::logged_claim claim(std::int64_t at, char plan, char replaces = 0,
                       std::vector<std::string> supersedes = {}) {
  return {at,
          {lineage{digest(plan), "inst-" + std::string(1, plan), shape, std::move(supersedes)},
           replaces ? digest(replaces) : std::string()}};
}

std::string standing_digest(const std::vector<ss::logged_claim>& log) {
  const std::optional<ss::logged_claim> s = ss::standing_claim(log);
  return s ? s->claim.plan.plan_digest : std::string("none");
}

using step = std::variant<ss::plan_stands, ss::write_claim, ss::succession_refused>;

step next(const std::vector<ss::logged_claim>& log, const ss::our_plan& ours) {
  return ss::next_claim_step("shop", "shop-streamt-plans", ss::standing_claim(log), ours, "me");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(claims)

BOOST_AUTO_TEST_CASE(a_claim_record_round_trips_and_text_that_is_not_a_claim_is_ignored) {
  const ss::plan_claim c = claim(0, 'b', 'a', {digest('a')}).claim;
  const std::optional<ss::plan_claim> back = ss::from_claim_record(ss::to_claim_record(c));
  BOOST_TEST_REQUIRE(back.has_value());
  BOOST_TEST((*back == c));
  BOOST_TEST(!ss::from_claim_record("").has_value());
  BOOST_TEST(!ss::from_claim_record("hello").has_value());
  // A commit's lineage without "replaces" claims nothing.
  BOOST_TEST(!ss::from_claim_record(streamt::engine::to_commit_metadata(c.plan)).has_value());
  BOOST_TEST(!ss::from_claim_record(R"({"streamt":1,"plan":"sha256:x","replaces":7})").has_value());
}

BOOST_AUTO_TEST_CASE(of_two_plans_that_both_claimed_an_empty_log_the_first_in_the_log_stands) {
  BOOST_TEST(standing_digest({}) == "none");
  BOOST_TEST(standing_digest({claim(0, 'x'), claim(1, 'a')}) == digest('x'));
  BOOST_TEST(standing_digest({claim(0, 'a'), claim(1, 'x')}) == digest('a'));
}

BOOST_AUTO_TEST_CASE(a_claim_stands_only_if_it_replaces_the_plan_standing_at_its_offset) {
  // A, then B replacing A, then C replacing A (it raced with B and lost),
  // then A' replacing B (a roll-back).
  const std::vector<ss::logged_claim> log{claim(0, 'a'), claim(1, 'b', 'a'), claim(2, 'c', 'a'),
                                          claim(3, 'd', 'b')};
  BOOST_TEST(standing_digest({log.begin(), log.begin() + 2}) == digest('b'));
  BOOST_TEST(standing_digest({log.begin(), log.begin() + 3}) == digest('b'));
  BOOST_TEST(standing_digest(log) == digest('d'));
  BOOST_TEST(ss::standing_claim(log)->offset == 3);
  // Two instances of B racing to replace A: the second changes nothing.
  BOOST_TEST(standing_digest({claim(0, 'a'), claim(1, 'b', 'a'), claim(2, 'b', 'a')}) == digest('b'));
  // A first claim that replaces something stands on nothing.
  BOOST_TEST(standing_digest({claim(0, 'b', 'a')}) == "none");
}

BOOST_AUTO_TEST_CASE(an_empty_log_is_claimed_replacing_nothing) {
  const step s = next({}, plan('a'));
  BOOST_TEST_REQUIRE(std::holds_alternative<ss::write_claim>(s));
  const ss::write_claim& w = std::get<ss::write_claim>(s);
  BOOST_TEST(w.claim.plan.plan_digest == digest('a'));
  BOOST_TEST(w.claim.plan.instance == "me");
  BOOST_TEST(w.claim.replaces.empty());
  BOOST_TEST(w.note.empty());
}

BOOST_AUTO_TEST_CASE(a_plan_that_stands_runs_without_writing) {
  const step s = next({claim(0, 'a'), claim(4, 'x')}, plan('a'));
  BOOST_TEST_REQUIRE(std::holds_alternative<ss::plan_stands>(s));
  BOOST_TEST(std::get<ss::plan_stands>(s).since == 0);
}

BOOST_AUTO_TEST_CASE(a_successor_claims_replacing_the_standing_plan_and_says_so) {
  const step s = next({claim(0, 'a')}, plan('b', {digest('a')}));
  BOOST_TEST_REQUIRE(std::holds_alternative<ss::write_claim>(s));
  const ss::write_claim& w = std::get<ss::write_claim>(s);
  BOOST_TEST(w.claim.replaces == digest('a'));
  BOOST_TEST(w.claim.plan.supersedes == std::vector<std::string>{digest('a')});
  BOOST_TEST(w.note.starts_with("taking over application shop at offset 0 from plan " + digest('a')));
  // The plan this state directory last ran counts as superseded (a restart
  // with a changed predicate).
  BOOST_TEST(std::holds_alternative<ss::write_claim>(next({claim(0, 'a')}, plan('c', {}, digest('a')))));
}

BOOST_AUTO_TEST_CASE(the_loser_of_a_race_on_a_new_group_is_refused_naming_both_plans) {
  // X and A both read an empty log and claimed; X's claim came first.
  const std::vector<ss::logged_claim> log{claim(0, 'x'), claim(1, 'a')};
  const step s = next(log, plan('a'));
  BOOST_TEST_REQUIRE(std::holds_alternative<ss::succession_refused>(s));
  const std::string& m = std::get<ss::succession_refused>(s).message;
  BOOST_TEST(
      m.starts_with("application shop was last claimed in its plan log shop-streamt-plans at offset 0 by "
                    "plan " +
                    digest('x')));
  BOOST_TEST(m.find("does not supersede") != std::string::npos);
  BOOST_TEST(m.find(digest('a')) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_older_plan_is_refused_once_its_successor_stands) {
  const step s = next({claim(0, 'a'), claim(1, 'b', 'a', {digest('a')})}, plan('a'));
  BOOST_TEST_REQUIRE(std::holds_alternative<ss::succession_refused>(s));
  BOOST_TEST(std::get<ss::succession_refused>(s).message.find("which supersedes this plan") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(plan_log_topics_are_named_after_the_application_id) {
  BOOST_TEST(ss::plan_log_topic("shop") == "shop-streamt-plans");
}

BOOST_AUTO_TEST_SUITE_END()
