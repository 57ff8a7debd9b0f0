#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Recovery in seconds at the defaults (docs/operations.md "Group
# membership"), on a real broker: three instances share a 6-partition
# source that confluent-kafka keeps writing to, and the group's committed
# offsets, read with confluent-kafka's AdminClient, show every partition
# moving again
#   1. within 5 s of a kill -9 of one instance and its restart from the
#      same state directory (a static member takes its partitions back);
#   2. within 5 s of a SIGTERM to another one, not restarted (a stopped
#      static member leaves the group);
# and a fourth instance started meanwhile commits a transaction (its time
# is printed). recovery_times.py measures; this runs its defaults once.
source "$(dirname "$0")/lib.sh"
python=$("$root/tools/pyclients")
"$python" "$(dirname "$0")/recovery_times.py" --binary "$STREAMT_BINARY" --bootstrap "$STREAMT_BOOTSTRAP" \
  --work "$work" --candidate default --rounds 1 --check-seconds 5 --keep
echo "fast_recovery: the crash and the scale-in each recovered within 5 s"
