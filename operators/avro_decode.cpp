// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/avro_decode.hpp"

#include "operators/encode.hpp"
#include "plan/utf8.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace streamt::operators {

namespace avro = plan::avro;
namespace json = boost::json;
using avro::step_kind;
using avro::type_kind;

namespace {

constexpr std::size_t no_text = static_cast<std::size_t>(-1);

bool same_columns(const std::vector<plan::column>& a, const std::vector<const plan::column*>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const plan::column& x = a[i];
    const plan::column& y = *b[i];
    if (x.name != y.name || x.type != y.type || x.nullable != y.nullable || x.precision != y.precision ||
        x.scale != y.scale)
      return false;
    std::vector<const plan::column*> inner;
    for (const plan::column& f : y.fields) inner.push_back(&f);
    if (!same_columns(x.fields, inner)) return false;
  }
  return true;
}

// The reader's type of a field as its column sees it: [null, T] is T.
std::size_t unwrap_nullable(const avro::schema& s, std::size_t t) {
  const avro::type& u = s.types[t];
  if (u.kind == type_kind::union_ && u.branches.size() == 2) {
    const bool first_null = s.types[u.branches[0]].kind == type_kind::null;
    const bool second_null = s.types[u.branches[1]].kind == type_kind::null;
    if (first_null != second_null) return u.branches[first_null ? 1 : 0];
  }
  return t;
}

// Bytes in Avro's JSON encoding: each byte one code point U+0000..U+00FF.
std::string bytes_of_default(const json::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else {  // C2 or C3 and a continuation byte (the parser checked)
      out += static_cast<char>(((c & 0x03) << 6) | (static_cast<unsigned char>(s[++i]) & 0x3F));
    }
  }
  return out;
}

// A two's-complement big-endian integer of `n` bytes, if it fits 128 bits.
bool twos_complement(const unsigned char* p, std::size_t n, plan::int128& out) {
  if (n == 0) return false;
  const bool negative = (p[0] & 0x80) != 0;
  // Leading bytes that only extend the sign carry no digits.
  while (n > 16 && p[0] == (negative ? 0xFF : 0x00)) {
    ++p;
    --n;
  }
  if (n > 16) return false;
  plan::uint128 v = negative ? ~plan::uint128{0} : 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  if (n == 16 && ((p[0] & 0x80) != 0) != negative) return false;
  out = static_cast<plan::int128>(v);
  return true;
}

bool fits_precision(plan::int128 v, int precision) {
  plan::uint128 m = v < 0 ? static_cast<plan::uint128>(-(v + 1)) + 1 : static_cast<plan::uint128>(v);
  plan::uint128 limit = 1;
  for (int i = 0; i < precision; ++i) limit *= 10;
  return m < limit;
}

// The reader's default `v` of type `t` as the JSON a datum of that type is
// written as: a decimal as its number, a union as its first branch's value,
// a record with every field (its own defaults filling what `v` lacks).
std::string default_json(const avro::schema& s, std::size_t t, const json::value& v) {
  const avro::type& r = s.types[t];
  if (r.kind == type_kind::union_)
    return r.branches.empty() ? "null" : default_json(s, r.branches.front(), v);
  if (r.logical == avro::logical_type::decimal && v.is_string()) {
    const std::string bytes = bytes_of_default(v.get_string());
    plan::int128 u = 0;
    if (!twos_complement(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), u))
      return "null";
    char buf[48];
    return std::string(buf, static_cast<std::size_t>(put_decimal(buf, u, r.scale) - buf));
  }
  if (r.kind == type_kind::record && v.is_object()) {
    std::string out = "{";
    for (std::size_t j = 0; j < r.fields.size(); ++j) {
      if (j) out += ',';
      out += '"';
      append_escaped(out, r.fields[j].name);
      out += "\":";
      const json::value* fv = v.get_object().if_contains(r.fields[j].name);
      const json::value* use = fv ? fv : (r.fields[j].default_value ? &*r.fields[j].default_value : nullptr);
      out += use ? default_json(s, r.fields[j].type, *use) : std::string("null");
    }
    return out + "}";
  }
  if (r.kind == type_kind::array && v.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.get_array().size(); ++i) {
      if (i) out += ',';
      out += default_json(s, r.items, v.get_array()[i]);
    }
    return out + "]";
  }
  if (r.kind == type_kind::map && v.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& m : v.get_object()) {
      if (!first) out += ',';
      first = false;
      out += '"';
      append_escaped(out, m.key());
      out += "\":";
      out += default_json(s, r.items, m.value());
    }
    return out + "}";
  }
  return json::serialize(v);
}

// Microseconds since the epoch as milliseconds, rounded down (toward the
// past), without overflowing at the int64 minimum.
constexpr std::int64_t floor_millis(std::int64_t micros) noexcept {
  return micros >= 0 ? micros / 1000 : -((-(micros + 1)) / 1000) - 1;
}
static_assert(floor_millis(-1) == -1 && floor_millis(1999) == 1 && floor_millis(-1000) == -1);

// UTF-8, checked eight ASCII bytes at a time; the full check from the first
// other byte.
[[gnu::always_inline]] inline bool ascii_or_utf8(std::string_view s) {
  std::size_t i = 0;
  for (std::uint64_t w = 0; s.size() - i >= 8; i += 8) {
    std::memcpy(&w, s.data() + i, 8);
    if ((w & 0x8080808080808080ULL) != 0) break;
  }
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  return i == s.size() || plan::first_invalid_utf8(s.substr(i)) == std::string_view::npos;
}

}  // namespace

