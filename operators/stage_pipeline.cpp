// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/stage_pipeline.hpp"

#include <stdexcept>

namespace streamt::operators {

namespace {

// A changelog by key forwards its tombstones whatever the schema says of
// them: dropped, the deleted key's row would stay in the sink.
bool forwards_tombstones(const plan::schema& s) {
  return s.tombstones == plan::tombstones::forward || s.changelog == plan::changelog::upsert;
}

}  // namespace

stage_pipeline::stage_pipeline(const plan::plan& p, std::size_t max_value_bytes)
    : decode_(p.schema, max_value_bytes),
      predicate_(p),
      project_(p),
      encode_(project_),
      row_(decode_.column_count()),
      forward_tombstones_(forwards_tombstones(p.schema)),
      upsert_(p.schema.changelog == plan::changelog::upsert) {
  // Its decode stage reads JSON values; an Avro source's are read by an
  // avro_decoder per writer schema, which the engine does not drive yet.
  if (p.schema.avro)
    throw std::invalid_argument("stage_pipeline: the plan's source is Avro; this pipeline reads JSON values");
  missing_key_.phase = phase::record;
  missing_key_.code = "missing_key";
  missing_key_.message =
      "changelog upsert needs a key; this record has none (a row of the table is known by its key, so a "
      "record without one can neither set nor delete a row). Give the source's records keys, or declare "
      "\"changelog\": \"append\" in the schema to treat the topic as a stream";
  // encode writes into out_ as a buffer of its current size: a typical
  // encoded record fits without growing on the first records.
  out_.resize(256);
}

step stage_pipeline::process(const record_metadata& meta, std::optional<std::string_view> value) {
  // Checked first: a keyless tombstone of an upsert deletes nothing either.
  if (upsert_ && !meta.key) return {outcome::invalid, {}, &missing_key_};
  // Predicates are not evaluated for a tombstone: there is no value.
  if (!value) return {forward_tombstones_ ? outcome::forward_tombstone : outcome::tombstone, {}, nullptr};
  // decode refuses an empty value itself (empty_value): it is not a tombstone.
  if (!decode(decode_, decode_state_, *value, row_, error_)) return {outcome::invalid, {}, &error_};
  if (reads_metadata() && !decode_metadata(decode_, meta, row_, error_))
    return {outcome::invalid, {}, &error_};
  // In a changelog, a row that no longer passes must leave the result: an
  // earlier version of it may have passed and be in the sink under its key.
  if (!evaluate(predicate_, row_)) return {upsert_ ? outcome::delete_key : outcome::filtered, {}, nullptr};
  return {outcome::emitted, encode(encode_, row_, out_), nullptr};
}

}  // namespace streamt::operators
