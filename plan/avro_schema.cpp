// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/avro_schema.hpp"

#include "plan/json_support.hpp"
#include "plan/sql/keywords.hpp"
#include "plan/strict_json.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <utility>

namespace streamt::plan::avro {

namespace json = boost::json;
using detail::path_index;
using detail::path_key;
using detail::quote;

std::string_view to_string(type_kind k) noexcept {
  switch (k) {
    case type_kind::null:
      return "null";
    case type_kind::boolean:
      return "boolean";
    case type_kind::int_:
      return "int";
    case type_kind::long_:
      return "long";
    case type_kind::float_:
      return "float";
    case type_kind::double_:
      return "double";
    case type_kind::bytes:
      return "bytes";
    case type_kind::string:
      return "string";
    case type_kind::record:
      return "record";
    case type_kind::enum_:
      return "enum";
    case type_kind::array:
      return "array";
    case type_kind::map:
      return "map";
    case type_kind::union_:
      return "union";
    case type_kind::fixed:
      return "fixed";
  }
  return "?";
}

std::string_view to_string(logical_type l) noexcept {
  switch (l) {
    case logical_type::none:
      return "";
    case logical_type::decimal:
      return "decimal";
    case logical_type::uuid:
      return "uuid";
    case logical_type::date:
      return "date";
    case logical_type::time_millis:
      return "time-millis";
    case logical_type::time_micros:
      return "time-micros";
    case logical_type::timestamp_millis:
      return "timestamp-millis";
    case logical_type::timestamp_micros:
      return "timestamp-micros";
    case logical_type::local_timestamp_millis:
      return "local-timestamp-millis";
    case logical_type::local_timestamp_micros:
      return "local-timestamp-micros";
    case logical_type::duration:
      return "duration";
  }
  return "?";
}

namespace {

std::optional<type_kind> primitive(std::string_view s) noexcept {
  static constexpr std::pair<std::string_view, type_kind> names[] = {
      {"null", type_kind::null},   {"boolean", type_kind::boolean}, {"int", type_kind::int_},
      {"long", type_kind::long_},  {"float", type_kind::float_},    {"double", type_kind::double_},
      {"bytes", type_kind::bytes}, {"string", type_kind::string}};
  for (const auto& [name, kind] : names)
    if (s == name) return kind;
  return std::nullopt;
}

// A name's segment, a field name, an enum symbol: [A-Za-z_][A-Za-z0-9_]*,
// the rule of an SQL identifier too.
constexpr bool is_simple_name(std::string_view s) noexcept { return sql::is_identifier(s); }

// Dot-separated simple names (a full name or a namespace).
bool is_dotted_name(std::string_view s) noexcept {
  for (;;) {
    const std::size_t dot = s.find('.');
    if (!is_simple_name(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

// The integer a JSON number holds exactly, if any.
std::optional<std::int64_t> as_integer(const json::value& v) noexcept {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return static_cast<std::int64_t>(v.get_uint64());
  return std::nullopt;
}

// Named types are unique by full name, and two unnamed types of one kind may
// not share a union; this is the key a union's branches are unique by.
std::string branch_key(const type& t) {
  switch (t.kind) {
    case type_kind::record:
    case type_kind::enum_:
    case type_kind::fixed:
      return t.name;
    default:
      return std::string(to_string(t.kind));
  }
}

class parser {
 public:
  result<schema> run(const json::value& v) {
    auto root = parse(v, "$", "");
    if (!root) return root.error();
    return std::move(out_);
  }

 private:
  schema out_;
  std::unordered_map<std::string, std::size_t> names_;

  static diagnostic fail(std::string path, std::string code, std::string message) {
    return detail::error(streamt::phase::schema, std::move(code), std::move(path), std::move(message));
  }

  result<std::size_t> add(type t, const std::string& path) {
    if (out_.types.size() >= max_types)
      return fail(path, "too_large",
                  "the Avro schema holds more than " + std::to_string(max_types) +
                      " types; is this the right schema?");
    out_.types.push_back(std::move(t));
    return out_.types.size() - 1;
  }

  // A reference by name: a primitive, or a named type defined before it.
  // A name without dots is looked for in the enclosing namespace first, then
  // in the null namespace.
  result<std::size_t> reference(std::string_view name, const std::string& path, const std::string& ns) {
    if (auto k = primitive(name)) {
      type t;
      t.kind = *k;
      return add(std::move(t), path);
    }
    if (!is_dotted_name(name))
      return fail(path, "unknown_type",
                  quote(name) +
                      " is neither an Avro primitive type nor a valid type name; a type is one of "
                      "null, boolean, int, long, float, double, bytes, string, a record, enum, "
                      "array, map or fixed object, a union array, or the name of a named type "
                      "defined before it");
    if (name.find('.') == std::string_view::npos && !ns.empty()) {
      if (auto i = names_.find(ns + "." + std::string(name)); i != names_.end()) return i->second;
    }
    if (auto i = names_.find(std::string(name)); i != names_.end()) return i->second;
    return fail(path, "unknown_type",
                "no type named " + quote(name) +
                    (ns.empty() ? std::string() : " (or " + quote(ns + "." + std::string(name)) + ")") +
                    " is defined before this point; a named type is referred to after its definition, by "
                    "its full name or its name within the enclosing namespace");
  }

  // An attribute that must be a string when present.
  result<std::optional<std::string_view>> optional_string(const json::object& o, const std::string& path,
                                                          std::string_view key) {
    const json::value* v = o.if_contains(key);
    if (v == nullptr) return std::optional<std::string_view>{};
    if (!v->is_string())
      return fail(
          path_key(path, key), "wrong_type",
          "'" + std::string(key) + "' must be a JSON string, not " + std::string(detail::kind_name(*v)));
    return std::optional<std::string_view>{std::string_view(v->get_string())};
  }

  // `aliases`: names; a named type's are made full in `ns`.
  result<std::vector<std::string>> aliases(const json::object& o, const std::string& path,
                                           const std::string* ns) {
    std::vector<std::string> out;
    const json::value* v = o.if_contains("aliases");
    if (v == nullptr) return out;
    const std::string at = path_key(path, "aliases");
    if (!v->is_array())
      return fail(at, "wrong_type",
                  "'aliases' must be a JSON array of names, not " + std::string(detail::kind_name(*v)));
    const auto& a = v->get_array();
    for (std::size_t i = 0; i < a.size(); ++i) {
      const bool ok =
          a[i].is_string() && (ns ? is_dotted_name(a[i].get_string()) : is_simple_name(a[i].get_string()));
      if (!ok)
        return fail(path_index(at, i), "invalid_name",
                    "an alias must be a name of letters, digits and '_' not starting with a digit" +
                        std::string(ns ? " (dot-separated for a full name)" : ""));
      std::string alias(a[i].get_string());
      if (ns && alias.find('.') == std::string::npos && !ns->empty()) alias = *ns + "." + alias;
      out.push_back(std::move(alias));
    }
    return out;
  }

  // A named type's full name and its namespace (which the types inside it
  // inherit), registered before its body so that the body may refer to it.
  result<std::pair<std::string, std::string>> define_name(const json::object& o, const std::string& path,
                                                          const std::string& ns, std::size_t index) {
    auto name = detail::require_string(o, path, "name", "the type's name", streamt::phase::schema);
    if (!name) return name.error();
    auto space = optional_string(o, path, "namespace");
    if (!space) return space.error();
    std::string full;
    std::string inner;
    if (name->find('.') != std::string_view::npos) {
      if (!is_dotted_name(*name))
        return fail(path_key(path, "name"), "invalid_name",
                    quote(*name) +
                        " is not a valid full name: dot-separated names of letters, digits and "
                        "'_', none starting with a digit");
      full = std::string(*name);
      inner = full.substr(0, full.rfind('.'));
    } else {
      if (!is_simple_name(*name))
        return fail(
            path_key(path, "name"), "invalid_name",
            quote(*name) + " is not a valid name: letters, digits and '_', not starting with a digit");
      inner = space->has_value() ? std::string(**space) : ns;
      if (!inner.empty() && !is_dotted_name(inner))
        return fail(path_key(path, "namespace"), "invalid_name",
                    quote(inner) +
                        " is not a valid namespace: dot-separated names of letters, digits and "
                        "'_', none starting with a digit");
      full = inner.empty() ? std::string(*name) : inner + "." + std::string(*name);
    }
    const std::string_view last = std::string_view(full).substr(full.rfind('.') + 1);
    if (primitive(last) && full == last)
      return fail(path_key(path, "name"), "invalid_name",
                  quote(full) + " is a primitive type's name and cannot name a defined type");
    if (!names_.emplace(full, index).second)
      return fail(
          path_key(path, "name"), "duplicate_name",
          "the type " + quote(full) + " is defined twice; define it once and refer to it by name after");
    return std::pair{full, inner};
  }

  // A named type's entry, made before its body is read (so the body may
  // refer to it), with its full name, the namespace its body inherits and
  // its aliases.
  struct named_start {
    std::size_t index = 0;
    std::pair<std::string, std::string> names;
    std::vector<std::string> aliases;
  };
  result<named_start> start_named(const json::object& o, const std::string& path, const std::string& ns,
                                  type_kind kind) {
    type shell;
    shell.kind = kind;
    auto index = add(std::move(shell), path);
    if (!index) return index.error();
    auto names = define_name(o, path, ns, *index);
    if (!names) return names.error();
    auto al = aliases(o, path, &names->second);
    if (!al) return al.error();
    return named_start{*index, std::move(*names), std::move(*al)};
  }

  result<std::size_t> parse(const json::value& v, const std::string& path, const std::string& ns) {
    if (v.is_string()) return reference(v.get_string(), path, ns);
    if (v.is_array()) return parse_union(v.get_array(), path, ns);
    if (!v.is_object())
      return fail(path, "wrong_type",
                  "an Avro type is a JSON string, object or array, not " + std::string(detail::kind_name(v)));
    const json::object& o = v.get_object();
    const json::value* kind_value = o.if_contains("type");
    if (kind_value == nullptr)
      return fail(path, "missing_field", "an Avro type object needs a 'type' member");
    if (!kind_value->is_string())
      return fail(
          path_key(path, "type"), "wrong_type",
          "a type object's 'type' is the JSON string naming its type (\"record\", \"array\", \"long\", "
          "a named type...), not " +
              std::string(detail::kind_name(*kind_value)) +
              "; a field's type may be an object or a union, a type object's may not");
    const std::string_view kind = kind_value->get_string();
    if (auto k = primitive(kind)) return parse_primitive(o, *k, path);
    if (kind == "record" || kind == "error") return parse_record(o, path, ns, kind == "error");
    if (kind == "enum") return parse_enum(o, path, ns);
    if (kind == "fixed") return parse_fixed(o, path, ns);
    if (kind == "array" || kind == "map") return parse_container(o, path, ns, kind == "array");
    // {"type": "SomeName"}: a reference with attributes beside it.
    return reference(kind, path_key(path, "type"), ns);
  }

  result<std::size_t> parse_primitive(const json::object& o, type_kind k, const std::string& path) {
    type t;
    t.kind = k;
    auto logical = optional_string(o, path, "logicalType");
    if (!logical) return logical.error();
    if (logical->has_value()) {
      const std::string_view l = **logical;
      if (k == type_kind::bytes && l == "decimal") {
        decimal_parameters(o, t, std::nullopt);  // left plain bytes if invalid
      } else if (k == type_kind::string && l == "uuid") {
        t.logical = logical_type::uuid;
      } else if (k == type_kind::int_ && l == "date") {
        t.logical = logical_type::date;
      } else if (k == type_kind::int_ && l == "time-millis") {
        t.logical = logical_type::time_millis;
      } else if (k == type_kind::long_) {
        if (l == "time-micros") t.logical = logical_type::time_micros;
        if (l == "timestamp-millis") t.logical = logical_type::timestamp_millis;
        if (l == "timestamp-micros") t.logical = logical_type::timestamp_micros;
        if (l == "local-timestamp-millis") t.logical = logical_type::local_timestamp_millis;
        if (l == "local-timestamp-micros") t.logical = logical_type::local_timestamp_micros;
      }
    }
    return add(std::move(t), path);
  }

  // decimal's precision (> 0) and scale (0..precision, default 0); on fixed,
  // a precision the size can hold. False leaves the logical type ignored.
  static bool decimal_parameters(const json::object& o, type& t, std::optional<std::size_t> fixed_size) {
    const json::value* p = o.if_contains("precision");
    const json::value* s = o.if_contains("scale");
    // Read into plain integers: GCC 12 cannot follow an optional's state
    // through the comparisons below (-Wmaybe-uninitialized).
    std::int64_t precision = 0;
    std::int64_t scale = 0;
    if (p == nullptr || !as_integer(*p)) return false;
    precision = *as_integer(*p);
    if (s != nullptr) {
      if (!as_integer(*s)) return false;
      scale = *as_integer(*s);
    }
    if (precision < 1 || scale < 0 || scale > precision) return false;
    if (fixed_size) {
      // The most decimal digits a two's-complement number of `size` bytes
      // always holds: floor(log10(2^(8 size - 1) - 1)).
      if (*fixed_size == 0) return false;
      const double digits = std::floor((8.0 * static_cast<double>(*fixed_size) - 1.0) * std::log10(2.0));
      if (static_cast<double>(precision) > digits) return false;
    }
    if (precision > 1000) return false;  // no real decimal; keeps the int below honest
    t.logical = logical_type::decimal;
    t.precision = static_cast<int>(precision);
    t.scale = static_cast<int>(scale);
    return true;
  }

  result<std::size_t> parse_record(const json::object& o, const std::string& path, const std::string& ns,
                                   bool error) {
    auto named = start_named(o, path, ns, type_kind::record);
    if (!named) return named.error();
    const std::size_t index = named->index;
    auto& [full, inner] = named->names;
    out_.types[index].error = error;
    const json::value* fv = o.if_contains("fields");
    if (fv == nullptr) return fail(path, "missing_field", "a record needs 'fields', a JSON array of fields");
    const std::string fields_path = path_key(path, "fields");
    if (!fv->is_array())
      return fail(fields_path, "wrong_type",
                  "'fields' must be a JSON array of fields, not " + std::string(detail::kind_name(*fv)));
    std::vector<field> fields;
    const json::array& a = fv->get_array();
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string at = path_index(fields_path, i);
      if (!a[i].is_object())
        return fail(
            at, "wrong_type",
            "a field is a JSON object with 'name' and 'type', not " + std::string(detail::kind_name(a[i])));
      const json::object& f = a[i].get_object();
      auto name = detail::require_string(f, at, "name", "the field's name", streamt::phase::schema);
      if (!name) return name.error();
      if (!is_simple_name(*name))
        return fail(
            path_key(at, "name"), "invalid_name",
            quote(*name) + " is not a valid field name: letters, digits and '_', not starting with a digit");
      for (const field& before : fields)
        if (before.name == *name)
          return fail(path_key(at, "name"), "duplicate_field",
                      "the record " + quote(full) + " has two fields named " + quote(*name));
      const json::value* tv = f.if_contains("type");
      if (tv == nullptr) return fail(at, "missing_field", "the field " + quote(*name) + " needs a 'type'");
      auto t = parse(*tv, path_key(at, "type"), inner);
      if (!t) return t.error();
      field out;
      out.name = std::string(*name);
      out.type = *t;
      auto fa = aliases(f, at, nullptr);
      if (!fa) return fa.error();
      out.aliases = std::move(*fa);
      if (auto order = optional_string(f, at, "order"); !order) {
        return order.error();
      } else if (order->has_value() && **order != "ascending" && **order != "descending" &&
                 **order != "ignore") {
        return fail(path_key(at, "order"), "invalid_value",
                    "'order' is one of \"ascending\", \"descending\" or \"ignore\", not " + quote(**order));
      }
      if (const json::value* d = f.if_contains("default")) {
        if (auto problem = check_default(*d, *t, 0); !problem.empty())
          return fail(path_key(at, "default"), "invalid_default",
                      "the default of the field " + quote(out.name) + " " + problem);
        out.default_value = *d;
      }
      fields.push_back(std::move(out));
    }
    type& t = out_.types[index];
    t.name = std::move(full);
    t.aliases = std::move(named->aliases);
    t.fields = std::move(fields);
    return index;
  }

  result<std::size_t> parse_enum(const json::object& o, const std::string& path, const std::string& ns) {
    auto named = start_named(o, path, ns, type_kind::enum_);
    if (!named) return named.error();
    const std::size_t index = named->index;
    auto& [full, inner] = named->names;
    const json::value* sv = o.if_contains("symbols");
    if (sv == nullptr) return fail(path, "missing_field", "an enum needs 'symbols', a JSON array of names");
    const std::string at = path_key(path, "symbols");
    if (!sv->is_array())
      return fail(at, "wrong_type",
                  "'symbols' must be a JSON array of names, not " + std::string(detail::kind_name(*sv)));
    std::vector<std::string> symbols;
    const json::array& a = sv->get_array();
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_string() || !is_simple_name(a[i].get_string()))
        return fail(path_index(at, i), "invalid_name",
                    "an enum symbol is a name of letters, digits and '_' not starting with a digit");
      std::string s(a[i].get_string());
      for (const std::string& before : symbols)
        if (before == s)
          return fail(path_index(at, i), "duplicate_symbol",
                      "the enum " + quote(full) + " lists the symbol " + quote(s) + " twice");
      symbols.push_back(std::move(s));
    }
    auto def = optional_string(o, path, "default");
    if (!def) return def.error();
    std::optional<std::string> enum_default;
    if (def->has_value()) {
      bool found = false;
      for (const std::string& s : symbols) found |= s == **def;
      if (!found)
        return fail(path_key(path, "default"), "invalid_default",
                    "the enum's default " + quote(**def) + " is not one of its symbols");
      enum_default = std::string(**def);
    }
    type& t = out_.types[index];
    t.name = std::move(full);
    t.aliases = std::move(named->aliases);
    t.symbols = std::move(symbols);
    t.enum_default = std::move(enum_default);
    return index;
  }

  result<std::size_t> parse_fixed(const json::object& o, const std::string& path, const std::string& ns) {
    auto named = start_named(o, path, ns, type_kind::fixed);
    if (!named) return named.error();
    const std::size_t index = named->index;
    auto& [full, inner] = named->names;
    const json::value* sv = o.if_contains("size");
    if (sv == nullptr) return fail(path, "missing_field", "a fixed type needs 'size', its length in bytes");
    const auto size = as_integer(*sv);
    // A bound on one value's size, checked before any record is read.
    constexpr std::int64_t max_fixed = 1 << 20;
    if (!size || *size < 0 || *size > max_fixed)
      return fail(path_key(path, "size"), "invalid_value",
                  "'size' must be a JSON integer from 0 to " + std::to_string(max_fixed));
    type& t = out_.types[index];
    t.name = std::move(full);
    t.aliases = std::move(named->aliases);
    t.size = static_cast<std::size_t>(*size);
    auto logical = optional_string(o, path, "logicalType");
    if (!logical) return logical.error();
    if (logical->has_value() && **logical == "decimal") {
      type probe;
      if (decimal_parameters(o, probe, t.size)) {
        t.logical = logical_type::decimal;
        t.precision = probe.precision;
        t.scale = probe.scale;
      }
    } else if (logical->has_value() && **logical == "duration" && t.size == 12) {
      t.logical = logical_type::duration;
    } else if (logical->has_value() && **logical == "uuid" && t.size == 16) {
      t.logical = logical_type::uuid;
    }
    return index;
  }

  result<std::size_t> parse_container(const json::object& o, const std::string& path, const std::string& ns,
                                      bool array) {
    const std::string_view member = array ? "items" : "values";
    const json::value* iv = o.if_contains(member);
    if (iv == nullptr)
      return fail(path, "missing_field",
                  std::string(array ? "an array" : "a map") + " needs '" + std::string(member) +
                      "', the type of its " + (array ? "items" : "values"));
    type shell;
    shell.kind = array ? type_kind::array : type_kind::map;
    auto index = add(std::move(shell), path);
    if (!index) return index.error();
    auto inner = parse(*iv, path_key(path, member), ns);
    if (!inner) return inner.error();
    out_.types[*index].items = *inner;
    return *index;
  }

  result<std::size_t> parse_union(const json::array& a, const std::string& path, const std::string& ns) {
    type shell;
    shell.kind = type_kind::union_;
    auto index = add(std::move(shell), path);
    if (!index) return index.error();
    std::vector<std::size_t> branches;
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string at = path_index(path, i);
      auto b = parse(a[i], at, ns);
      if (!b) return b.error();
      const type& t = out_.types[*b];
      if (t.kind == type_kind::union_)
        return fail(at, "invalid_union",
                    "a union may not hold another union directly; list its branches instead");
      std::string key = branch_key(t);
      for (const std::string& k : keys)
        if (k == key)
          return fail(
              at, "invalid_union",
              "the union holds " + quote(key) + " twice; a union may hold each type (or named type) once");
      keys.push_back(std::move(key));
      branches.push_back(*b);
    }
    out_.types[*index].branches = std::move(branches);
    return *index;
  }

  // Why `d` is not a value of type `t` in Avro's JSON encoding ("" if it
  // is); a union's default is a value of its first branch.
  std::string check_default(const json::value& d, std::size_t ti, int depth) const {
    if (depth > 64) return "nests deeper than 64 levels";
    const type& t = out_.types[ti];
    auto is = [&](bool ok, std::string_view expected) {
      return ok ? std::string()
                : "must be " + std::string(expected) + " for " + std::string(to_string(t.kind)) + ", not " +
                      std::string(detail::kind_name(d));
    };
    switch (t.kind) {
      case type_kind::null:
        return is(d.is_null(), "null");
      case type_kind::boolean:
        return is(d.is_bool(), "true or false");
      case type_kind::int_: {
        const auto i = as_integer(d);
        return is(i && *i >= std::numeric_limits<std::int32_t>::min() &&
                      *i <= std::numeric_limits<std::int32_t>::max(),
                  "a JSON integer within 32 bits");
      }
      case type_kind::long_:
        return is(as_integer(d).has_value(), "a JSON integer within 64 bits");
      case type_kind::float_:
      case type_kind::double_:
        return is(d.is_number(), "a JSON number");
      case type_kind::bytes:
      case type_kind::fixed: {
        if (!d.is_string()) return is(false, "a JSON string of code points 0 to 255");
        // Each byte is one code point U+0000..U+00FF, so the UTF-8 text
        // holds only 1- and 2-byte sequences whose lead byte is C2 or C3.
        std::size_t n = 0;
        const json::string& s = d.get_string();
        for (std::size_t i = 0; i < s.size(); ++i, ++n) {
          const auto c = static_cast<unsigned char>(s[i]);
          if (c >= 0x80) {
            if ((c != 0xC2 && c != 0xC3) || i + 1 >= s.size())
              return "holds a character above U+00FF; bytes are "
                     "written as code points 0 to 255";
            ++i;
          }
        }
        if (t.kind == type_kind::fixed && n != t.size)
          return "holds " + std::to_string(n) + " bytes; the fixed type " + quote(t.name) + " holds " +
                 std::to_string(t.size);
        return {};
      }
      case type_kind::string:
        return is(d.is_string(), "a JSON string");
      case type_kind::enum_: {
        if (!d.is_string()) return is(false, "a JSON string naming a symbol");
        for (const std::string& s : t.symbols)
          if (s == d.get_string()) return {};
        return "names no symbol of the enum " + quote(t.name);
      }
      case type_kind::array: {
        if (!d.is_array()) return is(false, "a JSON array");
        const json::array& a = d.get_array();
        for (std::size_t i = 0; i < a.size(); ++i)
          if (auto p = check_default(a[i], t.items, depth + 1); !p.empty())
            return "[" + std::to_string(i) + "] " + p;
        return {};
      }
      case type_kind::map: {
        if (!d.is_object()) return is(false, "a JSON object");
        for (const auto& m : d.get_object())
          if (auto p = check_default(m.value(), t.items, depth + 1); !p.empty())
            return "[" + quote(m.key()) + "] " + p;
        return {};
      }
      case type_kind::union_:
        if (t.branches.empty()) return "cannot be given: the union has no branch";
        return check_default(d, t.branches.front(), depth + 1);
      case type_kind::record: {
        if (!d.is_object()) return is(false, "a JSON object");
        const json::object& o = d.get_object();
        for (const field& f : t.fields) {
          const json::value* v = o.if_contains(f.name);
          if (v == nullptr) {
            if (!f.default_value) return "lacks the field " + quote(f.name) + ", which has no default";
            continue;
          }
          if (auto p = check_default(*v, f.type, depth + 1); !p.empty()) return "." + f.name + " " + p;
        }
        return {};
      }
    }
    return "?";
  }
};

// The Parsing Canonical Form, depth first; a named type in full where it
// first appears, by its full name after that.
void write_canonical(const schema& s, std::size_t i, std::vector<bool>& written, std::string& out) {
  const type& t = s.types[i];
  auto quoted = [&](std::string_view text) {  // names and symbols need no escapes
    out += '"';
    out += text;
    out += '"';
  };
  switch (t.kind) {
    case type_kind::record:
    case type_kind::enum_:
    case type_kind::fixed:
      if (written[i]) {
        quoted(t.name);
        return;
      }
      written[i] = true;
      out += "{\"name\":";
      quoted(t.name);
      out += ",\"type\":";
      if (t.kind == type_kind::record) {
        quoted(t.error ? "error" : "record");
        out += ",\"fields\":[";
        for (std::size_t f = 0; f < t.fields.size(); ++f) {
          if (f) out += ',';
          out += "{\"name\":";
          quoted(t.fields[f].name);
          out += ",\"type\":";
          write_canonical(s, t.fields[f].type, written, out);
          out += '}';
        }
        out += "]}";
      } else if (t.kind == type_kind::enum_) {
        quoted("enum");
        out += ",\"symbols\":[";
        for (std::size_t k = 0; k < t.symbols.size(); ++k) {
          if (k) out += ',';
          quoted(t.symbols[k]);
        }
        out += "]}";
      } else {
        quoted("fixed");
        out += ",\"size\":" + std::to_string(t.size) + "}";
      }
      return;
    case type_kind::array:
    case type_kind::map:
      out += t.kind == type_kind::array ? "{\"type\":\"array\",\"items\":" : "{\"type\":\"map\",\"values\":";
      write_canonical(s, t.items, written, out);
      out += '}';
      return;
    case type_kind::union_:
      out += '[';
      for (std::size_t b = 0; b < t.branches.size(); ++b) {
        if (b) out += ',';
        write_canonical(s, t.branches[b], written, out);
      }
      out += ']';
      return;
    default:
      quoted(to_string(t.kind));
  }
}

constexpr std::uint64_t rabin_empty = 0xc15d213aa4d7a795ULL;

constexpr std::array<std::uint64_t, 256> rabin_table() {
  std::array<std::uint64_t, 256> table{};
  for (std::uint64_t i = 0; i < 256; ++i) {
    std::uint64_t fp = i;
    for (int j = 0; j < 8; ++j) fp = (fp >> 1) ^ (rabin_empty & (0 - (fp & 1)));
    table[i] = fp;
  }
  return table;
}

// The mapping onto columns, with the chain of records being mapped (a record
// met again inside itself is a recursive reference).
class mapper {
 public:
  explicit mapper(const schema& s) : s_(s) {}

