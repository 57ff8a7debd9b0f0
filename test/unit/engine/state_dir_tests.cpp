// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/state_dir.hpp"
#include "plan/avro_sink.hpp"
#include "plan/plan_json.hpp"

#include "test/support/orders_plan.hpp"
#include "test/support/routed_plan.hpp"
#include "test/support/temp_dir.hpp"

#include <boost/test/unit_test.hpp>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace streamt;
namespace fs = std::filesystem;

// The test's directory (the state directory inside it, not made yet).
struct scratch {
  streamt::test::temp_dir tmp{"streamt-state"};
  fs::path dir = tmp.path() / "state";
};

plan::plan orders(std::int64_t threshold) { return test::orders_plan(threshold); }

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << text;
}

// Every file of a directory and its bytes.
std::map<std::string, std::string> contents_of(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files[e.path().filename().string()] = read(e.path());
  return files;
}

// A directory one run of orders(50) has been admitted to and committed in.
void run_once(const scratch& s) {
  auto d = engine::state_dir::open(s.dir.string());
  BOOST_TEST_REQUIRE(d.has_value());
  BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
  BOOST_TEST_REQUIRE(d->commit().has_value());
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
    BOOST_TEST_REQUIRE(d->commit().has_value());
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
    BOOST_TEST_REQUIRE(d->commit().has_value());
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
    BOOST_TEST_REQUIRE(d->commit().has_value());
  }
  plan::plan narrower = orders(50);
  narrower.projection.pop_back();
  auto d = engine::state_dir::open(s.dir.string());
  auto refused = d->admit(narrower, false);
  BOOST_TEST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().code == "output_changed");
  BOOST_TEST(d->admit(narrower, true).has_value());
}

BOOST_AUTO_TEST_CASE(a_changed_sink_format_needs_allow_output_change) {
  scratch s;
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
    BOOST_TEST_REQUIRE(d->commit().has_value());
  }
  plan::plan avro = orders(50);
  avro.sink.format = plan::sink_format::avro;
  avro.sink.avro = *plan::avro::pin_sink_schema(avro);
  avro.version = plan::required_version(avro);
  auto d = engine::state_dir::open(s.dir.string());
  auto refused = d->admit(avro, false);
  BOOST_TEST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().code == "output_changed");
  BOOST_TEST(refused.error().message.find("sink format") != std::string::npos, refused.error().message);
  BOOST_TEST(d->admit(avro, true).has_value());
}

BOOST_AUTO_TEST_CASE(records_every_start_in_the_history) {
  scratch s;
  for (std::int64_t t : {50, 100}) {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(orders(t), false).has_value());
    BOOST_TEST_REQUIRE(d->commit().has_value());
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

BOOST_AUTO_TEST_CASE(an_admitted_start_that_is_never_committed_writes_no_identity_plan_or_history) {
  scratch s;
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d.has_value());
    BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
    BOOST_TEST(d->first_run());
    BOOST_TEST(d->instance_id().size() == 16u);
  }
  BOOST_TEST(!fs::exists(s.dir));  // open() made it; the release takes it away again
  auto d = engine::state_dir::open(s.dir.string());
  BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
  BOOST_TEST(d->first_run());
}

BOOST_AUTO_TEST_CASE(a_first_start_that_failed_does_not_refuse_the_corrected_plan) {
  scratch s;
  plan::plan misspelled = orders(50);
  misspelled.identity.sink_topic = "big-ordres";
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(misspelled, false).has_value());
    // The topic check fails here: no commit().
  }
  auto d = engine::state_dir::open(s.dir.string());
  BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
  BOOST_TEST(d->first_run());
}

BOOST_AUTO_TEST_CASE(a_restart_that_is_never_committed_leaves_every_file_byte_for_byte) {
  scratch s;
  run_once(s);
  const auto before = contents_of(s.dir);
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(orders(100), false).has_value());
    BOOST_TEST(!d->first_run());
  }
  BOOST_TEST((contents_of(s.dir) == before));
}

BOOST_AUTO_TEST_CASE(a_refused_restart_leaves_every_file_byte_for_byte) {
  scratch s;
  run_once(s);
  const auto before = contents_of(s.dir);
  plan::plan renamed = orders(50);
  renamed.identity.sink_topic = "other";
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST(!d->admit(renamed, true).has_value());
  }
  BOOST_TEST((contents_of(s.dir) == before));
}

