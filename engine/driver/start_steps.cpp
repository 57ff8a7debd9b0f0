// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The start-up's actions (engine/session/start_up.hpp decides their order,
// how long each waits, and what a refusal ends the run with): each performs
// one step against the state directory or kafka/ and reports what came of
// it.

#include "engine/driver/runtime.hpp"

#include "engine/lineage.hpp"
#include "kafka/config.hpp"
#include "kafka/jaas.hpp"
#include "plan/plan_json.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <charconv>
#include <exception>
#include <map>
#include <stdexcept>

namespace streamt::engine::driver {

namespace {

ss::prepared refused(ss::start_refusal why, std::string message) {
  ss::prepared p;
  p.refused = why;
  p.message = std::move(message);
  return p;
}

// "gold, silver": a routed plan's sink topics on the start line.
std::string joined(const std::vector<std::string>& topics) {
  std::string s;
  for (const std::string& t : topics) s += (s.empty() ? "" : ", ") + t;
  return s;
}

}  // namespace

// Everything local, before any broker is asked: the client settings, the
// state directory (admitted, not yet written), the clients.
ss::prepared runtime::prepare() {
  // ${env:...} and ${file:...} in client settings are resolved here, so an
  // embedding application gets them as `streamt run` does: after the check
  // of engine-owned keys (a refused key needs no secret to be refused),
  // before the state directory is touched, and again at each in-process
  // restart (a rotated secret file is read anew).
  if (auto owned = kafka::check_user_settings(options_.client_settings); !owned)
    return refused(ss::start_refusal::settings, owned.error().message);
  if (auto resolved = kafka::resolve_references(options_.client_settings); !resolved)
    return refused(ss::start_refusal::settings, resolved.error().message);
  // A Java client's sasl.jaas.config, after its references are resolved.
  if (auto translated = kafka::translate_jaas(options_.client_settings); !translated)
    return refused(ss::start_refusal::settings, translated.error().message);
  // `streamt run` refuses such a name as a usage error; an embedding
  // application's gets here.
  if (!options_.lineage_header.empty())
    if (std::optional<header_name_problem> bad = lineage_header_name_problem(options_.lineage_header))
      return refused(ss::start_refusal::settings, "--lineage-header: " + bad->message);
  // The Schema Registry's settings are checked (its TLS files loaded)
  // before the state directory is touched, like the Kafka clients' own.
  if (std::optional<std::string> e = make_registry_client())
    return refused(ss::start_refusal::settings, std::move(*e));
  result<state_dir> dir = state_dir::open(options_.state_dir);
  if (!dir) return refused(ss::start_refusal::state_dir, dir.error().message);
  state_.emplace(std::move(*dir));
  if (result<void> admitted = state_->admit(plan_, options_.allow_output_change); !admitted) {
    const bool identity =
        admitted.error().code == "identity_changed" || admitted.error().code == "output_changed";
    return refused(identity ? ss::start_refusal::identity : ss::start_refusal::state_dir,
                   admitted.error().message);
  }
  txn_id_ = transactional_id(plan_, *state_);
  ss::prepared ready;
  ready.plan = ss::our_plan{plan::digest(plan_), plan::output_shape(plan_), plan_.supersedes,
                            state_->previous_plan_digest(), options_.allow_output_change};
  ready.instance_id = state_->instance_id();
  lineage_ = to_commit_metadata(
      {ready.plan.digest, state_->instance_id(), ready.plan.output_shape, ready.plan.supersedes});
  // Two lines, not one of 250 characters: what runs, then how.
  STREAMT_LOG(log_, info) << "starting " << plan_.identity.application_id << ": "
                          << plan_.identity.source_topic << " -> " << joined(plan::sink_topics(plan_))
                          << ", plan " << plan::digest(plan_)
                          << (state_->first_run() ? " (new instance)" : "");
  STREAMT_LOG(log_, info) << "transactional id " << txn_id_ << ", librdkafka " << kafka::library_version()
                          << ", state directory " << options_.state_dir
                          << (options_.lineage_header.empty()
                                  ? std::string()
                                  : ", lineage header " + options_.lineage_header);

  // Each client names itself by the instance (the CLIENT-ID column of
  // kafka-consumer-groups --describe, broker request logs, quotas), not
  // librdkafka's "rdkafka"; a client.id of the user's comes later and wins.
  settings_ = {{"bootstrap.servers", options_.bootstrap_servers}, {"client.id", txn_id_}};
  settings_.insert(settings_.end(), options_.client_settings.begin(), options_.client_settings.end());
  if (!options_.client_settings.empty())
    STREAMT_LOG(log_, info) << "client settings: " << kafka::redacted(options_.client_settings);
  // The producer's statistics feed the broker and queue metrics; the
  // consumer's would only be dropped (lag is measured by the engine).
  producer_settings_ = settings_;
  if (std::none_of(settings_.begin(), settings_.end(),
                   [](const kafka::setting& s) { return s.key == "statistics.interval.ms"; }))
    producer_settings_.push_back(
        {"statistics.interval.ms", std::to_string(options_.statistics_interval.count())});
  if (std::string e = make_producer(producer_settings_); !e.empty())
    return refused(ss::start_refusal::settings, std::move(e));
  ready.transaction_timeout = producer_->transaction_timeout();
  // One group.instance.id per state directory, never typed by hand: two
  // instances with one would fence each other's consumers. Whether it is
  // used (static membership) the consumer decides with the group protocol.
  auto consumer =
      kafka::consumer::create(ex_, plan_.identity.application_id, txn_id_, settings_, options_.membership);
  if (!consumer) return refused(ss::start_refusal::settings, consumer.error().message);
  consumer_ = std::move(*consumer);
  plan_log_ = std::make_unique<kafka::plan_log_client>(*consumer_, options_.bootstrap_servers, settings_);
  return ready;
}

// A new producer (and the sink adapter over it); the reason it could not be
// made, or empty.
std::string runtime::make_producer(const kafka::settings& producer_settings) {
  sink_.reset();  // it refers to the producer it replaces
  producer_.reset();
  auto producer = kafka::producer::create(ex_, txn_id_, producer_settings);
  if (!producer) return producer.error().message;
  producer_ = std::move(*producer);
  std::vector<std::string> route_topics;
  for (const plan::route& r : plan::routes_of(plan_)) route_topics.push_back(r.sink_topic);
  sink_.emplace(*producer_, topics_written(plan_), route_topics,
                plan::is_routed(plan_) ? plan_.unrouted_topic : std::string(), session_.sink(),
                plan_.identity.dead_letter_topic, plan::digest(plan_), options_.lineage_header);
  sink_->rules(sink_rules_);
  return {};
}

// A round of start-up steps the session found independent of each other
// (start_up.hpp: the producer's and the plan log's), performed at the same
// time; the outcomes go back together, in the order of the steps, once every
// step is done, so nothing is under way when the session decides next. The
// producer's calls run on its transactional thread, the plan log's on the
// log client's.
asio::awaitable<ss::steps_done> runtime::together(std::vector<ss::action> steps) {
  using step_op = decltype(asio::co_spawn(ex_, start_step({}), asio::deferred));
  std::vector<step_op> ops;
  ops.reserve(steps.size());
  for (ss::action& a : steps) ops.push_back(asio::co_spawn(ex_, start_step(std::move(a)), asio::deferred));
  auto group = asio::experimental::make_parallel_group(std::move(ops));
  auto [order, crashed, outcomes] =
      co_await group.async_wait(asio::experimental::wait_for_all(), asio::use_awaitable);
  (void)order;
  for (const std::exception_ptr& e : crashed)
    if (e) std::rethrow_exception(e);
  co_return ss::steps_done{std::move(outcomes)};
}

// One step of a round. Blocking calls ignore cancellation, and each step is
// bounded by its own slice or timeout: a stop is fed by the loop once the
// round is over.
asio::awaitable<ss::step_outcome> runtime::start_step(ss::action a) {
  co_await asio::this_coro::throw_if_cancelled(false);
  switch (a.kind) {
    case ss::act::cap_batches: {
      auto op = cap_batches();
      co_return co_await std::move(op);
    }
    case ss::act::init_transactions: {
      auto op = init_transactions(a.slice);
      co_return co_await std::move(op);
    }
    case ss::act::create_plan_log: {
      auto op = create_plan_log(a);
      co_return co_await std::move(op);
    }
    case ss::act::read_plan_log: {
      auto op = read_plan_log(a);
      co_return co_await std::move(op);
    }
    case ss::act::append_claim: {
      auto op = append_claim(a);
      co_return co_await std::move(op);
    }
    default:
      break;
  }
  throw std::logic_error("not a start-up step: " + std::string(ss::to_string(a.kind)));
}

// The cluster's topic names, for one slice (streamt never creates topics: a
// missing one is a clear error before any transaction, not a retry loop).
asio::awaitable<ss::topics_listed> runtime::list_topics(std::chrono::milliseconds slice) {
  ss::topics_listed out;
  out.called = steady_clock::now();
  auto op = producer_->async_topic_names(slice);
  kafka::kafka_result<std::set<std::string>> answer = co_await std::move(op);
  out.now = steady_clock::now();
  if (answer)
    out.names = std::move(*answer);
  else
    out.error = failure_of(answer.error());
  co_return out;
}

// The batch.size the producer must be given, when the one it has is too
// large. The broker refuses a batch too large for the topic whole, and every
// record of it reports the error, so the session can only blame its largest
// record (sink_tracker.hpp): a record that fits alone was dead-lettered, or
// stopped the run, for the company it kept. With batch.size at most the
// smallest max.message.bytes of the topics written, a batch of two records or
// more always fits, and a refused batch is the one record to blame.
// librdkafka's default batch.size (1000000) is below the broker's default
// max.message.bytes (1048588), so this caps only for a topic whose limit was
// lowered. A limit the brokers do not tell (no DescribeConfigs ACL) leaves
// the producer as it is; before init_transactions a new producer costs
// nothing at the brokers.
//
// The source topic's cleanup.policy is read in the same step, for the
// session to refuse a compacted source the plan did not choose a changelog
// for (start_up.hpp). In a call of its own: DescribeConfigs fails whole for
// one topic it may not describe, and a source of another team's should not
// cost the sink's rules.
asio::awaitable<ss::batches_capped> runtime::cap_batches() {
  ss::batches_capped out;
  {
    auto op = producer_->async_topic_settings({plan_.identity.source_topic}, {"cleanup.policy"},
                                              std::chrono::seconds(5));
    kafka::kafka_result<kafka::topic_settings> source = co_await std::move(op);
    if (!source)
      out.source_error = source.error().message;
    else if (auto of_topic = source->find(plan_.identity.source_topic); of_topic != source->end())
      if (auto policy = of_topic->second.find("cleanup.policy"); policy != of_topic->second.end())
        out.source_cleanup_policy = policy->second;
  }
  // What the sink refuses of a record (a compacted sink a record without a
  // key, a CreateTime sink a timestamp outside its bounds), the broker
  // refuses with the record's whole batch: such a record is refused before
  // it is produced instead (engine/sink_rules.hpp), so the record is named.
  std::vector<std::string> topics = topics_written(plan_);
  if (plan_.identity.on_invalid == plan::on_invalid::dead_letter)
    topics.push_back(plan_.identity.dead_letter_topic);
  std::vector<std::string> keys = sink_rules::keys();
  keys.push_back("max.message.bytes");
  auto op = producer_->async_topic_settings(topics, keys, std::chrono::seconds(5));
  kafka::kafka_result<kafka::topic_settings> settings = co_await std::move(op);
  if (!settings) {
    STREAMT_LOG(log_, warning)
        << "could not read the configuration of the topics written (" << settings.error().message
        << "); a record a topic refuses (too large, without a key for a compacted topic, a timestamp "
           "out of its bounds) may be blamed on a valid neighbour in its batch (grant DescribeConfigs on "
           "the topics)";
    co_return out;
  }
  sink_rules_.clear();
  for (const std::string& topic : topics_written(plan_)) {
    const sink_rules& rules = sink_rules_.emplace_back(sink_rules::of(topic, (*settings)[topic]));
    // A compacted sink stops the run at the first record without a key:
    // that the operator learns at the start. The timestamp bounds are a
    // detail of the topic's configuration (a record they refuse gets a
    // line of its own).
    if (rules.compacted)
      STREAMT_LOG(log_, info) << "sink topic '" << topic << "': " << sink_rules::compacted_rule;
    if (rules.any())
      STREAMT_LOG(log_, debug) << "sink topic '" << topic << "': " << rules.describe()
                               << "; such a record is an invalid record, at its own offset";
  }
  sink_->rules(sink_rules_);
  std::optional<std::int64_t> cap;
  std::string capped_by;
  for (const auto& [topic, of_topic] : *settings) {
    auto limit = of_topic.find("max.message.bytes");
    if (limit == of_topic.end()) continue;
    const std::string& value = limit->second;
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc{} || end != value.data() + value.size() || v < 1) continue;
    if (!cap || v < *cap) {
      cap = v;
      capped_by = topic;
    }
  }
  std::int64_t batch_size = 1000000;  // librdkafka's default
  for (const kafka::setting& s : producer_settings_)
    if (s.key == "batch.size")
      (void)std::from_chars(s.value.data(), s.value.data() + s.value.size(), batch_size);
  if (!cap || batch_size <= *cap) co_return out;
  STREAMT_LOG(log_, info) << "batch.size " << batch_size << " capped to " << *cap
                          << ", the max.message.bytes of topic '" << capped_by
                          << "', so that a batch the topic refuses holds one record";
  producer_settings_.push_back({"batch.size", std::to_string(*cap)});
  out.refused = make_producer(producer_settings_);
  co_return out;
}

