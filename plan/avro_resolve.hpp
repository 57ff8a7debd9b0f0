// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Avro schema resolution: how a datum written with the writer's schema is
// read as the reader's (the plan's pinned schema), by the specification's
// rules: record fields matched by name or the reader's aliases, fields the
// writer lacks taken from the reader's defaults, fields the reader lacks
// skipped, int → long → float → double and string ↔ bytes promoted, enum
// symbols matched by name, unions resolved branch by branch.
//
// Resolution is computed once per writer schema (once per registry id) and
// the decoder is compiled from it; nothing here runs per record. It is
// limited to what the plan reads: a field the plan never reads may change
// type or disappear without making the writer incompatible.
//
// Stricter than the specification where it would change a value silently:
// a timestamp's unit must agree (millis read as micros is off by 1000), and
// a decimal's scale must agree and the writer's precision fit the reader's.
// Some problems only show in a datum: a writer's union branch or enum symbol
// the reader cannot take is an error of the record that holds one (the step
// says why), not of the schema.

#include "plan/avro_schema.hpp"
#include "plan/diagnostic.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace streamt::plan::avro {

enum class step_kind : std::uint8_t {
  skip,          // move past a writer datum of type `writer` (the reader does not want it)
  read,          // a primitive of the writer's kind read as the reader's (promoted if they differ)
  record,        // `fields`, in the writer's order; `defaulted` from the reader's defaults
  enum_,         // the writer's symbol index, mapped by `symbols`
  fixed,         // `size` bytes
  array,         // blocks of `child`
  map,           // blocks of a string key and `child`
  writer_union,  // the writer's branch index, then `branches[i]`
  reader_union,  // a writer datum that is the reader's branch `branch`: `child`
  unresolvable,  // a datum the reader cannot take (`why`); met, the record is invalid
};

inline constexpr std::size_t no_step = static_cast<std::size_t>(-1);

struct field_step {
  std::size_t step = no_step;    // how to read the writer's field
  std::size_t reader_field = 0;  // its field in the reader's record (unused when the step skips)
};

struct step {
  step_kind kind = step_kind::skip;
  std::size_t writer = 0;              // type index in the writer's schema
  std::size_t reader = 0;              // type index in the reader's schema (unused by skip)
  std::vector<field_step> fields;      // record
  std::vector<std::size_t> defaulted;  // record: reader fields the writer lacks
  std::vector<std::int32_t> symbols;   // enum: reader index per writer symbol, -1 if none
  std::vector<std::size_t> branches;   // writer_union: one step per writer branch
  std::size_t child = no_step;         // array and map items, reader_union's datum
  std::size_t branch = 0;              // reader_union: the reader's branch index
  std::string why;                     // unresolvable; enum: why a symbol is unknown
};

struct resolution {
  std::vector<step> steps;  // steps[0] reads the writer's root as the reader's
};

// How much of a reader field the plan reads, by its path of reader field
// names from the root: nothing, some of its fields (a ROW the plan reads
// into), or all of it (a column, a projected ROW, a JSON column).
enum class need : std::uint8_t { none, part, whole };
using needs = std::function<need(const std::vector<std::string>& reader_path)>;

// Every reader field is needed whole: the check a registry's compatibility
// rule makes, and what a plan that projects every column needs.
need everything(const std::vector<std::string>&);

// How `writer`'s data are read as `reader`'s, or a `schema_incompatible`
// diagnostic whose path is the reader field's (`$.after.amount`) and whose
// message names both types and what would make them agree.
result<resolution> resolve(const schema& writer, const schema& reader, const needs& wanted);

}  // namespace streamt::plan::avro
