// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/encode.hpp"

#include "operators/swar.hpp"

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace streamt::operators {

namespace {

// 0 where the byte needs no escape, else the character after the backslash
// ('u' for the \u00XX form).
constexpr auto escape_table = [] {
  struct table {
    char v[256] = {};
  } t;
  for (int c = 0; c < 0x20; ++c) t.v[c] = 'u';
  t.v[static_cast<unsigned char>('\b')] = 'b';
  t.v[static_cast<unsigned char>('\f')] = 'f';
  t.v[static_cast<unsigned char>('\n')] = 'n';
  t.v[static_cast<unsigned char>('\r')] = 'r';
  t.v[static_cast<unsigned char>('\t')] = 't';
  t.v[static_cast<unsigned char>('"')] = '"';
  t.v[static_cast<unsigned char>('\\')] = '\\';
  return t;
}();

using swar::load4;
using swar::load8;

void store8(char* p, std::uint64_t w) noexcept { std::memcpy(p, &w, 8); }
void store4(char* p, std::uint32_t w) noexcept { std::memcpy(p, &w, 4); }

// Names, literals and most short values are a few bytes: two overlapping
// word moves instead of a call to memcpy (forced inline, as GCC otherwise
// calls this, which costs as much as the memcpy call it avoids).
[[gnu::always_inline]] inline void copy(char* d, const char* s, std::size_t n) noexcept {
  if (n > 16) {
    std::memcpy(d, s, n);
  } else if (n >= 8) {
    const std::uint64_t head = load8(s), tail = load8(s + n - 8);
    store8(d, head);
    store8(d + n - 8, tail);
  } else if (n >= 4) {
    const std::uint32_t head = load4(s), tail = load4(s + n - 4);
    store4(d, head);
    store4(d + n - 4, tail);
  } else {
    for (std::size_t i = 0; i < n; ++i) d[i] = s[i];
  }
}

// Bit 7 of a byte of the result is set where `w` holds a byte below 0x20, '"'
// or '\\'. The classic "has a byte less than n" and "has a zero byte" tests:
// a borrow can flag a byte wrongly only above one flagged rightly, so on a
// little-endian load the lowest set bit is the first byte to escape, and
// bytes >= 0x80 (UTF-8) never match.
constexpr std::uint64_t escape_stops(std::uint64_t w) noexcept {
  return swar::control_lanes(w) | swar::lanes_equal(w, '"') | swar::lanes_equal(w, '\\');
}

static_assert(escape_stops(0x41C3A94141414141ULL) == 0);
static_assert(std::countr_zero(escape_stops(0x4141414141224141ULL)) / 8 == 2);
static_assert(std::countr_zero(escape_stops(0x5C414141411F4141ULL)) / 8 == 2);

#if defined(__SSE2__)
// Bit i is set where v's byte i needs an escape: '"', '\\', or below 0x20.
unsigned escape_stops16(__m128i v) noexcept {
  const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
  const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
  // Unsigned v <= 0x1F, as min(v, 0x1F) == v (UTF-8 bytes are not controls).
  const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)));
}
#endif

// The first byte at or after `p` that needs an escape, or `end`, eight bytes
// at a time; a tail shorter than that is read again as the last eight bytes
// of the string when it has eight.
const char* next_escape8(const char* p, const char* end, const char* begin) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    const swar::scan_end e = swar::first_stop8(p, end, begin, escape_stops);
    if (e.decided) return e.at;
    p = e.at;
  }
  while (p != end && escape_table.v[static_cast<unsigned char>(*p)] == 0) ++p;
  return p;
}

