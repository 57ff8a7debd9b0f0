// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/log.hpp"

#include <boost/core/null_deleter.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <boost/log/attributes/constant.hpp>
#include <boost/log/core.hpp>
#include <boost/log/expressions.hpp>
#include <boost/log/sinks/sync_frontend.hpp>
#include <boost/log/sinks/text_ostream_backend.hpp>
#include <boost/log/utility/manipulators/add_value.hpp>
#include <boost/make_shared.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace streamt;
using std::chrono::system_clock;
using formatter_fn = void (*)(const boost::log::record_view&, boost::log::formatting_ostream&);

const std::string digest = "sha256:3f2a9c1b0e7d" + std::string(52, 'a');

// 2026-12-01T05:00:00.123456Z
system_clock::time_point fixed_time(
    std::chrono::microseconds within_the_second = std::chrono::microseconds(123456)) {
  using namespace std::chrono;
  return sys_days{year{2026} / 12 / 1} + hours(5) + within_the_second;
}

// The lines one formatter writes for the records of channel "log-test",
// through a Boost.Log sink as init_console_logging sets one up; the sink is
// removed when the capture ends.
class capture {
 public:
  explicit capture(formatter_fn format) : stream_(boost::make_shared<std::ostringstream>()) {
    auto backend = boost::make_shared<boost::log::sinks::text_ostream_backend>();
    backend->add_stream(stream_);
    sink_ = boost::make_shared<sink_type>(backend);
    sink_->set_formatter(format);
    sink_->set_filter(boost::log::expressions::attr<std::string>("Channel") == "log-test");
    boost::log::core::get()->add_sink(sink_);
  }
  ~capture() { boost::log::core::get()->remove_sink(sink_); }
  capture(const capture&) = delete;
  capture& operator=(const capture&) = delete;

  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    std::istringstream in(stream_->str());
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

 private:
  using sink_type = boost::log::sinks::synchronous_sink<boost::log::sinks::text_ostream_backend>;
  boost::shared_ptr<std::ostringstream> stream_;
  boost::shared_ptr<sink_type> sink_;
};

engine::logger test_logger(std::optional<system_clock::time_point> at = fixed_time()) {
  engine::logger lg(boost::log::keywords::channel = "log-test");
  if (at)
    lg.add_attribute(engine::log_attribute::time,
                     boost::log::attributes::constant<system_clock::time_point>(*at));
  return lg;
}

engine::logger pipeline_logger(const engine::transaction_sequence& txn) {
  engine::logger lg = test_logger();
  engine::add_pipeline_attributes(lg, "orders-big", digest);
  lg.add_attribute(engine::log_attribute::transaction, txn);
  return lg;
}

