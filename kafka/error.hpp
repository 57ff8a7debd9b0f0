// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Errors at the Kafka boundary, classified once.
//
// librdkafka reports a transactional failure as an rd_kafka_error_t whose
// flags (retriable, txn_requires_abort, fatal) decide what the engine must do
// next. Those flags live only in that object, so we copy them into plain data
// (txn_error_info) the moment we receive it and destroy the object: copying
// the handle around instead is how one C++ wrapper lost the
// txn_requires_abort flag and committed after an abortable error.
//
// Two error_code categories carry errors out of this folder:
//  - "streamt.kafka" for our own codes (errc), e.g. an engine-owned setting;
//  - "librdkafka" for a librdkafka error together with its flags, packed into
//    the int value so the error_code is a complete copy of txn_error_info.
// A third category, for error_conditions, lets callers write
// `ec == kafka::condition::abortable` whichever of the two produced `ec`.

#include <librdkafka/rdkafka.h>
#include <boost/assert/source_location.hpp>
#include <boost/system/error_category.hpp>
#include <boost/system/error_code.hpp>
#include <boost/system/error_condition.hpp>
#include <boost/system/is_error_code_enum.hpp>
#include <boost/system/is_error_condition_enum.hpp>
#include <boost/system/result.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace streamt::kafka {

// Failures that originate in our code rather than in librdkafka.
enum class errc {
  engine_owned_setting = 1,  // a user setting tried to override one the engine owns
  invalid_setting,           // librdkafka rejected a key or value
  properties_syntax,         // a --config file is not valid Java properties
  file_unreadable,           // a --config file could not be read
  client_creation_failed,    // rd_kafka_new failed (its message says why)
  queue_unavailable,         // librdkafka returned no queue for a handle
  closed,                    // the consumer was closed; it can't be polled again
  unresolved_reference,      // a ${env:...} or ${file:...} in a setting's value could not be resolved
};

// What the caller must do about an error. Success has no condition.
enum class condition {
  retriable = 1,  // try the same call again; the transaction is still healthy
  abortable,      // abort the transaction, rewind, carry on
  fatal,          // the producer or consumer is unusable: stop
  fenced,         // another instance took over our identity: stop, do not retry
  configuration,  // a setting is wrong: fix it and restart
  unclassified,   // an error without flags, e.g. a call in the wrong state; treat as fatal
};

const boost::system::error_category& kafka_category() noexcept;
const boost::system::error_category& rdkafka_category() noexcept;
const boost::system::error_category& condition_category() noexcept;

inline boost::system::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), kafka_category()};
}
inline boost::system::error_condition make_error_condition(condition c) noexcept {
  return {static_cast<int>(c), condition_category()};
}

// A librdkafka error as plain data, copied out of rd_kafka_error_t (or built
// from an rd_kafka_resp_err_t when the API returns only a code).
struct txn_error_info {
  rd_kafka_resp_err_t code = RD_KAFKA_RESP_ERR_NO_ERROR;
  bool retriable = false;
  bool txn_requires_abort = false;
  bool fatal = false;

  constexpr bool failed() const noexcept { return code != RD_KAFKA_RESP_ERR_NO_ERROR; }
  friend constexpr bool operator==(const txn_error_info&, const txn_error_info&) = default;

  // Named constructors for the errors we make ourselves (a plain code from
  // an API that returns only one, or our own verdict on one); librdkafka's
  // flagged errors come from copy_error_info, never from a guess.
  static constexpr txn_error_info plain(rd_kafka_resp_err_t c) noexcept { return {c, false, false, false}; }
  static constexpr txn_error_info retriable_error(rd_kafka_resp_err_t c) noexcept {
    return {c, true, false, false};
  }
  static constexpr txn_error_info abortable_error(rd_kafka_resp_err_t c) noexcept {
    return {c, false, true, false};
  }
  static constexpr txn_error_info fatal_error(rd_kafka_resp_err_t c) noexcept {
    return {c, false, false, true};
  }
};

