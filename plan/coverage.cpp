// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "plan/coverage.hpp"

#include "plan/json_support.hpp"

#include <boost/json/string.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

namespace streamt::plan {

namespace {

constexpr std::size_t none = static_cast<std::size_t>(-1);

// What kind of values a column has, as far as the analysis cares. Every
// ordered type becomes an interval of integer keys (DOUBLE through the
// order-preserving map of its bits), so one interval arithmetic serves them
// all and strict bounds are exact steps.
enum class kind : std::uint8_t { ordered, string, boolean, opaque };

// A column the analysis tracks: one a condition reads, or a ROW holding one
// (whose nullness its fields share).
struct var {
  std::size_t node = 0;
  const column* col = nullptr;
  kind k = kind::opaque;
  bool own_null = false;  // may be null while its parent is present
  std::size_t parent = none;
  std::size_t end = 0;  // one past its last descendant var
  int128 min = 0, max = 0;
  std::vector<std::string> strings;  // kind::string: the literals compared with it, sorted
};

// Where a var stands in a region. `any`: not yet split on, every state its
// ancestors allow. `null`: null with its parent present. `absent`: null
// because an ancestor is.
enum class state : std::uint8_t { any, null, absent, present };

// The present values of a var in a region: an interval of keys, a subset of
// {false, true} (bit 0 false, bit 1 true), or a set of strings given as
// literal ids, either exactly those (finite) or all strings but those.
struct value_set {
  int128 lo = 0, hi = 0;
  std::uint8_t bools = 3;
  bool cofinite = true;
  std::vector<std::uint32_t> ids;  // sorted
  friend bool operator==(const value_set&, const value_set&) = default;
};

struct region {
  std::vector<state> st;
  std::vector<value_set> vs;
};

struct cond {
  std::size_t v = 0;
  compare_op op = compare_op::eq;
  int128 key = 0;        // ordered
  std::uint32_t id = 0;  // string
  bool b = false;        // boolean
};

enum class outcome : std::uint8_t { no, yes, mixed };

outcome negate(outcome o) { return o == outcome::mixed ? o : o == outcome::yes ? outcome::no : outcome::yes; }

outcome combine(outcome a, outcome b) { return a == b ? a : outcome::mixed; }

outcome of(bool always, bool never) { return always ? outcome::yes : never ? outcome::no : outcome::mixed; }

// DOUBLE's order as integers: adjacent finite doubles get adjacent keys and
// -0 and +0 (equal to the engine) the same one; infinities fall just outside
// the finite range.
int128 double_key(double d) {
  if (d == 0) return 0;
  const auto bits = std::bit_cast<std::int64_t>(d);
  return bits < 0 ? -static_cast<int128>(bits & std::numeric_limits<std::int64_t>::max()) : bits;
}

double key_double(int128 k) {
  const auto bits = static_cast<std::int64_t>(k < 0 ? -k : k);
  const double d = std::bit_cast<double>(bits);
  return k < 0 ? -d : d;
}

int128 ten_to(int n) {
  int128 p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

// The values the engine can give a column: its type's range, narrowed for
// metadata (a partition is an int32 and an offset never negative; a Kafka
// timestamp is not checked against the years 0001-9999 but is never below
// -1, the broker's "none").
void set_domain(var& v) {
  const column& c = *v.col;
  constexpr auto i64min = std::numeric_limits<std::int64_t>::min();
  constexpr auto i64max = std::numeric_limits<std::int64_t>::max();
  switch (c.type) {
    case column_type::bigint:
      v.min = c.from == column_source::partition || c.from == column_source::offset ? 0 : i64min;
      v.max = c.from == column_source::partition ? std::numeric_limits<std::int32_t>::max() : i64max;
      break;
    case column_type::timestamp:
      v.min = c.from == column_source::timestamp ? -1 : min_timestamp_millis;
      v.max = c.from == column_source::timestamp ? i64max : max_timestamp_millis;
      break;
    case column_type::decimal: {
      const int p = std::clamp(c.precision, 1, max_decimal_precision);
      v.max = ten_to(p) - 1;
      v.min = -v.max;
      break;
    }
    case column_type::double_:
      v.max = double_key(std::numeric_limits<double>::max());
      v.min = -v.max;
      break;
    default:
      break;
  }
}

value_set full_set(const var& v) {
  value_set s;
  s.lo = v.min;
  s.hi = v.max;
  return s;
}

bool contains(const std::vector<std::uint32_t>& ids, std::uint32_t id) {
  return std::binary_search(ids.begin(), ids.end(), id);
}

// A condition on the present values `s` of its var.
outcome on_values(const cond& c, const value_set& s, kind k) {
  if (c.op == compare_op::is_null) return outcome::no;
  if (c.op == compare_op::is_not_null) return outcome::yes;
  switch (k) {
    case kind::ordered:
      switch (c.op) {
        case compare_op::eq:
          return of(s.lo == s.hi && s.lo == c.key, c.key < s.lo || c.key > s.hi);
        case compare_op::ne:
          return negate(of(s.lo == s.hi && s.lo == c.key, c.key < s.lo || c.key > s.hi));
        case compare_op::lt:
          return of(s.hi < c.key, s.lo >= c.key);
        case compare_op::le:
          return of(s.hi <= c.key, s.lo > c.key);
        case compare_op::gt:
          return of(s.lo > c.key, s.hi <= c.key);
        case compare_op::ge:
          return of(s.lo >= c.key, s.hi < c.key);
        default:
          return outcome::mixed;
      }
    case kind::string: {
      // A cofinite set has infinitely many members, so equality to one
      // literal is never all of it.
      const bool in = s.cofinite ? !contains(s.ids, c.id) : contains(s.ids, c.id);
      const outcome eq = of(!s.cofinite && s.ids.size() == 1 && s.ids[0] == c.id, !in);
      return c.op == compare_op::eq ? eq : negate(eq);
    }
    case kind::boolean: {
      const std::uint8_t bit = c.b ? 2 : 1;
      const outcome eq = of(s.bools == bit, (s.bools & bit) == 0);
      return c.op == compare_op::eq ? eq : negate(eq);
    }
    case kind::opaque:
      break;
  }
  return outcome::mixed;
}

class analysis {
 public:
  analysis(std::vector<var> vars, std::vector<std::vector<cond>> routes)
      : vars_(std::move(vars)), routes_(std::move(routes)) {}

  std::size_t steps = 0;
  bool stopped = false;

  region root() const {
    region r;
    r.st.assign(vars_.size(), state::any);
    r.vs.reserve(vars_.size());
    for (const var& v : vars_) r.vs.push_back(full_set(v));
    return r;
  }

  // The smallest record `routes` all take, if any (overlap mode), or every
  // region none of them takes (gap mode), depth first, each region split on
  // the first var a route still depends on.
  std::optional<region> find_common(std::vector<std::size_t> routes) {
    std::optional<region> found;
    run(std::move(routes), true, [&](region&& r) {
      found = std::move(r);
      return false;
    });
    return found;
  }

  std::vector<region> find_gaps(std::vector<std::size_t> routes) {
    std::vector<region> out;
    run(std::move(routes), false, [&](region&& r) {
      out.push_back(std::move(r));
      return true;
    });
    return out;
  }

  // Joins gaps equal but in one var whose present values they split, so
  // that what the routes' literals cut apart but no route tells apart is
  // one line. Quadratic, so only for a modest number of gaps.
  void merge(std::vector<region>& gaps) {
    if (gaps.size() > 256) return;
    for (bool again = true; again && !stopped;) {
      again = false;
      for (std::size_t i = 0; i < gaps.size() && !again; ++i)
        for (std::size_t j = i + 1; j < gaps.size() && !again; ++j) {
          if (!charge(vars_.size())) return;
          if (join(gaps[i], gaps[j])) {
            gaps.erase(gaps.begin() + static_cast<std::ptrdiff_t>(j));
            again = true;
          }
        }
    }
  }

  example_record example(const region& r) const {
    example_record out;
    for (std::size_t i = 0; i < vars_.size(); ++i) {
      const var& v = vars_[i];
      switch (r.st[i]) {
        case state::any:
        case state::absent:
          break;
        case state::null:
          out.push_back({v.node, std::nullopt});
          break;
        case state::present:
          out.push_back({v.node, smallest(v, r.vs[i])});
          break;
      }
    }
    return out;
  }

 private:
  std::vector<var> vars_;
  std::vector<std::vector<cond>> routes_;

  bool charge(std::size_t n) {
    steps += n;
    if (steps > max_coverage_steps) stopped = true;
    return !stopped;
  }

  bool can_be_null(std::size_t i, const region& r) const {
    for (std::size_t a = i; a != none; a = vars_[a].parent) {
      if (r.st[a] != state::any) return false;  // a present ancestor (null ones make `i` absent)
      if (vars_[a].own_null) return true;
    }
    return false;
  }

  outcome eval(const cond& c, const region& r) const {
    const var& v = vars_[c.v];
    switch (r.st[c.v]) {
      case state::null:
      case state::absent:
        return c.op == compare_op::is_null ? outcome::yes : outcome::no;
      case state::present:
        return on_values(c, r.vs[c.v], v.k);
      case state::any:
        break;
    }
    const outcome present = on_values(c, r.vs[c.v], v.k);
    if (!can_be_null(c.v, r)) return present;
    return combine(present, c.op == compare_op::is_null ? outcome::yes : outcome::no);
  }

  void set_null(region& r, std::size_t i) const {
    r.st[i] = state::null;
    for (std::size_t d = i + 1; d < vars_[i].end; ++d) r.st[d] = state::absent;
  }

  // The pieces `r` splits into on var `i` (or on the topmost undecided
  // ancestor of it, so that a field is only split once its ROW is present),
  // each uniform for every condition of `active` on it; value pieces in the
  // order of their smallest example, the null piece last.
  std::vector<region> split(const region& r, std::size_t i, const std::vector<std::size_t>& active,
                            bool by_magnitude, bool& on_values_of_i) {
    on_values_of_i = false;
    std::size_t top = none;
    for (std::size_t a = vars_[i].parent; a != none; a = vars_[a].parent)
      if (r.st[a] == state::any) top = a;
    std::vector<region> out;
    if (top != none) {
      out.push_back(r);
      out.back().st[top] = state::present;
      if (vars_[top].own_null) {
        out.push_back(r);
        set_null(out.back(), top);
      }
      return out;
    }
    on_values_of_i = true;
    const var& v = vars_[i];
    std::vector<const cond*> cs;
    for (std::size_t ri : active)
      for (const cond& c : routes_[ri])
        if (c.v == i) cs.push_back(&c);
    std::vector<value_set> pieces = value_pieces(v, r.vs[i], cs);
    if (v.k == kind::ordered && by_magnitude) {
      auto magnitude = [&](const value_set& s) {
        const int128 best = s.lo > 0 ? s.lo : s.hi < 0 ? s.hi : 0;
        return std::pair(best < 0 ? -best : best, best < 0);
      };
      std::stable_sort(pieces.begin(), pieces.end(),
                       [&](const value_set& a, const value_set& b) { return magnitude(a) < magnitude(b); });
    }
    for (value_set& p : pieces) {
      out.push_back(r);
      out.back().st[i] = state::present;
      out.back().vs[i] = std::move(p);
    }
    if (r.st[i] == state::any && v.own_null) {
      out.push_back(r);
      set_null(out.back(), i);
    }
    return out;
  }

  std::vector<outcome> signature(const std::vector<const cond*>& cs, const value_set& s, kind k) const {
    std::vector<outcome> sig;
    sig.reserve(cs.size());
    for (const cond* c : cs) sig.push_back(on_values(*c, s, k));
    return sig;
  }

  std::vector<value_set> value_pieces(const var& v, const value_set& s, const std::vector<const cond*>& cs) {
    std::vector<value_set> pieces;
    charge(cs.size());
    switch (v.k) {
      case kind::ordered: {
        std::vector<int128> keys;
        for (const cond* c : cs)
          if (c->op != compare_op::is_null && c->op != compare_op::is_not_null && c->key >= s.lo &&
              c->key <= s.hi)
            keys.push_back(c->key);
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        // The literals as points and the runs between them.
        int128 from = s.lo;
        for (int128 k : keys) {
          if (from < k) pieces.push_back({from, k - 1, 3, true, {}});
          pieces.push_back({k, k, 3, true, {}});
          from = k + 1;
        }
        if (keys.empty() || from <= s.hi) pieces.push_back({from, s.hi, 3, true, {}});
        // Neighbours no condition tells apart are one piece.
        std::vector<value_set> merged;
        std::vector<outcome> last;
        for (value_set& p : pieces) {
          charge(cs.size());
          auto sig = signature(cs, p, v.k);
          if (!merged.empty() && sig == last) {
            merged.back().hi = p.hi;
          } else {
            merged.push_back(p);
            last = std::move(sig);
          }
        }
        return merged;
      }
      case kind::string: {
        std::vector<std::uint32_t> ids;
        for (const cond* c : cs)
          if (c->op == compare_op::eq || c->op == compare_op::ne) ids.push_back(c->id);
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        std::vector<value_set> parts;
        std::vector<std::uint32_t> rest;  // the finite set's members no literal names
        value_set others = s;
        for (std::uint32_t id : ids) {
          const bool in = s.cofinite ? !contains(s.ids, id) : contains(s.ids, id);
          if (!in) continue;
          value_set point;
          point.cofinite = false;
          point.ids = {id};
          parts.push_back(std::move(point));
          if (others.cofinite) {
            others.ids.insert(std::lower_bound(others.ids.begin(), others.ids.end(), id), id);
          } else {
            others.ids.erase(std::find(others.ids.begin(), others.ids.end(), id));
          }
        }
        if (others.cofinite || !others.ids.empty()) parts.push_back(std::move(others));
        return group(v, cs, std::move(parts));
      }
      case kind::boolean: {
        std::vector<value_set> parts;
        for (std::uint8_t bit : {std::uint8_t{1}, std::uint8_t{2}})
          if (s.bools & bit) parts.push_back({0, 0, bit, true, {}});
        return group(v, cs, std::move(parts));
      }
      case kind::opaque:
        break;
    }
    pieces.push_back(s);
    return pieces;
  }

  // Joins the parts (strings or booleans) that every condition sees alike.
  std::vector<value_set> group(const var& v, const std::vector<const cond*>& cs,
                               std::vector<value_set> parts) {
    std::vector<value_set> out;
    std::vector<std::vector<outcome>> sigs;
    for (value_set& p : parts) {
      charge(cs.size());
      auto sig = signature(cs, p, v.k);
      auto same = std::find(sigs.begin(), sigs.end(), sig);
      if (same == sigs.end()) {
        out.push_back(std::move(p));
        sigs.push_back(std::move(sig));
      } else {
        value_set& into = out[static_cast<std::size_t>(same - sigs.begin())];
        into = unite(into, p, v.k);
      }
    }
    return out;
  }

  // The union of two disjoint sets of one var, when it is one set.
  static std::optional<value_set> unite_if(const value_set& a, const value_set& b, kind k) {
    if (k == kind::ordered) {
      if (a.hi + 1 == b.lo) return value_set{a.lo, b.hi, 3, true, {}};
      if (b.hi + 1 == a.lo) return value_set{b.lo, a.hi, 3, true, {}};
      return std::nullopt;
    }
    if (k == kind::opaque) return std::nullopt;
    return unite(a, b, k);
  }

  static value_set unite(const value_set& a, const value_set& b, kind k) {
    value_set out = a;
    if (k == kind::boolean) {
      out.bools = a.bools | b.bools;
      return out;
    }
    out.ids.clear();
    if (a.cofinite && b.cofinite) {
      std::set_intersection(a.ids.begin(), a.ids.end(), b.ids.begin(), b.ids.end(),
                            std::back_inserter(out.ids));
    } else if (a.cofinite || b.cofinite) {
      const value_set& co = a.cofinite ? a : b;
      const value_set& fin = a.cofinite ? b : a;
      out.cofinite = true;
      std::set_difference(co.ids.begin(), co.ids.end(), fin.ids.begin(), fin.ids.end(),
                          std::back_inserter(out.ids));
    } else {
      out.cofinite = false;
      std::set_union(a.ids.begin(), a.ids.end(), b.ids.begin(), b.ids.end(), std::back_inserter(out.ids));
    }
    return out;
  }

  // True if `n` has every value and `p` is null, descendants and all: then
  // the two are every state of the var.
  bool null_and_all(const region& n, const region& p, std::size_t i) const {
    if (n.st[i] != state::null || p.st[i] != state::present || !(p.vs[i] == full_set(vars_[i]))) return false;
    for (std::size_t d = i + 1; d < vars_[i].end; ++d)
      if (p.st[d] != state::any) return false;
    return true;
  }

  bool join(region& a, const region& b) const {
    for (std::size_t i = 0; i < vars_.size(); ++i) {
      if (a.st[i] == b.st[i] && (a.st[i] != state::present || a.vs[i] == b.vs[i])) continue;
      if (!null_and_all(a, b, i) && !null_and_all(b, a, i)) break;
      bool rest_equal = true;
      for (std::size_t k = vars_[i].end; k < vars_.size() && rest_equal; ++k)
        rest_equal = a.st[k] == b.st[k] && (a.st[k] != state::present || a.vs[k] == b.vs[k]);
      if (!rest_equal) return false;
      for (std::size_t d = i; d < vars_[i].end; ++d) {
        a.st[d] = state::any;
        a.vs[d] = full_set(vars_[d]);
      }
      return true;
    }
    std::size_t differ = none;
    for (std::size_t i = 0; i < vars_.size(); ++i) {
      if (a.st[i] != b.st[i]) return false;
      if (a.st[i] == state::present && !(a.vs[i] == b.vs[i])) {
        if (differ != none) return false;
        differ = i;
      }
    }
    if (differ == none) return false;
    auto u = unite_if(a.vs[differ], b.vs[differ], vars_[differ].k);
    if (!u) return false;
    a.vs[differ] = std::move(*u);
    return true;
  }

  template <class Emit>
  void run(std::vector<std::size_t> routes, bool all, Emit emit) {
    struct frame {
      region r;
      std::vector<std::size_t> active;
    };
    std::vector<frame> stack;
    stack.push_back({root(), std::move(routes)});
    while (!stack.empty()) {
      if (!charge(1 + vars_.size())) return;
      frame f = std::move(stack.back());
      stack.pop_back();
      std::vector<std::size_t> active;
      std::size_t next = none;  // the first var a route still depends on
      bool done = false;
      for (std::size_t ri : f.active) {
        outcome o = outcome::yes;
        std::size_t first = none;
        for (const cond& c : routes_[ri]) {
          const outcome e = eval(c, f.r);
          if (e == outcome::no) {
            o = outcome::no;
            break;
          }
          if (e == outcome::mixed) {
            o = outcome::mixed;
            first = std::min(first, c.v);
          }
        }
        if (!charge(routes_[ri].size())) return;
        if (o == outcome::mixed) {
          active.push_back(ri);
          next = std::min(next, first);
        } else if (all ? o == outcome::no : o == outcome::yes) {
          // Overlap mode: a route refuses every record here. Gap mode: a
          // route takes every record here.
          done = true;
          break;
        }
      }
      if (done) continue;
      if (active.empty()) {
        if (!emit(std::move(f.r))) return;
        continue;
      }
      bool on_values_of_next = false;
      std::vector<region> pieces = split(f.r, next, active, all, on_values_of_next);
      if (all) {
        // Every piece where a route refuses is dropped by the next visit;
        // of the present pieces left, all conditions on the var hold alike,
        // and what follows depends only on the var being present, so one of
        // them (the smallest) stands for all.
        std::vector<region> keep;
        bool present_kept = false;
        for (region& p : pieces) {
          bool refused = false;
          for (std::size_t ri : active) {
            for (const cond& c : routes_[ri])
              if (c.v == next && eval(c, p) == outcome::no) refused = true;
          }
          if (refused) continue;
          const bool present = on_values_of_next && p.st[next] == state::present;
          if (present && present_kept) continue;
          present_kept = present_kept || present;
          keep.push_back(std::move(p));
        }
        pieces = std::move(keep);
      }
      if (!charge(pieces.size() * vars_.size())) return;
      for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) stack.push_back({std::move(*it), active});
    }
  }

  // The value of least magnitude in `s`, as the column's literal.
  std::optional<literal> smallest(const var& v, const value_set& s) const {
    switch (v.k) {
      case kind::ordered: {
        const int128 k = s.lo > 0 ? s.lo : s.hi < 0 ? s.hi : 0;
        switch (v.col->type) {
          case column_type::double_:
            return literal{key_double(k)};
          case column_type::decimal:
            return literal{decimal_value{k}};
          case column_type::timestamp:
            return literal{timestamp_value{static_cast<std::int64_t>(k)}};
          default:
            return literal{static_cast<std::int64_t>(k)};
        }
      }
      case kind::boolean:
        return literal{(s.bools & 1) == 0};
      case kind::string: {
        if (!s.cofinite) {
          // The shortest member, then the first in byte order.
          const std::string* best = nullptr;
          for (std::uint32_t id : s.ids) {
            const std::string& m = v.strings[id];
            if (!best || m.size() < best->size() || (m.size() == best->size() && m < *best)) best = &m;
          }
          return literal{best ? *best : std::string()};
        }
        // The first string in shortlex order over a-z that is not excluded:
        // there are fewer exclusions than candidates tried.
        for (std::size_t n = 0;; ++n) {
          std::string candidate;
          for (std::size_t rest = n; rest > 0; rest = (rest - 1) / 26)
            candidate.insert(candidate.begin(), static_cast<char>('a' + (rest - 1) % 26));
          const bool excluded = std::any_of(s.ids.begin(), s.ids.end(),
                                            [&](std::uint32_t id) { return v.strings[id] == candidate; });
          if (!excluded) return literal{std::move(candidate)};
        }
      }
      case kind::opaque:
        break;
    }
    return literal{std::monostate{}};
  }
};

diagnostic refusal(std::string code, std::string message) {
  return detail::error(phase::plan, std::move(code), "", std::move(message));
}

std::string json_string(std::string_view s) {
  std::string out;
  detail::write_json(out, boost::json::value(boost::json::string(s)), 0);
  return out;
}

std::string double_text(double d) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

std::string value_text(const column& c, const std::optional<literal>& v) {
  if (!v) return "null";
  if (const auto* i = std::get_if<std::int64_t>(&*v)) return std::to_string(*i);
  if (const auto* b = std::get_if<bool>(&*v)) return *b ? "true" : "false";
  if (const auto* s = std::get_if<std::string>(&*v)) return json_string(*s);
  if (const auto* d = std::get_if<double>(&*v)) return double_text(*d);
  if (const auto* d = std::get_if<decimal_value>(&*v)) return format_decimal(*d, c.scale);
  if (const auto* t = std::get_if<timestamp_value>(&*v)) return json_string(format_timestamp(*t));
  return "{}";
}

}  // namespace

result<coverage_report> analyse_coverage(const schema& s, const std::vector<route>& routes) {
  if (routes.size() > max_routes)
    return refusal("too_many_routes", "the plan has " + std::to_string(routes.size()) + " routes; at most " +
                                          std::to_string(max_routes) + " are analysed");
  const std::vector<node> nodes = flatten(s);
  // The vars: every node a condition reads and the ROWs above it, in
  // schema order (pre-order, so a ROW comes before its fields).
  std::vector<bool> tracked(nodes.size(), false);
  for (std::size_t ri = 0; ri < routes.size(); ++ri)
    for (const condition& c : routes[ri].predicate) {
      if (c.column >= nodes.size())
        return refusal("column_out_of_range", "route " + std::to_string(ri + 1) +
                                                  " has a condition on node " + std::to_string(c.column) +
                                                  ", outside the schema");
      for (std::size_t n = c.column; n != none && !tracked[n]; n = nodes[n].parent) tracked[n] = true;
    }
  std::vector<var> vars;
  std::vector<std::size_t> var_of(nodes.size(), none);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (!tracked[n]) continue;
    var v;
    v.node = n;
    v.col = nodes[n].column;
    v.parent = nodes[n].parent == none ? none : var_of[nodes[n].parent];
    const column_type t = v.col->type;
    v.k = is_ordered(t)               ? kind::ordered
          : t == column_type::string  ? kind::string
          : t == column_type::boolean ? kind::boolean
                                      : kind::opaque;
    // The decoder always fills a partition and an offset, whatever the
    // schema says of their nullability.
    v.own_null =
        v.col->nullable && v.col->from != column_source::partition && v.col->from != column_source::offset;
    set_domain(v);
    var_of[n] = vars.size();
    vars.push_back(std::move(v));
  }
  for (std::size_t i = 0; i < vars.size(); ++i) {
    std::size_t e = i + 1;
    while (e < vars.size()) {
      std::size_t a = vars[e].parent;
      while (a != none && a != i) a = vars[a].parent;
      if (a != i) break;
      ++e;
    }
    vars[i].end = e;
  }
  // Each var's string literals, for ids.
  for (const route& r : routes)
    for (const condition& c : r.predicate)
      if (const auto* str = std::get_if<std::string>(&c.value))
        vars[var_of[c.column]].strings.push_back(*str);
  for (var& v : vars) {
    std::sort(v.strings.begin(), v.strings.end());
    v.strings.erase(std::unique(v.strings.begin(), v.strings.end()), v.strings.end());
  }
  std::vector<std::vector<cond>> conds(routes.size());
  for (std::size_t ri = 0; ri < routes.size(); ++ri)
    for (std::size_t ci = 0; ci < routes[ri].predicate.size(); ++ci) {
      const condition& c = routes[ri].predicate[ci];
      const var& v = vars[var_of[c.column]];
      const std::string where = "condition " + std::to_string(ci + 1) + " of route " + route_name(routes, ri);
      cond out;
      out.v = var_of[c.column];
      out.op = c.op;
      if (c.op != compare_op::is_null && c.op != compare_op::is_not_null) {
        const column_type t = v.col->type;
        const bool ordered_op = c.op != compare_op::eq && c.op != compare_op::ne;
        if (!is_comparable(t) || (ordered_op && !is_ordered(t)))
          return refusal("operator_not_applicable",
                         where + " applies " + std::string(to_string(c.op)) + " to " + type_name(*v.col));
        bool fits = true;
        if (const auto* i = std::get_if<std::int64_t>(&c.value); i && t == column_type::bigint) {
          out.key = *i;
        } else if (const auto* ts = std::get_if<timestamp_value>(&c.value);
                   ts && t == column_type::timestamp) {
          out.key = ts->millis;
        } else if (const auto* d = std::get_if<decimal_value>(&c.value); d && t == column_type::decimal) {
          out.key = d->unscaled;
        } else if (const auto* x = std::get_if<double>(&c.value); x && t == column_type::double_) {
          fits = !std::isnan(*x);
          if (fits) out.key = double_key(*x);
        } else if (const auto* b = std::get_if<bool>(&c.value); b && t == column_type::boolean) {
          out.b = *b;
        } else if (const auto* str = std::get_if<std::string>(&c.value); str && t == column_type::string) {
          const auto at = std::lower_bound(v.strings.begin(), v.strings.end(), *str);
          out.id = static_cast<std::uint32_t>(at - v.strings.begin());
        } else {
          fits = false;
        }
        if (!fits)
          return refusal("literal_type_mismatch", where + " compares " + type_name(*v.col) +
                                                      " with a literal of another type (or NaN)");
      }
      conds[ri].push_back(out);
    }

