// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// streamt diff: a plan change previewed on live data (issue 18). Both plans
// run over the same records of the source topic, read without a consumer
// group, and what would change is reported; nothing is written to Kafka and
// nothing is committed (contract §6, operations.md "Updating a fleet").

#include "engine/plan_diff.hpp"
#include "kafka/group_admin.hpp"
#include "kafka/partition_reader.hpp"
#include "plan/plan_json.hpp"
#include "tools/streamt/cli.hpp"
#include "tools/streamt/registry_cli.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <variant>

namespace streamt::cli {

namespace {

constexpr std::uint64_t default_max_records = 100'000;
constexpr std::uint64_t max_max_records = 1'000'000'000;
constexpr std::size_t default_max_diffs = 20;
constexpr std::size_t max_max_diffs = 10'000;
constexpr std::uint64_t max_last_records = 1'000'000'000;

constexpr std::string_view help =
    "usage: streamt diff OLD_PLAN NEW_PLAN --bootstrap-servers HOSTS [options]\n"
    "\n"
    "Preview a plan change on live data, read-only: read records of the source\n"
    "topic (read_committed, outside any consumer group, committing nothing),\n"
    "run both plans over each as 'run' would, and report how many records each\n"
    "plan passes, filters and finds invalid, and which records differ: passed by\n"
    "one plan only, passed by both with different values, or invalid for one\n"
    "plan only. The first differing records are printed like replay's envelopes:\n"
    "    {\"topic\":T,\"partition\":P,\"offset\":O,\"key\":K,\"difference\":KIND,\n"
    "     \"old\":VALUE|null,\"new\":VALUE|null}\n"
    "When either plan is routed (INSERT INTO), outputs are compared route by\n"
    "route, matched by name (the sink topic, SINK#K when several statements write\n"
    "it; a SELECT is one route named by its sink): a difference names its\n"
    "\"route\", and each output's key (\"old_key\", \"new_key\") is compared with its\n"
    "value. A route of one plan only has each output old_only or new_only; a\n"
    "record no route of either plan takes is no difference. The report counts\n"
    "each route's outputs and differences.\n"
    "Both plans must read the same source topic. Partitions are read one after\n"
    "the other, each from its start position up to its end (last stable offset)\n"
    "as it was when diff started.\n"
    "\n"
    "  --bootstrap-servers HOSTS   Kafka brokers (also --bootstrap-server or -b)\n"
    "  --from WHERE                earliest (default): every partition from its log start;\n"
    "                              committed: from where OLD_PLAN's application stands\n"
    "                              (its group's committed offsets; the log start where none);\n"
    "                              last:N: each partition's last N offsets (1..1000000000),\n"
    "                              recent records even once the application has caught up;\n"
    "                              TOPIC/PARTITION@OFFSET[,...]: those partitions only\n"
    "  --max-records N             read at most N records in all (default 100000; 1..1000000000)\n"
    "  --max-diffs N               print the first N differing records (default 20; 0..10000)\n"
    "  --format text|json          a summary (default), or one JSON object\n"
    "  -X KEY=VALUE                a librdkafka setting (repeatable): TLS, SASL\n"
    "  --config FILE               librdkafka settings in Java properties syntax\n"
    "  --timeout-ms N              bound on each request and on a wait for records\n"
    "                              (default 30000; 1..3600000)\n"
    "  --schema-registry URL       the Schema Registry of a plan that reads Avro (each\n"
    "                              writer schema is fetched once per id)\n"
    "  --registry-config FILE      its client settings in Java properties syntax\n"
    "An Avro sink's outputs are compared, and printed, as the JSON values of their\n"
    "fields (what the plan would write with a JSON sink): no sink schema is registered.\n"
    "\n"
    "The report says how many records were compared on each partition.\n"
    "\n"
    "exit codes: 0 no record differs; 3 some records differ; 4 no record compared, so\n"
    "            nothing was tested (each partition was at its end where the read\n"
    "            started: try --from last:N); 1 a plan refused, or the plans read\n"
    "            different topics; 2 usage; 69 brokers unreachable, the topic\n"
    "            missing or a request failed; 75 OLD_PLAN's group has an open transaction\n"
    "            (--from committed); 74 writing the report failed; 78 a setting refused,\n"
    "            or a --from position (or a committed offset) outside the topic; with\n"
    "            a registry: 69 it is unavailable, 78 a registry setting refused\n";

std::string where(const kafka::topic_partition& p) { return p.topic + "/" + std::to_string(p.partition); }

enum class start_kind { earliest, committed, last, positions };
struct start_spec {
  start_kind kind = start_kind::earliest;
  std::uint64_t last = 0;                  // for start_kind::last: how many offsets
  std::vector<record_position> positions;  // for start_kind::positions, in partition order
};

constexpr std::string_view from_forms =
    "--from takes earliest, committed, last:N, or TOPIC/PARTITION@OFFSET[,...] (orders/0@1042,orders/1@977)";

// --from's value, or why it is none.
std::optional<std::string> parse_from(const std::string& text, start_spec& out) {
  if (text == "earliest") return std::nullopt;
  if (text == "committed") {
    out.kind = start_kind::committed;
    return std::nullopt;
  }
  if (constexpr std::string_view last = "last:"; text.starts_with(last)) {
    const std::string n = text.substr(last.size());
    auto v = whole_number<std::uint64_t>(n, 1, max_last_records);
    if (!v) return range_message("--from last:N", "records", 1, max_last_records, n);
    out.kind = start_kind::last;
    out.last = *v;
    return std::nullopt;
  }
  out.kind = start_kind::positions;
  std::map<std::int32_t, record_position> by_partition;
  for (std::size_t from = 0;;) {
    const std::size_t comma = text.find(',', from);
    const std::string item = text.substr(from, comma - from);
    auto p = parse_record_position(item, std::numeric_limits<std::int64_t>::max());
    if (!p) return std::string(from_forms) + "; '" + item + "' is none of them";
    if (by_partition.count(p->partition.partition))
      return "--from names partition " + std::to_string(p->partition.partition) + " twice";
    if (!by_partition.empty() && by_partition.begin()->second.partition.topic != p->partition.topic)
      return "--from names two topics ('" + by_partition.begin()->second.partition.topic + "' and '" +
             p->partition.topic + "'); diff reads one, the plans' source topic";
    by_partition[p->partition.partition] = std::move(*p);
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  for (auto& [_, p] : by_partition) out.positions.push_back(std::move(p));
  return std::nullopt;
}

// One partition's part of the read: where it starts, the end fixed at the
// start, and how far it got.
struct partition_range {
  kafka::topic_partition partition;
  std::int64_t from = 0;
  std::int64_t end = 0;
  std::int64_t read_to = 0;
  bool complete() const noexcept { return read_to >= end; }
};

int unavailable(std::string_view what, const kafka::error_report& e) {
  std::string message = std::string(what) + ": " + e.message;
  if (kafka::is_unknown_topic(e.info.code))
    message +=
        " (the topic does not exist, or a broker with ACLs hides it from this principal: "
        "it needs Describe and Read on it)";
  say_error("diff", message);
  return engine::to_int(engine::exit_code::unavailable);
}

int refused_position(const std::string& message) {
  say_error("diff", message);
  return engine::to_int(engine::exit_code::config);
}

// The start of each partition to read, with its end; or the exit code after
// saying why there is none.
std::variant<std::vector<partition_range>, int> plan_ranges(const kafka::partition_reader& reader,
                                                            const std::string& topic, const start_spec& from,
                                                            const std::string& group,
                                                            const std::string& servers,
                                                            const kafka::settings& user,
                                                            std::chrono::milliseconds timeout) {
  auto count = reader.partition_count(topic, timeout);
  if (!count) return unavailable("reading the partitions of topic '" + topic + "'", count.error());
  std::map<std::int32_t, std::optional<std::int64_t>> starts;  // nullopt: the log start
  if (from.kind == start_kind::positions) {
    for (const record_position& p : from.positions) {
      if (p.partition.partition >= *count)
        return refused_position("--from " + where(p.partition) + "@" + std::to_string(p.offset) +
                                ": topic '" + topic + "' has " + std::to_string(*count) + " partition" +
                                (*count == 1 ? "" : "s"));
      starts[p.partition.partition] = p.offset;
    }
  } else {
    for (std::int32_t i = 0; i < *count; ++i) starts[i] = std::nullopt;
  }
  if (from.kind == start_kind::committed) {
    // The group is only read, as 'streamt offsets' reads it: asking for its
    // offsets neither joins it nor commits.
    auto admin = kafka::group_admin::connect(servers, user);
    if (!admin) return refused_position(admin.error().message);
    auto committed = admin->committed(group, timeout);
    if (!committed) {
      if (kafka::is_unstable_offsets(committed.error().info.code)) {
        say_error("diff", "group '" + group +
                              "' has an open transaction (an instance was stopped in the middle of one), so "
                              "its committed offsets are not settled yet; try again once the application "
                              "runs again or the broker has aborted it (transaction.timeout.ms)");
        return engine::to_int(engine::exit_code::temporary_failure);
      }
      return unavailable("reading the offsets of group '" + group + "'", committed.error());
    }
    for (const kafka::group_offset& g : *committed)
      if (g.partition.topic == topic && starts.count(g.partition.partition))
        starts[g.partition.partition] = g.offset;
  }
  std::vector<partition_range> ranges;
  for (const auto& [partition, start] : starts) {
    const kafka::topic_partition tp{topic, partition};
    auto w = reader.query_watermarks(tp, timeout);
    if (!w) return unavailable("reading the start and end of " + where(tp), w.error());
    const std::int64_t offset = from.kind == start_kind::last
                                    ? engine::last_records_start(w->low, w->high, from.last)
                                    : start.value_or(w->low);
    // The engine refuses a committed offset outside the log too (exit 78):
    // reading from elsewhere would preview records the plan would not see.
    if (offset < w->low || offset > w->high) {
      const std::string what = (from.kind == start_kind::committed ? "the committed offset " : "--from ") +
                               where(tp) + "@" + std::to_string(offset);
      return refused_position(
          offset < w->low ? what + " is before the partition's log start " + std::to_string(w->low) +
                                " (retention deleted the records before it); give --from earliest or a "
                                "position from there"
                          : what + " is past the partition's end " + std::to_string(w->high) +
                                "; give a position up to it");
    }
    ranges.push_back({tp, offset, w->high, offset});
  }
  return ranges;
}

std::uint64_t records_on(const engine::plan_comparison& c, const kafka::topic_partition& p) {
  const auto found = c.records_by_partition().find(p.partition);
  return found == c.records_by_partition().end() ? 0 : found->second;
}

boost::json::value outcome_json(const engine::plan_outcome& o) {
  if (o.output) return boost::json::string(*o.output);
  return nullptr;
}

boost::json::value optional_json(const std::optional<std::string>& s) {
  return s ? boost::json::value(boost::json::string(*s)) : boost::json::value(nullptr);
}

// A routed comparison's envelope adds "route" (null for invalid_in_one, a
// record's difference) and each output's key, "old_key"/"new_key", where
// that plan has an output on the route.
boost::json::object envelope(const engine::record_difference& d, bool routed) {
  boost::json::object e;
  e["topic"] = d.topic;
  e["partition"] = d.partition;
  e["offset"] = d.offset;
  e["key"] = optional_json(d.key);
  if (routed) e["route"] = optional_json(d.route);
  e["difference"] = engine::to_string(d.kind);
  e["old"] = outcome_json(d.old_outcome);
  e["new"] = outcome_json(d.new_outcome);
  if (routed && d.old_outcome.has_output()) e["old_key"] = optional_json(d.old_outcome.key);
  if (routed && d.new_outcome.has_output()) e["new_key"] = optional_json(d.new_outcome.key);
  // "old": null is no output as well as a null value: a null value says so.
  if (d.old_outcome.tombstone) e["old_tombstone"] = true;
  if (d.new_outcome.tombstone) e["new_tombstone"] = true;
  for (const auto& [name, o] :
       {std::pair{"old_invalid", &d.old_outcome}, std::pair{"new_invalid", &d.new_outcome}})
    if (o->invalid_code)
      e[name] = boost::json::object{{"code", *o->invalid_code}, {"message", o->invalid_message.value_or("")}};
  return e;
}

struct loaded_plan {
  std::string path;
  plan::plan p;
  std::string digest;
};

// A routed comparison adds each plan's route names ("routes") and its
// unrouted topic (null: it drops what no route takes).
boost::json::object tally_json(const loaded_plan& l, const engine::plan_tally& t, bool routed) {
  boost::json::object o{{"plan", l.path},
                        {"digest", l.digest},
                        {"application_id", l.p.identity.application_id},
                        {"sink_topic", l.p.identity.sink_topic},
                        {"sink_format", plan::to_string(l.p.sink.format)},
                        {"passed", t.passed},
                        {"filtered", t.filtered},
                        {"tombstones", t.tombstones},
                        {"invalid", t.invalid}};
  if (routed) {
    boost::json::array names;
    const std::vector<plan::route> routes = plan::routes_of(l.p);
    for (std::size_t i = 0; i < routes.size(); ++i) names.emplace_back(plan::route_name(routes, i));
    o["routes"] = std::move(names);
    o["unrouted_topic"] =
        l.p.unrouted_topic.empty() ? boost::json::value(nullptr) : boost::json::value(l.p.unrouted_topic);
  }
  return o;
}

void print_json(const loaded_plan& old_plan, const loaded_plan& new_plan, const std::string& from,
                const std::vector<partition_range>& ranges, const engine::plan_comparison& c) {
  boost::json::object out;
  out["source_topic"] = old_plan.p.identity.source_topic;
  out["from"] = from;
  out["records"] = c.records();
  bool complete = true;
  boost::json::array parts;
  for (const partition_range& r : ranges) {
    complete = complete && r.complete();
    parts.push_back(boost::json::object{{"partition", r.partition.partition},
                                        {"from", r.from},
                                        {"end", r.end},
                                        {"read_to", r.read_to},
                                        {"complete", r.complete()},
                                        {"records", records_on(c, r.partition)}});
  }
  out["complete"] = complete;
  out["partitions"] = std::move(parts);
  out["old"] = tally_json(old_plan, c.old_tally(), c.routed());
  out["new"] = tally_json(new_plan, c.new_tally(), c.routed());
  const engine::difference_counts& d = c.differences();
  boost::json::object differences{{"total", d.total()},
                                  {"old_only", d.old_only},
                                  {"new_only", d.new_only},
                                  {"changed", d.changed},
                                  {"invalid_in_one", d.invalid_in_one}};
  if (c.routed()) {
    differences["records"] = d.records;
    boost::json::array routes;
    for (const engine::route_tally& t : c.routes())
      routes.push_back(boost::json::object{{"route", t.name},
                                           {"in_old", t.in_old},
                                           {"in_new", t.in_new},
                                           {"old_outputs", t.old_outputs},
                                           {"new_outputs", t.new_outputs},
                                           {"old_only", t.old_only},
                                           {"new_only", t.new_only},
                                           {"changed", t.changed}});
    out["routes"] = std::move(routes);
  }
  out["differences"] = std::move(differences);
  boost::json::array first;
  for (const engine::record_difference& r : c.kept()) first.push_back(envelope(r, c.routed()));
  out["first_differences"] = std::move(first);
  std::cout << boost::json::serialize(out) << '\n';
}

// A routed comparison's lines per route name, after the plans' counts:
//   routes (outputs of each plan):
//     big: old 5, new 4; 1 differs (1 old only, 0 new only, 0 changed)
//     eu: new plan only, new 3; 3 differ (0 old only, 3 new only, 0 changed)
void print_routes(std::ostream& os, const engine::plan_comparison& c) {
  os << "routes (outputs of each plan):\n";
  for (const engine::route_tally& t : c.routes()) {
    os << "  " << t.name << ": ";
    if (!t.in_new)
      os << "old plan only, old " << t.old_outputs;
    else if (!t.in_old)
      os << "new plan only, new " << t.new_outputs;
    else
      os << "old " << t.old_outputs << ", new " << t.new_outputs;
    const std::uint64_t n = t.differences();
    if (n == 0) {
      os << "; no difference\n";
      continue;
    }
    os << "; " << n << (n == 1 ? " differs (" : " differ (") << t.old_only << " old only, " << t.new_only
       << " new only, " << t.changed << " changed)\n";
  }
}

void print_text(const loaded_plan& old_plan, const loaded_plan& new_plan, const std::string& from,
                const std::vector<partition_range>& ranges, const engine::plan_comparison& c,
                std::uint64_t max_records) {
  std::ostringstream os;
  os << "old: " << old_plan.path << " (" << old_plan.digest << ")\n"
     << "new: " << new_plan.path << " (" << new_plan.digest << ")\n";
  // Avro outputs are compared as the JSON of their values: a change of the
  // sink's format alone is no difference there, so it is said here.
  if (old_plan.p.sink.format == plan::sink_format::avro || new_plan.p.sink.format == plan::sink_format::avro)
    os << "sink format: old " << plan::to_string(old_plan.p.sink.format) << ", new "
       << plan::to_string(new_plan.p.sink.format) << " (Avro outputs compared as the JSON of their values)\n";
  // The counts come after the partitions, on the "compared" line.
  os << "read " << old_plan.p.identity.source_topic << " from " << from << ":\n";
  bool complete = true;
  for (const partition_range& r : ranges) {
    complete = complete && r.complete();
    os << "  partition " << r.partition.partition << ": ";
    if (r.complete())
      os << "from offset " << r.from << " to its end, " << r.end << '\n';
    else if (r.read_to == r.from)
      os << "not read (--max-records " << max_records << " reached first; it holds offsets " << r.from
         << " to " << r.end << ")\n";
    else
      os << "from offset " << r.from << " to " << r.read_to << ", short of its end " << r.end
         << " (--max-records " << max_records << " reached)\n";
  }
  if (ranges.empty()) os << "  no partition\n";
  // What a gate tested, partition by partition: a pass over few records
  // says little, and one over none says nothing (exit 4).
  if (c.records() == 0) {
    os << "compared no record\n";
  } else {
    os << "compared " << c.records() << " record" << (c.records() == 1 ? "" : "s") << ":";
    for (std::size_t i = 0; i < ranges.size(); ++i)
      os << (i ? ", " : " ") << where(ranges[i].partition) << ' ' << records_on(c, ranges[i].partition);
    os << '\n';
  }
  const auto row = [&os](std::string_view name, std::uint64_t a, std::uint64_t b) {
    os << "  " << std::left << std::setw(12) << name << std::right << std::setw(12) << a << std::setw(12) << b
       << '\n';
  };
  os << "  " << std::left << std::setw(12) << "" << std::right << std::setw(12) << "old" << std::setw(12)
     << "new" << '\n';
  row("passed", c.old_tally().passed, c.new_tally().passed);
  row("filtered", c.old_tally().filtered, c.new_tally().filtered);
  row("tombstones", c.old_tally().tombstones, c.new_tally().tombstones);
  row("invalid", c.old_tally().invalid, c.new_tally().invalid);
  if (c.routed()) print_routes(os, c);
  const engine::difference_counts& d = c.differences();
  if (c.records() == 0) {
    os << "nothing was tested: no record was compared\n";
  } else if (d.total() == 0) {
    os << "no record differs" << (complete ? "" : " (among those read)") << '\n';
  } else {
    if (c.routed())
      os << d.records << " record" << (d.records == 1 ? "" : "s") << " differ, " << d.total() << " difference"
         << (d.total() == 1 ? "" : "s") << ": " << d.old_only << " output by the old plan only, "
         << d.new_only << " by the new plan only, " << d.changed << " with a changed value or key, "
         << d.invalid_in_one << " invalid for one plan only\n";
    else
      os << d.total() << " record" << (d.total() == 1 ? "" : "s") << " differ: " << d.old_only
         << " passed by the old plan only, " << d.new_only << " by the new plan only, " << d.changed
         << " with a changed value, " << d.invalid_in_one << " invalid for one plan only\n";
    if (!c.kept().empty()) {
      os << (c.kept().size() < d.total() ? "the first " + std::to_string(c.kept().size()) + ":" : "each:")
         << '\n';
      for (const engine::record_difference& r : c.kept())
        os << boost::json::serialize(envelope(r, c.routed())) << '\n';
    }
  }
  std::cout << os.str();
}

// Why a read found no record, by where it started, and what to give instead.
std::string why_none(const start_spec& from) {
  constexpr std::string_view instead = "; give --from last:N to compare each partition's last N records";
  switch (from.kind) {
    case start_kind::committed:
      return "OLD_PLAN's application has caught up (each committed offset is its partition's end)" +
             std::string(instead);
    case start_kind::positions:
      return "no position given has a committed record after it" + std::string(instead);
    case start_kind::last:
      return "the last " + std::to_string(from.last) +
             " offsets of each partition hold no committed record (the topic is empty, or they are "
             "transaction markers: give a larger N)";
    case start_kind::earliest:
      break;
  }
  return "no partition holds a committed record (the topic is empty, or retention deleted its records)";
}

}  // namespace

int cmd_diff(std::span<char* const> args) {
  option_spec spec{{"--bootstrap-servers", "-X", "--config", "--from", "--max-records", "--max-diffs",
                    "--format", "--timeout-ms", "--schema-registry", "--registry-config"},
                   {"--help"},
                   {"-X"},
                   {{"--bootstrap-server", "--bootstrap-servers"}, {"-b", "--bootstrap-servers"}}};
  arguments a;
  if (auto done = parse_command("diff", args, spec, help, a)) return *done;
  if (a.positionals.size() != 2) return usage_error("diff", "expected two plans: OLD_PLAN NEW_PLAN");
  if (auto f = a.get("--format"); f && *f != "text" && *f != "json")
    return usage_error("diff", "--format takes text or json");
  std::uint64_t max_records = default_max_records;
  if (auto v = a.get("--max-records")) {
    auto n = whole_number<std::uint64_t>(*v, 1, max_max_records);
    if (!n) return range_error("diff", "--max-records", "records", 1, max_max_records, *v);
    max_records = *n;
  }
  std::size_t max_diffs = default_max_diffs;
  if (auto v = a.get("--max-diffs")) {
    auto n = whole_number<std::size_t>(*v, 0, max_max_diffs);
    if (!n) return range_error("diff", "--max-diffs", "records", 0, max_max_diffs, *v);
    max_diffs = *n;
  }
  start_spec from;
  const std::string from_value = a.get("--from").value_or("earliest");
  if (auto err = parse_from(from_value, from)) return usage_error("diff", *err);
  std::variant<kafka_access, int> access = read_kafka_access("diff", a);
  if (const int* failed = std::get_if<int>(&access)) return *failed;
  const kafka_access& k = std::get<kafka_access>(access);

  loaded_plan plans[2];
  for (int i = 0; i < 2; ++i) {
    engine::exit_code code{};
    std::optional<plan::plan> p = load_plan_file("diff", a.positionals[static_cast<std::size_t>(i)], code);
    if (!p) return engine::to_int(code);
    plans[i].path = a.positionals[static_cast<std::size_t>(i)];
    plans[i].digest = plan::digest(*p);
    plans[i].p = std::move(*p);
  }
  const loaded_plan& old_plan = plans[0];
  const loaded_plan& new_plan = plans[1];
  const std::string& topic = old_plan.p.identity.source_topic;
  if (new_plan.p.identity.source_topic != topic) {
    say_error("diff", "the plans read different topics: " + old_plan.path + " reads '" + topic + "', " +
                          new_plan.path + " reads '" + new_plan.p.identity.source_topic +
                          "'; diff compares two plans over the same records");
    return engine::to_int(engine::exit_code::rejected);
  }
  if (from.kind == start_kind::positions && from.positions.front().partition.topic != topic)
    return usage_error("diff", "--from names topic '" + from.positions.front().partition.topic +
                                   "', but the plans read '" + topic + "'");

  // The registry, for plans that read Avro: checked and opened before any
  // Kafka client, as every setting is.
  const plan::avro_source* avro = old_plan.p.schema.avro   ? &*old_plan.p.schema.avro
                                  : new_plan.p.schema.avro ? &*new_plan.p.schema.avro
                                                           : nullptr;
  std::variant<std::optional<registry_flags>, int> flags = read_registry_flags("diff", a);
  if (const int* failed = std::get_if<int>(&flags)) return *failed;
  std::unique_ptr<registry_session> session;
  std::optional<writer_schemas> schemas;
  if (avro && !std::get<0>(flags))
    return usage_error(
        "diff",
        "a plan's source is Avro in the Confluent wire format: give --schema-registry URL, the "
        "Schema Registry its writer schemas come from");
  if (avro) {
    std::variant<kafka::registry::config, int> c = read_registry_config("diff", *std::get<0>(flags));
    if (const int* failed = std::get_if<int>(&c)) return *failed;
    auto opened = registry_session::open(std::move(std::get<0>(c)));
    if (!opened) return report_registry_failure("diff", "the registry", opened.error(), avro->subject, {});
    session = std::move(*opened);
    schemas.emplace(*session);
  }

  auto reader = kafka::partition_reader::connect(k.bootstrap_servers, k.user);
  if (!reader) {
    say_error("diff", reader.error().message);
    return engine::to_int(engine::exit_code::config);
  }
  auto planned = plan_ranges(*reader, topic, from, old_plan.p.identity.application_id, k.bootstrap_servers,
                             k.user, k.timeout);
  if (const int* code = std::get_if<int>(&planned)) return *code;
  std::vector<partition_range>& ranges = std::get<std::vector<partition_range>>(planned);

  engine::plan_comparison comparison(
      old_plan.p, new_plan.p, max_diffs,
      schemas ? engine::learn_from(schemas->source()) : engine::schema_learner{});
  for (partition_range& r : ranges) {
    const std::uint64_t left = max_records - comparison.records();
    if (left == 0) break;
    auto read_to = reader->read(r.partition, r.from, r.end, left, k.timeout,
                                [&comparison](std::span<const kafka::message_view> records) {
                                  for (const kafka::message_view& v : records) comparison.compare(v);
                                });
    if (!read_to) return unavailable("reading " + where(r.partition), read_to.error());
    if (std::optional<int> failed = schemas ? schemas->report("diff", avro->subject) : std::nullopt)
      return *failed;
    r.read_to = *read_to;
  }

  if (a.get("--format").value_or("text") == "json")
    print_json(old_plan, new_plan, from_value, ranges, comparison);
  else
    print_text(old_plan, new_plan, from_value, ranges, comparison, max_records);
  std::cout.flush();
  if (!std::cout) {
    say_error("diff", "writing the report to standard output failed");
    return engine::to_int(engine::exit_code::io_error);
  }
  if (comparison.records() == 0) {
    say_error("diff", "compared no record, so nothing was tested and this is no pass: " + why_none(from));
    return engine::to_int(engine::exit_code::no_evidence);
  }
  return engine::to_int(comparison.differences().total() == 0 ? engine::exit_code::ok
                                                              : engine::exit_code::differences);
}

}  // namespace streamt::cli
