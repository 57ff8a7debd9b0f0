// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// streamt-verify: the fault harness's independent Kafka client (see README.md).
//
// It links librdkafka's C API directly and nothing of ours but nothing of
// engine/ or kafka/ either, so a bug in the engine's Kafka wrappers cannot
// hide itself by also sitting in the code that checks it.
//
//   seed            produce records carrying an id and a per-partition sequence
//   watch           a read_committed reader that logs what it sees, with times
//   check           compare the output with the input: lost, duplicated,
//                   out of order, aborted reads, committed offsets, open
//                   transactions; prints JSON, exits 1 if a check failed
//   offsets         low/high watermarks, last stable offset, committed offset
//   delete-records  DeleteRecords before an offset (the retention scenario)
//
// Record format (input): key "k<P>", value
//   {"id":"p<P>-s<SEQ>","p":P,"seq":SEQ,"keep":BOOL,"pad":"..."}
// keep is false for every SEQ % 4 == 3, so the filter drops a quarter.
// Records of an aborted upstream transaction have id "ABORTED-..." and
// seq -1: any of them in the output is an aborted read.
// With --bad-every N, sequences N-1, 2N-1, ... of every partition are
// invalid for the harness's plan instead (bad_value): a plan compiled with
// --on-invalid dead-letter writes them to its dead-letter topic.

#include <librdkafka/rdkafka.h>

#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {
namespace json = boost::json;
using std::chrono::steady_clock;

constexpr int exit_failed_check = 1;
constexpr int exit_usage = 2;
constexpr int exit_kafka = 3;

[[noreturn]] void die(int code, const std::string& what) {
  std::fprintf(stderr, "streamt-verify: error: %s\n", what.c_str());
  std::exit(code);
}

bool keep_of(std::int64_t seq) { return seq % 4 != 3; }

// --bad-every N: the Nth sequence of every partition, and every Nth after it.
bool bad_of(std::int64_t seq, std::int64_t every) {
  return every > 0 && seq >= 0 && seq % every == every - 1;
}

// A value the harness's plan (id STRING, p BIGINT, seq BIGINT, keep BOOLEAN,
// pad STRING, no other member) must refuse, in five ways taken in turn.
// Every one starts with {"id":"bad-p<P>-s<SEQ>", so the checker knows it
// whether or not the rest parses (bad_id).
std::string bad_value(int p, std::int64_t seq, std::int64_t every, std::size_t pad) {
  const std::string s = std::to_string(seq);
  const std::string head = "{\"id\":\"bad-p" + std::to_string(p) + "-s" + s + "\",\"p\":" + std::to_string(p);
  const std::string padding = ",\"pad\":\"" + std::string(pad, 'x') + "\"";
  switch ((seq / every + p) % 5) {
    case 0:  // wrong_type: seq as a string
      return head + ",\"seq\":\"" + s + "\",\"keep\":true" + padding + "}";
    case 1:  // malformed JSON: the object never ends
      return head + ",\"seq\":" + s + ",\"keep\":true" + padding;
    case 2:  // missing_column: no keep
      return head + ",\"seq\":" + s + padding + "}";
    case 3:  // wrong_type: keep as a number
      return head + ",\"seq\":" + s + ",\"keep\":1" + padding + "}";
    default:  // unknown_field: a member the schema does not declare
      return head + ",\"seq\":" + s + ",\"keep\":true" + padding + ",\"extra\":null}";
  }
}

// The (partition, sequence) a bad_value names, read from its fixed prefix.
std::optional<std::pair<std::int64_t, std::int64_t>> bad_id(const std::string& v) {
  static const std::string prefix = "{\"id\":\"bad-p";
  if (v.rfind(prefix, 0) != 0) return std::nullopt;
  std::size_t at = prefix.size();
  auto number = [&](char end) -> std::optional<std::int64_t> {
    std::int64_t n = 0;
    const std::size_t first = at;
    while (at < v.size() && v[at] >= '0' && v[at] <= '9' && at - first < 18) n = n * 10 + (v[at++] - '0');
    if (at == first || at >= v.size() || v[at] != end) return std::nullopt;
    ++at;
    return n;
  };
  const auto p = number('-');
  if (!p || at >= v.size() || v[at++] != 's') return std::nullopt;
  const auto seq = number('"');
  if (!seq) return std::nullopt;
  return std::pair{*p, *seq};
}

struct args {
  std::map<std::string, std::string> values;
  std::string get(const std::string& k) const {
    auto it = values.find(k);
    if (it == values.end()) die(exit_usage, "missing --" + k);
    return it->second;
  }
  std::string get(const std::string& k, const std::string& fallback) const {
    auto it = values.find(k);
    return it == values.end() ? fallback : it->second;
  }
  std::int64_t num(const std::string& k, std::optional<std::int64_t> fallback = std::nullopt) const {
    auto it = values.find(k);
    if (it == values.end()) {
      if (!fallback) die(exit_usage, "missing --" + k);
      return *fallback;
    }
    try {
      std::size_t used = 0;
      const long long v = std::stoll(it->second, &used);
      if (used != it->second.size()) throw std::invalid_argument(k);
      return v;
    } catch (const std::exception&) {
      die(exit_usage, "--" + k + " needs an integer, got '" + it->second + "'");
    }
  }
  bool has(const std::string& k) const { return values.count(k) != 0; }
};

args parse_args(int argc, char** argv, int first) {
  args a;
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    if (s.rfind("--", 0) != 0) die(exit_usage, "unexpected argument '" + s + "'");
    s = s.substr(2);
    if (i + 1 >= argc) die(exit_usage, "--" + s + " needs a value");
    a.values[s] = argv[++i];
  }
  return a;
}