plan::avro::needs avro_needs(const plan::plan& p) {
  const auto nodes = plan::flatten(p.schema);
  std::vector<std::vector<std::string>> read;
  for (const plan::condition& c : p.predicate) read.push_back(nodes.at(c.column).path);
  for (const plan::projection_item& i : p.projection) read.push_back(nodes.at(i.column).path);
  return [read = std::move(read)](const std::vector<std::string>& path) {
    avro::need n = avro::need::none;
    for (const auto& r : read) {
      const std::size_t common = std::min(r.size(), path.size());
      if (!std::equal(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(common), path.begin())) continue;
      if (path.size() >= r.size()) return avro::need::whole;
      n = avro::need::part;
    }
    return n;
  };
}

// One record's walk over the body: the cursor, the row, and where a
// failure is reported.
class avro_walk {
 public:
  avro_walk(const avro_decoder& d, std::string_view body, row& out, diagnostic& error)
      : d_(d),
        begin_(reinterpret_cast<const unsigned char*>(body.data())),
        p_(begin_),
        end_(begin_ + body.size()),
        out_(out),
        error_(error) {}

  bool run() {
    if (!record_into(0, nullptr)) return false;
    if (p_ != end_)
      return fail("malformed_avro", "$", std::to_string(end_ - p_) + " bytes are left after the record");
    return true;
  }

 private:
  const avro_decoder& d_;
  const unsigned char* const begin_;
  const unsigned char* p_;
  const unsigned char* const end_;
  row& out_;
  diagnostic& error_;

  bool fail(const char* code, std::string_view where, std::string what) {
    error_ = diagnostic{};
    error_.phase = streamt::phase::record;
    error_.code = code;
    error_.message = std::string(where) + ": " + what + " at byte " + std::to_string(p_ - begin_);
    return false;
  }
  std::string_view where(std::size_t node) const {
    return node == static_cast<std::size_t>(-1) ? std::string_view("$")
                                                : std::string_view(d_.nodes_[node].json_path);
  }

  // --- primitives -------------------------------------------------------

  bool varint(std::uint64_t& v, int max_bytes, std::string_view at) {
    v = 0;
    for (int i = 0; i < max_bytes; ++i) {
      if (p_ == end_) return fail("malformed_avro", at, "a number runs past the end of the value");
      const unsigned char b = *p_++;
      v |= static_cast<std::uint64_t>(b & 0x7F) << (7 * i);
      if ((b & 0x80) == 0) {
        if (i == max_bytes - 1 && b > (max_bytes == 10 ? 1 : 0x0F))
          return fail("malformed_avro", at, "a number has more bits than its type");
        return true;
      }
    }
    return fail("malformed_avro", at, "a number is longer than its type allows");
  }
  bool long_value(std::int64_t& out, std::string_view at) {
    std::uint64_t v = 0;
    if (!varint(v, 10, at)) return false;
    out = static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
    return true;
  }
  bool int_value(std::int64_t& out, std::string_view at) {
    std::uint64_t v = 0;
    if (!varint(v, 5, at)) return false;
    out = static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
    return true;
  }
  bool integer(type_kind k, std::int64_t& out, std::string_view at) {
    return k == type_kind::int_ ? int_value(out, at) : long_value(out, at);
  }
  // A length or a count: not negative, at most what is left (`unit` bytes each).
  bool length(std::size_t& n, std::string_view at) {
    std::int64_t v = 0;
    if (!long_value(v, at)) return false;
    if (v < 0 || static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(end_ - p_))
      return fail(
          "malformed_avro", at,
          "a length of " + std::to_string(v) + " exceeds the " + std::to_string(end_ - p_) + " bytes left");
    n = static_cast<std::size_t>(v);
    return true;
  }
  bool raw(std::size_t n, std::string_view& out, std::string_view at) {
    if (static_cast<std::size_t>(end_ - p_) < n)
      return fail("malformed_avro", at, std::to_string(n) + " bytes run past the end of the value");
    out = std::string_view(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return true;
  }
  bool sized(std::string_view& out, std::string_view at) {
    std::size_t n = 0;
    return length(n, at) && raw(n, out, at);
  }
  // The writer's number `k` as the reader's float or double `r`. An int or
  // long read as a float is rounded to the float it becomes (as Java's and
  // Avro C's resolvers do): the reader's schema says the value is a float.
  bool floating(type_kind k, type_kind r, double& out, std::string_view at) {
    if (k == type_kind::int_ || k == type_kind::long_) {
      std::int64_t v = 0;
      if (!integer(k, v, at)) return false;
      out = r == type_kind::float_ ? static_cast<float>(v) : static_cast<double>(v);
      return true;
    }
    std::string_view b;
    if (!raw(k == type_kind::float_ ? 4 : 8, b, at)) return false;
    if (k == type_kind::float_) {
      float f = 0;
      std::memcpy(&f, b.data(), 4);  // Avro writes little-endian, as this machine is
      out = f;
    } else {
      std::memcpy(&out, b.data(), 8);
    }
    static_assert(std::endian::native == std::endian::little);
    if (!std::isfinite(out))
      return fail("double_out_of_range", at, "a floating-point value is NaN or infinite");
    return true;
  }
  bool decimal(const avro::type& w, std::string_view& bytes, std::string_view at) {
    return w.kind == type_kind::fixed ? raw(w.size, bytes, at) : sized(bytes, at);
  }
  bool unscaled(std::string_view bytes, int precision, plan::int128& v, std::string_view at) {
    if (!twos_complement(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), v))
      return fail(
          bytes.empty() ? "malformed_avro" : "invalid_decimal", at,
          bytes.empty() ? std::string("a decimal has no bytes") : std::string("a decimal exceeds 38 digits"));
    if (!fits_precision(v, precision))
      return fail("invalid_decimal", at,
                  "a decimal has more than the " + std::to_string(precision) + " digits allowed");
    return true;
  }
  bool utf8(std::string_view s, std::string_view at) {
    if (ascii_or_utf8(s)) return true;
    return fail("invalid_utf8", at, "a string is not UTF-8");
  }

