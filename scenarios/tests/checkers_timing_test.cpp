// The checkers of how much and how fast a client retries: the attempt budget, the backoff
// floor, Retry-After and the time limit.
// The runs are hand-built (checker_fixture.hpp); for every verdict: a pass, a fail with its
// exact evidence, and the n/a case where one exists.
#include "scenarios/tests/checker_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace hand_built;

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
  EXPECT_MENTIONS(verdict, "Its retry schedule outlasts the scenario");
  // Stopped by the harness, it printed nothing: that is time-limit's, not client-error's.
  expect_pass(check("client-error", record));
}

TEST_F(Checkers, TimeLimitDoesNotBlameTheScheduleOfARunThatSentNothing) {
  auto silent = invocation(1, 0, std::nullopt);
  silent.timed_out = true;
  const Verdict verdict = check("time-limit", run({silent}, {}));
  expect_fail(verdict, {});
  EXPECT_MENTIONS(verdict, "it never reached the provider");
  EXPECT_EQ(verdict.explanation.find("retry schedule"), std::string::npos) << verdict.explanation;
}

TEST_F(Checkers, TimeLimitSaysARunThatPrintedItsOutcomeDidNotExit) {
  auto lingering = invocation(1, 1, succeeded("job_1"));
  lingering.timed_out = true;
  const Verdict verdict = check(
      "time-limit", run({lingering}, {post({.seq = 1, .job = "job_1"})}, {job("job_1", "k42")}));
  expect_fail(verdict, {});
  EXPECT_MENTIONS(verdict, "it had printed its outcome (succeeded) yet did not exit");
  EXPECT_EQ(verdict.explanation.find("retry schedule"), std::string::npos) << verdict.explanation;
}

}  // namespace
}  // namespace retryproof::scenarios