// Copies the code and flags; a null error (librdkafka's "success") gives an
// info whose failed() is false.
txn_error_info copy_error_info(const rd_kafka_error_t* error) noexcept;

// Producer fencing: another instance with our transactional id (or a newer
// epoch of ourselves) owns the identity now. librdkafka marks these fatal; we
// single them out because the right reaction differs from a broken client:
// never retry or restart in a loop, the other instance is doing the work.
// INVALID_PRODUCER_EPOCH is included as the brief asks: treating it as fenced
// stops the engine where an epoch bump might have let it abort and continue,
// which costs availability, never correctness.
constexpr bool is_fencing_code(rd_kafka_resp_err_t code) noexcept {
  switch (code) {
    case RD_KAFKA_RESP_ERR__FENCED:
    case RD_KAFKA_RESP_ERR_PRODUCER_FENCED:
    case RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH:
    case RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID:
      return true;
    default:
      return false;
  }
}

// An error no retry can cure for this record: the sink will never accept it
// (larger than the topic's max.message.bytes or the client's
// message.max.bytes, refused as invalid, or its timestamp out of the
// topic's bounds). Aborting and replaying it would loop forever, so the
// engine stops at its input record instead. The broker refuses a batch
// whole, so such a report names the batch, not the record (is_too_large
// says when the largest record of it is the one to blame).
constexpr bool is_never_accepted(rd_kafka_resp_err_t code) noexcept {
  return code == RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE || code == RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE ||
         code == RD_KAFKA_RESP_ERR_INVALID_RECORD || code == RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP;
}
constexpr bool is_too_large(rd_kafka_resp_err_t code) noexcept {
  return code == RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE || code == RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE;
}

// "Not now" rather than "no": a leader or coordinator moving, a broker
// restarting or coming back from a pause, a request timing out. APIs that
// return a bare rd_kafka_resp_err_t (committed offsets, watermarks) carry no
// retriable flag, so callers of those ask this. Missing topics and
// authorisation failures are absent on purpose: waiting does not fix them.
constexpr bool is_transient_code(rd_kafka_resp_err_t code) noexcept {
  switch (code) {
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR__WAIT_COORD:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:  // metadata not refreshed yet after a broker came back
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
    case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
    case RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
    case RD_KAFKA_RESP_ERR_UNSTABLE_OFFSET_COMMIT:
    case RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR:
      return true;
    default:
      return false;
  }
}

// A fatal producer error that a new producer under the same transactional id
// gets past: the producer's idempotence or transaction state went out of step
// with the broker's (librdkafka 2.0.2 answers an abort after a broker restart
// with a fatal INVALID_TXN_STATE, tools/faults broker_kill). The new
// producer's init_transactions bumps the epoch and aborts what the old one
// left open, exactly as after a process restart. Fencing, authorisation and
// configuration errors are absent on purpose: a new producer meets them again.
constexpr bool is_recoverable_by_new_producer(rd_kafka_resp_err_t code) noexcept {
  switch (code) {
    case RD_KAFKA_RESP_ERR_INVALID_TXN_STATE:
    case RD_KAFKA_RESP_ERR_UNKNOWN_PRODUCER_ID:
    case RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER:
    case RD_KAFKA_RESP_ERR_INVALID_PRODUCER_ID_MAPPING:
    case RD_KAFKA_RESP_ERR__INCONSISTENT:
    case RD_KAFKA_RESP_ERR__GAPLESS_GUARANTEE:
      return true;
    default:
      return false;
  }
}

// ---- What the engine branches on, named once -------------------------------
// Code outside kafka/ asks these instead of naming librdkafka's codes, so
// that each meaning is decided in one place.