// "2026-12-01T05:00:00" by the C library, to check the formatter against.
std::string utc_seconds(system_clock::time_point t) {
  const std::time_t secs = system_clock::to_time_t(t);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

// Strict: Boost.JSON's parser refuses invalid UTF-8 unless told otherwise.
std::optional<boost::json::object> parse_object(const std::string& line) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(line, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return v.as_object();
}

// Removes what engine::set_process_pipeline_attributes added, so other tests
// of this executable see no process-wide pipeline.
struct process_attributes_removed_at_end {
  ~process_attributes_removed_at_end() {
    auto core = boost::log::core::get();
    auto attrs = core->get_global_attributes();
    attrs.erase(engine::log_attribute::application);
    attrs.erase(engine::log_attribute::plan_digest);
    core->set_global_attributes(attrs);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(log_format)

BOOST_AUTO_TEST_CASE(a_json_line_names_the_pipeline_and_its_transaction_in_a_fixed_field_order) {
  capture c(&engine::format_json);
  engine::transaction_sequence txn(12);
  engine::logger lg = pipeline_logger(txn);
  STREAMT_LOG(lg, info) << "committed transaction 12";
  BOOST_TEST_REQUIRE(c.lines().size() == 1u);
  BOOST_TEST(c.lines()[0] == R"({"time":"2026-12-01T05:00:00.123456Z","level":"info","channel":"log-test",)"
                             R"("application_id":"orders-big","plan_digest":")" +
                                 digest + R"(","txn":12,"message":"committed transaction 12"})");
}

BOOST_AUTO_TEST_CASE(a_json_line_leaves_out_the_fields_its_logger_does_not_carry) {
  capture c(&engine::format_json);
  engine::logger lg = test_logger();
  STREAMT_LOG(lg, warning) << "no pipeline yet";
  BOOST_TEST_REQUIRE(c.lines().size() == 1u);
  std::optional<boost::json::object> o = parse_object(c.lines()[0]);
  BOOST_TEST_REQUIRE(o.has_value(), c.lines()[0]);
  BOOST_TEST(o->size() == 4u, c.lines()[0]);
  BOOST_TEST(o->at("level") == "warning");
  BOOST_TEST(o->at("message") == "no pipeline yet");
  BOOST_TEST(!o->contains("application_id"));
  BOOST_TEST(!o->contains("plan_digest"));
  BOOST_TEST(!o->contains("txn"));
}

BOOST_AUTO_TEST_CASE(quotes_backslashes_newlines_and_control_characters_stay_inside_one_json_line) {
  capture c(&engine::format_json);
  engine::logger lg = test_logger();
  const std::string message = std::string("say \"hi\" \\ C:\\dir\nsecond line\r\ttab ") + '\x01' + '\x1f' +
                              '\x7f' + std::string(1, '\0') + " end";
  STREAMT_LOG(lg, error) << message;
  BOOST_TEST_REQUIRE(c.lines().size() == 1u);
  std::optional<boost::json::object> o = parse_object(c.lines()[0]);
  BOOST_TEST_REQUIRE(o.has_value(), c.lines()[0]);
  BOOST_TEST(std::string(o->at("message").as_string()) == message);
}

BOOST_AUTO_TEST_CASE(bytes_that_are_not_utf8_become_replacement_characters_and_the_line_stays_valid_json) {
  // What the formatter has to guard against: serialize copies such bytes as
  // they are, and a strict reader refuses the result.
  const std::string raw = "broker said \xff";
  BOOST_TEST(!parse_object(R"({"m":)" + boost::json::serialize(boost::json::string(raw)) + "}").has_value());

  capture c(&engine::format_json);
  engine::logger lg = test_logger();
  const std::string valid = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";  // é € 😀 are kept
  STREAMT_LOG(lg, error) << "stray \xff"
                         << "|truncated \xe2\x82"
                         << "|overlong \xc0\xaf"
                         << "|surrogate \xed\xa0\x80"
                         << "|past U+10FFFF \xf4\x90\x80\x80"
                         << "|at the end \xe2\x82|" << valid;
  BOOST_TEST_REQUIRE(c.lines().size() == 1u);
  std::optional<boost::json::object> o = parse_object(c.lines()[0]);
  BOOST_TEST_REQUIRE(o.has_value(), c.lines()[0]);
  const std::string r = "\xef\xbf\xbd";  // U+FFFD, one per byte that starts no valid sequence
  BOOST_TEST(std::string(o->at("message").as_string()) ==
             "stray " + r + "|truncated " + r + r + "|overlong " + r + r + "|surrogate " + r + r + r +
                 "|past U+10FFFF " + r + r + r + r + "|at the end " + r + r + "|" + valid);
}

BOOST_AUTO_TEST_CASE(a_text_line_has_utc_time_with_a_zone_and_a_bracket_with_a_short_digest) {
  capture c(&engine::format_text);
  engine::transaction_sequence txn(12);
  engine::logger lg = pipeline_logger(txn);
  STREAMT_LOG(lg, info) << "committed transaction 12";
  engine::logger bare = test_logger(fixed_time(std::chrono::microseconds(0)));
  STREAMT_LOG(bare, debug) << "no pipeline yet";
  BOOST_TEST_REQUIRE(c.lines().size() == 2u);
  BOOST_TEST(c.lines()[0] ==
             "2026-12-01T05:00:00.123456Z info log-test [orders-big sha256:3f2a9c1b0e7d txn 12]: "
             "committed transaction 12");
  BOOST_TEST(c.lines()[1] == "2026-12-01T05:00:00.000000Z debug log-test: no pipeline yet");
}

BOOST_AUTO_TEST_CASE(a_text_line_shortens_each_whole_digest_in_its_message_and_a_json_line_keeps_them) {
  const std::string other = "sha256:" + std::string(64, 'b');
  const std::string message = "taking over orders/0 from plan " + digest + ", which plan " + other +
                              " supersedes; not a digest: sha256:abc, sha256:" + std::string(65, 'c');
  capture text(&engine::format_text);
  capture json(&engine::format_json);
  engine::logger lg = test_logger();
  STREAMT_LOG(lg, info) << message;
  BOOST_TEST_REQUIRE(text.lines().size() == 1u);
  BOOST_TEST(text.lines()[0] ==
             "2026-12-01T05:00:00.123456Z info log-test: taking over orders/0 from plan "
             "sha256:3f2a9c1b0e7d, which plan sha256:bbbbbbbbbbbb supersedes; not a digest: "
             "sha256:abc, sha256:" +
                 std::string(65, 'c'));
  BOOST_TEST_REQUIRE(json.lines().size() == 1u);
  std::optional<boost::json::object> o = parse_object(json.lines()[0]);
  BOOST_TEST_REQUIRE(o.has_value(), json.lines()[0]);
  BOOST_TEST(std::string(o->at("message").as_string()) == message);
}

BOOST_AUTO_TEST_CASE(a_line_without_a_time_attribute_gets_the_current_utc_time) {
  capture c(&engine::format_json);
  engine::logger lg = test_logger(std::nullopt);
  const std::string before = utc_seconds(system_clock::now());
  STREAMT_LOG(lg, info) << "now";
  const std::string after = utc_seconds(system_clock::now());
  BOOST_TEST_REQUIRE(c.lines().size() == 1u);
  std::optional<boost::json::object> o = parse_object(c.lines()[0]);
  BOOST_TEST_REQUIRE(o.has_value(), c.lines()[0]);
  const std::string time(o->at("time").as_string());
  BOOST_TEST(time.size() == std::string("2026-12-01T05:00:00.123456Z").size(), time);
  BOOST_TEST(time.back() == 'Z', time);
  // ISO 8601 in one format orders as text does.
  BOOST_TEST((before <= time.substr(0, 19) && time.substr(0, 19) <= after),
             before << " " << time << " " << after);
}

BOOST_AUTO_TEST_CASE(every_copy_of_a_pipeline_logger_shows_the_transaction_current_when_it_logs) {
  capture c(&engine::format_json);
  engine::transaction_sequence txn(0);
  engine::logger lg = pipeline_logger(txn);
  engine::logger copy = lg;  // as the runtime's logger is a copy of async_run's
  STREAMT_LOG(copy, info) << "before the first";
  txn.set(txn.get() + 1);
  STREAMT_LOG(copy, info) << "in the first";
  txn.set(txn.get() + 1);
  STREAMT_LOG(lg, info) << "in the second";
  const std::vector<std::string> lines = c.lines();
  BOOST_TEST_REQUIRE(lines.size() == 3u);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::optional<boost::json::object> o = parse_object(lines[i]);
    BOOST_TEST_REQUIRE(o.has_value(), lines[i]);
    BOOST_TEST(o->at("txn").to_number<std::uint64_t>() == i, lines[i]);
  }
}

