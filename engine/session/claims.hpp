// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#pragma once
// Which plan holds an application id, from its plan log (kafka/plan_log.hpp):
// the total order of claims every instance reads before it processes
// anything, so that two unrelated plans started at the same moment on a new
// group cannot both run (the commit lineage of session/succession.hpp sees
// nothing committed yet, and cannot order them). Pure
// (test/unit/session/claims_tests.cpp).
//
// A claim says "plan P holds the application, replacing plan R" (R empty
// for the first). The log is read as a chain of compare-and-set steps: a
// claim stands only if R names the plan standing at its offset. Of two
// instances that raced, both replacing the same R, the first in the log
// stands and the second changed nothing: when it reads the log again it
// finds the other plan standing, and succession decides as for a commit by
// that plan (take it over, or be refused with exit 78).
//
// Which claims an instance may write is succession's rule: none stands, or
// one of a plan this plan supersedes (or the plan its state directory last
// ran). So an older plan never displaces a newer one, and an unrelated plan
// never displaces anything.

#include "engine/lineage.hpp"
#include "engine/session/succession.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace streamt::engine::session {

struct plan_claim {
  lineage plan;          // who claims: digest, instance, output shape, predecessors
  std::string replaces;  // the plan standing when it was written; empty for the first
  friend bool operator==(const plan_claim&, const plan_claim&) = default;
};

// The record value: the commit lineage's JSON object plus "replaces".
std::string to_claim_record(const plan_claim& c);
// nullopt for a value that is not a claim of ours (it changes nothing).
std::optional<plan_claim> from_claim_record(std::string_view value);

// One record of the plan log, as the driver read it.
struct log_record {
  std::int64_t offset = 0;
  std::string key;
  std::string value;
};

struct logged_claim {
  std::int64_t offset = 0;
  plan_claim claim;
};

// The claims among a plan log's records, in order; a record that is not a
// claim of ours changes nothing and is left out.
std::vector<logged_claim> claims_in(const std::vector<log_record>& log);

// The claim standing after `log` (in offset order), or nullopt when none
// does (an empty log).
std::optional<logged_claim> standing_claim(const std::vector<logged_claim>& log);

// What the instance does next.
struct plan_stands {  // this plan holds the application: run
  std::int64_t since = 0;
};
struct write_claim {  // append this claim, then read the log again
  plan_claim claim;
  std::string note;  // a hand-over worth a log line; empty for the first claim
};
std::variant<plan_stands, write_claim, succession_refused> next_claim_step(
    std::string_view application, std::string_view log_topic, const std::optional<logged_claim>& standing,
    const our_plan& ours, const std::string& instance);

// The plan log's topic of an application id (at most 214 characters, as an
// application id has at most 200).
std::string plan_log_topic(std::string_view application_id);

// The plan log is read whole, by the engine at every start and by the
// commands that show or supersede the standing plan: it grows by one claim
// per plan change (and per instance that lost a race), so a million is far
// beyond any fleet's history, and about 300 MB of claims at most.
inline constexpr std::size_t max_plan_log_records = 1000000;

}  // namespace streamt::engine::session
