// The reference client in simulation: one test per situation, each judged from the
// provider's journal (what was sent, in what order, with which key, and what came of it),
// the jobs the provider holds, and the outcome the client reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "client_under_test/tests/sim_harness.hpp"
#include "common/fingerprint.hpp"

namespace retryproof::client {
namespace {

using namespace sim;  // sim_harness.hpp
using Json = nlohmann::json;

// The client names a lookup by its percent-encoded path, as it sends it.
const std::string kLookupStep = "GET /jobs/by-idempotency-key/" + percent_encode(kKey) + " " + kKey;

std::string only_job_id(const SimHarness& sim) {
  const auto jobs = sim.jobs();
  return jobs.size() == 1 ? jobs[0].id : std::string("<not one job>");
}

std::string wait_of(std::int64_t ms) {
  return " | wait=" + std::to_string(ms);
}

// --- The classic scenarios -----------------------------------------------------------------

TEST(ReferenceClientSim, FailBeforeCommitIsRetriedOnceWithTheSameKey) {
  SimHarness sim(with_plan({"fail-before-commit"}));
  const ClientResult result = sim.run(order_operation());

  EXPECT_EQ(sim.requests(), (std::vector<std::string>{kPost + "new 503", kPost + "new 201"}));
  EXPECT_EQ(sim.post_count(), 2u);
  EXPECT_EQ(sim.post_keys(), (std::vector<std::string>{kKey, kKey}));
  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(result.job_id, only_job_id(sim));
  EXPECT_EQ(result.idempotency_key, kKey);
  EXPECT_EQ(result.attempts, 2);
  EXPECT_EQ(result.outcome_line(), (Json{{"outcome", "succeeded"}, {"jobId", result.job_id}}));
}

TEST(ReferenceClientSim, CommitThenErrorUnderBaselineIsAnsweredByAReplayOfTheSameJob) {
  SimHarness sim(with_plan({"commit-then-error"}));
  const ClientResult result = sim.run(order_operation());

  EXPECT_EQ(sim.requests(), (std::vector<std::string>{kPost + "new 503", kPost + "replay 200"}));
  EXPECT_EQ(sim.post_count(), 2u);
  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(result.job_id, only_job_id(sim));
  const auto entries = sim.journal();
  EXPECT_EQ(entries[1].job_id, result.job_id);  // the replay named the job the 503 hid
  EXPECT_EQ(result.attempts, 2);
}

TEST(ReferenceClientSim, CommitThenErrorUnderStripeReplaysTheErrorUntilTheFinalLookup) {
  SimHarness sim(with_plan({"commit-then-error"}, provider::Profile::stripe));
  const ClientResult result = sim.run(order_operation(), settings_with(3));

  // Stripe records the first response, 503 included, and replays it: only the lookup
  // after the budget is spent can tell that the job exists.
  EXPECT_EQ(sim.requests(),
            (std::vector<std::string>{kPost + "new 503", kPost + "replay 503", kPost + "replay 503",
                                      kLookup + "lookup_hit 200"}));
  EXPECT_EQ(sim.post_count(), 3u);
  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(result.job_id, only_job_id(sim));
  EXPECT_EQ(result.attempts, 3);
}

// Outcomes the client cannot see, after the provider committed: one POST, then a lookup.
struct AmbiguousAfterCommit {
  std::string fault;
  std::string journal_status;  // what the provider sent, "-" for nothing
  std::string client_saw;      // the history's result
};

void PrintTo(const AmbiguousAfterCommit& situation, std::ostream* out) {
  *out << situation.fault;
}

class ReferenceClientAmbiguous : public ::testing::TestWithParam<AmbiguousAfterCommit> {};

TEST_P(ReferenceClientAmbiguous, LooksTheKeyUpInsteadOfSendingAgain) {
  const AmbiguousAfterCommit& situation = GetParam();
  SimHarness sim(with_plan({situation.fault}));
  const ClientResult result = sim.run(order_operation());

  EXPECT_EQ(sim.requests(), (std::vector<std::string>{kPost + "new " + situation.journal_status,
                                                      kLookup + "lookup_hit 200"}));
  EXPECT_EQ(sim.post_count(), 1u);
  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(result.job_id, only_job_id(sim));
  EXPECT_EQ(result.attempts, 1);
  EXPECT_EQ(
      describe(result.history),
      (std::vector<std::string>{
          "1 POST /jobs " + kKey + " " + situation.client_saw +
              " ambiguous | do not send again: look the key up first" + wait_of(0),
          "1 " + kLookupStep + " 200 found | done: the provider holds the job" + wait_of(0)}));
}

INSTANTIATE_TEST_SUITE_P(Faults, ReferenceClientAmbiguous,
                         ::testing::Values(AmbiguousAfterCommit{"commit-then-drop", "-", "closed"},
                                           AmbiguousAfterCommit{"commit-then-reset", "-", "closed"},
                                           AmbiguousAfterCommit{"commit-then-truncate", "201",
                                                                "truncated"},
                                           AmbiguousAfterCommit{"commit-then-500", "500", "500"}),
                         [](const auto& param_info) {
                           std::string name;
                           for (const char c : param_info.param.fault)
                             if (c != '-') name.push_back(c);
                           return name;
                         });

TEST(ReferenceClientSim, DropBeforeCommitIsLookedUpThenResubmittedWithTheSameKey) {
  SimHarness sim(with_plan({"drop-before-commit"}));
  const ClientResult result = sim.run(order_operation());

  EXPECT_EQ(sim.requests(), (std::vector<std::string>{kPost + "new -", kLookup + "lookup_miss 404",
                                                      kPost + "new 201"}));
  EXPECT_EQ(sim.post_keys(), (std::vector<std::string>{kKey, kKey}));
  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(result.job_id, only_job_id(sim));
  EXPECT_EQ(result.attempts, 2);
  // The resubmission waits its backoff after the miss, never immediately.
  const auto entries = sim.journal();
  const std::int64_t lookup_at = entries[1].at.count();
  const std::int64_t resubmit_at = entries[2].at.count();
  EXPECT_GE(resubmit_at - lookup_at, 100);
  EXPECT_LT(resubmit_at - lookup_at, 200);
}

TEST(ReferenceClientSim, CommitThenDelayLongerThanTheTimeoutIsResolvedByTheLookup) {
  SimHarness sim(with_plan({"commit-then-delay:5s"}));
  const ClientResult result = sim.run(order_operation(), settings_with(3));

  EXPECT_EQ(sim.requests(),
            (std::vector<std::string>{kPost + "new 201", kLookup + "lookup_hit 200"}));
  EXPECT_EQ(sim.post_count(), 1u);
  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(result.job_id, only_job_id(sim));
  ASSERT_EQ(result.history.size(), 2u);
  EXPECT_EQ(result.history[0].result, "timeout");
  EXPECT_EQ(result.history[0].classification, "ambiguous");
  // The lookup went out when the client's 2 s timeout ended.
  const auto entries = sim.journal();
  EXPECT_EQ(entries[0].at.count(), 0);
  EXPECT_EQ(entries[1].at.count(), 2000);
}

// --- Held in flight: delay-before-commit --------------------------------------------------

TEST(ReferenceClientSim, DelayBeforeCommitJustLongerThanTheTimeoutEndsInAReplay) {
  // Held 2.2 s, the client waits 2 s: the lookup at 2000 misses (the job is not stored
  // yet), the resubmission at 2100..2199 meets the held request (409), and the third POST
  // at 2300 or later comes after the commit at 2200 and is a replay.
  SimHarness sim(with_plan({"delay-before-commit:2200ms"}));
  const ClientResult result = sim.run(order_operation(), settings_with(3));

  EXPECT_EQ(sim.requests(),
            (std::vector<std::string>{kPost + "new 201", kLookup + "lookup_miss 404",
                                      kPost + "conflict 409", kPost + "replay 200"}));
  EXPECT_EQ(sim.post_count(), 3u);
  EXPECT_EQ(sim.post_keys(), (std::vector<std::string>{kKey, kKey, kKey}));
  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(result.job_id, only_job_id(sim));
  ASSERT_EQ(result.history.size(), 4u);
  EXPECT_EQ(result.history[2].classification, "in-flight");
  EXPECT_EQ(result.history[2].decision, "wait, then retry with the same key");
}

TEST(ReferenceClientSim, DelayBeforeCommitOutlastingTheBudgetEndsWithOneJobAndAnUnknownReport) {
  // The held request outlives the lookup, both resubmissions (409) and the final lookup,
  // which misses: after a 409, a miss proves nothing, so the client fails closed; the
  // held request then commits.
  SimHarness sim(with_plan({"delay-before-commit:10s"}));
  const ClientResult result = sim.run_unsettled(sim.parts(), order_operation(), settings_with(3));

  EXPECT_EQ(sim.job_count(), 0u);  // still held when the client reports
  EXPECT_EQ(sim.requests(),
            (std::vector<std::string>{kPost + "new -", kLookup + "lookup_miss 404",
                                      kPost + "conflict 409", kPost + "conflict 409",
                                      kLookup + "lookup_miss 404"}));
  EXPECT_EQ(result.outcome, ClientOutcome::unknown);
  EXPECT_EQ(result.reason,
            "a request with this key may still be in flight: the budget ran out first");
  EXPECT_EQ(result.attempts, 3);

  sim.settle();
  EXPECT_EQ(sim.job_count(), 1u);  // never a second job
}

TEST(ReferenceClientSim, DelayBeforeCommitOutlastingTheBudgetIsNeverReportedFailed) {
  SimHarness sim(with_plan({"delay-before-commit:10s"}));
  const ClientResult result = sim.run(order_operation(), settings_with(3));

  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_NE(result.outcome, ClientOutcome::failed)
      << "reported failed (" << result.reason << ") although the provider holds "
      << only_job_id(sim) << " for " << kKey;
}

TEST(ReferenceClientSim, InFlightConflictIsRetriedWithTheSameKeyUntilTheReplay) {
  // Another process's request holds the key for 600 ms; it gave up after 100 ms.
  SimHarness sim(with_plan({"delay-before-commit:600ms"}));
  const TransportResponse other = sim.post_directly(kKey, order_operation().payload, Millis(100));
  ASSERT_EQ(other.failure, TransportFailure::timeout);
  EXPECT_EQ(sim.clock.now(), Millis(100));

  // The client's first POST at 100 meets it (409) and waits 500..999 ms: past the commit.
  const ClientResult result = sim.run(order_operation(), settings_with(3, Millis(1000)));

  EXPECT_EQ(sim.requests(), (std::vector<std::string>{kPost + "new 201", kPost + "conflict 409",
                                                      kPost + "replay 200"}));
  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(result.job_id, only_job_id(sim));
  EXPECT_EQ(result.attempts, 2);
  ASSERT_EQ(result.history.size(), 2u);
  EXPECT_EQ(result.history[0].result, "409");
  EXPECT_EQ(result.history[0].classification, "in-flight");
  EXPECT_GE(result.history[0].wait, Millis(500));
  EXPECT_LT(result.history[0].wait, Millis(1000));
  const std::vector<std::int64_t> gaps = sim.post_gaps();
  ASSERT_EQ(gaps.size(), 2u);
  EXPECT_EQ(gaps[1], result.history[0].wait.count());
}

// --- Definitive answers -------------------------------------------------------------------

TEST(ReferenceClientSim, RateLimitedWaitsTheRetryAfterBeforeTheSecondPost) {
  SimHarness sim(with_plan({"rate-limited:3"}));
  const ClientResult result = sim.run(order_operation(), settings_with(3, Millis(200)));

  EXPECT_EQ(sim.requests(), (std::vector<std::string>{kPost + "new 429", kPost + "new 201"}));
  const std::vector<std::int64_t> times = sim.post_times();
  ASSERT_EQ(times.size(), 2u);
  // Retry-After beats the 100..199 ms backoff, and up to a quarter more spreads a fleet that
  // was told the same.
  EXPECT_GE(times[1] - times[0], 3000);
  EXPECT_LE(times[1] - times[0], 3750);
  ASSERT_EQ(result.history.size(), 2u);
  EXPECT_EQ(result.history[0].classification, "rate-limited");
  EXPECT_EQ(result.history[0].wait, Millis(times[1] - times[0]));
  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
}

TEST(ReferenceClientSim, ChangedPayloadUnderAKnownKeyIsRejectedAndNotRetried) {
  // The key already names a job created with amount 120 (an earlier run elsewhere).
  SimHarness sim;
  ASSERT_EQ(sim.post_directly(kKey, order_operation().payload).status, 201);
  const auto jobs_before = sim.jobs();

  const ClientResult result = sim.run(order_operation("order-42", 999));

  EXPECT_EQ(sim.requests(), (std::vector<std::string>{kPost + "new 201", kPost + "rejected 422"}));
  EXPECT_EQ(sim.post_count(), 2u);  // the earlier one, and exactly one from this client
  EXPECT_EQ(result.attempts, 1);
  EXPECT_EQ(result.outcome, ClientOutcome::failed);
  EXPECT_EQ(result.reason, "rejected: 422 idempotency_key_reused_with_different_payload");
  EXPECT_EQ(sim.jobs(), jobs_before);  // the stored job is untouched
  ASSERT_EQ(result.history.size(), 1u);
  EXPECT_EQ(result.history[0].classification, "definitive");
  EXPECT_EQ(result.history[0].decision, "stop: the provider refused the request; no retry");
  const std::optional<Intent> intent = sim.ledger.find(kKey);
  ASSERT_TRUE(intent.has_value());
  EXPECT_EQ(intent->status, IntentStatus::failed);
}

// Found by the property test through truthful-outcome: after an earlier run sent the key
// with another payload, a job found by key may be that payload's, and a lookup cannot tell.
// The client must not report it as the answer to this run's changed request.
TEST(ReferenceClientSim, AJobFoundForAKeyAnEarlierPayloadUsedProvesNothing) {
  SimHarness sim(with_plan({"delay-before-commit:5s"}));
  // The first run's request is held (it commits only at 5 s); the run ends unknown.
  const ClientResult first = sim.run_unsettled(
      sim.parts(), order_operation(), settings_with(1, Millis(200), Millis(5000), Millis(100)));
  EXPECT_EQ(first.outcome, ClientOutcome::unknown);
  // A second run asks for a changed amount: 409 while the first is held, then its final
  // lookup, after the commit, finds the first payload's job.
  const ClientResult changed = sim.run(order_operation("order-42", 999),
                                       settings_with(2, Millis(3600), Millis(3600), Millis(100)));
  EXPECT_EQ(sim.requests().back(), kLookup + "lookup_hit 200")
      << ::testing::PrintToString(sim.requests())
      << ::testing::PrintToString(describe_timed(changed.history));
  EXPECT_EQ(changed.outcome, ClientOutcome::unknown) << changed.reason;
  EXPECT_NE(changed.reason.find("which an earlier run sent with another payload"),
            std::string::npos)
      << changed.reason;
}

TEST(ReferenceClientSim, LookupUnavailableAfterADropFailsClosedAsUnknown) {
  SimHarness sim(with_plan({"commit-then-drop", "lookup-unavailable"}));
  const ClientResult result = sim.run(order_operation());

  EXPECT_EQ(sim.requests(),
            (std::vector<std::string>{kPost + "new -", kLookup + "lookup_failed 503"}));
  EXPECT_EQ(sim.post_count(), 1u);
  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_EQ(result.outcome, ClientOutcome::unknown);
  EXPECT_EQ(result.reason, "lookup failed: 503");
  EXPECT_NE(result.reason.find("lookup"), std::string::npos);
  EXPECT_TRUE(result.job_id.empty());
  EXPECT_EQ(
      result.outcome_line(),
      (Json{{"outcome", "unknown"}, {"idempotencyKey", kKey}, {"reason", "lookup failed: 503"}}));
  const std::optional<Intent> intent = sim.ledger.find(kKey);
  ASSERT_TRUE(intent.has_value());
  EXPECT_EQ(intent->status, IntentStatus::unknown);
}

// --- The attempt budget -------------------------------------------------------------------

TEST(ReferenceClientSim, BudgetSpentOnFailuresBeforeCommitEndsInAFinalLookupAndFailed) {
  SimHarness sim(with_plan({"fail-before-commit", "fail-before-commit", "fail-before-commit"}));
  const ClientResult result = sim.run(order_operation(), settings_with(3));

  EXPECT_EQ(sim.requests(),
            (std::vector<std::string>{kPost + "new 503", kPost + "new 503", kPost + "new 503",
                                      kLookup + "lookup_miss 404"}));
  EXPECT_EQ(sim.post_count(), 3u);
  EXPECT_EQ(sim.job_count(), 0u);
  EXPECT_EQ(result.outcome, ClientOutcome::failed);
  EXPECT_EQ(result.reason, "not committed after 3 attempts");
  EXPECT_EQ(result.attempts, 3);
  ASSERT_EQ(result.history.size(), 4u);
  EXPECT_EQ(result.history[2].decision, "budget spent: look the key up to decide");
  EXPECT_EQ(result.history[3].classification, "not-found");
  EXPECT_EQ(result.history[3].decision, "stop: never committed, and the budget is spent");
}

TEST(ReferenceClientSim, BudgetSpentOnReplayedErrorsUnderStripeIsDecidedByTheFinalLookup) {
  SimHarness sim(with_plan({"commit-then-error", "commit-then-error", "commit-then-error"},
                           provider::Profile::stripe));
  const ClientResult result = sim.run(order_operation(), settings_with(3));

  // Only the first POST is new and takes a fault; the others are replays of its 503.
  EXPECT_EQ(sim.requests(),
            (std::vector<std::string>{kPost + "new 503", kPost + "replay 503", kPost + "replay 503",
                                      kLookup + "lookup_hit 200"}));
  EXPECT_EQ(sim.post_count(), 3u);
  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(result.job_id, only_job_id(sim));
  ASSERT_EQ(result.history.size(), 4u);
  EXPECT_EQ(describe(result.history[0]), "1 POST /jobs " + kKey +
                                             " 503 retryable | wait, then retry with the same key" +
                                             wait_of(result.history[0].wait.count()));
  EXPECT_EQ(describe(result.history[1]), "2 POST /jobs " + kKey +
                                             " 503 retryable | wait, then retry with the same key" +
                                             wait_of(result.history[1].wait.count()));
  EXPECT_EQ(describe(result.history[2]),
            "3 POST /jobs " + kKey + " 503 retryable | budget spent: look the key up to decide" +
                wait_of(result.history[2].wait.count()));
  EXPECT_EQ(describe(result.history[3]),
            "3 " + kLookupStep + " 200 found | done: the provider holds the job" + wait_of(0));
}

// CLIENT BUG (expected to fail until the client is fixed): Step::wait is "how long it
// waited before its next request", but when the budget is spent the client records the
// backoff it computed and then sends the final lookup at once, without waiting. After a
// 409 that makes the final lookup come at the very instant of the conflict.
TEST(ReferenceClientSim, EveryRecordedWaitIsTheGapBeforeTheNextRequest) {
  SimHarness sim(with_plan({"commit-then-error"}, provider::Profile::stripe));
  const ClientResult result = sim.run(order_operation(), settings_with(3));

  const auto entries = sim.journal();
  ASSERT_EQ(entries.size(), 4u);
  ASSERT_EQ(result.history.size(), 4u);
  for (std::size_t i = 0; i + 1 < entries.size(); ++i) {
    const std::int64_t gap = entries[i + 1].at.count() - entries[i].at.count();
    EXPECT_EQ(result.history[i].wait.count(), gap)
        << "step " << i + 1 << " (" << describe(result.history[i]) << ") recorded a wait of "
        << result.history[i].wait.count() << " ms; the next request came " << gap << " ms later";
  }
}

// --- Backoff ------------------------------------------------------------------------------

TEST(ReferenceClientSim, EveryGapBetweenPostsKeepsItsStepFloorAndIsNeverZero) {
  // base 200, cap 1000: steps 200, 400, 800, 1000, 1000; floors half of each.
  const std::vector<std::int64_t> floors{100, 200, 400, 500, 500};
  const std::vector<std::int64_t> steps{200, 400, 800, 1000, 1000};
  for (std::uint64_t seed = 1; seed <= 25; ++seed) {
    SCOPED_TRACE("client seed " + std::to_string(seed));
    SimOptions options =
        with_plan({"fail-before-commit", "fail-before-commit", "fail-before-commit",
                   "fail-before-commit", "fail-before-commit"});
    options.client_seed = seed;
    SimHarness sim(options);
    const ClientResult result =
        sim.run(order_operation(), settings_with(6, Millis(200), Millis(1000)));

    ASSERT_EQ(result.outcome, ClientOutcome::succeeded);
    const std::vector<std::int64_t> gaps = sim.post_gaps();
    ASSERT_EQ(gaps.size(), floors.size());
    for (std::size_t i = 0; i < gaps.size(); ++i) {
      EXPECT_GT(gaps[i], 0) << "gap " << i + 1;
      EXPECT_GE(gaps[i], floors[i]) << "gap " << i + 1;
      EXPECT_LT(gaps[i], steps[i]) << "gap " << i + 1;
      EXPECT_EQ(gaps[i], result.history[i].wait.count()) << "gap " << i + 1;
    }
  }
}

TEST(ReferenceClientSim, JitterSpreadsTheWaitsOfAFleet) {
  // Twenty clients with different seeds do not all wait the same after the same 503.
  std::vector<std::int64_t> first_gaps;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SimOptions options = with_plan({"fail-before-commit"});
    options.client_seed = seed;
    SimHarness sim(options);
    sim.run(order_operation());
    ASSERT_EQ(sim.post_gaps().size(), 1u);
    first_gaps.push_back(sim.post_gaps()[0]);
  }
  std::sort(first_gaps.begin(), first_gaps.end());
  const auto distinct = std::unique(first_gaps.begin(), first_gaps.end()) - first_gaps.begin();
  EXPECT_GE(distinct, 10);
}

// --- The history --------------------------------------------------------------------------

TEST(ReferenceClientSim, HistoryRecordsEveryRequestWithItsClassificationAndDecision) {
  SimHarness sim(with_plan({"fail-before-commit", "commit-then-drop"}));
  const ClientResult result = sim.run(order_operation());

  EXPECT_EQ(sim.requests(), (std::vector<std::string>{kPost + "new 503", kPost + "new -",
                                                      kLookup + "lookup_hit 200"}));
  const std::vector<std::int64_t> gaps = sim.post_gaps();
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(
      describe(result.history),
      (std::vector<std::string>{
          "1 POST /jobs " + kKey + " 503 retryable | wait, then retry with the same key" +
              wait_of(gaps[0]),
          "2 POST /jobs " + kKey + " closed ambiguous | do not send again: look the key up first" +
              wait_of(0),
          "2 " + kLookupStep + " 200 found | done: the provider holds the job" + wait_of(0)}));
  // Each step's time is when the provider saw the request.
  const auto entries = sim.journal();
  ASSERT_EQ(entries.size(), result.history.size());
  for (std::size_t i = 0; i < entries.size(); ++i)
    EXPECT_EQ(entries[i].at.count(), result.history[i].at.count()) << "step " << i;
}

// --- Determinism and virtual time ---------------------------------------------------------

TEST(ReferenceClientSim, TheSameSeedsGiveTheSameJournalAndHistory) {
  const Json plan = {"fail-before-commit", "drop-before-commit", "rate-limited:1",
                     "commit-then-error"};
  const auto run_once = [&](std::uint64_t client_seed) {
    SimOptions options = with_plan(plan);
    options.client_seed = client_seed;
    SimHarness sim(options);
    const ClientResult result = sim.run(order_operation(), settings_with(5));
    return std::make_pair(sim.journal(), describe_timed(result.history));
  };
  const auto [journal_a, history_a] = run_once(7);
  const auto [journal_b, history_b] = run_once(7);
  EXPECT_EQ(journal_a, journal_b);
  EXPECT_EQ(history_a, history_b);
  EXPECT_EQ(journal_a.size(), 6u);  // 503, drop, lookup miss, 429, 503, replay

  // And the seed matters: another one moves the jittered waits.
  const auto [journal_c, history_c] = run_once(8);
  EXPECT_NE(history_a, history_c);
  EXPECT_NE(journal_a, journal_c);
}

// Forwards to the virtual clock and keeps what it was asked, so the test sees every wait
// the client took went through the injected sleeper.
class RecordingSleeper final : public Sleeper {
 public:
  explicit RecordingSleeper(VirtualClock& clock) : clock_(clock) {}
  void sleep(Millis duration) override {
    waits.push_back(duration);
    clock_.sleep(duration);
  }
  std::vector<Millis> waits;

