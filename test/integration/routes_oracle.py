#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

"""The oracle, the data and the independent client of routes_exactly_once.sh
(issue 39): which routes each input record belongs in, what each route
writes for it, and checks of what the engine wrote, all through
confluent-kafka (its own bundled librdkafka, none of the engine's code) in
the venv of tools/pyclients.

Subcommands:
  self-test                 the oracle checked alone: murmur2 placement on
                            Kafka's own vectors, the key encodings, the route
                            selection of hand-written records (nulls too)
  sql --route NAME=TOPIC... the INSERT INTO statements of the routes named
  produce ...               the seeded records into the source topic
  offsets ...               the group's committed offsets on the source
  await ...                 polls them until a total or the end is reached
  verify ...                reads every sink and the unrouted topic
                            read_committed and checks them record by record

Records are made from (seed, id) alone (splitmix64), so verify regenerates
any input from its id without keeping 1M records in memory.
"""
import argparse
import array
import json
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kafka_partition import _VECTORS, murmur2, partition_for  # noqa: E402

_U64 = (1 << 64) - 1

# --- the records -----------------------------------------------------------

SCHEMA_COLUMNS = [
    ("id", "BIGINT", False),
    ("tenant", "STRING", True),
    ("amount", "BIGINT", True),
    ("tier", "STRING", True),
    ("customer", "BIGINT", False),
]
# The BIGINTs PARTITION BY customer must encode at their edges.
_EXTREME_CUSTOMERS = [-(1 << 63), (1 << 63) - 1, -1, 0, 1 << 40, -(1 << 31)]


def _mix(x):
    """splitmix64's output function: a well-spread 64-bit value from x."""
    z = (x * 0x9E3779B97F4A7C15) & _U64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _U64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _U64
    return z ^ (z >> 31)


def _json(v):
    """A column value as JSON: the generator's strings need no escapes."""
    if v is None:
        return "null"
    if isinstance(v, str):
        return '"' + v + '"'
    return str(v)


class Record:
    """One input record: its fields, key, headers, and value bytes."""

    __slots__ = ("id", "tenant", "amount", "tier", "customer", "key", "headers", "value", "ts_offset")

    def __init__(self, id, tenant, amount, tier, customer, key, headers=None, spaced=False):
        self.id, self.tenant, self.amount, self.tier, self.customer = id, tenant, amount, tier, customer
        self.key, self.headers = key, headers
        self.ts_offset = id
        fmt = _SPACED if spaced else _COMPACT
        self.value = (fmt % (id, _json(tenant), _json(amount), _json(tier), customer)).encode()


_COMPACT = '{"id":%d,"tenant":%s,"amount":%s,"tier":%s,"customer":%d}'
_SPACED = '{"id": %d, "tenant": %s, "amount": %s, "tier": %s, "customer": %d}'
_TENANTS = ["t%d" % k for k in range(40)]
_ODD_TENANTS = ["tenant-é%d" % k for k in range(7)]
_KEYS = [b"acct-%d" % k for k in range(4099)]


def record(seed, i):
    """The input record of id i: every column, nulls included, spread so that
    records fall in 0, 1, 2 or 3 routes and about one in seven in none. Two
    64-bit draws, each field from its own bits."""
    a = _mix((seed << 32) ^ (2 * i + 1))
    b = _mix((seed << 32) ^ (2 * i + 2))
    key = _KEYS[(a & 0xFFFF) % 4099]
    c = (a >> 16) % 100
    x = a >> 24
    if c < 2:
        customer = _EXTREME_CUSTOMERS[x % len(_EXTREME_CUSTOMERS)]
    elif c < 6:
        customer = -1 - x % 1000
    else:
        customer = x % 3000
    t = b % 100
    y = (b >> 8) & 0xFF
    tenant = None if t < 10 else "internal" if t < 25 else _ODD_TENANTS[y % 7] if t < 30 else _TENANTS[y % 40]
    amount = None if (b >> 16) % 100 < 5 else (b >> 24) % 200
    t = (b >> 32) % 100
    tier = None if t < 10 else "gold" if t < 30 else "silver" if t < 65 else "bronze"
    h = (b >> 40) % 3
    headers = [("trace", b"t-%d" % i), ("dup", b"a"), ("dup", None)] if h == 0 else \
        [("empty", b"")] if h == 1 else None
    return Record(i, tenant, amount, tier, customer, key, headers, spaced=(b >> 48) % 5 == 0)