// Copies the bytes from `p` up to the first one that needs an escape (or
// `end`) to `d`, and returns that byte; `begin` is the start of the string.
// With SSE2, each 16-byte chunk is stored as it is checked (the caller has
// reserved room for at least what is left of the string, so a chunk always
// fits), and the tail is checked by reading the string's last 16 bytes again.
const char* copy_plain(char*& d, const char* p, const char* end, const char* begin) noexcept {
#if defined(__SSE2__)
  for (; end - p >= 16; p += 16, d += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d), v);
    if (const unsigned m = escape_stops16(v)) {
      const int n = std::countr_zero(m);
      d += n;
      return p + n;
    }
  }
  if (p != end && end - begin >= 16) {
    const auto left = static_cast<std::size_t>(end - p);
    const unsigned m =
        escape_stops16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(end - 16))) >> (16 - left);
    const std::size_t n = m != 0 ? static_cast<std::size_t>(std::countr_zero(m)) : left;
    copy(d, p, n);
    d += n;
    return p + n;
  }
#endif
  const char* stop = next_escape8(p, end, begin);
  copy(d, p, static_cast<std::size_t>(stop - p));
  d += stop - p;
  return stop;
}

// Writes into a std::string used as a raw buffer from `offset` on: the cursor
// runs ahead, and reserve(n) makes sure n more bytes fit, growing the
// string's size to exactly that when they do not (std::string grows its
// capacity geometrically, and growing the size only as needed keeps the
// zero-fill of resize small). Every put must be covered by an earlier reserve.
class writer {
 public:
  writer(std::string& buf, std::size_t offset) noexcept
      : buf_(buf), d_(buf.data() + offset), limit_(buf.data() + buf.size()) {}

  [[gnu::always_inline]] void reserve(std::size_t n) {
    if (static_cast<std::size_t>(limit_ - d_) < n) grow(n);
  }
  void put(char c) noexcept { *d_++ = c; }
  void put(const char* s, std::size_t n) noexcept {
    copy(d_, s, n);
    d_ += n;
  }
  void put(const std::string& s) noexcept { put(s.data(), s.size()); }
  char* cursor() const noexcept { return d_; }
  void advance_to(char* d) noexcept { d_ = d; }
  std::size_t used() const noexcept { return static_cast<std::size_t>(d_ - buf_.data()); }

 private:
  void grow(std::size_t n) {
    const std::size_t at = used();
    buf_.resize(at + n);
    d_ = buf_.data() + at;
    limit_ = buf_.data() + buf_.size();
  }

  std::string& buf_;
  char* d_;
  char* limit_;
};

// `s` escaped, without quotes; `after` more bytes are reserved behind it for
// the caller (a closing quote).
void write_escaped(writer& w, std::string_view s, std::size_t after) {
  const char* p = s.data();
  const char* const end = p + s.size();
  w.reserve(s.size() + after);
  for (;;) {
    char* d = w.cursor();
    const char* stop = copy_plain(d, p, end, s.data());
    w.advance_to(d);
    if (stop == end) return;
    p = stop + 1;
    // An escape is at most 6 bytes for one: what is left now fits again.
    w.reserve(6 + static_cast<std::size_t>(end - p) + after);
    const auto c = static_cast<unsigned char>(*stop);
    const char e = escape_table.v[c];
    if (e == 'u') {
      static constexpr char hex[] = "0123456789abcdef";
      const char buf[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF]};
      w.put(buf, sizeof buf);
    } else {
      w.put('\\');
      w.put(e);
    }
  }
}

}  // namespace

void append_escaped(std::string& out, std::string_view s) {
  writer w(out, out.size());
  write_escaped(w, s, 0);
  out.resize(w.used());
}

namespace {

std::size_t subtree_size(const plan::column& c) noexcept {
  std::size_t n = 1;
  for (const plan::column& f : c.fields) n += subtree_size(f);
  return n;
}

void add_field(std::vector<encode_definition::field>& out, std::size_t slot, const plan::column& c,
               std::string_view name, bool first, bool top_level) {
  std::string prefix = first ? (top_level ? "{\"" : "\"") : ",\"";
  append_escaped(prefix, name);
  prefix += "\":";
  const char open = c.type == plan::column_type::row ? '{' : '"';
  out.push_back({slot, c.type, prefix, prefix + "null", prefix + open, prefix + "true", prefix + "false",
                 c.scale, 0, false});
  if (c.type != plan::column_type::row) return;
  const std::size_t self = out.size() - 1;
  std::size_t child = slot + 1;
  bool first_child = true;
  for (const plan::column& f : c.fields) {
    add_field(out, child, f, f.name, first_child, false);
    child += subtree_size(f);
    first_child = false;
  }
  encode_definition::field close;
  close.slot = slot;
  close.closes_row = true;
  out.push_back(std::move(close));
  out[self].skip_to = out.size();
}

}  // namespace

