// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Exit codes are part of the interface (contract §6). The values from 64 up
// follow BSD sysexits.h so that supervisors (systemd, Kubernetes) can tell a
// poisoned record, which a restart cannot fix, from a transient outage, which
// it can. `streamt diff` reports differences with 3, not diff(1)'s 1: here 1
// is a refused plan, and a script must tell the two apart. 4 is a gate that
// found nothing to judge by (status of a group that never committed, a diff
// that compared no record): a deploy pipeline must not read it as a pass.

namespace streamt::engine {

enum class exit_code : int {
  ok = 0,
  rejected = 1,            // the SQL, schema or plan was rejected
  usage = 2,               // wrong command line, or an input file that cannot be read
  differences = 3,         // `streamt diff`: some records' outputs differ between the two plans
  no_evidence = 4,         // nothing to judge by: no committed offset (status), no record (diff)
  invalid_record = 65,     // EX_DATAERR: a record broke the plan's contract
  unavailable = 69,        // EX_UNAVAILABLE: brokers unreachable, topic missing, transactions refused
  internal = 70,           // EX_SOFTWARE: a bug; please report it
  cannot_write = 73,       // EX_CANTCREAT: an output file or the state directory is unusable or locked
  io_error = 74,           // EX_IOERR: reading or writing a stream failed
  temporary_failure = 75,  // EX_TEMPFAIL: fenced, or a fatal client error: a restart may succeed
  config = 78,             // EX_CONFIG: a setting, an identity change or an offset needs the operator
};

constexpr int to_int(exit_code c) noexcept { return static_cast<int>(c); }

}  // namespace streamt::engine