# --- the routes --------------------------------------------------------------
# Each route: its SQL (the statement the test compiles, {topic} its sink), the
# same predicate written by hand in Python with SQL's three-valued logic (a
# comparison with null is not true), the projection (output name, column)
# and the PARTITION BY column. Keep the two in step.

def _ge(v, lit):
    return v is not None and v >= lit


def _eq(v, lit):
    return v is not None and v == lit


def _ne(v, lit):
    return v is not None and v != lit


ROUTES = {
    "big": {
        "sql": "INSERT INTO {topic} SELECT id, amount, tier FROM payments WHERE amount >= 100;",
        "pred": lambda r: _ge(r.amount, 100),
        "proj": [("id", "id"), ("amount", "amount"), ("tier", "tier")],
        "partition_by": None,
    },
    # Overlaps big: a gold record of 100 or more is in both.
    "vip": {
        "sql": "INSERT INTO {topic} SELECT id, tenant, tier, amount AS spend FROM payments"
               " WHERE tier = 'gold' AND amount >= 10;",
        "pred": lambda r: _eq(r.tier, "gold") and _ge(r.amount, 10),
        "proj": [("id", "id"), ("tenant", "tenant"), ("tier", "tier"), ("spend", "amount")],
        "partition_by": None,
    },
    "bycust": {
        "sql": "INSERT INTO {topic} SELECT customer, id, tenant FROM payments"
               " WHERE tenant <> 'internal' AND amount IS NOT NULL PARTITION BY customer;",
        "pred": lambda r: _ne(r.tenant, "internal") and r.amount is not None,
        "proj": [("customer", "customer"), ("id", "id"), ("tenant", "tenant")],
        "partition_by": "customer",
    },
}
# The single-SELECT form of route big, which the engine runs before routes
# exist (ROUTES_PLAN=single in the test): it proves the harness end to end.
SINGLE_SELECT = "SELECT id, amount, tier FROM payments WHERE amount >= 100"


def selected(r, names):
    """The routes of `names` whose predicate record r passes."""
    return [n for n in names if ROUTES[n]["pred"](r)]


def projection(r, name):
    """The output value route `name` writes for r: compact JSON, the
    projected columns in order under their output names."""
    return ("{" + ",".join('"%s":%s' % (out, _json(getattr(r, col))) for out, col in ROUTES[name]["proj"])
            + "}").encode()


def encode_key(value, column_type, key_format):
    """The output key of a PARTITION BY column's value: a STRING's UTF-8
    bytes; a BIGINT's decimal text, or under --key-format long the 8
    big-endian bytes of Kafka's LongSerializer."""
    if value is None:
        return None
    if column_type == "STRING":
        return value.encode()
    if key_format == "long":
        return struct.pack(">q", value)
    return str(value).encode()


def out_key(r, name, key_format):
    col = ROUTES[name]["partition_by"]
    if col is None:
        return r.key
    column_type = next(t for c, t, _ in SCHEMA_COLUMNS if c == col)
    return encode_key(getattr(r, col), column_type, key_format)


# --- self-test -------------------------------------------------------------