struct rk_deleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using rk_ptr = std::unique_ptr<rd_kafka_t, rk_deleter>;
struct msg_deleter {
  void operator()(rd_kafka_message_t* m) const { rd_kafka_message_destroy(m); }
};
using msg_ptr = std::unique_ptr<rd_kafka_message_t, msg_deleter>;
struct tpl_deleter {
  void operator()(rd_kafka_topic_partition_list_t* l) const { rd_kafka_topic_partition_list_destroy(l); }
};
using tpl_ptr = std::unique_ptr<rd_kafka_topic_partition_list_t, tpl_deleter>;

void set(rd_kafka_conf_t* conf, const char* k, const std::string& v) {
  char err[512];
  if (rd_kafka_conf_set(conf, k, v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
    die(exit_usage, std::string(k) + ": " + err);
}

rk_ptr make_client(rd_kafka_type_t type, const std::string& bootstrap,
                   const std::vector<std::pair<std::string, std::string>>& settings,
                   void (*dr)(rd_kafka_t*, const rd_kafka_message_t*, void*) = nullptr) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap);
  set(conf, "log_level", "3");
  for (const auto& [k, v] : settings) set(conf, k.c_str(), v);
  if (dr) rd_kafka_conf_set_dr_msg_cb(conf, dr);
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof err);
  if (!rk) die(exit_kafka, std::string("creating a client: ") + err);
  return rk_ptr(rk);
}

// The topic's partition count. A topic just created may be unknown to the
// broker's metadata for a moment, and a restarting broker answers nothing:
// both are retried for up to 60 s.
int partition_count(rd_kafka_t* rk, const std::string& topic) {
  rd_kafka_topic_t* t = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  std::string why;
  int n = -1;
  const auto deadline = steady_clock::now() + std::chrono::seconds(60);
  while (n <= 0 && steady_clock::now() < deadline) {
    const rd_kafka_metadata_t* md = nullptr;
    const rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 0, t, &md, 10000);
    if (err) {
      why = rd_kafka_err2str(err);
      continue;
    }
    if (md->topic_cnt == 1 && !md->topics[0].err && md->topics[0].partition_cnt > 0)
      n = md->topics[0].partition_cnt;
    else
      why = md->topic_cnt == 1 ? rd_kafka_err2str(md->topics[0].err) : "no metadata";
    rd_kafka_metadata_destroy(md);
    if (n <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  rd_kafka_topic_destroy(t);
  if (n <= 0) die(exit_kafka, "topic " + topic + ": " + why);
  return n;
}

std::atomic<bool> stop_requested{false};
extern "C" void on_stop_signal(int) { stop_requested = true; }

// ---- seed -----------------------------------------------------------------

std::atomic<std::int64_t> delivery_failures{0};
std::string first_delivery_error;
extern "C" void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void*) {
  if (m->err && delivery_failures++ == 0) first_delivery_error = rd_kafka_err2str(m->err);
}

std::string record_value(int p, std::int64_t seq, std::size_t pad, bool aborted, std::int64_t marker) {
  std::string id = aborted ? "ABORTED-p" + std::to_string(p) + "-n" + std::to_string(marker)
                           : "p" + std::to_string(p) + "-s" + std::to_string(seq);
  std::string v = "{\"id\":\"" + id + "\",\"p\":" + std::to_string(p) +
                  ",\"seq\":" + std::to_string(aborted ? -1 : seq) +
                  ",\"keep\":" + ((aborted || keep_of(seq)) ? "true" : "false") + ",\"pad\":\"";
  v.append(pad, 'x');
  v += "\"}";
  return v;
}

void check_error(rd_kafka_error_t* e, const char* what) {
  if (!e) return;
  const std::string msg = std::string(what) + ": " + rd_kafka_error_string(e);
  rd_kafka_error_destroy(e);
  die(exit_kafka, msg);
}