  bool millis(const avro::type& w, std::int64_t& v, std::string_view at) {
    if (!integer(w.kind, v, at)) return false;
    if (w.logical == avro::logical_type::timestamp_micros) v = floor_millis(v);
    if (v < plan::min_timestamp_millis || v > plan::max_timestamp_millis)
      return fail("invalid_timestamp", at, "a time is outside the years 0001 to 9999");
    return true;
  }

  // --- skipping ----------------------------------------------------------

  bool deeper(unsigned depth, std::string_view at) {
    if (depth <= max_avro_datum_depth) return true;
    return fail("malformed_avro", at,
                "the datum nests deeper than " + std::to_string(max_avro_datum_depth) + " levels");
  }

  // Array and map blocks: a count, negative when a byte size follows, until 0.
  template <class Item>
  bool blocks(std::string_view at, Item item) {
    std::size_t total = 0;
    for (;;) {
      std::int64_t count = 0;
      if (!long_value(count, at)) return false;
      if (count == 0) return true;
      if (count < 0) {
        std::int64_t size = 0;
        if (!long_value(size, at)) return false;
        if (count == std::numeric_limits<std::int64_t>::min())
          return fail("malformed_avro", at, "a block count overflows");
        count = -count;
        (void)size;  // a hint for skipping; the items are walked anyway
      }
      // Items may take no bytes (nulls): bound their number by the value's size.
      total += static_cast<std::uint64_t>(count);
      if (static_cast<std::uint64_t>(count) > static_cast<std::uint64_t>(end_ - begin_) + 1 ||
          total > static_cast<std::size_t>(end_ - begin_) + 1)
        return fail("malformed_avro", at,
                    "a block of " + std::to_string(count) + " items is more than the value can hold");
      for (std::int64_t i = 0; i < count; ++i)
        if (!item()) return false;
    }
  }

  bool skip(std::size_t wt, unsigned depth, std::string_view at) {
    if (!deeper(depth, at)) return false;
    const avro::type& w = d_.writer_.types[wt];
    std::int64_t ignored = 0;
    std::string_view view;
    switch (w.kind) {
      case type_kind::null:
        return true;
      case type_kind::boolean:
        return raw(1, view, at);
      case type_kind::int_:
      case type_kind::long_:
        return integer(w.kind, ignored, at);
      case type_kind::float_:
        return raw(4, view, at);
      case type_kind::double_:
        return raw(8, view, at);
      case type_kind::bytes:
      case type_kind::string:
        return sized(view, at);
      case type_kind::fixed:
        return raw(w.size, view, at);
      case type_kind::enum_:
        return int_value(ignored, at);
      case type_kind::record:
        for (const avro::field& f : w.fields)
          if (!skip(f.type, depth + 1, at)) return false;
        return true;
      case type_kind::array:
        return blocks(at, [&] { return skip(w.items, depth + 1, at); });
      case type_kind::map:
        return blocks(at, [&] { return sized(view, at) && skip(w.items, depth + 1, at); });
      case type_kind::union_: {
        std::int64_t b = 0;
        if (!long_value(b, at)) return false;
        if (b < 0 || static_cast<std::uint64_t>(b) >= w.branches.size())
          return fail("malformed_avro", at, "union index " + std::to_string(b) + " is out of range");
        return skip(w.branches[static_cast<std::size_t>(b)], depth + 1, at);
      }
    }
    return false;
  }

  // The writer's union branch of a datum: the step that reads it.
  bool branch(const avro::step& st, std::string_view at, std::size_t& next) {
    std::int64_t b = 0;
    if (!long_value(b, at)) return false;
    if (b < 0 || static_cast<std::uint64_t>(b) >= st.branches.size())
      return fail("malformed_avro", at, "union index " + std::to_string(b) + " is out of range");
    next = st.branches[static_cast<std::size_t>(b)];
    return true;
  }

  // The writer's enum symbol of a datum, as the reader's symbol.
  bool symbol(const avro::step& st, const avro::type& w, std::string_view at, std::string_view& name) {
    std::int64_t i = 0;
    if (!int_value(i, at)) return false;
    if (i < 0 || static_cast<std::uint64_t>(i) >= st.symbols.size())
      return fail("malformed_avro", at, "enum index " + std::to_string(i) + " is out of range");
    const std::int32_t r = st.symbols[static_cast<std::size_t>(i)];
    if (r < 0)
      return fail("schema_incompatible", at,
                  "the symbol " + w.symbols[static_cast<std::size_t>(i)] + " is not the reader's: " + st.why);
    name = d_.reader_.types[st.reader].symbols[static_cast<std::size_t>(r)];
    return true;
  }

