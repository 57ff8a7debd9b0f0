// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Logging for the engine: Boost.Log, one channel per folder ("engine",
// "kafka"), a line per lifecycle event. The pipeline's identity travels as
// attributes of its logger, not as thread-local state, because coroutines of
// different pipelines may share a thread.
//
// Never log a setting's value without kafka::redact(): secrets must not
// reach a log line.

#include <boost/log/attributes/attribute_name.hpp>
#include <boost/log/attributes/attribute_value.hpp>
#include <boost/log/attributes/mutable_constant.hpp>
#include <boost/log/core/record_view.hpp>
#include <boost/log/sources/record_ostream.hpp>
#include <boost/log/sources/severity_channel_logger.hpp>
#include <boost/log/trivial.hpp>
#include <boost/log/utility/formatting_ostream.hpp>

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace streamt::engine {

using severity = boost::log::trivial::severity_level;
using logger = boost::log::sources::severity_channel_logger_mt<severity, std::string>;

// The attributes a line may carry besides Boost.Log's Severity, Channel and
// Message. They are names an embedding application that configures Boost.Log
// itself can format too; their value types are in the comments.
namespace log_attribute {
inline constexpr char application[] = "Application";  // std::string: the application id
inline constexpr char plan_digest[] = "PlanDigest";   // std::string: plan::digest(), "sha256:..."
// std::uint64_t: the number of the transaction the pipeline is in or last
// ended, counted from 1 over the whole async_run (in-process restarts
// included); 0 before the first begins.
inline constexpr char transaction[] = "Transaction";
// std::chrono::system_clock::time_point: when the line was logged. Not
// Boost.Log's "TimeStamp": add_common_attributes() makes that one local time
// without a zone, and an application may already have added it that way.
inline constexpr char time[] = "UtcTimeStamp";

// Fields of one line, not of a logger: what the line is about, for a log
// collector to filter and count by without parsing the message (which says
// the same in prose). The JSON format writes each under the name after the
// arrow, strings as strings and numbers as numbers; the text format shows
// only the message. A value of another type than the one given is left out
// of the JSON line (any integer type is taken for a number).
//
// A record of the source or sink topic: "topic/partition@offset".
inline constexpr char topic[] = "Topic";          // std::string -> "topic"
inline constexpr char partition[] = "Partition";  // integer -> "partition"
inline constexpr char offset[] = "Offset";        // integer -> "offset"
// std::string -> "code": why a record is invalid (its diagnostic's code, as
// "wrong_type"), or the code of a diagnostic a command reports.
inline constexpr char code[] = "Code";
// std::string -> "status": how a run ended, engine::name_of(run_status).
inline constexpr char status[] = "Status";
// integers: the run's record counts so far (engine::record_counts) and
// committed transactions, on the commit summaries and the closing line.
inline constexpr char consumed[] = "Consumed";                             // -> "consumed"
inline constexpr char emitted[] = "Emitted";                               // -> "emitted"
inline constexpr char filtered[] = "Filtered";                             // -> "filtered"
inline constexpr char tombstones[] = "Tombstones";                         // -> "tombstones"
inline constexpr char tombstones_forwarded[] = "TombstonesForwarded";      // -> "tombstones_forwarded"
inline constexpr char deleted[] = "Deleted";                               // -> "deleted"
inline constexpr char dead_lettered[] = "DeadLettered";                    // -> "dead_lettered"
inline constexpr char transactions_committed[] = "TransactionsCommitted";  // -> "transactions_committed"
inline constexpr char duration_ms[] = "DurationMs";  // integer -> "duration_ms": how long the event took
// integers, on the progress lines (engine/progress.hpp): the records between
// where the run stands and the end of its partitions, the records consumed
// per second of late, and the seconds to catch up at the pace the lag
// shrinks (left out when it does not).
inline constexpr char lag[] = "Lag";                              // -> "lag"
inline constexpr char records_per_second[] = "RecordsPerSecond";  // -> "records_per_second"
inline constexpr char catch_up_seconds[] = "CatchUpSeconds";      // -> "catch_up_seconds"
// integer -> "exit_code": the exit code a command's closing line announces.
inline constexpr char exit_code[] = "ExitCode";
}  // namespace log_attribute

// One field of one line, put in the line's stream before the message:
//   STREAMT_LOG(lg, warning) << log_field(log_attribute::partition, 3) << "...";
// It owns its value (unlike boost::log::add_value's manipulator, which keeps
// a reference to a string), so a temporary is safe. Integers are kept as
// std::int64_t or std::uint64_t, whatever their type was.
class log_field {
 public:
  log_field(const char* name, std::string_view value);
  log_field(const char* name, const char* value) : log_field(name, std::string_view(value)) {}
  log_field(const char* name, const std::string& value) : log_field(name, std::string_view(value)) {}
  template <std::integral T>
  requires(!std::same_as<T, bool> && !std::same_as<T, char>) log_field(const char* name, T value)
      : log_field(name, std::in_place, widened(value)) {}

  friend boost::log::record_ostream& operator<<(boost::log::record_ostream& out, const log_field& f) {
    out.get_record().attribute_values().insert(f.name_, f.value_);
    return out;
  }
  // Boost.Log's catch-all operator<< takes a non-const lvalue by T&, a
  // better match than const log_field&: without this one, a named field
  // would go to std::ostream and fail to compile.
  friend boost::log::record_ostream& operator<<(boost::log::record_ostream& out, log_field& f) {
    return out << std::as_const(f);
  }

 private:
  template <typename T>
  static auto widened(T v) {
    if constexpr (std::is_signed_v<T>)
      return static_cast<std::int64_t>(v);
    else
      return static_cast<std::uint64_t>(v);
  }
  log_field(const char* name, std::in_place_t, std::int64_t value);
  log_field(const char* name, std::in_place_t, std::uint64_t value);

  boost::log::attribute_name name_;
  boost::log::attribute_value value_;
};

// A field the line may lack: nothing when empty. (Not a hidden friend:
// lookup finds those for log_field, not for std::optional<log_field>.)
inline boost::log::record_ostream& operator<<(boost::log::record_ostream& out,
                                              const std::optional<log_field>& f) {
  if (f) out << *f;
  return out;
}
inline boost::log::record_ostream& operator<<(boost::log::record_ostream& out, std::optional<log_field>& f) {
  return out << std::as_const(f);
}

// The transaction sequence: shared by every logger of one pipeline (copies
// of the attribute share its value) and set by the runtime when it begins a
// transaction. Not locked: only the pipeline's single-threaded executor sets
// it or logs through those loggers.
using transaction_sequence = boost::log::attributes::mutable_constant<std::uint64_t>;

// Adds the application id and plan digest to a pipeline's logger, so each of
// its lines names the pipeline even when several run in one process.
void add_pipeline_attributes(logger& lg, const std::string& application_id, const std::string& plan_digest);

// The same as global attributes, for every line of the process (replacing
// earlier ones). For a process that runs one pipeline, as `streamt run`
// does: librdkafka's lines come from its own threads through one
// process-wide handler (kafka::set_log_handler) and know no pipeline, so
// this is how they get its identity. A logger's own attributes take
// precedence over these.
void set_process_pipeline_attributes(const std::string& application_id, const std::string& plan_digest);

enum class log_format {
  // "2026-12-01T05:00:00.123456Z info engine [orders-big sha256:3f2a9c1b0e7d txn 12]: message"
  // for people: the digest shortened to 12 hex digits, in the bracket and
  // in the message alike; the bracket holds what the line carries and is
  // left out when it carries none of the three.
  text,
  // {"time":"2026-12-01T05:00:00.123456Z","level":"info","channel":"engine",
  //  "application_id":"orders-big","plan_digest":"sha256:<64 hex>","txn":12,"message":"...",
  //  "topic":"orders","partition":0,"offset":9,"code":"wrong_type"}
  // for log collectors: one object a line, the line's own fields
  // (log_attribute::topic and after) following the message in the order
  // declared there, fields the line does not carry left out (not empty),
  // invalid UTF-8 (librdkafka passes broker strings through) replaced by
  // U+FFFD so every line is valid JSON.
  json,
};

// The formatters behind init_console_logging, for an application that sets
// up its own sinks (sink->set_formatter(&engine::format_json)). Both write
// one line without its newline (text_ostream_backend adds it). Time is UTC:
// the log_attribute::time of the line, or the time of formatting when the
// line has none.
void format_text(const boost::log::record_view& rec, boost::log::formatting_ostream& out);
// A plan digest as text lines show it: "sha256:" and its first 12 hex
// digits, enough to tell plans apart by eye (streamt check prints it whole).
std::string_view short_digest(std::string_view digest) noexcept;
void format_json(const boost::log::record_view& rec, boost::log::formatting_ostream& out);

// Sends log lines to stderr in the given format, and librdkafka's lines to
// channel "kafka". For a process that leaves Boost.Log to us (the CLI); an
// embedding application may instead configure Boost.Log itself. Called
// again, it replaces the stderr sink and level it set up before.
void init_console_logging(severity min_level = severity::info, log_format format = log_format::text);

}  // namespace streamt::engine

#define STREAMT_LOG(lg, level) BOOST_LOG_SEV(lg, ::streamt::engine::severity::level)
