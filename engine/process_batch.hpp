// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The one path every record follows through the stages, shared by every
// driver (offline replay, Kafka). A driver hands it a batch of record views
// and a sink; it runs the synchronous stage pipeline over each record in
// order and stops at the first invalid record, reporting how many records
// before it were fully handled. That count is what a driver may commit:
// the invalid record's own offset is never passed, so the committed offset
// of its partition equals the invalid record's offset (contract §5).

#include "engine/record.hpp"
#include "operators/stage_pipeline.hpp"
#include "plan/diagnostic.hpp"

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace streamt::engine {

// What a sink must offer to the per-record path: accept one output record
// for an input record, with `value` its value or nullopt for a null value
// (a tombstone of the input's key). It must not fail synchronously; a sink
// that can fail (Kafka delivery) reports it when the driver awaits its flush.
template <class S>
concept record_sink = requires(S& s, const record_view& in, std::optional<std::string_view> value) {
  { s.emit(in, value) } -> std::same_as<void>;
};

// Each record handled is counted once in emitted, filtered, tombstones or
// dead_lettered, whatever the plan writes for it, so those add up to
// consumed under every plan. What the sink got besides the emitted values
// is counted within them: tombstones_forwarded of tombstones, deleted of
// filtered.
struct record_counts {
  std::uint64_t consumed = 0;              // records handled, whatever their outcome
  std::uint64_t emitted = 0;               // output values written to the sink
  std::uint64_t filtered = 0;              // records the predicate did not pass
  std::uint64_t tombstones = 0;            // input records with a null value
  std::uint64_t tombstones_forwarded = 0;  // of those, written to the sink (null value, same key)
  std::uint64_t deleted = 0;        // of the filtered, written as a tombstone of their key (changelog upsert)
  std::uint64_t dead_lettered = 0;  // invalid records written to the dead-letter topic

  record_counts& operator+=(const record_counts& o) noexcept {
    dead_lettered += o.dead_lettered;
    consumed += o.consumed;
    emitted += o.emitted;
    filtered += o.filtered;
    tombstones += o.tombstones;
    tombstones_forwarded += o.tombstones_forwarded;
    deleted += o.deleted;
    return *this;
  }
};

// "3 filtered, 2 tombstones", and what of them went to the sink as null
// values when any did ("3 filtered (2 deleted), 2 tombstones (2
// forwarded)"), for the lines that report counts: a plan that writes no
// null value keeps the words it had.
inline std::string filtered_and_tombstones(const record_counts& c) {
  std::string s = std::to_string(c.filtered) + " filtered";
  if (c.deleted != 0) s += " (" + std::to_string(c.deleted) + " deleted)";
  s += ", " + std::to_string(c.tombstones) + " tombstones";
  if (c.tombstones_forwarded != 0) s += " (" + std::to_string(c.tombstones_forwarded) + " forwarded)";
  return s;
}

// "2 consumed, 1 emitted, 1 filtered, 0 tombstones", and the dead-lettered
// records of a plan that dead-letters: the text of every line that counts.
// A plan without a dead-letter topic never dead-letters, and its lines stay
// shorter without a count that is always 0.
inline std::string count_text(const record_counts& c, bool dead_letters) {
  std::string s = std::to_string(c.consumed) + " consumed, " + std::to_string(c.emitted) + " emitted, " +
                  filtered_and_tombstones(c);
  if (dead_letters) s += ", " + std::to_string(c.dead_lettered) + " dead-lettered";
  return s;
}

// The first invalid record: where it is and why. The diagnostic comes from
// the decode stage (phase::record).
struct invalid_record {
  std::string topic;
  std::int32_t partition = 0;
  std::int64_t offset = 0;
  diagnostic error;

  // "orders/0@9: column 'amount' expects BIGINT, found a string at byte 17"
  std::string describe() const { return position(topic, partition, offset) + ": " + error.message; }
};

struct batch_result {
  std::size_t handled = 0;                // records of the batch before the invalid one
  std::optional<invalid_record> invalid;  // set if the batch stopped early
  // Set if the batch stopped at a record of an Avro source whose writer
  // schema is not known yet (operators::outcome::needs_schema): once learnt,
  // the record is processed again from the start.
  std::optional<std::uint32_t> needs_schema;
};

// What the stages read of a record besides its value, for plans with
// columns from its key, headers, timestamp, partition or offset.
inline operators::record_metadata metadata_of(const record_view& in) noexcept {
  return {
      in.key, in.timestamp, in.partition, in.offset, &in, [](const void* record, const std::string& name) {
        return kafka::last_header_value(*static_cast<const record_view*>(record), name);
      }};
}

// The stages' step for one record. Its metadata is views and a function:
// headers are read only if the plan has a header column.
inline operators::step run_stages(operators::stage_pipeline& stages, const record_view& in) {
  return stages.process(metadata_of(in), in.value);
}

template <record_sink Sink>
batch_result process_batch(std::span<const record_view> batch, operators::stage_pipeline& stages, Sink& sink,
                           record_counts& counts) {
  batch_result result;
  for (const record_view& in : batch) {
    const operators::step s = run_stages(stages, in);
    switch (s.outcome) {
      case operators::outcome::emitted:
        sink.emit(in, s.output);
        ++counts.emitted;
        break;
      case operators::outcome::filtered:
        ++counts.filtered;
        break;
      case operators::outcome::tombstone:
        ++counts.tombstones;
        break;
      case operators::outcome::forward_tombstone:
        sink.emit(in, std::nullopt);
        ++counts.tombstones;
        ++counts.tombstones_forwarded;
        break;
      case operators::outcome::delete_key:
        sink.emit(in, std::nullopt);
        ++counts.filtered;
        ++counts.deleted;
        break;
      case operators::outcome::invalid:
        result.invalid = invalid_record{std::string(in.topic), in.partition, in.offset, *s.error};
        return result;
      case operators::outcome::needs_schema:
        result.needs_schema = s.schema_id;
        return result;
    }
    ++counts.consumed;
    ++result.handled;
  }
  return result;
}

}  // namespace streamt::engine
