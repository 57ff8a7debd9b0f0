// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The Avro schema of a plan's output, derived from its projection: one
// field per output column, in output order, named by the output name.
//
//   BIGINT → long              DOUBLE → double      BOOLEAN → boolean
//   STRING → string            TIMESTAMP → long (timestamp-millis)
//   DECIMAL(p,s) → bytes (decimal(p,s))
//   JSON → string (the value's compact JSON text)
//   ROW → a record of its fields, named <parent>_<field>
//   a nullable column → ["null", T] with default null (a field of a
//   nullable ROW projected on its own too: it is null when the ROW is)
//
// The record is `streamt.<sink topic>` with every character outside
// [A-Za-z0-9_] made '_'. Output names must be Avro names
// ([A-Za-z_][A-Za-z0-9_]*); another is refused with the name and an alias
// to write instead.

#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"

#include <string>
#include <string_view>

namespace streamt::plan::avro {

// The schema's JSON text (compact, members in a fixed order), or a
// diagnostic (phase::bind, code invalid_avro_name).
result<std::string> sink_schema(const plan& p);

// The subject a topic's values are registered under: "<topic>-value", the
// registry's default (topic name) strategy, so that the registry's own
// tools and other clients find it. An Avro sink's schema is registered
// there; compile and check look for a source's schema there.
std::string value_subject(std::string_view topic);

// What a plan with an Avro sink pins (plan::avro_sink): sink_schema(p), its
// Parsing Canonical Form and fingerprint, and value_subject of its sink
// topic. `streamt compile` writes it; the plan loader recomputes it and
// refuses a plan that pins anything else.
result<avro_sink> pin_sink_schema(const plan& p);

}  // namespace streamt::plan::avro