def self_test():
    failures = []

    def check(what, expected, actual):
        if expected != actual:
            failures.append(f"{what}: expected {expected!r}, got {actual!r}")

    # Placement: Kafka's UtilsTest murmur2 values (the ints are Java's), and
    # toPositive(h) % n computed from those ints, not from our murmur2.
    for key, java in _VECTORS.items():
        check(f"murmur2({key!r})", java, murmur2(key))
        for n in (1, 2, 3, 4, 5, 6, 7, 12):
            check(f"partition of {key!r} over {n}", (java & 0x7FFFFFFF) % n, partition_for(key, n))
    # A negative murmur2 whose low 31 bits decide (toPositive, not abs()).
    check("toPositive(-973932308) % 6", 1173551340 % 6, partition_for(b"21", 6))
    check("abs() would differ here", True, abs(-973932308) % 6 != partition_for(b"21", 6))

    # Key encodings.
    check("STRING key", "tenant-é1".encode(), encode_key("tenant-é1", "STRING", "long"))
    check("BIGINT key, string", b"-42", encode_key(-42, "BIGINT", "string"))
    check("BIGINT key, long 1", b"\x00\x00\x00\x00\x00\x00\x00\x01", encode_key(1, "BIGINT", "long"))
    check("BIGINT key, long -1", b"\xff" * 8, encode_key(-1, "BIGINT", "long"))
    check("BIGINT key, long min", b"\x80" + b"\x00" * 7, encode_key(-(1 << 63), "BIGINT", "long"))
    check("BIGINT key, long 258", b"\x00" * 6 + b"\x01\x02", encode_key(258, "BIGINT", "long"))
    check("BIGINT key, string max", b"9223372036854775807", encode_key((1 << 63) - 1, "BIGINT", "string"))

    # Route selection on hand-written records (three-valued logic).
    names = list(ROUTES)
    cases = [
        ("big only", Record(1, "t1", 150, "silver", 5, b"k"), ["big", "bycust"]),
        ("big and vip overlap", Record(2, "internal", 100, "gold", 5, b"k"), ["big", "vip"]),
        ("all three", Record(3, "t1", 500, "gold", 5, b"k"), ["big", "vip", "bycust"]),
        ("boundary 99 is not big", Record(4, "internal", 99, "bronze", 5, b"k"), []),
        ("vip at its boundary 10", Record(5, "internal", 10, "gold", 5, b"k"), ["vip"]),
        ("vip below it", Record(6, "internal", 9, "gold", 5, b"k"), []),
        ("null amount: no comparison is true", Record(7, "t1", None, "gold", 5, b"k"), []),
        ("null tier is not gold", Record(8, "internal", 50, None, 5, b"k"), []),
        ("null tenant <> 'internal' is not true", Record(9, None, 50, "silver", 5, b"k"), []),
        ("null tenant, big", Record(10, None, 120, None, 5, b"k"), ["big"]),
        ("all nulls", Record(11, None, None, None, 0, b"k"), []),
        ("tenant case matters", Record(12, "Internal", 0, "Gold", 5, b"k"), ["bycust"]),
    ]
    for what, r, want in cases:
        check(f"routes of {what}", want, selected(r, names))
    r = Record(13, None, 120, "gold", -7, b"acct-1")
    check("big's projection", b'{"id":13,"amount":120,"tier":"gold"}', projection(r, "big"))
    check("vip's projection (alias, null)", b'{"id":13,"tenant":null,"tier":"gold","spend":120}', projection(r, "vip"))
    check("bycust's projection", b'{"customer":-7,"id":13,"tenant":null}', projection(r, "bycust"))
    check("big keeps the input key", b"acct-1", out_key(r, "big", "long"))
    check("bycust's key, long", struct.pack(">q", -7), out_key(r, "bycust", "long"))
    check("bycust's key, string", b"-7", out_key(r, "bycust", "string"))
    check("a non-ASCII string passes as UTF-8",
          '{"customer":1,"id":14,"tenant":"tenant-é3"}'.encode(), projection(Record(14, "tenant-é3", 1, None, 1, b""), "bycust"))
    check("a spaced input value", b'{"id": 1, "tenant": null, "amount": 2, "tier": null, "customer": 3}',
          Record(1, None, 2, None, 3, b"", spaced=True).value)

    # The generator's and the projection's JSON, written by hand for speed,
    # are what json.dumps writes (compact, or spaced for one value in five).
    for i in range(3000):
        r = record(7, i)
        spaced = b", " in r.value
        doc = {"id": r.id, "tenant": r.tenant, "amount": r.amount, "tier": r.tier, "customer": r.customer}
        check(f"record {i}'s value", json.dumps(doc, separators=(", ", ": ") if spaced else (",", ":"),
                                                 ensure_ascii=False).encode(), r.value)
        for name, route in ROUTES.items():
            check(f"record {i}'s projection for {name}",
                  json.dumps({out: doc[col] for out, col in route["proj"]}, separators=(",", ":"),
                             ensure_ascii=False).encode(), projection(r, name))
    check("some values are spaced", True, any(b", " in record(7, i).value for i in range(100)))

    # The generator: deterministic, and every mix of routes occurs.
    check("records are a function of (seed, id)", record(7, 12345).value, record(7, 12345).value)
    check("other seeds give other records", True, any(record(7, i).value != record(8, i).value for i in range(10)))
    mix = {}
    for i in range(20000):
        mix[len(selected(record(7, i), names))] = mix.get(len(selected(record(7, i), names)), 0) + 1
    check("records in 0, 1, 2 and 3 routes", [0, 1, 2, 3], sorted(mix))
    if not 0.05 < mix.get(0, 0) / 20000 < 0.25:
        failures.append(f"unrouted share {mix.get(0, 0) / 20000:.3f} is outside 5 %..25 %")
    nulls = {c: sum(getattr(record(7, i), c) is None for i in range(2000)) for c in ("tenant", "amount", "tier")}
    check("every nullable column is null sometimes", True, all(nulls.values()))

    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    if failures:
        return 1
    print(f"routes_oracle self-test: ok (route mix of 20000 records: "
          + ", ".join(f"{k} routes {v}" for k, v in sorted(mix.items())) + ")")
    return 0