BOOST_AUTO_TEST_CASE(a_loggers_own_pipeline_wins_over_the_process_wide_one_which_names_the_others) {
  process_attributes_removed_at_end cleanup;
  engine::set_process_pipeline_attributes("first-id", "sha256:1111");
  engine::set_process_pipeline_attributes("process-id", "sha256:2222");  // replaces, not ignored
  capture c(&engine::format_json);
  engine::transaction_sequence txn(3);
  engine::logger own = pipeline_logger(txn);
  engine::logger like_librdkafkas = test_logger();
  STREAMT_LOG(own, info) << "own";
  STREAMT_LOG(like_librdkafkas, info) << "process-wide";
  const std::vector<std::string> lines = c.lines();
  BOOST_TEST_REQUIRE(lines.size() == 2u);
  std::optional<boost::json::object> a = parse_object(lines[0]);
  std::optional<boost::json::object> b = parse_object(lines[1]);
  BOOST_TEST_REQUIRE((a && b));
  BOOST_TEST(a->at("application_id") == "orders-big");
  BOOST_TEST(a->at("plan_digest").as_string() == digest);
  BOOST_TEST(b->at("application_id") == "process-id");
  BOOST_TEST(b->at("plan_digest") == "sha256:2222");
  BOOST_TEST(!b->contains("txn"));
}