BOOST_AUTO_TEST_CASE(a_start_never_committed_in_a_directory_of_other_files_leaves_them_and_adds_no_lock) {
  scratch s;
  fs::create_directories(s.dir);
  write(s.dir / "notes.txt", "not ours\n");
  const auto before = contents_of(s.dir);
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
    BOOST_TEST(fs::exists(s.dir / "lock"));
  }
  BOOST_TEST((contents_of(s.dir) == before));
}

BOOST_AUTO_TEST_CASE(a_start_never_committed_gives_a_stale_lock_file_its_old_bytes_back) {
  scratch s;
  run_once(s);
  write(s.dir / "lock", "4711\n");  // left by a process killed with SIGKILL
  const auto before = contents_of(s.dir);
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
  }
  BOOST_TEST((contents_of(s.dir) == before));
}

BOOST_AUTO_TEST_CASE(the_lock_file_names_its_holder_and_is_empty_once_a_committed_run_releases_it) {
  scratch s;
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d.has_value());
    BOOST_TEST(read(s.dir / "lock") == std::to_string(::getpid()) + "\n");
    BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
    BOOST_TEST_REQUIRE(d->commit().has_value());
  }
  BOOST_TEST(read(s.dir / "lock").empty());
}

BOOST_AUTO_TEST_CASE(the_next_start_reads_how_the_last_run_ended_or_that_it_never_said) {
  scratch s;
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d.has_value());
    BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
    BOOST_TEST_REQUIRE(d->commit().has_value());
    BOOST_TEST(!d->previous_run().has_value());  // a first run
    engine::run_record end;
    end.exit_code = 65;
    end.status = "invalid_record";
    end.stopped_at = "orders/0@7";
    end.reason = "type_mismatch";
    BOOST_TEST(!d->record_end(end).has_value());
  }
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d.has_value());
    BOOST_TEST_REQUIRE(d->admit(orders(60), false).has_value());
    BOOST_TEST_REQUIRE(d->commit().has_value());
    const auto& before = d->previous_run();
    BOOST_TEST_REQUIRE(before.has_value());
    BOOST_TEST(before->ended);
    BOOST_TEST(before->exit_code == 65);
    BOOST_TEST(before->status == "invalid_record");
    BOOST_TEST(before->stopped_at == "orders/0@7");
    BOOST_TEST(before->reason == "type_mismatch");
    BOOST_TEST(before->plan_digest == plan::digest(orders(50)));
    // This run is killed: it records no end.
  }
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d.has_value());
    BOOST_TEST_REQUIRE(d->admit(orders(60), false).has_value());
    BOOST_TEST_REQUIRE(d->commit().has_value());
    BOOST_TEST_REQUIRE(d->previous_run().has_value());
    BOOST_TEST(!d->previous_run()->ended);
    BOOST_TEST(d->previous_run()->plan_digest == plan::digest(orders(60)));
  }
  write(s.dir / "last-run.json", "{\"started_at\": 7}");  // damaged: tells nothing, and is no error
  auto d = engine::state_dir::open(s.dir.string());
  BOOST_TEST_REQUIRE(d.has_value());
  BOOST_TEST_REQUIRE(d->admit(orders(60), false).has_value());
  BOOST_TEST_REQUIRE(d->commit().has_value());
  BOOST_TEST(!d->previous_run().has_value());
}

BOOST_AUTO_TEST_CASE(a_commit_leaves_no_temporary_file_behind) {
  scratch s;
  run_once(s);
  std::map<std::string, std::string> files = contents_of(s.dir);
  BOOST_TEST(files.size() == 5u);
  for (const char* name : {"lock", "identity.json", "plan.json", "history", "last-run.json"})
    BOOST_TEST(files.count(name) == 1u);
  const fs::perms rw_r_r =
      fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;
  BOOST_TEST((fs::status(s.dir / "identity.json").permissions() == rw_r_r));
}

BOOST_AUTO_TEST_CASE(a_commit_without_an_admit_is_refused) {
  scratch s;
  auto d = engine::state_dir::open(s.dir.string());
  BOOST_TEST(!d->commit().has_value());
  BOOST_TEST(!fs::exists(s.dir / "identity.json"));
}

// Each damaged identity.json: what the message must say about it. Each holds
// "hunter2", which the message must never quote.
struct damage {
  const char* name;
  std::string text;
  const char* what;
};

