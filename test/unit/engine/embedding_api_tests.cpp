#include "engine/streamt.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

// The embedding API's plan loading (<streamt/engine.hpp>). The run itself is
// engine::async_run, tested by test_mock and, from an installed package, by
// the `embed` integration test.

namespace {

using namespace streamt;
namespace fs = std::filesystem;

const std::string data_dir = STREAMT_TEST_DATA_DIR;

struct scratch {
  fs::path dir;
  scratch() {
    std::string tmpl = (fs::temp_directory_path() / "streamt-embed-XXXXXX").string();
    BOOST_TEST_REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir = tmpl;
  }
  ~scratch() { fs::remove_all(dir); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(embedding_api)

BOOST_AUTO_TEST_CASE(a_plan_file_loads_as_the_same_plan_as_its_text) {
  const std::string path = data_dir + "/plans/valid_orders.json";
  result<plan::plan> from_file = load_plan_file(path);
  BOOST_TEST_REQUIRE(from_file.has_value());
  std::ifstream in(path, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  result<plan::plan> from_text = load_plan(text);
  BOOST_TEST_REQUIRE(from_text.has_value());
  BOOST_TEST(plan::digest(*from_file) == plan::digest(*from_text));
}

BOOST_AUTO_TEST_CASE(a_missing_plan_file_is_a_diagnostic_naming_the_path) {
  scratch s;
  const std::string path = (s.dir / "absent.json").string();
  result<plan::plan> p = load_plan_file(path);
  BOOST_TEST_REQUIRE(!p.has_value());
  BOOST_TEST(p.error().code == "unreadable_input");
  BOOST_TEST(p.error().message.find(path) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_plan_file_the_loader_refuses_carries_the_loaders_diagnostic) {
  scratch s;
  const fs::path path = s.dir / "plan.json";
  std::ofstream(path) << "{\"plan_version\": 2}";
  result<plan::plan> p = load_plan_file(path.string());
  BOOST_TEST_REQUIRE(!p.has_value());
  BOOST_TEST(to_string(p.error().phase) == std::string("plan"));
  BOOST_TEST(p.error().code != "unreadable_input");
  BOOST_TEST(!p.error().path.empty());
}

BOOST_AUTO_TEST_SUITE_END()
