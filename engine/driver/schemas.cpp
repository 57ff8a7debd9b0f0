// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The Schema Registry's side of a run that reads Avro: the client, made at
// start-up, and the two actions the session asks of it (fetch a writer
// schema by id; give it to the stages). What a failed fetch means for the
// run is the session's (engine/session/session_schemas.cpp): here a failure
// is only translated, once, from kafka/registry's verdict to the session's
// answer.

#include "engine/driver/runtime.hpp"

#include "plan/avro_schema.hpp"

#include <string>
#include <utility>

namespace streamt::engine::driver {

namespace {

namespace reg = kafka::registry;

ss::schema_answer answer_of(const reg::failure& f) noexcept {
  switch (f.verdict()) {
    case reg::verdict::retry:
      return ss::schema_answer::unavailable;
    case reg::verdict::record:
      return ss::schema_answer::unknown_id;
    case reg::verdict::stop:
      return ss::schema_answer::cancelled;
    case reg::verdict::settings:
      return ss::schema_answer::misconfigured;
    case reg::verdict::refused:
      return ss::schema_answer::refused;
  }
  return ss::schema_answer::misconfigured;
}

}  // namespace

// At start-up (prepare): the client for a plan that reads Avro; the reason
// the run cannot start, if it cannot. No request is sent yet.
std::optional<std::string> runtime::make_registry_client() {
  const bool avro_sink = plan_.sink.avro.has_value();
  if (!stages_.reads_avro() && !avro_sink) return std::nullopt;
  if (!options_.schema_registry)
    return stages_.reads_avro()
               ? "the plan's source is Avro in the Confluent wire format, whose writer schemas come from a "
                 "Schema Registry: give its address (streamt run --schema-registry URL; "
                 "run_options::schema_registry)"
               : "the plan's sink is Avro in the Confluent wire format, whose schema is registered with a "
                 "Schema Registry: give its address (streamt run --schema-registry URL; "
                 "run_options::schema_registry)";
  reg::result<std::unique_ptr<reg::client>> c = reg::client::make(ex_, *options_.schema_registry);
  if (!c) return c.error().message;
  registry_ = std::move(*c);
  STREAMT_LOG(log_, info) << "schema registry: " << options_.schema_registry->to_string();
  return std::nullopt;
}

asio::awaitable<ss::action> runtime::fetch_schema(ss::action a) {
  auto op = registry_->schema_by_id(a.schema_id);
  reg::result<reg::schema> s = co_await std::move(op);
  metrics_->registry_requests(registry_->stats().requests);
  ss::schema_answered e;
  e.id = a.schema_id;
  e.now = steady_clock::now();
  e.jitter = std::uniform_real_distribution<double>(0.0, 1.0)(jitter_);
  if (!s) {
    e.answer = answer_of(s.error());
    e.message = s.error().message;
  } else {
    // A JSON Schema or Protobuf schema under an Avro record's id: the stages
    // refuse it for that id, naming its type (schema_incompatible).
    e.answer = ss::schema_answer::found;
    e.text = std::move(s->text);
    e.type = std::string(reg::to_string(s->type));
  }
  ss::action next = session_.on(std::move(e));
  report_registry_wait();
  co_return next;
}

// learn_schema and forget_schema: what the stages know of an id changes.
ss::action runtime::learn_schema(const ss::action& a) {
  if (a.kind == ss::act::forget_schema) {
    stages_.forget_schema(a.schema_id);
  } else if (!a.schema_known) {
    stages_.unknown_schema(a.schema_id);
  } else if (const diagnostic* refused = stages_.learn_schema(a.schema_id, a.schema_text, a.schema_type)) {
    // Kept by the stages for the id: each record written with it is invalid
    // for this reason (failed or dead-lettered as the plan says).
    STREAMT_LOG(log_, warning) << "writer schema id " << a.schema_id
                               << " cannot be read with the plan's schema: " << refused->message;
  }
  ss::action next = session_.on(ss::schema_learnt{});
  report_registry_wait();
  return next;
}

// The start-up's register_schema step: the plan's sink schema registered
// under its subject (an identical one answers its id), or, when not
// register_new, found among the subject's versions by its canonical form.
// The id is given to the stages, which frame every output with it.
asio::awaitable<ss::action> runtime::register_sink_schema(ss::action a) {
  ss::sink_schema_registered e;
  e.called = steady_clock::now();
  const plan::avro_sink& sink = *plan_.sink.avro;
  auto failed = [&](const reg::failure& f) {
    e.answer = answer_of(f);
    e.message = f.message;
  };
  std::optional<std::int64_t> id;
  if (a.register_new) {
    auto op = registry_->register_schema(a.subject, sink.schema);
    reg::result<std::int64_t> r = co_await std::move(op);
    if (r)
      id = *r;
    else
      failed(r.error());
  } else {
    auto op = registry_->subject_versions(a.subject);
    reg::result<std::vector<std::int64_t>> versions = co_await std::move(op);
    if (!versions) failed(versions.error());
    for (std::size_t i = 0; versions && i < versions->size() && !id && e.message.empty(); ++i) {
      auto get = registry_->subject_version(a.subject, (*versions)[i]);
      reg::result<reg::subject_schema> v = co_await std::move(get);
      if (!v) {
        failed(v.error());
      } else if (result<plan::avro::schema> s = plan::avro::parse_schema(v->schema.text);
                 s && plan::avro::canonical_form(*s) == sink.canonical_form) {
        id = v->id;
      }
    }
    if (!id && e.message.empty()) {
      e.answer = ss::schema_answer::refused;
      e.message = "none of its " + std::to_string(versions ? versions->size() : 0) +
                  " version(s) has the canonical form " + sink.fingerprint;
    }
  }
  metrics_->registry_requests(registry_->stats().requests);
  if (id && (*id < 0 || *id > std::int64_t{UINT32_MAX})) {
    e.answer = ss::schema_answer::misconfigured;
    e.message = "the registry answered schema id " + std::to_string(*id) +
                ", which the Confluent wire format's 4 bytes cannot hold";
    id.reset();
  }
  if (id) {
    e.id = static_cast<std::uint32_t>(*id);
    stages_.sink_schema_id(*e.id);
  }
  e.now = steady_clock::now();
  e.jitter = std::uniform_real_distribution<double>(0.0, 1.0)(jitter_);
  co_return session_.on(std::move(e));
}

void runtime::report_registry_wait() {
  if (std::optional<ss::registry_wait> w = session_.waiting_for_registry())
    metrics_->registry_waiting("writer schema id " + std::to_string(w->schema_id) + ": " + w->reason);
  else
    metrics_->registry_answered();
}

}  // namespace streamt::engine::driver
