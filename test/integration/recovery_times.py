# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

"""How fast a group of three engines recovers, measured from outside.

Three `streamt run` instances share a 6-partition source that an
independent producer (confluent-kafka) keeps writing to. The group's
committed offsets, read with confluent-kafka's AdminClient every 50 ms, show
when a partition is being processed: its committed offset moves (counted
once it has moved twice: see Group.wait_moved_past).

Per round, for one membership candidate:
  crash     kill -9 of one instance and its restart from the same state
            directory: seconds from the kill until every partition's
            committed offset has moved past where it stood at the kill;
  scale-in  SIGTERM of one instance, not restarted: seconds from the signal
            until every partition has moved past where it stood once that
            instance had exited (its own last commit does not count);
  scale-out a fourth instance started: seconds from its start until it has
            committed a transaction (its metrics endpoint says so).

Prints one line per measurement and, with --check-seconds S, fails (exit 1)
when a crash or scale-in took longer than S. Used by the fast_recovery test
(defaults only) and by hand for the table in docs/operations.md.
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
import uuid

from confluent_kafka import ConsumerGroupTopicPartitions, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

PARTITIONS = 6
COLUMNS = [{"name": "id", "type": "STRING", "nullable": False}, {"name": "amount", "type": "BIGINT", "nullable": False}]

# The command-line flags of each candidate; docs/operations.md names them.
CANDIDATES = {
    "default": [],
    "dynamic": ["--dynamic-membership"],
    "static": ["--static-membership"],
    "kip848-dynamic": ["--dynamic-membership", "-X", "group.protocol=consumer"],
    "kip848-static": ["--static-membership", "-X", "group.protocol=consumer"],
}


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


class Feed:
    """Writes records to every partition until stopped, about `rate` a second."""

    def __init__(self, bootstrap, topic, rate):
        self.producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
        self.topic, self.rate = topic, rate
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        n = 0
        while not self.stopping.is_set():
            for p in range(PARTITIONS):
                value = json.dumps({"id": f"r{n}", "amount": n})
                self.producer.produce(self.topic, value=value.encode(), key=f"k{n}".encode(), partition=p)
                n += 1
            self.producer.poll(0)
            self.stopping.wait(PARTITIONS / self.rate)
        self.producer.flush(10)

    def stop(self):
        self.stopping.set()
        self.thread.join()


class Group:
    """The group's committed offsets on the source, through AdminClient."""

    def __init__(self, bootstrap, group, topic):
        self.admin = AdminClient({"bootstrap.servers": bootstrap})
        self.group, self.topic = group, topic

    def offsets(self):
        request = [ConsumerGroupTopicPartitions(self.group, [TopicPartition(self.topic, p) for p in range(PARTITIONS)])]
        try:
            answer = self.admin.list_consumer_group_offsets(request)[self.group].result(timeout=5)
        except Exception:  # a coordinator moving or loading: ask again
            return None
        return {tp.partition: tp.offset for tp in answer.topic_partitions}

    def wait_moved_past(self, since, deadline_s, tick=None):
        """Seconds (monotonic) at which every partition has committed twice past `since`.

        Twice: the commit a killed instance had already sent can still land
        just after `since` was read, and once would count that as recovery.
        Records arrive on every partition about every 10 ms and the engine
        commits every 100 ms, so the second commit adds about 0.1 s.
        """
        end = time.monotonic() + deadline_s
        seen = {p: set() for p in range(PARTITIONS)}
        while time.monotonic() < end:
            now = self.offsets()
            if now:
                for p in range(PARTITIONS):
                    if now.get(p, -1) > since.get(p, -1):
                        seen[p].add(now[p])
                if all(len(v) >= 2 for v in seen.values()):
                    return time.monotonic()
            if tick:
                tick()
            time.sleep(0.05)
        return None

    def snapshot(self):
        for _ in range(100):
            now = self.offsets()
            if now:
                return now
            time.sleep(0.05)
        fail("the group's committed offsets could not be read")


class Engines:
    def __init__(self, binary, bootstrap, plan, work, flags):
        self.binary, self.bootstrap, self.plan, self.work, self.flags = binary, bootstrap, plan, work, flags
        self.procs = {}

    def start(self, name):
        state = os.path.join(self.work, f"state-{name}")
        # Truncated at each start: metric() takes the metrics port from the
        # log, and a restarted instance listens on a new one.
        log = open(os.path.join(self.work, f"{name}.log"), "wb")
        cmd = [self.binary, "run", self.plan, "--bootstrap-servers", self.bootstrap, "--state-dir", state,
               "--metrics-address", "127.0.0.1:0"] + self.flags
        self.procs[name] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        return time.monotonic()

    def restart_if_exited(self, name, delay_s=1.0):
        """As a supervisor would: start NAME again if it has exited.

        Returns the exit code it had, or None while it runs."""
        rc = self.procs[name].poll()
        if rc is None:
            return None
        time.sleep(delay_s)
        self.start(name)
        return rc

    def signal(self, name, sig):
        self.procs[name].send_signal(sig)

    def wait(self, name, timeout=60):
        return self.procs.pop(name).wait(timeout=timeout)

    def metric(self, name, series):
        """The value of `series` on NAME's metrics endpoint, or None."""
        with open(os.path.join(self.work, f"{name}.log"), errors="replace") as f:
            port = re.search(r"serving metrics on http://127\.0\.0\.1:(\d+)", f.read())
        if not port:
            return None
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port.group(1)}/metrics", timeout=2) as r:
                text = r.read().decode()
        except OSError:
            return None
        found = re.search(rf"^{series} (\S+)$", text, re.M)
        return float(found.group(1)) if found else None

    def committed_once(self, name):
        """Whether NAME's metrics endpoint counts a committed transaction."""
        return (self.metric(name, "streamt_transactions_committed_total") or 0) >= 1

    def wait_all_own_partitions(self, deadline_s):
        """Until every running instance owns a partition (the group has settled)."""
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            if all((self.metric(n, "streamt_assigned_partitions") or 0) >= 1 for n in self.procs):
                return True
            time.sleep(0.1)
        return False

    def stop_all(self):
        for p in self.procs.values():
            p.send_signal(signal.SIGKILL)
            p.wait()
        self.procs.clear()


