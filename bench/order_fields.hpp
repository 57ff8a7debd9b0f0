// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The note and flag values of the benchmarks' generated orders, shared by
// bench_stage_pipeline (in memory) and bench/compare's loader (on a topic),
// so both measure the same mix: plain, escaped (\n, \t, \", \u2014), raw
// UTF-8 and null notes; true, false and null flags. Already JSON-encoded.

namespace streamt::bench {

inline constexpr const char* order_notes[] = {
    "\"leave at the front desk and ask for Maria at reception\"",
    "\"gift wrap please; the card says: happy birthday, Sam!\"",
    "\"deliver after 6pm \\u2014 ring twice, the bell is broken\"",
    "\"fragile: glassware inside, keep upright, do not stack\"",
    "\"caf\xc3\xa9 order for the second floor, door B, near lift\"",
    "\"line one\\nline two\\tindented, then a \\\"quote\\\"\"",
    "null",
};

inline constexpr const char* order_flags[] = {"true", "false", "null"};

}  // namespace streamt::bench
