// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// What a run tells its operator: the session's decisions worth a line, the
// commits (a line for the first ones, then one a minute), the progress
// toward the end of the input (engine/progress.hpp decides when a line is
// due), the metrics after each commit, how the run before this one ended,
// and the run report with its closing line and last-run.json.

#include "engine/driver/runtime.hpp"

#include <cmath>

namespace streamt::engine::driver {

using ss::act;

namespace {

// A run's record counts as fields of a line (log_attribute::consumed and
// after), for the commit summaries and the closing line.
struct count_fields {
  const record_counts& counts;

  friend boost::log::record_ostream& operator<<(boost::log::record_ostream& out, const count_fields& f) {
    return out << log_field(log_attribute::consumed, f.counts.consumed)
               << log_field(log_attribute::emitted, f.counts.emitted)
               << log_field(log_attribute::filtered, f.counts.filtered)
               << log_field(log_attribute::tombstones, f.counts.tombstones)
               << log_field(log_attribute::tombstones_forwarded, f.counts.tombstones_forwarded)
               << log_field(log_attribute::deleted, f.counts.deleted)
               << log_field(log_attribute::dead_lettered, f.counts.dead_lettered);
  }
};

// What a progress line says besides its message, for a log collector.
struct progress_fields {
  const progress_line& line;

  friend boost::log::record_ostream& operator<<(boost::log::record_ostream& out, const progress_fields& f) {
    out << log_field(log_attribute::lag, f.line.now.lag);
    if (f.line.rate)
      out << log_field(log_attribute::records_per_second,
                       static_cast<std::uint64_t>(std::llround(*f.line.rate)));
    if (f.line.catch_up_in) out << log_field(log_attribute::catch_up_seconds, f.line.catch_up_in->count());
    return out;
  }
};

// Where an invalid record is and why, as fields of the lines about it.
struct record_fields {
  const invalid_record& record;