  // --- JSON columns --------------------------------------------------------

  void put_json_string(std::string& out, std::string_view s) {
    out += '"';
    append_escaped(out, s);
    out += '"';
  }
  // Bytes as Avro's JSON encoding writes them: one code point per byte.
  void put_json_bytes(std::string& out, std::string_view b) {
    out += '"';
    for (char c : b) {
      const auto u = static_cast<unsigned char>(c);
      if (u < 0x80) {
        const char one[1] = {c};
        append_escaped(out, std::string_view(one, 1));
      } else {
        out += static_cast<char>(0xC0 | (u >> 6));
        out += static_cast<char>(0x80 | (u & 0x3F));
      }
    }
    out += '"';
  }
  void put_double(std::string& out, double v) {
    char buf[32];
    out.append(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
  }

  // The writer's datum as the reader's, written as compact JSON.
  bool json(std::size_t si, std::string& out, unsigned depth, std::string_view at) {
    if (!deeper(depth, at)) return false;
    const avro::step& st = d_.steps_.steps[si];
    const avro::type& w = d_.writer_.types[st.writer];
    switch (st.kind) {
      case step_kind::skip:
        return skip(st.writer, depth, at);
      case step_kind::unresolvable:
        return fail("schema_incompatible", at, st.why);
      case step_kind::writer_union: {
        std::size_t next = 0;
        return branch(st, at, next) && json(next, out, depth, at);
      }
      case step_kind::reader_union:
        return json(st.child, out, depth, at);
      case step_kind::record: {
        const avro::type& r = d_.reader_.types[st.reader];
        // The usual case: the writer's fields are the reader's, in order.
        bool in_order = st.fields.size() == r.fields.size();
        for (std::size_t j = 0; in_order && j < st.fields.size(); ++j)
          in_order =
              st.fields[j].reader_field == j && d_.steps_.steps[st.fields[j].step].kind != step_kind::skip;
        if (in_order) {
          out += '{';
          for (std::size_t j = 0; j < r.fields.size(); ++j) {
            if (j) out += ',';
            put_json_string(out, r.fields[j].name);
            out += ':';
            if (!json(st.fields[j].step, out, depth + 1, at)) return false;
          }
          out += '}';
          return true;
        }
        // Otherwise the writer's fields come in the writer's order and the
        // reader's are written in its own, so each is kept aside first (this
        // allocates; schema evolution inside a JSON column is rare).
        out += '{';
        std::vector<std::pair<std::size_t, std::size_t>> spans(r.fields.size(), {0, 0});
        std::string scratch;
        for (const avro::field_step& fs : st.fields) {
          if (d_.steps_.steps[fs.step].kind == step_kind::skip) {
            if (!skip(d_.steps_.steps[fs.step].writer, depth + 1, at)) return false;
            continue;
          }
          const std::size_t start = scratch.size();
          if (!json(fs.step, scratch, depth + 1, at)) return false;
          spans[fs.reader_field] = {start, scratch.size() - start};
        }
        bool first = true;
        for (std::size_t j = 0; j < r.fields.size(); ++j) {
          if (!first) out += ',';
          first = false;
          put_json_string(out, r.fields[j].name);
          out += ':';
          if (spans[j].second != 0) {
            out.append(scratch, spans[j].first, spans[j].second);
          } else {
            // A field the writer lacks: the reader's default, prepared.
            out += d_.default_json_[st.reader][j];
          }
        }
        out += '}';
        return true;
      }
      case step_kind::enum_: {
        std::string_view name;
        if (!symbol(st, w, at, name)) return false;
        put_json_string(out, name);
        return true;
      }
      case step_kind::fixed:
      case step_kind::read:
        return json_scalar(st, w, out, at);
      case step_kind::array: {
        out += '[';
        bool first = true;
        if (!blocks(at, [&] {
              if (!first) out += ',';
              first = false;
              return json(st.child, out, depth + 1, at);
            }))
          return false;
        out += ']';
        return true;
      }
      case step_kind::map: {
        out += '{';
        bool first = true;
        if (!blocks(at, [&] {
              std::string_view key;
              if (!sized(key, at) || !utf8(key, at)) return false;
              if (!first) out += ',';
              first = false;
              put_json_string(out, key);
              out += ':';
              return json(st.child, out, depth + 1, at);
            }))
          return false;
        out += '}';
        return true;
      }
    }
    return false;
  }

  bool json_scalar(const avro::step& st, const avro::type& w, std::string& out, std::string_view at) {
    const avro::type& r = d_.reader_.types[st.reader];
    std::string_view b;
    switch (r.kind) {
      case type_kind::null:
        out += "null";
        return true;
      case type_kind::boolean:
        if (!raw(1, b, at)) return false;
        if (b[0] != 0 && b[0] != 1) return fail("malformed_avro", at, "a boolean byte is neither 0 nor 1");
        out += b[0] ? "true" : "false";
        return true;
      case type_kind::int_:
      case type_kind::long_: {
        std::int64_t v = 0;
        if (!integer(w.kind, v, at)) return false;
        char buf[24];
        out.append(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
        return true;
      }
      case type_kind::float_:
      case type_kind::double_: {
        double v = 0;
        if (!floating(w.kind, r.kind, v, at)) return false;
        put_double(out, v);
        return true;
      }
      case type_kind::string:
      case type_kind::bytes:
      case type_kind::fixed:
        if (!(w.kind == type_kind::fixed ? raw(w.size, b, at) : sized(b, at))) return false;
        if (r.logical == avro::logical_type::decimal) {
          plan::int128 v = 0;
          if (!unscaled(b, r.precision, v, at)) return false;
          char buf[48];
          out.append(buf, static_cast<std::size_t>(put_decimal(buf, v, r.scale) - buf));
          return true;
        }
        if (r.kind == type_kind::string) {
          if (!utf8(b, at)) return false;
          put_json_string(out, b);
        } else {
          put_json_bytes(out, b);
        }
        return true;
      default:
        return fail("malformed_avro", at, "internal: a scalar step on a " + std::string(to_string(r.kind)));
    }
  }

  // --- slots ---------------------------------------------------------------

  void set_null(std::size_t node) {
    for (std::size_t i = node; i < d_.nodes_[node].end; ++i) out_.slots[i].is_null = true;
  }

  void apply(const std::vector<avro_decoder::assignment>& as) {
    for (const auto& a : as) {
      slot& s = out_.slots[a.node];
      s.is_null = a.is_null;
      s.bigint = a.bigint;
      s.boolean = a.boolean;
      s.dbl = a.dbl;
      s.decimal = a.decimal;
      if (a.text != no_text) s.string = d_.texts_[a.text];
    }
  }

  // The fields of the record step `si` into the nodes `fields` (the root's
  // when `si` is the first step and `fields` is null).
  bool record_into(std::size_t si, const std::vector<std::size_t>* fields) {
    const avro::step& st = d_.steps_.steps[si];
    const std::vector<std::size_t>& nodes = fields ? *fields : d_.top_;
    for (const avro::field_step& fs : st.fields) {
      const avro::step& child = d_.steps_.steps[fs.step];
      if (child.kind == step_kind::skip) {
        if (!skip(child.writer, 1, "$")) return false;
        continue;
      }
      if (!into(fs.step, nodes[fs.reader_field], 1)) return false;
    }
    for (std::size_t j : st.defaulted) apply(d_.nodes_[nodes[j]].defaults);
    return true;
  }

  // The datum of step `si` into node `node`'s slot (and its fields').
  bool into(std::size_t si, std::size_t node, unsigned depth) {
    const auto& info = d_.nodes_[node];
    const std::string_view at = info.json_path;
    if (!deeper(depth, at)) return false;
    const avro::step& st = d_.steps_.steps[si];
    slot& s = out_.slots[node];
    if (info.type == plan::column_type::json) {
      s.storage.clear();
      if (!json(si, s.storage, depth, at)) return false;
      s.is_null = s.storage == "null";
      s.string = s.storage;
      return true;
    }
    const avro::type& w = d_.writer_.types[st.writer];
    switch (st.kind) {
      case step_kind::skip:
        return skip(st.writer, depth, at);
      case step_kind::unresolvable:
        return fail("schema_incompatible", at, st.why);
      case step_kind::writer_union: {
        std::size_t next = 0;
        return branch(st, at, next) && into(next, node, depth);
      }
      case step_kind::reader_union: {
        const avro::type& r = d_.reader_.types[st.reader];
        if (d_.reader_.types[r.branches[st.branch]].kind == type_kind::null) {
          set_null(node);
          return true;
        }
        return into(st.child, node, depth);
      }
      case step_kind::record:
        s.is_null = false;
        return record_into(si, &info.fields);
      case step_kind::enum_:
        if (!symbol(st, w, at, s.string)) return false;
        s.is_null = false;
        return true;
      case step_kind::fixed:
      case step_kind::read:
        break;
      case step_kind::array:
      case step_kind::map:
        return fail("malformed_avro", at, "internal: an array or map outside a JSON column");
    }
    std::string_view b;
    switch (info.type) {
      case plan::column_type::boolean:
        if (!raw(1, b, at)) return false;
        if (b[0] != 0 && b[0] != 1) return fail("malformed_avro", at, "a boolean byte is neither 0 nor 1");
        s.boolean = b[0] == 1;
        break;
      case plan::column_type::bigint:
        if (!integer(w.kind, s.bigint, at)) return false;
        break;
      case plan::column_type::timestamp:
        if (!millis(w, s.bigint, at)) return false;
        break;
      case plan::column_type::double_:
        if (!floating(w.kind, d_.reader_.types[st.reader].kind, s.dbl, at)) return false;
        break;
      case plan::column_type::string:
        if (!sized(b, at) || !utf8(b, at)) return false;
        s.string = b;
        break;
      case plan::column_type::decimal:
        if (!decimal(w, b, at) || !unscaled(b, info.precision, s.decimal, at)) return false;
        break;
      default:
        return fail("malformed_avro", at,
                    "internal: a scalar step into a " + std::string(to_string(info.type)));
    }
    s.is_null = false;
    return true;
  }
};

result<avro_decoder> avro_decoder::build(const plan::schema& plan_schema, const avro::schema& reader,
                                         const avro::schema& writer, const avro::needs& wanted) {
  auto mismatch = [](std::string what) {
    diagnostic d;
    d.phase = streamt::phase::plan;
    d.code = "plan_schema_mismatch";
    d.path = "$.schema";
    d.message = "the plan's columns are not its pinned Avro schema's: " + std::move(what);
    return d;
  };
  auto mapped = avro::to_columns(reader);
  if (!mapped) return mapped.error();
  const auto nodes = plan::flatten(plan_schema);
  avro_decoder d;
  std::vector<const plan::column*> values;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].parent == static_cast<std::size_t>(-1) &&
        nodes[i].column->from == plan::column_source::value) {
      values.push_back(nodes[i].column);
      d.top_.push_back(i);
    }
  if (!same_columns(mapped->columns, values)) return mismatch("a column differs in name, type or order");