int cmd_seed(const args& a) {
  const std::string topic = a.get("topic");
  const std::int64_t from = a.num("from", 0);
  const std::int64_t count = a.num("count");
  const double rate = static_cast<double>(a.num("rate", 0));  // records/s over all partitions; 0: no limit
  const auto pad = static_cast<std::size_t>(a.num("pad", 8));
  const std::int64_t big_seq = a.num("big-seq", -1);  // this seq of partition 0 gets --big-pad
  const auto big_pad = static_cast<std::size_t>(a.num("big-pad", 0));
  const std::string txn_id = a.get("transactional-id", "");
  const std::int64_t txn_size = a.num("txn-size", 10);
  const std::int64_t abort_every = a.num("abort-every", 0);  // every Nth transaction is aborted
  const std::int64_t bad_every = a.num("bad-every", 0);      // every Nth sequence is invalid
  if (bad_every < 0 || bad_every == 1) die(exit_usage, "--bad-every needs 0 (none) or at least 2");
  std::vector<std::pair<std::string, std::string>> settings{
      {"enable.idempotence", "true"}, {"acks", "all"}, {"message.timeout.ms", "300000"}, {"linger.ms", "5"}};
  // A transactional producer needs message.timeout.ms <= transaction.timeout.ms.
  if (!txn_id.empty())
    settings = {{"transactional.id", txn_id}, {"message.timeout.ms", "60000"}, {"linger.ms", "5"}};
  rk_ptr rk = make_client(RD_KAFKA_PRODUCER, a.get("bootstrap-servers"), settings, on_delivery);
  const int partitions =
      a.has("partitions") ? static_cast<int>(a.num("partitions")) : partition_count(rk.get(), topic);
  if (!txn_id.empty()) check_error(rd_kafka_init_transactions(rk.get(), 60000), "init_transactions");

  std::int64_t aborted_records = 0, produced = 0, txn_index = 0, marker = 0, bad_records = 0;
  const auto started = steady_clock::now();
  auto produce = [&](int p, const std::string& value) {
    const std::string key = "k" + std::to_string(p);
    for (;;) {
      const rd_kafka_resp_err_t err =
          rd_kafka_producev(rk.get(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(p),
                            RD_KAFKA_V_KEY(key.data(), key.size()),
                            RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (!err) break;
      if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL)
        die(exit_kafka, std::string("produce: ") + rd_kafka_err2str(err));
      rd_kafka_poll(rk.get(), 50);
    }
    rd_kafka_poll(rk.get(), 0);
    ++produced;
    if (rate > 0) {
      const auto due = started + std::chrono::duration<double>(static_cast<double>(produced) / rate);
      std::this_thread::sleep_until(std::chrono::time_point_cast<steady_clock::duration>(due));
    }
  };

  std::int64_t in_txn = 0;
  auto begin_if_needed = [&] {
    if (txn_id.empty() || in_txn != 0) return;
    check_error(rd_kafka_begin_transaction(rk.get()), "begin_transaction");
    // An aborted transaction first: records nobody may ever read.
    ++txn_index;
    if (abort_every > 0 && txn_index % abort_every == 0) {
      for (std::int64_t i = 0; i < txn_size; ++i)
        for (int p = 0; p < partitions; ++p) {
          produce(p, record_value(p, 0, pad, true, marker++));
          ++aborted_records;
        }
      // Flushed first so the aborted records really are in the log (what a
      // read_committed reader must skip); aborting them in flight also made
      // the broker answer INVALID_TXN_STATE to librdkafka 2.0.2's EndTxn.
      if (rd_kafka_flush(rk.get(), 60000) != RD_KAFKA_RESP_ERR_NO_ERROR) die(exit_kafka, "flush timed out");
      check_error(rd_kafka_abort_transaction(rk.get(), 60000), "abort_transaction");
      check_error(rd_kafka_begin_transaction(rk.get()), "begin_transaction");
      ++txn_index;
    }
  };
  for (std::int64_t seq = from; seq < from + count && !stop_requested; ++seq) {
    begin_if_needed();
    for (int p = 0; p < partitions; ++p) {
      const std::size_t n = p == 0 && seq == big_seq ? big_pad : pad;
      if (bad_of(seq, bad_every)) {
        produce(p, bad_value(p, seq, bad_every, n));
        ++bad_records;
      } else {
        produce(p, record_value(p, seq, n, false, 0));
      }
    }
    if (!txn_id.empty() && ++in_txn == txn_size) {
      check_error(rd_kafka_commit_transaction(rk.get(), 60000), "commit_transaction");
      in_txn = 0;
    }
  }
  if (!txn_id.empty() && in_txn != 0)
    check_error(rd_kafka_commit_transaction(rk.get(), 60000), "commit_transaction");
  if (rd_kafka_flush(rk.get(), 300000) != RD_KAFKA_RESP_ERR_NO_ERROR) die(exit_kafka, "flush timed out");
  if (delivery_failures > 0)
    die(exit_kafka, std::to_string(delivery_failures.load()) + " records failed: " + first_delivery_error);
  json::object out{{"topic", topic},
                   {"partitions", partitions},
                   {"from", from},
                   {"count", count},
                   {"records", produced - aborted_records},
                   {"aborted_records", aborted_records},
                   {"bad_records", bad_records}};
  std::cout << json::serialize(out) << std::endl;
  return 0;
}

// ---- reading a topic --------------------------------------------------------

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

rk_ptr make_reader(const std::string& bootstrap, const std::string& isolation, const std::string& group) {
  // A short fetch wait: the watcher's receive times measure recovery.
  return make_client(RD_KAFKA_CONSUMER, bootstrap,
                     {{"group.id", group},
                      {"fetch.wait.max.ms", "50"},
                      {"isolation.level", isolation},
                      {"enable.auto.commit", "false"},
                      {"enable.partition.eof", "true"},
                      {"auto.offset.reset", "earliest"}});
}

void assign_all(rd_kafka_t* rk, const std::string& topic, int partitions, std::int64_t offset) {
  tpl_ptr l(rd_kafka_topic_partition_list_new(partitions));
  for (int p = 0; p < partitions; ++p)
    rd_kafka_topic_partition_list_add(l.get(), topic.c_str(), p)->offset = offset;
  if (rd_kafka_resp_err_t err = rd_kafka_assign(rk, l.get()))
    die(exit_kafka, std::string("assign: ") + rd_kafka_err2str(err));
}

struct record {
  int partition;
  std::int64_t offset;
  std::string value;
  std::optional<std::string> key;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;  // in order; nullopt: null value
};

std::optional<std::string> bytes_of(const void* data, std::size_t size) {
  if (!data) return std::nullopt;
  return std::string(static_cast<const char*>(data), size);
}

// Everything in TOPIC from the log start to its end (read_committed: the last
// stable offset), ordered by partition then offset.
std::vector<record> read_all(const std::string& bootstrap, const std::string& topic,
                             const std::string& isolation, std::int64_t timeout_ms) {
  rk_ptr rk = make_reader(bootstrap, isolation, "streamt-verify-reader");
  const int partitions = partition_count(rk.get(), topic);
  assign_all(rk.get(), topic, partitions, RD_KAFKA_OFFSET_BEGINNING);
  std::set<int> at_end;
  std::vector<record> out;
  const auto deadline = steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (static_cast<int>(at_end.size()) < partitions) {
    if (steady_clock::now() > deadline)
      die(exit_kafka, "reading " + topic + " did not reach the end of every partition within " +
                          std::to_string(timeout_ms) + " ms");
    msg_ptr m(rd_kafka_consumer_poll(rk.get(), 200));
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      at_end.insert(m->partition);
      continue;
    }
    if (m->err) {
      std::fprintf(stderr, "streamt-verify: reading %s: %s\n", topic.c_str(),
                   rd_kafka_message_errstr(m.get()));
      continue;
    }
    at_end.erase(m->partition);
    record r{
        m->partition, m->offset, bytes_of(m->payload, m->len).value_or(""), bytes_of(m->key, m->key_len), {}};
    rd_kafka_headers_t* hdrs = nullptr;
    if (rd_kafka_message_headers(m.get(), &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      const char* name = nullptr;
      const void* value = nullptr;
      std::size_t size = 0;
      for (std::size_t i = 0; !rd_kafka_header_get_all(hdrs, i, &name, &value, &size); ++i)
        r.headers.emplace_back(name, bytes_of(value, size));
    }
    out.push_back(std::move(r));
  }
  rd_kafka_consumer_close(rk.get());
  std::stable_sort(out.begin(), out.end(), [](const record& x, const record& y) {
    return std::tie(x.partition, x.offset) < std::tie(y.partition, y.offset);
  });
  return out;
}

struct marks {
  std::int64_t low = -1, high = -1, stable = -1, committed = -1;
};

// Right after a broker restart or pause, coordinators and leaders answer
// "not me" until metadata settles: a check asked then failed a clean
// scenario with NOT_COORDINATOR (soak, broker_kill). The verifier waits that
// out, up to a minute, and only then reports a Kafka error.
bool settling(rd_kafka_resp_err_t err) {
  switch (err) {
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_UNSTABLE_OFFSET_COMMIT:
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TRANSPORT:
      return true;
    default:
      return false;
  }
}

template <class Call>
rd_kafka_resp_err_t once_settled(Call call) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    const rd_kafka_resp_err_t err = call();
    if (!settling(err) || std::chrono::steady_clock::now() >= deadline) return err;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

// Per partition: log start, high watermark (read_uncommitted end), last
// stable offset (read_committed end: a ListOffsets request carries the
// client's isolation level) and, with a group, its committed offset.
std::map<int, marks> query_marks(const std::string& bootstrap, const std::string& topic,
                                 const std::string& group) {
  rk_ptr uncommitted =
      make_reader(bootstrap, "read_uncommitted", group.empty() ? "streamt-verify-marks" : group);
  rk_ptr committed = make_reader(bootstrap, "read_committed", "streamt-verify-marks");
  const int partitions = partition_count(uncommitted.get(), topic);
  std::map<int, marks> out;
  for (int p = 0; p < partitions; ++p) {
    marks m;
    std::int64_t lo = 0, hi = 0;
    rd_kafka_resp_err_t err = once_settled([&] {
      return rd_kafka_query_watermark_offsets(uncommitted.get(), topic.c_str(), p, &lo, &hi, 20000);
    });
    if (err)
      die(exit_kafka, "watermarks of " + topic + "/" + std::to_string(p) + ": " + rd_kafka_err2str(err));
    m.low = lo;
    m.high = hi;
    err = once_settled(
        [&] { return rd_kafka_query_watermark_offsets(committed.get(), topic.c_str(), p, &lo, &hi, 20000); });
    if (err)
      die(exit_kafka, "stable offset of " + topic + "/" + std::to_string(p) + ": " + rd_kafka_err2str(err));
    m.stable = hi;
    out[p] = m;
  }
  if (!group.empty()) {
    tpl_ptr l(rd_kafka_topic_partition_list_new(partitions));
    for (int p = 0; p < partitions; ++p) rd_kafka_topic_partition_list_add(l.get(), topic.c_str(), p);
    if (rd_kafka_resp_err_t err = once_settled([&] {
          const rd_kafka_resp_err_t e = rd_kafka_committed(uncommitted.get(), l.get(), 20000);
          if (e) return e;
          for (int i = 0; i < l->cnt; ++i)
            if (settling(l->elems[i].err)) return l->elems[i].err;
          return e;
        }))
      die(exit_kafka, "committed offsets of group " + group + ": " + rd_kafka_err2str(err));
    for (int i = 0; i < l->cnt; ++i) out[l->elems[i].partition].committed = l->elems[i].offset;
  }
  return out;
}

// ---- watch ------------------------------------------------------------------

int cmd_watch(const args& a) {
  const std::string topic = a.get("topic");
  std::FILE* f = std::fopen(a.get("output").c_str(), "w");
  if (!f) die(exit_usage, "cannot write " + a.get("output"));
  rk_ptr rk = make_reader(a.get("bootstrap-servers"), "read_committed", "streamt-verify-watch");
  const int partitions = partition_count(rk.get(), topic);
  assign_all(rk.get(), topic, partitions, RD_KAFKA_OFFSET_BEGINNING);
  std::fprintf(stderr, "streamt-verify: watching %s (%d partitions, read_committed)\n", topic.c_str(),
               partitions);
  auto read_one = [&] {
    msg_ptr m(rd_kafka_consumer_poll(rk.get(), 100));
    if (!m || m->err) return;
    // One line per record: receive time (ms since the epoch), partition,
    // offset, value. Flushed at once: the harness reads it while we run.
    std::fprintf(f, "%lld\t%d\t%lld\t%.*s\n", static_cast<long long>(now_ms()), m->partition,
                 static_cast<long long>(m->offset), static_cast<int>(m->len),
                 m->payload ? static_cast<const char*>(m->payload) : "");
    std::fflush(f);
  };
  while (!stop_requested) read_one();
  // Asked to stop: first read up to the stable end as it is now, so the
  // harness's live view holds every record committed before it asked.
  std::map<int, std::int64_t> end;  // partitions holding records: their stable end
  for (int p = 0; p < partitions; ++p) {
    std::int64_t lo = 0, hi = 0;
    if (!rd_kafka_query_watermark_offsets(rk.get(), topic.c_str(), p, &lo, &hi, 10000) && hi > lo)
      end[p] = hi;
  }
  const std::int64_t drain_deadline = now_ms() + 10000;
  for (;;) {
    tpl_ptr pos(rd_kafka_topic_partition_list_new(partitions));
    for (const auto& [p, e] : end) rd_kafka_topic_partition_list_add(pos.get(), topic.c_str(), p);
    rd_kafka_position(rk.get(), pos.get());
    bool behind = false;
    for (int i = 0; i < pos->cnt; ++i)
      if (pos->elems[i].offset < end[pos->elems[i].partition])
        behind = true;  // INVALID (-1001): none read yet
    if (!behind) break;
    if (now_ms() > drain_deadline) {
      std::fprintf(stderr, "streamt-verify: watch: not at the stable end within 10 s of the stop\n");
      break;
    }
    read_one();
  }
  std::fclose(f);
  rd_kafka_consumer_close(rk.get());
  return 0;
}

// ---- check ------------------------------------------------------------------

struct parsed {
  bool ok = false;
  bool aborted = false;
  std::string id;
  std::int64_t p = -1, seq = -1;
  bool keep = true;
};

parsed parse_record(const std::string& v) {
  parsed r;
  boost::system::error_code ec;
  json::value j = json::parse(v, ec);
  if (ec || !j.is_object()) return r;
  const json::object& o = j.as_object();
  const json::value* id = o.if_contains("id");
  const json::value* p = o.if_contains("p");
  const json::value* seq = o.if_contains("seq");
  if (!id || !id->is_string() || !p || !p->is_int64() || !seq || !seq->is_int64()) return r;
  r.id = std::string(id->as_string());
  r.p = p->as_int64();
  r.seq = seq->as_int64();
  r.aborted = r.id.rfind("ABORTED-", 0) == 0;
  if (const json::value* k = o.if_contains("keep"); k && k->is_bool()) r.keep = k->as_bool();
  r.ok = true;
  return r;
}

// "0=120,1=120": committed sequences 0..N-1 the seeder wrote per partition.
std::map<int, std::int64_t> parse_seeded(const std::string& s) {
  std::map<int, std::int64_t> out;
  std::size_t at = 0;
  while (at < s.size()) {
    std::size_t comma = s.find(',', at);
    if (comma == std::string::npos) comma = s.size();
    const std::string item = s.substr(at, comma - at);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) die(exit_usage, "--seeded takes P=N,P=N...; got '" + item + "'");
    out[std::stoi(item.substr(0, eq))] = std::stoll(item.substr(eq + 1));
    at = comma + 1;
  }
  return out;
}

