// The checkers read what an answer meant from the provider's code the journal recorded, not
// from its status: under a shape that sends a code with another status (AWS throttles with
// a 400 ThrottlingException) a verdict judges the rate limit it was, and a journal without
// codes (saved before they existed) is read by its statuses as before.
#include "scenarios/evidence/checkers/violations.hpp"
#include "scenarios/tests/checker_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace hand_built;

// The entry as a shape sends its answer: the same code under `status`.
JournalEntry sent_as(JournalEntry entry, int status) {
  entry.status = status;
  return entry;
}

// A create turned away before any work with `code`, sent as `status` (no Retry-After: AWS
// sends none).
JournalEntry refused(std::uint64_t seq, std::int64_t at, const std::string& code, int status) {
  return post(
      {.seq = seq,
       .at = at,
       .outcome = code == "idempotency_key_in_flight" ? Outcome::conflict : Outcome::invalid,
       .status = status,
       .code = code});
}

JournalEntry throttled_400(std::uint64_t seq, std::int64_t at) {
  return sent_as(post({.seq = seq, .at = at, .fault = "rate-limited:0"}), 400);
}

// The false red: botocore retries AWS's 400 ThrottlingException, rightly.
TEST_F(Checkers, ARetryOfA400ThatTheShapeMappedFromRateLimitedIsNoRetryOfADefinitiveRefusal) {
  const auto record = run({invocation(1, 2, succeeded("job_1"))},
                          {throttled_400(1, 0), post({.seq = 2, .at = 300, .job = "job_1"})},
                          {job("job_1", "k42")});
  ASSERT_EQ(record.journal[0].code, "rate_limited");
  expect_not_applicable(check("no-retry-of-definitive", record));
  // It is a rate limit to the verdicts of rate limits: retry-after judges its retry.
  expect_pass(check("retry-after", record));
}

TEST_F(Checkers, AJournalWithoutCodesStillReadsA400ByItsStatus) {
  JournalEntry old = throttled_400(1, 0);
  old.code.reset();  // saved before journals had codes
  const auto record =
      run({invocation(1, 2, succeeded("job_1"))},
          {old, post({.seq = 2, .at = 300, .job = "job_1"})}, {job("job_1", "k42")});
  const Verdict verdict = check("no-retry-of-definitive", record);
  expect_fail(verdict, {1, 2});
  EXPECT_MENTIONS(verdict, "after a 400 (seq 1)");
  expect_not_applicable(check("retry-after", record));
}

TEST_F(Checkers, RetryAfterHoldsARateLimitSentAsA400ToItsRetryAfter) {
  JournalEntry limited = throttled_400(1, 0);
  limited.retry_after_seconds = 2;
  const auto record =
      run({invocation(1, 2, succeeded("job_1"))},
          {limited, post({.seq = 2, .at = 500, .job = "job_1"})}, {job("job_1", "k42")});
  const Verdict verdict = check("retry-after", record);
  expect_fail(verdict, {1, 2});
  EXPECT_MENTIONS(verdict, "after a 400 rate_limited with Retry-After: 2 (seq 1)");
}

TEST_F(Checkers, GivingUpAfterARateLimitSentAsA400WithBudgetLeftIsGivingUp) {
  const auto record = run({invocation(1, 1, failed())}, {throttled_400(1, 0)});
  const Verdict verdict = check("gave-up", record);
  expect_fail(verdict, {1});
  EXPECT_MENTIONS(verdict, "after a 400 rate_limited (seq 1) with 2 of its 3 attempts left");
  EXPECT_MENTIONS(verdict, "after its Retry-After");
}

TEST_F(Checkers, AnInFlightAnswerIsRetryableWhateverItsStatus) {
  for (const int status : {409, 400}) {
    const auto record = run({invocation(1, 2, succeeded("job_1"))},
                            {refused(1, 0, "idempotency_key_in_flight", status), replay(2, 300)},
                            {job("job_1", "k42")});
    expect_not_applicable(check("no-retry-of-definitive", record));
  }
}

