#include "operators/encode.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>

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

}  // namespace

namespace {

// True if any of the 8 bytes in `w` is below 0x20, '"' or '\\'. The classic
// "has a byte less than n" and "has a zero byte" tests: exact about whether
// such a byte exists (not which), and bytes >= 0x80 (UTF-8) never match.
constexpr bool needs_escape(std::uint64_t w) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101ULL;
  constexpr std::uint64_t highs = 0x8080808080808080ULL;
  auto has_zero = [](std::uint64_t x) { return ((x - ones) & ~x & highs) != 0; };
  bool control = ((w - ones * 0x20) & ~w & highs) != 0;
  return control || has_zero(w ^ (ones * '"')) || has_zero(w ^ (ones * '\\'));
}

}  // namespace

void append_escaped(std::string& out, std::string_view s) {
  const char* p = s.data();
  const char* end = p + s.size();
  const char* run = p;
  // Copy maximal runs of bytes that need no escape in one append: typical
  // values have no escapes at all and become a single memcpy. Eight bytes are
  // checked at once; a word with a candidate is then walked byte by byte.
  while (p != end) {
    if (end - p >= 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      if (!needs_escape(w)) {
        p += 8;
        continue;
      }
    }
    const char* stop = end - p >= 8 ? p + 8 : end;
    for (; p != stop; ++p) {
      char e = escape_table.v[static_cast<unsigned char>(*p)];
      if (e == 0) continue;
      out.append(run, p);
      if (e == 'u') {
        static constexpr char hex[] = "0123456789abcdef";
        unsigned char c = static_cast<unsigned char>(*p);
        char buf[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF]};
        out.append(buf, sizeof buf);
      } else {
        char buf[2] = {'\\', e};
        out.append(buf, sizeof buf);
      }
      run = p + 1;
    }
  }
  out.append(run, end);
}

encode_definition::encode_definition(const project_definition& projection) {
  fields_.reserve(projection.columns().size());
  bool first = true;
  for (const auto& c : projection.columns()) {
    std::string prefix = first ? "{\"" : ",\"";
    append_escaped(prefix, c.output_name);
    prefix += "\":";
    fields_.push_back({c.slot, c.type, std::move(prefix)});
    first = false;
  }
}

std::string_view encode(const encode_definition& def, const row& r, std::string& out) {
  out.clear();
  if (def.fields().empty()) {
    out += "{}";
    return out;
  }
  for (const auto& f : def.fields()) {
    out += f.prefix;
    const slot& s = r.slots[f.slot];
    if (s.is_null) {
      out += "null";
      continue;
    }
    switch (f.type) {
      case plan::column_type::bigint: {
        char buf[24];
        // 24 bytes hold any int64 ("-9223372036854775808" is 20), so it cannot fail.
        auto res = std::to_chars(buf, buf + sizeof buf, s.bigint);
        out.append(buf, res.ptr);
        break;
      }
      case plan::column_type::boolean:
        out += s.boolean ? "true" : "false";
        break;
      case plan::column_type::string:
        out += '"';
        append_escaped(out, s.string);
        out += '"';
        break;
    }
  }
  out += '}';
  return out;
}

}  // namespace streamt::operators
