// The checkers of what was sent: one job per operation, one key per operation, one payload per
// operation.
// The runs are hand-built (checker_fixture.hpp); for every verdict: a pass, a fail with its
// exact evidence, and the n/a case where one exists.
#include "scenarios/tests/checker_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace hand_built;

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
  expect_fail(verdict, {1, 2});  // the first attempt's body, and the one that differs
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
  expect_fail(verdict, {1, 2});
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

}  // namespace
}  // namespace retryproof::scenarios
