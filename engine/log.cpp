// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/log.hpp"

#include "kafka/config.hpp"
#include "plan/utf8.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/log/attributes/attribute_value_impl.hpp>
#include <boost/log/attributes/constant.hpp>
#include <boost/log/attributes/function.hpp>
#include <boost/log/attributes/value_extraction.hpp>
#include <boost/log/core.hpp>
#include <boost/log/expressions/message.hpp>
#include <boost/log/utility/setup/common_attributes.hpp>
#include <boost/log/utility/setup/console.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <type_traits>

namespace streamt::engine {

namespace {
// librdkafka's lines, in our format, on channel "kafka". Its levels are syslog's.
void log_from_librdkafka(int level, std::string_view facility, std::string_view message) {
  static logger lg(boost::log::keywords::channel = "kafka");
  const severity s = level <= 3   ? severity::error
                     : level == 4 ? severity::warning
                     : level <= 6 ? severity::info
                                  : severity::debug;
  BOOST_LOG_SEV(lg, s) << facility << ": " << message;
}

// "2026-12-01T05:00:00.123456Z": microseconds, as the format had before, and
// the zone, which it lacked.
std::string utc_time(std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  const auto us = floor<microseconds>(t);
  const auto day = floor<days>(us);
  const year_month_day ymd{day};
  const hh_mm_ss<microseconds> hms{us - day};
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%06dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()), static_cast<int>(hms.subseconds().count()));
  return buf;
}

std::chrono::system_clock::time_point time_of(const boost::log::record_view& rec) {
  auto t = boost::log::extract<std::chrono::system_clock::time_point>(log_attribute::time, rec);
  return t ? t.get() : std::chrono::system_clock::now();
}

// `s` with every byte that does not start a well-formed UTF-8 sequence
// (plan/utf8.hpp: the rule the lexer, the JSON parser and the decoder share)
// replaced by U+FFFD. boost::json::serialize escapes quotes, backslashes and
// control characters but copies other bytes as they are, so a stray byte
// from a broker's error string would make the line invalid JSON.
std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::uint32_t cp = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = plan::utf8_sequence_length(s, i, cp);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

// The fields of one line, in the order the JSON line writes them.
enum class field_kind { text, number };
struct field_name {
  const char* attribute;
  const char* json;
  field_kind kind;
};
constexpr field_name line_fields[] = {
    {log_attribute::topic, "topic", field_kind::text},
    {log_attribute::partition, "partition", field_kind::number},
    {log_attribute::offset, "offset", field_kind::number},
    {log_attribute::code, "code", field_kind::text},
    {log_attribute::status, "status", field_kind::text},
    {log_attribute::consumed, "consumed", field_kind::number},
    {log_attribute::emitted, "emitted", field_kind::number},
    {log_attribute::filtered, "filtered", field_kind::number},
    {log_attribute::tombstones, "tombstones", field_kind::number},
    {log_attribute::tombstones_forwarded, "tombstones_forwarded", field_kind::number},
    {log_attribute::deleted, "deleted", field_kind::number},
    {log_attribute::dead_lettered, "dead_lettered", field_kind::number},
    {log_attribute::transactions_committed, "transactions_committed", field_kind::number},
    {log_attribute::duration_ms, "duration_ms", field_kind::number},
    {log_attribute::lag, "lag", field_kind::number},
    {log_attribute::records_per_second, "records_per_second", field_kind::number},
    {log_attribute::catch_up_seconds, "catch_up_seconds", field_kind::number},
    {log_attribute::exit_code, "exit_code", field_kind::number},
};

template <typename T>
std::optional<boost::json::value> integer_as(const boost::log::record_view& rec, const char* name) {
  const auto v = boost::log::extract<T>(name, rec);
  if (!v) return std::nullopt;
  if constexpr (std::is_signed_v<T>)
    return boost::json::value(static_cast<std::int64_t>(v.get()));
  else
    return boost::json::value(static_cast<std::uint64_t>(v.get()));
}

// A number field of any integer type: log_field widens ours to 64 bits, but
// an application may add the attributes itself (boost::log::add_value with
// an int). Every C++ integer type is among these, whichever of them
// std::int64_t is an alias of on the platform.
std::optional<boost::json::value> integer_of(const boost::log::record_view& rec, const char* name) {
  std::optional<boost::json::value> out;
  (void)((out = integer_as<short>(rec, name)) || (out = integer_as<int>(rec, name)) ||
         (out = integer_as<long>(rec, name)) || (out = integer_as<long long>(rec, name)) ||
         (out = integer_as<unsigned short>(rec, name)) || (out = integer_as<unsigned>(rec, name)) ||
         (out = integer_as<unsigned long>(rec, name)) || (out = integer_as<unsigned long long>(rec, name)));
  return out;
}

// Writes `message` with each whole plan digest ("sha256:" and 64 hex
// digits) cut to its first 12 hex digits (a message without one is written
// as it is, uncopied), as the bracket shows the pipeline's: a
// restart's lines name several plans, and nine full digests in twelve lines
// hid what the lines said. The JSON format keeps them whole.
void write_with_short_digests(boost::log::formatting_ostream& out, std::string_view message) {
  constexpr std::string_view prefix = "sha256:";
  constexpr std::size_t whole = 64;
  const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  std::size_t from = 0;
  for (std::size_t at = message.find(prefix); at != std::string_view::npos;
       at = message.find(prefix, at + 1)) {
    const std::size_t digits = at + prefix.size();
    std::size_t n = 0;
    while (digits + n < message.size() && hex(message[digits + n])) ++n;
    if (n != whole) continue;
    out << message.substr(from, at - from) << short_digest(message.substr(at, prefix.size() + whole));
    from = digits + whole;
  }
  out << message.substr(from);
}

