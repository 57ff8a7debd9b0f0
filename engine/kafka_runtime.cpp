// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/kafka_runtime.hpp"

#include "engine/lineage.hpp"
#include "engine/log.hpp"
#include "engine/session/claims.hpp"
#include "engine/session/position_policy.hpp"
#include "engine/session/refusal.hpp"
#include "engine/session/session.hpp"
#include "engine/session/succession.hpp"
#include "engine/state_dir.hpp"
#include "kafka/config.hpp"
#include "kafka/consumer.hpp"
#include "kafka/jaas.hpp"
#include "kafka/producer.hpp"
#include "operators/stage_pipeline.hpp"
#include "plan/plan_json.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <tuple>
#include <variant>

namespace streamt::engine {
namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
using std::chrono::steady_clock;

exit_code exit_code_of(run_status s) noexcept {
  switch (s) {
    case run_status::stopped:
      return exit_code::ok;
    case run_status::invalid_record:
      return exit_code::invalid_record;
    case run_status::unavailable:
      return exit_code::unavailable;
    case run_status::failed:
    case run_status::fenced:
      return exit_code::temporary_failure;
    case run_status::rejected_config:
      return exit_code::config;
    case run_status::state_dir:
      return exit_code::cannot_write;
  }
  return exit_code::internal;
}

namespace {

namespace ss = streamt::engine::session;
using ss::act;

// The plan log is read whole at every start: it grows by one claim per plan
// change (and per instance that lost a race), so a million is far beyond
// any fleet's history, and about 300 MB of claims at most.
constexpr std::size_t max_plan_log_records = 1000000;
// Rounds of claim-and-read before giving up (each lost round means another
// instance's claim came first, decided against in the next).
constexpr int max_claim_rounds = 5;

// A run's record counts as fields of a line (log_attribute::consumed and
// after), for the commit summaries and the closing line.
struct count_fields {
  const record_counts& counts;