  analysis a(std::move(vars), std::move(conds));
  coverage_report report;
  for (std::size_t i = 0; i < routes.size() && !a.stopped; ++i)
    for (std::size_t j = i + 1; j < routes.size() && !a.stopped; ++j)
      if (auto r = a.find_common({i, j})) report.overlaps.push_back({i, j, a.example(*r)});
  if (!a.stopped) {
    std::vector<std::size_t> all(routes.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    std::vector<region> gaps = a.find_gaps(std::move(all));
    a.merge(gaps);
    for (const region& g : gaps) report.gaps.push_back({a.example(g)});
  }
  report.complete = !a.stopped;
  return report;
}

std::string example_text(const schema& s, const example_record& r) {
  const std::vector<node> nodes = flatten(s);
  std::string out = "{";
  std::vector<std::size_t> open;  // the ROW nodes whose objects are open
  bool first = true;
  auto inside = [&](std::size_t n, std::size_t row) {
    for (std::size_t a = nodes[n].parent; a != none; a = nodes[a].parent)
      if (a == row) return true;
    return false;
  };
  for (std::size_t k = 0; k < r.size(); ++k) {
    const std::size_t n = r[k].column;
    if (n >= nodes.size()) continue;
    while (!open.empty() && !inside(n, open.back())) {
      out += '}';
      open.pop_back();
    }
    // Open the ROWs between the innermost open one and this node.
    std::vector<std::size_t> chain;
    for (std::size_t a = nodes[n].parent; a != none && (open.empty() || a != open.back());
         a = nodes[a].parent)
      chain.push_back(a);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (!first) out += ", ";
      out += json_string(nodes[*it].path.back()) + ": {";
      open.push_back(*it);
      first = true;
    }
    const bool opened_by_next = r[k].value && std::holds_alternative<std::monostate>(*r[k].value) &&
                                nodes[n].column->type == column_type::row && k + 1 < r.size() &&
                                r[k + 1].column < nodes.size() && inside(r[k + 1].column, n);
    if (opened_by_next) {
      if (!first) out += ", ";
      out += json_string(nodes[n].path.back()) + ": {";
      open.push_back(n);
      first = true;
      continue;
    }
    if (!first) out += ", ";
    out += json_string(nodes[n].path.back()) + ": " + value_text(*nodes[n].column, r[k].value);
    first = false;
  }
  for (; !open.empty(); open.pop_back()) out += '}';
  return out + "}";
}

std::vector<std::string> report_lines(const schema& s, const std::vector<route>& routes,
                                      const coverage_report& c) {
  std::vector<std::string> out;
  auto name = [&](std::size_t i) {
    return i < routes.size() ? detail::quote(route_name(routes, i)) : "#" + std::to_string(i + 1);
  };
  for (const overlap& o : c.overlaps) {
    const std::string what = o.example.empty() ? "every record" : example_text(s, o.example);
    out.push_back("routes " + name(o.first) + " and " + name(o.second) + " both take " + what);
  }
  const std::size_t shown = std::min(c.gaps.size(), max_reported_gaps);
  for (std::size_t i = 0; i < shown; ++i) {
    const example_record& e = c.gaps[i].example;
    out.push_back("no route takes " + (e.empty() ? std::string("any record") : example_text(s, e)));
  }
  if (c.gaps.size() > shown)
    out.push_back("and " + std::to_string(c.gaps.size() - shown) + " more kinds of record no route takes");
  if (!c.complete)
    out.push_back("coverage is undecided: the analysis stopped at its bound of " +
                  std::to_string(max_coverage_steps) + " steps, so there may be more overlaps and gaps");
  return out;
}

}  // namespace streamt::plan