  d.nodes_.resize(nodes.size());
  for (std::size_t i = nodes.size(); i-- > 0;) {
    node_info& n = d.nodes_[i];
    const plan::column& c = *nodes[i].column;
    n.type = c.type;
    n.nullable = c.nullable;
    n.precision = c.precision;
    n.scale = c.scale;
    n.fields = nodes[i].children;
    n.end = n.fields.empty() ? i + 1 : d.nodes_[n.fields.back()].end;
    n.json_path = "$";
    for (const std::string& segment : nodes[i].path) n.json_path += "." + segment;
  }

  auto steps = avro::resolve(writer, reader, wanted);
  if (!steps) {
    diagnostic e = steps.error();
    return e;
  }
  d.reader_ = reader;
  d.writer_ = writer;
  d.steps_ = std::move(*steps);

  // The reader's defaults, as the slots they set: each field's own node and,
  // for a ROW, its fields' (a default object gives each of them).
  struct preparer {
    avro_decoder& d;
    bool prepare(std::size_t node, std::size_t type, const json::value& v, std::vector<assignment>& out) {
      const node_info& n = d.nodes_[node];
      const std::size_t t = unwrap_nullable(d.reader_, type);
      const avro::type& r = d.reader_.types[t];
      assignment a;
      a.node = node;
      a.text = no_text;
      if (v.is_null() && n.type != plan::column_type::json) {
        for (std::size_t i = node; i < n.end; ++i) {
          assignment nil;
          nil.node = i;
          nil.text = no_text;
          out.push_back(nil);
        }
        return true;
      }
      a.is_null = false;
      switch (n.type) {
        case plan::column_type::boolean:
          a.boolean = v.as_bool();
          break;
        case plan::column_type::bigint:
        case plan::column_type::timestamp:
          a.bigint = v.to_number<std::int64_t>();
          if (n.type == plan::column_type::timestamp && r.logical == avro::logical_type::timestamp_micros)
            a.bigint = floor_millis(a.bigint);
          break;
        case plan::column_type::double_:
          // A float's default is the float it names, as a float read from
          // the wire is.
          a.dbl =
              r.kind == type_kind::float_ ? static_cast<float>(v.to_number<double>()) : v.to_number<double>();
          break;
        case plan::column_type::string:
          d.texts_.emplace_back(v.as_string());
          a.text = d.texts_.size() - 1;
          break;
        case plan::column_type::decimal: {
          const std::string bytes = bytes_of_default(v.as_string());
          if (!twos_complement(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
                               a.decimal) ||
              !fits_precision(a.decimal, n.precision))
            return false;
          break;
        }
        case plan::column_type::json:
          d.texts_.push_back(default_json(d.reader_, type, v));
          a.text = d.texts_.size() - 1;
          a.is_null = v.is_null();
          break;
        case plan::column_type::row: {
          out.push_back(a);
          const json::object& o = v.as_object();
          for (std::size_t j = 0; j < r.fields.size(); ++j) {
            const json::value* fv = o.if_contains(r.fields[j].name);
            const json::value& use = fv ? *fv : *r.fields[j].default_value;
            if (!prepare(n.fields[j], r.fields[j].type, use, out)) return false;
          }
          return true;
        }
      }
      out.push_back(a);
      return true;
    }
    // Every field with a default, under the record type `t` of node list `fields`.
    bool all(const std::vector<std::size_t>& fields, std::size_t t) {
      const avro::type& r = d.reader_.types[unwrap_nullable(d.reader_, t)];
      if (r.kind != type_kind::record) return true;
      for (std::size_t j = 0; j < r.fields.size() && j < fields.size(); ++j) {
        const std::size_t node = fields[j];
        if (r.fields[j].default_value &&
            !prepare(node, r.fields[j].type, *r.fields[j].default_value, d.nodes_[node].defaults))
          return false;
        if (d.nodes_[node].type == plan::column_type::row && !all(d.nodes_[node].fields, r.fields[j].type))
          return false;
      }
      return true;
    }
  };
  d.default_json_.resize(d.reader_.types.size());
  for (std::size_t t = 0; t < d.reader_.types.size(); ++t)
    for (const avro::field& f : d.reader_.types[t].fields)
      d.default_json_[t].push_back(f.default_value ? default_json(d.reader_, f.type, *f.default_value)
                                                   : "null");
  preparer prep{d};
  if (!prep.all(d.top_, 0)) return mismatch("a default does not fit its column");
  d.compile_fast();
  return d;
}