  friend boost::log::record_ostream& operator<<(boost::log::record_ostream& out, const count_fields& f) {
    return out << log_field(log_attribute::consumed, f.counts.consumed)
               << log_field(log_attribute::emitted, f.counts.emitted)
               << log_field(log_attribute::filtered, f.counts.filtered)
               << log_field(log_attribute::tombstones, f.counts.tombstones)
               << log_field(log_attribute::dead_lettered, f.counts.dead_lettered);
  }
};

// For the duration_ms field of a line about a wait.
std::int64_t waited_ms(steady_clock::duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

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

// The producer side of process_batch(): each output record goes to the sink
// topic with the input's key, timestamp and headers, and carries the opaque
// the session's sink tracker gives it. A record librdkafka refuses at once
// (queue full, too large) is noted there too: the session fails the
// transaction after the batch.
class kafka_sink {
 public:
  // `lineage_header`: the name of the header that says which plan wrote a
  // record from which input (--lineage-header), or empty for none.
  kafka_sink(kafka::producer& p, std::string topic, ss::sink_tracker& tracker, std::string dead_letter_topic,
             std::string plan_digest, const std::string& lineage_header)
      : producer_(&p),
        topic_(std::move(topic)),
        tracker_(&tracker),
        dead_letter_topic_(std::move(dead_letter_topic)),
        plan_digest_(std::move(plan_digest)) {
    if (!lineage_header.empty()) stamp_.emplace(lineage_header, plan_digest_);
  }

  void emit(const record_view& in, std::string_view value) {
    kafka::outgoing_record out;
    out.key = in.key;
    out.value = value;
    out.headers = in.headers;
    out.headers_of = in.consumed;
    // After the input's own headers, which stay as they were (contract §4).
    kafka::header_view stamp;
    if (stamp_) {
      stamp = stamp_->header(in.partition, in.offset);
      out.extra_headers = std::span(&stamp, 1);
    }
    out.timestamp_ms = in.timestamp.value_or(0);
    out.opaque = tracker_->producing(in, value.size());
    if (kafka::error_report e = producer_->produce(topic_, out); e.failed())
      tracker_->refused_at_once(std::move(e));
  }

  // The invalid record `in` itself to the dead-letter topic, in the open
  // transaction: key, value, headers and timestamp as consumed, then the
  // streamt.* headers a person (or a tool replaying the topic) needs to find
  // the record and know why it is there.
  void dead_letter(const record_view& in, const invalid_record& why) {
    const std::string partition = std::to_string(in.partition);
    const std::string offset = std::to_string(in.offset);
    std::array<kafka::header_view, 7> reason{{
        {"streamt.source.topic", in.topic},
        {"streamt.source.partition", partition},
        {"streamt.source.offset", offset},
        {"streamt.error.code", why.error.code},
        {"streamt.error.message", why.error.message},
        {"streamt.plan.digest", plan_digest_},
        {},
    }};
    // The lineage header too, last: every record a run writes carries it,
    // so a reader tracing lineage by it needs no case of its own for the
    // dead-letter topic (it repeats what the streamt.* headers say).
    std::size_t headers = reason.size() - 1;
    if (stamp_) reason[headers++] = stamp_->header(in.partition, in.offset);
    kafka::outgoing_record out;
    out.key = in.key;
    out.value = in.value;
    out.headers = in.headers;
    out.headers_of = in.consumed;
    out.extra_headers = std::span(reason.data(), headers);
    out.timestamp_ms = in.timestamp.value_or(0);
    out.opaque = tracker_->producing_dead_letter(in, in.value ? in.value->size() : 0);
    if (kafka::error_report e = producer_->produce(dead_letter_topic_, out); e.failed())
      tracker_->refused_at_once(std::move(e));
  }

 private:
  kafka::producer* producer_;
  std::string topic_;
  ss::sink_tracker* tracker_;
  std::string dead_letter_topic_;
  std::string plan_digest_;
  std::optional<lineage_stamp> stamp_;  // with --lineage-header
};

std::string describe(const kafka::topic_partition& tp) {
  return tp.topic + "/" + std::to_string(tp.partition);
}

// A stop asked for, as a fact: every stop signal that reaches async_run's
// coroutine is recorded here by the cancellation filter itself, at the
// moment it is emitted, whatever the coroutine is awaiting then (a blocking
// librdkafka call, a child coroutine not started yet) and however often the
// cancellation state is reset afterwards. The runtime checks it when each
// child coroutine starts and before each wait; a cancellation signal alone
// is emitted once and lost if nothing cancellable is waiting.
struct stop_request {
  asio::cancellation_type seen = asio::cancellation_type::none;
  // run_options::stop_timeout passed since the graceful stop (async_run's
  // stop deadline sets it, with a terminal stop): whatever is still under
  // way (a commit, an abort) is left to the broker.
  bool deadline = false;
  bool requested() const noexcept { return seen != asio::cancellation_type::none; }
  bool terminal() const noexcept {
    return (seen & asio::cancellation_type::terminal) != asio::cancellation_type::none;
  }
};

// The cancellation filter of async_run's coroutine: lets terminal, partial
// and total cancellation in (as enable_total_cancellation does) and records
// each one in the stop request, which lives in async_run's frame (async_run
// detaches the filter before it returns). A plain pointer, trivially
// destructible: GCC 12 destroys some temporaries of a co_await expression
// twice, and a shared_ptr here was released early (seen: a stop "requested"
// by garbage in an unstopped run).
struct recording_filter {
  stop_request* stop;
  asio::cancellation_type operator()(asio::cancellation_type t) const noexcept {
    stop->seen = stop->seen | t;
    return t & (asio::cancellation_type::terminal | asio::cancellation_type::partial |
                asio::cancellation_type::total);
  }
};

// The driver: performs the session's actions against kafka/ and feeds their
// outcomes back. It decides nothing about the protocol (engine/session/
// does); what it keeps is how to talk to Kafka: the start-up checks, the
// waits for the brokers, the delivery-report coroutine, logs and metrics.
class runtime {
 public:
  // `lg` is async_run's logger (the pipeline's identity, and `txn` among its
  // attributes): the runtime sets `txn` at each begin, and async_run's own
  // lines show the transaction its last attempt reached.
  runtime(plan::plan p, run_options o, logger lg, transaction_sequence txn, const stop_request& stop)
      : stop_(&stop),
        plan_(std::move(p)),
        options_(std::move(o)),
        log_(std::move(lg)),
        txn_(std::move(txn)),
        stages_(plan_),
        session_(session_config(plan_, options_)),
        metrics_(options_.metrics) {}

  // Whether the run ended on a fatal producer error a new producer gets past.
  bool restartable() const noexcept { return restartable_; }

  asio::awaitable<run_report> run() {
    // async_run set the coroutine's cancellation filter (recording_filter):
    // it is not reset here or in any nested frame, which would forget a
    // cancellation already emitted. Child coroutines check stop_ instead.
    co_await asio::this_coro::throw_if_cancelled(false);
    if (std::optional<run_report> failed = co_await start()) co_return finish(std::move(*failed));
    // Delivery reports are served by their own coroutine for as long as the
    // producer lives: commit_transaction waits for every one of them, also
    // during a graceful stop. So the outer stop signals don't reach it; it
    // ends when the loop is done, by its own signal.
    const auto ex = co_await asio::this_coro::executor;
    asio::steady_timer drain_done(ex, steady_clock::time_point::max());
    bool drain_finished = false;
    std::exception_ptr drain_crashed;
    asio::co_spawn(ex, drain_events(),
                   asio::bind_cancellation_slot(drain_stop_.slot(), [&](std::exception_ptr e) {
                     drain_finished = true;
                     drain_crashed = e;
                     drain_done.cancel();
                   }));
    co_await loop();
    drain_stop_.emit(asio::cancellation_type::terminal);
    if (!drain_finished) co_await drain_done.async_wait(asio::as_tuple(asio::use_awaitable));
    if (drain_crashed) std::rethrow_exception(drain_crashed);  // a bug: surfaces as an internal error
    // Read once the delivery reports are all in: a fatal producer error
    // reported last still decides the outcome.
    const ss::ending end = session_.outcome();
    run_report report = fail(end.status, end.message);
    report.invalid = end.invalid;
    if (end.invalid) metrics_->invalid_record();
    co_return finish(std::move(report));
  }

 private:
  static ss::config session_config(const plan::plan& p, const run_options& o) {
    ss::config c;
    c.application_id = p.identity.application_id;
    c.source_topic = p.identity.source_topic;
    c.sink_topic = p.identity.sink_topic;
    c.commit_interval = o.commit_interval;
    c.max_records_per_transaction = o.max_records_per_transaction;
    c.stop_timeout = o.stop_timeout;
    c.stall_timeout = o.stall_timeout;
    c.dead_letter_topic = p.identity.dead_letter_topic;
    return c;
  }

  ss::stop_facts facts() const noexcept { return {stop_->requested(), stop_->terminal(), stop_->deadline}; }
  bool stop_news() const noexcept { return session_.stop_news_of(facts()) != ss::stop_news::none; }
  // A stop signal, not a stop on an invalid record (that one still wants its
  // records before it committed, so it waits for the brokers like a run):
  // what cuts a wait for the brokers short.
  bool stop_asked() const noexcept { return session_.stop().signalled() || stop_->requested(); }

  // ---- start -------------------------------------------------------------

  asio::awaitable<std::optional<run_report>> start() {
    // ${env:...} and ${file:...} in client settings are resolved here, so an
    // embedding application gets them as `streamt run` does: after the check
    // of engine-owned keys (a refused key needs no secret to be refused),
    // before the state directory is touched, and again at each in-process
    // restart (a rotated secret file is read anew).
    if (auto owned = kafka::check_user_settings(options_.client_settings); !owned)
      co_return fail(run_status::rejected_config, owned.error().message);
    if (auto resolved = kafka::resolve_references(options_.client_settings); !resolved)
      co_return fail(run_status::rejected_config, resolved.error().message);
    // A Java client's sasl.jaas.config, after its references are resolved.
    if (auto translated = kafka::translate_jaas(options_.client_settings); !translated)
      co_return fail(run_status::rejected_config, translated.error().message);
    // `streamt run` refuses such a name as a usage error; an embedding
    // application's gets here.
    if (!options_.lineage_header.empty())
      if (std::optional<header_name_problem> bad = lineage_header_name_problem(options_.lineage_header))
        co_return fail(run_status::rejected_config, "--lineage-header: " + bad->message);
    result<state_dir> dir = state_dir::open(options_.state_dir);
    if (!dir) co_return fail(run_status::state_dir, dir.error().message);
    state_.emplace(std::move(*dir));
    if (result<void> admitted = state_->admit(plan_, options_.allow_output_change); !admitted) {
      const bool identity =
          admitted.error().code == "identity_changed" || admitted.error().code == "output_changed";
      co_return fail(identity ? run_status::rejected_config : run_status::state_dir,
                     admitted.error().message);
    }
    const std::string txn_id = transactional_id(plan_, *state_);
    our_plan_ = ss::our_plan{plan::digest(plan_), plan::output_shape(plan_), plan_.supersedes,
                             state_->previous_plan_digest(), options_.allow_output_change};
    lineage_ = to_commit_metadata(
        {our_plan_.digest, state_->instance_id(), our_plan_.output_shape, our_plan_.supersedes});
    STREAMT_LOG(log_, info) << "starting " << plan_.identity.application_id << ": "
                            << plan_.identity.source_topic << " -> " << plan_.identity.sink_topic << ", plan "
                            << plan::digest(plan_) << ", transactional id " << txn_id << ", librdkafka "
                            << kafka::library_version() << ", state directory " << options_.state_dir
                            << (state_->first_run() ? " (new instance)" : "")
                            << (options_.lineage_header.empty()
                                    ? std::string()
                                    : ", lineage header " + options_.lineage_header);

    // Each client names itself by the instance (the CLIENT-ID column of
    // kafka-consumer-groups --describe, broker request logs, quotas), not
    // librdkafka's "rdkafka"; a client.id of the user's comes later and wins.
    kafka::settings settings{{"bootstrap.servers", options_.bootstrap_servers}, {"client.id", txn_id}};
    settings.insert(settings.end(), options_.client_settings.begin(), options_.client_settings.end());
    if (!options_.client_settings.empty())
      STREAMT_LOG(log_, info) << "client settings: " << kafka::redacted(options_.client_settings);
    const auto ex = co_await asio::this_coro::executor;
    // The producer's statistics feed the broker and queue metrics; the
    // consumer's would only be dropped (lag is measured by the engine).
    kafka::settings producer_settings = settings;
    if (std::none_of(settings.begin(), settings.end(),
                     [](const kafka::setting& s) { return s.key == "statistics.interval.ms"; }))
      producer_settings.push_back(
          {"statistics.interval.ms", std::to_string(options_.statistics_interval.count())});
    if (std::optional<run_report> refused = make_producer(ex, txn_id, producer_settings)) co_return refused;
    // One group.instance.id per state directory, never typed by hand: two
    // instances with one would fence each other's consumers.
    auto consumer = kafka::consumer::create(ex, plan_.identity.application_id,
                                            options_.static_membership ? txn_id : std::string(), settings);
    if (!consumer) co_return fail(run_status::rejected_config, consumer.error().message);
    consumer_ = std::move(*consumer);

    if (std::optional<run_report> missing = co_await check_topics()) co_return missing;
    if (std::optional<std::int64_t> cap = co_await batch_size_cap(producer_settings)) {
      // Before init_transactions a new producer costs nothing at the brokers.
      producer_settings.push_back({"batch.size", std::to_string(*cap)});
      if (std::optional<run_report> refused = make_producer(ex, txn_id, producer_settings)) co_return refused;
    }
    if (stop_news()) co_return stopped_in_start_up("before init_transactions");

    // init_transactions fences any older instance with our transactional id
    // and resolves a transaction it left open, before we consume anything.
    for (int attempt = 1;; ++attempt) {
      kafka::error_report e = co_await producer_->async_init_transactions();
      if (!e.failed()) break;
      if (e.what() == kafka::condition::retriable && attempt < 5) {
        STREAMT_LOG(log_, warning) << "init_transactions: " << e.message << " (retrying)";
        continue;
      }
      if (std::optional<std::string> line = refused(e.info.code, "init_transactions: " + e.message))
        co_return fail(run_status::unavailable, std::move(*line));
      co_return fail(run_status::unavailable,
                     "the broker refused transactions (init_transactions: " + e.message +
                         "); exactly-once needs a broker with transactions enabled and "
                         "transaction.state.log.min.isr satisfiable");
    }
    if (stop_news()) co_return stopped_in_start_up("after init_transactions, before joining the group");
    if (std::optional<run_report> refused = co_await claim_application(settings)) co_return refused;
    if (stop_news())
      co_return stopped_in_start_up("after claiming the application, before joining the group");
    // Kafka has admitted the run: only now is the state directory written,
    // so a start refused before this point leaves it as it found it.
    if (result<void> committed = state_->commit(); !committed)
      co_return fail(run_status::state_dir, committed.error().message);
    report_previous_run();
    if (kafka::error_report e = consumer_->subscribe({plan_.identity.source_topic}); e.failed())
      co_return fail(run_status::failed, "subscribe: " + e.message);
    STREAMT_LOG(log_, info) << "joined group " << plan_.identity.application_id << "; waiting for partitions";
    co_return std::nullopt;
  }

  // Before anything is consumed, this plan must hold the application id in
  // its plan log (session/claims.hpp): read the log to its end, and write a
  // claim where succession allows one, then read it again, until this plan
  // stands or is refused. A few rounds at most: each lost round means
  // another instance's claim came first, and the next round decides against
  // that claim.
  asio::awaitable<std::optional<run_report>> claim_application(kafka::settings settings) {
    if (!options_.claim_plans) co_return std::nullopt;
    const std::string topic = ss::plan_log_topic(plan_.identity.application_id);
    const auto timeout = options_.connect_timeout;
    const auto grant =
        ". Grant its principal Read, Write and Describe on topic '" + topic +
        "', and Create on it unless an administrator creates it (1 partition, retention.ms=-1)";
    // A topic's ACL or the cluster's (CreateTopics) refused the plan log.
    auto log_refused = [](const kafka::error_report& e) {
      const kafka::refused_resource r = kafka::refused_for(e.info.code);
      return r == kafka::refused_resource::topic || r == kafka::refused_resource::cluster;
    };
    auto failed = [&](const kafka::error_report& e) {
      if (log_refused(e))
        return fail(run_status::unavailable,
                    "the brokers refuse this client the plan log " + topic + ": " + e.message + grant);
      return fail(run_status::unavailable, "the plan log " + topic + ": " + e.message);
    };
    // A principal without Create may still read and write a plan log an
    // administrator made; only a log that is missing too ends the start.
    auto create_op = producer_->async_create_log_topic(topic, timeout);
    const kafka::error_report created = co_await std::move(create_op);
    const bool create_refused = log_refused(created);
    if (created.failed() && !create_refused) co_return failed(created);
    for (int round = 1;; ++round) {
      auto read_op = producer_->async_read_log(options_.bootstrap_servers, settings, topic,
                                               max_plan_log_records, !create_refused, timeout);
      kafka::kafka_result<std::vector<kafka::log_record>> log = co_await std::move(read_op);
      if (!log && create_refused && kafka::is_unknown_topic_or_partition(log.error().info.code))
        co_return fail(run_status::unavailable, "the brokers refuse this client the plan log " + topic +
                                                    ": it does not exist, and creating it was refused (" +
                                                    created.message + ")" + grant);
      if (!log) co_return failed(log.error());
      const std::optional<ss::logged_claim> standing = ss::standing_claim(ss::claims_in(*log));
      auto step = ss::next_claim_step(plan_.identity.application_id, topic, standing, our_plan_,
                                      state_->instance_id());
      if (auto* refused = std::get_if<ss::succession_refused>(&step))
        co_return fail(run_status::rejected_config, std::move(refused->message));
      if (auto* stands = std::get_if<ss::plan_stands>(&step)) {
        STREAMT_LOG(log_, info) << "plan " << our_plan_.digest << " holds " << plan_.identity.application_id
                                << " in its plan log " << topic << " (claimed at offset " << stands->since
                                << ")";
        co_return std::nullopt;
      }
      if (round > max_claim_rounds)
        co_return fail(run_status::unavailable,
                       "the plan log " + topic + ": this plan's claim lost " +
                           std::to_string(max_claim_rounds) +
                           " times in a row to other instances' claims; restart to try again");
      ss::write_claim& w = std::get<ss::write_claim>(step);
      if (!w.note.empty()) STREAMT_LOG(log_, info) << w.note;
      auto append_op =
          producer_->async_append_log(options_.bootstrap_servers, settings, topic,
                                      plan_.identity.application_id, ss::to_claim_record(w.claim), timeout);
      kafka::kafka_result<std::int64_t> at = co_await std::move(append_op);
      if (!at) co_return failed(at.error());
      STREAMT_LOG(log_, info) << "claimed " << plan_.identity.application_id << " for plan "
                              << our_plan_.digest << " at offset " << *at << " of " << topic
                              << (w.claim.replaces.empty() ? std::string()
                                                           : ", replacing plan " + w.claim.replaces);
      if (stop_news()) co_return std::nullopt;  // the caller ends the start-up
    }
  }

  std::optional<run_report> make_producer(const asio::any_io_executor& ex, const std::string& txn_id,
                                          const kafka::settings& producer_settings) {
    sink_.reset();  // it refers to the producer it replaces
    producer_.reset();
    auto producer = kafka::producer::create(ex, txn_id, producer_settings);
    if (!producer) return fail(run_status::rejected_config, producer.error().message);
    producer_ = std::move(*producer);
    sink_.emplace(*producer_, plan_.identity.sink_topic, session_.sink(), plan_.identity.dead_letter_topic,
                  plan::digest(plan_), options_.lineage_header);
    return std::nullopt;
  }

  // The batch.size the producer must be given, when the one it has is too
  // large. The broker refuses a batch too large for the topic whole, and
  // every record of it reports the error, so the session can only blame its
  // largest record (sink_tracker.hpp): a record that fits alone was
  // dead-lettered, or stopped the run, for the company it kept. With
  // batch.size at most the smallest max.message.bytes of the topics
  // written, a batch of two records or more always fits, and a refused
  // batch is the one record to blame. librdkafka's default batch.size
  // (1000000) is below the broker's default max.message.bytes (1048588), so
  // this caps only for a topic whose limit was lowered. A limit the brokers
  // do not tell (no DescribeConfigs ACL) leaves the producer as it is.
  asio::awaitable<std::optional<std::int64_t>> batch_size_cap(const kafka::settings& producer_settings) {
    if (!options_.cap_batches_to_topic_limits) co_return std::nullopt;
    std::vector<std::string> topics{plan_.identity.sink_topic};
    if (plan_.identity.on_invalid == plan::on_invalid::dead_letter)
      topics.push_back(plan_.identity.dead_letter_topic);
    auto op = producer_->async_topic_setting(topics, "max.message.bytes", std::chrono::seconds(5));
    kafka::kafka_result<std::map<std::string, std::string>> limits = co_await std::move(op);
    if (!limits) {
      STREAMT_LOG(log_, warning) << "could not read max.message.bytes of the topics written ("
                                 << limits.error().message
                                 << "); batches are not capped to it, so a batch a topic refuses as too "
                                    "large may blame a record that fits alone (grant DescribeConfigs on "
                                    "the topics)";
      co_return std::nullopt;
    }
    std::optional<std::int64_t> cap;
    std::string capped_by;
    for (const auto& [topic, value] : *limits) {
      std::int64_t v = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc{} || end != value.data() + value.size() || v < 1) continue;
      if (!cap || v < *cap) {
        cap = v;
        capped_by = topic;
      }
    }
    std::int64_t batch_size = 1000000;  // librdkafka's default
    for (const kafka::setting& s : producer_settings)
      if (s.key == "batch.size")
        (void)std::from_chars(s.value.data(), s.value.data() + s.value.size(), batch_size);
    if (!cap || batch_size <= *cap) co_return std::nullopt;
    STREAMT_LOG(log_, info) << "batch.size " << batch_size << " capped to " << *cap
                            << ", the max.message.bytes of topic '" << capped_by
                            << "', so that a batch the topic refuses holds one record";
    co_return cap;
  }

  // What the run before this one, from this state directory, left in
  // last-run.json: how it ended, so an exit 65 seen by no one (no scrape
  // saw the process that found the record) is said again here, and a run
  // that ended without a word (killed) is told apart from a clean stop.
  void report_previous_run() {
    const std::optional<run_record>& before = state_->previous_run();
    if (!before) return;
    if (!before->ended) {
      STREAMT_LOG(log_, warning) << "the previous run from this state directory (started "
                                 << before->started_at << ", plan " << before->plan_digest
                                 << ") ended without recording how: it was killed (SIGKILL, out of memory), "
                                    "crashed or lost its machine; its open transaction, if any, was aborted";
      return;
    }
    std::string line = "the previous run from this state directory (started " + before->started_at +
                       ", plan " + before->plan_digest + ") ended " + before->ended_at + " with exit " +
                       std::to_string(before->exit_code) + " (" + before->status;
    if (!before->stopped_at.empty()) line += " at " + before->stopped_at + ", " + before->reason;
    line += ")";
    if (before->exit_code == 0)
      STREAMT_LOG(log_, info) << line;
    else
      STREAMT_LOG(log_, warning) << line;
  }

  // A stop signal during start-up, before any transaction: the session ends
  // the run there, cleanly (exit 0); nothing is open.
  run_report stopped_in_start_up(std::string_view where) {
    STREAMT_LOG(log_, info) << "stopping: a stop signal arrived during start-up (" << where
                            << "); no transaction was opened";
    // The answer is close, with nothing to give up or leave: the group is
    // not joined yet. The outcome is the session's.
    session_.on(ss::stop_seen{facts()});
    metrics_->stopping();
    const ss::ending end = session_.outcome();
    return fail(end.status, end.message);
  }

  run_report stopped_waiting_for_brokers() {
    STREAMT_LOG(log_, info) << "stopped while waiting for the brokers at " << options_.bootstrap_servers;
    return stopped_in_start_up("before the brokers answered");
  }

  // A missing topic is a clear error before any transaction, not a retry
  // loop: streamt never creates topics, and librdkafka would wait forever.
  asio::awaitable<std::optional<run_report>> check_topics() {
    const auto deadline = steady_clock::now() + options_.connect_timeout;
    asio::steady_timer pause(co_await asio::this_coro::executor);
    kafka::error_report err = kafka::report_of(kafka::code_of(kafka::local_error::timed_out));
    std::optional<std::set<std::string>> topics;
    // Asked in slices of at most a second, with a stop check between them:
    // one blocking call for the whole --connect-timeout-ms could not be
    // interrupted, so a SIGTERM to an engine whose brokers are unreachable
    // went unanswered for up to that long.
    for (;;) {
      const auto slice_start = steady_clock::now();
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - slice_start);
      const auto slice = std::clamp(left, std::chrono::milliseconds(1), std::chrono::milliseconds(1000));
      auto op = producer_->async_topic_names(slice);
      kafka::kafka_result<std::set<std::string>> answer = co_await std::move(op);
      if (answer) {
        topics = std::move(*answer);
        break;
      }
      err = answer.error();
      if (steady_clock::now() >= deadline) break;
      if (stop_news()) co_return stopped_waiting_for_brokers();
      // A refusal that came back early waits out its slice (no busy loop).
      pause.expires_at(slice_start + std::chrono::seconds(1));
      auto waited = co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
      (void)waited;
      if (stop_news()) co_return stopped_waiting_for_brokers();
      if (steady_clock::now() >= deadline) break;
    }
    if (!topics)
      co_return fail(run_status::unavailable,
                     // A refused TLS handshake or SASL login looks the same
                     // here as an unreachable broker (librdkafka retries
                     // both); its own error line above names the cause.
                     "cannot reach the brokers at " + options_.bootstrap_servers + " within " +
                         std::to_string(options_.connect_timeout.count() / 1000) + " s: " + err.message +
                         "; check --bootstrap-servers, the network, and the TLS and SASL settings (a failed "
                         "certificate verification or authentication is logged above by librdkafka)");
    std::vector<std::string> needed{plan_.identity.source_topic, plan_.identity.sink_topic};
    if (plan_.identity.on_invalid == plan::on_invalid::dead_letter)
      needed.push_back(plan_.identity.dead_letter_topic);
    for (const std::string& t : needed)
      if (!topics->count(t))
        co_return fail(
            run_status::unavailable,
            // A broker with an authorizer leaves out of the topic list what
            // the principal may not Describe: the same answer as missing.
            "topic '" + t + "' does not exist on " + options_.bootstrap_servers +
                ", or this client's principal may not Describe it (brokers with ACLs list only what it may); "
                "streamt does not create topics: create it with the partitions and retention you want, or "
                "grant Describe on it");
    co_return std::nullopt;
  }

