// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Where an error of kafka/ becomes a failure the session understands: each
// librdkafka code is given its meanings here and nowhere else, so that the
// session (engine/session/) decides on meanings and knows no client.

#include "engine/session/claims.hpp"
#include "engine/session/failure.hpp"
#include "engine/session/position_policy.hpp"
#include "engine/session/positions.hpp"
#include "kafka/consumer.hpp"
#include "kafka/error.hpp"
#include "kafka/plan_log.hpp"
#include "kafka/topic_partition.hpp"

#include <vector>

namespace streamt::engine {

session::failure failure_of(const kafka::error_report& e);
session::consumer_error consumer_error_of(const kafka::consumer_error& e);
session::watermarks watermarks_of(const kafka::watermarks& w) noexcept;
std::vector<session::log_record> log_of(std::vector<kafka::log_record> log);

}  // namespace streamt::engine
