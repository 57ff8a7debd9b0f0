// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "test/fuzz/fuzz_support.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace streamt::fuzz {

namespace {

// Printable and bounded: a fuzzer input is arbitrary bytes and may be large.
std::string shown(std::string_view s) {
  constexpr std::size_t limit = 512;
  std::string out;
  static constexpr char hex[] = "0123456789abcdef";
  for (char ch : s.substr(0, std::min(s.size(), limit))) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += ch;
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xF];
    }
  }
  if (s.size() > limit) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

}  // namespace

void violated(std::string_view what, std::string_view input, std::string_view detail) {
  std::fprintf(stderr, "fuzz invariant violated: %.*s\n  input: %s\n", static_cast<int>(what.size()),
               what.data(), shown(input).c_str());
  if (!detail.empty()) std::fprintf(stderr, "  detail: %s\n", shown(detail).c_str());
  std::fflush(stderr);
  std::abort();
}

void check_diagnostic(const diagnostic& d, std::string_view input,
                      std::initializer_list<streamt::phase> phases) {
  if (d.code.empty()) violated("a diagnostic has no code", input, d.message);
  if (d.message.empty()) violated("a diagnostic has no message", input, d.code);
  if (std::find(phases.begin(), phases.end(), d.phase) == phases.end())
    violated("a diagnostic has an unexpected phase", input, std::string(to_string(d.phase)) + " " + d.code);
}

}  // namespace streamt::fuzz
