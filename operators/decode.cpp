// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "operators/decode.hpp"

#include "operators/registry_frame.hpp"

#include "operators/swar.hpp"

#include "plan/utf8.hpp"
#include "plan/values.hpp"

#include "operators/encode.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/parse.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace streamt::operators {

namespace {

// "$.after.amount"; a name that is not a plain identifier is written
// bracketed and quoted ("$.payload[\"user-id\"]").
std::string json_path_of(const std::vector<std::string>& path) {
  std::string out = "$";
  for (const std::string& segment : path) {
    bool plain = !segment.empty() && !(segment[0] >= '0' && segment[0] <= '9');
    for (char c : segment)
      plain =
          plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_');
    if (plain) {
      out += '.';
      out += segment;
    } else {
      out += "[\"";
      append_escaped(out, segment);
      out += "\"]";
    }
  }
  return out;
}

}  // namespace

decode_definition::decode_definition(const plan::schema& s, std::size_t max_value_bytes)
    : max_value_bytes_(max_value_bytes), ignore_unknown_(s.unknown_fields == plan::unknown_fields::ignore) {
  const std::vector<plan::node> flat = plan::flatten(s);
  columns_.reserve(flat.size());
  nodes_.resize(flat.size());
  for (std::size_t i = 0; i < flat.size(); ++i) {
    plan::column c = *flat[i].column;
    c.fields.clear();  // children() lists them; a copy of each subtree per node is not needed
    columns_.push_back(std::move(c));
    node& n = nodes_[i];
    n.children = flat[i].children;
    n.name.clear();
    for (const std::string& segment : flat[i].path) n.name += (n.name.empty() ? "" : ".") + segment;
    n.json_path = json_path_of(flat[i].path);
    n.ignore_unknown = flat[i].ignore_unknown;
    if (flat[i].column->from != plan::column_source::value)
      metadata_.push_back(i);
    else if (flat[i].parent == plan::node{}.parent)
      top_.push_back(i);
    if (flat[i].column->from != plan::column_source::value || flat[i].column->type == plan::column_type::row)
      flat_ = false;
  }
  // Pre-order: a subtree ends where the next node at its depth or above begins.
  for (std::size_t i = flat.size(); i-- > 0;) {
    std::size_t end = i + 1;
    for (std::size_t child : nodes_[i].children) end = std::max(end, nodes_[child].end);
    nodes_[i].end = end;
  }
  auto length_bit = [](const std::string& name) {
    return std::uint64_t{1} << std::min<std::size_t>(name.size(), 63);
  };
  for (std::size_t i : top_) top_lengths_ |= length_bit(columns_[i].name);
  for (node& n : nodes_)
    for (std::size_t child : n.children) n.member_lengths |= length_bit(columns_[child].name);
  fast_.reserve(columns_.size());
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    const plan::column& c = columns_[i];
    for (char ch : c.name)
      if (ch < 0x20 || ch > 0x7E || ch == '"' || ch == '\\') plain_names_ = false;
    fast_node k;
    k.length = static_cast<std::uint32_t>(c.name.size());
    k.nullable = c.nullable;
    k.type = c.type;
    k.precision = c.precision;
    k.scale = c.scale;
    k.end = nodes_[i].end;
    if (c.name.size() + 2 <= 16) {
      unsigned char word[16] = {}, mask[16] = {};
      std::memcpy(word, c.name.data(), c.name.size());
      word[c.name.size()] = '"';
      word[c.name.size() + 1] = ':';
      std::memset(mask, 0xFF, c.name.size() + 2);
      std::memcpy(k.word, word, sizeof word);
      std::memcpy(k.mask, mask, sizeof mask);
      k.pattern_room = 16;
    }
    fast_.push_back(k);
  }
}

std::optional<std::size_t> decode_definition::find_child(std::size_t parent, std::string_view key,
                                                         std::size_t hint) const noexcept {
  // Length and first byte first: most mismatches end there, without a call to memcmp.
  auto same = [key](const std::string& name) {
    return name.size() == key.size() &&
           (key.empty() || (name[0] == key[0] && std::memcmp(name.data(), key.data(), key.size()) == 0));
  };
  const std::vector<std::size_t>& in = children(parent);
  if (hint < in.size() && same(columns_[in[hint]].name)) return in[hint];
  for (std::size_t i : in)
    if (same(columns_[i].name)) return i;
  return std::nullopt;
}

namespace {

namespace json = boost::json;

enum class failure {
  none,
  not_an_object,
  unknown_field,
  duplicate_field,
  missing_column,
  unexpected_null,
  wrong_type,
  bigint_out_of_range,
  // Version 2's types: the value has the right JSON type but is not one of
  // the column's values; failed_text() holds the reason.
  invalid_decimal,
  double_out_of_range,
  invalid_timestamp,
};

std::string number_text(std::string_view s);

// Is the magnitude of a JSON number (text Boost.JSON has accepted) below 1?
// Only asked of numbers from_chars finds out of range, which are either
// beyond DOUBLE's largest value or nearer to zero than its least subnormal:
// the order of magnitude of the first significant digit tells them apart.
bool below_one(std::string_view t) noexcept {
  if (!t.empty() && t[0] == '-') t.remove_prefix(1);
  const std::size_t e = t.find_first_of("eE");
  long long exponent = 0;
  if (e != std::string_view::npos) {
    std::size_t i = e + 1;
    const bool negative = i < t.size() && t[i] == '-';
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    // Saturates far beyond any digit count a value of at most 1 MiB has.
    for (; i < t.size(); ++i) exponent = std::min(exponent * 10 + (t[i] - '0'), 1'000'000'000LL);
    if (negative) exponent = -exponent;
    t = t.substr(0, e);
  }
  const std::size_t point = t.find('.');
  const std::string_view whole = t.substr(0, point);
  // JSON writes no leading zeros: a whole part other than "0" is at least 1.
  if (whole != "0") return static_cast<long long>(whole.size()) - 1 + exponent < 0;
  if (point == std::string_view::npos) return true;  // zero itself
  const std::string_view fraction = t.substr(point + 1);
  const std::size_t first = fraction.find_first_not_of('0');
  if (first == std::string_view::npos) return true;
  return -static_cast<long long>(first) - 1 + exponent < 0;
}

// What the parser had just read when the handler refused it. Boost.JSON
// reports a handler failure at a token-dependent place (a string's closing
// quote, the end of a number, the first byte of a literal or bracket), so the
// offset of the token's first byte is recovered from it afterwards: tracking
// positions during the parse would cost every record, failures are rare.
enum class token { key, string, number, other };

// Runs inside basic_parser. Each object the schema declares (the top-level
// one, and the value of each ROW column) is a frame; any other nested object
// or array is refused where it begins, so an unknown or wrongly typed subtree
// is never walked. Two kinds of value are walked without frames: the value of
// an undeclared member the plan ignores (skipped), and the value of a JSON
// column (written compactly into its slot).
class handler {
 public:
  static constexpr std::size_t max_object_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_array_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_key_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_string_size = std::numeric_limits<std::size_t>::max();

  void start(const decode_definition& def, row& out) {
    def_ = &def;
    row_ = &out;
    frames_.clear();
    seen_.assign(def.column_count(), 0);
    current_ = 0;
    in_string_ = false;
    skipping_ = false;
    skip_depth_ = 0;
    json_depth_ = 0;
    key_.clear();
    number_.clear();
    failure_ = failure::none;
    text_.clear();
  }

  failure failed() const noexcept { return failure_; }
  token failed_token() const noexcept { return failed_token_; }
  std::size_t failed_column() const noexcept { return current_; }
  std::size_t failed_parent() const noexcept { return failed_parent_; }
  std::string_view found() const noexcept { return found_; }
  const std::string& failed_text() const noexcept { return text_; }

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }

  bool on_object_begin(json::error_code& ec) {
    if (skipping_) {
      ++skip_depth_;
      return true;
    }
    if (json_depth_ > 0 || capturing_json()) return json_open('{');
    if (frames_.empty()) {
      frames_.push_back({decode_definition::top, 0});
      return true;
    }
    if (type() != plan::column_type::row) return refuse_value(ec, "an object", token::other);
    row_->slots[current_].is_null = false;
    frames_.push_back({current_, 0});
    return true;
  }

  bool on_object_end(std::size_t, json::error_code& ec) {
    if (skipping_) return end_skipped_container();
    if (json_depth_ > 0) return json_close('}');
    const frame f = frames_.back();
    const auto& expected = def_->children(f.row);
    if (f.seen_count != expected.size()) {
      for (std::size_t child : expected)
        if (!seen_[child]) {
          current_ = child;
          break;
        }
      return fail(ec, failure::missing_column, token::other);
    }
    frames_.pop_back();
    return true;
  }

  bool on_array_begin(json::error_code& ec) {
    if (skipping_) {
      ++skip_depth_;
      return true;
    }
    if (json_depth_ > 0 || capturing_json()) return json_open('[');
    return refuse_value(ec, "an array", token::other);
  }
  // Reached only inside a skipped member or a JSON column: every other array
  // is refused where it begins.
  bool on_array_end(std::size_t, json::error_code&) {
    if (skipping_) return end_skipped_container();
    return json_close(']');
  }

  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    if (skipping_) return true;
    if (json_depth_ > 0) {
      if (!in_string_) json_separator(), json_out().push_back('"');
      in_string_ = true;
      append_escaped(json_out(), {s.data(), s.size()});
      return true;
    }
    key_.append(s.data(), s.size());
    return true;
  }