  mapping run() {
    mapping m;
    const type& root = s_.root();
    std::vector<std::string> path;
    open_.push_back(0);
    for (const field& f : root.fields) {
      path.assign(1, f.name);
      m.columns.push_back(map(f.type, path, 1, m.notes));
    }
    return m;
  }

 private:
  const schema& s_;
  std::vector<std::size_t> open_;

  column map(std::size_t i, const std::vector<std::string>& path, int depth,
             std::vector<mapped_column>& notes) {
    column c;
    c.name = path.back();
    std::size_t ti = i;
    // [null, T] and [T, null]: a nullable T.
    if (const type& u = s_.types[i]; u.kind == type_kind::union_ && u.branches.size() == 2) {
      const bool first_null = s_.types[u.branches[0]].kind == type_kind::null;
      const bool second_null = s_.types[u.branches[1]].kind == type_kind::null;
      if (first_null != second_null) {
        c.nullable = true;
        ti = u.branches[first_null ? 1 : 0];
      }
    }
    const type& t = s_.types[ti];
    const std::size_t note = notes.size();
    notes.push_back({path, describe(s_, i), true});
    auto as_json = [&] {
      c.type = column_type::json;
      notes[note].comparable = false;
      if (t.kind == type_kind::null) c.nullable = true;
      if (t.kind == type_kind::union_)
        for (std::size_t b : t.branches) c.nullable |= s_.types[b].kind == type_kind::null;
      return c;
    };
    switch (t.kind) {
      case type_kind::boolean:
        c.type = column_type::boolean;
        return c;
      case type_kind::int_:
      case type_kind::long_:
        c.type = t.logical == logical_type::timestamp_millis || t.logical == logical_type::timestamp_micros
                     ? column_type::timestamp
                     : column_type::bigint;
        return c;
      case type_kind::float_:
      case type_kind::double_:
        c.type = column_type::double_;
        return c;
      case type_kind::string:
      case type_kind::enum_:
        c.type = column_type::string;
        return c;
      case type_kind::bytes:
      case type_kind::fixed:
        if (t.logical == logical_type::decimal && t.precision <= 38) {
          c.type = column_type::decimal;
          c.precision = t.precision;
          c.scale = t.scale;
          return c;
        }
        return as_json();
      case type_kind::record: {
        bool recursive = false;
        for (std::size_t o : open_) recursive |= o == ti;
        if (recursive || depth > max_row_depth || t.fields.empty()) return as_json();
        c.type = column_type::row;
        open_.push_back(ti);
        std::vector<std::string> inner = path;
        inner.emplace_back();
        for (const field& f : t.fields) {
          inner.back() = f.name;
          c.fields.push_back(map(f.type, inner, depth + 1, notes));
        }
        open_.pop_back();
        return c;
      }
      default:  // null alone, array, map, any other union
        return as_json();
    }
  }
};

}  // namespace

result<schema> schema_from_json(const json::value& v) { return parser().run(v); }

result<schema> parse_schema(std::string_view json_text) {
  auto v = parse_strict_json(json_text, streamt::phase::schema, max_schema_json_depth);
  if (!v) return v.error();
  return schema_from_json(*v);
}

std::string describe(const schema& s, std::size_t i) {
  const type& t = s.types[i];
  std::string d =
      t.name.empty() ? std::string(to_string(t.kind)) : std::string(to_string(t.kind)) + " " + t.name;
  if (t.kind == type_kind::union_) {
    d = "union [";
    for (std::size_t b = 0; b < t.branches.size(); ++b) {
      if (b) d += ", ";
      d += describe(s, t.branches[b]);
    }
    d += "]";
  }
  if (t.logical == logical_type::decimal)
    d += " (decimal(" + std::to_string(t.precision) + "," + std::to_string(t.scale) + "))";
  else if (t.logical != logical_type::none)
    d += " (" + std::string(to_string(t.logical)) + ")";
  return d;
}

std::string canonical_form(const schema& s) {
  std::string out;
  std::vector<bool> written(s.types.size(), false);
  write_canonical(s, 0, written, out);
  return out;
}

std::uint64_t fingerprint(std::string_view canonical) noexcept {
  static constexpr auto table = rabin_table();
  std::uint64_t fp = rabin_empty;
  for (char c : canonical) fp = (fp >> 8) ^ table[(fp ^ static_cast<unsigned char>(c)) & 0xff];
  return fp;
}

std::string fingerprint_hex(std::uint64_t fp) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (int byte = 0; byte < 8; ++byte, fp >>= 8) {
    out += hex[(fp >> 4) & 0xf];
    out += hex[fp & 0xf];
  }
  return out;
}

result<mapping> to_columns(const schema& s) {
  if (s.root().kind != type_kind::record)
    return detail::error(streamt::phase::schema, "not_a_record", "$",
                         "the Avro schema is " + std::string(to_string(s.root().kind)) +
                             ", not a record; a plan reads a record's fields as its columns");
  if (s.root().fields.empty())
    return detail::error(
        streamt::phase::schema, "no_fields", "$",
        "the Avro record " + quote(s.root().name) + " has no fields, so there is nothing to read");
  return mapper(s).run();
}

}  // namespace streamt::plan::avro
