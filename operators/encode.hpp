// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// encode: typed row → the output value, a compact JSON object with the
// projected columns in projection order under their output names (contract §4).
//
// Every `"name":` (with its separator) is rendered and escaped once, when the
// definition is built, together with what can follow it whole (`null`,
// `true`, `false`, a string's opening quote); per record only values are
// written, through a pointer into a buffer that keeps its size between
// records. BIGINTs are exact (std::to_chars), TIMESTAMPs their epoch
// milliseconds, DOUBLEs the shortest text that reads back as the same value,
// DECIMALs exactly `scale` fraction digits; a JSON column's value is copied
// as decode wrote it (compact), and a ROW is written as an object of its
// declared members in schema order. Strings are escaped as JSON
// requires and no more: `"` and `\` with a backslash, control characters as
// \b \f \n \r \t or \u00XX, and everything else, UTF-8 included, passed through
// unchanged (decode has already checked it is valid UTF-8); eight bytes are
// checked at a time, and a string without such bytes is one copy.

#include "operators/project.hpp"
#include "operators/row.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace streamt::operators {

// Appends `s` JSON-escaped (without surrounding quotes) to `out`.
void append_escaped(std::string& out, std::string_view s);

// The unscaled `v` at `scale` as a JSON number into `d` (at least 42 bytes:
// a sign, 38 digits, a point and a leading zero); returns its end.
char* put_decimal(char* d, plan::int128 v, int scale) noexcept;

class encode_definition {
 public:
  explicit encode_definition(const project_definition& projection);

  // One member to write, in output order. A projected ROW is a field that
  // opens its object, the fields of its members, then a field that closes
  // it; when the ROW is null, `skip_to` is the field after that close.
  struct field {
    std::size_t slot = 0;
    plan::column_type type = plan::column_type::string;
    std::string prefix;  // `{"name":` for the first field, `,"name":` after
    // The prefix followed by `null`, and by what each type's value starts
    // with: `"` for STRING, `{` for ROW, `true` and `false` for BOOLEAN
    // (numbers: nothing).
    std::string with_null, with_open, with_true, with_false;
    int scale = 0;            // DECIMAL
    std::size_t skip_to = 0;  // ROW
    bool closes_row = false;  // writes `}` only
  };
  const std::vector<field>& fields() const noexcept { return fields_; }

 private:
  std::vector<field> fields_;
};

// Encodes the row into `out` and returns a view of the encoded value, which
// starts at out.data(). `out` is a scratch buffer: it keeps the largest size
// it has needed (grown, never shrunk, so steady state allocates nothing), and
// its bytes after the view are unspecified.
std::string_view encode(const encode_definition& def, const row& r, std::string& out);

}  // namespace streamt::operators
