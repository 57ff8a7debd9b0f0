#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

"""A small evaluator of the part of PromQL the alerts of docs/metrics.md use.

It is not Prometheus (no Prometheus runs here): it evaluates one alert's
expression, taken from the docs as written, over scrapes the test saved, the
way Prometheus's rule evaluation would at one instant. What it knows:

  selectors     name, name{label="value",...}, name[range] (s, m, h)
  functions     time(), increase(), rate() (with Prometheus's extrapolation
                to the range's ends), deriv() (least-squares slope),
                max_over_time()
  aggregation   sum by (labels) (expr)
  operators     - between a scalar and a vector; > < >= <= == != against a
                scalar (filtering); and / unless, with on (labels)

Anything else is an error, so a documented alert that uses more fails the
test rather than passing unevaluated.

Usage: promql_subset.py --docs docs/metrics.md --alert NAME --at UNIX_TIME
         [--replace OLD=NEW ...] SCRAPE...
  SCRAPE is INSTANCE@UNIX_TIME=FILE: one scrape (Prometheus text format) of
  one instance. --replace rewrites the expression before it is parsed (a
  window or threshold scaled down to a test's time; the test names each).
Prints the expression and the series it returns; exits 0 if the alert fires
(the result is not empty), 1 if it does not, 2 on an error.
"""

import argparse
import re
import sys

RANGE_UNITS = {"s": 1, "m": 60, "h": 3600}


def alert_expression(docs, name):
    """The expr of `- alert: NAME` in the docs' YAML block (continuation lines joined)."""
    lines = open(docs, encoding="utf-8").read().splitlines()
    for i, line in enumerate(lines):
        if line.strip() == f"- alert: {name}":
            expr = None
            for follow in lines[i + 1:]:
                stripped = follow.strip()
                if expr is None:
                    if stripped.startswith("expr:"):
                        expr = stripped[len("expr:"):].strip()
                    continue
                if stripped.startswith(("- alert:", "#", "for:", "labels:", "```")) or not stripped:
                    break
                expr += " " + stripped
            if expr is None:
                raise SystemExit(f"alert {name} has no expr in {docs}")
            return expr
    raise SystemExit(f"no alert {name} in {docs}")


SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)$')
LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?')


def parse_labels(text):
    labels, at = {}, 0
    while at < len(text):
        m = LABEL.match(text, at)
        if not m:
            raise SystemExit(f"cannot read labels: {text!r}")
        labels[m.group(1)] = m.group(2).encode().decode("unicode_escape")
        at = m.end()
    return labels


def read_scrapes(specs):
    """{series key: [(t, value)]}, a series key being a frozenset of labels with __name__."""
    series = {}
    for spec in specs:
        head, path = spec.split("=", 1)
        instance, t = head.rsplit("@", 1)
        for line in open(path, encoding="utf-8"):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            m = SAMPLE.match(line)
            if not m:
                raise SystemExit(f"{path}: not a sample: {line!r}")
            labels = parse_labels(m.group(3) or "")
            labels["__name__"] = m.group(1)
            labels["instance"] = instance
            series.setdefault(frozenset(labels.items()), []).append((float(t), float(m.group(4))))
    for points in series.values():
        points.sort()
    return series


TOKEN = re.compile(r'\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<range>\[\d+[smh]\])|(?P<str>"(?:[^"\\]|\\.)*")|'
                   r'(?P<op>>=|<=|==|!=|[-+*/><(){},=])|(?P<id>[a-zA-Z_:][a-zA-Z0-9_:]*))')


def tokenize(text):
    out, at = [], 0
    while at < len(text):
        if text[at:].strip() == "":
            break
        m = TOKEN.match(text, at)
        if not m:
            raise SystemExit(f"cannot read the expression at {text[at:]!r}")
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        at = m.end()
    return out