// What the brokers' ACLs refused, by the code of the refusal.
enum class refused_resource { none, topic, group, transactional_id, cluster };
constexpr refused_resource refused_for(rd_kafka_resp_err_t code) noexcept {
  switch (code) {
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
      return refused_resource::topic;
    case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
      return refused_resource::group;
    case RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED:
      return refused_resource::transactional_id;
    case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
      return refused_resource::cluster;
    default:
      return refused_resource::none;
  }
}
constexpr bool is_not_authorised(rd_kafka_resp_err_t code) noexcept {
  return refused_for(code) != refused_resource::none;
}
// The topic or partition does not exist (or, on a broker with ACLs, is not
// shown to this principal), as a broker answered; is_unknown_topic also
// takes the client's own verdict from its metadata.
constexpr bool is_unknown_topic_or_partition(rd_kafka_resp_err_t code) noexcept {
  return code == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
}
constexpr bool is_unknown_topic(rd_kafka_resp_err_t code) noexcept {
  return is_unknown_topic_or_partition(code) || code == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC;
}
// The client could not be made from the settings given (a --config or -X
// key or value librdkafka rejects): the calls that make their own client
// (read_log, append_log) report that as the client's invalid-argument
// code, with librdkafka's message.
constexpr bool is_refused_setting(rd_kafka_resp_err_t code) noexcept {
  return code == RD_KAFKA_RESP_ERR__INVALID_ARG;
}
// An open transaction holds the group's offsets: their committed values are
// not known until it ends.
constexpr bool is_unstable_offsets(rd_kafka_resp_err_t code) noexcept {
  return code == RD_KAFKA_RESP_ERR_UNSTABLE_OFFSET_COMMIT;
}
// The client's own timeout: the call's time ran out with no answer (one may
// still come).
constexpr bool is_timed_out(rd_kafka_resp_err_t code) noexcept {
  return code == RD_KAFKA_RESP_ERR__TIMED_OUT;
}
// The consumer reached the end of a partition: news, not an error.
constexpr bool is_partition_eof(rd_kafka_resp_err_t code) noexcept {
  return code == RD_KAFKA_RESP_ERR__PARTITION_EOF;
}
// Another member took over this member's group.instance.id (static
// membership): FENCED_INSTANCE_ID with the classic protocol; KIP-848 refuses
// the newcomer instead while the holder lives, UNRELEASED_INSTANCE_ID (111;
// librdkafka 2.0.2's header predates it).
constexpr bool is_instance_fenced(rd_kafka_resp_err_t code) noexcept {
  return code == RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID || code == static_cast<rd_kafka_resp_err_t>(111);
}
// The transaction coordinator refuses the producer's transaction.timeout.ms
// (above the brokers' transaction.max.timeout.ms): a setting to fix, which
// no retry or restart gets past.
constexpr bool is_transaction_timeout_refused(rd_kafka_resp_err_t code) noexcept {
  return code == RD_KAFKA_RESP_ERR_INVALID_TRANSACTION_TIMEOUT;
}
// The consumer's position is outside the partition's log and no reset
// policy applies.
constexpr bool is_offset_out_of_range(rd_kafka_resp_err_t code) noexcept {
  return code == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET || code == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE;
}
// The group has live members (or is rebalancing): its committed offsets can
// be changed only by them.
constexpr bool is_group_in_use(rd_kafka_resp_err_t code) noexcept {
  switch (code) {
    case RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID:
    case RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION:
    case RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC:
      return true;
    default:
      return false;
  }
}

// Errors the engine finds itself, given librdkafka's local codes so that
// they read and classify like the client's own.
enum class local_error {
  timed_out,        // no answer within the engine's own bound
  inconsistent,     // what the brokers said contradicts what this process knows
  assignment_lost,  // the group took the partitions before the transaction ended
};
constexpr rd_kafka_resp_err_t code_of(local_error e) noexcept {
  switch (e) {
    case local_error::timed_out:
      return RD_KAFKA_RESP_ERR__TIMED_OUT;
    case local_error::inconsistent:
      return RD_KAFKA_RESP_ERR__INCONSISTENT;
    case local_error::assignment_lost:
      return RD_KAFKA_RESP_ERR__ASSIGNMENT_LOST;
  }
  return RD_KAFKA_RESP_ERR__INCONSISTENT;
}