json::array ranges(const std::vector<std::int64_t>& sorted) {
  json::array out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    out.push_back(json::array{sorted[i], sorted[j]});
    i = j + 1;
  }
  return out;
}

int cmd_check(const args& a) {
  const std::string bootstrap = a.get("bootstrap-servers");
  const std::string input = a.get("input"), output = a.get("output"), group = a.get("group");
  const std::int64_t timeout = a.num("timeout-ms", 60000);
  const std::map<int, std::int64_t> seeded = parse_seeded(a.get("seeded"));
  // --bad-every N: the seeder's bad records, which the output must never
  // hold; with --dead-letter-topic each must be there exactly once.
  const std::int64_t bad_every = a.num("bad-every", 0);
  const std::string dead_letter = a.get("dead-letter-topic", "");
  if (bad_every < 0 || bad_every == 1) die(exit_usage, "--bad-every needs 0 (none) or at least 2");
  if (!dead_letter.empty() && bad_every == 0) die(exit_usage, "--dead-letter-topic needs --bad-every");

  // The input as a read_committed reader sees it: the sequences present, in
  // order, and the last offset holding a committed record.
  std::map<int, std::int64_t> last_data_offset;
  std::int64_t input_aborted = 0, input_bad = 0;
  std::map<int, std::int64_t> input_next_seq;
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> input_offset;  // (p, seq) -> offset
  std::map<std::pair<std::int64_t, std::int64_t>, record> bad_input;           // (p, seq) -> the record
  for (record& r : read_all(bootstrap, input, "read_committed", timeout)) {
    last_data_offset[r.partition] = r.offset;
    if (const auto bad = bad_id(r.value); bad && bad_every > 0) {
      // A bad record where the seeder puts one, in its partition, in order.
      const auto [p, seq] = *bad;
      if (p != r.partition || !bad_of(seq, bad_every) || seq < input_next_seq[r.partition]) ++input_bad;
      input_next_seq[r.partition] = seq + 1;
      input_offset[{p, seq}] = r.offset;
      bad_input[{p, seq}] = std::move(r);
      continue;
    }
    parsed v = parse_record(r.value);
    if (!v.ok || v.p != r.partition) {
      ++input_bad;
      continue;
    }
    if (v.aborted) {
      ++input_aborted;
      continue;
    }
    // Present input sequences must rise; gaps are records deleted (retention).
    if (v.seq < input_next_seq[r.partition] || bad_of(v.seq, bad_every)) ++input_bad;
    input_next_seq[r.partition] = v.seq + 1;
    input_offset[{v.p, v.seq}] = r.offset;
  }
  const std::map<int, marks> input_marks = query_marks(bootstrap, input, group);
  // --upto-committed: the engine stopped early (a record it cannot process):
  // everything before each committed offset must be there exactly once, and
  // nothing at or after it may be visible.
  const bool upto_committed = a.get("upto-committed", "false") == "true";
  auto beyond_committed = [&](std::int64_t p, std::int64_t seq) {
    auto off = input_offset.find({p, seq});
    auto m = input_marks.find(static_cast<int>(p));
    return off != input_offset.end() && m != input_marks.end() && off->second >= m->second.committed;
  };

  // The output.
  std::map<std::pair<std::int64_t, std::int64_t>, int> seen;  // (p, seq) -> times
  std::map<std::int64_t, std::int64_t> last_seq;              // per input partition, in output order
  std::map<std::int64_t, std::set<int>> landed_in;            // input partition -> output partitions
  std::int64_t duplicated = 0, out_of_order = 0, aborted_reads = 0, foreign = 0, filtered_leaked = 0,
               total = 0, past_committed = 0, bad_in_output = 0;
  for (const record& r : read_all(bootstrap, output, "read_committed", timeout)) {
    ++total;
    if (bad_id(r.value)) {  // the projection of a bad record: it passed as valid
      ++bad_in_output;
      continue;
    }
    parsed v = parse_record(r.value);
    if (!v.ok) {
      ++foreign;
      continue;
    }
    if (v.aborted) {
      ++aborted_reads;
      continue;
    }
    if (!keep_of(v.seq)) ++filtered_leaked;
    if (upto_committed && beyond_committed(v.p, v.seq)) ++past_committed;
    landed_in[v.p].insert(r.partition);
    if (++seen[{v.p, v.seq}] > 1) {
      ++duplicated;
      continue;
    }
    auto it = last_seq.find(v.p);
    if (it != last_seq.end() && v.seq < it->second) ++out_of_order;
    last_seq[v.p] = std::max(v.seq, it == last_seq.end() ? v.seq : it->second);
  }

  std::int64_t expected = 0, lost = 0;
  json::object lost_seqs;
  for (const auto& [p, n] : seeded) {
    std::vector<std::int64_t> missing;
    for (std::int64_t s = 0; s < n; ++s) {
      if (!keep_of(s) || bad_of(s, bad_every) || (upto_committed && beyond_committed(p, s))) continue;
      ++expected;
      if (!seen.count({p, s})) missing.push_back(s);
    }
    lost += static_cast<std::int64_t>(missing.size());
    if (!missing.empty()) lost_seqs[std::to_string(p)] = ranges(missing);
  }
  std::int64_t unexpected = 0;  // output records for sequences never seeded
  for (const auto& [key, times] : seen) {
    auto it = seeded.find(static_cast<int>(key.first));
    if (it == seeded.end() || key.second < 0 || key.second >= it->second) unexpected += times;
  }
  std::int64_t split = 0;
  for (const auto& [p, parts] : landed_in)
    if (parts.size() > 1) ++split;

  // The dead-letter topic: each bad record exactly once, as it was in the
  // input (key and value bytes), its streamt.source.* headers naming its
  // input position; nothing else.
  json::object dead;
  bool dead_ok = true;
  if (!dead_letter.empty()) {
    std::map<std::pair<std::int64_t, std::int64_t>, int> dead_seen;
    std::int64_t dead_total = 0, dead_duplicated = 0, dead_unexpected = 0, dead_mismatched = 0,
                 dead_past_committed = 0;
    json::array mismatches;  // the first few, to say what differed
    json::object codes;      // streamt.error.code -> records
    for (const record& d : read_all(bootstrap, dead_letter, "read_committed", timeout)) {
      ++dead_total;
      const auto bad = bad_id(d.value);
      const auto in = bad ? bad_input.find(*bad) : bad_input.end();
      if (in == bad_input.end()) {  // a good record dead-lettered, or a bad one never seeded
        ++dead_unexpected;
        continue;
      }
      if (upto_committed && beyond_committed(bad->first, bad->second)) ++dead_past_committed;
      if (++dead_seen[*bad] > 1) ++dead_duplicated;
      auto header = [&](const std::string& name) -> std::optional<std::string> {
        for (const auto& [k, v] : d.headers)
          if (k == name) return v;
        return std::nullopt;
      };
      const std::string where =
          std::to_string(in->second.partition) + "@" + std::to_string(in->second.offset);
      std::vector<std::string> wrong;
      if (header("streamt.source.topic") != input) wrong.push_back("streamt.source.topic");
      if (header("streamt.source.partition") != std::to_string(in->second.partition))
        wrong.push_back("streamt.source.partition");
      if (header("streamt.source.offset") != std::to_string(in->second.offset))
        wrong.push_back("streamt.source.offset");
      if (d.value != in->second.value) wrong.push_back("value");
      if (d.key != in->second.key) wrong.push_back("key");
      const std::string code = header("streamt.error.code").value_or("");
      if (code.empty()) wrong.push_back("streamt.error.code");
      const std::string code_key = code.empty() ? "(none)" : code;
      const json::value* counted = codes.if_contains(code_key);
      codes[code_key] = (counted ? counted->as_int64() : 0) + 1;
      if (!wrong.empty()) {
        ++dead_mismatched;
        if (mismatches.size() < 5) {
          std::string what = where + ":";
          for (const auto& w : wrong) what += " " + w;
          mismatches.push_back(json::string(what));
        }
      }
    }
    std::int64_t dead_expected = 0, dead_lost = 0;
    json::object dead_lost_seqs;
    for (const auto& [p, n] : seeded) {
      std::vector<std::int64_t> missing;
      for (std::int64_t s = 0; s < n; ++s) {
        if (!bad_of(s, bad_every) || (upto_committed && beyond_committed(p, s))) continue;
        ++dead_expected;
        if (!dead_seen.count({p, s})) missing.push_back(s);
      }
      dead_lost += static_cast<std::int64_t>(missing.size());
      if (!missing.empty()) dead_lost_seqs[std::to_string(p)] = ranges(missing);
    }
    json::array dead_open;
    for (const auto& [p, m] : query_marks(bootstrap, dead_letter, ""))
      if (m.stable != m.high)
        dead_open.push_back(json::object{{"partition", p}, {"stable", m.stable}, {"end", m.high}});
    dead_ok = dead_lost == 0 && dead_duplicated == 0 && dead_unexpected == 0 && dead_mismatched == 0 &&
              dead_past_committed == 0 && dead_open.empty();
    dead = json::object{{"dead_letter_expected", dead_expected},
                        {"dead_letter_records", dead_total},
                        {"dead_letter_lost", dead_lost},
                        {"dead_letter_lost_seqs", dead_lost_seqs},
                        {"dead_letter_duplicated", dead_duplicated},
                        {"dead_letter_unexpected", dead_unexpected},
                        {"dead_letter_mismatched", dead_mismatched},
                        {"dead_letter_mismatches", mismatches},
                        {"dead_letter_past_committed", dead_past_committed},
                        {"dead_letter_codes", codes},
                        {"dead_letter_open_transactions", dead_open}};
  }

  // Offsets: the group's committed offset per input partition must be past
  // the last committed record and not past the end (a trailing control
  // record or aborted transaction may lie between). Output: the last stable
  // offset equals the high watermark, or a transaction is still open.
  bool offsets_ok = true;
  json::object offsets;
  for (const auto& [p, m] : input_marks) {
    if (upto_committed) continue;
    const std::int64_t last = last_data_offset.count(p) ? last_data_offset[p] : -1;
    const bool ok =
        m.committed >= last + 1 && m.committed <= m.high && (last >= 0 || m.committed >= 0 || m.high == 0);
    offsets_ok = offsets_ok && ok;
    offsets[std::to_string(p)] = json::object{
        {"committed", m.committed}, {"last_record", last}, {"log_start", m.low}, {"end", m.high}, {"ok", ok}};
  }
  if (upto_committed)
    for (const auto& [p, m] : input_marks)
      offsets[std::to_string(p)] =
          json::object{{"committed", m.committed}, {"log_start", m.low}, {"end", m.high}};
  json::array open;
  for (const auto& [p, m] : query_marks(bootstrap, output, ""))
    if (m.stable != m.high)
      open.push_back(json::object{{"partition", p}, {"stable", m.stable}, {"end", m.high}});

  const bool ok = lost == 0 && duplicated == 0 && out_of_order == 0 && aborted_reads == 0 && foreign == 0 &&
                  filtered_leaked == 0 && unexpected == 0 && past_committed == 0 && split == 0 &&
                  bad_in_output == 0 && input_aborted == 0 && input_bad == 0 && offsets_ok && open.empty() &&
                  dead_ok;
  json::object out{{"ok", ok},
                   {"expected", expected},
                   {"output_records", total},
                   {"lost", lost},
                   {"lost_seqs", lost_seqs},
                   {"duplicated", duplicated},
                   {"out_of_order", out_of_order},
                   {"aborted_reads", aborted_reads},
                   {"filtered_leaked", filtered_leaked},
                   {"unexpected", unexpected},
                   {"past_committed", past_committed},
                   {"foreign", foreign},
                   {"split_partitions", split},
                   {"input_aborted_reads", input_aborted},
                   {"input_inconsistent", input_bad},
                   {"offsets_ok", offsets_ok},
                   {"offsets", offsets},
                   {"open_transactions", open}};
  if (bad_every > 0) out["bad_in_output"] = bad_in_output;
  for (const auto& [k, v] : dead) out[k] = v;
  std::cout << json::serialize(out) << std::endl;
  return ok ? 0 : exit_failed_check;
}