void avro_decoder::compile_fast() {
  has_fast_ = false;
  fast_.clear();
  const avro::step& root = steps_.steps.front();
  // A scalar step of writer type `w` as an op (into `node` unless skipped).
  auto scalar = [&](const avro::step& st, std::size_t node, fast_op& op) {
    const avro::type& w = writer_.types[st.writer];
    op.varint_bytes = w.kind == type_kind::int_ || w.kind == type_kind::enum_ ? 5 : 10;
    if (st.kind == step_kind::skip) {
      switch (w.kind) {
        case type_kind::null:
          op.code = fast_code::skip_fixed;
          op.size = 0;
          return true;
        case type_kind::boolean:
        case type_kind::float_:
        case type_kind::double_:
        case type_kind::fixed:
          op.code = fast_code::skip_fixed;
          op.size = static_cast<std::uint32_t>(w.kind == type_kind::boolean   ? 1
                                               : w.kind == type_kind::float_  ? 4
                                               : w.kind == type_kind::double_ ? 8
                                                                              : w.size);
          return w.size <= 0xFFFFFFFFu;
        case type_kind::int_:
        case type_kind::long_:
        case type_kind::enum_:
          op.code = fast_code::skip_varint;
          return true;
        case type_kind::bytes:
        case type_kind::string:
          op.code = fast_code::skip_sized;
          return true;
        default:
          return false;
      }
    }
    op.node = node;
    const node_info& n = nodes_[node];
    if (st.kind == step_kind::enum_) {
      if (n.type != plan::column_type::string) return false;
      op.code = fast_code::read_enum;
      op.symbols = &st.symbols;
      op.names = &reader_.types[st.reader].symbols;
      return true;
    }
    if (st.kind != step_kind::read && st.kind != step_kind::fixed) return false;
    switch (n.type) {
      case plan::column_type::bigint:
        op.code = fast_code::read_long;
        return w.kind == type_kind::int_ || w.kind == type_kind::long_;
      case plan::column_type::timestamp:
        op.code = w.logical == avro::logical_type::timestamp_micros ? fast_code::read_micros
                                                                    : fast_code::read_millis;
        return w.kind == type_kind::long_;
      case plan::column_type::double_:
        op.code = w.kind == type_kind::float_                          ? fast_code::read_float
                  : w.kind == type_kind::double_                       ? fast_code::read_double
                  : reader_.types[st.reader].kind == type_kind::float_ ? fast_code::read_float_from_integer
                                                                       : fast_code::read_double_from_integer;
        return true;
      case plan::column_type::boolean:
        op.code = fast_code::read_boolean;
        return w.kind == type_kind::boolean;
      case plan::column_type::string:
        op.code = fast_code::read_string;
        return w.kind == type_kind::string || w.kind == type_kind::bytes;
      case plan::column_type::decimal:
        op.precision = n.precision;
        if (w.kind == type_kind::fixed) {
          op.code = fast_code::read_decimal_fixed;
          op.size = static_cast<std::uint32_t>(w.size);
          return w.size <= 0xFFFFFFFFu;
        }
        op.code = fast_code::read_decimal_sized;
        return w.kind == type_kind::bytes;
      default:
        return false;  // JSON and ROW columns: the walk
    }
  };
  // A reader union's step: the null branch, or the value's step.
  auto through_reader_union = [&](std::size_t si, bool& is_null) -> const avro::step* {
    const avro::step& st = steps_.steps[si];
    is_null = false;
    if (st.kind != step_kind::reader_union) return &st;
    const avro::type& r = reader_.types[st.reader];
    if (reader_.types[r.branches[st.branch]].kind == type_kind::null) {
      is_null = true;
      return nullptr;
    }
    return &steps_.steps[st.child];
  };
  for (const avro::field_step& fs : root.fields) {
    const avro::step& st = steps_.steps[fs.step];
    const std::size_t node = st.kind == step_kind::skip ? 0 : top_[fs.reader_field];
    fast_op op;
    if (st.kind == step_kind::writer_union && st.branches.size() == 2 && st.branches.size() <= 127) {
      // [null, T] (either order) written, read as a nullable T.
      int null_branch = -1, value_branch = -1;
      const avro::step* value = nullptr;
      for (int b = 0; b < 2; ++b) {
        bool is_null = false;
        const avro::step* inner = through_reader_union(st.branches[static_cast<std::size_t>(b)], is_null);
        if (is_null)
          null_branch = b;
        else if (inner && inner->kind != step_kind::unresolvable)
          value_branch = b, value = inner;
      }
      if (null_branch < 0 || value_branch < 0 || !scalar(*value, node, op)) return;
      op.null_branch = static_cast<std::int8_t>(null_branch);
      op.value_branch = static_cast<std::int8_t>(value_branch);
    } else {
      bool is_null = false;
      const avro::step* inner = through_reader_union(fs.step, is_null);
      if (is_null || inner == nullptr || !scalar(*inner, node, op)) return;
    }
    fast_.push_back(op);
  }
  has_fast_ = true;
}