 private:
  VirtualClock& clock_;
};

TEST(ReferenceClientSim, ALongBackoffPassesInVirtualTime) {
  SimHarness sim(with_plan({"fail-before-commit"}));
  RecordingSleeper sleeper(sim.clock);
  const ClientResult result =
      sim.run_with(ClientParts{sim.transport, sim.clock, sleeper, sim.random, sim.ledger},
                   order_operation(), settings_with(3, Millis(20000), Millis(60000)));

  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  ASSERT_EQ(sleeper.waits.size(), 1u);
  EXPECT_GE(sleeper.waits[0], Millis(10000));
  EXPECT_LT(sleeper.waits[0], Millis(20000));
  EXPECT_GE(sim.clock.now(), Millis(10000));
  EXPECT_EQ(sim.clock.now(), sleeper.waits[0]);  // nothing else moved the clock
  const std::vector<std::int64_t> gaps = sim.post_gaps();
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0], sleeper.waits[0].count());
}

// --- Resuming from the ledger -------------------------------------------------------------

// The intent an earlier process left in the ledger for order_operation(), after one POST.
Intent earlier_intent(IntentStatus status, std::string job_id = {}) {
  return Intent{.operation_id = kKey,
                .idempotency_key = kKey,
                .payload_fingerprint = retryproof::fingerprint(order_operation().payload),
                .status = status,
                .job_id = std::move(job_id),
                .attempts = 1};
}

