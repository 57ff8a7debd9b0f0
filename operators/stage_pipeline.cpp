// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/stage_pipeline.hpp"

#include "operators/avro_decode.hpp"
#include "operators/registry_frame.hpp"
#include "plan/avro_schema.hpp"

#include <charconv>
#include <stdexcept>
#include <unordered_map>

namespace streamt::operators {

namespace {

// A changelog by key forwards its tombstones whatever the schema says of
// them: dropped, the deleted key's row would stay in the sink.
bool forwards_tombstones(const plan::schema& s) {
  return s.tombstones == plan::tombstones::forward || s.changelog == plan::changelog::upsert;
}

}  // namespace

// What an Avro source keeps: the plan's columns, its reader schema, what it
// reads, and per writer schema id a decoder or why there is none.
struct stage_pipeline::avro_source {
  plan::schema columns;
  plan::avro::schema reader;
  plan::avro::needs wanted;
  struct writer {
    std::optional<avro_decoder> decoder;
    diagnostic refusal;  // when there is no decoder
  };
  std::unordered_map<std::uint32_t, writer> writers;
};

stage_pipeline::route_stages::route_stages(const plan::schema& schema, const plan::route& r)
    : predicate(schema, r.predicate), project(schema, r.projection), encode(project) {
  // encode writes into `out` as a buffer of its current size: a typical
  // encoded record fits without growing on the first records.
  out.resize(256);
}

stage_pipeline::stage_pipeline(const plan::plan& p, std::size_t max_value_bytes)
    : decode_(p.schema, max_value_bytes),
      key_format_(p.key_format),
      routed_(plan::is_routed(p)),
      writes_unrouted_(plan::is_routed(p) && !p.unrouted_topic.empty()),
      row_(decode_.column_count()),
      forward_tombstones_(forwards_tombstones(p.schema)),
      upsert_(p.schema.changelog == plan::changelog::upsert),
      writes_avro_(p.sink.format == plan::sink_format::avro),
      json_registry_(p.schema.value_format == plan::value_format::json_registry) {
  // The compiler refuses these for a routed plan: one output per route
  // that takes a record, never a null value, and JSON on every sink.
  if (routed_ && (forward_tombstones_ || writes_avro_))
    throw std::invalid_argument(
        "stage_pipeline: a routed plan forwards no tombstone, reads no changelog and writes no Avro sink");
  const std::vector<plan::route> routes = plan::routes_of(p);
  const std::vector<plan::node> nodes = plan::flatten(p.schema);
  routes_.reserve(routes.size());
  for (std::size_t i = 0; i < routes.size(); ++i) {
    route_stages& r = routes_.emplace_back(p.schema, routes[i]);
    if (!routes[i].partition_by) continue;
    const std::size_t column = *routes[i].partition_by;
    if (column >= nodes.size())
      throw std::invalid_argument("PARTITION BY column index " + std::to_string(column) +
                                  " outside the schema");
    const plan::column& c = *nodes[column].column;
    if (c.type != plan::column_type::string && c.type != plan::column_type::bigint)
      throw std::invalid_argument("PARTITION BY column '" + c.name + "' is neither STRING nor BIGINT");
    r.key_slot = column;
    r.key_is_string = c.type == plan::column_type::string;
    r.null_key.phase = phase::record;
    r.null_key.code = "null_key";
    std::string name;
    for (const std::string& part : nodes[column].path) name += (name.empty() ? "" : ".") + part;
    r.null_key.message = "route '" + plan::route_name(routes, i) +
                         "' takes this record, and its key is column '" + name +
                         "' (PARTITION BY), which is null in it: an output needs a key there. Add '" + name +
                         " IS NOT NULL' to the route's WHERE, or send such records to a dead-letter topic " +
                         "(streamt compile --on-invalid dead-letter --dead-letter-topic T)";
  }
  outputs_.resize(routes_.size());
  one_plain_route_ = routes_.size() == 1 && !routes_.front().key_slot;
  if (writes_avro_) avro_encode_.emplace(routes_.front().project);
  if (p.schema.avro) {
    auto reader = plan::avro::parse_schema(p.schema.avro->schema);
    if (!reader)
      throw std::invalid_argument("stage_pipeline: the plan's pinned Avro schema: " + reader.error().message);
    avro_ = std::make_unique<avro_source>(avro_source{p.schema, std::move(*reader), avro_needs(p), {}});
  }
  missing_key_.phase = phase::record;
  missing_key_.code = "missing_key";
  missing_key_.message =
      "changelog upsert needs a key; this record has none (a row of the table is known by its key, so a "
      "record without one can neither set nor delete a row). Give the source's records keys, or declare "
      "\"changelog\": \"append\" in the schema to treat the topic as a stream";
}

stage_pipeline::~stage_pipeline() = default;
stage_pipeline::stage_pipeline(stage_pipeline&&) noexcept = default;

const diagnostic* stage_pipeline::learn_schema(std::uint32_t id, std::string_view writer_schema,
                                               std::string_view schema_type) {
  if (!avro_) throw std::logic_error("stage_pipeline::learn_schema: the plan's source is not Avro");
  if (avro_->writers.size() >= max_writer_schemas) avro_->writers.clear();
  avro_source::writer& w = avro_->writers[id];
  w.decoder.reset();
  auto refuse = [&](const diagnostic& why) {
    w.refusal = why;
    w.refusal.phase = phase::record;
    w.refusal.code = "schema_incompatible";
    w.refusal.message =
        "the writer schema " + std::to_string(id) + " " +
        (why.code == "schema_incompatible" ? "cannot be read as the plan's: " + why.path + ": "
                                           : "is not a valid Avro schema: " + why.path + ": ") +
        why.message;
    return &w.refusal;
  };
  if (schema_type != "AVRO") {
    // Its text would not parse as Avro either, but the parser's words would
    // hide what is wrong: the record came from another serializer.
    w.refusal = diagnostic{};
    w.refusal.phase = phase::record;
    w.refusal.code = "schema_incompatible";
    w.refusal.message =
        "the writer schema " + std::to_string(id) + " is a " + std::string(schema_type) +
        " schema in the Schema Registry, not an Avro one: the plan reads Avro values (was the "
        "record written with another serializer, or does the topic mix formats?)";
    return &w.refusal;
  }
  auto parsed = plan::avro::parse_schema(writer_schema);
  if (!parsed) return refuse(parsed.error());
  auto decoder = avro_decoder::build(avro_->columns, avro_->reader, *parsed, avro_->wanted);
  if (!decoder) return refuse(decoder.error());
  w.decoder.emplace(std::move(*decoder));
  return nullptr;
}

void stage_pipeline::sink_schema_id(std::uint32_t id) {
  if (!writes_avro_) throw std::logic_error("stage_pipeline::sink_schema_id: the plan's sink is not Avro");
  // Id 0 is what read_registry_frame refuses as no id at all: a reader of
  // the sink would refuse every value framed with it.
  if (id == 0) throw std::invalid_argument("stage_pipeline::sink_schema_id: schema id 0 is not an id");
  sink_schema_id_ = id;
}

void stage_pipeline::unknown_schema(std::uint32_t id) {
  if (!avro_) throw std::logic_error("stage_pipeline::unknown_schema: the plan's source is not Avro");
  if (avro_->writers.size() >= max_writer_schemas) avro_->writers.clear();
  avro_source::writer& w = avro_->writers[id];
  w.decoder.reset();
  w.refusal = diagnostic{};
  w.refusal.phase = phase::record;
  w.refusal.code = "unknown_schema_id";
  w.refusal.message = "the value's writer schema id " + std::to_string(id) +
                      " is not in the Schema Registry (was the record written against another registry?)";
}

void stage_pipeline::forget_schema(std::uint32_t id) {
  if (!avro_) throw std::logic_error("stage_pipeline::forget_schema: the plan's source is not Avro");
  avro_->writers.erase(id);
}

step stage_pipeline::process(const record_metadata& meta, std::optional<std::string_view> value) {
  // Checked first: a keyless tombstone of an upsert deletes nothing either.
  if (upsert_ && !meta.key) return {outcome::invalid, {}, &missing_key_, 0, {}};
  // Predicates are not evaluated for a tombstone: there is no value.
  if (!value)
    return {forward_tombstones_ ? outcome::forward_tombstone : outcome::tombstone, {}, nullptr, 0, {}};
  if (avro_) {
    const std::optional<registry_frame> frame = read_registry_frame(*value, error_);
    if (!frame) return {outcome::invalid, {}, &error_, 0, {}};
    const auto w = avro_->writers.find(frame->schema_id);
    if (w == avro_->writers.end()) return {outcome::needs_schema, {}, nullptr, frame->schema_id, {}};
    if (!w->second.decoder) return {outcome::invalid, {}, &w->second.refusal, 0, {}};
    if (!w->second.decoder->decode(frame->body, row_, error_)) return {outcome::invalid, {}, &error_, 0, {}};
  } else if (json_registry_) {
    // The schema id is not looked up: the plan's schema decides what is read.
    const std::optional<registry_frame> frame = read_registry_frame(*value, error_, framed_body::json);
    if (!frame) return {outcome::invalid, {}, &error_, 0, {}};
    if (!decode(decode_, decode_state_, frame->body, row_, error_)) {
      // decode's own words would call the whole value empty.
      if (frame->body.empty())
        error_.message = "the value is a frame (a zero byte, then schema id " +
                         std::to_string(frame->schema_id) + ") with no JSON after it";
      return {outcome::invalid, {}, &error_, 0, {}};
    }
  } else if (!decode(decode_, decode_state_, *value, row_, error_)) {
    // decode refuses an empty value itself (empty_value): it is not a tombstone.
    return {outcome::invalid, {}, &error_, 0, {}};
  }
  if (reads_metadata() && !decode_metadata(decode_, meta, row_, error_))
    return {outcome::invalid, {}, &error_, 0, {}};
  if (writes_avro_) {
    // One route (the constructor refuses an Avro sink on a routed plan).
    if (!evaluate(routes_.front().predicate, row_))
      return {upsert_ ? outcome::delete_key : outcome::filtered, {}, nullptr, 0, {}};
    if (!sink_schema_id_)
      throw std::logic_error(
          "stage_pipeline::process: the plan's sink is Avro and its schema id is not set (sink_schema_id)");
    // In place: the frame, then the body; out_ keeps its capacity, so the
    // steady state allocates nothing.
    out_.clear();
    append_registry_frame(out_, *sink_schema_id_);
    append_avro_body(*avro_encode_, row_, out_);
    outputs_.front() = {0, out_, std::nullopt};
    return {outcome::emitted, out_, nullptr, 0, std::span(outputs_.data(), 1)};
  }
  if (one_plain_route_) {
    // A single SELECT (or one route without PARTITION BY): the loop below
    // for one route, without its bookkeeping, which a bare copy's per-record
    // cost would notice (bench/stage_pipeline.cpp). outputs_[0]'s route and
    // key were set once at construction.
    route_stages& r = routes_.front();
    if (!evaluate(r.predicate, row_))
      return {upsert_ ? outcome::delete_key : outcome::filtered, {}, nullptr, 0, {}};
    const std::string_view value = encode(r.encode, row_, r.out);
    outputs_.front().value = value;
    return {outcome::emitted, value, nullptr, 0, std::span(outputs_.data(), 1)};
  }
  std::size_t taken = 0;
  for (std::size_t i = 0; i < routes_.size(); ++i) {
    route_stages& r = routes_[i];
    if (!evaluate(r.predicate, row_)) continue;
    // The key before the value: a record whose key is missing writes
    // nothing on any route, so it is not worth encoding.
    std::optional<std::string_view> key;
    if (r.key_slot) {
      const slot& k = row_.slots[*r.key_slot];
      if (k.is_null) return {outcome::invalid, {}, &r.null_key, 0, {}};
      key = key_of(r, k);
    }
    outputs_[taken++] = {static_cast<std::uint32_t>(i), encode(r.encode, row_, r.out), key};
  }
  // In a changelog, a row that no longer passes must leave the result: an
  // earlier version of it may have passed and be in the sink under its key.
  if (taken == 0) return {upsert_ ? outcome::delete_key : outcome::filtered, {}, nullptr, 0, {}};
  return {outcome::emitted, *outputs_.front().value, nullptr, 0, std::span(outputs_.data(), taken)};
}

std::optional<std::string_view> stage_pipeline::key_of(route_stages& r, const slot& s) const noexcept {
  if (r.key_is_string) return s.string;
  if (key_format_ == plan::key_format::long_) {
    // Kafka's LongSerializer: the two's complement value, big-endian.
    const auto v = static_cast<std::uint64_t>(s.bigint);
    for (int i = 0; i < 8; ++i) r.key[i] = static_cast<char>(v >> (56 - 8 * i));
    return std::string_view(r.key, 8);
  }
  const auto [end, ec] = std::to_chars(r.key, r.key + sizeof r.key, s.bigint);
  (void)ec;  // 24 bytes hold any int64's digits and sign
  return std::string_view(r.key, static_cast<std::size_t>(end - r.key));
}

}  // namespace streamt::operators
