#pragma once
// Logging for the engine: Boost.Log, one channel per folder ("engine",
// "kafka"), a line per lifecycle event. The pipeline's identity travels as
// attributes of its logger, not as thread-local state, because coroutines of
// different pipelines may share a thread.
//
// Never log a setting's value without kafka::redact(): secrets must not
// reach a log line.

#include <boost/log/sources/record_ostream.hpp>
#include <boost/log/sources/severity_channel_logger.hpp>
#include <boost/log/trivial.hpp>

#include <string>

namespace streamt::engine {

using severity = boost::log::trivial::severity_level;
using logger = boost::log::sources::severity_channel_logger_mt<severity, std::string>;

// Sends log lines to stderr as "2026-11-30T12:00:00.123Z info engine: message".
// Call once per process (the CLI does); an embedding application may instead
// configure Boost.Log itself.
void init_console_logging(severity min_level = severity::info);

}  // namespace streamt::engine

#define STREAMT_LOG(lg, level) BOOST_LOG_SEV(lg, ::streamt::engine::severity::level)
