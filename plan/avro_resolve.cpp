// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/avro_resolve.hpp"

#include "plan/json_support.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace streamt::plan::avro {

need everything(const std::vector<std::string>&) { return need::whole; }

namespace {

std::string_view unqualified(std::string_view full) { return full.substr(full.rfind('.') + 1); }

// Named types resolve when their unqualified names agree, or the reader
// lists the writer's full name among its aliases (what Java's resolver does).
bool same_name(const type& w, const type& r) {
  if (unqualified(w.name) == unqualified(r.name)) return true;
  return std::find(r.aliases.begin(), r.aliases.end(), w.name) != r.aliases.end();
}

bool is_primitive(type_kind k) {
  return k != type_kind::record && k != type_kind::enum_ && k != type_kind::array && k != type_kind::map &&
         k != type_kind::union_ && k != type_kind::fixed;
}

// The specification's promotions, and no change at all.
bool promotes(type_kind w, type_kind r) {
  if (w == r) return true;
  switch (w) {
    case type_kind::int_:
      return r == type_kind::long_ || r == type_kind::float_ || r == type_kind::double_;
    case type_kind::long_:
      return r == type_kind::float_ || r == type_kind::double_;
    case type_kind::float_:
      return r == type_kind::double_;
    case type_kind::string:
      return r == type_kind::bytes;
    case type_kind::bytes:
      return r == type_kind::string;
    default:
      return false;
  }
}

bool is_timestamp(logical_type l) {
  return l == logical_type::timestamp_millis || l == logical_type::timestamp_micros;
}

// Would a writer's datum of type `w` be taken by the reader's `r` (ignoring
// what lies inside records, arrays and maps)? Used to pick a reader union's
// branch: the first that takes it exactly, else the first that promotes it.
bool takes(const type& w, const type& r, bool exact) {
  if (w.kind != r.kind)
    return !exact && is_primitive(w.kind) && is_primitive(r.kind) && promotes(w.kind, r.kind);
  switch (w.kind) {
    case type_kind::record:
    case type_kind::enum_:
    case type_kind::fixed:
      return same_name(w, r);
    default:
      return true;
  }
}

class resolver {
 public:
  resolver(const schema& w, const schema& r, const needs& wanted) : w_(w), r_(r), wanted_(wanted) {}

  result<resolution> run() {
    auto root = pair(0, 0, need::part);
    if (!root) return root.error();
    // The root's step is the first one made: pair adds a step before it
    // recurses, and nothing comes before the root's.
    return std::move(out_);
  }

 private:
  const schema& w_;
  const schema& r_;
  const needs& wanted_;
  resolution out_;
  std::vector<std::string> path_;                                     // reader field names from the root
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> whole_;  // steps of pairs needed whole

  std::size_t add(step s) {
    out_.steps.push_back(std::move(s));
    return out_.steps.size() - 1;
  }

  std::size_t skip(std::size_t w) {
    step s;
    s.kind = step_kind::skip;
    s.writer = w;
    return add(std::move(s));
  }

  std::string where() const {
    std::string p = "$";
    for (const std::string& name : path_) p = detail::path_key(p, name);
    return p;
  }

  diagnostic incompatible(std::string message) const {
    return detail::error(streamt::phase::schema, "schema_incompatible", where(), std::move(message));
  }

  diagnostic cannot_read(std::size_t w, std::size_t r, std::string_view why = {}) const {
    std::string field =
        path_.empty() ? std::string("the record") : "the field " + detail::quote(path_.back());
    return incompatible("the writer's " + describe(w_, w) + " cannot be read as the reader's " +
                        describe(r_, r) + " at " + field +
                        (why.empty() ? std::string() : "; " + std::string(why)));
  }

  // The step reading writer type `w` as reader type `r`. Steps of pairs
  // needed whole are shared, which also ends a recursive record's descent.
  result<std::size_t> pair(std::size_t w, std::size_t r, need n) {
    if (n == need::whole) {
      if (auto i = whole_.find({w, r}); i != whole_.end()) return i->second;
    }
    step shell;
    shell.writer = w;
    shell.reader = r;
    const std::size_t at = add(std::move(shell));
    if (n == need::whole) whole_.emplace(std::pair{w, r}, at);
    auto filled = fill(w, r, n);
    if (!filled) return filled.error();
    out_.steps[at] = std::move(*filled);
    return at;
  }

