// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/admin_call.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>

namespace streamt::kafka {

int admin_ms(std::chrono::milliseconds t) {
  return static_cast<int>(std::clamp<std::int64_t>(t.count(), 1, INT_MAX));
}

admin_options_ptr options_for(rd_kafka_t* rk, rd_kafka_admin_op_t op, std::chrono::milliseconds timeout) {
  admin_options_ptr o(rd_kafka_AdminOptions_new(rk, op));
  char errstr[256] = {};
  if (rd_kafka_AdminOptions_set_request_timeout(o.get(), admin_ms(timeout), errstr, sizeof errstr) !=
      RD_KAFKA_RESP_ERR_NO_ERROR)
    throw std::logic_error(std::string("admin request timeout refused: ") + errstr);
  return o;
}

kafka_result<event_ptr> wait_result(rd_kafka_queue_t* q, std::chrono::milliseconds timeout) {
  event_ptr ev(rd_kafka_queue_poll(q, admin_ms(timeout + std::chrono::seconds(5))));
  if (!ev) return report_of(RD_KAFKA_RESP_ERR__TIMED_OUT);
  if (rd_kafka_event_error(ev.get()) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    error_report e = report_of(rd_kafka_event_error(ev.get()));
    if (const char* s = rd_kafka_event_error_string(ev.get())) e.message = s;
    return e;
  }
  return ev;
}

namespace {
struct config_resource_deleter {
  void operator()(rd_kafka_ConfigResource_t* p) const noexcept { rd_kafka_ConfigResource_destroy(p); }
};
using config_resource_ptr = std::unique_ptr<rd_kafka_ConfigResource_t, config_resource_deleter>;
}  // namespace

kafka_result<topic_settings> describe_topic_settings(rd_kafka_t* rk, const std::vector<std::string>& topics,
                                                     const std::vector<std::string>& keys,
                                                     std::chrono::milliseconds timeout) {
  std::vector<config_resource_ptr> owned;
  std::vector<rd_kafka_ConfigResource_t*> resources;
  for (const std::string& t : topics) {
    owned.emplace_back(rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, t.c_str()));
    resources.push_back(owned.back().get());
  }
  queue_ptr q(rd_kafka_queue_new(rk));
  admin_options_ptr o = options_for(rk, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, timeout);
  rd_kafka_DescribeConfigs(rk, resources.data(), resources.size(), o.get(), q.get());
  kafka_result<event_ptr> ev = wait_result(q.get(), timeout);
  if (!ev) return ev.error();
  const rd_kafka_DescribeConfigs_result_t* result = rd_kafka_event_DescribeConfigs_result(ev->get());
  if (!result) return report_of(RD_KAFKA_RESP_ERR__BAD_MSG);
  std::size_t n = 0;
  const rd_kafka_ConfigResource_t** answered = rd_kafka_DescribeConfigs_result_resources(result, &n);
  topic_settings values;
  for (std::size_t i = 0; i < n; ++i) {
    if (rd_kafka_resp_err_t e = rd_kafka_ConfigResource_error(answered[i]); e != RD_KAFKA_RESP_ERR_NO_ERROR) {
      error_report r = report_of(e);
      if (const char* s = rd_kafka_ConfigResource_error_string(answered[i]); s && *s) r.message = s;
      r.message = std::string("topic '") + rd_kafka_ConfigResource_name(answered[i]) + "': " + r.message;
      return r;
    }
    std::size_t m = 0;
    const rd_kafka_ConfigEntry_t** entries = rd_kafka_ConfigResource_configs(answered[i], &m);
    std::map<std::string, std::string>& of_topic = values[rd_kafka_ConfigResource_name(answered[i])];
    for (std::size_t j = 0; j < m; ++j) {
      const char* value = rd_kafka_ConfigEntry_value(entries[j]);
      const char* name = rd_kafka_ConfigEntry_name(entries[j]);
      if (value && name && std::find(keys.begin(), keys.end(), name) != keys.end()) of_topic[name] = value;
    }
  }
  return values;
}

kafka_result<std::int32_t> topic_partition_count(rd_kafka_t* rk, const std::string& topic,
                                                 std::chrono::milliseconds timeout) {
  topic_ptr t(rd_kafka_topic_new(rk, topic.c_str(), nullptr));
  if (!t) return report_of(rd_kafka_last_error());
  const rd_kafka_metadata_t* md = nullptr;
  if (const rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, t.get(), &md, admin_ms(timeout));
      e != RD_KAFKA_RESP_ERR_NO_ERROR)
    return report_of(e);
  std::unique_ptr<const rd_kafka_metadata_t, decltype(&rd_kafka_metadata_destroy)> owned(
      md, &rd_kafka_metadata_destroy);
  if (md->topic_cnt != 1) return report_of(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART);
  if (md->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) return report_of(md->topics[0].err);
  return md->topics[0].partition_cnt;
}

kafka_result<watermarks> partition_watermarks(rd_kafka_t* rk, const topic_partition& p,
                                              std::chrono::milliseconds timeout) {
  watermarks w;
  if (const rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(rk, p.topic.c_str(), p.partition, &w.low,
                                                                     &w.high, admin_ms(timeout));
      e != RD_KAFKA_RESP_ERR_NO_ERROR)
    return report_of(e);
  return w;
}

}  // namespace streamt::kafka