  bool on_key(json::string_view s, std::size_t, json::error_code& ec) {
    if (skipping_) return true;  // a key inside a skipped member
    if (json_depth_ > 0) {
      if (!in_string_) json_separator(), json_out().push_back('"');
      in_string_ = false;
      append_escaped(json_out(), {s.data(), s.size()});
      json_out() += "\":";
      after_key_ = true;
      return true;
    }
    std::string_view key(s.data(), s.size());
    if (!key_.empty()) {
      key_.append(s.data(), s.size());
      key = key_;
    }
    frame& f = frames_.back();
    auto column = def_->find_child(f.row, key, f.seen_count);
    if (!column && def_->ignore_unknown(f.row)) {
      // Undeclared and the plan says to ignore it: its value is still parsed
      // (so it must be well-formed JSON) but stored nowhere. Duplicates among
      // such members are not looked for; the record never shows them.
      key_.clear();
      skipping_ = true;
      skip_depth_ = 0;
      return true;
    }
    if (!column) {
      text_.assign(key);
      key_.clear();
      failed_parent_ = f.row;
      return fail(ec, failure::unknown_field, token::key);
    }
    key_.clear();
    current_ = *column;
    if (seen_[current_]) return fail(ec, failure::duplicate_field, token::key);
    seen_[current_] = 1;
    ++f.seen_count;
    return true;
  }

  // Parts of a string arrive when it holds escapes or is very long. A column
  // of another type ignores them and refuses the string once it is complete,
  // so the failure is always reported at the same place.
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
    if (skipping_) return true;
    if (json_depth_ > 0 || capturing_json()) {
      if (!in_string_) json_begin_scalar(), json_out().push_back('"');
      in_string_ = true;
      append_escaped(json_out(), {s.data(), s.size()});
      return true;
    }
    if (frames_.empty()) return true;
    const auto t = type();
    if (t != plan::column_type::string && t != plan::column_type::decimal &&
        t != plan::column_type::timestamp)
      return true;
    auto& slot = row_->slots[current_];
    if (!in_string_) {
      slot.storage.clear();
      in_string_ = true;
    }
    slot.storage.append(s.data(), s.size());
    return true;
  }

  bool on_string(json::string_view s, std::size_t, json::error_code& ec) {
    if (skipping_) return end_skipped_scalar();
    if (json_depth_ > 0 || capturing_json()) {
      if (!in_string_) json_begin_scalar(), json_out().push_back('"');
      in_string_ = false;
      append_escaped(json_out(), {s.data(), s.size()});
      json_out().push_back('"');
      return json_end_scalar();
    }
    if (frames_.empty()) return refuse_value(ec, "a string", token::string);
    const auto t = type();
    if (t != plan::column_type::string && t != plan::column_type::decimal &&
        t != plan::column_type::timestamp)
      return refuse_value(ec, "a string", token::string);
    auto& slot = row_->slots[current_];
    // Boost.JSON's view may point into its own buffer: always copied.
    if (in_string_) {
      slot.storage.append(s.data(), s.size());
      in_string_ = false;
    } else {
      slot.storage.assign(s.data(), s.size());
    }
    if (t == plan::column_type::decimal) return set_decimal(ec, slot.storage, token::string);
    if (t == plan::column_type::timestamp) {
      std::string problem;
      const auto ts = plan::parse_timestamp(slot.storage, problem);
      if (!ts) {
        text_ = "\"" + slot.storage.substr(0, 64) + (slot.storage.size() > 64 ? "...\" " : "\" ") + problem;
        return fail(ec, failure::invalid_timestamp, token::string);
      }
      slot.bigint = ts->millis;
      slot.is_null = false;
      return true;
    }
    slot.string = slot.storage;
    slot.is_null = false;
    return true;
  }

  // Only when the input ends inside a number, which a complete value given in
  // one call cannot do before the end; kept so the number's text is whole.
  bool on_number_part(json::string_view s, json::error_code&) {
    if (skipping_) return true;
    number_.append(s.data(), s.size());
    return true;
  }

  bool on_int64(std::int64_t i, json::string_view s, json::error_code& ec) {
    if (skipping_) return end_skipped_scalar();
    if (json_depth_ > 0 || capturing_json()) return json_number(s);
    if (frames_.empty()) return refuse_number(ec, "a number", s);
    switch (type()) {
      case plan::column_type::bigint:
      case plan::column_type::timestamp: {
        if (type() == plan::column_type::timestamp &&
            (i < plan::min_timestamp_millis || i > plan::max_timestamp_millis)) {
          text_ = number_text(number_ + std::string(s.data(), s.size())) +
                  " epoch milliseconds is outside the years 0001 to 9999";
          number_.clear();
          return fail(ec, failure::invalid_timestamp, token::number);
        }
        number_.clear();
        auto& slot = row_->slots[current_];
        slot.bigint = i;
        slot.is_null = false;
        return true;
      }
      case plan::column_type::double_:
      case plan::column_type::decimal:
        return other_number(ec, s);
      default:
        return refuse_number(ec, "a number", s);
    }
  }

  // Boost.JSON reports integers above INT64_MAX as uint64 (up to UINT64_MAX).
  bool on_uint64(std::uint64_t, json::string_view s, json::error_code& ec) {
    if (skipping_) return end_skipped_scalar();
    if (json_depth_ > 0 || capturing_json()) return json_number(s);
    if (frames_.empty()) return refuse_number(ec, "a number", s);
    switch (type()) {
      case plan::column_type::bigint:
        return out_of_range(ec, s);
      case plan::column_type::timestamp:
        text_ = number_text(number_ + std::string(s.data(), s.size())) +
                " epoch milliseconds is outside the years 0001 to 9999";
        return fail(ec, failure::invalid_timestamp, token::number);
      case plan::column_type::double_:
      case plan::column_type::decimal:
        return other_number(ec, s);
      default:
        return refuse_number(ec, "a number", s);
    }
  }

  // Fractions, exponents, and integers outside both int64 and uint64 (such as
  // -9223372036854775809) all arrive as doubles; only the text tells them apart.
  bool on_double(double, json::string_view s, json::error_code& ec) {
    if (skipping_) return end_skipped_scalar();
    if (json_depth_ > 0 || capturing_json()) return json_number(s);
    if (frames_.empty()) return refuse_number(ec, "a number", s);
    const auto t = type();
    if (t == plan::column_type::double_ || t == plan::column_type::decimal) return other_number(ec, s);
    if (t != plan::column_type::bigint && t != plan::column_type::timestamp)
      return refuse_number(ec, "a number", s);
    std::string_view text(s.data(), s.size());
    if (text.find_first_of(".eE") == std::string_view::npos &&
        number_.find_first_of(".eE") == std::string::npos) {
      if (t == plan::column_type::bigint) return out_of_range(ec, s);
      text_ = number_text(number_ + std::string(s.data(), s.size())) +
              " epoch milliseconds is outside the years 0001 to 9999";
      return fail(ec, failure::invalid_timestamp, token::number);
    }
    return refuse_number(ec, "a number with a fraction or exponent", s);
  }

  bool on_bool(bool b, json::error_code& ec) {
    if (skipping_) return end_skipped_scalar();
    if (json_depth_ > 0 || capturing_json()) {
      json_begin_scalar();
      json_out() += b ? "true" : "false";
      return json_end_scalar();
    }
    if (frames_.empty() || type() != plan::column_type::boolean)
      return refuse_value(ec, "a boolean", token::other);
    auto& slot = row_->slots[current_];
    slot.boolean = b;
    slot.is_null = false;
    return true;
  }

  bool on_null(json::error_code& ec) {
    if (skipping_) return end_skipped_scalar();
    if (json_depth_ > 0) {
      json_begin_scalar();
      json_out() += "null";
      return json_end_scalar();
    }
    if (frames_.empty()) return refuse_value(ec, "null", token::other);
    if (!def_->column(current_).nullable) return fail(ec, failure::unexpected_null, token::other);
    // A null ROW makes every column inside it null: a comparison on any of
    // them is then not true, and a projected one is written as null.
    for (std::size_t i = current_; i < def_->subtree_end(current_); ++i) row_->slots[i].is_null = true;
    return true;
  }

  // Comments are disabled in the parse options; these are never called.
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

 private:
  struct frame {
    std::size_t row;         // the ROW's node, or decode_definition::top
    std::size_t seen_count;  // its declared members read so far
  };

  plan::column_type type() const noexcept { return def_->column(current_).type; }

  // A value starts for the current column while no JSON value is being
  // written: it is the JSON column's value itself.
  bool capturing_json() const noexcept { return !frames_.empty() && type() == plan::column_type::json; }

  std::string& json_out() noexcept { return row_->slots[current_].storage; }

  // Before a value or key inside a JSON column's value: the comma that
  // separates it from the previous one, unless it follows a key or opens
  // its container. At depth 0 (the column's value itself) the slot starts.
  void json_separator() {
    if (json_depth_ == 0) {
      json_out().clear();
      return;
    }
    if (!after_key_ && !json_first_) json_out().push_back(',');
    after_key_ = false;
    json_first_ = false;
  }
  void json_begin_scalar() { json_separator(); }
  bool json_end_scalar() {
    if (json_depth_ == 0) finish_json();
    return true;
  }
  bool json_open(char c) {
    json_separator();
    json_out().push_back(c);
    ++json_depth_;
    json_first_ = true;
    return true;
  }
  bool json_close(char c) {
    json_out().push_back(c);
    json_first_ = false;
    if (--json_depth_ == 0) finish_json();
    return true;
  }
  bool json_number(json::string_view s) {
    json_begin_scalar();
    json_out() += number_;
    json_out().append(s.data(), s.size());
    number_.clear();
    return json_end_scalar();
  }
  void finish_json() {
    auto& slot = row_->slots[current_];
    slot.string = slot.storage;
    slot.is_null = false;
    after_key_ = false;
    json_first_ = false;
  }

  // A number for a DOUBLE or DECIMAL column, from its text: parsed exactly,
  // never through Boost.JSON's double.
  bool other_number(json::error_code& ec, json::string_view s) {
    std::string_view text(s.data(), s.size());
    if (!number_.empty()) {
      number_.append(s.data(), s.size());
      text = number_;
    }
    auto& slot = row_->slots[current_];
    if (type() == plan::column_type::decimal) {
      const bool ok = set_decimal(ec, text, token::number);
      number_.clear();
      return ok;
    }
    double d = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), d);
    if (r.ec == std::errc::result_out_of_range && below_one(text)) {
      // Nearer to zero than the least subnormal (1e-400): IEEE 754 rounds it
      // to zero, as Boost.JSON and every other JSON reader do. Only a number
      // beyond the largest finite double is out of DOUBLE's range.
      d = text.starts_with('-') ? -0.0 : 0.0;
    } else if (r.ec != std::errc() || !std::isfinite(d)) {
      text_ = number_text(text);
      number_.clear();
      return fail(ec, failure::double_out_of_range, token::number);
    }
    number_.clear();
    slot.dbl = d;
    slot.is_null = false;
    return true;
  }

  bool set_decimal(json::error_code& ec, std::string_view text, token t) {
    const auto& c = def_->column(current_);
    plan::decimal_verdict v = plan::parse_decimal(text, c.precision, c.scale);
    if (!v.problem.empty()) {
      text_ = (t == token::string ? "\"" + number_text(text) + "\"" : number_text(text)) + " " + v.problem;
      return fail(ec, failure::invalid_decimal, t);
    }
    auto& slot = row_->slots[current_];
    slot.decimal = v.value.unscaled;
    slot.is_null = false;
    return true;
  }

  // A skipped member ends with its value: a scalar at its own level, or the
  // close of the container it opened (nested ones only count down).
  bool end_skipped_scalar() noexcept {
    if (skip_depth_ == 0) skipping_ = false;
    return true;
  }
  bool end_skipped_container() noexcept {
    if (--skip_depth_ == 0) skipping_ = false;
    return true;
  }

  bool refuse_value(json::error_code& ec, std::string_view found, token t) {
    found_ = found;
    return fail(ec, frames_.empty() ? failure::not_an_object : failure::wrong_type, t);
  }

  bool refuse_number(json::error_code& ec, std::string_view found, json::string_view s) {
    text_ = number_;
    text_.append(s.data(), s.size());
    return refuse_value(ec, found, token::number);
  }

  bool out_of_range(json::error_code& ec, json::string_view s) {
    text_ = number_;
    text_.append(s.data(), s.size());
    return fail(ec, failure::bigint_out_of_range, token::number);
  }

  bool fail(json::error_code& ec, failure f, token t) {
    failure_ = f;
    failed_token_ = t;
    // Any error stops the parser; which one does not matter, failure_ says why.
    ec = json::error::exception;
    return false;
  }

  const decode_definition* def_ = nullptr;
  row* row_ = nullptr;
  std::vector<frame> frames_;        // the declared objects open, the top-level one first
  std::vector<unsigned char> seen_;  // per node; bytes, not vector<bool>: cheaper to test and set
  std::size_t current_ = 0;
  bool in_string_ = false;
  bool skipping_ = false;       // inside the value of an undeclared member the plan ignores
  std::size_t skip_depth_ = 0;  // containers open inside that value
  std::size_t json_depth_ = 0;  // containers open inside a JSON column's value
  bool json_first_ = false;     // the next item is the first of its container
  bool after_key_ = false;      // the next value follows a key
  std::string key_;             // a key that arrived in parts
  std::string number_;          // a number that arrived in parts
  failure failure_ = failure::none;
  token failed_token_ = token::other;
  std::size_t failed_parent_ = decode_definition::top;
  std::string_view found_;
  std::string text_;  // the offending key or number, or a version 2 value's reason
};

