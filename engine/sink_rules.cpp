// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "engine/sink_rules.hpp"

#include <algorithm>
#include <charconv>
#include <ctime>
#include <limits>

namespace streamt::engine {
namespace {

constexpr std::int64_t day_ms = 86'400'000;

// A bound as the brokers write it; Long.MAX_VALUE (Kafka's default for the
// "before" bound) and anything too large to matter is no bound.
std::optional<std::int64_t> bound_of(const std::map<std::string, std::string>& settings, const char* key) {
  auto it = settings.find(key);
  if (it == settings.end()) return std::nullopt;
  std::int64_t v = 0;
  const std::string& text = it->second;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || v < 0) return std::nullopt;
  if (v >= std::numeric_limits<std::int64_t>::max() / 2) return std::nullopt;
  return v;
}

std::string utc_text(std::int64_t ms) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  if (!gmtime_r(&seconds, &tm)) return std::to_string(ms) + " ms since the epoch";
  char text[32];
  if (std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) return std::to_string(ms);
  return std::string(text) + " (" + std::to_string(ms) + ")";
}

}  // namespace

std::vector<std::string> topics_written(const plan::plan& p) {
  std::vector<std::string> topics = plan::sink_topics(p);
  if (plan::is_routed(p) && !p.unrouted_topic.empty() &&
      std::find(topics.begin(), topics.end(), p.unrouted_topic) == topics.end())
    topics.push_back(p.unrouted_topic);
  return topics;
}

std::string rough_duration(std::int64_t ms) {
  const std::int64_t a = ms < 0 ? -ms : ms;
  if (a >= day_ms && a % day_ms == 0) return std::to_string(ms / day_ms) + " d";
  if (a >= 10 * day_ms) return std::to_string(ms / day_ms) + " d";
  if (a >= 3'600'000 && (a % 3'600'000 == 0 || a >= 10 * 3'600'000))
    return std::to_string(ms / 3'600'000) + " h";
  if (a >= 60'000 && (a % 60'000 == 0 || a >= 10 * 60'000)) return std::to_string(ms / 60'000) + " min";
  if (a >= 1000 && (a % 1000 == 0 || a >= 10'000)) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

const std::vector<std::string>& sink_rules::keys() {
  static const std::vector<std::string> k{"cleanup.policy", "message.timestamp.type",
                                          "message.timestamp.before.max.ms", "message.timestamp.after.max.ms",
                                          "message.timestamp.difference.max.ms"};
  return k;
}

sink_rules sink_rules::of(std::string topic, const std::map<std::string, std::string>& settings) {
  sink_rules r;
  r.topic = std::move(topic);
  if (auto it = settings.find("cleanup.policy"); it != settings.end())
    r.compacted = it->second.find("compact") != std::string::npos;
  // LogAppendTime: the broker stamps the record itself and checks nothing.
  auto type = settings.find("message.timestamp.type");
  if (type != settings.end() && type->second == "LogAppendTime") return r;
  const std::optional<std::int64_t> difference = bound_of(settings, "message.timestamp.difference.max.ms");
  const bool split =
      settings.count("message.timestamp.before.max.ms") || settings.count("message.timestamp.after.max.ms");
  r.before_max_ms = split ? bound_of(settings, "message.timestamp.before.max.ms") : difference;
  r.after_max_ms = split ? bound_of(settings, "message.timestamp.after.max.ms") : difference;
  return r;
}

std::optional<std::string> sink_rules::refusal(bool has_key, std::optional<std::int64_t> timestamp_ms,
                                               std::int64_t now_ms) const {
  if (compacted && !has_key)
    return "it has no key, and sink topic '" + topic +
           "' is compacted (cleanup.policy), which takes no record without one; give the source's records "
           "keys, or write to a topic that is not compacted";
  if (!timestamp_ms || *timestamp_ms <= 0) return std::nullopt;
  const std::int64_t ts = *timestamp_ms;
  if (before_max_ms && ts < now_ms && now_ms - ts > *before_max_ms)
    return "its timestamp " + utc_text(ts) + " is " + rough_duration(now_ms - ts) +
           " before this engine's clock, and sink topic '" + topic + "' takes no record more than " +
           rough_duration(*before_max_ms) +
           " old (message.timestamp.before.max.ms=" + std::to_string(*before_max_ms) +
           "); raise that setting of the topic, or set its message.timestamp.type to LogAppendTime";
  if (after_max_ms && ts > now_ms && ts - now_ms > *after_max_ms)
    return "its timestamp " + utc_text(ts) + " is " + rough_duration(ts - now_ms) +
           " after this engine's clock, and sink topic '" + topic + "' takes no record more than " +
           rough_duration(*after_max_ms) +
           " ahead (message.timestamp.after.max.ms=" + std::to_string(*after_max_ms) +
           "); raise that setting of the topic, or set its message.timestamp.type to LogAppendTime";
  return std::nullopt;
}

std::string sink_rules::describe() const {
  std::string s;
  auto add = [&s](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  if (compacted) add(std::string(compacted_rule));
  if (before_max_ms)
    add("a timestamp more than " + rough_duration(*before_max_ms) +
        " old is refused (message.timestamp.before.max.ms)");
  if (after_max_ms)
    add("a timestamp more than " + rough_duration(*after_max_ms) +
        " ahead is refused (message.timestamp.after.max.ms)");
  return s;
}

}  // namespace streamt::engine
