// The checkers of what a client does with an answer and what it reports: no retry of a
// definitive refusal, a truthful outcome, no giving up with budget left.
// The runs are hand-built (checker_fixture.hpp); for every verdict: a pass, a fail with its
// exact evidence, and the n/a case where one exists.
#include "scenarios/tests/checker_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace hand_built;

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

TEST_F(Checkers, TruthfulOutcomeFailsAFailedReportWhoseOwnLateRequestCreatedTheJob) {
  // The first run gave up and reported failed while its retry was still on its connection;
  // the provider read that retry after the run ended (seq 2, in the next run's window) and
  // made job_1. It is the first run's request: its report is untrue.
  const auto record = run({invocation(1, 1, failed()), invocation_43(2, 3, succeeded("job_2"))},
                          {on_connection(fail_before_commit(1), 40001, true),
                           on_connection(post({.seq = 2, .at = 200, .job = "job_1"}), 40001, false),
                           on_connection(post_43(3, 300), 40002, true)},
                          {job("job_1", "k42"), job_43()});
  expect_pass(check("truthful-outcome", record));  // by window: seq 2 is the next run's
  const Verdict verdict = check("truthful-outcome", record.by_connection());
  expect_fail(verdict, {2});
  EXPECT_MENTIONS(verdict, "reported failed, but the provider holds job_1");
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
  EXPECT_MENTIONS(verdict, "from another request");
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

TEST_F(Checkers, GaveUpAcceptsUnknownAfterALookupThatCouldNotAnswer) {
  // The client took the 503 as unknown (its timer fired before it read the answer), looked
  // the key up during the outage and failed closed.
  const auto record = run(
      {invocation(1, 2, unknown())},
      {fail_before_commit(1), lookup({.seq = 2, .at = 300, .outcome = Outcome::lookup_failed})});
  expect_pass(check("gave-up", record));
}

TEST_F(Checkers, GaveUpStillFailsAStopAfterALookupThatFoundNothing) {
  // A 404 proves the create did not commit: with budget left, the same key may go again.
  for (const Said& outcome : {failed(), unknown()}) {
    const auto record = run(
        {invocation(1, 2, outcome)},
        {fail_before_commit(1), lookup({.seq = 2, .at = 300, .outcome = Outcome::lookup_miss})});
    const Verdict verdict = check("gave-up", record);
    expect_fail(verdict, {1});
    EXPECT_MENTIONS(verdict, "after a 503 (seq 1) with 2 of its 3 attempts left");
  }
}

TEST_F(Checkers, GaveUpStillFailsAFailedReportAfterALookupThatCouldNotAnswer) {
  // Failed is not failing closed: the create's outcome was never proven.
  const auto record = run(
      {invocation(1, 2, failed())},
      {fail_before_commit(1), lookup({.seq = 2, .at = 300, .outcome = Outcome::lookup_failed})});
  expect_fail(check("gave-up", record), {1});
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

}  // namespace
}  // namespace retryproof::scenarios
