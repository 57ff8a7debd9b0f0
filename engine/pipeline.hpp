// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The pipeline loop for a source that ends (offline replay): await a batch,
// run it through the stages, await the sink's flush, repeat. It stops at the
// end of input, at the first invalid record (after flushing everything
// before it), or at the first source or sink error.
//
// The Kafka runtime adds the transaction around each batch; it reuses
// process_batch(), so records take the same path either way.

#include "engine/process_batch.hpp"
#include "engine/record.hpp"
#include "operators/stage_pipeline.hpp"
#include "plan/diagnostic.hpp"

#include <boost/asio/awaitable.hpp>

#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

namespace streamt::engine {

// A source that can be exhausted: an empty batch means end of input. The
// views stay valid until the next call.
template <class S>
concept batch_source = requires(S& s) {
  { s.async_next_batch() } -> std::same_as<boost::asio::awaitable<result<std::span<const record_view>>>>;
};

// A sink whose writes become final at a flush.
template <class S>
concept flushing_sink = record_sink<S> && requires(S& s) {
  { s.async_flush() } -> std::same_as<boost::asio::awaitable<result<void>>>;
};

// Teaches `stages` the writer schema with `id` (learn_schema or
// unknown_schema), for a record of an Avro source that needs it; a
// diagnostic when it cannot be had, which ends the run (a failure).
using schema_learner = std::function<result<void>(operators::stage_pipeline& stages, std::uint32_t id)>;

// A schema registered under an id: its text, and its type as the registry
// names it (AVRO, JSON, PROTOBUF; the stages refuse all but AVRO by name).
struct registered_schema {
  std::string text;
  std::string type = "AVRO";
};

// Where the writer schemas of an Avro source come from: the schema
// registered under `id`; nullopt when the registry has none with it (its
// records are invalid: unknown_schema_id); a diagnostic when it cannot be
// had, which ends the run.
using writer_schema_source = std::function<result<std::optional<registered_schema>>(std::uint32_t id)>;

// The learner that teaches the stages what `fetch` answers. A schema the
// stages refuse is kept by them for its id: its records are invalid
// (schema_incompatible).
inline schema_learner learn_from(writer_schema_source fetch) {
  return [fetch = std::move(fetch)](operators::stage_pipeline& stages, std::uint32_t id) -> result<void> {
    result<std::optional<registered_schema>> schema = fetch(id);
    if (!schema) return std::move(schema.error());
    if (!*schema)
      stages.unknown_schema(id);
    else
      stages.learn_schema(id, (*schema)->text, (*schema)->type);
    return {};
  };
}

struct run_result {
  record_counts counts;
  std::optional<invalid_record> invalid;  // the pipeline stopped at this record
  std::optional<diagnostic> failure;      // the source or sink failed
};

// Completes on the caller's executor. Cancellation: between batches, through
// the source's and sink's own awaitables. On error: reported in the result,
// never thrown.
// A record that needs a writer schema (an Avro source) waits for `learn`
// and is then processed again from the start, as in `run`; without `learn`
// such a record is a logic error (std::logic_error).
template <batch_source Source, flushing_sink Sink>
boost::asio::awaitable<run_result> run_pipeline(Source source, Sink sink, operators::stage_pipeline stages,
                                                schema_learner learn = {}) {
  run_result out;
  for (;;) {
    result<std::span<const record_view>> batch = co_await source.async_next_batch();
    if (!batch) {
      // Whatever was emitted before a broken input line is still written:
      // the user sees every output up to the point of failure.
      if (result<void> flushed = co_await sink.async_flush(); !flushed) out.failure = flushed.error();
      if (!out.failure) out.failure = std::move(batch.error());
      co_return out;
    }
    if (batch->empty()) break;
    std::span<const record_view> rest = *batch;
    batch_result r = process_batch(rest, stages, sink, out.counts);
    for (; r.needs_schema; r = process_batch(rest, stages, sink, out.counts)) {
      if (!learn)
        throw std::logic_error("run_pipeline: a record needs a writer schema, and nothing learns one");
      rest = rest.subspan(r.handled);
      if (result<void> learnt = learn(stages, *r.needs_schema); !learnt) {
        out.failure = std::move(learnt.error());
        break;
      }
    }
    if (result<void> flushed = co_await sink.async_flush(); !flushed) {
      out.failure = std::move(flushed.error());
      co_return out;
    }
    if (out.failure) co_return out;
    if (r.invalid) {
      out.invalid = std::move(r.invalid);
      co_return out;
    }
  }
  co_return out;
}

}  // namespace streamt::engine
