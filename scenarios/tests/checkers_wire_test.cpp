// The verdicts judge what a client sent against what it sent, never against the scenario's
// payload text: an SDK maps the payload to its API's own wire body. And an API without
// idempotency keys is judged by the business field that ties its creates together.
#include "scenarios/tests/checker_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace hand_built;

// What a payment SDK sends for payload_42(): its own field names, the amount nested.
json wire_42() {
  return {{"reference_id", "order-42"}, {"amount_money", {{"amount", 120}, {"currency", "USD"}}}};
}
json wire_42_changed() {
  return {{"reference_id", "order-42"}, {"amount_money", {{"amount", 999}, {"currency", "USD"}}}};
}

// --- a mapped wire body ---

TEST_F(Checkers, AMappedWireBodySentAlikeOnEveryAttemptIsStable) {
  const auto record = run({invocation(1, 2, succeeded("job_1"))},
                          {post({.seq = 1, .payload = wire_42(), .fault = "fail-before-commit"}),
                           post({.seq = 2, .at = 300, .payload = wire_42(), .job = "job_1"})},
                          {job("job_1", "k42")});
  expect_pass(check("payload-stability", record));
  expect_pass(check("truthful-outcome", record));
}

TEST_F(Checkers, AClientThatDeclaresPayloadVerbatimMustSendThePayloadItself) {
  const auto record =
      run({invocation(1, 1, succeeded("job_1"))},
          {post({.seq = 1, .payload = wire_42(), .job = "job_1"})}, {job("job_1", "k42")})
          .declaring("payload=verbatim");
  const Verdict verdict = check("payload-stability", record);
  expect_fail(verdict, {1});
  EXPECT_MENTIONS(verdict, "declares payload=verbatim");
}

TEST_F(Checkers, ARerunAskedForTheSamePayloadMustSendTheSameBody) {
  // A client whose body changes between runs (a timestamp in it) cannot replay its key.
  const json later = {
      {"reference_id", "order-42"}, {"amount_money", {{"amount", 120}}}, {"sentAt", 1700000000}};
  const auto record = run(
      {invocation(1, 1, succeeded("job_1")), invocation(2, 2, failed(), 1)},
      {post({.seq = 1, .payload = wire_42(), .job = "job_1"}), post({.seq = 2,
                                                                     .at = 900,
                                                                     .payload = later,
                                                                     .outcome = Outcome::rejected,
                                                                     .status = 422,
                                                                     .job = "job_1"})},
      {job("job_1", "k42")});
  const Verdict verdict = check("payload-stability", record);
  expect_fail(verdict, {1, 2});
  EXPECT_MENTIONS(verdict, "asked for the same payload as invocation 1");
  EXPECT_MENTIONS(verdict, "refused it with 422");
}

TEST_F(Checkers, AChangedPayloadThatNeverReachesTheWireIsCaught) {
  // The second run is asked for amount 999, but its client sends the first body again.
  const auto record =
      run({invocation(1, 1, succeeded("job_1")),
           invocation(2, 2, succeeded("job_1"), 1, kOp42, drifted_42())},
          {post({.seq = 1, .payload = wire_42(), .job = "job_1"}), post({.seq = 2,
                                                                         .at = 900,
                                                                         .payload = wire_42(),
                                                                         .outcome = Outcome::replay,
                                                                         .status = 200,
                                                                         .job = "job_1"})},
          {job("job_1", "k42")});
  const Verdict verdict = check("payload-stability", record);
  expect_fail(verdict, {1, 2});
  EXPECT_MENTIONS(verdict, "the change never reached the provider");
}

TEST_F(Checkers, TheOldJobIsNoAnswerToAChangedRequestOnAMappedWire) {
  const auto record = run(
      {invocation(1, 1, succeeded("job_1")),
       invocation(2, 2, succeeded("job_1"), 1, kOp42, drifted_42())},
      {post({.seq = 1, .payload = wire_42(), .job = "job_1"}), post({.seq = 2,
                                                                     .at = 500,
                                                                     .payload = wire_42_changed(),
                                                                     .outcome = Outcome::rejected,
                                                                     .status = 422,
                                                                     .job = "job_1"})},
      {job("job_1", "k42")});
  expect_pass(check("payload-stability", record));  // it sent the change; the 422 is the provider's
  const Verdict verdict = check("truthful-outcome", record);
  expect_fail(verdict, {1});
  EXPECT_MENTIONS(verdict, "invocation 2 (" + kOp42 + ") reported succeeded with job_1");
}