std::vector<damage> damages(const std::string& id) {
  const std::string good_head =
      R"({"application_id":"orders-big","source_topic":"orders","sink_topic":"big-orders",)";
  return {
      {"empty", "", "it is empty"},
      {"blank", " \n\n", "it is empty"},
      {"truncated", good_head + R"("instance_id":"hunter2)", "it is not valid JSON"},
      {"not JSON", "password=hunter2\n", "it is not valid JSON"},
      {"foreign object", R"({"user":"admin","password":"hunter2"})",
       "it holds fields streamt does not write"},
      {"an array", R"(["hunter2"])", "it does not hold a JSON object"},
      {"a raw control character", good_head + "\"instance_id\":\"" + id + "\x01hunter2\"}",
       "it is not valid JSON"},
      {"an escaped control character",
       R"({"application_id":"orders-big\u001bhunter2","source_topic":"orders","sink_topic":"big-orders","instance_id":")" +
           id + "\"}",
       "its field 'application_id' is empty or holds control characters"},
      {"an empty instance id", good_head + R"("instance_id":""})",
       "its field 'instance_id' is empty or holds control characters"},
      {"an instance id of another shape", good_head + R"("instance_id":"hunter2"})",
       "its 'instance_id' is not 16 lowercase hex digits"},
      {"a number for an instance id", good_head + R"("instance_id":42})",
       "its field 'instance_id' is missing or not a string"},
      {"a missing field",
       R"({"application_id":"orders-big","source_topic":"orders","instance_id":")" + id + "\"}",
       "its field 'sink_topic' is missing or not a string"},
      {"other topics than plan.json",
       R"({"application_id":"orders-big","source_topic":"orders","sink_topic":"hunter2","instance_id":")" +
           id + "\"}",
       "it names another application or other topics than plan.json"},
  };
}

BOOST_AUTO_TEST_CASE(a_damaged_identity_is_refused_naming_the_file_and_what_to_do_and_is_never_overwritten) {
  scratch s;
  run_once(s);
  std::string id;
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
    id = d->instance_id();
  }
  for (const damage& dmg : damages(id)) {
    BOOST_TEST_CONTEXT("identity.json holding " << dmg.name) {
      write(s.dir / "identity.json", dmg.text);
      const auto before = contents_of(s.dir);
      {
        auto d = engine::state_dir::open(s.dir.string());
        BOOST_TEST_REQUIRE(d.has_value());
        auto r = d->admit(orders(50), false);
        BOOST_TEST_REQUIRE(!r.has_value());
        BOOST_TEST(r.error().code == "state_dir_unusable");
        const std::string& m = r.error().message;
        BOOST_TEST(m.find("'" + (s.dir / "identity.json").string() + "' is damaged: " + dmg.what) !=
                       std::string::npos,
                   m);
        BOOST_TEST(m.find("move the directory '" + s.dir.string() +
                          "' aside (or point --state-dir at a new one)") != std::string::npos,
                   m);
        BOOST_TEST(m.find("hunter2") == std::string::npos, m);
        BOOST_TEST(!d->commit().has_value());  // nothing admitted, nothing to write
      }
      BOOST_TEST((contents_of(s.dir) == before));
    }
  }
}

BOOST_AUTO_TEST_CASE(an_identity_deleted_beside_a_history_is_refused_not_taken_for_a_new_instance) {
  scratch s;
  run_once(s);
  fs::remove(s.dir / "identity.json");
  auto d = engine::state_dir::open(s.dir.string());
  auto r = d->admit(orders(50), false);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().code == "state_dir_unusable");
  BOOST_TEST(r.error().message.find("it is missing, although plan.json and history record earlier runs") !=
             std::string::npos);
  BOOST_TEST(!fs::exists(s.dir / "identity.json"));
}

BOOST_AUTO_TEST_CASE(a_crash_between_plan_and_identity_on_a_first_run_looks_like_a_new_directory) {
  scratch s;
  run_once(s);
  fs::remove(s.dir / "identity.json");
  fs::remove(s.dir / "history");
  auto d = engine::state_dir::open(s.dir.string());
  BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
  BOOST_TEST(d->first_run());
}

