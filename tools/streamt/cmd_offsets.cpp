// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// streamt offsets: where an application's consumer group stands, and moving
// a stopped group past one poisoned record (contract §6, operations.md).
// The operator's answer to exit 65 without Kafka's Java tools.

#include "engine/client_failure.hpp"
#include "engine/instance_report.hpp"
#include "engine/lineage.hpp"
#include "engine/log.hpp"
#include "engine/progress.hpp"
#include "engine/session/claims.hpp"
#include "kafka/group_admin.hpp"
#include "kafka/plan_log.hpp"
#include "tools/streamt/cli.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <variant>

namespace streamt::cli {

namespace {

constexpr std::string_view help =
    "usage: streamt offsets APPLICATION_ID --bootstrap-servers HOSTS [options]\n"
    "       streamt offsets skip APPLICATION_ID TOPIC/PARTITION@OFFSET --bootstrap-servers HOSTS [options]\n"
    "\n"
    "Show where the consumer group of an application (its application id) stands:\n"
    "each partition's committed offset, its end (the last stable offset, what a\n"
    "read_committed consumer can reach), the lag between them, and the commit's\n"
    "metadata; and the group's state and members.\n"
    "\n"
    "'skip' moves a stopped group past one record: the record at OFFSET, where the\n"
    "run stopped with exit 65, will not be processed; the group's committed offset\n"
    "goes from OFFSET to OFFSET+1. It refuses, changing nothing, if the group has\n"
    "members, if a transaction of the group is still open, or if the committed\n"
    "offset is not OFFSET.\n"
    "\n"
    "  --bootstrap-servers HOSTS   Kafka brokers (also --bootstrap-server or -b)\n"
    "  -X KEY=VALUE                a librdkafka setting (repeatable): TLS, SASL\n"
    "  --config FILE               librdkafka settings in Java properties syntax\n"
    "  --topic TOPIC               also list TOPIC's partitions the group has no offset for\n"
    "  --format text|json          text (default), or one JSON object\n"
    "  --timeout-ms N              bound on each request (default 30000; 1..3600000)\n"
    "\n"
    "exit codes: 0 done; 2 usage; 69 brokers unreachable or a request failed;\n"
    "            75 the group has members or an open transaction (stop it, or wait; try again);\n"
    "            78 a setting refused, or skip's OFFSET is not the committed offset or no record;\n"
    "            74 standard output not writable\n";

// TOPIC/PARTITION@OFFSET, as the engine's exit-65 line names the record.
using skip_target = record_position;

std::optional<skip_target> parse_target(std::string_view text) {
  // The next offset, OFFSET+1, must be one too.
  return parse_record_position(text, std::numeric_limits<std::int64_t>::max() - 1);
}

std::string where(const kafka::topic_partition& p) { return p.topic + "/" + std::to_string(p.partition); }

// A failed request (brokers away, refused by an ACL, timed out, ...): 69.
// What waiting or stopping the group fixes is told apart by the callers,
// which know what they asked, and exits 75 there.
int request_failed(std::string_view command, std::string_view what, const kafka::error_report& e) {
  std::cerr << "streamt " << command << ": " << what << ": " << e.message << '\n';
  return engine::to_int(engine::exit_code::unavailable);
}

constexpr std::string_view open_transaction_advice =
    ": a transaction of the group is still open (an instance was stopped in the middle of one). "
    "The broker aborts it after the producer's transaction.timeout.ms, and the next start of the "
    "application ends it at once; try again then";

struct row {
  kafka::topic_partition partition;
  std::optional<std::int64_t> committed;
  std::optional<std::int64_t> end;
  std::string metadata;
};

// What offsets and status show: the group, its partitions, and the plan log.
struct fleet {
  kafka::group_description group;
  std::map<kafka::topic_partition, row> rows;
  std::string log_topic;
  bool log_exists = false;
  std::size_t claims = 0;
  std::optional<engine::session::logged_claim> standing;
};

std::optional<std::int64_t> lag(const row& r) {
  if (!r.committed || !r.end) return std::nullopt;
  return std::max<std::int64_t>(0, *r.end - *r.committed);
}

// Reads the group, every partition of every topic it has an offset in (and
// of --topic), and the application's plan log; an exit code on failure.
std::variant<fleet, int> gather(const kafka::group_admin& admin, const kafka_access& k,
                                const std::string& group, const arguments& a, std::string_view command) {
  const std::chrono::milliseconds timeout = k.timeout;
  fleet f;
  auto described = admin.describe(group, timeout);
  if (!described) return request_failed(command, "describing group '" + group + "'", described.error());
  f.group = *described;
  auto committed = admin.committed(group, timeout);
  if (!committed) {
    if (kafka::is_unstable_offsets(committed.error().info.code)) {
      std::cerr << "streamt " << command << ": group '" << group << "'" << open_transaction_advice << '\n';
      return engine::to_int(engine::exit_code::temporary_failure);
    }
    return request_failed(command, "reading the offsets of group '" + group + "'", committed.error());
  }
  // A partition the group never committed shows as such.
  std::map<kafka::topic_partition, row>& rows = f.rows;
  std::map<std::string, bool> topics;
  for (const kafka::group_offset& g : *committed) {
    rows[g.partition] = row{g.partition, g.offset, std::nullopt, g.metadata};
    topics[g.partition.topic] = true;
  }
  if (auto t = a.get("--topic")) topics[*t] = true;
  for (const auto& [topic, _] : topics) {
    auto count = admin.partition_count(topic, timeout);
    if (!count)
      return request_failed(command, "reading the partitions of topic '" + topic + "'", count.error());
    for (std::int32_t p = 0; p < *count; ++p) {
      row& r = rows[{topic, p}];
      r.partition = {topic, p};
      auto end = admin.end_offset(r.partition, timeout);
      if (!end) return request_failed(command, "reading the end of " + where(r.partition), end.error());
      r.end = *end;
    }
  }
  // The plan log, if an instance ever made it.
  f.log_topic = engine::session::plan_log_topic(group);
  auto log = kafka::read_log(k.bootstrap_servers, k.user, f.log_topic, engine::session::max_plan_log_records,
                             false, timeout);
  if (!log) {
    if (kafka::is_unknown_topic_or_partition(log.error().info.code)) return f;
    return request_failed(command, "reading the plan log " + f.log_topic, log.error());
  }
  f.log_exists = true;
  const std::vector<engine::session::logged_claim> claims =
      engine::session::claims_in(engine::log_of(std::move(log->records)));
  f.claims = claims.size();
  f.standing = engine::session::standing_claim(claims);
  return f;
}

// A plan as the engine's text log lines show it.
std::string short_digest(const std::string& d) { return std::string(engine::short_digest(d)); }

boost::json::value plan_log_json(const fleet& f) {
  boost::json::object log;
  log["topic"] = f.log_topic;
  log["exists"] = f.log_exists;
  log["claims"] = f.claims;
  if (f.standing) {
    boost::json::object s;
    s["plan"] = f.standing->claim.plan.plan_digest;
    s["instance"] = f.standing->claim.plan.instance;
    s["offset"] = f.standing->offset;
    s["replaces"] = f.standing->claim.replaces.empty() ? boost::json::value(nullptr)
                                                       : boost::json::value(f.standing->claim.replaces);
    log["standing"] = std::move(s);
  } else {
    log["standing"] = nullptr;
  }
  return log;
}

std::string plan_log_line(const fleet& f) {
  if (!f.log_exists) return "plan log " + f.log_topic + ": none yet (no instance has started)";
  if (!f.standing) return "plan log " + f.log_topic + ": no plan holds the application";
  const engine::session::logged_claim& s = *f.standing;
  return "plan log " + f.log_topic + ": plan " + short_digest(s.claim.plan.plan_digest) +
         " holds the application since offset " + std::to_string(s.offset) + " (instance " +
         s.claim.plan.instance + ")" +
         (s.claim.replaces.empty() ? std::string() : ", replacing plan " + short_digest(s.claim.replaces)) +
         "; " + std::to_string(f.claims) + " claim" + (f.claims == 1 ? "" : "s");
}

int show(const kafka::group_admin& admin, const kafka_access& k, const std::string& group,
         const arguments& a) {
  std::variant<fleet, int> gathered = gather(admin, k, group, a, "offsets");
  if (const int* failed = std::get_if<int>(&gathered)) return *failed;
  const fleet& f = std::get<fleet>(gathered);
  const kafka::group_description* described = &f.group;
  const std::map<kafka::topic_partition, row>& rows = f.rows;
  if (a.get("--format").value_or("text") == "json") {
    boost::json::object out;
    out["group"] = group;
    out["state"] = described->state;
    out["members"] = described->members;
    boost::json::array parts;
    for (const auto& [_, r] : rows) {
      boost::json::object o;
      o["topic"] = r.partition.topic;
      o["partition"] = r.partition.partition;
      o["committed"] = r.committed ? boost::json::value(*r.committed) : nullptr;
      o["end"] = r.end ? boost::json::value(*r.end) : nullptr;
      o["lag"] = lag(r) ? boost::json::value(*lag(r)) : nullptr;
      // Which plan committed this offset, and which instance ran it (the
      // lineage engine/lineage.hpp writes); null for metadata not ours.
      const std::optional<engine::lineage> l = engine::from_commit_metadata(r.metadata);
      o["plan"] = l ? boost::json::value(l->plan_digest) : nullptr;
      o["instance"] = l ? boost::json::value(l->instance) : nullptr;
      o["metadata"] = r.metadata;
      parts.push_back(std::move(o));
    }
    out["partitions"] = std::move(parts);
    out["plan_log"] = plan_log_json(f);
    std::cout << boost::json::serialize(out) << '\n';
    return 0;
  }
  std::cout << "group " << group << ": " << described->state << ", " << described->members << " member"
            << (described->members == 1 ? "" : "s") << '\n'
            << plan_log_line(f) << '\n';
  if (rows.empty()) {
    std::cout << "no committed offsets (the application never committed, or its group expired); "
                 "--topic TOPIC lists a topic's partitions anyway\n";
    return 0;
  }
  std::size_t width = 5;
  for (const auto& [p, _] : rows) width = std::max(width, p.topic.size());
  const auto cell = [](const std::optional<std::int64_t>& v) {
    return v ? std::to_string(*v) : std::string("-");
  };
  std::ostringstream os;
  os << std::left << std::setw(static_cast<int>(width)) << "TOPIC"
     << "  PARTITION  COMMITTED        END        LAG  PLAN                 INSTANCE\n";
  for (const auto& [_, r] : rows) {
    os << std::left << std::setw(static_cast<int>(width)) << r.partition.topic << std::right << "  "
       << std::setw(9) << r.partition.partition << "  " << std::setw(9) << cell(r.committed) << "  "
       << std::setw(9) << cell(r.end) << "  " << std::setw(9) << cell(lag(r)) << "  ";
    // The plan shortened as the log shows it (--format json has it whole);
    // metadata that is not a streamt lineage is shown as it is.
    if (const std::optional<engine::lineage> l = engine::from_commit_metadata(r.metadata))
      os << std::left << std::setw(19) << short_digest(l->plan_digest) << "  "
         << (l->instance.empty() ? "-" : l->instance);
    else
      os << (r.metadata.empty() ? "-" : "(other metadata) " + r.metadata);
    os << '\n';
  }
  std::cout << os.str();
  return 0;
}

// A group without a committed offset has no lag to judge the application
// by: status says why on stderr and exits 4, so a gate that runs it cannot
// pass a misspelled application id, or one that never committed.
int no_committed_offsets(const fleet& f, const std::string& group) {
  if (f.group.members == 0 && !f.log_exists)
    say_error("status", "no application '" + group +
                            "' has run against these brokers: its group has no member and no committed "
                            "offset, and there is no plan log; check the APPLICATION_ID's spelling and "
                            "--bootstrap-servers");
  else
    say_error("status", "application '" + group + "' has no committed offset yet (group " + f.group.state +
                            ", " + std::to_string(f.group.members) + " member" +
                            (f.group.members == 1 ? "" : "s") +
                            "): it has not committed its first transaction, or its offsets expired "
                            "(the broker's offsets.retention.minutes); check its log");
  return engine::to_int(engine::exit_code::no_evidence);
}

// --silent-after-ms: how long an instance with records waiting may go
// without a commit before status says it has not been heard from.
constexpr std::int64_t default_silent_after_ms = 30000;
constexpr std::int64_t max_silent_after_ms = 86400000;

// "0.3 s ago", "47 s ago", "4 min ago": short, for a terminal; below 10 s
// with a tenth, where a healthy instance's last commit lies.
std::string seconds_ago(std::chrono::milliseconds d) {
  const std::int64_t ms = d.count();
  if (ms >= 10000) return engine::roughly(std::chrono::duration_cast<std::chrono::seconds>(d)) + " ago";
  return std::to_string(ms / 1000) + '.' + std::to_string((ms % 1000) / 100) + " s ago";
}

// streamt status: the fleet in a few lines. Which plan holds the
// application (the plan log), and for each plan that committed partitions:
// which, by which instances, and their lag.
int status(const kafka::group_admin& admin, const kafka_access& k, const std::string& group,
           const arguments& a, std::chrono::milliseconds silent_after) {
  std::variant<fleet, int> gathered = gather(admin, k, group, a, "status");
  if (const int* failed = std::get_if<int>(&gathered)) return *failed;
  const fleet& f = std::get<fleet>(gathered);
  struct by_plan {
    std::vector<kafka::topic_partition> partitions;
    std::map<std::string, bool> instances;
    std::int64_t lag = 0;
  };
  // Keyed by digest; "" for partitions without a streamt lineage.
  std::map<std::string, by_plan> plans;
  std::int64_t total_lag = 0;
  bool committed = false;
  std::vector<engine::committed_partition> by_instance;
  for (const auto& [p, r] : f.rows) {
    // A --topic partition the group never committed is listed, but is no
    // committed offset.
    committed = committed || r.committed.has_value();
    const std::optional<engine::commit_metadata> m = engine::read_commit_metadata(r.metadata);
    const engine::lineage* l = m ? &m->plan : nullptr;
    if (l && r.committed) by_instance.push_back({where(p), l->instance, m->at, lag(r).value_or(0)});
    by_plan& b = plans[l ? l->plan_digest : std::string()];
    b.partitions.push_back(p);
    if (l && !l->instance.empty()) b.instances[l->instance] = true;
    b.lag += lag(r).value_or(0);
    total_lag += lag(r).value_or(0);
  }
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  const std::vector<engine::instance_report> instances =
      engine::report_instances(by_instance, now.count(), silent_after);
  // How long records have waited on a partition without a commit: while the
  // group rebalances, how long the partitions that move have stood still.
  const std::optional<std::chrono::milliseconds> longest_wait =
      engine::longest_wait(by_instance, now.count());
  if (a.get("--format").value_or("text") == "json") {
    boost::json::object out;
    out["application"] = group;
    out["state"] = f.group.state;
    out["rebalancing"] = f.group.rebalancing;
    out["members"] = f.group.members;
    out["plan_log"] = plan_log_json(f);
    out["committed"] = committed;
    out["lag"] = total_lag;
    boost::json::array list;
    for (const auto& [digest, b] : plans) {
      boost::json::object o;
      o["plan"] = digest.empty() ? boost::json::value(nullptr) : boost::json::value(digest);
      boost::json::array parts;
      for (const kafka::topic_partition& p : b.partitions) parts.emplace_back(where(p));
      o["partitions"] = std::move(parts);
      boost::json::array instances;
      for (const auto& [i, _] : b.instances) instances.emplace_back(i);
      o["instances"] = std::move(instances);
      o["lag"] = b.lag;
      list.push_back(std::move(o));
    }
    out["plans"] = std::move(list);
    boost::json::array who;
    for (const engine::instance_report& i : instances) {
      boost::json::object o;
      o["instance"] = i.instance;
      boost::json::array parts;
      for (const std::string& w : i.partitions) parts.emplace_back(w);
      o["partitions"] = std::move(parts);
      o["lag"] = i.lag;
      o["last_commit_ms_ago"] = i.since_last_commit ? boost::json::value(i.since_last_commit->count())
                                                    : boost::json::value(nullptr);
      o["silent"] = i.silent;
      who.push_back(std::move(o));
    }
    out["instances"] = std::move(who);
    out["longest_wait_ms"] =
        longest_wait ? boost::json::value(longest_wait->count()) : boost::json::value(nullptr);
    std::cout << boost::json::serialize(out) << '\n';
    return committed ? 0 : no_committed_offsets(f, group);
  }
  std::cout << "application " << group << ": group " << f.group.state << ", " << f.group.members << " member"
            << (f.group.members == 1 ? "" : "s") << ", lag " << total_lag << '\n'
            << plan_log_line(f) << '\n';
  for (const auto& [digest, b] : plans) {
    std::cout << (digest.empty() ? std::string("no streamt plan") : "plan " + short_digest(digest));
    if (f.standing && digest == f.standing->claim.plan.plan_digest) std::cout << " (holds the application)";
    std::cout << ": " << b.partitions.size() << " partition" << (b.partitions.size() == 1 ? "" : "s") << " (";
    for (std::size_t i = 0; i < b.partitions.size(); ++i)
      std::cout << (i ? " " : "") << where(b.partitions[i]);
    std::cout << "), lag " << b.lag;
    if (!b.instances.empty()) {
      std::cout << ", committed by instance" << (b.instances.size() == 1 ? " " : "s ");
      bool first = true;
      for (const auto& [i, _] : b.instances) {
        std::cout << (first ? "" : " ") << i;
        first = false;
      }
    }
    std::cout << '\n';
  }
  for (const engine::instance_report& i : instances) {
    std::cout << "instance " << i.instance << ": ";
    // A long list of partitions says less than its length.
    if (i.partitions.size() <= 8)
      for (std::size_t n = 0; n < i.partitions.size(); ++n) std::cout << (n ? " " : "") << i.partitions[n];
    else
      std::cout << i.partitions.size() << " partitions";
    std::cout << ", lag " << i.lag;
    if (i.since_last_commit) std::cout << ", last commit " << seconds_ago(*i.since_last_commit);
    if (i.silent) std::cout << ": NOT HEARD FROM (stopped, hung or cut off)";
    std::cout << '\n';
  }
  if (f.group.rebalancing) {
    std::cout << "the group is rebalancing";
    if (longest_wait)
      std::cout << "; records have waited up to " << seconds_ago(*longest_wait)
                << " for a commit on the partitions it moves";
    std::cout << '\n';
  }
  return committed ? 0 : no_committed_offsets(f, group);
}

int skip(const kafka::group_admin& admin, const std::string& group, const skip_target& target,
         std::chrono::milliseconds timeout) {
  auto described = admin.describe(group, timeout);
  if (!described)
    return request_failed("offsets skip", "describing group '" + group + "'", described.error());
  if (!described->inactive()) {
    std::cerr << "streamt offsets skip: group '" << group << "' has " << described->members << " member"
              << (described->members == 1 ? "" : "s") << " (" << described->state
              << "): stop every instance of the application first; nothing changed\n";
    return engine::to_int(engine::exit_code::temporary_failure);
  }
  auto committed = admin.committed(group, timeout);
  if (!committed) {
    if (kafka::is_unstable_offsets(committed.error().info.code)) {
      std::cerr << "streamt offsets skip: group '" << group << "'" << open_transaction_advice
                << "; nothing changed\n";
      return engine::to_int(engine::exit_code::temporary_failure);
    }
    return request_failed("offsets skip", "reading the offsets of group '" + group + "'", committed.error());
  }
  const kafka::group_offset* found = nullptr;
  for (const kafka::group_offset& g : *committed)
    if (g.partition == target.partition) found = &g;
  if (!found) {
    std::cerr << "streamt offsets skip: group '" << group << "' has no committed offset for "
              << where(target.partition) << " ('streamt offsets " << group
              << "' lists what it has); nothing changed\n";
    return engine::to_int(engine::exit_code::config);
  }
  if (found->offset != target.offset) {
    // Moving from anywhere else would drop records no one has seen, or
    // process one twice: only the offset the group stopped at is skipped.
    std::cerr << "streamt offsets skip: the committed offset of " << where(target.partition) << " is "
              << found->offset << ", not " << target.offset << ": the group does not stand at that record "
              << "(it moved on, or the offset is mistyped); nothing changed\n";
    return engine::to_int(engine::exit_code::config);
  }
  auto end = admin.end_offset(target.partition, timeout);
  if (!end)
    return request_failed("offsets skip", "reading the end of " + where(target.partition), end.error());
  if (target.offset >= *end) {
    std::cerr << "streamt offsets skip: " << where(target.partition) << " ends at " << *end
              << ": there is no record at " << target.offset << " to skip; nothing changed\n";
    return engine::to_int(engine::exit_code::config);
  }
  // The commit's metadata goes on with the new offset.
  kafka::group_offset moved = *found;
  moved.offset = target.offset + 1;
  if (kafka::error_report e = admin.alter(group, {moved}, timeout); e.failed()) {
    // The coordinator refuses a commit from outside a live group: an
    // instance started since the check above.
    if (kafka::is_group_in_use(e.info.code)) {
      std::cerr << "streamt offsets skip: the coordinator refused the move (" << e.message
                << "): an instance of the application runs again; stop it first\n";
      return engine::to_int(engine::exit_code::temporary_failure);
    }
    return request_failed("offsets skip", "moving the offset of " + where(target.partition), e);
  }
  std::cout << "group " << group << ": " << where(target.partition) << " moved from " << target.offset
            << " to " << moved.offset << "; the record at " << target.offset << " will not be processed\n";
  return 0;
}

}  // namespace

int cmd_offsets(std::span<char* const> args) {
  option_spec spec{{"--bootstrap-servers", "-X", "--config", "--topic", "--format", "--timeout-ms"},
                   {"--help"},
                   {"-X"},
                   {{"--bootstrap-server", "--bootstrap-servers"}, {"-b", "--bootstrap-servers"}}};
  arguments a;
  if (auto done = parse_command("offsets", args, spec, help, a)) return *done;
  const bool skipping = !a.positionals.empty() && a.positionals[0] == "skip";
  if (skipping ? a.positionals.size() != 3 : a.positionals.size() != 1)
    return usage_error("offsets", skipping ? "skip takes APPLICATION_ID and TOPIC/PARTITION@OFFSET"
                                           : "expected one APPLICATION_ID");
  const std::string& group = a.positionals[skipping ? 1 : 0];
  std::optional<skip_target> target;
  if (skipping) {
    target = parse_target(a.positionals[2]);
    if (!target)
      return usage_error("offsets", "'" + a.positionals[2] +
                                        "' is not TOPIC/PARTITION@OFFSET (as the exit-65 line names the "
                                        "record: orders/3@1042)");
  }
  if (auto f = a.get("--format"); f && *f != "text" && *f != "json")
    return usage_error("offsets", "--format takes text or json");
  if (skipping && a.get("--topic"))
    return usage_error("offsets", "--topic is for showing offsets, not for skip");
  std::variant<kafka_access, int> access = read_kafka_access("offsets", a);
  if (const int* failed = std::get_if<int>(&access)) return *failed;
  const kafka_access& k = std::get<kafka_access>(access);
  auto admin = kafka::group_admin::connect(k.bootstrap_servers, k.user);
  if (!admin) {
    std::cerr << "streamt offsets: " << admin.error().message << '\n';
    return engine::to_int(engine::exit_code::config);
  }
  if (skipping) return skip(*admin, group, *target, k.timeout);
  return show(*admin, k, group, a);
}

int cmd_status(std::span<char* const> args) {
  constexpr std::string_view status_help =
      "usage: streamt status APPLICATION_ID --bootstrap-servers HOSTS [options]\n"
      "\n"
      "Summarise a fleet running one application id: which plan holds the application\n"
      "(its plan log), and for each plan that committed partitions, which partitions,\n"
      "the instances that committed them, and their lag. Reads only; changes nothing.\n"
      "\n"
      "  --bootstrap-servers HOSTS   Kafka brokers (also --bootstrap-server or -b)\n"
      "  -X KEY=VALUE                a librdkafka setting (repeatable): TLS, SASL\n"
      "  --config FILE               librdkafka settings in Java properties syntax\n"
      "  --topic TOPIC               also count TOPIC's partitions the group has no offset for\n"
      "  --format text|json          text (default), or one JSON object\n"
      "  --timeout-ms N              bound on each request (default 30000; 1..3600000)\n"
      "  --silent-after-ms N         an instance with records waiting and no commit for\n"
      "                              this long is named as not heard from (default 30000;\n"
      "                              1000..86400000)\n"
      "\n"
      "exit codes: 0 done: the group has committed offsets; 4 no committed offset (no\n"
      "            such application, or it never committed): nothing to judge by;\n"
      "            2 usage; 69 brokers unreachable or a request failed;\n"
      "            75 a transaction of the group is open (try again); 78 a setting refused;\n"
      "            74 standard output not writable\n";
  option_spec spec{
      {"--bootstrap-servers", "-X", "--config", "--topic", "--format", "--timeout-ms", "--silent-after-ms"},
      {"--help"},
      {"-X"},
      {{"--bootstrap-server", "--bootstrap-servers"}, {"-b", "--bootstrap-servers"}}};
  arguments a;
  if (auto done = parse_command("status", args, spec, status_help, a)) return *done;
  if (a.positionals.size() != 1) return usage_error("status", "expected one APPLICATION_ID");
  std::chrono::milliseconds silent_after{default_silent_after_ms};
  if (auto v = a.get("--silent-after-ms")) {
    std::optional<std::int64_t> n = whole_number<std::int64_t>(*v, 1000, max_silent_after_ms);
    if (!n) return range_error("status", "--silent-after-ms", "milliseconds", 1000, max_silent_after_ms, *v);
    silent_after = std::chrono::milliseconds(*n);
  }
  if (auto f = a.get("--format"); f && *f != "text" && *f != "json")
    return usage_error("status", "--format takes text or json");
  std::variant<kafka_access, int> access = read_kafka_access("status", a);
  if (const int* failed = std::get_if<int>(&access)) return *failed;
  const kafka_access& k = std::get<kafka_access>(access);
  auto admin = kafka::group_admin::connect(k.bootstrap_servers, k.user);
  if (!admin) {
    std::cerr << "streamt status: " << admin.error().message << '\n';
    return engine::to_int(engine::exit_code::config);
  }
  return status(*admin, k, a.positionals[0], a, silent_after);
}

}  // namespace streamt::cli
