// The fail-closed checker: after an outcome hidden from the client, nothing but a lookup
// (or stopping) about that key.
// The runs are hand-built (checker_fixture.hpp); for every verdict: a pass, a fail with its
// exact evidence, and the n/a case where one exists.
#include "scenarios/tests/checker_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace hand_built;

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

}  // namespace
}  // namespace retryproof::scenarios