asio::awaitable<ss::transactions_initialised> runtime::init_transactions(std::chrono::milliseconds slice) {
  ss::transactions_initialised out;
  out.called = steady_clock::now();
  auto op = producer_->async_init_transactions(slice);
  out.result = failure_of(co_await std::move(op));
  out.now = steady_clock::now();
  co_return out;
}

// The plan log (session/claims.hpp): created if missing, read to its end,
// appended to; each for one slice (the session asks again).
asio::awaitable<ss::plan_log_created> runtime::create_plan_log(const ss::action& a) {
  ss::plan_log_created out;
  out.called = steady_clock::now();
  auto op = plan_log_->async_create(a.topic, a.slice);
  kafka::kafka_result<bool> created = co_await std::move(op);
  out.now = steady_clock::now();
  if (created)
    out.created = *created;
  else
    out.result = failure_of(created.error());
  co_return out;
}

asio::awaitable<ss::plan_log_read> runtime::read_plan_log(const ss::action& a) {
  ss::plan_log_read out;
  out.called = steady_clock::now();
  auto op = plan_log_->async_read(a.topic, ss::max_plan_log_records, !a.must_exist, a.slice);
  kafka::kafka_result<kafka::log_contents> log = co_await std::move(op);
  out.now = steady_clock::now();
  if (log) {
    out.end = log->end;
    out.log = log_of(std::move(log->records));
  } else
    out.error = failure_of(log.error());
  co_return out;
}

asio::awaitable<ss::claim_appended> runtime::append_claim(const ss::action& a) {
  ss::claim_appended out;
  out.called = steady_clock::now();
  auto op = plan_log_->async_append(a.topic, plan_.identity.application_id, a.claim, a.slice);
  kafka::kafka_result<std::int64_t> at = co_await std::move(op);
  out.now = steady_clock::now();
  if (at)
    out.at = *at;
  else
    out.error = failure_of(at.error());
  co_return out;
}

// Kafka admitted the start: the state directory is written, and what the run
// before this one left in it is said.
ss::state_committed runtime::commit_state() {
  plan_log_.reset();  // the claim stands: its thread is not needed again
  if (result<void> committed = state_->commit(); !committed) return {committed.error().message};
  report_previous_run();
  return {};
}

// The group joined: from here records come, and with them delivery reports.
ss::subscribed runtime::subscribe() {
  kafka::error_report e = consumer_->subscribe({plan_.identity.source_topic});
  if (!e.failed()) serve_delivery_reports();
  return {failure_of(e)};
}

}  // namespace streamt::engine::driver