# --- Kafka -----------------------------------------------------------------

def _kafka():
    import confluent_kafka
    import confluent_kafka.admin  # noqa: F401: ck.admin below
    return confluent_kafka


def cmd_sql(args):
    for spec in args.route:
        name, topic = spec.split("=", 1)
        print(ROUTES[name]["sql"].format(topic=topic))
    return 0


def cmd_produce(args):
    ck = _kafka()
    admin = ck.admin.AdminClient({"bootstrap.servers": args.bootstrap})
    parts = len(admin.list_topics(args.topic, timeout=30).topics[args.topic].partitions)
    if not parts:
        print(f"produce: topic {args.topic} does not exist", file=sys.stderr)
        return 1
    producer = ck.Producer({
        "bootstrap.servers": args.bootstrap, "enable.idempotence": True, "acks": "all",
        "linger.ms": 20, "batch.size": 1 << 20, "compression.type": args.compression,
        "queue.buffering.max.messages": 500000, "queue.buffering.max.kbytes": 1 << 20,
    })
    n = args.records
    where_p = array.array("b", [-1]) * n
    where_o = array.array("q", [-1]) * n
    # The routes the oracle selects for each id: bit k for list(ROUTES)[k].
    masks = bytearray(n)
    errors = []

    # The record's id rides in the callback's closure (one lambda a record
    # costs too much): the producer reports deliveries per partition in
    # order, so each partition's ids are queued and popped in turn.
    pending = [[] for _ in range(parts)]
    heads = [0] * parts

    def on_delivery(err, msg):
        p = msg.partition()
        i = pending[p][heads[p]]
        heads[p] += 1
        if err is not None:
            errors.append(f"id {i}: {err}")
            return
        where_p[i] = p
        where_o[i] = msg.offset()

    base_ts = int(time.time() * 1000) - n
    mix = [0, 0, 0, 0]
    names = list(ROUTES)
    placed = {}
    t0 = time.monotonic()
    for i in range(n):
        r = record(args.seed, i)
        sel = selected(r, names)
        mix[len(sel)] += 1
        masks[i] = sum(1 << names.index(name) for name in sel)
        p = placed.get(r.key)
        if p is None:
            p = placed[r.key] = partition_for(r.key, parts)  # Java's default partitioner, ours
        pending[p].append(i)
        while True:
            try:
                producer.produce(args.topic, r.value, r.key, partition=p, timestamp=base_ts + i,
                                 headers=r.headers, on_delivery=on_delivery)
                break
            except BufferError:
                producer.poll(0.05)
        if i % 1000 == 0:
            producer.poll(0)
    left = producer.flush(120)
    took = time.monotonic() - t0
    if left or errors:
        print(f"produce: {left} not delivered, {len(errors)} errors: {errors[:5]}", file=sys.stderr)
        return 1
    missing = sum(1 for p in where_p if p < 0)
    if missing:
        print(f"produce: {missing} records have no delivery report", file=sys.stderr)
        return 1
    with open(args.index, "wb") as f:
        f.write(json.dumps({"records": n, "seed": args.seed, "base_ts": base_ts, "topic": args.topic,
                            "partitions": parts}).encode() + b"\n")
        where_p.tofile(f)
        where_o.tofile(f)
        f.write(masks)
    per_part = [0] * parts
    for p in where_p:
        per_part[p] += 1
    print(f"produced {n} records to {args.topic} in {took:.1f} s ({n / took:,.0f}/s), "
          f"per partition {per_part}; records in 0/1/2/3 routes: {mix[0]}/{mix[1]}/{mix[2]}/{mix[3]}")
    return 0


