// The checkers of whole runs (crash recovery, client errors) and judge(), which applies the
// verdict table in report order.
// The runs are hand-built (checker_fixture.hpp); for every verdict: a pass, a fail with its
// exact evidence, and the n/a case where one exists.
#include "scenarios/tests/checker_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace hand_built;

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

TEST_F(Checkers, CrashRecoveryLetsARunKilledBeforeItSentAnythingCreateAtOnce) {
  // Killed under traffic before its first request (an empty window): nothing it did is
  // unknown, so its rerun may create without asking first.
  InvocationResult killed = invocation(1, 0, std::nullopt);
  killed.killed = true;
  const auto record = run({killed, invocation(1, 1, succeeded("job_1"), 1)},
                          {post({.seq = 1, .job = "job_1"})}, {job("job_1", "k42")});
  expect_pass(check("crash-recovery", record));
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

TEST_F(Checkers, CrashRecoveryCountsAJobTheKilledRunsLateRequestMadeAsFromBeforeTheRestart) {
  // Killed after its first request; its second, written on the same connection before the
  // kill, was read in the restart's window and made job_1. The restart then made job_2.
  const auto record =
      run({killed_first(), invocation(2, 3, succeeded("job_2"), 1)},
          {on_connection(fail_before_commit(1), 40001, true),
           on_connection(post({.seq = 2, .at = 100, .job = "job_1"}), 40001, false),
           on_connection(post({.seq = 3, .at = 200, .key = "k42-new", .job = "job_2"}), 40002,
                         true)},
          {job("job_1", "k42"), job("job_2", "k42-new")})
          .by_connection();
  const Verdict verdict = check("crash-recovery", record);
  expect_fail(verdict, {3});
  EXPECT_MENTIONS(verdict, "created a second job, job_2 (seq 3, key k42-new), though job_1");
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
