// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/group_admin.hpp"

#include "kafka/admin_call.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <string_view>

namespace streamt::kafka {
namespace {

error_report copied(const rd_kafka_error_t* e) {
  if (!e) return {};
  error_report r = report_of(rd_kafka_error_code(e));
  // Some replies carry a string with nothing after the API's name
  // ("ConsumerGroupDescribe: "): the code's own text says more.
  if (const char* s = rd_kafka_error_string(e); s && std::string_view(s).find(": ") + 2 < std::strlen(s))
    r.message = s;
  return r;
}

// The partitions of the one group a request named, or that group's error:
// any other count of results is a reply we cannot read.
kafka_result<const rd_kafka_topic_partition_list_t*> only_group(const rd_kafka_group_result_t** groups,
                                                                std::size_t n) {
  if (n != 1 || !groups) return report_of(RD_KAFKA_RESP_ERR__BAD_MSG);
  if (error_report e = copied(rd_kafka_group_result_error(groups[0])); e.failed()) return e;
  return rd_kafka_group_result_partitions(groups[0]);
}

}  // namespace

config_result<group_admin> group_admin::connect(const std::string& bootstrap_servers, const settings& user) {
  // read_committed: the ends asked with it are last stable offsets (the
  // ListOffsets request carries the client's isolation level).
  const settings engine{{"bootstrap.servers", bootstrap_servers}, {"isolation.level", "read_committed"}};
  auto conf = build_conf(engine, user);
  if (!conf) return conf.error();
  char errstr[512] = {};
  kafka_ptr rk(rd_kafka_new(RD_KAFKA_CONSUMER, conf->get(), errstr, sizeof errstr));
  if (!rk) return config_error{errc::client_creation_failed, {}, 0, std::string("admin client: ") + errstr};
  (void)conf->release();  // rd_kafka_new took it
  return group_admin(std::move(rk));
}

kafka_result<group_description> group_admin::describe(const std::string& group,
                                                      std::chrono::milliseconds timeout) const {
  queue_ptr q(rd_kafka_queue_new(rk_.get()));
  const char* groups[] = {group.c_str()};
  auto o = options_for(rk_.get(), RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS, timeout);
  rd_kafka_DescribeConsumerGroups(rk_.get(), groups, 1, o.get(), q.get());
  auto ev = wait_result(q.get(), timeout);
  if (!ev) return ev.error();
  const rd_kafka_DescribeConsumerGroups_result_t* res =
      rd_kafka_event_DescribeConsumerGroups_result(ev->get());
  std::size_t n = 0;
  const rd_kafka_ConsumerGroupDescription_t** d =
      res ? rd_kafka_DescribeConsumerGroups_result_groups(res, &n) : nullptr;
  if (n != 1) return report_of(RD_KAFKA_RESP_ERR__BAD_MSG);
  if (error_report e = copied(rd_kafka_ConsumerGroupDescription_error(d[0])); e.failed()) {
    // A group the brokers do not know (the consumer protocol says so where
    // the classic one answers "Dead"): the same to a reader, a group with
    // no members and nothing committed.
    if (e.info.code == RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND) return group_description{"Dead", 0, false};
    return e;
  }
  const rd_kafka_consumer_group_state_t state = rd_kafka_ConsumerGroupDescription_state(d[0]);
  return group_description{rd_kafka_consumer_group_state_name(state),
                           rd_kafka_ConsumerGroupDescription_member_count(d[0]),
                           state == RD_KAFKA_CONSUMER_GROUP_STATE_PREPARING_REBALANCE ||
                               state == RD_KAFKA_CONSUMER_GROUP_STATE_COMPLETING_REBALANCE};
}

kafka_result<std::vector<group_offset>> group_admin::committed(const std::string& group,
                                                               std::chrono::milliseconds timeout) const {
  queue_ptr q(rd_kafka_queue_new(rk_.get()));
  auto o = options_for(rk_.get(), RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS, timeout);
  // Offsets of a transaction not yet decided would be a guess: ask for
  // stable ones, so an open transaction is reported, not read past.
  if (error_ptr e(rd_kafka_AdminOptions_set_require_stable_offsets(o.get(), 1)); e)
    throw std::logic_error(std::string("require_stable_offsets refused: ") + rd_kafka_error_string(e.get()));
  rd_kafka_ListConsumerGroupOffsets_t* req = rd_kafka_ListConsumerGroupOffsets_new(group.c_str(), nullptr);
  rd_kafka_ListConsumerGroupOffsets(rk_.get(), &req, 1, o.get(), q.get());
  rd_kafka_ListConsumerGroupOffsets_destroy(req);
  auto ev = wait_result(q.get(), timeout);
  if (!ev) return ev.error();
  const rd_kafka_ListConsumerGroupOffsets_result_t* res =
      rd_kafka_event_ListConsumerGroupOffsets_result(ev->get());
  std::size_t n = 0;
  const rd_kafka_group_result_t** groups =
      res ? rd_kafka_ListConsumerGroupOffsets_result_groups(res, &n) : nullptr;
  auto only = only_group(groups, n);
  if (!only) return only.error();
  const rd_kafka_topic_partition_list_t* parts = *only;
  std::vector<group_offset> out;
  for (int i = 0; parts && i < parts->cnt; ++i) {
    const rd_kafka_topic_partition_t& p = parts->elems[i];
    if (p.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      error_report e = report_of(p.err);
      e.message = std::string(p.topic) + "/" + std::to_string(p.partition) + ": " + e.message;
      return e;
    }
    if (p.offset < 0) continue;  // nothing committed there
    out.push_back(
        {{p.topic, p.partition},
         p.offset,
         p.metadata ? std::string(static_cast<const char*>(p.metadata), p.metadata_size) : std::string()});
  }
  std::sort(out.begin(), out.end(),
            [](const group_offset& a, const group_offset& b) { return a.partition < b.partition; });
  return out;
}

kafka_result<std::int32_t> group_admin::partition_count(const std::string& topic,
                                                        std::chrono::milliseconds timeout) const {
  return topic_partition_count(rk_.get(), topic, timeout);
}

kafka_result<std::int64_t> group_admin::end_offset(const topic_partition& p,
                                                   std::chrono::milliseconds timeout) const {
  auto w = partition_watermarks(rk_.get(), p, timeout);
  if (!w) return w.error();
  return w->high;
}

error_report group_admin::alter(const std::string& group, const std::vector<group_offset>& offsets,
                                std::chrono::milliseconds timeout) const {
  partition_list_ptr list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const group_offset& g : offsets) {
    rd_kafka_topic_partition_t* p =
        rd_kafka_topic_partition_list_add(list.get(), g.partition.topic.c_str(), g.partition.partition);
    p->offset = g.offset;
    set_commit_metadata(rk_.get(), *p, g.metadata);
  }
  queue_ptr q(rd_kafka_queue_new(rk_.get()));
  auto o = options_for(rk_.get(), RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS, timeout);
  rd_kafka_AlterConsumerGroupOffsets_t* req =
      rd_kafka_AlterConsumerGroupOffsets_new(group.c_str(), list.get());
  rd_kafka_AlterConsumerGroupOffsets(rk_.get(), &req, 1, o.get(), q.get());
  rd_kafka_AlterConsumerGroupOffsets_destroy(req);
  auto ev = wait_result(q.get(), timeout);
  if (!ev) return ev.error();
  const rd_kafka_AlterConsumerGroupOffsets_result_t* res =
      rd_kafka_event_AlterConsumerGroupOffsets_result(ev->get());
  std::size_t n = 0;
  const rd_kafka_group_result_t** groups =
      res ? rd_kafka_AlterConsumerGroupOffsets_result_groups(res, &n) : nullptr;
  auto only = only_group(groups, n);
  if (!only) return only.error();
  return first_partition_error(*only);
}

}  // namespace streamt::kafka
