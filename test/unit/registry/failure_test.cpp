// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/registry/failure.hpp"

#define BOOST_TEST_MODULE registry
#include <boost/test/unit_test.hpp>

namespace r = streamt::kafka::registry;
using k = r::failure_kind;

BOOST_AUTO_TEST_SUITE(registry_failure)

BOOST_AUTO_TEST_CASE(statuses_map_to_kinds) {
  BOOST_TEST((r::kind_of_status(401) == k::unauthorized));
  BOOST_TEST((r::kind_of_status(403) == k::forbidden));
  BOOST_TEST((r::kind_of_status(404) == k::not_found));
  BOOST_TEST((r::kind_of_status(409) == k::refused_request));
  BOOST_TEST((r::kind_of_status(422) == k::refused_request));
  BOOST_TEST((r::kind_of_status(408) == k::server_error));
  BOOST_TEST((r::kind_of_status(429) == k::server_error));
  BOOST_TEST((r::kind_of_status(500) == k::server_error));
  BOOST_TEST((r::kind_of_status(503) == k::server_error));
  BOOST_TEST((r::kind_of_status(301) == k::bad_answer));
  BOOST_TEST((r::kind_of_status(600) == k::bad_answer));
}

BOOST_AUTO_TEST_CASE(confluent_error_codes_tell_what_is_missing) {
  BOOST_TEST((r::missing_of(40401) == r::missing::subject));
  BOOST_TEST((r::missing_of(40402) == r::missing::version));
  BOOST_TEST((r::missing_of(40403) == r::missing::schema));
  BOOST_TEST((r::missing_of(0) == r::missing::other));
  BOOST_TEST((r::missing_of(40400) == r::missing::other));
}

BOOST_AUTO_TEST_CASE(only_outages_are_transient_and_only_an_unknown_schema_blames_the_record) {
  for (auto kind : {k::unreachable, k::timeout, k::server_error}) {
    BOOST_TEST(r::is_transient(kind));
    BOOST_TEST((r::verdict_of(kind, r::missing::none) == r::verdict::retry));
  }
  for (auto kind : {k::unauthorized, k::forbidden, k::tls, k::bad_answer}) {
    BOOST_TEST(!r::is_transient(kind));
    BOOST_TEST((r::verdict_of(kind, r::missing::none) == r::verdict::settings));
  }
  BOOST_TEST((r::verdict_of(k::not_found, r::missing::schema) == r::verdict::record));
  // A 404 with no Confluent code is a wrong URL, never the record's fault.
  BOOST_TEST((r::verdict_of(k::not_found, r::missing::other) == r::verdict::settings));
  BOOST_TEST((r::verdict_of(k::not_found, r::missing::subject) == r::verdict::refused));
  BOOST_TEST((r::verdict_of(k::not_found, r::missing::version) == r::verdict::refused));
  BOOST_TEST((r::verdict_of(k::refused_request, r::missing::none) == r::verdict::refused));
  BOOST_TEST((r::verdict_of(k::cancelled, r::missing::none) == r::verdict::stop));
  r::failure f{k::timeout, 0, 0, r::missing::none, "m"};
  BOOST_TEST(f.transient());
}

BOOST_AUTO_TEST_SUITE_END()