void set_global(const char* name, const std::string& value) {
  const auto core = boost::log::core::get();
  auto [it, added] = core->add_global_attribute(name, boost::log::attributes::constant<std::string>(value));
  if (!added) {
    core->remove_global_attribute(it);
    core->add_global_attribute(name, boost::log::attributes::constant<std::string>(value));
  }
}
}  // namespace

log_field::log_field(const char* name, std::string_view value)
    : name_(name), value_(boost::log::attributes::make_attribute_value(std::string(value))) {}
log_field::log_field(const char* name, std::in_place_t, std::int64_t value)
    : name_(name), value_(boost::log::attributes::make_attribute_value(value)) {}
log_field::log_field(const char* name, std::in_place_t, std::uint64_t value)
    : name_(name), value_(boost::log::attributes::make_attribute_value(value)) {}

void add_pipeline_attributes(logger& lg, const std::string& application_id, const std::string& plan_digest) {
  lg.add_attribute(log_attribute::application, boost::log::attributes::constant<std::string>(application_id));
  lg.add_attribute(log_attribute::plan_digest, boost::log::attributes::constant<std::string>(plan_digest));
}

void set_process_pipeline_attributes(const std::string& application_id, const std::string& plan_digest) {
  set_global(log_attribute::application, application_id);
  set_global(log_attribute::plan_digest, plan_digest);
}

std::string_view short_digest(std::string_view digest) noexcept {
  const std::size_t colon = digest.find(':');
  return digest.substr(0, colon == std::string_view::npos ? 12 : colon + 1 + 12);
}

void format_text(const boost::log::record_view& rec, boost::log::formatting_ostream& out) {
  out << utc_time(time_of(rec));
  if (auto s = rec[boost::log::trivial::severity]) out << ' ' << s.get();
  if (auto c = boost::log::extract<std::string>("Channel", rec)) out << ' ' << c.get();
  const auto app = boost::log::extract<std::string>(log_attribute::application, rec);
  const auto digest = boost::log::extract<std::string>(log_attribute::plan_digest, rec);
  const auto txn = boost::log::extract<std::uint64_t>(log_attribute::transaction, rec);
  if (app || digest || txn) {
    const char* sep = " [";
    if (app) {
      out << sep << app.get();
      sep = " ";
    }
    if (digest) {
      out << sep << short_digest(digest.get());
      sep = " ";
    }
    if (txn) out << sep << "txn " << txn.get();
    out << ']';
  }
  out << ": ";
  if (auto m = rec[boost::log::expressions::smessage]) write_with_short_digests(out, m.get());
}

void format_json(const boost::log::record_view& rec, boost::log::formatting_ostream& out) {
  boost::json::object line;
  line["time"] = utc_time(time_of(rec));
  if (auto s = rec[boost::log::trivial::severity]) {
    if (const char* name = boost::log::trivial::to_string(s.get())) line["level"] = name;
  }
  if (auto c = boost::log::extract<std::string>("Channel", rec)) line["channel"] = valid_utf8(c.get());
  if (auto a = boost::log::extract<std::string>(log_attribute::application, rec))
    line["application_id"] = valid_utf8(a.get());
  if (auto d = boost::log::extract<std::string>(log_attribute::plan_digest, rec))
    line["plan_digest"] = valid_utf8(d.get());
  if (auto t = boost::log::extract<std::uint64_t>(log_attribute::transaction, rec)) line["txn"] = t.get();
  if (auto m = rec[boost::log::expressions::smessage]) line["message"] = valid_utf8(m.get());
  for (const field_name& f : line_fields) {
    if (f.kind == field_kind::text) {
      if (auto v = boost::log::extract<std::string>(f.attribute, rec)) line[f.json] = valid_utf8(v.get());
    } else if (std::optional<boost::json::value> n = integer_of(rec, f.attribute)) {
      line[f.json] = std::move(*n);
    }
  }
  out << boost::json::serialize(line);
}

void init_console_logging(severity min_level, log_format format) {
  kafka::set_log_handler(&log_from_librdkafka);
  const auto core = boost::log::core::get();
  boost::log::add_common_attributes();
  core->add_global_attribute(log_attribute::time,
                             boost::log::attributes::function<std::chrono::system_clock::time_point>(
                                 [] { return std::chrono::system_clock::now(); }));
  // A second call replaces the sink of the first rather than adding one
  // (which would write every line twice): `streamt run` sets up JSON lines
  // for its usage errors before it knows the --log-level of the run.
  static boost::shared_ptr<boost::log::sinks::synchronous_sink<boost::log::sinks::text_ostream_backend>>
      console;
  if (console) core->remove_sink(console);
  console = boost::log::add_console_log(std::clog, boost::log::keywords::auto_flush = true);
  console->set_formatter(format == log_format::json ? &format_json : &format_text);
  core->set_filter(boost::log::trivial::severity >= min_level);
}

}  // namespace streamt::engine