namespace {

// The zigzag varint at `p`, for the fast path: false (without a reason) if
// it runs past `end` or is longer than its type allows (`max_bytes`: 10 for
// a long, 5 for an int or an enum index, as the walk checks).
[[gnu::always_inline]] inline bool fast_varint(const unsigned char*& p, const unsigned char* end,
                                               std::int64_t& v, int max_bytes = 10) {
  if (p != end && *p < 0x80) {  // the usual small number
    const unsigned z = *p++;
    v = static_cast<std::int64_t>(z >> 1) ^ -static_cast<std::int64_t>(z & 1);
    return true;
  }
  std::uint64_t z = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (p == end) return false;
    const unsigned char b = *p++;
    z |= static_cast<std::uint64_t>(b & 0x7F) << (7 * i);
    if ((b & 0x80) == 0) {
      if (i == max_bytes - 1 && b > (max_bytes == 10 ? 1 : 0x0F)) return false;
      v = static_cast<std::int64_t>(z >> 1) ^ -static_cast<std::int64_t>(z & 1);
      return true;
    }
  }
  return false;
}

}  // namespace

bool avro_decoder::fast_decode(std::string_view body, row& out) const {
  const auto* p = reinterpret_cast<const unsigned char*>(body.data());
  const auto* const end = p + body.size();
  for (const fast_op& op : fast_) {
    std::int64_t v = 0;
    if (op.value_branch >= 0) {
      if (!fast_varint(p, end, v)) return false;
      if (v == op.null_branch) {
        out.slots[op.node].is_null = true;
        continue;
      }
      if (v != op.value_branch) return false;
    }
    slot& s = out.slots[op.node];
    switch (op.code) {
      case fast_code::skip_varint:
        if (!fast_varint(p, end, v, op.varint_bytes)) return false;
        continue;
      case fast_code::skip_sized:
        if (!fast_varint(p, end, v) || v < 0 || v > end - p) return false;
        p += v;
        continue;
      case fast_code::skip_fixed:
        if (end - p < op.size) return false;
        p += op.size;
        continue;
      case fast_code::read_long:
        if (!fast_varint(p, end, s.bigint, op.varint_bytes)) return false;
        break;
      case fast_code::read_millis:
      case fast_code::read_micros:
        if (!fast_varint(p, end, v)) return false;
        if (op.code == fast_code::read_micros) v = floor_millis(v);
        if (v < plan::min_timestamp_millis || v > plan::max_timestamp_millis) return false;
        s.bigint = v;
        break;
      case fast_code::read_double_from_integer:
        if (!fast_varint(p, end, v, op.varint_bytes)) return false;
        s.dbl = static_cast<double>(v);
        break;
      case fast_code::read_float_from_integer:
        if (!fast_varint(p, end, v, op.varint_bytes)) return false;
        s.dbl = static_cast<float>(v);
        break;
      case fast_code::read_float: {
        if (end - p < 4) return false;
        float f = 0;
        std::memcpy(&f, p, 4);
        p += 4;
        s.dbl = f;
        if (!std::isfinite(s.dbl)) return false;
        break;
      }
      case fast_code::read_double:
        if (end - p < 8) return false;
        std::memcpy(&s.dbl, p, 8);
        p += 8;
        if (!std::isfinite(s.dbl)) return false;
        break;
      case fast_code::read_boolean:
        if (p == end || *p > 1) return false;
        s.boolean = *p++ == 1;
        break;
      case fast_code::read_string: {
        if (!fast_varint(p, end, v) || v < 0 || v > end - p) return false;
        const std::string_view text(reinterpret_cast<const char*>(p), static_cast<std::size_t>(v));
        if (!ascii_or_utf8(text)) return false;
        s.string = text;
        p += v;
        break;
      }
      case fast_code::read_decimal_sized:
      case fast_code::read_decimal_fixed: {
        std::size_t n = op.size;
        if (op.code == fast_code::read_decimal_sized) {
          if (!fast_varint(p, end, v) || v < 0) return false;
          n = static_cast<std::size_t>(v);
        }
        if (static_cast<std::size_t>(end - p) < n || !twos_complement(p, n, s.decimal) ||
            !fits_precision(s.decimal, op.precision))
          return false;
        p += n;
        break;
      }
      case fast_code::read_enum: {
        if (!fast_varint(p, end, v, 5) || v < 0 || static_cast<std::uint64_t>(v) >= op.symbols->size())
          return false;
        const std::int32_t r = (*op.symbols)[static_cast<std::size_t>(v)];
        if (r < 0) return false;
        s.string = (*op.names)[static_cast<std::size_t>(r)];
        break;
      }
    }
    s.is_null = false;
  }
  if (p != end) return false;
  for (std::size_t j : steps_.steps.front().defaulted) {
    for (const assignment& a : nodes_[top_[j]].defaults) {
      slot& s = out.slots[a.node];
      s.is_null = a.is_null;
      s.bigint = a.bigint;
      s.boolean = a.boolean;
      s.dbl = a.dbl;
      s.decimal = a.decimal;
      if (a.text != no_text) s.string = texts_[a.text];
    }
  }
  return true;
}

bool avro_decoder::decode_by_walk(std::string_view body, row& out, diagnostic& error) const {
  return avro_walk(*this, body, out, error).run();
}

bool avro_decoder::decode(std::string_view body, row& out, diagnostic& error) const {
  // The program's refusal is only a verdict: the walk says why.
  if (has_fast_ && fast_decode(body, out)) return true;
  return decode_by_walk(body, out, error);
}

}  // namespace streamt::operators