  // ---- the loop ------------------------------------------------------------

  // The whole driver: ask the session, perform, feed the outcome back, until
  // it says close. A stop recorded by async_run's filter is fed before every
  // action, whatever the run was awaiting when it came (a blocking call
  // ignores cancellation; a cancellation signal alone is emitted once).
  asio::awaitable<void> loop() {
    ss::action a = session_.on(ss::started{});
    for (;;) {
      if (stop_news()) {
        a = session_.on(ss::stop_seen{facts()});
        metrics_->stopping();
      }
      log_decision(a);
      switch (a.kind) {
        case act::poll: {
          auto op = poll(std::move(a));
          a = co_await std::move(op);
          break;
        }
        case act::begin:
          txn_.set(txn_.get() + 1);
          a = session_.on(ss::began{producer_->begin_transaction(), steady_clock::now()});
          break;
        case act::produce:
          a = produce(a);
          break;
        case act::dead_letter:
          sink_->dead_letter(session_.batch().front(), *a.dead);
          a = session_.on(ss::dead_lettered{steady_clock::now()});
          break;
        case act::flush: {
          // Every delivery report of the transaction, before its offsets go
          // (see aborted_tail.hpp).
          auto op = producer_->async_flush(std::chrono::seconds(30));
          kafka::error_report e = co_await std::move(op);
          a = session_.on(ss::flushed{std::move(e)});
          break;
        }
        case act::send_offsets: {
          std::vector<kafka::partition_offset> offsets;
          for (const auto& [p, next] : session_.ledger().pending())
            offsets.push_back({{plan_.identity.source_topic, p.value}, next.value});
          auto op = producer_->async_send_offsets_to_transaction(std::move(offsets),
                                                                 consumer_->group_metadata(), lineage_);
          kafka::error_report e = co_await std::move(op);
          a = session_.on(ss::offsets_sent{std::move(e)});
          break;
        }
        case act::commit: {
          auto op = commit(std::move(a));
          a = co_await std::move(op);
          break;
        }
        case act::abort: {
          const auto called = steady_clock::now();
          auto op = producer_->async_abort_transaction(a.slice);
          kafka::error_report e = co_await std::move(op);
          const bool aborted = !e.failed();
          a = session_.on(ss::abort_returned{std::move(e), called, steady_clock::now()});
          if (aborted) metrics_->aborted(session_.last_transaction().consumed);
          break;
        }
        case act::rewind: {
          const std::uint64_t before = session_.counters().rewinds;
          auto op = rewind(a.partitions);
          ss::rewound r = co_await std::move(op);
          r.cut_short_by_stop = r.result.failed() && stop_asked();
          a = session_.on(std::move(r));
          if (session_.counters().rewinds != before) metrics_->rewound();
          break;
        }
        case act::retry_after: {
          if (a.commit_retry) metrics_->commit_retried();
          asio::steady_timer pause(co_await asio::this_coro::executor);
          pause.expires_after(a.delay);
          auto waited = co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
          (void)waited;
          a = session_.on(ss::retry_elapsed{});
          break;
        }
        case act::give_up: {
          std::vector<kafka::topic_partition> parts = source_partitions(a.partitions);
          kafka::error_report e = consumer_->incremental_unassign(parts);
          a = session_.on(ss::given_up{std::move(e)});
          std::vector<std::pair<std::string, std::int32_t>> gone;
          for (const kafka::topic_partition& tp : parts) gone.emplace_back(tp.topic, tp.partition);
          metrics_->revoked(session_.ledger().owned().size(), gone);
          break;
        }
        case act::close: {
          auto op = close(std::move(a));
          co_await std::move(op);
          co_return;
        }
      }
    }
  }

