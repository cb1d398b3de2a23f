// The machine's share of a run: a failure that rests on time in a window the harness itself
// was stalled in is inconclusive; one that rests on order stands; an unmet outcome a late
// machine can cause is inconclusive, and harm never is.
#include "scenarios/evidence/stalls.hpp"

#include <gtest/gtest.h>

namespace retryproof::scenarios {
namespace {

using provider::JournalEntry;

JournalEntry request_at(std::uint64_t seq, std::int64_t at, std::int64_t answered) {
  return {.seq = seq,
          .at = Millis(at),
          .method = "POST",
          .path = "/jobs",
          .kind = provider::RequestKind::create,
          .key = "k",
          .outcome = provider::Outcome::new_operation,
          .answered_at = Millis(answered),
          .status = 503};
}

ScenarioResult run_with(std::vector<Stall> stalls) {
  ScenarioResult result;
  InvocationResult invocation{.operation = "order-1", .first_seq = 1, .last_seq = 2};
  invocation.started_at = Millis(0);
  invocation.ended_at = Millis(5000);
  result.invocations = {invocation};
  result.journal = {request_at(1, 100, 110), request_at(2, 130, 140)};
  result.stalls = std::move(stalls);
  return result;
}

std::vector<Verdict> failures() {
  return {{.id = "backoff",
           .status = VerdictStatus::fail,
           .explanation = "a retry 20 ms after the failure",
           .evidence = {1, 2}},
          {.id = "time-limit",
           .status = VerdictStatus::fail,
           .explanation = "invocation 1 was still running at the time limit"},
          {.id = "key-stability",
           .status = VerdictStatus::fail,
           .explanation = "two keys",
           .evidence = {1, 2},
           .severity = Severity::policy}};
}

const Stall kStopped{Millis(105), Millis(2105), "its own timer woke 2000 ms late"};

TEST(Stalls, AFailureThatRestsOnTimeInAStalledWindowIsInconclusive) {
  std::vector<Verdict> verdicts = failures();
  account_for_stalls(verdicts, run_with({kStopped}));
  EXPECT_EQ(verdicts[0].status, VerdictStatus::inconclusive);
  EXPECT_NE(verdicts[0].explanation.find("the harness itself was stalled 2000 ms from +105ms"),
            std::string::npos)
      << verdicts[0].explanation;
  EXPECT_EQ(verdicts[1].status, VerdictStatus::inconclusive) << "the whole run is its window";
  EXPECT_EQ(verdicts[2].status, VerdictStatus::fail) << "a key that changed is no one's lateness";
}

TEST(Stalls, WithoutAStallOrOutsideTheWindowTheFailuresStand) {
  std::vector<Verdict> quiet = failures();
  account_for_stalls(quiet, run_with({}));
  std::vector<Verdict> elsewhere = failures();
  account_for_stalls(elsewhere, run_with({{Millis(3000), Millis(3600), "late"}}));
  std::vector<Verdict> brief = failures();
  account_for_stalls(brief, run_with({{Millis(3000), Millis(3200), "late"}}));
  EXPECT_EQ(quiet[0].status, VerdictStatus::fail);
  EXPECT_EQ(quiet[1].status, VerdictStatus::fail);
  EXPECT_EQ(elsewhere[0].status, VerdictStatus::fail) << "its window was +100ms to +140ms";
  EXPECT_EQ(elsewhere[1].status, VerdictStatus::inconclusive)
      << "600 ms is more than a tenth of the run's 5 s window";
  EXPECT_EQ(brief[1].status, VerdictStatus::fail)
      << "200 ms of a 5 s window cannot explain a client still running at its end";
}

TEST(Stalls, AnOutcomeALateMachineCanCauseIsInconclusiveButHarmStands) {
  ScenarioResult result = run_with({kStopped});
  result.unmet = {{"fulfillment:order-1 ended unknown; expected succeeded", Severity::policy},
                  {"the provider holds 2 jobs; expected 1", Severity::harm}};
  account_for_stalls_in_expectations(result);
  ASSERT_EQ(result.unmet.size(), 1u);
  EXPECT_EQ(result.unmet[0].severity, Severity::harm);
  ASSERT_EQ(result.inconclusive.size(), 1u);
  EXPECT_NE(result.inconclusive[0].text.find("ended unknown; expected succeeded, but the harness"),
            std::string::npos);
  EXPECT_EQ(result.status(), ScenarioStatus::failed) << "the harm still fails the scenario";
}

}  // namespace
}  // namespace retryproof::scenarios
