// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// fuzz_plan: plan file bytes through the strict loader the engine runs first.
//
// Invariants beyond "no crash, no sanitizer report, no exception":
// - a rejection is a phase::plan diagnostic with a code, a message, and either
//   a JSON path ($...) or a line:column (malformed JSON) saying where;
// - an accepted plan serialises (write_plan) and loads back to an equal plan
//   with the same digest; its to_sql() form compiles, against its own schema
//   and identity, to that same plan; the stage pipeline builds from it (its definitions
//   throw on a plan that breaks the plan's invariants); an Avro sink's pinned
//   schema is the one the plan derives.
//
// Mutated plans almost never keep a matching digest, which would stop every
// input at the last check. A digest_mismatch is therefore repaired once (the
// recorded digest replaced by the one the loader computed) and the result
// must then load: that is also an invariant, since the loader has said the
// digest was the only problem.
#include "test/fuzz/fuzz_support.hpp"

#include "operators/avro_decode.hpp"
#include "operators/stage_pipeline.hpp"
#include "plan/avro_schema.hpp"
#include "plan/avro_sink.hpp"
#include "plan/plan_json.hpp"
#include "plan/sql/compile.hpp"

#include <cstdint>
#include <string>

namespace streamt::fuzz {

namespace {

void check_accepted(const plan::plan& p, std::string_view input) {
  const std::string file = plan::write_plan(p);
  auto reloaded = plan::load_plan(file);
  if (!reloaded) violated("an accepted plan does not load after write_plan", input, reloaded.error().message);
  if (!(*reloaded == p)) violated("an accepted plan loads back different after write_plan", input, file);
  if (plan::digest(*reloaded) != plan::digest(p)) violated("a reloaded plan has another digest", input, file);

  if (p.schema.avro) {
    // An Avro source's stages start from its decoder, built from the pinned
    // reader schema (here read as its own writer).
    auto reader = plan::avro::parse_schema(p.schema.avro->schema);
    if (!reader)
      violated("an accepted plan's pinned Avro schema does not parse", input, reader.error().message);
    auto decoder = operators::avro_decoder::build(p.schema, *reader, *reader, operators::avro_needs(p));
    if (!decoder) violated("an accepted Avro plan's decoder does not build", input, decoder.error().message);
  } else {
    operators::stage_pipeline pipeline(p);
    (void)pipeline;
  }

  if (p.sink.avro) {
    // An Avro sink's pinned schema is what the plan derives, and parses.
    auto pinned = plan::avro::pin_sink_schema(p);
    if (!pinned || !(*pinned == *p.sink.avro))
      violated("an accepted plan's Avro sink schema is not the one it derives", input, p.sink.avro->schema);
    if (!plan::avro::parse_schema(p.sink.avro->schema))
      violated("an accepted plan's Avro sink schema does not parse", input, p.sink.avro->schema);
  }

  const std::string sql = plan::to_sql(p);
  // The sink's format as the plan has it: compile's default follows the
  // source, and a plan may have chosen the other.
  plan::compile_options options{p.identity.application_id, p.identity.sink_topic};
  options.sink_format = p.sink.format;
  // A routed plan's choices for unrouted records and BIGINT keys, as
  // compile takes them (a key format only where the plan writes one).
  if (!p.unrouted_topic.empty()) options.unrouted_topic = p.unrouted_topic;
  if (plan::canonical_json(p).find("\"key_format\"") != std::string::npos) options.key_format = p.key_format;
  auto compiled = plan::compile(sql, p.schema, options);
  if (!compiled)
    violated("to_sql of an accepted plan does not compile", input, sql + " -> " + compiled.error().message);
  if (!(*compiled == p)) violated("to_sql of an accepted plan compiles to another plan", input, sql);
}

// "... the recorded digest sha256:<64> does not match the plan's content (sha256:<64>) ..."
bool digests_in(const std::string& message, std::string& recorded, std::string& actual) {
  constexpr std::string_view rec_marker = "the recorded digest ";
  constexpr std::string_view act_marker = "(sha256:";
  constexpr std::size_t digest_size = 7 + 64;
  auto r = message.find(rec_marker);
  auto a = message.find(act_marker);
  if (r == std::string::npos || a == std::string::npos) return false;
  recorded = message.substr(r + rec_marker.size(), digest_size);
  actual = message.substr(a + 1, digest_size);
  return recorded.size() == digest_size && actual.size() == digest_size;
}

}  // namespace

void plan_one_input(std::string_view input) {
  auto loaded = plan::load_plan(input);
  if (loaded) {
    check_accepted(*loaded, input);
    return;
  }
  const diagnostic& d = loaded.error();
  check_diagnostic(d, input, {phase::plan});
  if (d.path.empty() && (d.line == 0 || d.column == 0))
    violated("a plan diagnostic says neither where in the JSON nor at which line", input,
             d.code + ": " + d.message);
  if (!d.path.empty() && d.path[0] != '$')
    violated("a plan diagnostic path does not start at $", input, d.path);
  if (d.code != "digest_mismatch") return;

  std::string recorded, actual;
  if (!digests_in(d.message, recorded, actual))
    violated("a digest_mismatch message does not name both digests", input, d.message);
  // Repair only when the recorded digest is written once, plainly: if it also
  // appears elsewhere (a literal, say), replacing it could change the plan.
  const std::string quoted = "\"" + recorded + "\"";
  auto at = input.find(quoted);
  if (at == std::string_view::npos || input.find(quoted, at + 1) != std::string_view::npos) return;
  std::string repaired(input);
  repaired.replace(at + 1, recorded.size(), actual);
  auto again = plan::load_plan(repaired);
  if (!again)
    violated("a plan whose only problem was its digest does not load with the right one", input,
             again.error().code + ": " + again.error().message);
  if (plan::digest(*again) != actual)
    violated("the repaired plan's digest is not the one the loader computed", input);
  check_accepted(*again, repaired);
}

}  // namespace streamt::fuzz

#ifdef STREAMT_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  streamt::fuzz::plan_one_input(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
#endif