  // What the session's decision is worth a line in the log for.
  void log_decision(const ss::action& a) {
    if (!a.info.empty()) STREAMT_LOG(log_, info) << a.info;
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
  }

  std::vector<kafka::topic_partition> source_partitions(const std::vector<ss::partition_id>& ids) const {
    std::vector<kafka::topic_partition> parts;
    for (ss::partition_id p : ids) parts.push_back({plan_.identity.source_topic, p.value});
    return parts;
  }

  // Takes records, or what the last poll brought besides them (consumer
  // errors, a rebalance), which the session hears once its records are
  // produced.
  asio::awaitable<ss::action> poll(ss::action a) {
    if (held_ && !held_->errors.empty()) {
      std::vector<kafka::consumer_error> errors = std::exchange(held_->errors, {});
      for (const kafka::consumer_error& e : errors)
        if (std::optional<ss::run_failed> f = on_consumer_error(e)) co_return session_.on(std::move(*f));
    }
    if (held_ && held_->rebalance) {
      kafka::rebalance_event ev = std::move(*held_->rebalance);
      held_->rebalance.reset();
      auto op = on_rebalance(std::move(ev));
      ss::action next = co_await std::move(op);
      co_return next;
    }
    held_.reset();
    views_.clear();
    const auto ex = co_await asio::this_coro::executor;
    // Records already queued are taken as they are: racing a poll against
    // the commit deadline (two child coroutines and a timerfd_settime per
    // batch) cost ~11% of the engine's CPU in a backlog.
    boost::system::result<kafka::poll_batch> polled = consumer_->try_poll_batch(a.max_records);
    if (polled && !polled->empty()) {
      // One turn of the io_context between batches: delivery reports and
      // signals are served by other handlers, and a backlog would otherwise
      // keep this loop from suspending until the commit (queue.buffering
      // filling up with unserved delivery reports if that takes long).
      auto turn = asio::post(ex, asio::use_awaitable);
      co_await std::move(turn);
    } else if (polled && a.commit_at) {
      // Wait for records, or for the open transaction's commit deadline.
      asio::steady_timer commit_timer(ex, *a.commit_at);
      // The race only waits: what is ready is taken after it, so nothing
      // drained is thrown away with the loser (see async_wait_ready).
      auto either = co_await (ready_accepting_total() || deadline_accepting_total(commit_timer));
      if (either.index() == 1) {
        const auto [ec] = std::get<1>(either);
        if (!ec) co_return session_.on(ss::commit_due{});
        co_return a;  // a stop: the loop feeds it
      }
      if (const boost::system::error_code ec = std::get<0>(either)) {
        polled = ec;
      } else {
        polled = consumer_->try_poll_batch(a.max_records);
        if (polled && polled->empty()) co_return a;  // woken for nothing: poll again
      }
    } else if (polled) {
      polled = co_await consumer_->async_poll_batch(a.max_records);
    }
    if (!polled) {
      if (polled.error() == asio::error::operation_aborted) co_return a;  // a stop: the loop feeds it
      co_return session_.on(
          ss::run_failed{run_status::failed, "polling the consumer failed: " + polled.error().message()});
    }
    held_ = std::move(*polled);
    kafka::view_messages(held_->messages, views_);
    if (!views_.empty()) co_return session_.on(ss::records_arrived{views_, steady_clock::now()});
    report_read_positions();
    co_return a;  // nothing but errors or a rebalance: taken at the next poll
  }