def load_index(path):
    with open(path, "rb") as f:
        meta = json.loads(f.readline())
        n = meta["records"]
        where_p, where_o = array.array("b"), array.array("q")
        where_p.fromfile(f, n)
        where_o.fromfile(f, n)
        masks = bytearray(f.read(n))
    if len(masks) != n:
        raise SystemExit(f"{path}: truncated")
    return meta, where_p, where_o, masks


def committed(admin, ck, group, topic, parts):
    """The group's committed offsets on topic's partitions (-1: none), or
    None when the broker does not answer (it may be restarting)."""
    try:
        req = ck.ConsumerGroupTopicPartitions(group, [ck.TopicPartition(topic, p) for p in range(parts)])
        res = admin.list_consumer_group_offsets([req], request_timeout=5)[group].result()
        got = {tp.partition: tp.offset for tp in res.topic_partitions if not tp.error}
        return [got.get(p, -1) for p in range(parts)]
    except Exception:  # noqa: BLE001: any failure is "not now", the caller's deadline decides
        return None


def end_offsets(ck, bootstrap, topic, parts):
    c = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": "routes-oracle-watermarks",
                     "enable.auto.commit": False})
    try:
        return [c.get_watermark_offsets(ck.TopicPartition(topic, p), timeout=10, cached=False)[1]
                for p in range(parts)]
    finally:
        c.close()


def cmd_offsets(args):
    ck = _kafka()
    admin = ck.admin.AdminClient({"bootstrap.servers": args.bootstrap})
    got = committed(admin, ck, args.group, args.topic, args.partitions)
    if got is None:
        return 1
    print(sum(max(o, 0) for o in got))
    return 0