int cmd_offsets(const args& a) {
  json::object out;
  for (const auto& [p, m] : query_marks(a.get("bootstrap-servers"), a.get("topic"), a.get("group", "")))
    out[std::to_string(p)] =
        json::object{{"log_start", m.low}, {"end", m.high}, {"stable", m.stable}, {"committed", m.committed}};
  std::cout << json::serialize(out) << std::endl;
  return 0;
}

int cmd_delete_records(const args& a) {
  const std::string topic = a.get("topic");
  rk_ptr rk = make_client(RD_KAFKA_PRODUCER, a.get("bootstrap-servers"), {});
  tpl_ptr l(rd_kafka_topic_partition_list_new(1));
  rd_kafka_topic_partition_list_add(l.get(), topic.c_str(), static_cast<int>(a.num("partition")))->offset =
      a.num("before");
  rd_kafka_DeleteRecords_t* del = rd_kafka_DeleteRecords_new(l.get());
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk.get());
  rd_kafka_DeleteRecords(rk.get(), &del, 1, nullptr, q);
  rd_kafka_DeleteRecords_destroy(del);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 60000);
  int rc = 0;
  if (!ev) die(exit_kafka, "DeleteRecords: no answer within 60 s");
  if (rd_kafka_event_error(ev)) {
    std::fprintf(stderr, "streamt-verify: DeleteRecords: %s\n", rd_kafka_event_error_string(ev));
    rc = exit_kafka;
  } else {
    const rd_kafka_topic_partition_list_t* res =
        rd_kafka_DeleteRecords_result_offsets(rd_kafka_event_DeleteRecords_result(ev));
    for (int i = 0; res && i < res->cnt; ++i) {
      if (res->elems[i].err) {
        std::fprintf(stderr, "streamt-verify: DeleteRecords %s/%d: %s\n", topic.c_str(),
                     res->elems[i].partition, rd_kafka_err2str(res->elems[i].err));
        rc = exit_kafka;
      } else {
        std::cout << "{\"partition\":" << res->elems[i].partition << ",\"log_start\":" << res->elems[i].offset
                  << "}" << std::endl;
      }
    }
  }
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  return rc;
}