// The one place that decides what an error means. Order matters: fencing
// before fatal (librdkafka flags fencing fatal too), fatal before abortable
// (a fatal error can't be aborted), abortable before retriable (retrying a
// call while the transaction needs an abort only fails again). An error with
// no flag is unclassified; librdkafka's own transactions example treats that
// as fatal. Precondition: info.failed(); a success classifies as unclassified.
constexpr condition classify(const txn_error_info& info) noexcept {
  if (is_fencing_code(info.code)) return condition::fenced;
  if (info.fatal) return condition::fatal;
  if (info.txn_requires_abort) return condition::abortable;
  if (info.retriable) return condition::retriable;
  return condition::unclassified;
}

// Packs code and flags into one int (code in the low 16 bits, flags above),
// so an error_code in rdkafka_category() round-trips txn_error_info exactly.
// librdkafka's codes lie in [-200, 200), well inside 16 signed bits.
constexpr int pack(const txn_error_info& info) noexcept {
  const auto code16 = static_cast<std::uint16_t>(static_cast<std::int16_t>(info.code));
  const unsigned flags =
      (info.retriable ? 1u : 0u) | (info.txn_requires_abort ? 2u : 0u) | (info.fatal ? 4u : 0u);
  return static_cast<int>(static_cast<unsigned>(code16) | (flags << 16));
}
constexpr txn_error_info unpack(int value) noexcept {
  const auto bits = static_cast<unsigned>(value);
  const auto code = static_cast<std::int16_t>(static_cast<std::uint16_t>(bits & 0xffffu));
  const unsigned flags = bits >> 16;
  return {static_cast<rd_kafka_resp_err_t>(code), (flags & 1u) != 0, (flags & 2u) != 0, (flags & 4u) != 0};
}

inline boost::system::error_code make_error_code(const txn_error_info& info) noexcept {
  return {pack(info), rdkafka_category()};
}
// A plain librdkafka code with no flags (APIs that return rd_kafka_resp_err_t).
inline boost::system::error_code make_error_code(rd_kafka_resp_err_t code) noexcept {
  return make_error_code(txn_error_info::plain(code));
}

// The condition of any error_code: librdkafka errors by classify(), ours by
// their nature (settings → configuration, everything else → fatal).
condition condition_of(const boost::system::error_code& ec) noexcept;

// "PRODUCER_FENCED (fenced): <librdkafka's message>". Use the rd_kafka_error_t
// overload when the object is still at hand: its string carries detail
// (broker, transactional id) that rd_kafka_err2str of the code does not.
std::string describe(const rd_kafka_error_t* error);
std::string describe(const txn_error_info& info);

// What an operation of ours reports: the classified info plus librdkafka's
// detailed message, both owned plain data. Default-constructed = success.
struct error_report {
  txn_error_info info;
  std::string message;

  bool failed() const noexcept { return info.failed(); }
  condition what() const noexcept { return classify(info); }
  boost::system::error_code code() const noexcept { return make_error_code(info); }
};

// result::value() on an error is a bug in the caller (it should have checked).
[[noreturn]] inline void throw_exception_from_error(const error_report& e, const boost::source_location&) {
  throw std::logic_error("unchecked kafka result: " + e.message);
}
template <class T>
using kafka_result = boost::system::result<T, error_report>;

// Takes over `error` (may be null for success) and destroys it after copying.
error_report take_error(rd_kafka_error_t* error);
// For APIs that return only a code: the message is rd_kafka_err2str's.
error_report report_of(rd_kafka_resp_err_t code);

}  // namespace streamt::kafka

namespace boost::system {
template <>
struct is_error_code_enum<streamt::kafka::errc> : std::true_type {};
template <>
struct is_error_condition_enum<streamt::kafka::condition> : std::true_type {};
}  // namespace boost::system
