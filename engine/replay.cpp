// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/replay.hpp"

#include "engine/pipeline.hpp"
#include "kafka/registry/base64.hpp"
#include "operators/encode.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/parser.hpp>

#include <exception>
#include <limits>
#include <stdexcept>

namespace streamt::engine {
namespace json = boost::json;

namespace {

diagnostic envelope_error(std::size_t line_number, std::string what) {
  diagnostic d;
  d.phase = phase::record;
  d.code = "malformed_envelope";
  d.message = "input line " + std::to_string(line_number) + ": " + std::move(what);
  return d;
}

std::optional<std::string_view> optional_string(const json::value& v) {
  if (v.is_null()) return std::nullopt;
  const json::string& s = v.get_string();
  return std::string_view(s.data(), s.size());
}

// Reads kcat's header forms into `out`; false if the shape is wrong.
bool read_headers(const json::value& v, std::vector<header_view>& out) {
  auto value_of = [](const json::value& x, std::optional<std::string_view>& dest) {
    if (x.is_null()) return dest = std::nullopt, true;
    if (!x.is_string()) return false;
    dest = std::string_view(x.get_string().data(), x.get_string().size());
    return true;
  };
  if (const json::array* flat = v.if_array()) {
    if (flat->size() % 2 != 0) return false;
    for (std::size_t i = 0; i < flat->size(); i += 2) {
      if (!(*flat)[i].is_string()) return false;
      header_view h;
      h.name = std::string_view((*flat)[i].get_string().data(), (*flat)[i].get_string().size());
      if (!value_of((*flat)[i + 1], h.value)) return false;
      out.push_back(h);
    }
    return true;
  }
  if (const json::object* map = v.if_object()) {
    for (const json::key_value_pair& kv : *map) {
      const std::string_view name(kv.key().data(), kv.key().size());
      if (const json::array* values = kv.value().if_array()) {
        for (const json::value& x : *values) {
          header_view h{name, std::nullopt};
          if (!value_of(x, h.value)) return false;
          out.push_back(h);
        }
      } else {
        header_view h{name, std::nullopt};
        if (!value_of(kv.value(), h.value)) return false;
        out.push_back(h);
      }
    }
    return true;
  }
  return false;
}

// Boost.JSON's DOM keeps one of two members with the same key, so an
// envelope with two "payload"s would silently replay the last. This handler
// runs first, over the same bytes, and finds a repeated top-level key; it
// builds nothing (the DOM parse after it does).
class repeated_key_finder {
 public:
  static constexpr std::size_t max_object_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_array_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_key_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_string_size = std::numeric_limits<std::size_t>::max();

  const std::optional<std::string>& repeated() const noexcept { return repeated_; }

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_object_begin(json::error_code&) { return ++depth_, true; }
  bool on_object_end(std::size_t, json::error_code&) { return --depth_, true; }
  bool on_array_begin(json::error_code&) { return ++depth_, true; }
  bool on_array_end(std::size_t, json::error_code&) { return --depth_, true; }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    if (depth_ == 1) part_.append(s.data(), s.size());
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code& ec) {
    if (depth_ != 1) return true;
    part_.append(s.data(), s.size());
    std::string key = std::move(part_);
    part_.clear();
    for (const std::string& k : keys_)
      if (k == key) {
        repeated_ = std::move(key);
        ec = json::error::exception;  // stop: the answer is known
        return false;
      }
    keys_.push_back(std::move(key));
    return true;
  }
  bool on_string_part(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_string(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t, json::string_view, json::error_code&) { return true; }
  bool on_uint64(std::uint64_t, json::string_view, json::error_code&) { return true; }
  bool on_double(double, json::string_view, json::error_code&) { return true; }
  bool on_bool(bool, json::error_code&) { return true; }
  bool on_null(json::error_code&) { return true; }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

 private:
  int depth_ = 0;
  std::string part_;
  std::vector<std::string> keys_;  // an envelope has a handful
  std::optional<std::string> repeated_;
};

// The encode stage's escaping, so replay writes strings exactly as it does.
void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  operators::append_escaped(out, s);
  out += '"';
}

}  // namespace

