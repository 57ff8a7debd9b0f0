// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Offline replay (`streamt replay`): the plan's pipeline driven by a file of
// records in kcat's `-J` envelope, one JSON object a line:
//   {"topic":"orders","partition":0,"offset":9,"tstype":"create","ts":1700000000000,
//    "broker":1,"headers":["trace","abc"],"key":"a","payload":"{\"id\":\"a\",\"amount\":120}"}
// so `kcat -C -J -b ... -t orders | streamt replay plan.json` works. Output
// records are written one envelope a line to stdout (see envelope_sink).
//
// Envelope rules: `payload` is required (null is a tombstone); `key` absent
// or null is a null key; `topic`, when given, must be the plan's source
// topic; `partition` defaults to 0 and `offset` to one past the previous
// record of that partition (so hand-written files need neither), and a
// given offset must be past that one (a partition's offsets increase);
// `headers` is kcat's flat array [name, value, ...] or an object
// {name: value | [values]}; `tstype`, `broker`, kcat's `*_schema_id` and
// replay's own `source` are ignored, so replay's output is a downstream
// plan's input as it is; a member given twice or any other member is an
// error. A binary value (Avro in the Confluent wire format) is given as
// `payload_base64` instead of `payload`: its bytes in base64 (RFC 4648, the
// standard alphabet, padded); an Avro sink's outputs are written so. A line
// is at most max_envelope_line_bytes, checked while it is
// read. Key and payload bytes need not be valid UTF-8 in the envelope (kcat
// writes binary keys raw); the payload is validated as UTF-8 JSON by the
// decode stage like any record value.

#include "engine/pipeline.hpp"
#include "engine/record.hpp"
#include "plan/diagnostic.hpp"
#include "plan/plan.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::engine {

inline constexpr std::size_t max_envelope_line_bytes = 16 * 1024 * 1024;

// Parses one envelope line. Exposed for tests; `last_offset` carries the
// last offset of each partition between lines. Errors: phase::record, code
// `malformed_envelope`, message naming the input line.
struct parsed_envelope {
  boost::json::value doc;     // owns the strings the views below point into
  std::string payload_bytes;  // a "payload_base64" decoded, which the view's value points into
  record_view view;
  std::vector<header_view> headers;
};
result<void> parse_envelope(std::string_view line, std::size_t line_number, std::string_view default_topic,
                            std::map<std::int32_t, std::int64_t>& last_offset, parsed_envelope& out);

class envelope_source {
 public:
  envelope_source(std::istream& in, std::string default_topic, std::size_t batch_size = 512);

  // Completes with the next batch (empty at end of input) or a
  // malformed_envelope / io diagnostic. Views stay valid until the next call.
  boost::asio::awaitable<result<std::span<const record_view>>> async_next_batch();

 private:
  std::istream* in_;
  std::string default_topic_;
  std::size_t batch_size_;
  enum class line_read { line, end, too_long };
  line_read read_line();

  std::size_t line_number_ = 0;
  bool ended_ = false;                                // the input ended, or was given up at an over-long line
  std::map<std::int32_t, std::int64_t> next_offset_;  // the last offset of each partition
  std::string line_;
  std::vector<parsed_envelope> parsed_;
  std::vector<record_view> views_;
  std::optional<diagnostic> pending_error_;
};

// Writes each output record as one line:
//   {"topic":"big-orders","key":"a","payload":"{\"id\":\"a\",\"amount\":120}",
//    "ts":1700000000000,"headers":["trace","abc"],
//    "source":{"topic":"orders","partition":0,"offset":9}}
// `ts` and `headers` appear when the input had them. A null value (a
// forwarded tombstone, or a changelog's deleted key) is "payload":null, as
// kcat writes one. The output partition is not written: the Kafka producer
// chooses it from the key (murmur2). A routed plan's output names its
// route's sink topic and carries its PARTITION BY key; a record no route
// took, when the plan has an unrouted topic, is a line of that topic with
// the record unchanged and a last header "streamt.reason":"unrouted".
class envelope_sink {
 public:
  // `binary_payload` (an Avro sink): values are written as
  // "payload_base64", the framed bytes in base64.
  envelope_sink(std::ostream& out, std::string sink_topic, bool binary_payload = false);
  // `route_topics`: each route's sink topic (plan::routes_of order).
  envelope_sink(std::ostream& out, std::vector<std::string> route_topics, std::string unrouted_topic,
                bool binary_payload = false);

  void emit(const record_view& in, const operators::route_output& output);
  void unrouted(const record_view& in);
  // Writes what was emitted since the last flush; fails if the stream did.
  boost::asio::awaitable<result<void>> async_flush();

 private:
  void line(const record_view& in, std::string_view topic, std::optional<std::string_view> key,
            std::optional<std::string_view> value, const header_view* extra);

  std::ostream* out_;
  std::vector<std::string> route_topics_;
  std::string unrouted_topic_;
  bool binary_payload_ = false;
  std::string buffer_;
};

// What replay needs of a Schema Registry for a plan that reads or writes
// Avro (the caller's session: replay itself sends no request).
struct replay_registry {
  // The writer schemas of an Avro source, asked once per id (the stages
  // keep what they learn).
  writer_schema_source writer_schema;
  // The id of the plan's sink schema, for an Avro sink: each output is
  // framed with it.
  std::optional<std::uint32_t> sink_schema_id;
};

// Runs the whole replay on a private io_context: reads `in` to its end or to
// the first invalid record, writing outputs to `out` as it goes. A plan that
// reads or writes Avro needs `registry` (std::invalid_argument without it,
// or without the sink schema's id for an Avro sink).
run_result replay(const plan::plan& p, std::istream& in, std::ostream& out,
                  const replay_registry* registry = nullptr);

}  // namespace streamt::engine
