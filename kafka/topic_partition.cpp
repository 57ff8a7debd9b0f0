// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/topic_partition.hpp"

#include <algorithm>

namespace streamt::kafka {

partition_list_ptr to_list(const std::vector<topic_partition>& partitions) {
  partition_list_ptr list(rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  for (const auto& tp : partitions)
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition);
  return list;
}

partition_list_ptr to_list(const std::vector<partition_offset>& offsets) {
  partition_list_ptr list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const auto& po : offsets) {
    rd_kafka_topic_partition_list_add(list.get(), po.partition.topic.c_str(), po.partition.partition)
        ->offset = po.offset;
  }
  return list;
}

void set_commit_metadata(rd_kafka_t* rk, rd_kafka_topic_partition_t& p, std::string_view metadata) {
  if (metadata.empty()) return;
  p.metadata = rd_kafka_mem_malloc(rk, metadata.size());
  std::copy(metadata.begin(), metadata.end(), static_cast<char*>(p.metadata));
  p.metadata_size = metadata.size();
}

std::vector<topic_partition> partitions_of(const rd_kafka_topic_partition_list_t* list) {
  std::vector<topic_partition> out;
  if (list == nullptr) return out;
  out.reserve(static_cast<std::size_t>(list->cnt));
  for (int i = 0; i < list->cnt; ++i) out.push_back({list->elems[i].topic, list->elems[i].partition});
  return out;
}

std::vector<committed_offset> committed_of(const rd_kafka_topic_partition_list_t* list) {
  std::vector<committed_offset> out;
  if (list == nullptr) return out;
  out.reserve(static_cast<std::size_t>(list->cnt));
  for (int i = 0; i < list->cnt; ++i) {
    const std::int64_t o = list->elems[i].offset;
    // librdkafka answers RD_KAFKA_OFFSET_INVALID where nothing is committed.
    const rd_kafka_topic_partition_t& e = list->elems[i];
    out.push_back(
        {{e.topic, e.partition},
         o >= 0 ? std::optional(o) : std::nullopt,
         e.metadata ? std::string(static_cast<const char*>(e.metadata), e.metadata_size) : std::string()});
  }
  return out;
}

error_report first_partition_error(const rd_kafka_topic_partition_list_t* list) {
  if (list == nullptr) return {};
  for (int i = 0; i < list->cnt; ++i) {
    const auto& e = list->elems[i];
    if (e.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      auto r = report_of(e.err);
      r.message = std::string(e.topic) + "[" + std::to_string(e.partition) + "]: " + r.message;
      return r;
    }
  }
  return {};
}

}  // namespace streamt::kafka
