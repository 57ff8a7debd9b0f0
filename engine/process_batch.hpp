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
#include <vector>

namespace streamt::engine {

// What a sink must offer to the per-record path: accept one output record
// for an input record (`out`: its route, so its sink topic; its value, or
// nullopt for a null value, a tombstone; its key, or nullopt for the input's
// key), and, for a routed plan with an unrouted topic, take a record no
// route took, to write it there unchanged. It must not fail synchronously; a
// sink that can fail (Kafka delivery) reports it when the driver awaits its
// flush.
template <class S>
concept record_sink = requires(S& s, const record_view& in, const operators::route_output& out) {
  { s.emit(in, out) } -> std::same_as<void>;
  { s.unrouted(in) } -> std::same_as<void>;
};

// Each record handled is counted once in emitted, filtered, tombstones or
// dead_lettered, whatever the plan writes for it, so those add up to
// consumed under every plan:
//   consumed = emitted + filtered + tombstones + dead_lettered.
// What the sink got besides the emitted values is counted within them:
// tombstones_forwarded of tombstones, deleted of filtered. A record taken by
// several routes is one emitted record and one output value per route:
// route_outputs[i] counts route i's values (plan::routes_of order; null
// values are counted as above, not here), each at most
// emitted and together at least emitted (equal for a single SELECT, whose
// one route writes one output per emitted record). Under a routed plan the
// filtered records are those no route took, each either dropped or written
// to the unrouted topic:
//   filtered = unrouted_dropped + unrouted_written (routed plans; 0 = 0 else).
struct record_counts {
  std::uint64_t consumed = 0;              // records handled, whatever their outcome
  std::uint64_t emitted = 0;               // output values written to the sink
  std::uint64_t filtered = 0;              // records the predicate did not pass
  std::uint64_t tombstones = 0;            // input records with a null value
  std::uint64_t tombstones_forwarded = 0;  // of those, written to the sink (null value, same key)
  std::uint64_t deleted = 0;        // of the filtered, written as a tombstone of their key (changelog upsert)
  std::uint64_t dead_lettered = 0;  // invalid records written to the dead-letter topic
  std::uint64_t unrouted_dropped = 0;          // routed plans: of the filtered, dropped
  std::uint64_t unrouted_written = 0;          // routed plans: of the filtered, written to the unrouted topic
  std::vector<std::uint64_t> route_outputs{};  // outputs per route; sized by the first batch
  bool routed = false;                         // counted under a routed plan (plan::is_routed)

  record_counts& operator+=(const record_counts& o) {
    if (route_outputs.size() < o.route_outputs.size()) route_outputs.resize(o.route_outputs.size());
    for (std::size_t i = 0; i < o.route_outputs.size(); ++i) route_outputs[i] += o.route_outputs[i];
    routed = routed || o.routed;
    unrouted_dropped += o.unrouted_dropped;
    unrouted_written += o.unrouted_written;
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

// A routed plan's words after the counts: what no route took, and each
// route's outputs under its route_name, or its number from 1 when the names
// are not given ("; unrouted: 3 dropped, 0 written; routes: big 5, eu 2").
inline std::string route_count_text(const record_counts& c, const std::vector<std::string>& route_names) {
  std::string s = "; unrouted: " + std::to_string(c.unrouted_dropped) + " dropped, " +
                  std::to_string(c.unrouted_written) + " written; routes:";
  for (std::size_t i = 0; i < c.route_outputs.size(); ++i)
    s += (i == 0 ? " " : ", ") + (i < route_names.size() ? route_names[i] : "#" + std::to_string(i + 1)) +
         " " + std::to_string(c.route_outputs[i]);
  return s;
}

// Each route's plan::route_name for a routed plan's count lines; empty for
// a single SELECT.
inline std::vector<std::string> route_names(const plan::plan& p) {
  std::vector<std::string> names;
  if (!plan::is_routed(p)) return names;
  for (std::size_t i = 0; i < p.routes.size(); ++i) names.push_back(plan::route_name(p.routes, i));
  return names;
}

// "2 consumed, 1 emitted, 1 filtered, 0 tombstones", and the dead-lettered
// records of a plan that dead-letters: the text of every line that counts.
// A plan without a dead-letter topic never dead-letters, and its lines stay
// shorter without a count that is always 0. A routed plan's lines go on
// with route_count_text; a single SELECT's keep their words.
inline std::string count_text(const record_counts& c, bool dead_letters,
                              const std::vector<std::string>& route_names = {}) {
  std::string s = std::to_string(c.consumed) + " consumed, " + std::to_string(c.emitted) + " emitted, " +
                  filtered_and_tombstones(c);
  if (dead_letters) s += ", " + std::to_string(c.dead_lettered) + " dead-lettered";
  if (c.routed) s += route_count_text(c, route_names);
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
  if (counts.route_outputs.size() < stages.route_count()) counts.route_outputs.resize(stages.route_count());
  counts.routed = stages.routed();
  // A null value of the input's key: forwarded tombstones and deleted keys
  // exist only for a single SELECT, whose one route is 0.
  constexpr operators::route_output null_value{0, std::nullopt, std::nullopt};
  for (const record_view& in : batch) {
    const operators::step s = run_stages(stages, in);
    switch (s.outcome) {
      case operators::outcome::emitted:
        // Every output of the record at once: the stages checked them all.
        for (const operators::route_output& out : s.outputs) {
          sink.emit(in, out);
          ++counts.route_outputs[out.route];
        }
        ++counts.emitted;
        break;
      case operators::outcome::filtered:
        ++counts.filtered;
        if (stages.writes_unrouted()) {
          sink.unrouted(in);
          ++counts.unrouted_written;
        } else if (stages.routed()) {
          ++counts.unrouted_dropped;
        }
        break;
      case operators::outcome::tombstone:
        ++counts.tombstones;
        break;
      case operators::outcome::forward_tombstone:
        sink.emit(in, null_value);
        ++counts.tombstones;
        ++counts.tombstones_forwarded;
        break;
      case operators::outcome::delete_key:
        sink.emit(in, null_value);
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
