// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The four stages composed for one record value: decode → predicate →
// project → encode. This is the one path every record follows, whether it
// arrives from `streamt replay` or from Kafka (engine/ drives both).
//
// A plan is a list of routes (plan::routes_of: a single SELECT is one). A
// record is decoded once, into one row every route reads; then each route in
// the order written tests its predicate on that row and, if it passes,
// writes its projection and its key. A record's outputs are handed out
// together once every route has been tried, so a record one route finds
// invalid (a null PARTITION BY column) has none: it is written whole or not
// at all.
//
// It is synchronous on purpose: no stage waits for anything, so none is a
// coroutine and no frame is allocated per record. One stage_pipeline belongs
// to one pipeline (one strand); it is not thread-safe and need not be.

#include "operators/avro_encode.hpp"
#include "operators/decode.hpp"
#include "operators/encode.hpp"
#include "operators/predicate.hpp"
#include "operators/project.hpp"
#include "operators/row.hpp"
#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::operators {

// What the sink gets of one record. forward_tombstone and delete_key both
// write a null value under the record's key; they differ in why, which the
// counts keep apart.
enum class outcome {
  emitted,            // `output` holds the encoded value (for an Avro sink, framed with its schema id)
  filtered,           // the predicate was false or unknown
  tombstone,          // the input value was null: dropped, its offset still advances
  forward_tombstone,  // the input value was null and the plan forwards it (a null value, same key)
  delete_key,         // changelog upsert: the predicate was false or unknown, so the key's row
                      //   leaves the result (a tombstone of its key)
  invalid,            // `error` says why (phase::record); the pipeline must stop here
  needs_schema,       // an Avro source: the value's writer schema (`schema_id`) is not known yet;
                      //   learn_schema (or unknown_schema) it and process the same record again
};

// What one route writes of a record that passes its predicate.
struct route_output {
  std::uint32_t route = 0;  // index into plan::routes_of(plan)
  // The encoded value; nullopt for a null value (a tombstone of the key),
  // which only the engine makes (forward_tombstone, delete_key).
  std::optional<std::string_view> value;
  // The output's key when the route has PARTITION BY (the column's value as
  // plan::key_format says); nullopt: the input's key passes unchanged.
  std::optional<std::string_view> key;
};

struct step {
  operators::outcome outcome = outcome::filtered;
  // Valid until the next call to process(); points into the pipeline's
  // buffer. The first output's value: a single-SELECT plan's one output.
  std::string_view output;
  // Valid until the next call to process(); set only for outcome::invalid.
  const diagnostic* error = nullptr;
  std::uint32_t schema_id = 0;  // outcome::needs_schema
  // outcome::emitted: one per route that took the record, in route order
  // (at least one). Valid until the next call to process(); views into the
  // pipeline's buffers, which keep their capacity, so the steady state
  // allocates nothing.
  std::span<const route_output> outputs;
};

class stage_pipeline {
 public:
  // `max_value_bytes` bounds each record value (see decode.hpp).
  explicit stage_pipeline(const plan::plan& p, std::size_t max_value_bytes = max_record_value_bytes);
  ~stage_pipeline();
  stage_pipeline(stage_pipeline&&) noexcept;

  // `value` is the record's value bytes, or nullopt for a tombstone. An empty
  // value (zero bytes) is not a tombstone: it is invalid. `meta` gives the
  // record's key (a changelog upsert needs one) and what a version 2 schema
  // takes from its headers, timestamp, partition or offset.
  step process(const record_metadata& meta, std::optional<std::string_view> value);
  // For a caller without metadata: `has_key` says whether the record has a
  // key (not null), and the key's bytes are empty.
  step process(std::optional<std::string_view> value, bool has_key = true) {
    record_metadata meta;
    if (has_key) meta.key = std::string_view();
    return process(meta, value);
  }

  // How many routes the plan has (plan::routes_of): 1 for a single SELECT.
  std::size_t route_count() const noexcept { return routes_.size(); }
  // A plan written as INSERT INTO routes (plan::is_routed), and whether it
  // writes the records no route takes to its unrouted topic.
  bool routed() const noexcept { return routed_; }
  bool writes_unrouted() const noexcept { return writes_unrouted_; }

