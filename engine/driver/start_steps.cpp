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

#include <algorithm>
#include <charconv>
#include <map>

namespace streamt::engine::driver {

namespace {

// The plan log is read whole at every start: it grows by one claim per plan
// change (and per instance that lost a race), so a million is far beyond any
// fleet's history, and about 300 MB of claims at most.
constexpr std::size_t max_plan_log_records = 1000000;

ss::prepared refused(ss::start_refusal why, std::string message) {
  ss::prepared p;
  p.refused = why;
  p.message = std::move(message);
  return p;
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
  STREAMT_LOG(log_, info) << "starting " << plan_.identity.application_id << ": "
                          << plan_.identity.source_topic << " -> " << plan_.identity.sink_topic << ", plan "
                          << plan::digest(plan_) << ", transactional id " << txn_id_ << ", librdkafka "
                          << kafka::library_version() << ", state directory " << options_.state_dir
                          << (state_->first_run() ? " (new instance)" : "")
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
  // instances with one would fence each other's consumers.
  auto consumer = kafka::consumer::create(ex_, plan_.identity.application_id,
                                          options_.static_membership ? txn_id_ : std::string(), settings_);
  if (!consumer) return refused(ss::start_refusal::settings, consumer.error().message);
  consumer_ = std::move(*consumer);
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
  sink_.emplace(*producer_, plan_.identity.sink_topic, session_.sink(), plan_.identity.dead_letter_topic,
                plan::digest(plan_), options_.lineage_header);
  sink_->rules(sink_rules_);
  return {};
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
asio::awaitable<ss::batches_capped> runtime::cap_batches() {
  // What the sink refuses of a record (a compacted sink a record without a
  // key, a CreateTime sink a timestamp outside its bounds), the broker
  // refuses with the record's whole batch: such a record is refused before
  // it is produced instead (engine/sink_rules.hpp), so the record is named.
  std::vector<std::string> topics{plan_.identity.sink_topic};
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
    co_return ss::batches_capped{};
  }
  sink_rules_ = sink_rules::of(plan_.identity.sink_topic, (*settings)[plan_.identity.sink_topic]);
  sink_->rules(sink_rules_);
  if (sink_rules_.any())
    STREAMT_LOG(log_, info) << "sink topic '" << plan_.identity.sink_topic << "': " << sink_rules_.describe()
                            << "; such a record is an invalid record, at its own offset";
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
  if (!cap || batch_size <= *cap) co_return ss::batches_capped{};
  STREAMT_LOG(log_, info) << "batch.size " << batch_size << " capped to " << *cap
                          << ", the max.message.bytes of topic '" << capped_by
                          << "', so that a batch the topic refuses holds one record";
  producer_settings_.push_back({"batch.size", std::to_string(*cap)});
  co_return ss::batches_capped{make_producer(producer_settings_)};
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
// appended to; each within --connect-timeout-ms.
asio::awaitable<ss::plan_log_created> runtime::create_plan_log(const ss::action& a) {
  auto op = producer_->async_create_log_topic(a.topic, options_.connect_timeout);
  kafka::error_report e = co_await std::move(op);
  co_return ss::plan_log_created{failure_of(e)};
}

asio::awaitable<ss::plan_log_read> runtime::read_plan_log(const ss::action& a) {
  auto op = producer_->async_read_log(options_.bootstrap_servers, settings_, a.topic, max_plan_log_records,
                                      !a.must_exist, options_.connect_timeout);
  kafka::kafka_result<kafka::log_contents> log = co_await std::move(op);
  ss::plan_log_read out;
  if (log) {
    out.end = log->end;
    out.log = log_of(std::move(log->records));
  } else
    out.error = failure_of(log.error());
  co_return out;
}

asio::awaitable<ss::claim_appended> runtime::append_claim(const ss::action& a) {
  auto op = producer_->async_append_log(options_.bootstrap_servers, settings_, a.topic,
                                        plan_.identity.application_id, a.claim, options_.connect_timeout);
  kafka::kafka_result<std::int64_t> at = co_await std::move(op);
  ss::claim_appended out;
  if (at)
    out.at = *at;
  else
    out.error = failure_of(at.error());
  co_return out;
}

// Kafka admitted the start: the state directory is written, and what the run
// before this one left in it is said.
ss::state_committed runtime::commit_state() {
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