  // The wait for records inside `||` runs as a child coroutine, which by
  // default lets only terminal cancellation in: this one lets the graceful
  // stop in too. A stop emitted before this child started never reached it:
  // stop_ holds it, so the child does not start waiting.
  asio::awaitable<boost::system::error_code> ready_accepting_total() {
    co_await asio::this_coro::reset_cancellation_state(asio::enable_total_cancellation());
    if (stop_news()) co_return boost::system::error_code(asio::error::operation_aborted);
    auto op = consumer_->async_wait_ready();
    const boost::system::error_code ec = co_await std::move(op);
    co_return ec;
  }

  // The commit deadline inside `||`, a child coroutine too, letting the
  // graceful stop in as well. It must: a parallel group forwards only the
  // first cancellation it is asked, and its own "the other one completed"
  // is one too. A deadline wait that let only terminal cancellation in kept
  // the whole `||` (and the stop) waiting for the end of the commit
  // interval after the poll was cancelled, and the terminal stop that
  // followed was never forwarded (issue 14: exit 75 with a 60 s interval).
  asio::awaitable<std::tuple<boost::system::error_code>> deadline_accepting_total(
      asio::steady_timer& deadline) {
    co_await asio::this_coro::reset_cancellation_state(asio::enable_total_cancellation());
    if (stop_news()) co_return std::tuple{boost::system::error_code(asio::error::operation_aborted)};
    auto op = deadline.async_wait(asio::as_tuple(asio::use_awaitable));
    std::tuple<boost::system::error_code> r = co_await std::move(op);
    co_return r;
  }

  // Runs the first a.take records of the batch in hand through the stages
  // into the producer.
  ss::action produce(const ss::action& a) {
    record_counts counts;
    // The session's batch: the polled records less any it dropped.
    const std::span<const record_view> take = session_.batch().first(a.take);
    batch_result r = process_batch(take, stages_, *sink_, counts);
    return session_.on(ss::batch_produced{std::move(r), counts, steady_clock::now()});
  }

  asio::awaitable<ss::action> commit(ss::action a) {
    if (a.first_slice) call_began_ = steady_clock::now();
    const auto called = steady_clock::now();
    auto op = producer_->async_commit_transaction(a.slice);
    kafka::error_report e = co_await std::move(op);
    const bool committed = !e.failed();
    ss::action next = session_.on(ss::commit_returned{std::move(e), called, steady_clock::now()});
    if (committed) {
      const auto took = steady_clock::now() - call_began_;
      log_commit(took);
      report_commit(took);
      if (options_.on_commit) options_.on_commit(progress(run_report{}));
    }
    co_return next;
  }

  // The ACL refusal line for a start-up or consumer error; nullopt for any
  // other code.
  std::optional<std::string> refused(rd_kafka_resp_err_t code, const std::string& message) const {
    return ss::refusal_line(code, message, plan_.identity.source_topic, plan_.identity.sink_topic,
                            plan_.identity.application_id);
  }

  std::optional<ss::run_failed> on_consumer_error(const kafka::consumer_error& e) {
    switch (ss::classify(e)) {
      case ss::consumer_error_verdict::ignore:
        return std::nullopt;
      case ss::consumer_error_verdict::keep_going:
        STREAMT_LOG(log_, warning) << "consumer: " << e.error.message;
        return std::nullopt;
      case ss::consumer_error_verdict::out_of_range:
        return ss::run_failed{
            run_status::rejected_config,
            "the position of " + (e.partition ? describe(*e.partition) : std::string("a partition")) +
                " is out of range (records were deleted by retention?): " + e.error.message +
                ". Restart with --reset-offsets earliest|latest to continue; records are skipped or "
                "replayed"};
      case ss::consumer_error_verdict::unavailable:
        if (std::optional<std::string> line = refused(e.error.info.code, "consumer: " + e.error.message))
          return ss::run_failed{run_status::unavailable, std::move(*line)};
        return ss::run_failed{run_status::unavailable, "consumer: " + e.error.message};
      case ss::consumer_error_verdict::fenced:
        return ss::run_failed{run_status::fenced,
                              "consumer: " + e.error.message +
                                  "; another instance runs with this group.instance.id (a copy of this state "
                                  "directory?): give each instance a state directory of its own"};
    }
    return std::nullopt;
  }

  // ---- rebalances --------------------------------------------------------

