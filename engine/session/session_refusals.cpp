// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// What the session does when a topic written says no (session.hpp): the
// refused record named by halving its transaction, the streak of aborts
// that repeat one failure and its bound, and the reason a refused record
// is given.

#include "engine/session/durations.hpp"
#include "engine/session/session.hpp"

#include <algorithm>
#include <chrono>
#include <string>

namespace streamt::engine::session {
// The sink refused one record of the aborted transaction without saying
// which (it refuses a batch whole): the records are taken up again in
// transactions of half as many, then half of that, until the refused one is
// alone in its transaction and so known; every record before it commits on
// the way. Each halving is progress (true), not a repeat.
bool run_session::narrow(const std::string& refusal, std::string& warning) {
  const std::size_t attempted = txn_records_;
  if (attempted <= 1) return false;
  isolating_ = isolation{std::max<std::size_t>(attempted / 2, 1), attempted};
  warning = "a topic written refused one record of the " + std::to_string(attempted) +
            " in the transaction without saying which (" + refusal +
            "); aborting, and taking them up again in transactions of at most " +
            std::to_string(isolating_->at_most) + " records to find it";
  return true;
}

// The same failure aborting transaction after transaction, none committed
// between: the run ends once the streak is past its bound, naming the
// cause once. The brokers' failures (a topic that is gone, no answer) are
// waited out like any stall; the others are counted.
std::optional<ending> run_session::abort_streak_over(clock::time_point now) const {
  const commit::abort_streak& s = machine_.aborts_in_a_row();
  if (s.count < 2 || !abort_streak_began_) return std::nullopt;
  const clock::duration lasted = now - *abort_streak_began_;
  const std::string streak = std::to_string(s.count) + " transactions aborted in a row over " +
                             millis(lasted) + ", none committed between; the last for: " + s.cause.message;
  if (s.cause.unknown_topic || s.cause.transient || s.cause.timed_out) {
    if (lasted < config_.stall_timeout) return std::nullopt;
    return ending{
        run_status::unavailable, streak + "; the brokers did not recover within --stall-timeout-ms", {}};
  }
  if (s.count <= config_.max_aborts_in_a_row) return std::nullopt;
  return ending{run_status::failed, streak, {}};
}

// Why the sink (or the dead-letter topic) will never take a record, and
// what to do, as the record's diagnostic says it.
std::string run_session::refusal_reason(const unproducible_record& u) const {
  if (!u.rule.empty()) return u.rule;
  const std::string& topic = u.dead_letter                          ? config_.dead_letter_topic
                             : u.topic < config_.sink_topics.size() ? config_.sink_topics[u.topic]
                                                                    : config_.sink_topics.front();
  const std::string what = u.dead_letter ? "invalid, and the dead-letter write of " : "its output of ";
  if (u.too_large)
    return what + std::to_string(u.size) + " bytes (key, value and headers) can never be written to " +
           (u.dead_letter ? "dead-letter" : "sink") + " topic '" + topic + "' (" + u.reason +
           "); the smaller of the client's message.max.bytes (-X message.max.bytes, default 1000000) and "
           "the topic's max.message.bytes bounds it: raise both, or " +
           (u.dead_letter ? "deal with the record by hand" : "change the query");
  return std::string(u.dead_letter ? "invalid, and dead-letter" : "sink") + " topic '" + topic +
         "' refused it, alone in a batch (" + u.reason +
         "); compare the record with the topic's configuration (timestamps, keys, sizes), or " +
         (u.dead_letter ? "deal with the record by hand" : "change the query");
}

}  // namespace streamt::engine::session
