// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/session/succession.hpp"

#include <boost/test/unit_test.hpp>

// engine/session/succession.hpp: whether a plan may take a partition, from
// the lineage of the partition's last commit.

namespace ss = streamt::engine::session;
using streamt::engine::lineage;

namespace {

std::string digest(char c) { return "sha256:" + std::string(64, c); }

const std::string shape = digest('s');
const std::string other_shape = digest('t');

// Plan B, which supersedes A (and, through A, Z), run by a fresh instance.
ss::our_plan plan_b() { return {digest('b'), shape, {digest('a'), digest('z')}, {}, false}; }

lineage committed_by(char plan, std::string by_shape = shape, std::vector<std::string> supersedes = {}) {
  return lineage{digest(plan), "inst-" + std::string(1, plan), std::move(by_shape), std::move(supersedes)};
}

ss::succession_refused refused(const std::variant<ss::take_partition, ss::succession_refused>& v) {
  BOOST_TEST_REQUIRE(std::holds_alternative<ss::succession_refused>(v));
  return std::get<ss::succession_refused>(v);
}

ss::take_partition taken(const std::variant<ss::take_partition, ss::succession_refused>& v) {
  BOOST_TEST_REQUIRE(std::holds_alternative<ss::take_partition>(v));
  return std::get<ss::take_partition>(v);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(succession)

BOOST_AUTO_TEST_CASE(a_partition_without_lineage_or_committed_by_this_plan_is_taken_silently) {
  BOOST_TEST(taken(ss::succession("orders/0", std::nullopt, std::nullopt, plan_b())).note.empty());
  BOOST_TEST(taken(ss::succession("orders/0", ss::offset{9}, committed_by('b'), plan_b())).note.empty());
}

BOOST_AUTO_TEST_CASE(a_partition_of_a_plan_it_supersedes_is_handed_over_naming_both_digests_and_the_offset) {
  for (char before : {'a', 'z'}) {  // directly, and along the chain
    const std::string note =
        taken(ss::succession("orders/0", ss::offset{9}, committed_by(before), plan_b())).note;
    BOOST_TEST(note.find("taking over orders/0 at offset 9 from plan " + digest(before)) != std::string::npos,
               note);
    BOOST_TEST(note.find("which plan " + digest('b') + " supersedes") != std::string::npos, note);
  }
}

BOOST_AUTO_TEST_CASE(a_changed_output_shape_needs_allow_output_change_even_for_a_fresh_instance) {
  const auto r = refused(ss::succession("orders/0", ss::offset{9}, committed_by('a', other_shape), plan_b()));
  BOOST_TEST(r.message.find("--allow-output-change") != std::string::npos, r.message);
  ss::our_plan allowed = plan_b();
  allowed.allow_output_change = true;
  taken(ss::succession("orders/0", ss::offset{9}, committed_by('a', other_shape), allowed));
}

BOOST_AUTO_TEST_CASE(a_partition_a_newer_plan_committed_is_never_taken_by_the_plan_it_supersedes) {
  const ss::our_plan a{digest('a'), shape, {}, {}, false};
  const auto r =
      refused(ss::succession("orders/3", ss::offset{40}, committed_by('b', shape, {digest('a')}), a));
  BOOST_TEST(
      r.message.find("orders/3 was last committed at offset 40 by plan " + digest('b')) != std::string::npos,
      r.message);
  BOOST_TEST(r.message.find("which supersedes this plan " + digest('a')) != std::string::npos, r.message);
  BOOST_TEST(r.message.find("--supersedes") != std::string::npos, r.message);  // how to roll back
}

BOOST_AUTO_TEST_CASE(an_unrelated_plan_on_the_same_application_id_is_refused_with_both_digests) {
  const auto r = refused(ss::succession("orders/1", ss::offset{5}, committed_by('x'), plan_b()));
  BOOST_TEST(r.message.find(digest('x')) != std::string::npos, r.message);
  BOOST_TEST(r.message.find("this plan " + digest('b') + " does not supersede") != std::string::npos,
             r.message);
  BOOST_TEST(r.message.find("streamt offsets shows which") != std::string::npos, r.message);
}

BOOST_AUTO_TEST_CASE(the_plan_this_state_directory_last_ran_is_a_predecessor_without_supersedes) {
  // The acceptance sequence's phase 2: the same instance restarted with a
  // changed predicate.
  ss::our_plan restarted{digest('c'), shape, {}, digest('x'), false};
  const std::string note =
      taken(ss::succession("orders/0", ss::offset{6}, committed_by('x'), restarted)).note;
  BOOST_TEST(note.find("replaces in this state directory") != std::string::npos, note);
  // Another instance of the new plan, fresh, is not so lucky.
  restarted.ran_here.clear();
  refused(ss::succession("orders/1", ss::offset{3}, committed_by('x'), restarted));
}

BOOST_AUTO_TEST_CASE(a_lineage_that_records_no_shape_is_handed_over_without_the_output_check) {
  taken(ss::succession("orders/0", ss::offset{1}, committed_by('a', ""), plan_b()));
}

BOOST_AUTO_TEST_SUITE_END()