def _alive(pid):
    if not pid:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def cmd_await(args):
    """Polls the group's committed offsets (another process's progress: no
    event to await from outside it) until their total reaches --min-total,
    or with --end until every partition's equals its end offset. Exit 0
    reached (prints the total), 3 the engine --pid exited first, 1 timeout."""
    ck = _kafka()
    admin = ck.admin.AdminClient({"bootstrap.servers": args.bootstrap})
    ends = end_offsets(ck, args.bootstrap, args.topic, args.partitions) if args.end else None
    deadline = time.monotonic() + args.timeout
    last = None
    while time.monotonic() < deadline:
        got = committed(admin, ck, args.group, args.topic, args.partitions)
        if got is not None:
            last = got
            total = sum(max(o, 0) for o in got)
            if (ends is not None and got == ends) or (ends is None and total >= args.min_total):
                print(total)
                return 0
        if not _alive(args.pid):
            print(f"await: the engine (pid {args.pid}) exited; committed {last}", file=sys.stderr)
            return 3
        time.sleep(args.poll)
    want = f"end offsets {ends}" if ends is not None else f"a total of {args.min_total}"
    print(f"await: committed offsets of {args.group} on {args.topic} are {last} after {args.timeout} s, "
          f"expected {want}", file=sys.stderr)
    return 1


# --- verify ----------------------------------------------------------------

def read_committed(ck, bootstrap, topic, each):
    """Every record of topic, read_committed from the start to its end, in
    batches; each(msg) per record. Returns (count, partitions)."""
    c = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": f"routes-oracle-{os.getpid()}",
                     "enable.auto.commit": False, "isolation.level": "read_committed",
                     "enable.partition.eof": True, "auto.offset.reset": "earliest",
                     "fetch.max.bytes": 64 << 20, "max.partition.fetch.bytes": 16 << 20})
    try:
        parts = len(c.list_topics(topic, timeout=30).topics[topic].partitions)
        ends = [c.get_watermark_offsets(ck.TopicPartition(topic, p), timeout=10, cached=False)[1]
                for p in range(parts)]
        c.assign([ck.TopicPartition(topic, p, ck.OFFSET_BEGINNING) for p in range(parts)])
        done, count = set(), 0
        idle_deadline = time.monotonic() + 120
        while len(done) < parts:
            batch = c.consume(10000, 1.0)
            if not batch and time.monotonic() > idle_deadline:
                raise SystemExit(f"verify: reading {topic} stalled; partitions at end: {sorted(done)}")
            for m in batch:
                if m.error():
                    if m.error().code() == ck.KafkaError._PARTITION_EOF:
                        if m.offset() >= ends[m.partition()]:
                            done.add(m.partition())
                        continue
                    raise SystemExit(f"verify: reading {topic}: {m.error()}")
                idle_deadline = time.monotonic() + 120
                count += 1
                each(m)
        return count, parts
    finally:
        c.close()