BOOST_AUTO_TEST_CASE(a_json_line_writes_its_own_fields_after_the_message_with_numbers_as_numbers) {
  capture c(&engine::format_json);
  engine::transaction_sequence txn(4);
  engine::logger lg = pipeline_logger(txn);
  namespace at = engine::log_attribute;
  // Given in another order than the line writes them.
  STREAMT_LOG(lg, error) << engine::log_field(at::code, "wrong_type") << engine::log_field(at::offset, 9)
                         << engine::log_field(at::partition, std::int32_t{0})
                         << engine::log_field(at::topic, std::string("orders"))
                         << engine::log_field(at::status, "invalid_record")
                         << "invalid record at orders/0@9 [wrong_type]";
  BOOST_TEST_REQUIRE(c.lines().size() == 1u);
  BOOST_TEST(c.lines()[0] == R"({"time":"2026-12-01T05:00:00.123456Z","level":"error","channel":"log-test",)"
                             R"("application_id":"orders-big","plan_digest":")" +
                                 digest +
                                 R"(","txn":4,"message":"invalid record at orders/0@9 [wrong_type]",)"
                                 R"("topic":"orders","partition":0,"offset":9,"code":"wrong_type",)"
                                 R"("status":"invalid_record"})");
}

BOOST_AUTO_TEST_CASE(counts_and_durations_are_json_numbers_up_to_the_largest_64_bit_values) {
  capture c(&engine::format_json);
  engine::logger lg = test_logger();
  namespace at = engine::log_attribute;
  STREAMT_LOG(lg, info) << engine::log_field(at::consumed, std::numeric_limits<std::uint64_t>::max())
                        << engine::log_field(at::emitted, std::uint64_t{0})
                        << engine::log_field(at::offset, std::numeric_limits<std::int64_t>::max())
                        << engine::log_field(at::duration_ms, std::int64_t{-1})
                        << engine::log_field(at::exit_code, 65) << "stopped";
  BOOST_TEST_REQUIRE(c.lines().size() == 1u);
  std::optional<boost::json::object> o = parse_object(c.lines()[0]);
  BOOST_TEST_REQUIRE(o.has_value(), c.lines()[0]);
  BOOST_TEST_REQUIRE(o->at("consumed").is_uint64(), c.lines()[0]);
  BOOST_TEST(o->at("consumed").as_uint64() == std::numeric_limits<std::uint64_t>::max());
  BOOST_TEST(o->at("emitted").to_number<std::uint64_t>() == 0u);
  BOOST_TEST_REQUIRE(o->at("offset").is_int64(), c.lines()[0]);
  BOOST_TEST(o->at("offset").as_int64() == std::numeric_limits<std::int64_t>::max());
  BOOST_TEST(o->at("duration_ms").as_int64() == -1);
  BOOST_TEST(o->at("exit_code").to_number<int>() == 65);
}

