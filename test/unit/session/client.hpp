// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// The session's tests speak of the errors librdkafka reports; the session
// sees them as the driver hands them over, through the one translation
// (engine/client_failure.hpp), so these tests cover it too.

#include "engine/client_failure.hpp"
#include "kafka/error.hpp"

#include <string>
#include <utility>

namespace streamt::test {

inline engine::session::failure client(kafka::txn_error_info info, std::string message) {
  return engine::failure_of(kafka::error_report{info, std::move(message)});
}

}  // namespace streamt::test
