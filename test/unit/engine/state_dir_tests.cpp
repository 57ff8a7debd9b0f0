// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/state_dir.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using namespace streamt;
namespace fs = std::filesystem;

struct scratch {
  fs::path dir;
  scratch() {
    std::string tmpl = (fs::temp_directory_path() / "streamt-state-XXXXXX").string();
    BOOST_TEST_REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir = fs::path(tmpl) / "state";
  }
  ~scratch() { fs::remove_all(dir.parent_path()); }
};

plan::plan orders(std::int64_t threshold) {
  plan::plan p;
  p.identity.application_id = "orders-big";
  p.identity.source_topic = "orders";
  p.identity.sink_topic = "big-orders";
  p.schema.source = "orders";
  p.schema.topic = "orders";
  p.schema.columns = {{"id", plan::column_type::string, false}, {"amount", plan::column_type::bigint, false}};
  p.predicate = {{1, plan::compare_op::ge, threshold}};
  p.projection = {{0, "id"}, {1, "amount"}};
  return p;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(state_directory)

BOOST_AUTO_TEST_CASE(keeps_the_instance_id_across_restarts) {
  scratch s;
  std::string first;
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d.has_value());
    BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
    BOOST_TEST(d->first_run());
    first = d->instance_id();
    BOOST_TEST(first.size() == 16u);
    BOOST_TEST(engine::transactional_id(orders(50), *d) == "orders-big-" + first);
  }
  auto d = engine::state_dir::open(s.dir.string());
  BOOST_TEST_REQUIRE(d.has_value());
  BOOST_TEST_REQUIRE(d->admit(orders(100), false).has_value());
  BOOST_TEST(!d->first_run());
  BOOST_TEST(d->instance_id() == first);
}

BOOST_AUTO_TEST_CASE(a_second_process_cannot_take_the_lock) {
  scratch s;
  auto a = engine::state_dir::open(s.dir.string());
  BOOST_TEST_REQUIRE(a.has_value());
  auto b = engine::state_dir::open(s.dir.string());
  BOOST_TEST_REQUIRE(!b.has_value());
  BOOST_TEST(b.error().code == "state_dir_locked");
  BOOST_TEST(b.error().message.find("pid") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_lock_is_released_when_the_owner_ends) {
  scratch s;
  {
    auto a = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(a.has_value());
  }
  BOOST_TEST(engine::state_dir::open(s.dir.string()).has_value());
}

BOOST_AUTO_TEST_CASE(refuses_a_changed_identity) {
  scratch s;
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
  }
  plan::plan renamed = orders(50);
  renamed.identity.sink_topic = "other";
  auto d = engine::state_dir::open(s.dir.string());
  auto r = d->admit(renamed, true);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().code == "identity_changed");
  BOOST_TEST(r.error().message.find("sink topic was 'big-orders'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_changed_projection_needs_allow_output_change) {
  scratch s;
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
  }
  plan::plan narrower = orders(50);
  narrower.projection.pop_back();
  auto d = engine::state_dir::open(s.dir.string());
  auto refused = d->admit(narrower, false);
  BOOST_TEST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().code == "output_changed");
  BOOST_TEST(d->admit(narrower, true).has_value());
}

BOOST_AUTO_TEST_CASE(records_every_start_in_the_history) {
  scratch s;
  for (std::int64_t t : {50, 100}) {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(orders(t), false).has_value());
  }
  std::ifstream h(s.dir / "history");
  std::string line;
  int lines = 0;
  while (std::getline(h, line)) {
    BOOST_TEST(line.find(" sha256:") != std::string::npos);
    ++lines;
  }
  BOOST_TEST(lines == 2);
}

BOOST_AUTO_TEST_SUITE_END()