class Verifier:
    def __init__(self, args):
        self.meta, self.where_p, self.where_o, self.masks = load_index(args.index)
        self.placed = {}
        self.n, self.seed, self.base_ts = self.meta["records"], self.meta["seed"], self.meta["base_ts"]
        self.key_format = args.key_format
        self.routes = dict(s.split("=", 1) for s in args.route)
        self.unrouted = args.unrouted
        self.problems = {}
        self.problem_count = 0

    def problem(self, kind, text):
        self.problem_count += 1
        lst = self.problems.setdefault(kind, [])
        if len(lst) < 10:
            lst.append(text)

    def check_common(self, where, m, r, want_key, parts, seen, last_src):
        """What every output of r shares: the key, its partition, the
        timestamp, the order per input partition; counts it."""
        key = m.key()
        if key != want_key:
            self.problem("key", f"{where} id {r.id}: key expected {want_key!r}, found {key!r}")
        elif key is not None:
            java = self.placed.get((key, parts))
            if java is None:
                java = self.placed[(key, parts)] = partition_for(key, parts)
            if m.partition() != java:
                self.problem("placement", f"{where} id {r.id}: key {key!r} on partition {m.partition()}, "
                                          f"Java's default partitioner picks {java} of {parts}")
        ts_type, ts = m.timestamp()
        if ts != self.base_ts + r.ts_offset:
            self.problem("timestamp", f"{where} id {r.id}: timestamp expected {self.base_ts + r.ts_offset}, found {ts}")
        src_p, src_o = self.where_p[r.id], self.where_o[r.id]
        slot = (m.partition(), src_p)
        prev = last_src.get(slot)
        if prev is not None and src_o <= prev:
            self.problem("order", f"{where} partition {m.partition()}: input {src_p}@{src_o} (id {r.id}) "
                                  f"after input {src_p}@{prev}")
        last_src[slot] = src_o
        if seen[r.id] < 255:
            seen[r.id] += 1

    def verify_route(self, ck, bootstrap, name, topic):
        seen = bytearray(self.n)
        last_src = {}
        state = {"parts": None}

        def each(m):
            v = m.value()
            try:
                i = json.loads(v)["id"]
                assert isinstance(i, int) and 0 <= i < self.n
            except Exception:  # noqa: BLE001
                self.problem("value", f"{name} {m.partition()}@{m.offset()}: a value with no known id: {v[:120]!r}")
                return
            r = record(self.seed, i)
            want = projection(r, name)
            if v != want:
                self.problem("value", f"{name} id {i}: value expected {want!r}, found {v!r}")
            if (m.headers() or None) != r.headers:
                self.problem("headers", f"{name} id {i}: headers expected {r.headers!r}, found {m.headers()!r}")
            self.check_common(name, m, r, out_key(r, name, self.key_format), state["parts"], seen, last_src)

        c = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": "routes-oracle-meta"})
        state["parts"] = len(c.list_topics(topic, timeout=30).topics[topic].partitions)
        c.close()
        t0 = time.monotonic()
        count, parts = read_committed(ck, bootstrap, topic, each)
        return seen, count, parts, time.monotonic() - t0

    def verify_unrouted(self, ck, bootstrap, topic, source_topic):
        seen = bytearray(self.n)
        last_src = {}
        state = {"parts": None, "names": set()}

        def each(m):
            v = m.value()
            try:
                i = json.loads(v)["id"]
                assert isinstance(i, int) and 0 <= i < self.n
            except Exception:  # noqa: BLE001
                self.problem("value", f"unrouted {m.partition()}@{m.offset()}: a value with no known id: {v[:120]!r}")
                return
            r = record(self.seed, i)
            if v != r.value:
                self.problem("value", f"unrouted id {i}: value expected the input's {r.value!r}, found {v!r}")
            headers = m.headers() or []
            own = list(r.headers or [])
            if headers[:len(own)] != own:
                self.problem("headers", f"unrouted id {i}: the input's headers {own!r} do not come first "
                                        f"unchanged: {headers!r}")
            added = headers[len(own):]
            why = {h: (None if b is None else b.decode("utf-8", "replace")) for h, b in added}
            state["names"].update(why)
            if not added or not all(h.startswith("streamt.") for h in why) or not any(why.values()):
                self.problem("headers", f"unrouted id {i}: no streamt.* header saying why after the input's: "
                                        f"{added!r}")
            for h, want in (("streamt.source.topic", source_topic),
                            ("streamt.source.partition", str(self.where_p[i])),
                            ("streamt.source.offset", str(self.where_o[i]))):
                if h in why and why[h] != want:
                    self.problem("headers", f"unrouted id {i}: {h} expected {want!r}, found {why[h]!r}")
            self.check_common("unrouted", m, r, r.key, state["parts"], seen, last_src)

        c = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": "routes-oracle-meta"})
        state["parts"] = len(c.list_topics(topic, timeout=30).topics[topic].partitions)
        c.close()
        t0 = time.monotonic()
        count, parts = read_committed(ck, bootstrap, topic, each)
        return seen, count, parts, time.monotonic() - t0, sorted(state["names"])