  asio::awaitable<ss::action> on_rebalance(kafka::rebalance_event ev) {
    std::vector<ss::partition_id> ids;
    for (const kafka::topic_partition& tp : ev.partitions) ids.push_back({tp.partition});
    if (ev.what == kafka::rebalance_event::kind::revoked) {
      STREAMT_LOG(log_, info) << "revoked " << ev.partitions.size() << " partition(s)"
                              << (ev.lost ? " (lost)" : "");
      co_return session_.on(ss::revoked{std::move(ids), ev.lost});
    }
    kafka::kafka_result<std::vector<kafka::committed_offset>> committed =
        co_await committed_offsets(ev.partitions);
    if (!committed) {
      ss::run_failed failure = unavailable(committed_offsets_failed(committed.error()));
      co_return refuse_assignment(ev.partitions, std::move(failure));
    }
    std::vector<kafka::partition_offset> start;
    std::map<ss::partition_id, ss::offset> positions;
    for (const kafka::committed_offset& co : *committed) {
      const std::optional<ss::offset> ours = session_offset(co);
      kafka::partition_offset po{co.partition, kafka::offset_beginning};
      std::optional<kafka::watermarks> marks;
      if (ours) {
        auto marks_op =
            patiently<kafka::watermarks>("the offsets of " + describe(po.partition),
                                         [this, tp = po.partition](std::chrono::milliseconds slice) {
                                           return consumer_->async_query_watermarks(tp, slice);
                                         });
        kafka::kafka_result<kafka::watermarks> answer = co_await std::move(marks_op);
        if (!answer) {
          ss::run_failed failure = unavailable("reading the offsets of " + describe(po.partition) +
                                               " failed: " + answer.error().message);
          co_return refuse_assignment(ev.partitions, std::move(failure));
        }
        marks = *answer;
      }
      // Whether this plan may take the partition at all, from the lineage of
      // its last commit: before anything of it is consumed.
      auto inherited =
          ss::succession(describe(po.partition), ours, from_commit_metadata(co.metadata), our_plan_);
      if (auto* refused = std::get_if<ss::succession_refused>(&inherited))
        co_return refuse_assignment(ev.partitions,
                                    ss::run_failed{run_status::rejected_config, std::move(refused->message)});
      if (const std::string& note = std::get<ss::take_partition>(inherited).note; !note.empty())
        STREAMT_LOG(log_, info) << note;
      auto decided = ss::start_position(describe(po.partition), ours, marks, options_.reset_offsets);
      if (auto* refused = std::get_if<ss::start_refused>(&decided))
        co_return refuse_assignment(ev.partitions,
                                    ss::run_failed{run_status::rejected_config, std::move(refused->message)});
      const ss::start_at& at = std::get<ss::start_at>(decided);
      // The offset field is where it starts; left out for "the earliest",
      // which only the broker knows.
      std::optional<log_field> start_offset;
      if (at.at) start_offset.emplace(log_attribute::offset, at.at->value);
      BOOST_LOG_SEV(log_, at.reset ? severity::warning : severity::info)
          << log_field(log_attribute::topic, po.partition.topic)
          << log_field(log_attribute::partition, po.partition.partition) << start_offset << at.note;
      po.offset = at.at ? at.at->value : kafka::offset_beginning;
      if (at.at) positions[ss::partition_id{po.partition.partition}] = *at.at;
      if (marks)
        metrics_->partition_position(po.partition.topic, po.partition.partition, po.offset, marks->high);
      start.push_back(po);
    }
    if (kafka::error_report e = consumer_->incremental_assign(start); e.failed())
      co_return session_.on(ss::run_failed{run_status::failed, "taking partitions failed: " + e.message});
    ss::action next = session_.on(ss::assigned{std::move(ids), std::move(positions)});
    metrics_->assigned(session_.ledger().owned().size());
    co_return next;
  }

  // Stops while an assignment waits for its acknowledgement. librdkafka
  // 2.0.2 holds the rebalance open until incremental_assign is called, and
  // destroying the consumer then spins forever in its main thread (seen in
  // tools/faults retention: the refusal was logged, the process never
  // exited and ignored SIGTERM). So acknowledge the assignment (nothing is
  // consumed from it: we stop), then let the session close the run.
  ss::action refuse_assignment(std::vector<kafka::topic_partition> parts, ss::run_failed failure) {
    std::vector<kafka::partition_offset> at_end;
    for (kafka::topic_partition& tp : parts) at_end.push_back({std::move(tp), kafka::offset_end});
    if (kafka::error_report e = consumer_->incremental_assign(at_end); e.failed()) {
      STREAMT_LOG(log_, warning) << "acknowledging the assignment before stopping: " << e.message;
      return session_.on(std::move(failure));
    }
    return session_.on(ss::assignment_refused{failure.status, std::move(failure.message)});
  }

  // After an abort, every owned partition goes back to its committed offset:
  // the aborted records are produced again, the offsets sent again.
  // The outcome says where each partition went: the session drops records
  // fetched before the seek that are older than that.
  asio::awaitable<ss::rewound> rewind(std::vector<ss::partition_id> ids) {
    ss::rewound r;
    std::vector<kafka::topic_partition> parts = source_partitions(ids);
    if (parts.empty()) co_return r;
    kafka::kafka_result<std::vector<kafka::committed_offset>> committed = co_await committed_offsets(parts);
    if (!committed) {
      r.result = committed.error();
      co_return r;
    }
    std::vector<kafka::partition_offset> to;
    for (const kafka::committed_offset& co : *committed) {
      to.push_back({co.partition, co.offset.value_or(kafka::offset_beginning)});
      if (co.offset) r.positions[ss::partition_id{co.partition.partition}] = ss::offset{*co.offset};
    }
    STREAMT_LOG(log_, info) << "rewound " << parts.size() << " partition(s) to their committed offsets";
    auto seek = consumer_->async_seek(std::move(to));
    r.result = co_await std::move(seek);
    co_return r;
  }

  // The committed offsets are read stable (read_committed): while a
  // transaction holding offsets of the group is open, the broker answers
  // "unstable" and librdkafka asks again until the call times out. A broker
  // that lost a transaction's markers keeps it open for good (a hanging
  // transaction: tools/faults broker_pause on one node, before kafka-local
  // gave its broker a longer lease), and only an operator can end it. The
  // line says how, since from here it looks like any other timeout.
  static std::string committed_offsets_failed(const kafka::error_report& e) {
    std::string line = "reading committed offsets failed: " + e.message;
    if (kafka::is_transient_code(e.info.code))
      line +=
          ". If the brokers answer other requests, a transaction left open on the group's offsets may hold "
          "them (a hanging transaction, whose markers the brokers lost): list it with kafka-transactions.sh "
          "find-hanging --broker-id N and end it with kafka-transactions.sh abort --topic T --partition P "
          "--start-offset O";
    return line;
  }

  // The group's committed offsets of `parts`, never behind one this process
  // committed itself (offset_ledger::behind). After a broker was killed and
  // restarted, the coordinator has answered "no committed offset", or an
  // older one, for partitions this process had committed a second earlier,
  // for minutes (tools/faults broker_kill; the commit's markers are
  // recovered only later). Taken as it is, that replays committed records
  // and duplicates their output; stopping instead (exit 75) is no better,
  // since a restarted process no longer knows what it committed and would
  // take the stale answer. So ask again, once a second, for as long as it
  // takes, like any other wait for the brokers of a running engine; a stop
  // signal ends the wait (nothing is open then: this runs at an assignment
  // or a rewind).
  static std::optional<ss::offset> session_offset(const kafka::committed_offset& co) {
    if (!co.offset) return std::nullopt;
    return ss::offset{*co.offset};
  }

  asio::awaitable<kafka::kafka_result<std::vector<kafka::committed_offset>>> committed_offsets(
      std::vector<kafka::topic_partition> parts) {
    const auto began = steady_clock::now();
    auto warned = steady_clock::time_point{};
    asio::steady_timer pause(co_await asio::this_coro::executor);
    for (;;) {
      auto op = patiently<std::vector<kafka::committed_offset>>(
          "the committed offsets", [this, parts](std::chrono::milliseconds slice) {
            return consumer_->async_committed(parts, slice);
          });
      kafka::kafka_result<std::vector<kafka::committed_offset>> committed = co_await std::move(op);
      if (!committed) co_return committed;
      std::string behind;
      for (const kafka::committed_offset& co : *committed) {
        if (std::optional<std::string> b =
                session_.ledger().behind({co.partition.partition}, session_offset(co)))
          behind = std::move(*b);
      }
      if (behind.empty()) co_return committed;
      if (stop_asked()) {
        kafka::error_report e;
        e.info = kafka::txn_error_info::plain(kafka::code_of(kafka::local_error::inconsistent));
        e.message = behind + "; stopped while waiting for the coordinator to catch up";
        co_return e;
      }
      const auto now = steady_clock::now();
      if (warned == steady_clock::time_point{} || now - warned >= std::chrono::seconds(30)) {
        warned = now;
        STREAMT_LOG(log_, warning) << log_field(log_attribute::duration_ms, waited_ms(now - began)) << behind
                                   << " (for "
                                   << std::chrono::round<std::chrono::seconds>(now - began).count()
                                   << " s); not reprocessing from there (it would duplicate output): asking "
                                      "again every second until the coordinator catches up";
      }
      pause.expires_after(std::chrono::seconds(1));
      auto waited = co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
      (void)waited;
    }
  }