bool is_hex(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// True if the backslash at `pos` starts an escape (it is not itself escaped).
bool starts_escape(std::string_view s, std::size_t pos) noexcept {
  std::size_t run = 0;
  while (run < pos && s[pos - 1 - run] == '\\') ++run;
  return run % 2 == 0;
}

// True if s[pos..pos+6) is an escape \uD800-\uDFFF.
bool surrogate_escape_at(std::string_view s, std::size_t pos) noexcept {
  if (pos + 6 > s.size() || s[pos] != '\\' || s[pos + 1] != 'u') return false;
  char d = s[pos + 2], x = s[pos + 3];
  if (d != 'd' && d != 'D') return false;
  if (!((x >= '8' && x <= '9') || (x >= 'a' && x <= 'f') || (x >= 'A' && x <= 'F'))) return false;
  return is_hex(s[pos + 4]) && is_hex(s[pos + 5]) && starts_escape(s, pos);
}

// The surrogate escape that made Boost.JSON stop near `n`: it reports the
// position just after a lone leading surrogate, or inside the escape that
// should have been its trailing half.
std::size_t surrogate_offset(std::string_view s, std::size_t n) noexcept {
  std::size_t p = std::min(n, s.size());
  for (std::size_t back = 0; back <= 12 && p > 0; ++back) {
    --p;
    if (surrogate_escape_at(s, p)) {
      if (p >= 6 && surrogate_escape_at(s, p - 6)) return p - 6;
      return p;
    }
  }
  return std::string_view::npos;
}

// First byte of the token the handler refused; see `token`.
std::size_t token_start(std::string_view s, std::size_t n, token t) noexcept {
  if (n >= s.size()) n = s.size() == 0 ? 0 : s.size() - 1;
  switch (t) {
    case token::key:
    case token::string:
      // n is the closing quote; the opening one is the previous quote that is
      // not escaped (the parser has just accepted the string, so there is one).
      for (std::size_t p = n; p > 0; --p)
        if (s[p - 1] == '"' && starts_escape(s, p - 1)) return p - 1;
      return n;
    case token::number: {
      std::size_t p = n;
      while (p > 0 && std::string_view("0123456789+-.eE").find(s[p - 1]) != std::string_view::npos) --p;
      return p;
    }
    case token::other:
      return n;
  }
  return n;
}

void set_error(diagnostic& d, std::string_view code, std::string message) {
  d.phase = phase::record;
  d.code.assign(code);
  d.line = 0;
  d.column = 0;
  d.path.clear();
  d.message = std::move(message);
}

// 'name' for messages: JSON-escaped so control characters stay visible, and
// cut (at a character boundary) so a huge key cannot flood the log.
std::string quoted(std::string_view s) {
  constexpr std::size_t limit = 64;
  bool cut = s.size() > limit;
  if (cut) {
    std::size_t end = limit;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    s = s.substr(0, end);
  }
  std::string out = "'";
  append_escaped(out, s);
  if (cut) out += "...";
  out += '\'';
  return out;
}

// A number as found, cut so that a huge one (a BIGINT of 100,000 digits)
// cannot flood a message, a log line or a dead-letter header: its first 32
// characters and its length. Numbers are ASCII, so any cut is a boundary.
std::string number_text(std::string_view s) {
  constexpr std::size_t limit = 64;
  if (s.size() <= limit) return std::string(s);
  return std::string(s.substr(0, 32)) + "... (" + std::to_string(s.size()) + " characters)";
}

std::string at_byte(std::size_t offset) { return " at byte " + std::to_string(offset); }

std::string column_name(const decode_definition& def, std::size_t i) { return quoted(def.name(i)); }

void report_refusal(const decode_definition& def, const handler& h, std::string_view value, std::size_t n,
                    diagnostic& error) {
  std::size_t offset = token_start(value, n, h.failed_token());
  switch (h.failed()) {
    case failure::not_an_object:
      set_error(error, "not_an_object", "value is " + std::string(h.found()) + ", expected a JSON object");
      return;
    case failure::unknown_field:
      set_error(
          error, "unknown_field",
          "unknown field " + quoted(h.failed_text()) +
              (h.failed_parent() == decode_definition::top ? std::string()
                                                           : " in " + column_name(def, h.failed_parent())) +
              at_byte(offset));
      return;
    case failure::duplicate_field:
      set_error(error, "duplicate_field",
                "duplicate field " + column_name(def, h.failed_column()) + at_byte(offset));
      return;
    case failure::missing_column:
      set_error(error, "missing_column", "column " + column_name(def, h.failed_column()) + " is missing");
      return;
    case failure::unexpected_null:
      set_error(
          error, "unexpected_null",
          "column " + column_name(def, h.failed_column()) + " is not nullable, found null" + at_byte(offset));
      return;
    case failure::wrong_type: {
      const auto& col = def.column(h.failed_column());
      std::string found(h.found());
      if (!h.failed_text().empty() && h.failed_token() == token::number)
        found += " (" + number_text(h.failed_text()) + ")";
      set_error(error, "wrong_type",
                "column " + column_name(def, h.failed_column()) + " expects " + plan::type_name(col) +
                    ", found " + found + at_byte(offset));
      return;
    }
    case failure::invalid_decimal:
      set_error(error, "invalid_decimal",
                def.json_path(h.failed_column()) + ": " + h.failed_text() + at_byte(offset));
      return;
    case failure::double_out_of_range:
      set_error(error, "double_out_of_range",
                def.json_path(h.failed_column()) + ": " + h.failed_text() + at_byte(offset) +
                    " is outside the finite range of DOUBLE");
      return;
    case failure::invalid_timestamp:
      set_error(error, "invalid_timestamp",
                def.json_path(h.failed_column()) + ": " + h.failed_text() + at_byte(offset));
      return;
    case failure::bigint_out_of_range:
      set_error(error, "bigint_out_of_range",
                "column " + column_name(def, h.failed_column()) + " expects BIGINT, found " +
                    number_text(h.failed_text()) + at_byte(offset) + ", outside the signed 64-bit range");
      return;
    case failure::none:
      break;
  }
}

void report_parse_error(const json::error_code& ec, std::string_view value, std::size_t n,
                        diagnostic& error) {
  if (ec == json::error::illegal_leading_surrogate || ec == json::error::illegal_trailing_surrogate ||
      ec == json::error::expected_utf16_escape ||
      (ec == json::error::syntax && surrogate_offset(value, n) != std::string_view::npos &&
       surrogate_offset(value, n) + 6 == std::min(n, value.size()))) {
    std::size_t offset = surrogate_offset(value, n);
    set_error(error, "invalid_utf8",
              "\\u escape of a lone UTF-16 surrogate" +
                  (offset == std::string_view::npos ? std::string() : at_byte(offset)) +
                  " is not valid Unicode");
    return;
  }
  // Boost.JSON reports bad UTF-8 as a plain syntax error at the offending byte.
  std::size_t bad = plan::first_invalid_utf8(value);
  if (bad != std::string_view::npos && bad <= n) {
    set_error(error, "invalid_utf8", "invalid UTF-8" + at_byte(bad));
    return;
  }
  if (ec == json::error::incomplete) {
    set_error(error, "malformed_json", "malformed JSON: the value ends inside the document" + at_byte(n));
    return;
  }
  set_error(error, "malformed_json", "malformed JSON" + at_byte(n) + " (" + ec.message() + ")");
}

void report_trailing(std::string_view value, std::size_t n, diagnostic& error) {
  // A second document is the likeliest trailing data (two values concatenated
  // by a producer bug): say so when the next byte could start one.
  char c = value[n];
  bool document = std::string_view("{[\"-0123456789tfn").find(c) != std::string_view::npos;
  set_error(error, "trailing_data",
            (document ? "a second JSON document" : "trailing data") + at_byte(n) + " after the object");
}

// --- The fast path -------------------------------------------------------------
//
// It must never accept what the reference path refuses, nor decode a value
// differently: everything it is unsure of makes it give up (return false),
// which costs only time. The reference's grammar is RFC 8259 with Boost.JSON's
// default options (no comments, no trailing commas, strict UTF-8).

using swar::highs;
using swar::load4;
using swar::load8;
using swar::ones;

// Bit 7 of a byte of the result is set where `w` holds a byte that ends a
// plain run inside a string: `"`, `\`, a control character (below 0x20, which
// JSON forbids raw) or a non-ASCII byte (to be checked as UTF-8). The usual
// "has a zero byte" and "has a byte below n" tests: a borrow can flag a byte
// wrongly only above a byte that is flagged rightly, so on a little-endian
// load the lowest set bit is the first such byte.
constexpr std::uint64_t string_stops(std::uint64_t w) noexcept {
  return swar::control_lanes(w) | swar::lanes_equal(w, '"') | swar::lanes_equal(w, '\\') | (w & highs);
}

static_assert(string_stops(0x4141414141414141ULL) == 0);
static_assert(std::countr_zero(string_stops(0x41414141'22414141ULL)) / 8 == 3);
static_assert(std::countr_zero(string_stops(0x22204141'41415C41ULL)) / 8 == 1);
static_assert(std::countr_zero(string_stops(0x41414141'41C34141ULL)) / 8 == 2);
static_assert(std::countr_zero(string_stops(0x01414141'41414141ULL)) / 8 == 7);

constexpr auto stop_table = [] {
  struct table {
    bool v[256] = {};
  } t;
  for (int c = 0; c < 0x20; ++c) t.v[c] = true;
  for (int c = 0x80; c < 0x100; ++c) t.v[c] = true;
  t.v[static_cast<unsigned char>('"')] = true;
  t.v[static_cast<unsigned char>('\\')] = true;
  return t;
}();

#if defined(__SSE2__)
// Bit i is set where v's byte i ends a plain run: '"', '\\', or a byte below
// 0x20 or above 0x7F (compared as signed bytes, both are below 0x20).
unsigned string_stops16(__m128i v) noexcept {
  const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
  const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
  const __m128i other = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), other)));
}
#endif

// The first byte at or after `p` that string_stops would flag, or `end`.
// [begin, end) is the whole value: near its end, the last full word of it is
// read again and the bytes before `p` are shifted out, so the tail is not
// walked byte by byte (the last string of a record ends a few bytes before
// the value does).
const char* next_stop(const char* p, const char* end, const char* begin) noexcept {
#if defined(__SSE2__)
  for (; end - p >= 16; p += 16) {
    const unsigned m = string_stops16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    if (m != 0) return p + std::countr_zero(m);
  }
  if (p != end && end - begin >= 16) {
    const unsigned m =
        string_stops16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(end - 16))) >> (16 - (end - p));
    return m != 0 ? p + std::countr_zero(m) : end;
  }
#else
  if constexpr (std::endian::native == std::endian::little) {
    const swar::scan_end e = swar::first_stop8(p, end, begin, string_stops);
    if (e.decided) return e.at;
    p = e.at;
  }
#endif
  while (p != end && !stop_table.v[static_cast<unsigned char>(*p)]) ++p;
  return p;
}

[[gnu::always_inline]] inline bool is_space(char c) noexcept {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// The common case, no whitespace at all, costs one comparison.
[[gnu::always_inline]] inline const char* skip_space(const char* p, const char* end) noexcept {
  while (p != end && static_cast<unsigned char>(*p) <= ' ' && is_space(*p)) ++p;
  return p;
}

// The helpers that run several times per member are forced inline: GCC
// otherwise calls them, and the call costs more than their common case.

// True if `c` is next, perhaps after whitespace; then `p` moves past it.
[[gnu::always_inline]] inline bool consume(const char*& p, const char* end, char c) noexcept {
  if (p != end && *p == c) {
    ++p;
    return true;
  }
  p = skip_space(p, end);
  if (p == end || *p != c) return false;
  ++p;
  return true;
}

// a[0..n) == b[0..n), in words (column names are short; memcmp is a call).
bool same_bytes(const char* a, const char* b, std::size_t n) noexcept {
  if (n >= 8) {
    for (std::size_t i = 0; i + 8 < n; i += 8)
      if (load8(a + i) != load8(b + i)) return false;
    return load8(a + n - 8) == load8(b + n - 8);
  }
  if (n >= 4) return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// True if the key starting at `p` (after its opening quote) is column `i`'s
// name followed by its closing quote and the colon, as producers write them;
// then `p` moves past the colon. A key spelled otherwise (with whitespace
// before the colon, say) is looked up by name instead.
[[gnu::always_inline]] inline bool key_is(const decode_definition& def,
                                          const decode_definition::fast_node* nodes, std::size_t i,
                                          const char*& p, const char* end) noexcept {
  const auto& k = nodes[i];
  const auto room = static_cast<std::size_t>(end - p);
  if (room >= k.pattern_room) {
#if defined(__SSE2__)
    // One 16-byte compare under the pattern's mask: a single branch.
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i mask = _mm_loadu_si128(reinterpret_cast<const __m128i*>(k.mask));
    const __m128i word = _mm_loadu_si128(reinterpret_cast<const __m128i*>(k.word));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(bytes, mask), word)) != 0xFFFF) return false;
#else
    if (((load8(p) & k.mask[0]) ^ k.word[0]) | ((load8(p + 8) & k.mask[1]) ^ k.word[1])) return false;
#endif
  } else {
    const std::string& name = def.column(i).name;
    if (room <= name.size() + 1 || p[name.size()] != '"' || p[name.size() + 1] != ':' ||
        !same_bytes(p, name.data(), name.size()))
      return false;
  }
  p += k.length + 2;
  return true;
}

// The string starting after its opening quote at `p`: returns its closing
// quote, or nullptr on a raw control character, invalid UTF-8 or the end of
// the value. `escaped` is set if it holds a backslash; escapes are only
// skipped here (a backslash and the byte after it), unescape checks them.
const char* string_end_slow(const char* p, const char* end, const char* begin, bool& escaped) noexcept {
  for (;;) {
    p = next_stop(p, end, begin);
    if (p == end) return nullptr;
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"') return p;
    if (c == '\\') {
      if (end - p < 2) return nullptr;
      escaped = true;
      p += 2;
      continue;
    }
    if (c < 0x20) return nullptr;
    std::uint32_t cp = 0;
    std::size_t n = plan::utf8_sequence_length(std::string_view(p, static_cast<std::size_t>(end - p)), 0, cp);
    if (n == 0) return nullptr;
    p += n;
  }
}

// The common string, plain and ending within 16 bytes, found inline.
[[gnu::always_inline]] inline const char* string_end(const char* p, const char* end, const char* begin,
                                                     bool& escaped) noexcept {
#if defined(__SSE2__)
  if (end - p >= 16) {
    const unsigned m = string_stops16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    if (m != 0 && p[std::countr_zero(m)] == '"') return p + std::countr_zero(m);
  }
#endif
  return string_end_slow(p, end, begin, escaped);
}

// The closing quote of a string without escapes starting after its opening
// quote at `p`, or nullptr: the strings the fast path reads in place (keys,
// skipped values, the text of a DECIMAL or TIMESTAMP). One with escapes is
// left to the reference path, which checks and decodes them.
[[gnu::always_inline]] inline const char* plain_string_end(const char* p, const char* end,
                                                           const char* begin) noexcept {
  bool escaped = false;
  const char* close = string_end(p, end, begin, escaped);
  return escaped ? nullptr : close;
}

int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The four hex digits at p (end - p >= 4 checked by the caller), or -1.
long hex4(const char* p) noexcept {
  long v = 0;
  for (int i = 0; i < 4; ++i) {
    int d = hex_digit(p[i]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

char* put_utf8(char* d, std::uint32_t cp) noexcept {
  auto b = [](std::uint32_t v) { return static_cast<char>(static_cast<unsigned char>(v)); };
  if (cp < 0x80) {
    *d++ = b(cp);
  } else if (cp < 0x800) {
    *d++ = b(0xC0 | (cp >> 6));
    *d++ = b(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *d++ = b(0xE0 | (cp >> 12));
    *d++ = b(0x80 | ((cp >> 6) & 0x3F));
    *d++ = b(0x80 | (cp & 0x3F));
  } else {
    *d++ = b(0xF0 | (cp >> 18));
    *d++ = b(0x80 | ((cp >> 12) & 0x3F));
    *d++ = b(0x80 | ((cp >> 6) & 0x3F));
    *d++ = b(0x80 | (cp & 0x3F));
  }
  return d;
}

// The raw bytes of a string between its quotes, holding escapes, decoded into
// `out` as Boost.JSON decodes them (a \u surrogate pair becomes one code
// point). False on an unknown escape or a lone surrogate: the reference path
// reports those. Every escape is at least as long as what it decodes to, so
// `out` is sized to the raw length first and written through a pointer.
bool unescape(const char* p, const char* end, std::string& out) {
  out.resize(static_cast<std::size_t>(end - p));
  char* d = out.data();
  for (;;) {
    const auto* bs = static_cast<const char*>(std::memchr(p, '\\', static_cast<std::size_t>(end - p)));
    if (bs == nullptr) bs = end;
    std::memcpy(d, p, static_cast<std::size_t>(bs - p));
    d += bs - p;
    p = bs;
    if (p == end) break;
    if (end - p < 2) return false;
    char e = p[1];
    p += 2;
    switch (e) {
      case '"':
      case '\\':
      case '/':
        *d++ = e;
        break;
      case 'b':
        *d++ = '\b';
        break;
      case 'f':
        *d++ = '\f';
        break;
      case 'n':
        *d++ = '\n';
        break;
      case 'r':
        *d++ = '\r';
        break;
      case 't':
        *d++ = '\t';
        break;
      case 'u': {
        if (end - p < 4) return false;
        long cp = hex4(p);
        if (cp < 0) return false;
        p += 4;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (end - p < 6 || p[0] != '\\' || p[1] != 'u') return false;
          long low = hex4(p + 2);
          if (low < 0xDC00 || low > 0xDFFF) return false;
          p += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        d = put_utf8(d, static_cast<std::uint32_t>(cp));
        break;
      }
      default:
        return false;
    }
  }
  out.resize(static_cast<std::size_t>(d - out.data()));
  return true;
}

[[gnu::always_inline]] inline bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// The number of ASCII digits from `p` on, eight at a time: numbers in
// records (epoch milliseconds, log positions, ids) are long.
[[gnu::always_inline]] inline std::size_t digit_run(const char* p, const char* end) noexcept {
  const char* q = p;
  if constexpr (std::endian::native == std::endian::little) {
    for (; end - q >= 8; q += 8)
      if (const std::uint64_t m = swar::nondigit_lanes(load8(q)))
        return static_cast<std::size_t>(q - p) + static_cast<std::size_t>(std::countr_zero(m) / 8);
  }
  while (q != end && is_digit(*q)) ++q;
  return static_cast<std::size_t>(q - p);
}

constexpr std::uint64_t powers_of_ten[] = {1ULL,
                                           10ULL,
                                           100ULL,
                                           1000ULL,
                                           10000ULL,
                                           100000ULL,
                                           1000000ULL,
                                           10000000ULL,
                                           100000000ULL,
                                           1000000000ULL,
                                           10000000000ULL,
                                           100000000000ULL,
                                           1000000000000ULL,
                                           10000000000000ULL,
                                           100000000000000ULL,
                                           1000000000000000ULL,
                                           10000000000000000ULL,
                                           100000000000000000ULL,
                                           1000000000000000000ULL,
                                           10000000000000000000ULL};

// The value of the `n` (at most 19) ASCII digits at `p`.
[[gnu::always_inline]] inline std::uint64_t digits_value(const char* p, std::size_t n,
                                                         const char* end) noexcept {
  std::uint64_t v = 0;
  std::size_t i = 0;
  if constexpr (std::endian::native == std::endian::little) {
    // Eight digits at a time; a shorter rest, when eight bytes can still be
    // read, shifted up so that the lanes below it read as leading zeros (the
    // borrows of the bytes after the digits only reach lanes shifted out).
    for (; n - i >= 8; i += 8) v = v * powers_of_ten[8] + swar::eight_digits_value(load8(p + i) - ones * '0');
    if (i < n && end - (p + i) >= 8) {
      const std::size_t k = n - i;
      return v * powers_of_ten[k] + swar::eight_digits_value((load8(p + i) - ones * '0') << (8 * (8 - k)));
    }
  }
  for (; i < n; ++i) v = v * 10 + static_cast<unsigned>(p[i] - '0');
  return v;
}

// A JSON integer at `p` (a '-' or a digit) that fits int64, without fraction
// or exponent: those, leading zeros and out-of-range values are left to the
// reference path (the byte after the number must then be a separator, which
// the caller checks, so "1.5" and "1e2" give up there).
[[gnu::always_inline]] inline bool parse_bigint(const char*& p, const char* end, std::int64_t& out) noexcept {
  const bool negative = *p == '-';
  if (negative && ++p == end) return false;
  // 19 digits always fit in uint64; more are out of range. The digits are
  // found eight at a time; short numbers (counts, amounts) are then read
  // digit by digit, long ones (epoch milliseconds, log positions) eight at
  // a time.
  const std::size_t n = digit_run(p, end);
  if (n == 0 || n > 19 || (n > 1 && *p == '0')) return false;
  std::uint64_t v = 0;
  if (n <= 4) {
    for (std::size_t i = 0; i < n; ++i) v = v * 10 + static_cast<unsigned>(p[i] - '0');
  } else {
    v = digits_value(p, n, end);
  }
  constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (v > max + (negative ? 1 : 0)) return false;
  // Two's complement (C++20): 0 - 2^63 is INT64_MIN.
  out = static_cast<std::int64_t>(negative ? 0 - v : v);
  p += n;
  return true;
}

// A JSON number without an exponent and with at most 19 digits, as its
// digits read as one integer: 12.50 is 1250 with 2 fraction digits. The
// common DECIMAL and DOUBLE values are computed from it exactly (see
// plain_decimal, plain_double); any other number is left to the functions
// the reference path uses.
struct plain_number {
  std::uint64_t digits = 0;
  std::size_t whole = 0, fraction = 0;  // how many digits before and after the point
  bool negative = false;
  bool zero_whole = false;  // the whole part is the single digit 0
};

// The end of such a number at `p`, or nullptr if there is none.
[[gnu::always_inline]] inline const char* read_plain_number(const char* p, const char* end,
                                                            plain_number& n) noexcept {
  // Digit by digit: such numbers are short (prices, ratios).
  n.negative = p != end && *p == '-';
  if (n.negative) ++p;
  const char* first = p;
  std::uint64_t v = 0;
  for (; p != end && is_digit(*p); ++p) v = v * 10 + static_cast<unsigned>(*p - '0');
  n.whole = static_cast<std::size_t>(p - first);
  if (n.whole == 0 || n.whole > 19 || (n.whole > 1 && *first == '0')) return nullptr;
  n.zero_whole = *first == '0';
  n.fraction = 0;
  if (p != end && *p == '.') {
    const char* point = p++;
    const char* const limit = end - p > 19 ? p + 19 : end;  // more digits than 19 are not plain
    for (; p != limit && is_digit(*p); ++p) v = v * 10 + static_cast<unsigned>(*p - '0');
    n.fraction = static_cast<std::size_t>(p - point - 1);
    if (n.fraction == 0 || (p != end && is_digit(*p))) return nullptr;
  }
  if (n.whole + n.fraction > 19 || (p != end && (*p == 'e' || *p == 'E'))) return nullptr;
  n.digits = v;
  return p;
}

// The DECIMAL(p,s) value of `n` when it surely is one: at most s fraction
// digits and at most p - s significant digits before the point (so at most
// p in all). Otherwise false, and parse_decimal decides.
bool plain_decimal(const plain_number& n, const decode_definition::fast_node& c, plan::int128& out) noexcept {
  static constexpr auto scale = [] {
    struct table {
      plan::int128 v[plan::max_decimal_precision + 1] = {};
    } t;
    t.v[0] = 1;
    for (int i = 1; i <= plan::max_decimal_precision; ++i) t.v[i] = t.v[i - 1] * 10;
    return t;
  }();
  const std::size_t whole = n.zero_whole ? 0 : n.whole;
  if (n.fraction > static_cast<std::size_t>(c.scale) ||
      whole > static_cast<std::size_t>(c.precision - c.scale))
    return false;
  out = static_cast<plan::int128>(n.digits) * scale.v[c.scale - static_cast<int>(n.fraction)];
  if (n.negative) out = -out;
  return true;
}

// The DOUBLE nearest to `n` when one correctly rounded division gives it:
// digits below 2^53 and a power of ten below 10^23 are both exact doubles,
// so their quotient is rounded once, as from_chars rounds. Otherwise false.
bool plain_double(const plain_number& n, double& out) noexcept {
  static constexpr double scale[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (n.digits >= (std::uint64_t{1} << 53) || n.fraction > 22) return false;
  const double v = static_cast<double>(n.digits) / scale[n.fraction];
  out = n.negative ? -v : v;
  return true;
}

bool literal_at(const char* p, const char* end, std::string_view word) noexcept {
  return static_cast<std::size_t>(end - p) >= word.size() && std::memcmp(p, word.data(), word.size()) == 0;
}

// The end of the JSON number at `p`, or nullptr where it is not one or is
// one the fast path leaves alone: an exponent of more than four digits (the
// reference parser's own limits then decide).
const char* number_end(const char* p, const char* end) noexcept {
  if (p != end && *p == '-') ++p;
  const std::size_t whole = digit_run(p, end);
  if (whole == 0 || (whole > 1 && *p == '0')) return nullptr;
  p += whole;
  if (p != end && *p == '.') {
    const std::size_t fraction = digit_run(++p, end);
    if (fraction == 0) return nullptr;
    p += fraction;
  }
  if (p != end && (*p == 'e' || *p == 'E')) {
    if (++p != end && (*p == '+' || *p == '-')) ++p;
    const char* digits = p;
    while (p != end && is_digit(*p)) ++p;
    if (p == digits || p - digits > 4) return nullptr;
  }
  return p;
}

// The reference parser refuses a document nested deeper than Boost.JSON's
// default of 32 levels; the fast path stays well inside that, and gives up
// on anything deeper. Levels count from the top-level object, which is 1.
constexpr unsigned max_fast_depth = 30;

// One JSON value at `p` (any type, nested to the depth bound) moved past and
// checked, without storing it: the value of an undeclared member the plan
// ignores, or of a JSON column. Strings must hold no escapes (the reference
// path checks and decodes those); `spaced` is set if whitespace appears
// anywhere in it, which a JSON column's value must not hold to be kept as
// its own bytes (the reference path keeps it compacted). Iterative: bit i of
// `objects` says whether the container open at level i is an object.
bool skip_value_slow(const char*& p, const char* end, const char* begin, unsigned depth,
                     bool& spaced) noexcept {
  auto space = [&] {
    if (p != end && static_cast<unsigned char>(*p) > ' ') return true;  // the usual case
    const char* q = skip_space(p, end);
    spaced |= q != p;
    p = q;
    return p != end;
  };
  auto plain_string = [&] {  // at its opening quote
    const char* close = plain_string_end(p + 1, end, begin);
    if (close == nullptr) return false;
    p = close + 1;
    return true;
  };
  // After `{` or `,` inside an object: a key and its colon.
  auto key = [&] { return space() && *p == '"' && plain_string() && space() && *p++ == ':'; };
  std::uint64_t objects = 0;
  unsigned open = 0;
  for (;;) {
    if (!space()) return false;
    switch (*p) {
      case '{':
      case '[': {
        if (depth + open + 1 > max_fast_depth) return false;
        const bool object = *p++ == '{';
        objects = (objects & ~(std::uint64_t{1} << open)) | (std::uint64_t{object} << open);
        ++open;
        if (!space()) return false;
        if (*p == (object ? '}' : ']')) {
          ++p;
          --open;
          break;  // an empty container is a complete value
        }
        if (object && !key()) return false;
        continue;  // its first value
      }
      case '"':
        if (!plain_string()) return false;
        break;
      case 't':
        if (!literal_at(p, end, "true")) return false;
        p += 4;
        break;
      case 'f':
        if (!literal_at(p, end, "false")) return false;
        p += 5;
        break;
      case 'n':
        if (!literal_at(p, end, "null")) return false;
        p += 4;
        break;
      default: {
        const char* after = number_end(p, end);
        if (after == nullptr) return false;
        p = after;
      }
    }
    // A value is complete: close the containers it completes, or go on to
    // the next value of the one open.
    for (;;) {
      if (open == 0) return true;
      if (!space()) return false;
      const bool object = (objects >> (open - 1)) & 1;
      if (*p == ',') {
        ++p;
        if (object && !key()) return false;
        break;
      }
      if (*p != (object ? '}' : ']')) return false;
      ++p;
      --open;
    }
  }
}

// skip_value_slow, with the usual value (a string or a number, without
// spaces) taken inline: the value of most undeclared members.
[[gnu::always_inline]] inline bool skip_value(const char*& p, const char* end, const char* begin,
                                              unsigned depth, bool& spaced) noexcept {
  if (p != end && *p == '"') {
    const char* close = plain_string_end(p + 1, end, begin);
    if (close == nullptr) return false;
    p = close + 1;
    return true;
  }
  if (p != end && *p >= '1' && *p <= '9') {
    // A positive integer without a leading zero (a count, an id, a time);
    // a fraction or an exponent is left to number_end.
    const char* after = p + digit_run(p, end);
    if (after == end || (*after != '.' && (*after | 0x20) != 'e')) {
      p = after;
      return true;
    }
  }
  if (p != end && (*p == '-' || is_digit(*p))) {
    p = number_end(p, end);
    return p != nullptr;
  }
  return skip_value_slow(p, end, begin, depth, spaced);
}

// Which columns the fast path has seen in this record: column i was seen if
// seen[i] == stamp. A new record takes a new stamp instead of clearing.
struct seen_columns {
  std::vector<std::uint32_t> seen;
  std::uint32_t stamp = 0;

  void start(std::size_t columns) {
    if (seen.size() != columns || ++stamp == 0) {
      seen.assign(columns, 0);
      stamp = 1;
    }
  }
};

// What one record's scan shares across the objects it reads, the vectors'
// storage among it (their sizes are the schema's, checked once per record).
struct scan_context {
  const decode_definition& def;
  const decode_definition::fast_node* nodes;
  std::uint32_t* seen;
  std::uint32_t stamp;
  const char* begin;
  const char* end;
  slot* slots;
};

template <bool Flat>
bool scan_object(const scan_context& x, std::size_t parent, const char*& p, unsigned depth);

// The value of column `col` at `p` (after the colon and any whitespace)
// into its slot. Each type takes the JSON forms the reference path takes,
// parsed by the same functions (plan/values.hpp, from_chars), and gives up on
// any other, and on a valid value spelled unusually (escapes, a DOUBLE
// outside its range).
[[gnu::always_inline]] inline bool scan_value(const scan_context& x, std::size_t col, const char*& p,
                                              unsigned depth) {
  const char* const end = x.end;
  const decode_definition::fast_node& c = x.nodes[col];
  slot& s = x.slots[col];
  if (*p == 'n') {
    if (!c.nullable || !literal_at(p, end, "null")) return false;
    // A null ROW makes every column inside it null, as in the reference.
    for (std::size_t i = col; i < c.end; ++i) x.slots[i].is_null = true;
    p += 4;
    return true;
  }
  // STRING and BIGINT by conditional branches first, the rest by a switch:
  // the predictor learns the branches' order from the schema's, where a
  // jump table's one indirect branch per member was mispredicted often
  // enough to cost flat records several percent of their decode time
  // (bench/README.md, the flat regression).
  if (c.type == plan::column_type::string) {
    if (*p != '"') return false;
    bool escaped = false;
    const char* close = string_end(p + 1, end, x.begin, escaped);
    if (close == nullptr) return false;
    if (!escaped) {
      // Zero-copy: the slot views the value's own bytes.
      s.string = std::string_view(p + 1, static_cast<std::size_t>(close - (p + 1)));
    } else {
      if (!unescape(p + 1, close, s.storage)) return false;
      s.string = s.storage;
    }
    p = close + 1;
    s.is_null = false;
    return true;
  }
  if (c.type == plan::column_type::bigint) {
    if (!parse_bigint(p, end, s.bigint)) return false;
    s.is_null = false;
    return true;
  }
  switch (c.type) {
    case plan::column_type::string:
    case plan::column_type::bigint:
      break;  // above
    case plan::column_type::boolean:
      if (literal_at(p, end, "true")) {
        s.boolean = true;
        p += 4;
      } else if (literal_at(p, end, "false")) {
        s.boolean = false;
        p += 5;
      } else {
        return false;
      }
      break;
    case plan::column_type::row:
      if (*p != '{' || depth + 1 > max_fast_depth) return false;
      s.is_null = false;
      ++p;
      return scan_object<false>(x, col, p, depth + 1);
    case plan::column_type::decimal: {
      // A JSON number, or a string holding one (Debezium's
      // decimal.handling.mode=string): the same text either way.
      const bool quoted = *p == '"';
      const char* first = quoted ? p + 1 : p;
      const char* last = nullptr;  // the text's end
      if (quoted) {
        last = plain_string_end(first, end, x.begin);
        if (last == nullptr) return false;
      }
      plain_number n;
      const char* plain = read_plain_number(first, quoted ? last : end, n);
      if (plain == nullptr || (quoted && plain != last) || !plain_decimal(n, c, s.decimal)) {
        if (!quoted) {
          last = number_end(first, end);
          if (last == nullptr) return false;
        }
        const plan::decimal_verdict v = plan::parse_decimal(
            std::string_view(first, static_cast<std::size_t>(last - first)), c.precision, c.scale);
        if (!v.problem.empty()) return false;
        s.decimal = v.value.unscaled;
      } else if (!quoted) {
        last = plain;
      }
      p = quoted ? last + 1 : last;
      break;
    }
    case plan::column_type::double_: {
      plain_number n;
      const char* after = read_plain_number(p, end, n);
      if (after == nullptr || !plain_double(n, s.dbl)) {
        after = number_end(p, end);
        if (after == nullptr) return false;
        const auto r = std::from_chars(p, after, s.dbl);
        if (r.ec != std::errc() || r.ptr != after || !std::isfinite(s.dbl)) return false;
      }
      p = after;
      break;
    }
    case plan::column_type::timestamp:
      if (*p == '"') {
        const char* close = plain_string_end(p + 1, end, x.begin);
        if (close == nullptr) return false;
        std::string problem;
        const auto t = plan::parse_timestamp(
            std::string_view(p + 1, static_cast<std::size_t>(close - (p + 1))), problem);
        if (!t) return false;
        s.bigint = t->millis;
        p = close + 1;
      } else {
        if (!parse_bigint(p, end, s.bigint) || s.bigint < plan::min_timestamp_millis ||
            s.bigint > plan::max_timestamp_millis)
          return false;
      }
      break;
    case plan::column_type::json: {
      // Kept as its own bytes when they are already what the reference path
      // writes: compact (no whitespace) and without escapes.
      const char* start = p;
      bool spaced = false;
      if (!skip_value(p, end, x.begin, depth, spaced) || spaced) return false;
      s.string = std::string_view(start, static_cast<std::size_t>(p - start));
      break;
    }
  }
  s.is_null = false;
  return true;
}

// The members of the object at `p` (after its `{`): the top-level one
// (parent == decode_definition::top) or a ROW column's. Moves `p` past its
// `}`. Recursion follows the schema's ROWs, so it is at most 17 deep.
// After a member's value: true with `p` at the next key's first byte if a
// member follows; false with `done` set after the object's `}`; false
// otherwise (malformed, or spaced unusually). `,"` is the usual case.
[[gnu::always_inline]] inline bool next_member(const char*& p, const char* end, bool& done) noexcept {
  std::uint16_t pair = 0;
  constexpr std::uint16_t comma_quote = ',' | ('"' << 8);  // as a little-endian load reads `,"`
  if (end - p >= 2 && (std::memcpy(&pair, p, 2), pair == comma_quote) &&
      std::endian::native == std::endian::little) {
    p += 2;
    return true;
  }
  if (p != end && *p == '}') {  // the object's last member, unspaced
    ++p;
    done = true;
    return false;
  }
  if (consume(p, end, ',')) return consume(p, end, '"');
  done = consume(p, end, '}');
  return false;
}

// Flat: the schema has no ROW and no metadata column (decode_definition::
// flat), so the top-level members are nodes 0 to n - 1 and none recurses;
// the common version 1 schema gets a loop of its own without the lookups.
template <bool Flat>
bool scan_object(const scan_context& x, std::size_t parent, const char*& p, unsigned depth) {
  const decode_definition& def = x.def;
  const decode_definition::fast_node* const nodes = x.nodes;
  const char* const end = x.end;
  const std::vector<std::size_t>& member_list = def.children(parent);
  const std::size_t* const members = member_list.data();
  const std::size_t expected = member_list.size();
  const std::uint64_t lengths = def.member_lengths(parent);
  const bool ignore_unknown = def.ignore_unknown(parent);
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::size_t count = 0;
  // While every member came in schema order, the members seen are exactly
  // the first `count`, so the one expected next cannot repeat one of them and
  // nothing need be recorded. The first member found by name ends that: the
  // members seen so far are stamped, and from then on every member is.
  bool ordered = true;
  if (!consume(p, end, '"')) return false;
  for (bool done = false;;) {
    // The key (after its opening quote): first the member expected next
    // (producers write schema order).
    std::size_t col = none;
    if constexpr (Flat) {
      if (count < expected && key_is(def, nodes, count, p, end)) col = count;
    } else {
      if (count < expected && key_is(def, nodes, members[count], p, end)) col = members[count];
    }
    const bool colon_read = col != none;
    if (col == none) {
      // A key with escapes may spell a member's name (the reference path
      // unescapes it); one with other non-ASCII bytes cannot.
      const char* key = p;
      p = plain_string_end(p, end, x.begin);
      if (p == nullptr) return false;
      const auto len = static_cast<std::size_t>(p - key);
      if ((lengths >> std::min<std::size_t>(len, 63) & 1) != 0)
        for (std::size_t i : member_list) {
          if (nodes[i].length == len && same_bytes(key, def.column(i).name.data(), len)) {
            col = i;
            break;
          }
        }
      ++p;
      if (col != none && ordered) {
        ordered = false;
        for (std::size_t i = 0; i < count; ++i) x.seen[members[i]] = x.stamp;
      }
      if (col == none) {
        bool spaced = false;
        if (!ignore_unknown || !consume(p, end, ':') || !skip_value(p, end, x.begin, depth, spaced))
          return false;
        if (next_member(p, end, done)) continue;
        if (done) break;
        return false;
      }
    }
    if (!ordered) {
      if (x.seen[col] == x.stamp) return false;
      x.seen[col] = x.stamp;
    }
    ++count;

    if (!colon_read && !consume(p, end, ':')) return false;
    if (p != end && static_cast<unsigned char>(*p) <= ' ') p = skip_space(p, end);
    if (p == end || !scan_value(x, col, p, depth)) return false;

    if (next_member(p, end, done)) continue;
    if (done) break;
    return false;
  }
  return count == expected;
}

bool scan(const decode_definition& def, seen_columns& seen, std::string_view value, row& out) {
  const char* p = value.data();
  const char* const end = p + value.size();
  if (!consume(p, end, '{')) return false;
  seen.start(def.column_count());
  const scan_context x{def, def.fast_nodes(), seen.seen.data(), seen.stamp, value.data(),
                       end, out.slots.data()};
  const bool read = def.flat() ? scan_object<true>(x, decode_definition::top, p, 1)
                               : scan_object<false>(x, decode_definition::top, p, 1);
  return read && skip_space(p, end) == end;
}

}  // namespace

struct decode_state::impl {
  impl() : parser(json::parse_options{}) {}
  json::basic_parser<handler> parser;
  seen_columns seen;
};

decode_state::decode_state() : impl_(std::make_unique<impl>()) {}
decode_state::~decode_state() = default;
decode_state::decode_state(decode_state&&) noexcept = default;
decode_state& decode_state::operator=(decode_state&&) noexcept = default;

namespace detail {

bool fast_decode(const decode_definition& def, decode_state& state, std::string_view value, row& out) {
  if (value.empty() || value.size() > def.max_value_bytes() || !def.plain_names()) return false;
  if (out.slots.size() != def.column_count()) out.slots.resize(def.column_count());
  return scan(def, state.impl_->seen, value, out);
}

bool reference_decode(const decode_definition& def, decode_state& state, std::string_view value, row& out,
                      diagnostic& error) {
  if (value.empty()) {
    set_error(error, "empty_value", "value is empty (zero bytes); only a null value is a tombstone");
    return false;
  }
  // Before parsing: the cost of refusing an oversized value must not grow
  // with its size.
  if (value.size() > def.max_value_bytes()) {
    set_error(error, "value_too_large",
              "value is " + std::to_string(value.size()) + " bytes, over the limit of " +
                  std::to_string(def.max_value_bytes()) +
                  " bytes per record value; producers must keep values below it (split large records)");
    return false;
  }
  if (out.slots.size() != def.column_count()) out.slots.resize(def.column_count());
  auto& parser = state.impl_->parser;
  parser.reset();
  parser.handler().start(def, out);
  json::error_code ec;
  std::size_t n = parser.write_some(false, value.data(), value.size(), ec);
  const handler& h = parser.handler();
  if (h.failed() != failure::none) {
    report_refusal(def, h, value, n, error);
    return false;
  }
  if (ec) {
    report_parse_error(ec, value, n, error);
    return false;
  }
  if (n < value.size()) {
    report_trailing(value, n, error);
    return false;
  }
  return true;
}

}  // namespace detail

bool decode(const decode_definition& def, decode_state& state, std::string_view value, row& out,
            diagnostic& error) {
  if (detail::fast_decode(def, state, value, out) || detail::reference_decode(def, state, value, out, error))
    return true;
  // A registry-framed value read as JSON fails at its first byte; say what
  // it is (the code stays malformed_json: the record is not JSON).
  if (!value.empty() && value[0] == 0)
    if (std::string hint = registry_framed_hint(value); !hint.empty())
      error.message = hint + "; " + error.message;
  return false;
}

namespace {

// The key's bytes as a BIGINT: a decimal integer as JSON writes one (an
// optional '-', no leading zeros, no '+', no spaces), in the signed 64-bit range.
bool key_bigint(std::string_view k, std::int64_t& out) noexcept {
  if (k.empty() || k.size() > 20) return false;
  const std::size_t digits = k[0] == '-' ? 1 : 0;
  if (k.size() == digits || (k.size() > digits + 1 && k[digits] == '0')) return false;
  const auto r = std::from_chars(k.data(), k.data() + k.size(), out);
  return r.ec == std::errc() && r.ptr == k.data() + k.size();
}

// True if `b` is surely one JSON value (with whitespace around it, perhaps);
// false if it is not, or if the fast check leaves it to Boost.JSON.
bool valid_json_fast(std::string_view b) noexcept {
  const char* p = b.data();
  const char* const end = p + b.size();
  bool spaced = false;
  return skip_value(p, end, b.data(), 1, spaced) && skip_space(p, end) == end;
}

std::string shown_bytes(std::string_view b) {
  std::string out = "'";
  const std::size_t n = std::min<std::size_t>(b.size(), 64);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(b[i]);
    if (c >= 0x20 && c < 0x7F && c != '\'') {
      out += static_cast<char>(c);
    } else {
      static constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xF];
    }
  }
  return out + (b.size() > n ? "'..." : "'");
}

}  // namespace

bool decode_metadata(const decode_definition& def, const record_metadata& meta, row& out, diagnostic& error) {
  for (std::size_t i : def.metadata_columns()) {
    const plan::column& c = def.column(i);
    slot& s = out.slots[i];
    // Built only for a refusal: accepting a record allocates nothing.
    auto what = [&] {
      return "column " + quoted(def.name(i)) + " (the record's " + plan::from_text(c) + ")";
    };
    std::optional<std::string_view> bytes;
    switch (c.from) {
      case plan::column_source::key:
        bytes = meta.key;
        break;
      case plan::column_source::header:
        if (meta.header != nullptr) bytes = meta.header(meta.source, c.header);
        break;
      case plan::column_source::timestamp:
        s.is_null = !meta.timestamp;
        s.bigint = meta.timestamp.value_or(0);
        if (s.is_null && !c.nullable) {
          set_error(error, "unexpected_null", what() + " is not nullable, and the record has no timestamp");
          return false;
        }
        continue;
      case plan::column_source::partition:
        s.is_null = false;
        s.bigint = meta.partition;
        continue;
      case plan::column_source::offset:
        s.is_null = false;
        s.bigint = meta.offset;
        continue;
      case plan::column_source::value:
        continue;
    }
    if (!bytes) {
      if (!c.nullable) {
        set_error(error, "unexpected_null",
                  what() + " is not nullable, and the record has " +
                      (c.from == plan::column_source::key ? "no key" : "no such header, or a null one"));
        return false;
      }
      s.is_null = true;
      continue;
    }
    s.is_null = false;
    switch (c.type) {
      case plan::column_type::string:
        if (const std::size_t bad = plan::first_invalid_utf8(*bytes); bad != std::string_view::npos) {
          set_error(error, "invalid_utf8",
                    what() + " is not UTF-8: invalid byte at byte " + std::to_string(bad));
          return false;
        }
        s.string = *bytes;
        break;
      case plan::column_type::bigint:
        if (!key_bigint(*bytes, s.bigint)) {
          set_error(error, "wrong_type",
                    what() + " expects BIGINT, found " + shown_bytes(*bytes) +
                        ", which is not a decimal integer in the signed 64-bit range");
          return false;
        }
        break;
      case plan::column_type::json: {
        // Validated, then passed on as the key's own bytes: unchanged, as
        // the value's JSON columns are (those are only made compact). The
        // fast check settles the common key without allocating; Boost.JSON
        // decides the rest and names the problem.
        if (!valid_json_fast(*bytes)) {
          boost::system::error_code ec;
          (void)boost::json::parse(*bytes, ec);
          if (ec) {
            set_error(error, "wrong_type",
                      what() + " expects JSON, found " + shown_bytes(*bytes) + " (" + ec.message() + ")");
            return false;
          }
        }
        s.string = *bytes;
        break;
      }
      default:
        break;  // the schema loader allows no other type for these sources
    }
  }
  return true;
}

}  // namespace streamt::operators