def cmd_verify(args):
    ck = _kafka()
    v = Verifier(args)
    names = list(v.routes)
    t0 = time.monotonic()
    # What the oracle selected per id when the records were made (a bit per
    # route of ROUTES; 0: unrouted, in none of ROUTES, not just of those
    # checked: a single-SELECT run checks one route and has no unrouted topic).
    all_names = list(ROUTES)
    bit = {n: 1 << all_names.index(n) for n in names}
    want = v.masks
    for i in range(0, v.n, 97):
        m = sum(1 << all_names.index(n) for n in selected(record(v.seed, i), all_names))
        if m != want[i]:
            raise SystemExit(f"verify: the index says id {i} is in routes {want[i]:#x}, the oracle {m:#x}")

    results = []
    for n in names:
        seen, count, parts, took = v.verify_route(ck, args.bootstrap, n, v.routes[n])
        results.append((n, v.routes[n], seen, lambda i, b=bit[n]: 1 if want[i] & b else 0, count, parts, took))
    if v.unrouted:
        seen, count, parts, took, header_names = v.verify_unrouted(ck, args.bootstrap, v.unrouted, v.meta["topic"])
        results.append(("unrouted", v.unrouted, seen, lambda i: 1 if want[i] == 0 else 0, count, parts, took))
        print(f"unrouted records carry the headers {header_names}")

    for name, topic, seen, expected_of, count, parts, took in results:
        expected_total = 0
        for i in range(v.n):
            e = expected_of(i)
            expected_total += e
            s = seen[i]
            if s != e:
                kind = "missing" if s < e else "duplicated" if e else "not selected"
                v.problem(kind, f"id {i} in {name} ({topic}): expected {e} time(s), found {s}")
        print(f"{name}: {count} records read_committed from {parts} partitions in {took:.1f} s "
              f"({count / max(took, 1e-9):,.0f}/s); the oracle selects {expected_total}")
    if v.problem_count:
        for kind, texts in v.problems.items():
            for t in texts:
                print(f"FAIL: {kind}: {t}", file=sys.stderr)
        print(f"verify: {v.problem_count} problems ({', '.join(v.problems)}); the first of each kind above",
              file=sys.stderr)
        return 1
    print(f"verify: every one of {v.n} records is in exactly the sinks the oracle selects, once each, "
          f"with its projection, key, partition, timestamp and headers ({time.monotonic() - t0:.1f} s)")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--self-test", action="store_true", help="same as the self-test subcommand")
    sub = ap.add_subparsers(dest="cmd")
    sub.add_parser("self-test")
    p = sub.add_parser("sql")
    p.add_argument("--route", action="append", required=True, help="NAME=TOPIC")
    p = sub.add_parser("produce")
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--records", type=int, required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--compression", default="lz4")
    p.add_argument("--index", required=True, help="where each id landed (for verify)")
    for name in ("offsets", "await"):
        p = sub.add_parser(name)
        p.add_argument("--bootstrap", required=True)
        p.add_argument("--group", required=True)
        p.add_argument("--topic", required=True)
        p.add_argument("--partitions", type=int, required=True)
        if name == "await":
            p.add_argument("--min-total", type=int, default=0)
            p.add_argument("--end", action="store_true")
            p.add_argument("--pid", type=int, default=0)
            p.add_argument("--timeout", type=float, default=300)
            p.add_argument("--poll", type=float, default=0.2)
    p = sub.add_parser("verify")
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--index", required=True)
    p.add_argument("--route", action="append", required=True, help="NAME=TOPIC")
    p.add_argument("--unrouted", help="the unrouted topic, if the plan has one")
    p.add_argument("--key-format", choices=("string", "long"), default="string")
    args = ap.parse_args()
    if args.self_test or args.cmd == "self-test":
        return self_test()
    commands = {"sql": cmd_sql, "produce": cmd_produce, "offsets": cmd_offsets, "await": cmd_await,
                "verify": cmd_verify}
    if args.cmd not in commands:
        ap.error("a subcommand is needed")
    return commands[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