  // Asks `query(slice)` until it answers or the session says the wait ends
  // (run_session::broker_wait_ends): before the first partitions were taken,
  // --connect-timeout-ms bounds it, and a wrong address or a missing broker
  // is a start-up error (exit 69). Once running, an engine waits for its
  // brokers up to the stall timeout: a broker restart outlasting the connect
  // timeout stopped it with exit 69 in tools/faults broker_kill, leaving the
  // restart to a supervisor that would only have waited too; but a request
  // that is never answered (committed offsets a hanging transaction holds)
  // must end in a line that says so, not in silence. Asked in slices of at most 5 s
  // with a stop check between them (the blocking call itself cannot be
  // interrupted); a stop while waiting returns the last error, and callers
  // ask stop_asked() to tell it from a failure.
  template <class T, class Query>
  asio::awaitable<kafka::kafka_result<T>> patiently(std::string what, Query query) {
    const auto began = steady_clock::now();
    const auto slice = std::min(options_.connect_timeout, std::chrono::milliseconds(5000));
    auto warned = began;
    for (;;) {
      auto op = query(session_.established() ? slice : options_.connect_timeout);
      kafka::kafka_result<T> answer = co_await std::move(op);
      if (answer) co_return answer;
      const auto now = steady_clock::now();
      if (std::optional<std::string> ends = session_.broker_wait_ends({what, now - began, answer.error()})) {
        kafka::error_report e = answer.error();
        e.message = std::move(*ends);
        co_return e;
      }
      if (stop_asked()) co_return answer;
      if (warned == began || now - warned >= std::chrono::seconds(30)) {
        warned = now;
        STREAMT_LOG(log_, warning) << log_field(log_attribute::duration_ms, waited_ms(now - began))
                                   << "the brokers have not answered for " << what << " for "
                                   << std::chrono::round<std::chrono::seconds>(now - began).count()
                                   << " s: " << answer.error().message << "; still waiting, up to "
                                   << std::chrono::round<std::chrono::seconds>(options_.stall_timeout).count()
                                   << " s (--stall-timeout-ms; stop it with SIGTERM)";
      }
    }
  }

  // A query the brokers did not answer: exit 69, unless a stop signal cut
  // the wait short (see patiently()), which is a clean stop.
  ss::run_failed unavailable(std::string message) const {
    if (session_.established() && stop_asked())
      return {run_status::stopped, "stopped while waiting for the brokers (" + message + ")"};
    return {run_status::unavailable, std::move(message)};
  }

  // The committed transaction's records and where each owned partition now
  // stands; once per commit, never per record.
  void report_commit(steady_clock::duration took) {
    metrics_->committed(session_.last_transaction(), took);
    for (ss::partition_id p : session_.ledger().owned()) {
      if (std::optional<ss::offset> ours = session_.ledger().committed_by_us(p)) {
        const kafka::topic_partition tp{plan_.identity.source_topic, p.value};
        metrics_->partition_position(tp.topic, tp.partition, ours->value, consumer_->cached_end_offset(tp));
      }
    }
    report_read_positions();
  }

  // With no record in hand or pending, every record the consumer delivered
  // is committed, so between a partition's committed offset and the
  // consumer's position lie only offsets that hold no record for a
  // read_committed reader (the markers of an upstream producer's
  // transactions, aborted records): the lag counts from the position. A
  // marker is often taken from the queue only by the poll after the commit,
  // hence also after a poll that brought no record. Quick: no broker call.
  void report_read_positions() {
    if (!session_.batch().empty() || !session_.ledger().pending().empty()) return;
    for (ss::partition_id p : session_.ledger().owned()) {
      const kafka::topic_partition tp{plan_.identity.source_topic, p.value};
      if (std::optional<std::int64_t> at = consumer_->position(tp))
        metrics_->partition_read_to(tp.topic, tp.partition, *at);
    }
  }

  void log_commit(steady_clock::duration took) {
    ++commits_;
    // A line per commit would drown the log at 10 commits/s: log the first
    // commits, then one summary a minute.
    const auto now = steady_clock::now();
    if (commits_ <= 3 || now - last_summary_ >= std::chrono::minutes(1)) {
      last_summary_ = now;
      const record_counts& c = session_.counters().counts;
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(took).count();
      STREAMT_LOG(log_, info) << log_field(log_attribute::duration_ms, ms) << count_fields(c)
                              << "committed transaction " << commits_ << " (" << ms << " ms): " << c.consumed
                              << " consumed, " << c.emitted << " emitted, " << c.filtered << " filtered, "
                              << c.tombstones << " tombstones so far";
    }
  }

  // Gives up the partitions of a revocation that was ending (librdkafka
  // 2.0.2 cannot close a consumer with a revocation unacknowledged:
  // consumer_close never returns, seen in tools/faults txn_timeout), then
  // leaves the group if the session says so (explicitly, so partitions move
  // at once, not after the session timeout).
  asio::awaitable<void> close(ss::action a) {
    if (!a.partitions.empty()) {
      if (kafka::error_report e = consumer_->incremental_unassign(source_partitions(a.partitions));
          e.failed())
        STREAMT_LOG(log_, warning) << "giving up partitions before stopping: " << e.message;
    }
    // A terminal stop asked for while the graceful one ran counts too.
    if (stop_news()) a = session_.on(ss::stop_seen{facts()});
    if (a.leave_group) {
      STREAMT_LOG(log_, debug) << "leaving the group";
      kafka::error_report e = co_await consumer_->async_close();
      STREAMT_LOG(log_, debug) << "left the group";
      if (e.failed()) STREAMT_LOG(log_, warning) << "leaving the group: " << e.message;
    }
  }

  // Delivery reports must be served while commit_transaction waits for them,
  // including during a graceful stop: only a terminal cancellation (or the
  // end of the loop) stops this loop. What they say goes to the session as
  // notes (sink_tracker).
  asio::awaitable<void> drain_events() {
    co_await asio::this_coro::reset_cancellation_state(asio::enable_terminal_cancellation());
    co_await asio::this_coro::throw_if_cancelled(false);
    for (;;) {
      boost::system::result<kafka::producer_events> ev = co_await producer_->async_poll_events(10000);
      if (!ev) {
        STREAMT_LOG(log_, debug) << "delivery report loop ended: " << ev.error().message();
        co_return;
      }
      // A refused transaction fails every record in it, thousands a second:
      // one line per error code and batch of reports, with the count.
      std::vector<std::pair<const kafka::delivery_report*, std::size_t>> failures;
      for (const kafka::delivery_report& d : ev->deliveries) {
        if (!d.error.failed()) {
          session_.sink().delivered(d.opaque, d.partition, d.offset);
          continue;
        }
        session_.sink().delivery_failed(d.opaque, d.error);
        auto same = std::find_if(failures.begin(), failures.end(), [&](const auto& f) {
          return f.first->error.info.code == d.error.info.code;
        });
        if (same == failures.end())
          failures.emplace_back(&d, 1);
        else
          ++same->second;
        // The open transaction will fail to commit (librdkafka reports it
        // abortable) and be aborted and rewound: nothing to do here.
      }
      for (const auto& [first, count] : failures)
        STREAMT_LOG(log_, warning) << log_field(log_attribute::topic, plan_.identity.sink_topic)
                                   << log_field(log_attribute::partition, first->partition) << "delivery to "
                                   << plan_.identity.sink_topic << "/" << first->partition
                                   << " failed: " << first->error.message
                                   << (count > 1 ? " (and " + std::to_string(count - 1) + " more records)"
                                                 : "");
      for (const std::string& json : ev->statistics)
        if (std::optional<client_statistics> s = parse_client_statistics(json))
          metrics_->statistics(std::move(*s));
      for (const kafka::error_report& e : ev->errors) {
        if (e.info.fatal || e.what() == kafka::condition::fenced) {
          // Keep serving delivery reports: an abort_transaction in flight
          // waits until every outstanding record is reported, and would
          // hang forever if this loop ended here (seen in tools/faults
          // zombie: fenced while aborting). The transactional call itself
          // returns the fatal error, which stops the engine.
          session_.producer_fatal(e.message);
          continue;
        }
        STREAMT_LOG(log_, warning) << "producer: " << e.message;
      }
    }
  }

  run_report fail(run_status s, std::string message) const {
    run_report r;
    r.status = s;
    r.message = std::move(message);
    return r;
  }

  run_report progress(run_report r) const {
    const ss::progress p = session_.counters();
    r.counts = p.counts;
    r.transactions_committed = p.transactions_committed;
    r.transactions_aborted = p.transactions_aborted;
    r.commit_retries = p.commit_retries;
    r.retries = p.retries;
    r.rewinds = p.rewinds;
    return r;
  }