char* put_decimal(char* d, plan::int128 v, int scale) noexcept {
  char digits[40];
  int n = 0;
  plan::uint128 m = v < 0 ? static_cast<plan::uint128>(-(v + 1)) + 1 : static_cast<plan::uint128>(v);
  do {
    digits[n++] = static_cast<char>('0' + static_cast<int>(m % 10));
    m /= 10;
  } while (m != 0);
  while (n <= scale) digits[n++] = '0';
  if (v < 0) *d++ = '-';
  for (int k = n; k-- > 0;) {
    *d++ = digits[k];
    if (k == scale && scale > 0) *d++ = '.';
  }
  return d;
}

encode_definition::encode_definition(const project_definition& projection) {
  fields_.reserve(projection.columns().size());
  bool first = true;
  for (const auto& c : projection.columns()) {
    add_field(fields_, c.slot, c.column, c.output_name, first, true);
    first = false;
  }
}

std::string_view encode(const encode_definition& def, const row& r, std::string& out) {
  writer w(out, 0);
  if (def.fields().empty()) {
    w.reserve(2);
    w.put("{}", 2);
    return {out.data(), w.used()};
  }
  const auto& fields = def.fields();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const auto& f = fields[i];
    if (f.closes_row) {
      w.reserve(1);
      w.put('}');
      continue;
    }
    const slot& s = r.slots[f.slot];
    const std::string* whole = &f.with_null;
    if (!s.is_null) {
      // The common types by conditional branches first: the predictor learns
      // their order from the projection's, where a jump table's one indirect
      // branch per field was mispredicted often enough to cost flat records
      // several percent (bench/README.md, the flat regression).
      if (f.type == plan::column_type::string) {
        w.reserve(f.with_open.size());
        w.put(f.with_open);
        write_escaped(w, s.string, 1);
        w.put('"');
        continue;
      }
      if (f.type == plan::column_type::bigint || f.type == plan::column_type::timestamp) {
        // 20 bytes hold any int64 ("-9223372036854775808"), so to_chars cannot fail.
        constexpr std::size_t digits = 20;
        w.reserve(f.prefix.size() + digits);
        w.put(f.prefix);
        w.advance_to(std::to_chars(w.cursor(), w.cursor() + digits, s.bigint).ptr);
        continue;
      }
      switch (f.type) {
        case plan::column_type::bigint:
        case plan::column_type::timestamp:
        case plan::column_type::string:
          break;  // above
        case plan::column_type::boolean:
          whole = s.boolean ? &f.with_true : &f.with_false;
          break;
        case plan::column_type::double_: {
          // The shortest round-trip form of a finite double fits in 24 bytes.
          constexpr std::size_t room = 32;
          w.reserve(f.prefix.size() + room);
          w.put(f.prefix);
          w.advance_to(std::to_chars(w.cursor(), w.cursor() + room, s.dbl).ptr);
          continue;
        }
        case plan::column_type::decimal: {
          constexpr std::size_t room = 48;
          w.reserve(f.prefix.size() + room);
          w.put(f.prefix);
          w.advance_to(put_decimal(w.cursor(), s.decimal, f.scale));
          continue;
        }
        case plan::column_type::json:
          w.reserve(f.prefix.size() + s.string.size());
          w.put(f.prefix);
          w.put(s.string.data(), s.string.size());
          continue;
        case plan::column_type::row:
          w.reserve(f.with_open.size());
          w.put(f.with_open);
          continue;
      }
    }
    w.reserve(whole->size());
    w.put(*whole);
    if (f.type == plan::column_type::row) i = f.skip_to - 1;
  }
  w.reserve(1);
  w.put('}');
  return {out.data(), w.used()};
}

}  // namespace streamt::operators