result<void> parse_envelope(std::string_view line, std::size_t line_number, std::string_view default_topic,
                            std::map<std::int32_t, std::int64_t>& last_offset, parsed_envelope& out) {
  if (line.size() > max_envelope_line_bytes)
    return envelope_error(line_number,
                          "line longer than " + std::to_string(max_envelope_line_bytes) + " bytes");
  json::parse_options options;
  // kcat writes key and payload bytes as they are; binary keys are legal in
  // Kafka. The payload is checked for UTF-8 by the decode stage instead.
  options.allow_invalid_utf8 = true;
  {
    json::basic_parser<repeated_key_finder> finder(options);
    boost::system::error_code finder_ec;
    finder.write_some(false, line.data(), line.size(), finder_ec);
    if (const std::optional<std::string>& key = finder.handler().repeated())
      return envelope_error(line_number, "member \"" + *key +
                                             "\" appears twice; an envelope holds each member once (which "
                                             "one was meant is unknown)");
  }
  json::parser parser(json::storage_ptr(), options);
  boost::system::error_code ec;
  // json::parser::write takes one complete document: trailing data is an error.
  parser.write(line.data(), line.size(), ec);
  if (ec) return envelope_error(line_number, "not a JSON object (" + ec.message() + ")");
  out.doc = parser.release();
  out.headers.clear();
  out.view = record_view{};
  const json::object* obj = out.doc.if_object();
  if (!obj) return envelope_error(line_number, "an envelope must be a JSON object");

  bool has_payload = false;
  std::optional<std::int32_t> partition;
  std::optional<std::int64_t> offset;
  out.view.topic = default_topic;
  for (const json::key_value_pair& kv : *obj) {
    const std::string_view key(kv.key().data(), kv.key().size());
    const json::value& v = kv.value();
    if (key == "topic") {
      if (!v.is_string()) return envelope_error(line_number, "\"topic\" must be a string");
      out.view.topic = std::string_view(v.get_string().data(), v.get_string().size());
      // A record of another topic is not this plan's input: replaying it
      // would show outputs the plan can never produce.
      if (out.view.topic != default_topic)
        return envelope_error(
            line_number, "\"topic\" is '" + std::string(out.view.topic) + "', not the plan's source topic '" +
                             std::string(default_topic) + "'; replay the records of the source topic");
    } else if (key == "partition") {
      if (!v.is_int64() || v.get_int64() < 0 || v.get_int64() > std::numeric_limits<std::int32_t>::max())
        return envelope_error(line_number, "\"partition\" must be a non-negative 32-bit integer");
      partition = static_cast<std::int32_t>(v.get_int64());
    } else if (key == "offset") {
      if (!v.is_int64() || v.get_int64() < 0)
        return envelope_error(line_number, "\"offset\" must be a non-negative integer");
      offset = v.get_int64();
    } else if (key == "ts") {
      if (!v.is_int64()) return envelope_error(line_number, "\"ts\" must be an integer (milliseconds)");
      out.view.timestamp = v.get_int64();
    } else if (key == "key") {
      if (!v.is_null() && !v.is_string())
        return envelope_error(line_number, "\"key\" must be a string or null");
      out.view.key = optional_string(v);
    } else if (key == "payload" || key == "payload_base64") {
      if (has_payload)
        return envelope_error(line_number,
                              "both \"payload\" and \"payload_base64\"; an envelope gives its value once");
      if (!v.is_null() && !v.is_string())
        return envelope_error(
            line_number,
            "\"" + std::string(key) + "\" must be a string (the record value) or null (a tombstone)");
      out.view.value = optional_string(v);
      has_payload = true;
      if (key == "payload_base64" && out.view.value) {
        // A registry-framed value starts with a zero byte and is binary:
        // base64 carries it through JSON unchanged.
        if (auto bad = kafka::registry::base64_decode(*out.view.value, out.payload_bytes))
          return envelope_error(line_number, "\"payload_base64\" is not base64 at character " +
                                                 std::to_string(bad->position + 1) + ": " + bad->what);
        out.view.value = out.payload_bytes;
      }
    } else if (key == "headers") {
      if (!read_headers(v, out.headers))
        return envelope_error(
            line_number,
            "\"headers\" must be [name, value, ...] or {name: value} with string or null values");
    } else if (key == "tstype" || key == "broker" || key == "key_schema_id" || key == "value_schema_id") {
      // Informational members kcat writes; they do not affect processing.
    } else if (key == "source") {
      // Replay's own output names the record it came from: informational,
      // so that one replay's output is the next plan's input as it is.
      const json::object* src = v.if_object();
      if (!src || src->size() != 3 || !src->contains("topic") || !(*src).at("topic").is_string() ||
          !src->contains("partition") || !(*src).at("partition").is_int64() || !src->contains("offset") ||
          !(*src).at("offset").is_int64())
        return envelope_error(
            line_number,
            "\"source\" must be {\"topic\": string, \"partition\": integer, \"offset\": integer}, "
            "as replay writes it");
    } else {
      return envelope_error(line_number,
                            "unknown member \"" + std::string(key) +
                                "\" (an envelope has topic, partition, offset, ts, key, payload or "
                                "payload_base64, headers; replay's output adds source)");
    }
  }
  if (!has_payload)
    return envelope_error(
        line_number, "missing \"payload\" (use null for a tombstone; \"payload_base64\" for binary bytes)");
  out.view.partition = partition.value_or(0);
  // A partition's offsets increase, as Kafka hands them out: an envelope
  // without one takes the next after the last, and a given one must be past
  // it (a file with offsets out of order is not what a topic holds).
  const auto last = last_offset.find(out.view.partition);
  const std::string where = "partition " + std::to_string(out.view.partition);
  if (offset) {
    if (last != last_offset.end() && *offset <= last->second)
      return envelope_error(line_number, "\"offset\" " + std::to_string(*offset) + " of " + where +
                                             " is not after the offset before it (" +
                                             std::to_string(last->second) +
                                             "); a partition's offsets increase");
    out.view.offset = *offset;
  } else if (last == last_offset.end()) {
    out.view.offset = 0;
  } else if (last->second == std::numeric_limits<std::int64_t>::max()) {
    return envelope_error(line_number, "no offset follows " + std::to_string(last->second) + " in " + where +
                                           "; give this envelope its \"offset\"");
  } else {
    out.view.offset = last->second + 1;
  }
  last_offset[out.view.partition] = out.view.offset;
  out.view.headers = std::span<const header_view>(out.headers);
  return {};
}