  run_report finish(run_report r) {
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
                              << "stopped cleanly: " << r.counts.consumed << " consumed, " << r.counts.emitted
                              << " emitted, " << r.counts.filtered << " filtered, " << r.counts.tombstones
                              << " tombstones, "
                              << (r.counts.dead_lettered != 0
                                      ? std::to_string(r.counts.dead_lettered) + " dead-lettered, "
                                      : std::string())
                              << r.transactions_committed << " transactions committed";
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
  void record_end(const run_report& r) {
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

  const stop_request* stop_;  // async_run's: outlives this runtime
  plan::plan plan_;
  run_options options_;
  logger log_;
  transaction_sequence txn_;
  operators::stage_pipeline stages_;
  ss::run_session session_;  // every exactly-once decision
  std::optional<state_dir> state_;
  // The offset metadata of every commit: which plan, which instance
  // (engine/lineage.hpp).
  std::string lineage_;
  ss::our_plan our_plan_;  // what the succession check compares each partition's lineage with
  std::unique_ptr<kafka::producer> producer_;
  std::unique_ptr<kafka::consumer> consumer_;
  std::optional<kafka_sink> sink_;
  std::shared_ptr<metrics> metrics_;
  // The last poll's batch: its records (views_ point into it) until the
  // next poll, and its errors and rebalance until the session has heard them.
  std::optional<kafka::poll_batch> held_;
  std::vector<record_view> views_;
  // When the commit under way was first called, for its duration in the log
  // and metrics (the session keeps its own for the protocol).
  steady_clock::time_point call_began_{};
  bool restartable_ = false;
  asio::cancellation_signal drain_stop_;
  std::uint64_t commits_ = 0;
  steady_clock::time_point last_summary_{};
};

}  // namespace

namespace {

// Adds the counters of a run that ended to those of the runs before it.
run_report merged(run_report earlier, run_report last) {
  last.counts += earlier.counts;
  last.transactions_committed += earlier.transactions_committed;
  last.transactions_aborted += earlier.transactions_aborted;
  last.commit_retries += earlier.commit_retries;
  last.retries += earlier.retries;
  last.rewinds += earlier.rewinds;
  last.restarts += earlier.restarts;
  return last;
}

}  // namespace

namespace {

// The attempts of async_run: one runtime each, restarted in-process after a
// fatal producer error a new producer gets past.
asio::awaitable<run_report> run_attempts(plan::plan p, run_options options, logger log,
                                         transaction_sequence txn, stop_request& stop) {
  // A coroutine of its own (async_run spawns it): its stack lets only
  // terminal cancellation in, and throws when cancelled, until told
  // otherwise here, before anything is awaited. A graceful stop forwarded
  // before this line ran was filtered out, but async_run recorded it in
  // `stop`, which the runtime reads before it waits for anything.
  co_await asio::this_coro::reset_cancellation_state(recording_filter{&stop});
  co_await asio::this_coro::throw_if_cancelled(false);
  constexpr std::size_t max_restarts = 3;
  constexpr auto restart_window = std::chrono::minutes(10);
  run_report total;
  std::deque<steady_clock::time_point> restarts;
  for (;;) {
    // One runtime per attempt: its destructor closes the clients and
    // releases the state directory's lock before the next one takes it.
    options.metrics->run_started();
    std::optional<runtime> rt(std::in_place, p, options, log, txn, stop);
    run_report r = co_await rt->run();
    const bool restartable = rt->restartable();
    rt.reset();
    total = merged(std::move(total), std::move(r));
    if (!restartable || stop.requested()) co_return total;
    const auto now = steady_clock::now();
    while (!restarts.empty() && now - restarts.front() > restart_window) restarts.pop_front();
    if (restarts.size() >= max_restarts) {
      const std::string advice = std::to_string(max_restarts) +
                                 " in-process restarts within ten minutes did not help: restart the engine, "
                                 "and if it fails again look at the brokers' transaction coordinator";
      // The attempt logged its own end; this is the run's (no caller
      // repeats the report's message).
      STREAMT_LOG(log, error) << advice;
      total.message += "; " + advice;
      co_return total;
    }
    restarts.push_back(now);
    ++total.restarts;
    options.metrics->restarted();
    STREAMT_LOG(log, warning) << "restarting in-process after a fatal producer error (" << total.message
                              << "): new clients under the same identity resume from the committed offsets";
  }
}

}  // namespace

asio::awaitable<run_report> async_run(plan::plan p, run_options options) {
  logger log(boost::log::keywords::channel = "engine");
  add_pipeline_attributes(log, p.identity.application_id, plan::digest(p));
  // One sequence for all attempts: transaction numbers go on rising across
  // in-process restarts, so no two transactions of a run share one.
  transaction_sequence txn(0);
  log.add_attribute(log_attribute::transaction, txn);
  if (!options.metrics) options.metrics = std::make_shared<metrics>();
  options.metrics->set_identity(
      {p.identity.application_id, plan::digest(p), p.identity.source_topic, p.identity.sink_topic});
  // Whatever way the run ends (a status, or a bug's exception), it is no
  // longer live for /healthz. The guard owns a reference: `options` (and
  // its reference) is moved into the attempts below, and a caller that gave
  // no metrics object holds none, so a guard with a plain pointer would
  // mark a freed object at the end (ASan: heap-use-after-free).
  struct ended_guard {
    std::shared_ptr<metrics> m;
    ~ended_guard() { m->run_ended(); }
  } ended{options.metrics};
  // The stop signals this run is asked, recorded as they are emitted (see
  // stop_request); set before the first await, and not reset until the run
  // is over.
  stop_request stop;
  const recording_filter filter{&stop};
  co_await asio::this_coro::reset_cancellation_state(filter);
  co_await asio::this_coro::throw_if_cancelled(false);
  const auto ex = co_await asio::this_coro::executor;
  const std::chrono::milliseconds stop_timeout = options.stop_timeout;

  // The two-phase stop, here in the engine so that every caller gets it:
  // the run goes on in a coroutine of its own, and this one passes the
  // caller's stops on to it, graceful or terminal, and turns a graceful stop
  // that has not ended the run within stop_timeout into a terminal one (the
  // runtime then leaves what is under way to the broker, see
  // stop_request::deadline). Only a second signal of the caller's could do
  // that before, and an embedding application had no deadline at all.
  asio::cancellation_signal to_run;
  std::optional<run_report> report;
  std::exception_ptr crashed;
  // Woken by the run's end, by a stop of the caller's, and by the deadline.
  asio::steady_timer wake(ex, steady_clock::time_point::max());
  // Made before it is spawned (no temporaries: see recording_filter).
  auto attempts = run_attempts(std::move(p), std::move(options), log, txn, stop);
  asio::co_spawn(ex, std::move(attempts),
                 asio::bind_cancellation_slot(to_run.slot(), [&](std::exception_ptr e, run_report r) {
                   crashed = e;
                   if (!e) report = std::move(r);
                   wake.cancel();
                 }));
  asio::cancellation_type forwarded = asio::cancellation_type::none;
  bool deadline_armed = false;
  while (!report && !crashed) {
    const asio::cancellation_type fresh = stop.seen & ~forwarded;
    if (fresh != asio::cancellation_type::none) {
      forwarded = forwarded | fresh;
      if ((fresh & asio::cancellation_type::terminal) != asio::cancellation_type::none) {
        to_run.emit(asio::cancellation_type::terminal);
      } else {
        to_run.emit(asio::cancellation_type::total);
        if (!deadline_armed) {
          deadline_armed = true;
          wake.expires_after(stop_timeout);
        }
      }
    }
    auto [ec] = co_await wake.async_wait(asio::as_tuple(asio::use_awaitable));
    if (!ec && !report && !crashed && !stop.terminal()) {
      stop.deadline = true;
      stop.seen = stop.seen | asio::cancellation_type::terminal;
      wake.expires_at(steady_clock::time_point::max());
    }
  }
  // The filter points into this frame: detach it before the frame goes.
  co_await asio::this_coro::reset_cancellation_state(asio::enable_total_cancellation());
  if (crashed) std::rethrow_exception(crashed);  // a bug: the caller's completion gets it
  co_return std::move(*report);
}

}  // namespace streamt::engine
