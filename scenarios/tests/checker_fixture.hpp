// What the checker tests build runs from: a scenario built in code, journal entries as the
// provider writes them, jobs, and the invocations' reported outcomes, plus the assertions
// every checker test makes (a pass, a fail with its exact evidence, n/a).
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "common/fingerprint.hpp"
#include "scenarios/driver/attribution.hpp"
#include "scenarios/evidence/evidence.hpp"
#include "scenarios/evidence/verdicts.hpp"

namespace retryproof::scenarios::hand_built {

using namespace std::chrono_literals;
using nlohmann::json;
using Seqs = std::vector<std::uint64_t>;

inline const std::string kOp42 = "fulfillment:order-42";
inline const std::string kOp43 = "fulfillment:order-43";

inline json payload_42() {
  return {{"orderId", "order-42"}, {"paymentId", "pay-42"}, {"amount", 120}};
}
inline json payload_43() {
  return {{"orderId", "order-43"}, {"amount", 80}};
}
inline json drifted_42() {
  return {{"orderId", "order-42"}, {"paymentId", "pay-42"}, {"amount", 120}, {"attemptAt", 250}};
}

using provider::Delivery;
using provider::Outcome;

// A create as the provider journals it. For a new operation, what the client was sent —
// status line, whole or not, when it ended, Retry-After — follows from the fault's row in
// the provider's catalogue, as the provider itself derives it, so this fixture cannot drift
// from what the provider writes. Other outcomes name their status.
struct Post {
  std::uint64_t seq = 1;
  std::int64_t at = 0;
  std::string key = "k42";
  json payload = payload_42();
  Outcome outcome = Outcome::new_operation;
  std::string fault = "none";       // for a new operation
  std::optional<int> status;        // for other outcomes (a new one's comes from its fault)
  std::optional<std::string> code;  // for other outcomes (a new one's comes from its fault)
  std::optional<std::string> job;
  bool payload_read = true;  // false: refused before the body was read, no fingerprint
};

inline JournalEntry post(const Post& p) {
  JournalEntry entry{.seq = p.seq,
                     .at = Millis(p.at),
                     .method = "POST",
                     .path = "/jobs",
                     .kind = provider::RequestKind::create,
                     .outcome = p.outcome,
                     .answered_at = Millis(p.at),
                     .status = p.status,
                     .code = p.code,
                     .job_id = p.job};
  if (!p.key.empty()) entry.key = p.key;
  if (p.payload_read) entry.fingerprint = fingerprint(p.payload);
  if (p.outcome != Outcome::new_operation) return entry;
  const provider::Fault fault = provider::parse_fault(p.fault);
  const provider::FaultRow& row = provider::row_of(fault.kind);
  entry.fault = fault;
  entry.delivery = row.delivery;
  const bool status_line = row.delivery == Delivery::respond || row.delivery == Delivery::truncate;
  entry.status = status_line ? std::optional<int>(row.status) : std::nullopt;
  if (status_line && !row.error_code.empty()) entry.code = std::string(row.error_code);
  if (row.parameter == provider::FaultParameter::hold)
    entry.answered_at = entry.at + fault.duration;
  if (row.parameter == provider::FaultParameter::retry_after) {
    entry.retry_after_seconds = fault.retry_after_seconds;
  }
  return entry;
}

struct Lookup {
  std::uint64_t seq = 1;
  std::int64_t at = 0;
  std::string key = "k42";
  Outcome outcome = Outcome::lookup_hit;  // lookup_miss, lookup_failed
  std::optional<std::string> job;
};

inline JournalEntry lookup(const Lookup& l) {
  const int status = l.outcome == Outcome::lookup_hit    ? 200
                     : l.outcome == Outcome::lookup_miss ? 404
                                                         : 503;
  JournalEntry entry{.seq = l.seq,
                     .at = Millis(l.at),
                     .method = "GET",
                     .path = "/jobs/by-idempotency-key/" + l.key,
                     .kind = provider::RequestKind::lookup,
                     .key = l.key,
                     .outcome = l.outcome,
                     .answered_at = Millis(l.at),
                     .status = status,
                     .job_id = l.job};
  if (l.outcome == Outcome::lookup_failed) {
    entry.fault = provider::Fault{provider::FaultKind::lookup_unavailable};
    entry.code = "temporarily_unavailable";
  }
  if (l.outcome == Outcome::lookup_miss) entry.code = "not_found";
  return entry;
}

inline JobRecord job(const std::string& id, const std::string& key,
                     const std::string& order_id = "order-42") {
  return {id, key, {{"id", id}, {"orderId", order_id}}};
}

// The entry as it came on the connection from `client_port`, the first request there or not.
inline JournalEntry on_connection(JournalEntry entry, int client_port, bool first) {
  entry.client_port = client_port;
  entry.new_connection = first;
  return entry;
}

// The entries that recur, as the provider journals them (operation 42 under k42 unless
// named otherwise).

// A POST refused before commit with 503.
inline JournalEntry fail_before_commit(std::uint64_t seq, std::int64_t at = 0) {
  return post({.seq = seq, .at = at, .fault = "fail-before-commit"});
}

// A POST answered with a replay of job_1.
inline JournalEntry replay(std::uint64_t seq, std::int64_t at) {
  return post({.seq = seq, .at = at, .outcome = Outcome::replay, .status = 200, .job = "job_1"});
}

// The first POST, which stores job_1 and holds its answer for ten seconds.
inline JournalEntry commit_then_delay_10s() {
  return post({.seq = 1, .fault = "commit-then-delay:10s", .job = "job_1"});
}

// A POST of drifted_42() under k42, which already names job_id: refused with 422.
inline JournalEntry rejected_drift(std::uint64_t seq, std::int64_t at,
                                   const std::string& job_id = "job_1") {
  return post({.seq = seq,
               .at = at,
               .payload = drifted_42(),
               .outcome = Outcome::rejected,
               .status = 422,
               .code = "idempotency_key_reused_with_different_payload",
               .job = job_id});
}

// A POST without an Idempotency-Key: refused with 400 before its body is read, so the
// entry has no fingerprint.
inline JournalEntry keyless(std::uint64_t seq, std::int64_t at = 0) {
  return post({.seq = seq,
               .at = at,
               .key = "",
               .outcome = Outcome::missing_key,
               .status = 400,
               .code = "idempotency_key_required",
               .payload_read = false});
}

// Operation 43's POST under k43, which creates job_2, and that job.
inline JournalEntry post_43(std::uint64_t seq, std::int64_t at) {
  return post({.seq = seq, .at = at, .key = "k43", .payload = payload_43(), .job = "job_2"});
}
inline JobRecord job_43() {
  return job("job_2", "k43", "order-43");
}

using Said = std::optional<OutcomeLine>;  // what an invocation reported

inline Said said(const json& line) {
  return outcome_line_of(line).line;
}
inline Said succeeded(const std::string& job_id) {
  return said({{"outcome", "succeeded"}, {"jobId", job_id}});
}
inline Said failed() {
  return said({{"outcome", "failed"}, {"reason", "validation"}});
}
inline Said unknown() {
  return said({{"outcome", "unknown"}, {"idempotencyKey", "k42"}});
}

// One invocation of operation 42 (index 0 unless given) covering seqs [first, last].
inline InvocationResult invocation(std::uint64_t first, std::uint64_t last, Said outcome,
                                   int index = 0, const std::string& operation = kOp42,
                                   json payload = payload_42()) {
  return InvocationResult{.index = index,
                          .operation = operation,
                          .payload = std::move(payload),
                          .first_seq = first,
                          .last_seq = last,
                          .outcome = std::move(outcome),
                          .exit = "exit code 0"};
}

// The second invocation (index 1), of operation 43.
inline InvocationResult invocation_43(std::uint64_t first, std::uint64_t last, Said outcome) {
  return invocation(first, last, std::move(outcome), 1, kOp43, payload_43());
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

#define EXPECT_MENTIONS(verdict, part)               \
  EXPECT_TRUE(contains((verdict).explanation, part)) \
      << "missing \"" << (part) << "\" in: " << (verdict).explanation

// A hand-built run: what a world would have produced.
struct HandBuiltRun {
  const Scenario& scenario;
  std::vector<InvocationResult> invocations;
  std::vector<JournalEntry> journal;
  std::vector<JobRecord> jobs;
  JudgedPolicy policy = judged_policy(scenario, {});  // nothing declared
  // Each invocation's entries as the driver charges them, by connection (by_connection()):
  // else by window.
  std::optional<std::vector<std::vector<JournalEntry>>> charged;

  Evidence evidence() const {
    if (charged) return Evidence(scenario, policy, invocations, journal, jobs, *charged);
    return Evidence(scenario, policy, invocations, journal, jobs);
  }
  // The run judged as drive() judges one client after another: each request charged by the
  // connection it came on (scenarios/driver/attribution.hpp).
  HandBuiltRun by_connection() const {
    HandBuiltRun charged_run = *this;
    charged_run.charged = charged_entries(journal, invocations, false);
    record_charges(*charged_run.charged, charged_run.invocations, false);
    return charged_run;
  }
  HandBuiltRun declaring(const std::string& declaration) const {
    HandBuiltRun declared = *this;
    declared.policy = judged_policy(scenario, parse_client_policy(declaration));
    return declared;
  }
};

// One verdict of the table on the run, as judge() gives it.
inline Verdict check(std::string_view id, const HandBuiltRun& run) {
  const VerdictRow& row = verdict_row(id);
  Verdict verdict = row.check(run.evidence());
  verdict.id = std::string(id);
  verdict.severity = std::max(verdict.severity, row.severity);
  return verdict;
}

class Checkers : public ::testing::Test {
 protected:
  Checkers() {
    scenario_.name = "hand-built";
    scenario_.operations = {{kOp42, payload_42()}, {kOp43, payload_43()}};
    scenario_.invocations = {{kOp42}, {kOp43}};
    scenario_.settings.attempts = 3;
    scenario_.min_gap = 50ms;
  }

  HandBuiltRun run(std::vector<InvocationResult> invocations, std::vector<JournalEntry> journal,
                   std::vector<JobRecord> jobs = {}) const {
    return HandBuiltRun{scenario_, std::move(invocations), std::move(journal), std::move(jobs)};
  }

  // Runs that more than one test judges.

  // One POST, which creates job_1; the client reports it.
  HandBuiltRun one_post_job_1() const {
    return run({invocation(1, 1, succeeded("job_1"))}, {post({.seq = 1, .job = "job_1"})},
               {job("job_1", "k42")});
  }

  // A 503 before commit, then a retry 200 ms later that creates job_1.
  HandBuiltRun one_503_then_job_1() const {
    return run({invocation(1, 2, succeeded("job_1"))},
               {fail_before_commit(1), post({.seq = 2, .at = 200, .job = "job_1"})},
               {job("job_1", "k42")});
  }

  // The fresh-key anti-pattern: after commit-then-error stored job_1 under k42, the retry
  // carries a new key and creates job_2.
  HandBuiltRun fresh_key_retry() const {
    return run({invocation(1, 2, succeeded("job_2"))},
               {post({.seq = 1, .fault = "commit-then-error", .job = "job_1"}),
                post({.seq = 2, .at = 300, .key = "k42-fresh", .job = "job_2"})},
               {job("job_1", "k42"), job("job_2", "k42-fresh")});
  }

  // Two runs of operation 42, the second deriving a new key: job_1, then job_2.
  HandBuiltRun rerun_with_a_new_key() const {
    return run({invocation(1, 1, succeeded("job_1")), invocation(2, 2, succeeded("job_2"), 1)},
               {post({.seq = 1, .job = "job_1"}),
                post({.seq = 2, .at = 900, .key = "k42-rerun", .job = "job_2"})},
               {job("job_1", "k42"), job("job_2", "k42-rerun")});
  }

  // The payload-change scenario: the second invocation is asked for drifted_42(), sends
  // it under the same key, and the provider refuses it with 422.
  HandBuiltRun payload_change() const {
    return run(
        {invocation(1, 1, succeeded("job_1")), invocation(2, 2, failed(), 1, kOp42, drifted_42())},
        {post({.seq = 1, .job = "job_1"}), rejected_drift(2, 500)}, {job("job_1", "k42")});
  }

  Scenario scenario_;
};

inline void expect_pass(const Verdict& verdict) {
  EXPECT_EQ(to_string(verdict.status), "pass") << verdict.id << ": " << verdict.explanation;
  EXPECT_TRUE(verdict.evidence.empty()) << verdict.id;
}

inline void expect_not_applicable(const Verdict& verdict) {
  EXPECT_EQ(to_string(verdict.status), "n/a") << verdict.id << ": " << verdict.explanation;
  EXPECT_TRUE(verdict.evidence.empty()) << verdict.id;
}

inline void expect_fail(const Verdict& verdict, const Seqs& evidence) {
  EXPECT_EQ(to_string(verdict.status), "fail") << verdict.id << ": " << verdict.explanation;
  EXPECT_EQ(verdict.evidence, evidence) << verdict.id << ": " << verdict.explanation;
}

}  // namespace retryproof::scenarios::hand_built
