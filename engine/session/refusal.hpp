// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once

// The one line that ends a run the brokers' ACLs refuse: what was refused
// and what the principal needs granted. The session writes it for a refusal
// while running; start-up writes it for the same codes from
// init_transactions and the consumer, which a real broker with an
// authorizer gives before any transaction (test/integration/authorization.sh).
// Without it those read as "the broker refused transactions" or a bare
// FindCoordinator error, and the user looks at the broker's configuration
// instead of its ACLs.

#include "engine/session/failure.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamt::engine::session {

// "topic 'a'", "topics 'a' and 'b'", "topics 'a', 'b' and 'c'".
inline std::string topics_text(const std::vector<std::string>& topics) {
  std::string s = topics.size() == 1 ? "topic " : "topics ";
  for (std::size_t i = 0; i < topics.size(); ++i)
    s += (i == 0 ? "" : i + 1 == topics.size() ? " and " : ", ") + ("'" + topics[i] + "'");
  return s;
}

// What each refusal needs granted; nullopt for a code that is no refusal.
// `sink_topics`: every topic the run writes but the dead-letter topic
// (config::sink_topics). A broker's refusal seldom says which topic it
// means, so the line names all of them.
inline std::optional<std::string> grant_for(refused_resource refused, std::string_view source_topic,
                                            const std::vector<std::string>& sink_topics,
                                            std::string_view application_id) {
  switch (refused) {
    case refused_resource::topic:
      return "Read and Describe on topic '" + std::string(source_topic) + "', Write and Describe on " +
             topics_text(sink_topics);
    case refused_resource::group:
      return "Read on group '" + std::string(application_id) + "'";
    case refused_resource::transactional_id:
      return "Write and Describe on the transactional ids with prefix '" + std::string(application_id) + "-'";
    case refused_resource::cluster:
      return "IdempotentWrite on the cluster";
    case refused_resource::none:
      return std::nullopt;
  }
  return std::nullopt;
}

// "the brokers refuse this client: MESSAGE. Grant its principal ..." for a
// refusal; nullopt otherwise.
inline std::optional<std::string> refusal_line(refused_resource refused, std::string_view message,
                                               std::string_view source_topic,
                                               const std::vector<std::string>& sink_topics,
                                               std::string_view application_id) {
  std::optional<std::string> grant = grant_for(refused, source_topic, sink_topics, application_id);
  if (!grant) return std::nullopt;
  // The broker's own text often ends in a full stop; ours follows it.
  while (!message.empty() && (message.back() == '.' || message.back() == ' ')) message.remove_suffix(1);
  return "the brokers refuse this client: " + std::string(message) + ". Grant its principal " + *grant +
         " (kafka-acls), then start it again";
}

}  // namespace streamt::engine::session
