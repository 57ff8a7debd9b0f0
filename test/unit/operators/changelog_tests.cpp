// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// stage_pipeline under the schema's tombstones and changelog choices: what
// each record becomes when tombstones are forwarded, when the source is a
// changelog by key (upsert), and when a record of such a source has no key.

#include "operators/stage_pipeline.hpp"

#include "orders_fixture.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace ops = streamt::operators;
namespace plan = streamt::plan;
namespace t = streamt::operators::test;

namespace {

// orders WHERE amount >= 50, with the schema's choices.
ops::stage_pipeline big_orders(plan::tombstones tombstones, std::optional<plan::changelog> changelog) {
  plan::plan p = t::orders_plan_where({{t::amount, plan::compare_op::ge, std::int64_t{50}}});
  p.schema.tombstones = tombstones;
  p.schema.changelog = changelog;
  return ops::stage_pipeline(p);
}

constexpr const char* passing = R"({"id":"a","amount":120,"note":null,"flag":true})";
constexpr const char* failing = R"({"id":"b","amount":49,"note":null,"flag":true})";
constexpr const char* amount_unknown = R"({"id":"b","amount":"x","note":null,"flag":true})";

}  // namespace

BOOST_AUTO_TEST_SUITE(changelog)

BOOST_AUTO_TEST_CASE(drops_tombstones_by_default_in_a_stream) {
  for (std::optional<plan::changelog> c :
       {std::optional<plan::changelog>{}, std::optional{plan::changelog::append}}) {
    auto p = big_orders(plan::tombstones::drop, c);
    BOOST_TEST((p.process(std::nullopt).outcome == ops::outcome::tombstone));
    BOOST_TEST((p.process(std::nullopt, false).outcome == ops::outcome::tombstone));
    BOOST_TEST((p.process(failing).outcome == ops::outcome::filtered));
  }
}

BOOST_AUTO_TEST_CASE(forwards_tombstones_when_the_schema_says_so) {
  auto p = big_orders(plan::tombstones::forward, plan::changelog::append);
  auto s = p.process(std::nullopt);
  BOOST_TEST((s.outcome == ops::outcome::forward_tombstone));
  BOOST_TEST(s.output.empty());
  BOOST_TEST(s.error == nullptr);
  // A stream's keyless tombstone is forwarded too: only an upsert needs keys.
  BOOST_TEST((p.process(std::nullopt, false).outcome == ops::outcome::forward_tombstone));
  // The predicate still drops what does not pass, in a stream.
  BOOST_TEST((p.process(failing).outcome == ops::outcome::filtered));
  BOOST_TEST((p.process(passing).outcome == ops::outcome::emitted));
}

BOOST_AUTO_TEST_CASE(upsert_forwards_tombstones_whatever_the_tombstones_choice) {
  auto p = big_orders(plan::tombstones::drop, plan::changelog::upsert);
  auto s = p.process(std::nullopt, true);
  BOOST_TEST((s.outcome == ops::outcome::forward_tombstone));
  BOOST_TEST(s.error == nullptr);
}

BOOST_AUTO_TEST_CASE(upsert_deletes_the_key_of_a_record_that_does_not_pass) {
  auto p = big_orders(plan::tombstones::drop, plan::changelog::upsert);
  auto s = p.process(failing, true);
  BOOST_TEST((s.outcome == ops::outcome::delete_key));
  BOOST_TEST(s.output.empty());
  BOOST_TEST(s.error == nullptr);
  auto good = p.process(passing, true);
  BOOST_TEST_REQUIRE((good.outcome == ops::outcome::emitted));
  BOOST_TEST(good.output == R"({"amount":120,"order_id":"a","flag":true,"note":null})");
}

BOOST_AUTO_TEST_CASE(upsert_deletes_the_key_when_the_predicate_is_unknown) {
  // amount IS NULL: the comparison is unknown, which does not pass.
  plan::plan pl = t::orders_plan_where({{t::note, plan::compare_op::eq, std::string("x")}});
  pl.schema.changelog = plan::changelog::upsert;
  ops::stage_pipeline p(pl);
  BOOST_TEST((p.process(failing, true).outcome == ops::outcome::delete_key));
}

BOOST_AUTO_TEST_CASE(upsert_refuses_a_record_without_a_key) {
  auto p = big_orders(plan::tombstones::drop, plan::changelog::upsert);
  for (std::optional<std::string_view> value :
       {std::optional<std::string_view>(passing), std::optional<std::string_view>(failing),
        std::optional<std::string_view>()}) {
    auto s = p.process(value, false);
    BOOST_TEST_REQUIRE((s.outcome == ops::outcome::invalid));
    BOOST_TEST_REQUIRE(s.error != nullptr);
    BOOST_TEST(s.error->code == "missing_key");
    BOOST_TEST((s.error->phase == streamt::phase::record));
    BOOST_TEST(s.error->message.starts_with("changelog upsert needs a key; this record has none"),
               s.error->message);
  }
  // The record after it is processed as usual.
  BOOST_TEST((p.process(passing, true).outcome == ops::outcome::emitted));
}

BOOST_AUTO_TEST_CASE(upsert_still_refuses_an_invalid_value_of_a_keyed_record) {
  auto p = big_orders(plan::tombstones::drop, plan::changelog::upsert);
  auto s = p.process(amount_unknown, true);
  BOOST_TEST_REQUIRE((s.outcome == ops::outcome::invalid));
  BOOST_TEST(s.error->code == "wrong_type");
}

BOOST_AUTO_TEST_SUITE_END()