// An application that adds the attributes itself (boost::log::add_value)
// may use any integer type; a value of another kind than the field's is left
// out rather than written as something a collector would misread.
BOOST_AUTO_TEST_CASE(a_field_added_with_any_integer_type_is_a_number_and_one_of_the_wrong_kind_is_left_out) {
  capture c(&engine::format_json);
  engine::logger lg = test_logger();
  namespace at = engine::log_attribute;
  STREAMT_LOG(lg, info) << boost::log::add_value(at::partition, short{3})
                        << boost::log::add_value(at::offset, 12LL) << boost::log::add_value(at::consumed, 7u)
                        << boost::log::add_value(at::emitted, std::string("5"))
                        << boost::log::add_value(at::topic, 42) << "added by an application";
  BOOST_TEST_REQUIRE(c.lines().size() == 1u);
  std::optional<boost::json::object> o = parse_object(c.lines()[0]);
  BOOST_TEST_REQUIRE(o.has_value(), c.lines()[0]);
  BOOST_TEST(o->at("partition").to_number<int>() == 3);
  BOOST_TEST(o->at("offset").to_number<std::int64_t>() == 12);
  BOOST_TEST(o->at("consumed").to_number<std::uint64_t>() == 7u);
  BOOST_TEST(!o->contains("emitted"), c.lines()[0]);
  BOOST_TEST(!o->contains("topic"), c.lines()[0]);
}

BOOST_AUTO_TEST_CASE(a_field_the_line_may_lack_is_left_out_when_empty) {
  capture c(&engine::format_json);
  engine::logger lg = test_logger();
  namespace at = engine::log_attribute;
  std::optional<engine::log_field> offset;  // a named one, as the runtime's start-position line has
  STREAMT_LOG(lg, info) << engine::log_field(at::partition, 1) << offset << "from the earliest";
  offset.emplace(at::offset, 6);
  STREAMT_LOG(lg, info) << engine::log_field(at::partition, 1) << offset << "resuming";
  const std::vector<std::string> lines = c.lines();
  BOOST_TEST_REQUIRE(lines.size() == 2u);
  std::optional<boost::json::object> first = parse_object(lines[0]);
  std::optional<boost::json::object> second = parse_object(lines[1]);
  BOOST_TEST_REQUIRE((first && second));
  BOOST_TEST(!first->contains("offset"), lines[0]);
  BOOST_TEST(second->at("offset").to_number<std::int64_t>() == 6, lines[1]);
}

BOOST_AUTO_TEST_CASE(a_string_field_with_bytes_that_are_not_utf8_keeps_the_line_valid_json) {
  capture c(&engine::format_json);
  engine::logger lg = test_logger();
  STREAMT_LOG(lg, warning) << engine::log_field(engine::log_attribute::topic, "bad\xff\"topic")
                           << "delivery failed";
  BOOST_TEST_REQUIRE(c.lines().size() == 1u);
  std::optional<boost::json::object> o = parse_object(c.lines()[0]);
  BOOST_TEST_REQUIRE(o.has_value(), c.lines()[0]);
  BOOST_TEST(std::string(o->at("topic").as_string()) == "bad\xef\xbf\xbd\"topic");
}

BOOST_AUTO_TEST_CASE(a_text_line_shows_the_message_and_not_the_fields_which_it_already_says) {
  capture c(&engine::format_text);
  engine::logger lg = test_logger();
  STREAMT_LOG(lg, info) << engine::log_field(engine::log_attribute::partition, 0)
                        << engine::log_field(engine::log_attribute::offset, 6)
                        << "orders/0: resuming at committed offset 6";
  BOOST_TEST_REQUIRE(c.lines().size() == 1u);
  BOOST_TEST(c.lines()[0] ==
             "2026-12-01T05:00:00.123456Z info log-test: orders/0: resuming at committed offset 6");
}

BOOST_AUTO_TEST_SUITE_END()