envelope_source::envelope_source(std::istream& in, std::string default_topic, std::size_t batch_size)
    : in_(&in), default_topic_(std::move(default_topic)), batch_size_(batch_size == 0 ? 1 : batch_size) {
  // Views point into these; they are sized once so they never reallocate.
  parsed_.resize(batch_size_);
  views_.reserve(batch_size_);
}

// One line into line_, without its newline, stopping one byte past the
// bound: the check is made while reading, not after a whole line was held.
envelope_source::line_read envelope_source::read_line() {
  line_.clear();
  if (ended_) return line_read::end;
  std::streambuf* buffer = in_->rdbuf();
  for (;;) {
    const int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      ended_ = true;
      return line_.empty() ? line_read::end : line_read::line;
    }
    if (c == '\n') return line_read::line;
    if (line_.size() == max_envelope_line_bytes) return line_read::too_long;
    line_.push_back(static_cast<char>(c));
  }
}

boost::asio::awaitable<result<std::span<const record_view>>> envelope_source::async_next_batch() {
  views_.clear();
  if (pending_error_) {
    diagnostic d = std::move(*pending_error_);
    pending_error_.reset();
    co_return d;
  }
  while (views_.size() < batch_size_) {
    const line_read got = read_line();
    if (got == line_read::end) break;
    ++line_number_;
    if (got == line_read::too_long) {
      // The rest of the input is not read: one line without an end (such
      // as /dev/zero) must not grow the buffer past the bound.
      diagnostic d =
          envelope_error(line_number_, "line longer than " + std::to_string(max_envelope_line_bytes) +
                                           " bytes (the limit of one envelope)");
      ended_ = true;
      if (views_.empty()) co_return d;
      pending_error_ = std::move(d);
      break;
    }
    std::string_view line(line_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;  // blank lines separate nothing
    parsed_envelope& slot = parsed_[views_.size()];
    if (result<void> r = parse_envelope(line, line_number_, default_topic_, next_offset_, slot); !r) {
      // The records before a broken line are good input: hand them out
      // first and report the broken line on the next call, so their outputs
      // are written as they would be had the line come in a later batch.
      if (views_.empty()) co_return std::move(r.error());
      pending_error_ = std::move(r.error());
      break;
    }
    views_.push_back(slot.view);
  }
  if (in_->bad()) {
    diagnostic d;
    d.phase = phase::record;
    d.code = "read_failed";
    d.message = "reading the input failed after line " + std::to_string(line_number_);
    co_return d;
  }
  co_return std::span<const record_view>(views_);
}

envelope_sink::envelope_sink(std::ostream& out, std::string sink_topic, bool binary_payload)
    : envelope_sink(out, std::vector<std::string>{std::move(sink_topic)}, std::string(), binary_payload) {}

envelope_sink::envelope_sink(std::ostream& out, std::vector<std::string> route_topics,
                             std::string unrouted_topic, bool binary_payload)
    : out_(&out),
      route_topics_(std::move(route_topics)),
      unrouted_topic_(std::move(unrouted_topic)),
      binary_payload_(binary_payload) {}

void envelope_sink::emit(const record_view& in, const operators::route_output& output) {
  line(in, route_topics_.at(output.route), output.key ? output.key : in.key, output.value, nullptr);
}

void envelope_sink::unrouted(const record_view& in) {
  // As the Kafka sink writes it, less what only a run knows (the digest).
  static const header_view reason{"streamt.reason", "unrouted"};
  line(in, unrouted_topic_, in.key, in.value, &reason);
}

void envelope_sink::line(const record_view& in, std::string_view topic, std::optional<std::string_view> key,
                         std::optional<std::string_view> value, const header_view* extra) {
  buffer_ += "{\"topic\":";
  append_json_string(buffer_, topic);
  buffer_ += ",\"key\":";
  if (key)
    append_json_string(buffer_, *key);
  else
    buffer_ += "null";
  if (!binary_payload_) {
    buffer_ += ",\"payload\":";
    if (value)
      append_json_string(buffer_, *value);
    else
      buffer_ += "null";
  } else {
    buffer_ += ",\"payload_base64\":";
    buffer_ += value ? '"' + kafka::registry::base64_encode(*value) + '"' : std::string("null");
  }
  if (in.timestamp) {
    buffer_ += ",\"ts\":";
    buffer_ += std::to_string(*in.timestamp);
  }
  if (!in.headers.empty() || extra) {
    buffer_ += ",\"headers\":[";
    bool first = true;
    const std::span<const header_view> last = extra ? std::span(extra, 1) : std::span<const header_view>();
    for (const std::span<const header_view> some : {in.headers, last})
      for (const header_view& h : some) {
        if (!first) buffer_ += ',';
        first = false;
        append_json_string(buffer_, h.name);
        buffer_ += ',';
        if (h.value)
          append_json_string(buffer_, *h.value);
        else
          buffer_ += "null";
      }
    buffer_ += ']';
  }
  buffer_ += ",\"source\":{\"topic\":";
  append_json_string(buffer_, in.topic);
  buffer_ +=
      ",\"partition\":" + std::to_string(in.partition) + ",\"offset\":" + std::to_string(in.offset) + "}}\n";
}

boost::asio::awaitable<result<void>> envelope_sink::async_flush() {
  out_->write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  out_->flush();
  buffer_.clear();
  if (!*out_) {
    diagnostic d;
    d.phase = phase::record;
    d.code = "write_failed";
    d.message = "writing the output failed";
    co_return d;
  }
  co_return result<void>{};
}

namespace {

std::vector<std::string> route_topics(const plan::plan& p) {
  std::vector<std::string> topics;
  for (const plan::route& r : plan::routes_of(p)) topics.push_back(r.sink_topic);
  return topics;
}

}  // namespace

run_result replay(const plan::plan& p, std::istream& in, std::ostream& out, const replay_registry* registry) {
  operators::stage_pipeline stages(p);
  const bool avro = stages.reads_avro() || stages.writes_avro();
  if (avro && !registry)
    throw std::invalid_argument(
        "streamt::engine::replay: the plan reads or writes Avro in the Confluent wire format, whose schemas "
        "are in a Schema Registry: give replay_registry");
  if (stages.writes_avro()) {
    if (!registry->sink_schema_id)
      throw std::invalid_argument("streamt::engine::replay: the plan's sink is Avro: give its schema's id");
    stages.sink_schema_id(*registry->sink_schema_id);
  }
  schema_learner learn;
  if (stages.reads_avro()) learn = learn_from(registry->writer_schema);
  boost::asio::io_context io;
  auto done = boost::asio::co_spawn(
      io,
      run_pipeline(envelope_source(in, p.schema.topic),
                   envelope_sink(out, route_topics(p), p.unrouted_topic, stages.writes_avro()),
                   std::move(stages), std::move(learn)),
      boost::asio::use_future);
  io.run();
  // get() rethrows what the coroutine threw: only bugs throw here.
  return done.get();
}

}  // namespace streamt::engine