  result<step> fill(std::size_t w, std::size_t r, need n) {
    const type& wt = w_.types[w];
    const type& rt = r_.types[r];
    step s;
    s.writer = w;
    s.reader = r;

    if (wt.kind == type_kind::union_) {
      // Each branch on its own: one the reader cannot take only makes the
      // records that hold it invalid.
      s.kind = step_kind::writer_union;
      for (std::size_t b : wt.branches) {
        auto branch = pair(b, r, n);
        if (branch) {
          s.branches.push_back(*branch);
        } else {
          step bad;
          bad.kind = step_kind::unresolvable;
          bad.writer = b;
          bad.reader = r;
          bad.why = branch.error().message;
          s.branches.push_back(add(std::move(bad)));
        }
      }
      return s;
    }
    if (rt.kind == type_kind::union_) {
      for (bool exact : {true, false})
        for (std::size_t b = 0; b < rt.branches.size(); ++b)
          if (takes(wt, r_.types[rt.branches[b]], exact)) {
            auto inner = pair(w, rt.branches[b], n);
            if (!inner) return inner.error();
            s.kind = step_kind::reader_union;
            s.branch = b;
            s.child = *inner;
            return s;
          }
      return cannot_read(w, r, "no branch of the reader's union takes it");
    }

    if (wt.kind != rt.kind && !(is_primitive(wt.kind) && is_primitive(rt.kind) && promotes(wt.kind, rt.kind)))
      return cannot_read(w, r);
    switch (wt.kind) {
      case type_kind::record:
        return record(w, r, n, std::move(s));
      case type_kind::enum_: {
        if (!same_name(wt, rt))
          return cannot_read(w, r, "the names differ and the reader has no alias for it");
        s.kind = step_kind::enum_;
        std::vector<std::string> unknown;
        for (const std::string& symbol : wt.symbols) {
          auto found = std::find(rt.symbols.begin(), rt.symbols.end(), symbol);
          if (found == rt.symbols.end() && rt.enum_default)
            found = std::find(rt.symbols.begin(), rt.symbols.end(), *rt.enum_default);
          if (found == rt.symbols.end()) unknown.push_back(symbol);
          s.symbols.push_back(
              found == rt.symbols.end() ? -1 : static_cast<std::int32_t>(found - rt.symbols.begin()));
        }
        if (!unknown.empty())
          s.why =
              "the writer's enum " + wt.name + " has symbols the reader's lacks (" +
              detail::quote(unknown.front()) +
              (unknown.size() > 1 ? " and " + std::to_string(unknown.size() - 1) + " more" : std::string()) +
              ") and the reader's has no default";
        return s;
      }
      case type_kind::fixed:
        if (!same_name(wt, rt))
          return cannot_read(w, r, "the names differ and the reader has no alias for it");
        if (wt.size != rt.size) return cannot_read(w, r, "their sizes differ");
        if (auto problem = logical_problem(wt, rt); !problem.empty()) return cannot_read(w, r, problem);
        s.kind = step_kind::fixed;
        return s;
      case type_kind::array:
      case type_kind::map: {
        auto items = pair(wt.items, rt.items, need::whole);
        if (!items) return items.error();
        s.kind = wt.kind == type_kind::array ? step_kind::array : step_kind::map;
        s.child = *items;
        return s;
      }
      default:
        if (auto problem = logical_problem(wt, rt); !problem.empty()) return cannot_read(w, r, problem);
        s.kind = step_kind::read;
        return s;
    }
  }

  // What the specification lets pass but would change a value: a timestamp
  // of another unit, a decimal of another scale or of more digits, a decimal
  // read from bytes that are not one.
  static std::string logical_problem(const type& w, const type& r) {
    if (r.logical == logical_type::decimal) {
      if (w.logical != logical_type::decimal)
        return "the reader's is a decimal and the writer's is not, so its bytes have no scale";
      if (w.scale != r.scale)
        return "their scales differ (" + std::to_string(w.scale) + " and " + std::to_string(r.scale) +
               "), so every value would be read " + (w.scale > r.scale ? "too large" : "too small");
      if (w.precision > r.precision)
        return "the writer's precision " + std::to_string(w.precision) + " exceeds the reader's " +
               std::to_string(r.precision);
    }
    if (is_timestamp(r.logical) && is_timestamp(w.logical) && w.logical != r.logical)
      return "their units differ (" + std::string(to_string(w.logical)) + " and " +
             std::string(to_string(r.logical)) + "), so every time would be read 1000 times " +
             (w.logical == logical_type::timestamp_micros ? "too late" : "too early");
    if (is_timestamp(r.logical) && !is_timestamp(w.logical))
      return "the reader's is a " + std::string(to_string(r.logical)) + " and the writer's has no time unit";
    return {};
  }

  result<step> record(std::size_t w, std::size_t r, need n, step s) {
    const type& wt = w_.types[w];
    const type& rt = r_.types[r];
    if (!same_name(wt, rt)) return cannot_read(w, r, "the names differ and the reader has no alias for it");
    s.kind = step_kind::record;
    std::vector<bool> matched(rt.fields.size(), false);
    for (const field& wf : wt.fields) {
      std::size_t j = 0;
      while (j < rt.fields.size() && rt.fields[j].name != wf.name &&
             std::find(rt.fields[j].aliases.begin(), rt.fields[j].aliases.end(), wf.name) ==
                 rt.fields[j].aliases.end())
        ++j;
      if (j == rt.fields.size()) {
        s.fields.push_back({skip(wf.type), 0});
        continue;
      }
      matched[j] = true;
      path_.push_back(rt.fields[j].name);
      const need fn = n == need::whole ? need::whole : wanted_(path_);
      if (fn == need::none) {
        s.fields.push_back({skip(wf.type), j});
      } else {
        auto inner = pair(wf.type, rt.fields[j].type, fn);
        if (!inner) return inner.error();
        s.fields.push_back({*inner, j});
      }
      path_.pop_back();
    }
    for (std::size_t j = 0; j < rt.fields.size(); ++j) {
      if (matched[j]) continue;
      path_.push_back(rt.fields[j].name);
      const need fn = n == need::whole ? need::whole : wanted_(path_);
      if (fn != need::none) {
        if (!rt.fields[j].default_value)
          return incompatible("the writer's record " + wt.name + " has no field " +
                              detail::quote(rt.fields[j].name) +
                              " and the reader's gives it no default; give the reader's field a default, or "
                              "read a schema version that has the field");
        s.defaulted.push_back(j);
      }
      path_.pop_back();
    }
    return s;
  }
};

}  // namespace

result<resolution> resolve(const schema& writer, const schema& reader, const needs& wanted) {
  return resolver(writer, reader, wanted).run();
}

}  // namespace streamt::plan::avro
