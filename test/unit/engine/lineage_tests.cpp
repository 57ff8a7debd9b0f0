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

BOOST_AUTO_TEST_CASE(a_commit_stamps_its_time_into_the_metadata_and_the_lineage_reads_the_same) {
  const e::lineage l{digest, "inst-1"};
  const std::string base = e::to_commit_metadata(l);
  const std::string stamped = e::stamp_commit_metadata(base, 1796601600123);
  BOOST_TEST(stamped == base.substr(0, base.size() - 1) + ",\"at\":1796601600123}");
  const std::optional<e::lineage> back = e::from_commit_metadata(stamped);
  BOOST_TEST_REQUIRE(back.has_value());
  BOOST_TEST((*back == l));
  const std::optional<e::commit_metadata> read = e::read_commit_metadata(stamped);
  BOOST_TEST_REQUIRE(read.has_value());
  BOOST_TEST((read->plan == l));
  BOOST_TEST((read->at == std::optional<std::int64_t>(1796601600123)));
  // Written before the time was added: the lineage, no time; not ours: nothing.
  BOOST_TEST_REQUIRE(e::read_commit_metadata(base).has_value());
  BOOST_TEST(!e::read_commit_metadata(base)->at.has_value());
  BOOST_TEST(!e::read_commit_metadata(R"({"at":5})").has_value());
  BOOST_TEST(!e::read_commit_metadata("").has_value());
  // Metadata that is no object is left as it is.
  BOOST_TEST(e::stamp_commit_metadata("", 5) == "");
  BOOST_TEST(e::stamp_commit_metadata("free text", 5) == "free text");
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

BOOST_AUTO_TEST_CASE(a_lineage_header_names_the_plan_and_the_source_partition_and_offset_in_one_value) {
  e::lineage_stamp stamp("streamt-lineage", digest);
  const streamt::kafka::header_view h = stamp.header(3, 1234);
  BOOST_TEST(h.name == "streamt-lineage");
  BOOST_TEST_REQUIRE(h.value.has_value());
  BOOST_TEST(*h.value == digest + ";p=3;o=1234");
}

BOOST_AUTO_TEST_CASE(
    a_lineage_header_holds_the_largest_partition_and_offset_and_each_value_replaces_the_last) {
  e::lineage_stamp stamp("l", digest);
  const std::string largest(*stamp.header(2147483647, 9223372036854775807).value);
  BOOST_TEST(largest == digest + ";p=2147483647;o=9223372036854775807");
  // Nothing the engine produces is negative, but the buffer holds it.
  BOOST_TEST(std::string(*stamp.header(-2147483647 - 1, -9223372036854775807 - 1).value) ==
             digest + ";p=-2147483648;o=-9223372036854775808");
  // The value is rewritten in place; a shorter one leaves nothing behind.
  BOOST_TEST(std::string(*stamp.header(0, 7).value) == digest + ";p=0;o=7");
}

BOOST_AUTO_TEST_CASE(a_lineage_header_name_is_short_printable_ascii_without_spaces_and_not_streamt_dot) {
  for (std::string_view good : {"streamt-lineage", "x", "X-Lineage_2", "a.b:c/d=e", "streamt", "streamt-x"})
    BOOST_TEST(!e::lineage_header_name_problem(good).has_value(), good);
  BOOST_TEST(!e::lineage_header_name_problem(std::string(e::lineage_header_name_max, 'h')).has_value());

  BOOST_TEST(e::lineage_header_name_problem("").has_value());
  const auto too_long = e::lineage_header_name_problem(std::string(e::lineage_header_name_max + 1, 'h'));
  BOOST_TEST_REQUIRE(too_long.has_value());
  BOOST_TEST(too_long->message.find("129 characters long") != std::string::npos, too_long->message);
}

BOOST_AUTO_TEST_CASE(a_refused_lineage_header_name_comes_with_the_name_that_was_likely_meant) {
  const auto space = e::lineage_header_name_problem("streamt lineage");
  BOOST_TEST_REQUIRE(space.has_value());
  BOOST_TEST(space->message.find("a space at character 8") != std::string::npos, space->message);
  BOOST_TEST(space->suggestion == "streamt-lineage");
  // A run of bad characters becomes one '-', none at either end.
  const auto runs = e::lineage_header_name_problem("\tplan \x01 lineage\n");
  BOOST_TEST_REQUIRE(runs.has_value());
  BOOST_TEST(runs->message.find("the byte 0x9 at character 1") != std::string::npos, runs->message);
  BOOST_TEST(runs->suggestion == "plan-lineage");
  const auto utf8 = e::lineage_header_name_problem(
      "lign\xc3\xa9"
      "e");
  BOOST_TEST_REQUIRE(utf8.has_value());
  BOOST_TEST(utf8->message.find("the byte 0xc3 at character 5") != std::string::npos, utf8->message);
  // The dead-letter headers' prefix is the engine's.
  const auto reserved = e::lineage_header_name_problem("streamt.lineage");
  BOOST_TEST_REQUIRE(reserved.has_value());
  BOOST_TEST(reserved->suggestion == "streamt-lineage");
  // Nothing printable to suggest.
  const auto blank = e::lineage_header_name_problem("   ");
  BOOST_TEST_REQUIRE(blank.has_value());
  BOOST_TEST(blank->suggestion.empty());
}

BOOST_AUTO_TEST_SUITE_END()
