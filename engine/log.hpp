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

#include <boost/log/attributes/mutable_constant.hpp>
#include <boost/log/core/record_view.hpp>
#include <boost/log/sources/record_ostream.hpp>
#include <boost/log/sources/severity_channel_logger.hpp>
#include <boost/log/trivial.hpp>
#include <boost/log/utility/formatting_ostream.hpp>

#include <cstdint>
#include <string>
#include <string_view>

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
}  // namespace log_attribute

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
  // for people: the digest shortened to 12 hex digits; the bracket holds
  // what the line carries and is left out when it carries none of the three.
  text,
  // {"time":"2026-12-01T05:00:00.123456Z","level":"info","channel":"engine",
  //  "application_id":"orders-big","plan_digest":"sha256:<64 hex>","txn":12,"message":"..."}
  // for log collectors: one object a line, fields the line does not carry
  // left out (not empty), invalid UTF-8 (librdkafka passes broker strings
  // through) replaced by U+FFFD so every line is valid JSON.
  json,
};

// The formatters behind init_console_logging, for an application that sets
// up its own sinks (sink->set_formatter(&engine::format_json)). Both write
// one line without its newline (text_ostream_backend adds it). Time is UTC:
// the log_attribute::time of the line, or the time of formatting when the
// line has none.
void format_text(const boost::log::record_view& rec, boost::log::formatting_ostream& out);
void format_json(const boost::log::record_view& rec, boost::log::formatting_ostream& out);

// Sends log lines to stderr in the given format, and librdkafka's lines to
// channel "kafka". Call once per process (the CLI does); an embedding
// application may instead configure Boost.Log itself.
void init_console_logging(severity min_level = severity::info, log_format format = log_format::text);

}  // namespace streamt::engine

#define STREAMT_LOG(lg, level) BOOST_LOG_SEV(lg, ::streamt::engine::severity::level)
