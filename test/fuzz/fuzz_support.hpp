// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Shared by the fuzz targets (fuzz_sql, fuzz_plan, fuzz_record, fuzz_values,
// fuzz_avro_schema) and by
// the regression replay test that runs the same target bodies in the normal
// build. A target body is an ordinary function: libFuzzer calls it through
// LLVMFuzzerTestOneInput (compiled only with STREAMT_LIBFUZZER), the replay
// test calls it for every file in corpus/<target>/ and regressions/<target>/.
//
// An invariant violation aborts: libFuzzer then saves the input as a crash,
// and under ctest the replay test fails loudly. Returning an error would let
// the fuzzer carry on past a logic bug without saving the input that shows it.

#include "plan/diagnostic.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace streamt::fuzz {

// SQL text against a fixed schema → compile(); accepted plans round-trip
// through write_plan/load_plan and to_sql/compile to the same digest.
void sql_one_input(std::string_view input);
// Plan JSON bytes → load_plan(); accepted plans serialise and re-load to the
// same digest, and compile back from to_sql(). A digest mismatch is repaired
// once so the loader's semantic checks are reached by mutated plans too.
void plan_one_input(std::string_view input);
// Record value bytes → the decode stage and the whole stage_pipeline of fixed
// plans; accepted records produce compact JSON that Boost.JSON parses back to
// the decoded values, and Boost.JSON's own verdict is cross-checked.
void record_one_input(std::string_view input);
// Two bytes choosing DECIMAL(p,s), then a text → parse_decimal and
// parse_timestamp; accepted values format and read back to themselves, and
// values formatted from the bytes read back too.
void values_one_input(std::string_view input);
// Avro schema text → parse_schema, canonical_form, to_columns; a canonical
// form parses and is a fixed point, and the mapping keeps a plan's bounds.
void avro_schema_one_input(std::string_view input);
// Avro body bytes → the Avro decoder of fixed writer and reader schemas;
// refusals carry a documented code, accepted values keep their types' bounds.
void avro_record_one_input(std::string_view input);

// Prints what broke (with the input, escaped and cut) and aborts.
[[noreturn]] void violated(std::string_view what, std::string_view input, std::string_view detail = {});

// A diagnostic must always tell the user something: a code, a message, and a
// phase from the expected set. Checked for every rejection of every target.
void check_diagnostic(const diagnostic& d, std::string_view input,
                      std::initializer_list<streamt::phase> phases);

}  // namespace streamt::fuzz