TEST_F(Checkers, ARestartThatOnlyLooksUpMayReportTheJobItsEarlierRunCreated) {
  auto killed = invocation(1, 1, std::nullopt);
  killed.killed = true;
  const auto record = run({killed, invocation(2, 2, succeeded("job_1"), 1)},
                          {post({.seq = 1, .payload = wire_42(), .job = "job_1"}),
                           lookup({.seq = 2, .at = 400, .job = "job_1"})},
                          {job("job_1", "k42")});
  expect_pass(check("truthful-outcome", record));
}

// --- an API without idempotency keys ---

class KeylessCheckers : public Checkers {
 protected:
  KeylessCheckers() {
    scenario_.api = provider::api_shape_from_json(
        {{"name", "keyless"}, {"key", "none"}, {"operationField", "reference_id"}}, "keyless.json");
  }
  // A create as a keyless API journals it: no key; its job is held under the business value.
  static JournalEntry keyless_post(Post p) {
    p.key = "";
    JournalEntry entry = post(p);
    entry.operation = "order-42";
    return entry;
  }
};

TEST_F(KeylessCheckers, ABlindRetryAfterACommitThen500IsADuplicateEffect) {
  const auto record = run(
      {invocation(1, 2, succeeded("job_2"))},
      {keyless_post({.seq = 1, .payload = wire_42(), .fault = "commit-then-500", .job = "job_1"}),
       keyless_post({.seq = 2, .at = 300, .payload = wire_42(), .job = "job_2"})},
      {job("job_1", "order-42"), job("job_2", "order-42")});
  const Verdict duplicate = check("no-duplicate-effect", record);
  expect_fail(duplicate, {1, 2});
  EXPECT_EQ(duplicate.severity, Severity::harm);
  EXPECT_MENTIONS(duplicate, "job_1 (reference_id=order-42, seq 1)");
  expect_fail(check("attempt-budget", record), {1, 2});
  expect_not_applicable(check("key-stability", record));
}

TEST_F(KeylessCheckers, ARetryAfterA503MakesOneJobYetIsStillAPolicyMiss) {
  const auto record =
      run({invocation(1, 2, succeeded("job_1"))},
          {keyless_post({.seq = 1, .payload = wire_42(), .fault = "fail-before-commit"}),
           keyless_post({.seq = 2, .at = 300, .payload = wire_42(), .job = "job_1"})},
          {job("job_1", "order-42")});
  expect_pass(check("no-duplicate-effect", record));
  const Verdict budget = check("attempt-budget", record);
  expect_fail(budget, {1, 2});
  EXPECT_EQ(budget.severity, Severity::policy);
  EXPECT_MENTIONS(budget,
                  "after it created nothing (503) (seq 1) to an API without idempotency keys");
}

TEST_F(KeylessCheckers, ARetryAfterA429IsAllowedForA429TurnsTheCreateAwayBeforeAnyWork) {
  const auto record =
      run({invocation(1, 2, succeeded("job_1"))},
          {keyless_post({.seq = 1, .payload = wire_42(), .fault = "rate-limited:1"}),
           keyless_post({.seq = 2, .at = 1300, .payload = wire_42(), .job = "job_1"})},
          {job("job_1", "order-42")});
  expect_pass(check("attempt-budget", record));
}

// A careful keyless client that says unknown after a 503 has not given up: on an API
// without keys a 503 is no invitation to re-send.
TEST_F(KeylessCheckers, UnknownAfterA503IsNoGivingUpOnAnApiWithoutKeys) {
  const auto record =
      run({invocation(1, 1, unknown())},
          {keyless_post({.seq = 1, .payload = wire_42(), .fault = "fail-before-commit"})});
  expect_pass(check("gave-up", record));
  expect_pass(check("attempt-budget", record));
}

TEST_F(KeylessCheckers, AClientThatLooksUpByTheBusinessFieldAfterAHiddenOutcomeFailsClosed) {
  JournalEntry found = lookup({.seq = 2, .at = 300, .key = "", .job = "job_1"});
  found.key.reset();
  found.operation = "order-42";
  const auto record = run(
      {invocation(1, 2, succeeded("job_1"))},
      {keyless_post({.seq = 1, .payload = wire_42(), .fault = "commit-then-drop", .job = "job_1"}),
       found},
      {job("job_1", "order-42")});
  expect_pass(check("fail-closed", record));
  expect_pass(check("attempt-budget", record));
  expect_pass(check("truthful-outcome", record));
}

}  // namespace
}  // namespace retryproof::scenarios