TEST(ReferenceClientSim, AConfirmedIntentIsReportedWithoutAnyRequest) {
  SimHarness sim;
  sim.ledger.save(earlier_intent(IntentStatus::confirmed, "job_0000abcd"));
  const ClientResult result = sim.run(order_operation());

  EXPECT_TRUE(sim.requests().empty());
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(result.job_id, "job_0000abcd");
  EXPECT_EQ(result.attempts, 0);
  ASSERT_EQ(result.history.size(), 1u);
  EXPECT_EQ(result.history[0].request, "(intent ledger)");
  EXPECT_EQ(result.history[0].result, "confirmed");
}

TEST(ReferenceClientSim, ASentIntentIsLookedUpFirstAndTheStoredJobReported) {
  // A crashed process sent the POST (which committed, the answer lost) and wrote `sent`.
  SimHarness sim(with_plan({"commit-then-drop"}));
  ASSERT_EQ(sim.post_directly(kKey, order_operation().payload).failure, TransportFailure::closed);
  sim.ledger.save(earlier_intent(IntentStatus::sent));

  const ClientResult result = sim.run(order_operation());

  EXPECT_EQ(sim.requests(),
            (std::vector<std::string>{kPost + "new -", kLookup + "lookup_hit 200"}));
  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(result.job_id, only_job_id(sim));
  EXPECT_EQ(result.attempts, 0);
  const std::optional<Intent> intent = sim.ledger.find(kKey);
  ASSERT_TRUE(intent.has_value());
  EXPECT_EQ(intent->status, IntentStatus::confirmed);
  EXPECT_EQ(intent->job_id, result.job_id);
}

