// The verdict checkers on hand-built runs: a scenario built in code, journal entries as
// the provider writes them, jobs, and the invocations' reported outcomes. For every
// verdict: a pass, a fail with its exact evidence, and the n/a case where one exists.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "common/fingerprint.hpp"
#include "scenarios/evidence.hpp"
#include "scenarios/verdicts.hpp"

namespace retryproof::scenarios {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using Seqs = std::vector<std::uint64_t>;

const std::string kOp42 = "fulfillment:order-42";
const std::string kOp43 = "fulfillment:order-43";

json payload_42() {
  return {{"orderId", "order-42"}, {"paymentId", "pay-42"}, {"amount", 120}};
}
json payload_43() {
  return {{"orderId", "order-43"}, {"amount", 80}};
}
json drifted_42() {
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
  std::string fault = "none";  // for a new operation
  std::optional<int> status;   // for other outcomes (a new one's comes from its fault)
  std::optional<std::string> job;
  bool payload_read = true;  // false: refused before the body was read, no fingerprint
};

JournalEntry post(const Post& p) {
  JournalEntry entry{.seq = p.seq,
                     .at = Millis(p.at),
                     .method = "POST",
                     .path = "/jobs",
                     .kind = provider::RequestKind::create,
                     .outcome = p.outcome,
                     .answered_at = Millis(p.at),
                     .status = p.status,
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

JournalEntry lookup(const Lookup& l) {
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
  }
  return entry;
}

JobRecord job(const std::string& id, const std::string& key,
              const std::string& order_id = "order-42") {
  return {id, key, {{"id", id}, {"orderId", order_id}}};
}

// The entries that recur, as the provider journals them (operation 42 under k42 unless
// named otherwise).

// A POST refused before commit with 503.
JournalEntry fail_before_commit(std::uint64_t seq, std::int64_t at = 0) {
  return post({.seq = seq, .at = at, .fault = "fail-before-commit"});
}

// A POST answered with a replay of job_1.
JournalEntry replay(std::uint64_t seq, std::int64_t at) {
  return post({.seq = seq, .at = at, .outcome = Outcome::replay, .status = 200, .job = "job_1"});
}

// The first POST, which stores job_1 and holds its answer for ten seconds.
JournalEntry commit_then_delay_10s() {
  return post({.seq = 1, .fault = "commit-then-delay:10s", .job = "job_1"});
}

// A POST of drifted_42() under k42, which already names job_id: refused with 422.
JournalEntry rejected_drift(std::uint64_t seq, std::int64_t at,
                            const std::string& job_id = "job_1") {
  return post({.seq = seq,
               .at = at,
               .payload = drifted_42(),
               .outcome = Outcome::rejected,
               .status = 422,
               .job = job_id});
}

// A POST without an Idempotency-Key: refused with 400 before its body is read, so the
// entry has no fingerprint.
JournalEntry keyless(std::uint64_t seq, std::int64_t at = 0) {
  return post({.seq = seq,
               .at = at,
               .key = "",
               .outcome = Outcome::missing_key,
               .status = 400,
               .payload_read = false});
}

// Operation 43's POST under k43, which creates job_2, and that job.
JournalEntry post_43(std::uint64_t seq, std::int64_t at) {
  return post({.seq = seq, .at = at, .key = "k43", .payload = payload_43(), .job = "job_2"});
}
JobRecord job_43() {
  return job("job_2", "k43", "order-43");
}

using Said = std::optional<OutcomeLine>;  // what an invocation reported

Said said(const json& line) {
  return outcome_line_of(line).line;
}
Said succeeded(const std::string& job_id) {
  return said({{"outcome", "succeeded"}, {"jobId", job_id}});
}
Said failed() {
  return said({{"outcome", "failed"}, {"reason", "validation"}});
}
Said unknown() {
  return said({{"outcome", "unknown"}, {"idempotencyKey", "k42"}});
}

// One invocation of operation 42 (index 0 unless given) covering seqs [first, last].
InvocationResult invocation(std::uint64_t first, std::uint64_t last, Said outcome, int index = 0,
                            const std::string& operation = kOp42, json payload = payload_42()) {
  return InvocationResult{.index = index,
                          .operation = operation,
                          .payload = std::move(payload),
                          .first_seq = first,
                          .last_seq = last,
                          .outcome = std::move(outcome),
                          .exit = "exit code 0"};
}

// The second invocation (index 1), of operation 43.
InvocationResult invocation_43(std::uint64_t first, std::uint64_t last, Said outcome) {
  return invocation(first, last, std::move(outcome), 1, kOp43, payload_43());
}

bool contains(const std::string& text, const std::string& part) {
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

  Evidence evidence() const { return Evidence(scenario, policy, invocations, journal, jobs); }
  HandBuiltRun declaring(const std::string& declaration) const {
    HandBuiltRun declared = *this;
    declared.policy = judged_policy(scenario, parse_client_policy(declaration));
    return declared;
  }
};

// One verdict of the table on the run, as judge() gives it.
Verdict check(std::string_view id, const HandBuiltRun& run) {
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

void expect_pass(const Verdict& verdict) {
  EXPECT_EQ(to_string(verdict.status), "pass") << verdict.id << ": " << verdict.explanation;
  EXPECT_TRUE(verdict.evidence.empty()) << verdict.id;
}

void expect_not_applicable(const Verdict& verdict) {
  EXPECT_EQ(to_string(verdict.status), "n/a") << verdict.id << ": " << verdict.explanation;
  EXPECT_TRUE(verdict.evidence.empty()) << verdict.id;
}

void expect_fail(const Verdict& verdict, const Seqs& evidence) {
  EXPECT_EQ(to_string(verdict.status), "fail") << verdict.id << ": " << verdict.explanation;
  EXPECT_EQ(verdict.evidence, evidence) << verdict.id << ": " << verdict.explanation;
}

// --- no-duplicate-effect ---

TEST_F(Checkers, NoDuplicateEffectPassesWithOneJobPerOperation) {
  const auto record =
      run({invocation(1, 2, succeeded("job_1")), invocation_43(3, 3, succeeded("job_2"))},
          {post({.seq = 1, .fault = "commit-then-error", .job = "job_1"}), replay(2, 300),
           post_43(3, 400)},
          {job("job_1", "k42"), job_43()});
  const Verdict verdict = check("no-duplicate-effect", record);
  EXPECT_EQ(verdict.id, "no-duplicate-effect");
  expect_pass(verdict);
}

TEST_F(Checkers, NoDuplicateEffectFailsWithTwoKeysForOneOperation) {
  const auto record = fresh_key_retry();
  const Verdict verdict = check("no-duplicate-effect", record);
  expect_fail(verdict, {1, 2});  // the two "new" entries that created the jobs
  EXPECT_MENTIONS(verdict, kOp42);
  EXPECT_MENTIONS(verdict, "2 jobs");
  EXPECT_MENTIONS(verdict, "job_1 (key k42, seq 1)");
  EXPECT_MENTIONS(verdict, "job_2 (key k42-fresh, seq 2)");
}

TEST_F(Checkers, NoDuplicateEffectCountsJobsAcrossInvocationsOfOneOperation) {
  const auto record = rerun_with_a_new_key();
  expect_fail(check("no-duplicate-effect", record), {1, 2});
}

// --- key-stability ---

TEST_F(Checkers, KeyStabilityPassesWhenEveryAttemptCarriesOneKey) {
  const auto record =
      run({invocation(1, 2, succeeded("job_1")), invocation_43(3, 3, succeeded("job_2"))},
          {fail_before_commit(1), post({.seq = 2, .at = 300, .job = "job_1"}), post_43(3, 400)},
          {job("job_1", "k42"), job_43()});
  const Verdict verdict = check("key-stability", record);
  EXPECT_EQ(verdict.id, "key-stability");
  expect_pass(verdict);
}

TEST_F(Checkers, KeyStabilityNamesTheFirstPostOfEachKey) {
  const auto record =
      run({invocation(1, 4, succeeded("job_2"))},
          {fail_before_commit(1), fail_before_commit(2, 300),
           post({.seq = 3, .at = 700, .key = "k42-b", .fault = "fail-before-commit"}),
           post({.seq = 4, .at = 1500, .key = "k42-b", .job = "job_2"})},
          {job("job_2", "k42-b")});
  const Verdict verdict = check("key-stability", record);
  expect_fail(verdict, {1, 3});
  EXPECT_MENTIONS(verdict, kOp42);
  EXPECT_MENTIONS(verdict, "2 keys");
  EXPECT_MENTIONS(verdict, "k42 (seq 1)");
  EXPECT_MENTIONS(verdict, "k42-b (seq 3)");
}

TEST_F(Checkers, KeyStabilityFailsWhenARerunDerivesANewKey) {
  const auto record = rerun_with_a_new_key();
  expect_fail(check("key-stability", record), {1, 2});
}

// --- payload-stability ---

TEST_F(Checkers, PayloadStabilityPassesWhateverTheKeyOrderOfTheSentPayload) {
  const json reordered =
      json::parse(R"({"amount": 120, "paymentId": "pay-42", "orderId": "order-42"})");
  const auto record =
      run({invocation(1, 1, succeeded("job_1"))},
          {post({.seq = 1, .payload = reordered, .job = "job_1"})}, {job("job_1", "k42")});
  const Verdict verdict = check("payload-stability", record);
  EXPECT_EQ(verdict.id, "payload-stability");
  expect_pass(verdict);
}

TEST_F(Checkers, PayloadStabilityFailsWhenARetryCarriesAnotherPayload) {
  const auto record = run(
      {invocation(1, 2, succeeded("job_1"))},
      {fail_before_commit(1), post({.seq = 2, .at = 300, .payload = drifted_42(), .job = "job_1"})},
      {job("job_1", "k42")});
  const Verdict verdict = check("payload-stability", record);
  expect_fail(verdict, {2});
  EXPECT_MENTIONS(verdict, "key k42 (seq 2)");
  EXPECT_MENTIONS(verdict, kOp42);
  EXPECT_FALSE(contains(verdict.explanation, "422")) << verdict.explanation;
}

TEST_F(Checkers, PayloadStabilitySaysWhenTheProviderRefusedTheChangedPayloadWith422) {
  const auto record =
      run({invocation(1, 2, failed())},
          {post({.seq = 1, .fault = "commit-then-error", .job = "job_1"}), rejected_drift(2, 300)},
          {job("job_1", "k42")});
  const Verdict verdict = check("payload-stability", record);
  expect_fail(verdict, {2});
  EXPECT_MENTIONS(verdict, "key k42 (seq 2)");
  EXPECT_MENTIONS(verdict, "refused it with 422");
}

TEST_F(Checkers, PayloadStabilityJudgesEachInvocationByThePayloadItWasGiven) {
  // The payload-change scenario: the second invocation is asked for a changed amount and
  // faithfully sends it; the 422 is the provider's, not the client's doing.
  const auto record = payload_change();
  expect_pass(check("payload-stability", record));
}

TEST_F(Checkers, PayloadStabilityDoesNotJudgeAPostWhosePayloadTheProviderNeverRead) {
  // A POST without an Idempotency-Key is refused with 400 before the body is parsed, so
  // its journal entry has no fingerprint. The client sent the right payload; that 400 is
  // no-retry-of-definitive's business, not "a payload other than the one asked for".
  const auto record = run({invocation(1, 1, failed())}, {keyless(1)});
  const Verdict verdict = check("payload-stability", record);
  EXPECT_NE(to_string(verdict.status), "fail") << verdict.explanation;
}

// --- fail-closed ---

TEST_F(Checkers, FailClosedIsNotApplicableWithoutAnAmbiguousOutcome) {
  const auto record =
      run({invocation(1, 2, succeeded("job_1"))},
          {post({.seq = 1, .fault = "commit-then-error", .job = "job_1"}), replay(2, 300)},
          {job("job_1", "k42")});
  const Verdict verdict = check("fail-closed", record);
  EXPECT_EQ(verdict.id, "fail-closed");
  expect_not_applicable(verdict);
}

struct Ambiguity {
  std::string fault;
  std::optional<std::string> job;  // the job it stored, if any
  std::string described;
};

class FailClosedAfter : public Checkers, public ::testing::WithParamInterface<Ambiguity> {};

TEST_P(FailClosedAfter, ABlindPostWithTheSameKeyFailsWithBothSeqs) {
  const Ambiguity& a = GetParam();
  const auto record = run(
      {invocation(1, 2, succeeded("job_1"))},
      {post({.seq = 1, .fault = a.fault, .job = a.job}),
       a.job
           ? post({.seq = 2, .at = 300, .outcome = Outcome::replay, .status = 200, .job = "job_1"})
           : post({.seq = 2, .at = 300, .job = "job_1"})},
      {job("job_1", "k42")});
  const Verdict verdict = check("fail-closed", record);
  expect_fail(verdict, {1, 2});
  EXPECT_MENTIONS(verdict, "key k42");
  EXPECT_MENTIONS(verdict, "re-sent (seq 2)");
  EXPECT_MENTIONS(verdict, a.described + " (seq 1)");
}

TEST_P(FailClosedAfter, ALookupFirstPasses) {
  const Ambiguity& a = GetParam();
  const auto record = run({invocation(1, 2, succeeded("job_1"))},
                          {post({.seq = 1, .fault = a.fault, .job = a.job}),
                           lookup({.seq = 2, .at = 300, .job = "job_1"})},
                          {job("job_1", "k42")});
  expect_pass(check("fail-closed", record));
}

TEST_P(FailClosedAfter, StoppingWithoutAnotherRequestPasses) {
  const Ambiguity& a = GetParam();
  const auto record =
      run({invocation(1, 1, unknown())}, {post({.seq = 1, .fault = a.fault, .job = a.job})},
          {job("job_1", "k42")});
  expect_pass(check("fail-closed", record));
}

INSTANTIATE_TEST_SUITE_P(
    HiddenOutcomes, FailClosedAfter,
    ::testing::Values(Ambiguity{"commit-then-drop", "job_1", "a dropped connection"},
                      Ambiguity{"drop-before-commit", std::nullopt, "a dropped connection"},
                      Ambiguity{"commit-then-reset", "job_1", "a reset connection"},
                      Ambiguity{"commit-then-truncate", "job_1", "a truncated response"},
                      Ambiguity{"commit-then-500", "job_1", "a 500"}),
    [](const ::testing::TestParamInfo<Ambiguity>& param_info) {
      std::string name = param_info.param.fault;
      std::erase(name, '-');
      return name;
    });

TEST_F(Checkers, FailClosedAllowsAResubmissionAfterALookupMiss) {
  const auto record = run({invocation(1, 3, succeeded("job_1"))},
                          {post({.seq = 1, .fault = "drop-before-commit"}),
                           lookup({.seq = 2, .at = 300, .outcome = Outcome::lookup_miss}),
                           post({.seq = 3, .at = 600, .job = "job_1"})},
                          {job("job_1", "k42")});
  expect_pass(check("fail-closed", record));
}

TEST_F(Checkers, FailClosedLooksOnlyAtRequestsAboutTheSameKey) {
  // Another operation's POST in between is not "the next request about k42".
  const auto record = run({invocation(1, 3, succeeded("job_1"))},
                          {post({.seq = 1, .fault = "commit-then-drop", .job = "job_1"}),
                           post_43(2, 100), lookup({.seq = 3, .at = 300, .job = "job_1"})},
                          {job("job_1", "k42"), job_43()});
  expect_pass(check("fail-closed", record));
}

TEST_F(Checkers, FailClosedCommitThenDelayFollowedByAPostBeforeTheResponseFails) {
  const auto record =
      run({invocation(1, 2, succeeded("job_1"))},
          {post({.seq = 1, .fault = "commit-then-delay:3s", .job = "job_1"}), replay(2, 100)},
          {job("job_1", "k42")});
  const Verdict verdict = check("fail-closed", record);
  expect_fail(verdict, {1, 2});
  EXPECT_MENTIONS(verdict, "no answer within the client's timeout of 1000 ms");
  EXPECT_MENTIONS(verdict, "the provider replayed job_1");
  EXPECT_MENTIONS(verdict, "on-ambiguous=same-key-retry");  // the declaration that changes it
  EXPECT_EQ(verdict.severity, Severity::policy);
  EXPECT_MENTIONS(verdict, "seq 1");
  EXPECT_MENTIONS(verdict, "seq 2");
}

// The same rule in every scenario: an answer held past the client's timeout is hidden from
// it whenever its next request comes, before the hold ends or after.
TEST_F(Checkers, FailClosedAHeldAnswerIsHiddenWhateverTheReSendsTiming) {
  const auto record =
      run({invocation(1, 2, succeeded("job_1"))},
          {post({.seq = 1, .fault = "commit-then-delay:3s", .job = "job_1"}), replay(2, 4000)},
          {job("job_1", "k42")});
  expect_fail(check("fail-closed", record), {1, 2});
}

TEST_F(Checkers, FailClosedAHoldShorterThanTheTimeoutHidesNothing) {
  const auto record =
      run({invocation(1, 2, succeeded("job_1"))},
          {post({.seq = 1, .fault = "commit-then-delay:200ms", .job = "job_1"}), replay(2, 400)},
          {job("job_1", "k42")});
  expect_not_applicable(check("fail-closed", record));
}

TEST_F(Checkers, FailClosedJudgesTheTimeoutTheClientDeclares) {
  // Held 3 s: hidden from a client with the scenario's 1 s timeout, not from one that
  // declares it waits 5 s.
  const auto record =
      run({invocation(1, 2, succeeded("job_1"))},
          {post({.seq = 1, .fault = "commit-then-delay:3s", .job = "job_1"}), replay(2, 3500)},
          {job("job_1", "k42")});
  expect_fail(check("fail-closed", record), {1, 2});
  expect_not_applicable(check("fail-closed", record.declaring("timeout=5s")));
}

TEST_F(Checkers, FailClosedLetsASameKeyRetryClientReSendTheSameKey) {
  const auto record =
      run({invocation(1, 2, succeeded("job_1"))},
          {post({.seq = 1, .fault = "commit-then-drop", .job = "job_1"}), replay(2, 300)},
          {job("job_1", "k42")});
  expect_fail(check("fail-closed", record), {1, 2});
  const Verdict declared = check("fail-closed", record.declaring("on-ambiguous=same-key-retry"));
  expect_pass(declared);
  EXPECT_MENTIONS(declared, "1 re-send(s) with the same key");
}

TEST_F(Checkers, FailClosedCommitThenDelayFollowedByALookupPasses) {
  const auto record = run({invocation(1, 2, succeeded("job_1"))},
                          {post({.seq = 1, .fault = "commit-then-delay:3s", .job = "job_1"}),
                           lookup({.seq = 2, .at = 600, .job = "job_1"})},
                          {job("job_1", "k42")});
  expect_pass(check("fail-closed", record));
}

// --- attempt-budget ---

TEST_F(Checkers, AttemptBudgetPassesAtTheBudget) {
  const auto record = run({invocation(1, 3, succeeded("job_1"))},
                          {fail_before_commit(1), fail_before_commit(2, 200),
                           post({.seq = 3, .at = 600, .job = "job_1"})},
                          {job("job_1", "k42")});
  const Verdict verdict = check("attempt-budget", record);
  EXPECT_EQ(verdict.id, "attempt-budget");
  expect_pass(verdict);
  EXPECT_MENTIONS(verdict, "3 attempts");
}

TEST_F(Checkers, AttemptBudgetNamesTheFirstPostOverIt) {
  const auto record = run(
      {invocation(1, 6, succeeded("job_1"))},
      {fail_before_commit(1), fail_before_commit(2, 200),
       lookup({.seq = 3, .at = 500, .outcome = Outcome::lookup_miss}), fail_before_commit(4, 600),
       lookup({.seq = 5, .at = 900, .outcome = Outcome::lookup_miss}),
       post({.seq = 6, .at = 1400, .job = "job_1"})},
      {job("job_1", "k42")});
  const Verdict verdict = check("attempt-budget", record);
  expect_fail(verdict, {6});  // the 4th POST; lookups do not count
  EXPECT_MENTIONS(verdict, kOp42);
  EXPECT_MENTIONS(verdict, "sent 4 POSTs (the first over the budget: seq 6); the budget is 3");
  EXPECT_MENTIONS(verdict, "--client-policy attempts=N");
  EXPECT_EQ(verdict.severity, Severity::policy);
  // urllib3's Retry(total=3) makes four requests by design: declared, the budget is four.
  expect_pass(check("attempt-budget", record.declaring("attempts=4")));
}

TEST_F(Checkers, AttemptBudgetIsPerRunOfTheClient) {
  // Two runs of one operation, 2 + 2 POSTs: each run stayed within its budget of 3.
  const auto within =
      run({invocation(1, 2, failed()), invocation(3, 4, succeeded("job_1"), 1)},
          {fail_before_commit(1), fail_before_commit(2, 200), fail_before_commit(3, 900),
           post({.seq = 4, .at = 1200, .job = "job_1"})},
          {job("job_1", "k42")});
  expect_pass(check("attempt-budget", within));

  // The second run alone went over it: the evidence is its own 4th POST.
  const auto over =
      run({invocation(1, 1, failed()), invocation(2, 5, succeeded("job_1"), 1)},
          {fail_before_commit(1), fail_before_commit(2, 900), fail_before_commit(3, 1100),
           fail_before_commit(4, 1500), post({.seq = 5, .at = 2300, .job = "job_1"})},
          {job("job_1", "k42")});
  const Verdict verdict = check("attempt-budget", over);
  expect_fail(verdict, {5});
  EXPECT_MENTIONS(verdict, "invocation 2 (" + kOp42 + ") sent 4 POSTs");
}

// --- backoff ---

TEST_F(Checkers, BackoffIsNotApplicableWithoutRetries) {
  // One POST per invocation: a rerun right after is not a retry.
  const auto record =
      run({invocation(1, 1, succeeded("job_1")), invocation(2, 2, succeeded("job_1"), 1)},
          {post({.seq = 1, .job = "job_1"}), replay(2, 1)}, {job("job_1", "k42")});
  const Verdict verdict = check("backoff", record);
  EXPECT_EQ(verdict.id, "backoff");
  expect_not_applicable(verdict);
}

TEST_F(Checkers, BackoffFailsBelowTheFloorWithBothSeqs) {
  const auto record =
      run({invocation(1, 2, succeeded("job_1"))},
          {fail_before_commit(1, 1000), post({.seq = 2, .at = 1010, .job = "job_1"})},
          {job("job_1", "k42")});
  const Verdict verdict = check("backoff", record);
  expect_fail(verdict, {1, 2});
  EXPECT_MENTIONS(verdict, "attempt 2 of " + kOp42 + " (seq 2)");
  EXPECT_MENTIONS(verdict, "10 ms");
  EXPECT_MENTIONS(verdict, "(seq 1)");
  EXPECT_MENTIONS(verdict, "the floor is 50 ms");
}

TEST_F(Checkers, BackoffPassesAtOrAboveTheFloor) {
  for (const std::int64_t gap : {50, 60}) {
    const auto record =
        run({invocation(1, 2, succeeded("job_1"))},
            {fail_before_commit(1, 1000), post({.seq = 2, .at = 1000 + gap, .job = "job_1"})},
            {job("job_1", "k42")});
    const Verdict verdict = check("backoff", record);
    expect_pass(verdict);
    EXPECT_MENTIONS(verdict, "50 ms");
  }
}

TEST_F(Checkers, BackoffMeasuresFromPostToPostNotFromTheLookupBetween) {
  const auto record = run({invocation(1, 3, succeeded("job_1"))},
                          {post({.seq = 1, .at = 0, .fault = "drop-before-commit"}),
                           lookup({.seq = 2, .at = 5, .outcome = Outcome::lookup_miss}),
                           post({.seq = 3, .at = 60, .job = "job_1"})},
                          {job("job_1", "k42")});
  expect_pass(check("backoff", record));
}

TEST_F(Checkers, BackoffCountsFromWhenTheClientLeftSoARetryRightAfterATimeoutIsCaught) {
  // Held 3 s; the client closed its connection at 1000 ms and re-sent at 1002 ms. Measured
  // from arrival to arrival the gap would be 1002 ms; the client waited 2 ms.
  JournalEntry held = post({.seq = 1, .fault = "commit-then-delay:3s", .job = "job_1"});
  held.abandoned_at = Millis(1000);
  const auto record =
      run({invocation(1, 2, succeeded("job_1"))}, {held, replay(2, 1002)}, {job("job_1", "k42")});
  const Verdict verdict = check("backoff", record);
  expect_fail(verdict, {1, 2});
  EXPECT_MENTIONS(verdict, "came at once, 2 ms after the previous attempt (seq 1) ended");
}

TEST_F(Checkers, BackoffDoesNotGuessWhenAClientLeftAHeldAnswer) {
  // Not seen to leave: its timer started before its request arrived, so arrival plus its
  // timeout is no measure of when it stopped waiting. The gap is not judged, and says so.
  const auto record =
      run({invocation(1, 2, succeeded("job_1"))},
          {post({.seq = 1, .fault = "commit-then-delay:3s", .job = "job_1"}), replay(2, 1002)},
          {job("job_1", "k42")});
  const Verdict verdict = check("backoff", record);
  expect_not_applicable(verdict);
  EXPECT_MENTIONS(verdict, "did not see when the client stopped waiting");
}

TEST_F(Checkers, BackoffListsTheWaitsAndFollowsADeclaredFloor) {
  const auto record = run({invocation(1, 3, succeeded("job_1"))},
                          {fail_before_commit(1, 0), fail_before_commit(2, 20),
                           post({.seq = 3, .at = 60, .job = "job_1"})},
                          {job("job_1", "k42")});
  expect_fail(check("backoff", record), {1, 2, 3});
  const Verdict declared = check("backoff", record.declaring("min-backoff=0ms"));
  expect_pass(declared);
  EXPECT_MENTIONS(declared, "(waits: 20, 40 ms)");
  EXPECT_MENTIONS(check("backoff", record), "declare it: --client-policy min-backoff=DURATION");
}

// --- retry-after ---

TEST_F(Checkers, RetryAfterIsNotApplicableWithoutA429) {
  const auto record = one_503_then_job_1();
  const Verdict verdict = check("retry-after", record);
  EXPECT_EQ(verdict.id, "retry-after");
  expect_not_applicable(verdict);
}

TEST_F(Checkers, RetryAfterIsNotApplicableWhenThe429WasNotRetried) {
  const auto record =
      run({invocation(1, 1, failed())}, {post({.seq = 1, .fault = "rate-limited:2"})});
  expect_not_applicable(check("retry-after", record));
}

TEST_F(Checkers, RetryAfterFailsWhenTheRetryCameSooner) {
  const auto record = run({invocation(1, 2, succeeded("job_1"))},
                          {post({.seq = 1, .at = 100, .fault = "rate-limited:2"}),
                           post({.seq = 2, .at = 1600, .job = "job_1"})},
                          {job("job_1", "k42")});
  const Verdict verdict = check("retry-after", record);
  expect_fail(verdict, {1, 2});
  EXPECT_MENTIONS(verdict, "Retry-After: 2 (seq 1)");
  EXPECT_MENTIONS(verdict, "1500 ms later (seq 2)");
}

TEST_F(Checkers, RetryAfterPassesWhenTheRetryWaitedLongEnough) {
  const auto record = run({invocation(1, 2, succeeded("job_1"))},
                          {post({.seq = 1, .at = 100, .fault = "rate-limited:2"}),
                           post({.seq = 2, .at = 2100, .job = "job_1"})},
                          {job("job_1", "k42")});
  expect_pass(check("retry-after", record));
}

TEST_F(Checkers, RetryAfterWithoutASecondsParameterMeansOneSecond) {
  // The provider journals the default Retry-After of 1 as plain "rate-limited".
  for (const auto& [gap, expected] :
       {std::pair{999, VerdictStatus::fail}, std::pair{1000, VerdictStatus::pass}}) {
    const auto record = run({invocation(1, 2, succeeded("job_1"))},
                            {post({.seq = 1, .at = 0, .fault = "rate-limited"}),
                             post({.seq = 2, .at = gap, .job = "job_1"})},
                            {job("job_1", "k42")});
    EXPECT_EQ(to_string(check("retry-after", record).status), to_string(expected)) << gap;
  }
}

// --- no-retry-of-definitive ---

TEST_F(Checkers, NoRetryOfDefinitiveIsNotApplicableWithout400Or422) {
  const auto record = one_503_then_job_1();
  const Verdict verdict = check("no-retry-of-definitive", record);
  EXPECT_EQ(verdict.id, "no-retry-of-definitive");
  expect_not_applicable(verdict);
}

TEST_F(Checkers, NoRetryOfDefinitiveFailsWhenA422IsRetriedInTheSameInvocation) {
  const auto record = run(
      {invocation(1, 1, succeeded("job_1")), invocation(2, 3, failed(), 1, kOp42, drifted_42())},
      {post({.seq = 1, .job = "job_1"}), rejected_drift(2, 500), rejected_drift(3, 800)},
      {job("job_1", "k42")});
  const Verdict verdict = check("no-retry-of-definitive", record);
  expect_fail(verdict, {2, 3});
  EXPECT_MENTIONS(verdict, "re-sent (seq 3) after a 422 (seq 2)");
}

TEST_F(Checkers, NoRetryOfDefinitiveFailsWhenA400IsRetried) {
  const auto record = run({invocation(1, 2, failed())}, {keyless(1), keyless(2, 300)});
  const Verdict verdict = check("no-retry-of-definitive", record);
  expect_fail(verdict, {1, 2});
  EXPECT_MENTIONS(verdict, "after a 400 (seq 1)");
}

TEST_F(Checkers, NoRetryOfDefinitivePassesWhenOnlyALaterInvocationSendsAgain) {
  const auto record = run(
      {invocation(1, 1, failed(), 0, kOp42, drifted_42()), invocation(2, 2, succeeded("job_1"), 1)},
      {rejected_drift(1, 0, "job_0"), post({.seq = 2, .at = 900, .job = "job_1"})},
      {job("job_1", "k42")});
  expect_pass(check("no-retry-of-definitive", record));
}

// --- truthful-outcome ---

TEST_F(Checkers, TruthfulOutcomePassesForAJobTheProviderHoldsForTheOperation) {
  const auto record = run({invocation(1, 2, succeeded("job_1"))},
                          {post({.seq = 1, .fault = "commit-then-drop", .job = "job_1"}),
                           lookup({.seq = 2, .at = 300, .job = "job_1"})},
                          {job("job_1", "k42")});
  const Verdict verdict = check("truthful-outcome", record);
  EXPECT_EQ(verdict.id, "truthful-outcome");
  expect_pass(verdict);
}

TEST_F(Checkers, TruthfulOutcomeFailsForAJobTheProviderDoesNotHold) {
  const auto record = run({invocation(1, 1, succeeded("job_9"))},
                          {post({.seq = 1, .job = "job_1"})}, {job("job_1", "k42")});
  const Verdict verdict = check("truthful-outcome", record);
  EXPECT_EQ(to_string(verdict.status), "fail") << verdict.explanation;
  EXPECT_MENTIONS(verdict, "invocation 1 (" + kOp42 + ") reported succeeded with job_9");
}

TEST_F(Checkers, TruthfulOutcomeFailsForAJobHeldForAnotherOperation) {
  const auto record =
      run({invocation(1, 1, succeeded("job_1")), invocation_43(2, 2, succeeded("job_1"))},
          {post({.seq = 1, .job = "job_1"}), post_43(2, 300)}, {job("job_1", "k42"), job_43()});
  const Verdict verdict = check("truthful-outcome", record);
  EXPECT_EQ(to_string(verdict.status), "fail") << verdict.explanation;
  EXPECT_MENTIONS(verdict, "invocation 2 (" + kOp43 + ") reported succeeded with job_1");
}

TEST_F(Checkers, TruthfulOutcomeFailsWhenFailedIsReportedForAJobCreatedWithThisPayload) {
  const auto record =
      run({invocation(1, 1, failed())},
          {post({.seq = 1, .fault = "commit-then-drop", .job = "job_1"})}, {job("job_1", "k42")});
  const Verdict verdict = check("truthful-outcome", record);
  expect_fail(verdict, {1});
  EXPECT_MENTIONS(verdict, "invocation 1 (" + kOp42 + ") reported failed");
  EXPECT_MENTIONS(verdict, "job_1 for key k42 (created at seq 1)");
}

TEST_F(Checkers, TruthfulOutcomeAcceptsFailedWhenTheOnlyJobWasCreatedWithAnotherPayload) {
  const auto record = payload_change();
  expect_pass(check("truthful-outcome", record));
}

TEST_F(Checkers, TruthfulOutcomeAcceptsFailedWhenOnlyALaterRunCreatedTheJob) {
  // The first run spent its budget on 503s and truthfully reported failed; a later run of
  // the same operation created the job with the same payload.
  const auto record =
      run({invocation(1, 3, failed()), invocation(4, 4, succeeded("job_1"), 1)},
          {fail_before_commit(1), fail_before_commit(2, 200), fail_before_commit(3, 600),
           post({.seq = 4, .at = 2000, .job = "job_1"})},
          {job("job_1", "k42")});
  expect_pass(check("truthful-outcome", record));
}

TEST_F(Checkers, TruthfulOutcomeAllowsUnknownAndCountsIt) {
  const auto record = run({invocation(1, 2, unknown())},
                          {post({.seq = 1, .fault = "commit-then-drop", .job = "job_1"}),
                           lookup({.seq = 2, .at = 300, .outcome = Outcome::lookup_failed})},
                          {job("job_1", "k42")});
  const Verdict verdict = check("truthful-outcome", record);
  expect_pass(verdict);
  EXPECT_MENTIONS(verdict, "1 unknown");
}

TEST_F(Checkers, TruthfulOutcomeIgnoresInvocationsWithoutAnOutcome) {
  auto killed = invocation(1, 1, std::nullopt);
  killed.killed = true;
  const auto record = run({killed}, {commit_then_delay_10s()}, {job("job_1", "k42")});
  expect_pass(check("truthful-outcome", record));
}

TEST_F(Checkers, TruthfulOutcomeRefusesTheOldJobAsTheAnswerToAChangedPayload) {
  // payload-change: the second invocation asks for amount 999 under the same key; the
  // provider refuses it with 422, and the client answers with the job of amount 120.
  const auto record =
      run({invocation(1, 1, succeeded("job_1")),
           invocation(2, 2, succeeded("job_1"), 1, kOp42, drifted_42())},
          {post({.seq = 1, .job = "job_1"}), rejected_drift(2, 500)}, {job("job_1", "k42")});
  const Verdict verdict = check("truthful-outcome", record);
  expect_fail(verdict, {1});
  EXPECT_MENTIONS(verdict, "invocation 2 (" + kOp42 + ") reported succeeded with job_1");
  EXPECT_MENTIONS(verdict, "from another payload");
  EXPECT_EQ(verdict.severity, Severity::harm);
}

// --- gave-up ---

TEST_F(Checkers, GaveUpFailsAReportWithoutASingleRequest) {
  for (const Said& outcome : {failed(), unknown()}) {
    const auto record = run({invocation(1, 0, outcome)}, {});
    const Verdict verdict = check("gave-up", record);
    expect_fail(verdict, {});
    EXPECT_MENTIONS(verdict, "without sending a single request");
  }
}

TEST_F(Checkers, GaveUpFailsAStopAfterA503WithBudgetLeft) {
  const auto record = run({invocation(1, 1, unknown())}, {fail_before_commit(1)});
  const Verdict verdict = check("gave-up", record);
  expect_fail(verdict, {1});
  EXPECT_MENTIONS(verdict, "after a 503 (seq 1) with 2 of its 3 attempts left");
  EXPECT_MENTIONS(verdict, "--client-policy attempts=1");
  expect_pass(check("gave-up", record.declaring("attempts=1")));
}

TEST_F(Checkers, GaveUpAcceptsAReportOnceTheBudgetIsSpent) {
  const auto record =
      run({invocation(1, 4, failed())},
          {fail_before_commit(1), fail_before_commit(2, 200), fail_before_commit(3, 600),
           lookup({.seq = 4, .at = 900, .outcome = Outcome::lookup_miss})});
  expect_pass(check("gave-up", record));
}

TEST_F(Checkers, GaveUpAcceptsARerunThatSendsNothingOnAnEarlierAnswer) {
  // The payload-change refusal, reported again by a rerun from the client's record.
  const auto record =
      run({invocation(1, 1, failed()), invocation(2, 1, failed(), 1)}, {rejected_drift(1, 0)}, {});
  expect_pass(check("gave-up", record));
}

TEST_F(Checkers, GaveUpIsNotApplicableWhenEveryRunSucceeded) {
  expect_not_applicable(check("gave-up", one_post_job_1()));
}

// --- time-limit ---

TEST_F(Checkers, TimeLimitNamesTheRunStillRetryingAndItsLastRequest) {
  auto slow = invocation(1, 2, std::nullopt);
  slow.timed_out = true;
  slow.exit = "killed by SIGKILL";
  const auto record = run({slow}, {fail_before_commit(1, 0), fail_before_commit(2, 8000)});
  const Verdict verdict = check("time-limit", record);
  expect_fail(verdict, {});
  EXPECT_MENTIONS(verdict, "still running at the time limit of 20s");
  EXPECT_MENTIONS(verdict, "its last request (seq 2) came 8000 ms after it started");
  EXPECT_EQ(verdict.severity, Severity::policy);
  // Stopped by the harness, it printed nothing: that is time-limit's, not client-error's.
  expect_pass(check("client-error", record));
}

// --- crash-recovery ---

TEST_F(Checkers, CrashRecoveryIsNotApplicableWithoutAKill) {
  const auto record =
      run({invocation(1, 1, succeeded("job_1")), invocation(2, 2, succeeded("job_1"), 1)},
          {post({.seq = 1, .job = "job_1"}), replay(2, 500)}, {job("job_1", "k42")});
  const Verdict verdict = check("crash-recovery", record);
  EXPECT_EQ(verdict.id, "crash-recovery");
  expect_not_applicable(verdict);
}

InvocationResult killed_first() {
  auto result = invocation(1, 1, std::nullopt);
  result.killed = true;
  result.exit = "killed by SIGKILL";
  return result;
}

TEST_F(Checkers, CrashRecoveryFailsWhenTheRerunStartsWithAPost) {
  const auto record = run({killed_first(), invocation(2, 2, succeeded("job_1"), 1)},
                          {commit_then_delay_10s(), replay(2, 200)}, {job("job_1", "k42")});
  const Verdict verdict = check("crash-recovery", record);
  expect_fail(verdict, {2});
  EXPECT_MENTIONS(verdict, "the first request for " + kOp42 + " was POST /jobs (seq 2)");
}

TEST_F(Checkers, CrashRecoveryPassesWhenTheRerunLooksUpFirst) {
  const auto record = run({killed_first(), invocation(2, 2, succeeded("job_1"), 1)},
                          {commit_then_delay_10s(), lookup({.seq = 2, .at = 200, .job = "job_1"})},
                          {job("job_1", "k42")});
  expect_pass(check("crash-recovery", record));
}

TEST_F(Checkers, CrashRecoveryFailsOnASecondJobAfterTheRestart) {
  // The memory-only-intent mutant: the rerun derives a new key and creates a second job.
  const auto record =
      run({killed_first(), invocation(2, 2, succeeded("job_2"), 1)},
          {commit_then_delay_10s(), post({.seq = 2, .at = 200, .key = "k42-new", .job = "job_2"})},
          {job("job_1", "k42"), job("job_2", "k42-new")});
  const Verdict verdict = check("crash-recovery", record);
  expect_fail(verdict, {2});
  EXPECT_MENTIONS(verdict, "created a second job, job_2 (seq 2, key k42-new)");
  EXPECT_MENTIONS(verdict, "and 1 more");       // and under lookup-first it did not ask first
  EXPECT_EQ(verdict.severity, Severity::harm);  // the second job; the skipped lookup is policy
}

TEST_F(Checkers, CrashRecoveryASameKeyReSendAfterTheRestartIsPolicyOnlyUnderLookupFirst) {
  // Killed after the commit; the restart re-sends the same key and gets the replay.
  const auto record = run({killed_first(), invocation(2, 2, succeeded("job_1"), 1)},
                          {commit_then_delay_10s(), replay(2, 200)}, {job("job_1", "k42")});
  const Verdict verdict = check("crash-recovery", record);
  expect_fail(verdict, {2});
  EXPECT_EQ(verdict.severity, Severity::policy);
  EXPECT_MENTIONS(verdict, "the provider replayed job_1");
  expect_pass(check("crash-recovery", record.declaring("on-ambiguous=same-key-retry")));
}

TEST_F(Checkers, CrashRecoveryFailsOnASecondJobEvenAfterALookup) {
  const auto record =
      run({killed_first(), invocation(2, 3, succeeded("job_2"), 1)},
          {commit_then_delay_10s(),
           lookup({.seq = 2, .at = 200, .key = "k42-new", .outcome = Outcome::lookup_miss}),
           post({.seq = 3, .at = 300, .key = "k42-new", .job = "job_2"})},
          {job("job_1", "k42"), job("job_2", "k42-new")});
  const Verdict verdict = check("crash-recovery", record);
  expect_fail(verdict, {3});
  EXPECT_MENTIONS(verdict, "the restart after the kill created a second job");
  EXPECT_EQ(verdict.severity, Severity::harm);
}

TEST_F(Checkers, CrashRecoveryPassesWhenNothingRunsAfterTheKill) {
  const auto record = run({killed_first()}, {commit_then_delay_10s()}, {job("job_1", "k42")});
  expect_pass(check("crash-recovery", record));
}

// --- client-error ---

TEST_F(Checkers, ClientErrorPassesWhenEveryInvocationPrintedAnOutcome) {
  const auto record = one_post_job_1();
  const Verdict verdict = check("client-error", record);
  EXPECT_EQ(verdict.id, "client-error");
  expect_pass(verdict);
}

TEST_F(Checkers, ClientErrorNamesTheInvocationAndWhatWentWrong) {
  auto broken = invocation_43(2, 1, std::nullopt);
  broken.client_error = "printed \"garbage\", which is not a JSON object (exit code 0)";
  const auto record = run({invocation(1, 1, succeeded("job_1")), broken},
                          {post({.seq = 1, .job = "job_1"})}, {job("job_1", "k42")});
  const Verdict verdict = check("client-error", record);
  EXPECT_EQ(to_string(verdict.status), "fail");
  EXPECT_TRUE(verdict.evidence.empty());
  EXPECT_MENTIONS(verdict, "invocation 2 (" + kOp43 + "): printed \"garbage\"");
}

TEST_F(Checkers, ClientErrorIgnoresAnInvocationKilledOnPurpose) {
  auto killed = killed_first();
  killed.client_error = "killed";
  const auto record = run({killed}, {commit_then_delay_10s()}, {job("job_1", "k42")});
  expect_pass(check("client-error", record));
}

// --- judge ---

TEST_F(Checkers, JudgeReturnsEveryVerdictInReportOrder) {
  const auto record = one_post_job_1();
  const auto verdicts = judge(record.evidence());
  std::vector<std::string> ids;
  for (const auto& verdict : verdicts) {
    ids.push_back(verdict.id);
    EXPECT_NE(to_string(verdict.status), "fail") << verdict.id << ": " << verdict.explanation;
    EXPECT_FALSE(verdict.explanation.empty()) << verdict.id;
  }
  EXPECT_EQ(ids, verdict_ids());
}

TEST_F(Checkers, JudgeFlagsTheFreshKeyAntiPattern) {
  const auto record = fresh_key_retry();
  std::vector<std::string> failing;
  for (const auto& verdict : judge(record.evidence())) {
    if (verdict.status == VerdictStatus::fail) failing.push_back(verdict.id);
  }
  EXPECT_EQ(failing, (std::vector<std::string>{"no-duplicate-effect", "key-stability"}));
}

TEST_F(Checkers, JudgeGivesEachFailureItsSeverity) {
  for (const auto& verdict : judge(fresh_key_retry().evidence())) {
    if (verdict.id == "no-duplicate-effect") {
      EXPECT_EQ(verdict.severity, Severity::harm);
    }
    if (verdict.id == "key-stability") {
      EXPECT_EQ(verdict.severity, Severity::policy);
    }
  }
  for (const VerdictRow& row : verdict_table()) {
    EXPECT_FALSE(row.rule.empty()) << row.id;
  }
  EXPECT_EQ(to_string(Severity::harm), "harm");
  EXPECT_EQ(parse_severity("policy"), Severity::policy);
  EXPECT_THROW(parse_severity("minor"), std::invalid_argument);
}

TEST(VerdictStatusText, Spellings) {
  EXPECT_EQ(to_string(VerdictStatus::pass), "pass");
  EXPECT_EQ(to_string(VerdictStatus::fail), "fail");
  EXPECT_EQ(to_string(VerdictStatus::not_applicable), "n/a");
}

}  // namespace
}  // namespace retryproof::scenarios
