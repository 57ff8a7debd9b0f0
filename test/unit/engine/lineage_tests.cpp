// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/lineage.hpp"

#include <boost/test/unit_test.hpp>

// engine/lineage.hpp: the plan lineage an offset commit's metadata carries.

namespace e = streamt::engine;

namespace {
const std::string digest = "sha256:" + std::string(64, 'a');
}  // namespace

BOOST_AUTO_TEST_SUITE(lineage)

BOOST_AUTO_TEST_CASE(the_commit_metadata_names_the_plan_and_the_instance_in_one_compact_object) {
  const std::string m = e::to_commit_metadata({digest, "3f2a9c1b"});
  BOOST_TEST(m == R"({"streamt":1,"plan":")" + digest + R"(","instance":"3f2a9c1b"})");
  BOOST_TEST(m.size() < 4096u);  // the broker's default offset.metadata.max.bytes
}

BOOST_AUTO_TEST_CASE(the_lineage_is_read_back_from_the_metadata_it_wrote) {
  const e::lineage l{digest, "instance-7"};
  const std::optional<e::lineage> back = e::from_commit_metadata(e::to_commit_metadata(l));
  BOOST_TEST_REQUIRE(back.has_value());
  BOOST_TEST((*back == l));
}

BOOST_AUTO_TEST_CASE(the_output_shape_and_the_plans_superseded_travel_with_the_commit_up_to_the_bound) {
  e::lineage l{digest, "i", "sha256:" + std::string(64, 's'), {}};
  for (int i = 0; i < 20; ++i) l.supersedes.push_back("sha256:" + std::string(63, 'c') + char('a' + i));
  const std::string m = e::to_commit_metadata(l);
  BOOST_TEST(m.size() < 2048u);
  const std::optional<e::lineage> back = e::from_commit_metadata(m);
  BOOST_TEST_REQUIRE(back.has_value());
  BOOST_TEST(back->output_shape == l.output_shape);
  BOOST_TEST_REQUIRE(back->supersedes.size() == e::lineage_supersedes);
  BOOST_TEST(back->supersedes.front() == l.supersedes.front());  // the nearest are kept
}

BOOST_AUTO_TEST_CASE(metadata_that_is_not_ours_records_no_lineage) {
  for (std::string_view m :
       {"", "-", "committed by kafka-consumer-groups", "{", "[1]", R"({"plan":"sha256:ab"})",
        R"({"streamt":0,"plan":"sha256:ab"})", R"({"streamt":"1","plan":"sha256:ab"})",
        R"({"streamt":1,"plan":"md5:ab"})", R"({"streamt":1,"plan":7})"})
    BOOST_TEST(!e::from_commit_metadata(m).has_value(), m);
}

BOOST_AUTO_TEST_CASE(a_later_version_s_metadata_is_read_for_the_fields_this_one_knows) {
  const std::optional<e::lineage> l =
      e::from_commit_metadata(R"({"streamt":2,"plan":")" + digest + R"(","instance":"i","supersedes":"x"})");
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST(l->plan_digest == digest);
}

BOOST_AUTO_TEST_SUITE_END()