TEST_F(Checkers, AKeyReusedWithAnotherPayloadIsDefinitiveWhateverItsStatus) {
  for (const int status : {400, 409, 422}) {
    const auto record =
        run({invocation(1, 2, failed())},
            {refused(1, 0, "idempotency_key_reused_with_different_payload", status),
             refused(2, 300, "idempotency_key_reused_with_different_payload", status)});
    const Verdict verdict = check("no-retry-of-definitive", record);
    expect_fail(verdict, {1, 2});
    // Its status alone when that is the code's own, else with the code.
    EXPECT_MENTIONS(verdict, status == 422 ? std::string("after a 422 (seq 1)")
                                           : "after a " + std::to_string(status) +
                                                 " idempotency_key_reused_with_different_payload");
    // Giving up after it is right.
    expect_pass(check("gave-up", record));
  }
}

TEST_F(Checkers,
       AnUnavailableAnswerIsSafeToRetryAndAnInternalErrorHidesTheOutcomeWhateverTheirStatus) {
  // temporarily_unavailable sent as a 500: giving up with budget left is giving up.
  const auto unavailable =
      run({invocation(1, 1, unknown())}, {sent_as(fail_before_commit(1), 500)});
  expect_fail(check("gave-up", unavailable), {1});
  // internal_error sent as a 503: the outcome is hidden, and stopping is no give-up.
  const JournalEntry internal =
      sent_as(post({.seq = 1, .fault = "commit-then-500", .job = "job_1"}), 503);
  EXPECT_EQ(checkers::hidden_outcome(internal, Millis{1000}), "a 503 internal_error");
  expect_pass(
      check("gave-up", run({invocation(1, 1, unknown())}, {internal}, {job("job_1", "k42")})));
  // Without codes, the statuses say it, as before.
  JournalEntry old = internal;
  old.code.reset();
  EXPECT_EQ(checkers::hidden_outcome(old, Millis{1000}), "");
  EXPECT_EQ(checkers::hidden_outcome(sent_as(old, 500), Millis{1000}), "a 500");
}

TEST_F(Checkers, ALookupThatAnsweredNotFoundAsA400ProvedTheCreateDidNotCommit) {
  // AWS answers a missing secret with a 400 ResourceNotFoundException: the lookup proved
  // something, so reporting unknown with budget left is giving up, not failing closed.
  JournalEntry missing = lookup({.seq = 2, .at = 300, .outcome = Outcome::lookup_miss});
  const auto record =
      run({invocation(1, 2, unknown())}, {fail_before_commit(1), sent_as(missing, 400)});
  expect_fail(check("gave-up", record), {1});
}

class KeylessCodes : public Checkers {
 protected:
  KeylessCodes() {
    scenario_.api = provider::api_shape_from_json(
        {{"name", "keyless"}, {"key", "none"}, {"operationField", "orderId"}}, "keyless.json");
  }
  static JournalEntry without_key(JournalEntry entry) {
    entry.key.reset();
    entry.operation = "order-42";
    return entry;
  }
};

TEST_F(KeylessCodes, ARetryAfterARateLimitSentAsA400IsAllowedOnAnApiWithoutKeys) {
  const auto record = run(
      {invocation(1, 2, succeeded("job_1"))},
      {without_key(throttled_400(1, 0)), without_key(post({.seq = 2, .at = 300, .job = "job_1"}))},
      {job("job_1", "order-42")});
  expect_pass(check("attempt-budget", record));
  JournalEntry old = record.journal[0];
  old.code.reset();  // read by its status, a 400 is no rate limit
  const auto without_codes =
      run(record.invocations, {old, record.journal[1]}, {job("job_1", "order-42")});
  expect_fail(check("attempt-budget", without_codes), {1, 2});
}

}  // namespace
}  // namespace retryproof::scenarios