def one_round(args, candidate, round_no):
    tag = uuid.uuid4().hex[:8]
    src, sink, app = f"rt-src-{tag}", f"rt-sink-{tag}", f"rt-{candidate}-{tag}"
    work = os.path.join(args.work, f"{candidate}-{round_no}")
    os.makedirs(work, exist_ok=True)
    admin = AdminClient({"bootstrap.servers": args.bootstrap})
    for f in admin.create_topics([NewTopic(t, PARTITIONS, 1) for t in (src, sink)]).values():
        f.result(timeout=30)
    schema = os.path.join(work, "schema.json")
    with open(schema, "w") as f:
        json.dump({"source": "orders", "topic": src, "columns": COLUMNS}, f)
    plan = os.path.join(work, "plan.json")
    subprocess.run([args.binary, "compile", "--schema", schema, "--application-id", app, "--sink-topic", sink,
                    "--output", plan, "-"], input=b"SELECT id, amount FROM orders", check=True)

    feed = Feed(args.bootstrap, src, args.rate)
    group = Group(args.bootstrap, app, src)
    engines = Engines(args.binary, args.bootstrap, plan, work, CANDIDATES[candidate])
    results = {}
    try:
        for name in ("a", "b", "c"):
            engines.start(name)
        # Steady: every partition moves (all three members hold some).
        if group.wait_moved_past(group.snapshot(), 120) is None:
            fail(f"{candidate}: the three instances never processed every partition; logs in {work}")
        if not engines.wait_all_own_partitions(120):
            fail(f"{candidate}: the three instances never each owned a partition; logs in {work}")
        group.wait_moved_past(group.snapshot(), 60)

        # crash: kill -9, restart at once
        killed_at = time.monotonic()
        engines.signal("b", signal.SIGKILL)
        engines.wait("b")
        since = group.snapshot()
        engines.start("b")
        exits = []

        def supervise():
            rc = engines.restart_if_exited("b")
            if rc is not None:
                exits.append(rc)

        done = group.wait_moved_past(since, args.deadline, supervise)
        results["crash"] = None if done is None else done - killed_at
        if exits:
            print(f"{candidate} round {round_no + 1}: the restarted instance exited {exits} and was started again",
                  flush=True)

        if not engines.wait_all_own_partitions(args.deadline):
            fail(f"{candidate}: after the crash the instances never each owned a partition; logs in {work}")
        group.wait_moved_past(group.snapshot(), args.deadline)

        # scale-in: SIGTERM, not restarted
        stopped_at = time.monotonic()
        engines.signal("c", signal.SIGTERM)
        rc = engines.wait("c")
        if rc != 0:
            fail(f"{candidate}: a SIGTERM ended the instance with {rc}; logs in {work}")
        done = group.wait_moved_past(group.snapshot(), args.deadline)
        results["scale-in"] = None if done is None else done - stopped_at

        # scale-out: a new instance (the group has two)
        started_at = engines.start("d")
        end = started_at + args.deadline
        while time.monotonic() < end and not engines.committed_once("d"):
            time.sleep(0.05)
        results["scale-out"] = time.monotonic() - started_at if engines.committed_once("d") else None
    finally:
        engines.stop_all()
        feed.stop()
        admin.delete_topics([src, sink])
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--candidate", action="append", choices=sorted(CANDIDATES))
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--rate", type=float, default=600, help="records a second, all partitions")
    ap.add_argument("--deadline", type=float, default=90, help="seconds a measurement may take")
    ap.add_argument("--check-seconds", type=float)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    candidates = args.candidate or ["default"]
    table = {}
    for c in candidates:
        for r in range(args.rounds):
            res = one_round(args, c, r)
            for what, s in res.items():
                table.setdefault((c, what), []).append(s)
                shown = "over the deadline" if s is None else f"{s:.2f} s"
                print(f"{c} round {r + 1} {what}: {shown}", flush=True)
    print("candidate\twhat\tmedian_s\tmin_s\tmax_s\trounds")
    late = []
    for (c, what), values in table.items():
        got = [v for v in values if v is not None]
        if len(got) < len(values):
            late.append(f"{c} {what}: {len(values) - len(got)} of {len(values)} over {args.deadline} s")
        if got:
            print(f"{c}\t{what}\t{statistics.median(got):.2f}\t{min(got):.2f}\t{max(got):.2f}\t{len(values)}")
        if args.check_seconds is not None and what in ("crash", "scale-in"):
            slow = [v for v in values if v is None or v > args.check_seconds]
            if slow:
                late.append(f"{c} {what}: {len(slow)} of {len(values)} rounds over {args.check_seconds} s")
    if late and args.check_seconds is not None:
        fail("; ".join(late))


if __name__ == "__main__":
    main()
