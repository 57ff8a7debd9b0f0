// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/registry/base64.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <utility>
#include <vector>

namespace r = streamt::kafka::registry;

BOOST_AUTO_TEST_SUITE(base64)

BOOST_AUTO_TEST_CASE(the_rfc_4648_vectors_encode_and_decode) {
  const std::vector<std::pair<std::string, std::string>> vectors{{"", ""},
                                                                 {"f", "Zg=="},
                                                                 {"fo", "Zm8="},
                                                                 {"foo", "Zm9v"},
                                                                 {"foob", "Zm9vYg=="},
                                                                 {"fooba", "Zm9vYmE="},
                                                                 {"foobar", "Zm9vYmFy"}};
  for (const auto& [bytes, text] : vectors) {
    BOOST_TEST(r::base64_encode(bytes) == text);
    std::string out = "left over";
    BOOST_TEST(!r::base64_decode(text, out).has_value(), text);
    BOOST_TEST(out == bytes);
  }
}

BOOST_AUTO_TEST_CASE(every_byte_value_survives_the_round_trip) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  for (std::size_t cut = 0; cut < 3; ++cut) {
    const std::string in = bytes.substr(cut);
    std::string out;
    BOOST_TEST(!r::base64_decode(r::base64_encode(in), out).has_value());
    BOOST_TEST(out == in);
  }
}

BOOST_AUTO_TEST_CASE(anything_but_the_canonical_text_is_refused_at_its_character) {
  struct refused {
    std::string text;
    std::size_t position;
    std::string why;
  };
  for (const refused& c : std::vector<refused>{
           {"Zm9", 3, "not a multiple of 4"},
           {"Zm9v\n", 5, "not a multiple of 4"},
           {"Zm-v", 2, "URL-safe"},
           {"Zm_v", 2, "URL-safe"},
           {"Zm 9", 2, "outside the base64 alphabet"},
           {"Z=9v", 1, "outside the base64 alphabet"},
           {"Zh==", 1, "bits after the last byte are not zero"},
           {"Zm9=", 2, "bits after the last byte are not zero"},
       }) {
    std::string out;
    const auto e = r::base64_decode(c.text, out);
    BOOST_TEST_REQUIRE(e.has_value(), c.text);
    BOOST_TEST(e->position == c.position, c.text);
    BOOST_TEST(e->what.find(c.why) != std::string::npos, e->what);
  }
}

BOOST_AUTO_TEST_SUITE_END()
