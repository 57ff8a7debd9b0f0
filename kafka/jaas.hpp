// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// A properties file written for the Java client carries its SASL login in
// sasl.jaas.config, which librdkafka does not support ("Java JAAS
// configuration is not supported"). For the two login modules that are only
// a user name and a password, PLAIN and SCRAM, this translates it into
// librdkafka's own keys, sasl.username and sasl.password; anything else is
// refused with what to write instead. Tested in
// test/unit/kafka/jaas_test.cpp.
//
//   sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule
//       required username="alice" password="${file:/run/secrets/kafka}";
// (one line in the file, or continued with a backslash)
//
// Errors name the key and a column, never a value. Run after
// resolve_references(), so that a reference inside the string is already
// its value.

#include "kafka/config.hpp"

namespace streamt::kafka {

// Replaces a sasl.jaas.config of `s` with sasl.username and sasl.password.
// Refused: another login module (OAUTHBEARER, GSSAPI: librdkafka has its own
// keys for them), options other than username and password, a malformed
// string, and sasl.username or sasl.password given as well (which one would
// win is not obvious). errc::invalid_setting.
config_result<void> translate_jaas(settings& s);

}  // namespace streamt::kafka
