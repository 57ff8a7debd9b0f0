#include "engine/log.hpp"

#include "kafka/config.hpp"

#include <boost/log/attributes/clock.hpp>
#include <boost/log/core.hpp>
#include <boost/log/expressions.hpp>
#include <boost/log/support/date_time.hpp>
#include <boost/log/utility/setup/common_attributes.hpp>
#include <boost/log/utility/setup/console.hpp>

#include <iostream>

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
}  // namespace

void init_console_logging(severity min_level) {
  kafka::set_log_handler(&log_from_librdkafka);
  namespace expr = boost::log::expressions;
  boost::log::add_common_attributes();
  boost::log::add_console_log(
      std::clog,
      boost::log::keywords::format =
          (expr::stream << expr::format_date_time<boost::posix_time::ptime>("TimeStamp",
                                                                            "%Y-%m-%dT%H:%M:%S.%f")
                        << ' ' << boost::log::trivial::severity << ' ' << expr::attr<std::string>("Channel")
                        << ": " << expr::smessage),
      boost::log::keywords::auto_flush = true);
  boost::log::core::get()->set_filter(boost::log::trivial::severity >= min_level);
}

}  // namespace streamt::engine