TEST(ReferenceClientSim, ASentIntentThatNeverCommittedIsResubmittedAfterTheLookup) {
  SimHarness sim;
  sim.ledger.save(earlier_intent(IntentStatus::sent));

  const ClientResult result = sim.run(order_operation());

  EXPECT_EQ(sim.requests(),
            (std::vector<std::string>{kLookup + "lookup_miss 404", kPost + "new 201"}));
  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(result.attempts, 1);
  const std::optional<Intent> intent = sim.ledger.find(kKey);
  ASSERT_TRUE(intent.has_value());
  EXPECT_EQ(intent->attempts, 2);  // counted across the restart
}

TEST(ReferenceClientSim, ARerunWithAFreshLedgerDerivesTheSameKeyAndGetsTheSameJob) {
  SimHarness sim;
  const ClientResult first = sim.run(order_operation());
  InMemoryIntentLedger elsewhere;  // another machine, no memory of the first run
  const ClientResult second = sim.run_with(
      ClientParts{sim.transport, sim.clock, sim.clock, sim.random, elsewhere}, order_operation());

  EXPECT_EQ(sim.requests(), (std::vector<std::string>{kPost + "new 201", kPost + "replay 200"}));
  EXPECT_EQ(sim.job_count(), 1u);
  EXPECT_EQ(first.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(second.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(second.job_id, first.job_id);
  EXPECT_EQ(second.idempotency_key, first.idempotency_key);
}

}  // namespace
}  // namespace retryproof::client