BOOST_AUTO_TEST_CASE(an_identity_without_its_plan_is_refused) {
  scratch s;
  run_once(s);
  fs::remove(s.dir / "plan.json");
  auto d = engine::state_dir::open(s.dir.string());
  auto r = d->admit(orders(50), false);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().code == "state_dir_unusable");
  BOOST_TEST(r.error().message.find("no plan.json") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(a_last_run_file_with_a_field_of_another_shape_tells_nothing_and_never_reaches_the_log) {
  scratch s;
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d.has_value());
    BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
    BOOST_TEST_REQUIRE(d->commit().has_value());
  }
  const std::string digest = plan::digest(orders(50));
  const std::string ended =
      R"(, "ended_at": "2026-12-06T11:29:00Z", "exit_code": 65, "status": "invalid_record")";
  // What the engine writes is read back.
  write(s.dir / "last-run.json", R"({"started_at": "2026-12-06T11:28:41Z", "plan_digest": ")" + digest +
                                     "\"" + ended +
                                     R"(, "stopped_at": "orders/0@7", "reason": "type_mismatch"})");
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
    BOOST_TEST_REQUIRE(d->commit().has_value());
    BOOST_TEST_REQUIRE(d->previous_run().has_value());
    BOOST_TEST(d->previous_run()->stopped_at == "orders/0@7");
  }
  // An escape sequence, a newline, a digest of another shape: nothing.
  for (const std::string& damaged : std::vector<std::string>{
           R"({"started_at": "2026-12-06T11:28:41Z\u001b[31m", "plan_digest": ")" + digest + "\"}",
           R"({"started_at": "2026-12-06T11:28:41Z", "plan_digest": "sha256:x\nforged line"})",
           R"({"started_at": "2026-12-06T11:28:41Z", "plan_digest": ")" + digest + "\"" + ended +
               R"(, "stopped_at": "orders/0@7", "reason": "type_mismatch\r\u001b[2K"})",
       }) {
    write(s.dir / "last-run.json", damaged);
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(orders(50), false).has_value());
    BOOST_TEST_REQUIRE(d->commit().has_value());
    BOOST_TEST(!d->previous_run().has_value(), damaged);
  }
}

namespace {

// orders(50) as a routed plan of two routes (big-orders, and audit keyed by
// the id), as compile writes it: the single SELECT's parts moved into routes.
plan::plan routed_orders() {
  const plan::plan p = orders(50);
  return test::routed(p, {{p.identity.sink_topic, p.predicate, p.projection, std::nullopt},
                          {"audit", {}, p.projection, std::size_t{0}}});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(state_directory_of_a_routed_plan)

BOOST_AUTO_TEST_CASE(a_routed_plan_restarts_from_its_state_directory_with_its_sinks_recorded) {
  scratch s;
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(routed_orders(), false).has_value());
    BOOST_TEST_REQUIRE(d->commit().has_value());
  }
  BOOST_TEST(read(s.dir / "identity.json").find("\"sink_topic\":\"big-orders,audit\"") != std::string::npos,
             read(s.dir / "identity.json"));
  plan::plan other_predicate = routed_orders();
  other_predicate.routes[1].predicate = other_predicate.routes[0].predicate;
  auto d = engine::state_dir::open(s.dir.string());
  BOOST_TEST(d->admit(other_predicate, false).has_value());
}

BOOST_AUTO_TEST_CASE(a_routed_plan_with_another_set_of_sinks_is_refused_as_a_changed_identity) {
  scratch s;
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(routed_orders(), false).has_value());
    BOOST_TEST_REQUIRE(d->commit().has_value());
  }
  plan::plan renamed = routed_orders();
  renamed.routes[1].sink_topic = "audit-v2";
  auto d = engine::state_dir::open(s.dir.string());
  auto r = d->admit(renamed, true);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().code == "identity_changed");
  BOOST_TEST(r.error().message.find("sink topics was 'big-orders,audit', is now 'big-orders,audit-v2'") !=
                 std::string::npos,
             r.error().message);
}

BOOST_AUTO_TEST_CASE(a_routed_plan_whose_route_changes_its_key_column_needs_allow_output_change) {
  scratch s;
  {
    auto d = engine::state_dir::open(s.dir.string());
    BOOST_TEST_REQUIRE(d->admit(routed_orders(), false).has_value());
    BOOST_TEST_REQUIRE(d->commit().has_value());
  }
  plan::plan rekeyed = routed_orders();
  rekeyed.routes[1].partition_by.reset();
  auto d = engine::state_dir::open(s.dir.string());
  auto refused = d->admit(rekeyed, false);
  BOOST_TEST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().code == "output_changed");
  BOOST_TEST(d->admit(rekeyed, true).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
