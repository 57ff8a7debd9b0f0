// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/stage_pipeline.hpp"

namespace streamt::operators {

stage_pipeline::stage_pipeline(const plan::plan& p, std::size_t max_value_bytes)
    : decode_(p.schema, max_value_bytes),
      predicate_(p),
      project_(p),
      encode_(project_),
      row_(decode_.column_count()) {
  // encode writes into out_ as a buffer of its current size: a typical
  // encoded record fits without growing on the first records.
  out_.resize(256);
}

step stage_pipeline::process(const record_metadata& meta, std::optional<std::string_view> value) {
  if (!value) return {outcome::tombstone, {}, nullptr};
  // decode refuses an empty value itself (empty_value): it is not a tombstone.
  if (!decode(decode_, decode_state_, *value, row_, error_)) return {outcome::invalid, {}, &error_};
  if (reads_metadata() && !decode_metadata(decode_, meta, row_, error_))
    return {outcome::invalid, {}, &error_};
  if (!evaluate(predicate_, row_)) return {outcome::filtered, {}, nullptr};
  return {outcome::emitted, encode(encode_, row_, out_), nullptr};
}

}  // namespace streamt::operators