  // True if the plan has columns from the record's metadata.
  bool reads_metadata() const noexcept { return !decode_.metadata_columns().empty(); }

  // An Avro source (plan::schema::avro): each value is framed with its
  // writer schema's id (registry_frame.hpp), and a decoder is built once per
  // id from that writer schema's text, resolved to the plan's pinned reader
  // schema for what the plan reads. Until an id is learnt, a record that
  // carries it is outcome::needs_schema (nothing else is done with it).
  // learn_schema refuses a schema that does not parse or resolve, and one
  // the registry names as another type than AVRO (`schema_type`, its
  // schemaType: JSON, PROTOBUF): the refusal is kept, and every record with
  // that id is invalid with it (schema_incompatible, naming the field or
  // the type). unknown_schema records that the registry has no schema with
  // `id` (unknown_schema_id). At most max_writer_schemas ids are kept;
  // learning one more forgets the others, which are fetched again when met.
  bool reads_avro() const noexcept { return avro_ != nullptr; }
  const diagnostic* learn_schema(std::uint32_t id, std::string_view writer_schema,
                                 std::string_view schema_type = "AVRO");
  void unknown_schema(std::uint32_t id);
  // Forgets what was learnt of `id` (a schema, a refusal, or that the
  // registry has none): the next record with it is outcome::needs_schema.
  void forget_schema(std::uint32_t id);
  static constexpr std::size_t max_writer_schemas = 1000;

  // An Avro sink (plan::sink_format::avro): each output is the Avro body of
  // the plan's pinned sink schema (plan::sink.avro), framed with the id the
  // registry gave that schema (a zero byte, the id in 4 big-endian bytes).
  // The id is known only once the run has registered the schema, so the
  // caller sets it before the first record; processing a record that would
  // be emitted before it is set is a logic error (std::logic_error), never a
  // value framed with a made-up id. Setting it again (a re-registration)
  // frames the outputs after it with the new id. Id 0 is refused
  // (std::invalid_argument): readers take it for no id at all; so is an id
  // for a plan whose sink is JSON (std::logic_error).
  bool writes_avro() const noexcept { return writes_avro_; }
  void sink_schema_id(std::uint32_t id);
  std::optional<std::uint32_t> sink_schema_id() const noexcept { return sink_schema_id_; }

 private:
  struct avro_source;
  // One route's stages and the buffers its output lives in until the next
  // record.
  struct route_stages {
    route_stages(const plan::schema& schema, const plan::route& r);
    predicate_definition predicate;
    project_definition project;
    encode_definition encode;
    std::optional<std::size_t> key_slot;  // PARTITION BY
    bool key_is_string = false;           // else BIGINT
    std::string out;
    char key[24] = {};  // a BIGINT key: 8 bytes, or up to 20 digits and a sign
    diagnostic null_key;
  };
  std::optional<std::string_view> key_of(route_stages& r, const slot& s) const noexcept;
  decode_definition decode_;
  std::vector<route_stages> routes_;
  std::vector<route_output> outputs_;                  // one per route, written in place
  std::optional<avro_encode_definition> avro_encode_;  // an Avro sink (single SELECT only)
  plan::key_format key_format_ = plan::key_format::string;
  bool routed_ = false;
  bool writes_unrouted_ = false;
  bool one_plain_route_ = false;  // one route, no PARTITION BY: process's short case
  decode_state decode_state_;
  row row_;
  std::string out_;  // an Avro sink's framed output
  diagnostic error_;
  bool forward_tombstones_ = false;
  bool upsert_ = false;
  diagnostic missing_key_;
  std::unique_ptr<avro_source> avro_;
  bool writes_avro_ = false;
  std::optional<std::uint32_t> sink_schema_id_;
  // plan::value_format::json_registry: each value's frame is checked and
  // stripped before the JSON is decoded.
  bool json_registry_ = false;
};

}  // namespace streamt::operators
