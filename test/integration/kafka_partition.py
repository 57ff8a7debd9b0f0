#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

"""Where Kafka's Java producer puts a keyed record: our own implementation of
org.apache.kafka.common.utils.Utils.murmur2 and the default partitioner's
toPositive(murmur2(keyBytes)) % numPartitions (contract §4), so the tests can
check the engine's output placement without trusting librdkafka.

As a command: kafka_partition.py PARTITIONS KEY...  prints one partition a key.
"""
import os
import sys

_SEED = 0x9747B28C
_M = 0x5BD1E995
_MASK = 0xFFFFFFFF


def murmur2(data: bytes) -> int:
    """Kafka's murmur2 as a signed 32-bit int, like the Java method returns."""
    length = len(data)
    h = (_SEED ^ length) & _MASK
    for i in range(0, length - length % 4, 4):
        k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)
        k = (k * _M) & _MASK
        k ^= k >> 24
        k = (k * _M) & _MASK
        h = (h * _M) & _MASK
        h ^= k
    tail = length & ~3
    rest = length % 4
    # Java's switch falls through from case 3 to case 1.
    if rest == 3:
        h ^= data[tail + 2] << 16
    if rest >= 2:
        h ^= data[tail + 1] << 8
    if rest >= 1:
        h ^= data[tail]
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def partition_for(key: bytes, partitions: int) -> int:
    """The default partitioner's choice for a non-null key."""
    return (murmur2(key) & 0x7FFFFFFF) % partitions


# Kafka's own UtilsTest vectors: a wrong implementation fails loudly here
# rather than as a confusing placement mismatch in a test.
_VECTORS = {
    b"21": -973932308,
    b"foobar": -790332482,
    b"a-little-bit-long-string": -985981536,
    b"a-little-bit-longer-string": -1486304829,
    b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
    b"abc": 479470107,
}
for _key, _expected in _VECTORS.items():
    if murmur2(_key) != _expected:
        raise AssertionError(f"murmur2({_key!r}) = {murmur2(_key)}, Kafka says {_expected}")

if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: kafka_partition.py PARTITIONS KEY...")
    n = int(sys.argv[1])
    for key in sys.argv[2:]:
        print(partition_for(os.fsencode(key), n))