class Evaluator:
    def __init__(self, series, at):
        self.series, self.at = series, at
        self.lookback = 300  # Prometheus's staleness window for instant selectors

    # ---- parsing, with PromQL's precedence: and/unless < comparison < + - ----
    def parse(self, text):
        self.tokens, self.pos = tokenize(text), 0
        value = self.set_ops()
        if self.pos != len(self.tokens):
            raise SystemExit(f"unexpected {self.tokens[self.pos][1]!r}")
        return value

    def peek(self, value=None):
        if self.pos >= len(self.tokens):
            return None
        token = self.tokens[self.pos]
        return token if value is None or token[1] == value else None

    def take(self, value=None):
        token = self.peek(value)
        if token is None:
            raise SystemExit(f"expected {value!r} at token {self.pos}")
        self.pos += 1
        return token

    def label_list(self):
        self.take("(")
        names = []
        while not self.peek(")"):
            names.append(self.take()[1])
            if self.peek(","):
                self.take(",")
        self.take(")")
        return names

    def set_ops(self):
        left = self.comparison()
        while self.peek("and") or self.peek("unless"):
            op = self.take()[1]
            on = None
            if self.peek("on"):
                self.take("on")
                on = self.label_list()
            right = self.comparison()
            left = self.join(op, on, left, right)
        return left

    def comparison(self):
        left = self.additive()
        while self.peek() and self.peek()[1] in (">", "<", ">=", "<=", "==", "!="):
            op = self.take()[1]
            right = self.additive()
            left = self.compare(op, left, right)
        return left

    def additive(self):
        left = self.primary()
        while self.peek("-") or self.peek("+"):
            op = self.take()[1]
            right = self.primary()
            left = self.arith(op, left, right)
        return left

    def primary(self):
        kind, value = self.take()
        if kind == "num":
            return float(value)
        if value == "(":
            inner = self.set_ops()
            self.take(")")
            return inner
        if kind != "id":
            raise SystemExit(f"unexpected {value!r}")
        if value == "time":
            self.take("(")
            self.take(")")
            return self.at
        if value == "sum":
            by = None
            if self.peek("by"):
                self.take("by")
                by = self.label_list()
            self.take("(")
            inner = self.set_ops()
            self.take(")")
            return self.sum_by(by, inner)
        if value in ("increase", "rate", "deriv", "max_over_time"):
            self.take("(")
            matrix = self.selector(self.take()[1], want_range=True)
            self.take(")")
            return self.range_function(value, matrix)
        return self.selector(value, want_range=False)

    def selector(self, name, want_range):
        matchers = {}
        if self.peek("{"):
            self.take("{")
            while not self.peek("}"):
                label = self.take()[1]
                self.take("=")
                matchers[label] = self.take()[1][1:-1]
                if self.peek(","):
                    self.take(",")
            self.take("}")
        window = None
        if self.peek() and self.peek()[0] == "range":
            text = self.take()[1][1:-1]
            window = int(text[:-1]) * RANGE_UNITS[text[-1]]
        if want_range != (window is not None):
            raise SystemExit(f"{name}: a range is {'needed' if want_range else 'not allowed'} here")
        out = {}
        for key, points in self.series.items():
            labels = dict(key)
            if labels["__name__"] != name or any(labels.get(k) != v for k, v in matchers.items()):
                continue
            if window is None:
                recent = [p for p in points if self.at - self.lookback < p[0] <= self.at]
                if recent:
                    out[key] = recent[-1][1]
            else:
                inside = [p for p in points if self.at - window < p[0] <= self.at]
                if inside:
                    out[key] = (window, inside)
        return out

    # ---- functions and operators ----
    @staticmethod
    def without_name(key):
        return frozenset((k, v) for k, v in key if k != "__name__")

    def range_function(self, name, matrix):
        out = {}
        for key, (window, points) in matrix.items():
            if name == "max_over_time":
                out[self.without_name(key)] = max(v for _, v in points)
                continue
            if len(points) < 2:
                continue  # Prometheus returns nothing from one sample
            if name == "deriv":
                n = len(points)
                mean_t = sum(t for t, _ in points) / n
                mean_v = sum(v for _, v in points) / n
                var = sum((t - mean_t) ** 2 for t, _ in points)
                out[self.without_name(key)] = sum((t - mean_t) * (v - mean_v) for t, v in points) / var
                continue
            out[self.without_name(key)] = self.extrapolated(points, window, name == "rate")
        return out

    def extrapolated(self, points, window, is_rate):
        # Prometheus's extrapolatedRate for counters: the increase between
        # the first and last sample (a drop is a counter reset), extended
        # towards the range's ends, but no further than where the counter
        # would have been zero, nor more than half a sample interval past a
        # gap.
        increase, previous = 0.0, points[0][1]
        for _, v in points[1:]:
            increase += v - previous if v >= previous else v
            previous = v
        first_t, first_v, last_t = points[0][0], points[0][1], points[-1][0]
        start, end = self.at - window, self.at
        sampled = last_t - first_t
        average = sampled / (len(points) - 1)
        to_start, to_end = first_t - start, end - last_t
        if increase > 0 and first_v >= 0:
            to_zero = sampled * (first_v / increase)
            to_start = min(to_start, to_zero)
        threshold = average * 1.1
        interval = sampled
        interval += to_start if to_start < threshold else average / 2
        interval += to_end if to_end < threshold else average / 2
        value = increase * interval / sampled
        return value / window if is_rate else value

    def sum_by(self, by, vector):
        if not isinstance(vector, dict):
            raise SystemExit("sum of a scalar")
        out = {}
        for key, value in vector.items():
            labels = dict(key)
            group = frozenset((k, labels[k]) for k in (by or []) if k in labels)
            out[group] = out.get(group, 0.0) + value
        return out

    def arith(self, op, left, right):
        apply = (lambda a, b: a - b) if op == "-" else (lambda a, b: a + b)
        if isinstance(left, float) and isinstance(right, float):
            return apply(left, right)
        if isinstance(left, float):
            return {self.without_name(k): apply(left, v) for k, v in right.items()}
        if isinstance(right, float):
            return {self.without_name(k): apply(v, right) for k, v in left.items()}
        raise SystemExit("vector-vector arithmetic is not part of this subset")

    def compare(self, op, left, right):
        test = {">": lambda a, b: a > b, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b,
                "<=": lambda a, b: a <= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}[op]
        if isinstance(left, dict) and isinstance(right, float):
            return {k: v for k, v in left.items() if test(v, right)}
        raise SystemExit("only vector-against-scalar comparisons are part of this subset")

    @staticmethod
    def join(op, on, left, right):
        if not isinstance(left, dict) or not isinstance(right, dict):
            raise SystemExit(f"{op} needs vectors on both sides")

        def signature(key):
            labels = dict(key)
            if on is None:
                return frozenset((k, v) for k, v in key if k != "__name__")
            return frozenset((k, labels.get(k, "")) for k in on)

        matched = {signature(k) for k in right}
        keep = (lambda s: s in matched) if op == "and" else (lambda s: s not in matched)
        return {k: v for k, v in left.items() if keep(signature(k))}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", required=True)
    parser.add_argument("--alert", required=True)
    parser.add_argument("--at", type=float, required=True)
    parser.add_argument("--replace", action="append", default=[])
    parser.add_argument("scrapes", nargs="*")
    args = parser.parse_args()
    expr = alert_expression(args.docs, args.alert)
    for rule in args.replace:
        old, new = rule.split("=", 1)
        if old not in expr:
            raise SystemExit(f"--replace {old!r}: not in the expression {expr!r}")
        expr = expr.replace(old, new)
    result = Evaluator(read_scrapes(args.scrapes), args.at).parse(expr)
    print(f"{args.alert}: {expr}")
    if not isinstance(result, dict):
        raise SystemExit("the expression is a scalar, not an alert")
    for key, value in sorted(result.items(), key=lambda kv: sorted(kv[0])):
        labels = ",".join(f'{k}="{v}"' for k, v in sorted(key))
        print(f"  {{{labels}}} {value:g}")
    print(f"  {'fires' if result else 'does not fire'}")
    return 0 if result else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit as e:
        if isinstance(e.code, str):
            print(f"promql_subset: {e.code}", file=sys.stderr)
            sys.exit(2)
        raise