// Waits for one admin result event on q and reports every per-topic error.
// With exists_ok, TOPIC_ALREADY_EXISTS is not an error (a retried create
// whose first attempt did reach the controller).
int admin_topics_result(rd_kafka_queue_t* q, const char* what, bool create, bool exists_ok = false) {
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 60000);
  if (!ev) die(exit_kafka, std::string(what) + ": no answer within 60 s");
  int rc = 0;
  if (rd_kafka_event_error(ev)) {
    std::fprintf(stderr, "streamt-verify: %s: %s\n", what, rd_kafka_event_error_string(ev));
    rc = exit_kafka;
  } else {
    std::size_t n = 0;
    const rd_kafka_topic_result_t** res =
        create ? rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n)
               : rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(ev), &n);
    for (std::size_t i = 0; i < n; ++i)
      if (const rd_kafka_resp_err_t err = rd_kafka_topic_result_error(res[i]);
          err && !(exists_ok && err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)) {
        std::fprintf(stderr, "streamt-verify: %s %s: %s\n", what, rd_kafka_topic_result_name(res[i]),
                     rd_kafka_topic_result_error_string(res[i]));
        rc = exit_kafka;
      }
  }
  rd_kafka_event_destroy(ev);
  return rc;
}

// create-topic --topic T --partitions N [--config k=v,k=v]: replication
// factor -1 (the broker's default), so it works on any cluster.
int cmd_create_topic(const args& a) {
  rk_ptr rk = make_client(RD_KAFKA_PRODUCER, a.get("bootstrap-servers"), {});
  char err[512];
  rd_kafka_NewTopic_t* t = rd_kafka_NewTopic_new(a.get("topic").c_str(),
                                                 static_cast<int>(a.num("partitions")), -1, err, sizeof err);
  if (!t) die(exit_usage, err);
  const std::string configs = a.get("config", "");
  for (std::size_t at = 0; at < configs.size();) {
    std::size_t comma = configs.find(',', at);
    if (comma == std::string::npos) comma = configs.size();
    const std::string item = configs.substr(at, comma - at);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) die(exit_usage, "--config takes k=v,k=v; got '" + item + "'");
    rd_kafka_NewTopic_set_config(t, item.substr(0, eq).c_str(), item.substr(eq + 1).c_str());
    at = comma + 1;
  }
  // Right after a broker pause the controller can answer "Failed while
  // waiting for controller" although the topic is then created: try three
  // times, the later attempts taking an existing topic as success.
  int rc = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (attempt > 0) {
      std::fprintf(stderr, "streamt-verify: CreateTopics: trying again (%d of 3)\n", attempt + 1);
      std::this_thread::sleep_for(std::chrono::seconds(2));  // back-off, not synchronisation
    }
    rd_kafka_queue_t* q = rd_kafka_queue_new(rk.get());
    rd_kafka_CreateTopics(rk.get(), &t, 1, nullptr, q);
    rc = admin_topics_result(q, "CreateTopics", true, attempt > 0);
    rd_kafka_queue_destroy(q);
    if (rc == 0) break;
  }
  rd_kafka_NewTopic_destroy(t);
  if (rc == 0) partition_count(rk.get(), a.get("topic"));  // wait until the metadata shows it
  return rc;
}

