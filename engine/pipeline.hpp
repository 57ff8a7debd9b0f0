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
#include <optional>
#include <span>
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

struct run_result {
  record_counts counts;
  std::optional<invalid_record> invalid;  // the pipeline stopped at this record
  std::optional<diagnostic> failure;      // the source or sink failed
};

// Completes on the caller's executor. Cancellation: between batches, through
// the source's and sink's own awaitables. On error: reported in the result,
// never thrown.
template <batch_source Source, flushing_sink Sink>
boost::asio::awaitable<run_result> run_pipeline(Source source, Sink sink, operators::stage_pipeline stages) {
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
    batch_result r = process_batch(*batch, stages, sink, out.counts);
    if (result<void> flushed = co_await sink.async_flush(); !flushed) {
      out.failure = std::move(flushed.error());
      co_return out;
    }
    if (r.invalid) {
      out.invalid = std::move(r.invalid);
      co_return out;
    }
  }
  co_return out;
}

}  // namespace streamt::engine