  friend boost::log::record_ostream& operator<<(boost::log::record_ostream& out, const record_fields& f) {
    return out << log_field(log_attribute::topic, f.record.topic)
               << log_field(log_attribute::partition, f.record.partition)
               << log_field(log_attribute::offset, f.record.offset)
               << log_field(log_attribute::code, f.record.error.code);
  }
};

}  // namespace

// What the session's decision is worth a line in the log for, once.
void runtime::log_decision(ss::action& a) {
  if (!a.info.empty()) STREAMT_LOG(log_, info) << a.info;
  for (ss::action& step : a.steps) log_decision(step);
  if (!a.warning.empty()) {
    // A dead-letter line is about the record dead-lettered.
    const std::optional<invalid_record>& about = a.kind == act::dead_letter ? a.dead : a.record;
    if (about)
      STREAMT_LOG(log_, warning) << record_fields{*about} << a.warning;
    else
      STREAMT_LOG(log_, warning) << a.warning;
  }
  if (a.kind == act::commit && a.first_slice)
    STREAMT_LOG(log_, debug) << "committing transaction " << session_.counters().transactions_committed + 1;
  if (a.kind == act::abort && a.first_slice) STREAMT_LOG(log_, warning) << "aborting the open transaction";
  // Said once: an action that comes back as it went (a poll cut short by a
  // stop, or that took nothing) is performed again without its lines.
  a.info.clear();
  a.warning.clear();
}

// What the run before this one, from this state directory, left in
// last-run.json: how it ended, so an exit 65 seen by no one (no scrape
// saw the process that found the record) is said again here, and a run
// that ended without a word (killed) is told apart from a clean stop.
void runtime::report_previous_run() {
  const std::optional<run_record>& before = state_->previous_run();
  if (!before) return;
  if (!before->ended) {
    STREAMT_LOG(log_, warning) << "the previous run from this state directory (started " << before->started_at
                               << ", plan " << before->plan_digest
                               << ") ended without recording how: it was killed (SIGKILL, out of memory), "
                                  "crashed or lost its machine; its open transaction, if any, was aborted";
    return;
  }
  std::string line = "the previous run from this state directory (started " + before->started_at + ", plan " +
                     before->plan_digest + ") ended " + before->ended_at + " with exit " +
                     std::to_string(before->exit_code) + " (" + before->status;
  if (!before->stopped_at.empty()) line += " at " + before->stopped_at + ", " + before->reason;
  line += ")";
  if (before->exit_code == 0)
    STREAMT_LOG(log_, info) << line;
  else
    STREAMT_LOG(log_, warning) << line;
}

// A stop signal during start-up, before any transaction: the session ends

// The committed transaction's records and where each owned partition now
// stands; once per commit, never per record.
void runtime::report_commit(steady_clock::duration took) {
  metrics_->committed(session_.last_transaction(), took);
  report_positions();
}

bool runtime::settled() const { return session_.batch().empty() && session_.ledger().pending().empty(); }

// Where each owned partition stands, to the metrics and to the progress
// tracker, in one pass; after each commit and after a poll that brought no
// record. Quick: no broker call.
//
// The lag counts from the committed offset. With no record in hand or
// pending, every record the consumer delivered is committed, so between a
// partition's committed offset and the consumer's position lie only
// offsets that hold no record for a read_committed reader (the markers of
// an upstream producer's transactions, aborted records): then the lag
// counts from the position. A marker is often taken from the queue only by
// the poll after the commit, hence the call after an empty poll. The
// metric and the progress line count alike.
void runtime::report_positions() {
  const bool all_committed = settled();
  standing_.clear();
  for (ss::partition_id p : session_.ledger().owned()) {
    const kafka::topic_partition tp{plan_.identity.source_topic, p.value};
    const kafka::consumer::known_watermarks w = consumer_->cached_watermarks(tp);
    partition_standing s{.end = w.high, .log_start = w.low};
    if (std::optional<ss::offset> at = session_.ledger().positioned_at(p)) s.assigned_at = at->value;
    if (std::optional<ss::offset> ours = session_.ledger().committed_by_us(p)) {
      s.committed = ours->value;
      metrics_->partition_position(tp.topic, tp.partition, ours->value, w.high);
    }
    if (all_committed) {
      s.read_to = consumer_->position(tp);
      if (s.read_to) metrics_->partition_read_to(tp.topic, tp.partition, *s.read_to);
    }
    standing_.push_back(s);
  }
  report_progress();
}

// The lag (engine/progress.hpp: total_lag) and the counts to the progress
// tracker, and its line if one is due.
void runtime::report_progress() {
  // Without partitions there is no input to be behind on (before the first
  // assignment, or with more instances than partitions).
  if (standing_.empty()) return;
  const std::optional<std::uint64_t> lag = total_lag(standing_);
  if (!lag) return;
  const record_counts& c = session_.counters().counts;
  progress_sample sample{c.consumed, std::nullopt, *lag};
  if (!plan_.identity.dead_letter_topic.empty()) sample.dead_lettered = c.dead_lettered;
  if (std::optional<progress_line> line = progress_.on(steady_clock::now(), sample))
    STREAMT_LOG(log_, info) << progress_fields{*line} << count_fields{c} << describe(*line);
}

void runtime::log_commit(steady_clock::duration took) {
  ++commits_;
  // A line per commit would drown the log at 10 commits/s: log the first
  // commits, then one summary a minute.
  const auto now = steady_clock::now();
  if (commits_ <= 3 || now - last_summary_ >= std::chrono::minutes(1)) {
    last_summary_ = now;
    const record_counts& c = session_.counters().counts;
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(took).count();
    STREAMT_LOG(log_, info) << log_field(log_attribute::duration_ms, ms) << count_fields(c)
                            << "committed transaction " << commits_ << " (" << ms << " ms): "
                            << count_text(c, !plan_.identity.dead_letter_topic.empty(), route_names(plan_));
  }
}

// Gives up the partitions of a revocation that was ending (librdkafka
// 2.0.2 cannot close a consumer with a revocation unacknowledged:
// consumer_close never returns, seen in tools/faults txn_timeout), then

run_report runtime::fail(run_status s, std::string message) const {
  run_report r;
  r.status = s;
  r.message = std::move(message);
  return r;
}

// The session's outcome as the run's report.
run_report runtime::outcome() const {
  const ss::ending end = session_.outcome();
  run_report report = fail(end.status, end.message);
  report.invalid = end.invalid;
  if (end.invalid) metrics_->invalid_record();
  return report;
}

run_report runtime::progress(run_report r) const {
  static_cast<run_counters&>(r) = session_.counters();
  return r;
}

run_report runtime::finish(run_report r) {
  r = progress(std::move(r));
  // Decided here, once, for every way a run fails (a transactional call,
  // a fatal error event, a failed poll): what counts is the producer's
  // fatal error, if it has one.
  if (r.status == run_status::failed && producer_) {
    restartable_ = kafka::is_recoverable_by_new_producer(producer_->fatal_cause());
  }
  if (r.status == run_status::stopped)
    STREAMT_LOG(log_, info) << log_field(log_attribute::status, name_of(r.status)) << count_fields(r.counts)
                            << log_field(log_attribute::transactions_committed, r.transactions_committed)
                            << "stopped cleanly: "
                            << count_text(r.counts, !plan_.identity.dead_letter_topic.empty(),
                                          route_names(plan_));
  else if (r.invalid)
    STREAMT_LOG(log_, error) << log_field(log_attribute::status, name_of(r.status))
                             << record_fields{*r.invalid} << r.message;
  else
    STREAMT_LOG(log_, error) << log_field(log_attribute::status, name_of(r.status)) << r.message;
  record_end(r);
  return r;
}

// How this attempt ended, in the state directory for the next start (an
// in-process restart's next attempt overwrites it with its own start).
// Only from a run that committed the directory: a refused start (locked
// by another process, identity changed) leaves it as it found it.
void runtime::record_end(const run_report& r) {
  if (!state_ || !state_->committed()) return;
  run_record end;
  end.exit_code = to_int(exit_code_of(r.status));
  end.status = name_of(r.status);
  if (r.invalid) {
    end.stopped_at = position(r.invalid->topic, r.invalid->partition, r.invalid->offset);
    end.reason = r.invalid->error.code;
  }
  if (std::optional<std::string> e = state_->record_end(end))
    STREAMT_LOG(log_, warning) << "could not record how the run ended in the state directory: " << *e;
}

}  // namespace streamt::engine::driver