int cmd_delete_topic(const args& a) {
  rk_ptr rk = make_client(RD_KAFKA_PRODUCER, a.get("bootstrap-servers"), {});
  rd_kafka_DeleteTopic_t* t = rd_kafka_DeleteTopic_new(a.get("topic").c_str());
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk.get());
  rd_kafka_DeleteTopics(rk.get(), &t, 1, nullptr, q);
  rd_kafka_DeleteTopic_destroy(t);
  const int rc = admin_topics_result(q, "DeleteTopics", false);
  rd_kafka_queue_destroy(q);
  return rc;
}

void usage(std::FILE* f) {
  std::fputs(
      "usage: streamt-verify COMMAND --bootstrap-servers HOSTS [options]\n"
      "  seed --topic T --count N [--from S] [--rate R] [--pad N] [--big-seq S --big-pad N]\n"
      "       [--transactional-id ID --txn-size K --abort-every M] [--bad-every N]\n"
      "  watch --topic T --output FILE            (until SIGTERM)\n"
      "  check --input T --output T2 --group G --seeded P=N,... [--timeout-ms MS]\n"
      "        [--upto-committed true]   (the engine stopped early: expect only what it committed)\n"
      "        [--bad-every N [--dead-letter-topic T]]   (bad records seeded; each in T once)\n"
      "  offsets --topic T [--group G]\n"
      "  delete-records --topic T --partition P --before OFFSET\n"
      "  create-topic --topic T --partitions N [--config k=v,...]\n"
      "  delete-topic --topic T\n",
      f);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? exit_usage : 0;
  }
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGINT, on_stop_signal);
  const std::string cmd = argv[1];
  const args a = parse_args(argc, argv, 2);
  if (cmd == "seed") return cmd_seed(a);
  if (cmd == "watch") return cmd_watch(a);
  if (cmd == "check") return cmd_check(a);
  if (cmd == "offsets") return cmd_offsets(a);
  if (cmd == "delete-records") return cmd_delete_records(a);
  if (cmd == "create-topic") return cmd_create_topic(a);
  if (cmd == "delete-topic") return cmd_delete_topic(a);
  usage(stderr);
  return exit_usage;
}
