// Every mutant in simulation, each under a fault chosen to reveal its one bug, judged
// from the provider's journal and jobs; and the reference client under the same fault,
// which must not show it.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "client_under_test/tests/sim_harness.hpp"

namespace retryproof::client {
namespace {

using namespace sim;  // sim_harness.hpp
using Json = nlohmann::json;

std::vector<std::string> job_keys(const SimHarness& sim) {
  const auto jobs = sim.jobs();
  std::vector<std::string> keys;
  for (const auto& job : jobs)
    keys.push_back(job.key);
  return keys;
}

TEST(Mutants, EveryMutantHasATestHere) {
  // One test (at least) per mutant below, named after it: a new row in the catalogue
  // makes this list, and so this test, fail until the mutant has its own test here.
  std::vector<std::string> names;
  for (const Mutant mutant : all_mutants())
    names.push_back(to_string(mutant));
  EXPECT_EQ(names, (std::vector<std::string>{
                       "fresh-key-per-attempt", "blind-retry", "no-backoff", "unbounded",
                       "payload-drift", "timeout-is-failure", "retries-4xx", "ignores-retry-after",
                       "memory-only-intent", "nested-retry-new-key", "no-jitter", "no-budget",
                       "breaker-never-probes", "breaker-never-closes"}));
}

TEST(Mutants, EveryMutantDeviatesFromTheReferenceAndNamesWhatCatchesIt) {
  const ClientBehaviour reference;
  for (const MutantRow& row : mutant_catalogue()) {
    SCOPED_TRACE(std::string(row.name));
    if (row.mutant == Mutant::none) {
      EXPECT_TRUE(row.caught_by.empty());
      continue;
    }
    EXPECT_NE(row.behaviour, reference);
    EXPECT_FALSE(row.caught_by.empty());
    EXPECT_FALSE(row.bug.empty());
    EXPECT_EQ(parse_mutant(row.name), row.mutant);
  }
}

// --- fresh-key-per-attempt ----------------------------------------------------------------

TEST(Mutants, FreshKeyPerAttemptDuplicatesTheJobAfterCommitThenError) {
  SimHarness sim(with_plan({"commit-then-error"}));
  const ClientResult result = sim.run(order_operation(), {}, Mutant::fresh_key_per_attempt);

  const std::string key1 = kKey + ":attempt-1";
  const std::string key2 = kKey + ":attempt-2";
  EXPECT_EQ(sim.requests(), (std::vector<std::string>{"POST /jobs " + key1 + " new 503",
                                                      "POST /jobs " + key2 + " new 201"}));
  EXPECT_EQ(sim.post_keys(), (std::vector<std::string>{key1, key2}));
  EXPECT_EQ(sim.job_count(), 2u);  // the bug: one logical operation, two jobs
  EXPECT_EQ(job_keys(sim), (std::vector<std::string>{key1, key2}));
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);

  SimHarness reference(with_plan({"commit-then-error"}));
  reference.run(order_operation());
  EXPECT_EQ(reference.post_keys(), (std::vector<std::string>{kKey, kKey}));
  EXPECT_EQ(reference.job_count(), 1u);
}

// --- blind-retry --------------------------------------------------------------------------

TEST(Mutants, BlindRetryResendsAfterADropWithoutALookup) {
  SimHarness sim(with_plan({"commit-then-drop"}));
  const ClientResult result = sim.run(order_operation(), {}, Mutant::blind_retry);

  // The bug: the request after the ambiguous outcome is a POST, not a lookup.
  EXPECT_EQ(sim.requests(), (std::vector<std::string>{kPost + "new -", kPost + "replay 200"}));
  EXPECT_EQ(sim.post_count(), 2u);
  ASSERT_EQ(result.history.size(), 2u);
  EXPECT_EQ(result.history[0].classification, "ambiguous");
  EXPECT_EQ(result.history[0].decision, "send it again");

  SimHarness reference(with_plan({"commit-then-drop"}));
  reference.run(order_operation());
  EXPECT_EQ(reference.requests(),
            (std::vector<std::string>{kPost + "new -", kLookup + "lookup_hit 200"}));
  EXPECT_EQ(reference.post_count(), 1u);
}

// --- no-backoff ---------------------------------------------------------------------------

TEST(Mutants, NoBackoffRetriesWithAZeroGap) {
  SimHarness sim(with_plan({"fail-before-commit"}));
  const ClientResult result = sim.run(order_operation(), {}, Mutant::no_backoff);

  EXPECT_EQ(sim.requests(), (std::vector<std::string>{kPost + "new 503", kPost + "new 201"}));
  EXPECT_EQ(sim.post_gaps(), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(sim.clock.now(), Millis(0));
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);

  SimHarness reference(with_plan({"fail-before-commit"}));
  reference.run(order_operation());
  const std::vector<std::int64_t> gaps = reference.post_gaps();
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_GE(gaps[0], 100);
  EXPECT_LT(gaps[0], 200);
}

// --- unbounded ----------------------------------------------------------------------------

TEST(Mutants, UnboundedSendsMoreThanTheBudget) {
  const Json plan = {"fail-before-commit", "fail-before-commit", "fail-before-commit",
                     "fail-before-commit", "fail-before-commit"};
  SimHarness sim(with_plan(plan));
  const ClientResult result = sim.run(order_operation(), settings_with(3), Mutant::unbounded);

  EXPECT_EQ(sim.post_count(), 6u);  // five 503s, then the 201: the budget of 3 ignored
  EXPECT_GT(sim.post_count(), 3u);
  EXPECT_EQ(sim.requests(),
            (std::vector<std::string>{kPost + "new 503", kPost + "new 503", kPost + "new 503",
                                      kPost + "new 503", kPost + "new 503", kPost + "new 201"}));
  EXPECT_EQ(result.attempts, 6);
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);

  SimHarness reference(with_plan(plan));
  const ClientResult kept = reference.run(order_operation(), settings_with(3));
  EXPECT_EQ(reference.post_count(), 3u);
  EXPECT_EQ(reference.requests().back(), kLookup + "lookup_miss 404");
  EXPECT_EQ(kept.outcome, ClientOutcome::failed);
}

// --- payload-drift ------------------------------------------------------------------------

TEST(Mutants, PayloadDriftGetsA422OnTheRetryAfterCommitThenError) {
  // fail-before-commit would store nothing, so a drifted retry would simply be new: the
  // drift shows once the first attempt committed.
  SimHarness sim(with_plan({"commit-then-error"}));
  const ClientResult result = sim.run(order_operation(), {}, Mutant::payload_drift);

  EXPECT_EQ(sim.requests(), (std::vector<std::string>{kPost + "new 503", kPost + "rejected 422"}));
  const auto posts = sim.posts();
  ASSERT_EQ(posts.size(), 2u);
  EXPECT_NE(posts[0].fingerprint, posts[1].fingerprint);
  EXPECT_EQ(result.outcome, ClientOutcome::failed);
  EXPECT_EQ(result.reason, "rejected: 422 idempotency_key_reused_with_different_payload");
  EXPECT_EQ(sim.job_count(), 1u);

  SimHarness reference(with_plan({"commit-then-error"}));
  const ClientResult kept = reference.run(order_operation());
  EXPECT_EQ(reference.requests(),
            (std::vector<std::string>{kPost + "new 503", kPost + "replay 200"}));
  const auto reference_posts = reference.posts();
  EXPECT_EQ(reference_posts[0].fingerprint, reference_posts[1].fingerprint);
  EXPECT_EQ(kept.outcome, ClientOutcome::succeeded);
}

// --- timeout-is-failure -------------------------------------------------------------------

TEST(Mutants, TimeoutIsFailureReportsFailedAlthoughTheJobExists) {
  SimHarness sim(with_plan({"commit-then-drop"}));
  const ClientResult result = sim.run(order_operation(), {}, Mutant::timeout_is_failure);

  EXPECT_EQ(sim.requests(), (std::vector<std::string>{kPost + "new -"}));
  EXPECT_EQ(result.outcome, ClientOutcome::failed);
  EXPECT_EQ(result.reason, "no response: closed");
  EXPECT_EQ(sim.job_count(), 1u);  // the bug: failed, while the provider holds the job
  EXPECT_EQ(job_keys(sim), (std::vector<std::string>{kKey}));

  SimHarness reference(with_plan({"commit-then-drop"}));
  const ClientResult kept = reference.run(order_operation());
  EXPECT_EQ(kept.outcome, ClientOutcome::succeeded);
  const auto jobs = reference.jobs();
  EXPECT_EQ(kept.job_id, jobs[0].id);
}

// --- retries-4xx --------------------------------------------------------------------------

TEST(Mutants, Retries4xxResendsAfterA422) {
  // The key already names a job with amount 120; the run asks for amount 999.
  const auto situation = [](SimHarness& sim) {
    ASSERT_EQ(sim.post_directly(kKey, order_operation().payload).status, 201);
  };
  SimHarness sim;
  situation(sim);
  const ClientResult result =
      sim.run(order_operation("order-42", 999), settings_with(3), Mutant::retries_4xx);

  // The bug: two more POSTs after the first 422; then the budget's final lookup finds the
  // job of the other payload and reports it as this operation's.
  EXPECT_EQ(sim.requests(), (std::vector<std::string>{
                                kPost + "new 201", kPost + "rejected 422", kPost + "rejected 422",
                                kPost + "rejected 422", kLookup + "lookup_hit 200"}));
  EXPECT_EQ(result.attempts, 3);
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(sim.job_count(), 1u);

  SimHarness reference;
  situation(reference);
  const ClientResult kept = reference.run(order_operation("order-42", 999), settings_with(3));
  EXPECT_EQ(reference.requests(),
            (std::vector<std::string>{kPost + "new 201", kPost + "rejected 422"}));
  EXPECT_EQ(kept.attempts, 1);
  EXPECT_EQ(kept.outcome, ClientOutcome::failed);
}

// --- ignores-retry-after ------------------------------------------------------------------

TEST(Mutants, IgnoresRetryAfterRetriesBeforeTheRateLimitEnds) {
  SimHarness sim(with_plan({"rate-limited:3"}));
  sim.run(order_operation(), settings_with(3, Millis(200)), Mutant::ignores_retry_after);

  EXPECT_EQ(sim.requests(), (std::vector<std::string>{kPost + "new 429", kPost + "new 201"}));
  const std::vector<std::int64_t> gaps = sim.post_gaps();
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_LT(gaps[0], 3000);  // the bug
  EXPECT_GE(gaps[0], 100);   // its own backoff: 100..199 ms
  EXPECT_LT(gaps[0], 200);

  SimHarness reference(with_plan({"rate-limited:3"}));
  reference.run(order_operation(), settings_with(3, Millis(200)));
  ASSERT_EQ(reference.post_gaps().size(), 1u);
  EXPECT_GE(reference.post_gaps()[0], 3000);  // Retry-After, and up to a quarter more
  EXPECT_LE(reference.post_gaps()[0], 3750);
}

// --- no-jitter ----------------------------------------------------------------------------

TEST(Mutants, NoJitterWaitsExactlyEachStepWhateverItsSeed) {
  // Two clients with different seeds, through the same two 503s: without jitter their
  // waits are the same (the steps, 200 then 400 ms), so a fleet that fails together
  // retries together; the reference client's differ, half of each step random.
  const auto gaps = [](std::uint64_t seed, Mutant mutant) {
    SimHarness sim(
        with_plan({"fail-before-commit", "fail-before-commit"}, provider::Profile::baseline, seed));
    sim.run(order_operation(), settings_with(3, Millis(200)), mutant);
    return sim.post_gaps();
  };
  EXPECT_EQ(gaps(1, Mutant::no_jitter), (std::vector<std::int64_t>{200, 400}));
  EXPECT_EQ(gaps(2, Mutant::no_jitter), (std::vector<std::int64_t>{200, 400}));
  EXPECT_NE(gaps(1, Mutant::none), gaps(2, Mutant::none));
}

// --- memory-only-intent -------------------------------------------------------------------

TEST(Mutants, MemoryOnlyIntentDerivesANewKeyAfterARestart) {
  const Json plan = {"commit-then-drop", "lookup-unavailable"};
  SimHarness sim(with_plan(plan, provider::Profile::baseline, 1));
  // The first process: the POST commits, its answer is lost, the lookup fails: unknown.
  const ClientResult first = sim.run(order_operation(), {}, Mutant::memory_only_intent);
  ASSERT_EQ(first.outcome, ClientOutcome::unknown);
  EXPECT_FALSE(sim.ledger.find(kKey).has_value());  // nothing reached the durable ledger

  // The restarted process, a minute later: a new client instance, the same durable ledger.
  sim.clock.advance(Millis(60000));
  const ClientResult second = sim.run(order_operation(), {}, Mutant::memory_only_intent);

  EXPECT_EQ(second.outcome, ClientOutcome::succeeded);
  EXPECT_NE(first.idempotency_key, second.idempotency_key);
  EXPECT_EQ(first.idempotency_key.rfind(kKey + ":", 0), 0u);
  EXPECT_EQ(second.idempotency_key.rfind(kKey + ":", 0), 0u);
  EXPECT_EQ(sim.post_keys(),
            (std::vector<std::string>{first.idempotency_key, second.idempotency_key}));
  EXPECT_EQ(sim.requests(),
            (std::vector<std::string>{"POST /jobs " + first.idempotency_key + " new -",
                                      "GET /jobs/by-idempotency-key/" + first.idempotency_key +
                                          " " + first.idempotency_key + " lookup_failed 503",
                                      "POST /jobs " + second.idempotency_key + " new 201"}));
  EXPECT_EQ(sim.job_count(), 2u);  // the bug: a duplicate effect after the restart

  // The reference client, the same crash: the restart resumes with a lookup; one job.
  SimHarness reference(with_plan(plan, provider::Profile::baseline, 1));
  const ClientResult crashed = reference.run(order_operation());
  ASSERT_EQ(crashed.outcome, ClientOutcome::unknown);
  const std::optional<Intent> intent = reference.ledger.find(kKey);
  ASSERT_TRUE(intent.has_value());
  EXPECT_EQ(intent->status, IntentStatus::unknown);
  reference.clock.advance(Millis(60000));
  const ClientResult resumed = reference.run(order_operation());
  EXPECT_EQ(reference.requests(),
            (std::vector<std::string>{kPost + "new -", kLookup + "lookup_failed 503",
                                      kLookup + "lookup_hit 200"}));
  EXPECT_EQ(reference.job_count(), 1u);
  EXPECT_EQ(resumed.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(resumed.attempts, 0);
}

// --- nested-retry-new-key -----------------------------------------------------------------

TEST(Mutants, NestedRetryNewKeyStartsOverUnderASecondKey) {
  const Json plan = {"commit-then-drop", "lookup-unavailable"};
  SimHarness sim(with_plan(plan));
  const ClientResult result = sim.run(order_operation(), {}, Mutant::nested_retry_new_key);

  const std::string key2 = kKey + ":round-2";
  EXPECT_EQ(sim.requests(),
            (std::vector<std::string>{kPost + "new -", kLookup + "lookup_failed 503",
                                      "POST /jobs " + key2 + " new 201"}));
  EXPECT_EQ(sim.post_keys(), (std::vector<std::string>{kKey, key2}));
  EXPECT_EQ(sim.job_count(), 2u);  // the bug
  EXPECT_EQ(job_keys(sim), (std::vector<std::string>{kKey, key2}));
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded);
  EXPECT_EQ(result.idempotency_key, key2);

  SimHarness reference(with_plan(plan));
  const ClientResult kept = reference.run(order_operation());
  EXPECT_EQ(reference.requests(),
            (std::vector<std::string>{kPost + "new -", kLookup + "lookup_failed 503"}));
  EXPECT_EQ(reference.job_count(), 1u);
  EXPECT_EQ(kept.outcome, ClientOutcome::unknown);
}

// --- no-budget ----------------------------------------------------------------------------

TEST(Mutants, NoBudgetRetriesThoughItsInstancesBudgetIsSpent) {
  // An instance whose budget is down to its last retry: ten first requests add one token.
  const auto spent_budget = [] {
    auto budget = std::make_unique<RetryBudget>(0.1, 1);
    EXPECT_TRUE(budget->withdraw());
    return budget;
  };
  SimHarness sim(with_plan({"fail-before-commit", "fail-before-commit"}));
  const auto naive_budget = spent_budget();
  ClientParts naive = sim.parts();
  naive.budget = naive_budget.get();
  sim.run_with(naive, order_operation(), {}, Mutant::no_budget);
  EXPECT_EQ(sim.post_count(), 3u);  // the bug: every failure retried, whatever the budget says

  SimHarness reference(with_plan({"fail-before-commit", "fail-before-commit"}));
  const auto budget = spent_budget();
  ClientParts parts = reference.parts();
  parts.budget = budget.get();
  const ClientResult result = reference.run_with(parts, order_operation());
  EXPECT_EQ(reference.post_count(), 1u);             // its first request, then the budget said no
  EXPECT_EQ(result.outcome, ClientOutcome::failed);  // a 503 proved nothing committed
  EXPECT_NE(result.reason.find("retry budget is spent"), std::string::npos) << result.reason;
  EXPECT_EQ(budget->withheld(), 1);
}

// An instance's breaker that five failed creates opened, its open_for (2 s) since passed: the
// service is back, and the next create is its probe.
std::unique_ptr<CircuitBreaker> breaker_due_a_probe(SimHarness& sim, Mutant mutant) {
  auto breaker =
      std::make_unique<CircuitBreaker>(kDefaultBreaker, row_of(mutant).behaviour.breaker_flaw);
  for (int i = 0; i < kDefaultBreaker.failures; ++i)
    breaker->record(Answered::failed, sim.clock.now());
  EXPECT_EQ(breaker->admit(sim.clock.now()), Admission::refuse);
  sim.clock.advance(kDefaultBreaker.open_for);
  return breaker;
}

// The operations an instance serves after its service is back: how many of them committed.
std::size_t served_after_outage(Mutant mutant, int operations) {
  SimHarness sim;
  const auto breaker = breaker_due_a_probe(sim, mutant);
  ClientParts parts = sim.parts();
  parts.breaker = breaker.get();
  for (int i = 0; i < operations; ++i)
    sim.run_with(parts, order_operation("order-" + std::to_string(i)), {}, mutant);
  return sim.job_count();
}

// --- no-budget (its breaker) ------------------------------------------------------------

TEST(Mutants, NoBudgetCreatesThoughItsInstancesCircuitIsOpen) {
  SimHarness sim;
  CircuitBreaker breaker;
  for (int i = 0; i < kDefaultBreaker.failures; ++i)
    breaker.record(Answered::failed, sim.clock.now());
  ClientParts parts = sim.parts();
  parts.breaker = &breaker;
  sim.run_with(parts, order_operation(), {}, Mutant::no_budget);
  EXPECT_EQ(sim.post_count(), 1u);  // the bug: an open circuit, and it sent a create

  SimHarness reference;
  ClientParts reference_parts = reference.parts();
  reference_parts.breaker = &breaker;
  const ClientResult result = reference.run_with(reference_parts, order_operation());
  EXPECT_EQ(reference.post_count(), 0u);
  EXPECT_EQ(result.outcome, ClientOutcome::failed);
  EXPECT_EQ(result.reason, "its instance's circuit is open: nothing was sent");
}

// The instance's guards in the order that leaves the budget as retry-budget counts it: a
// create the open circuit refuses touches no token; a probe the spent budget withholds goes
// back to the breaker for the next operation.
TEST(ReferenceClientGuards, ACreateTheOpenCircuitRefusesTouchesNoToken) {
  SimHarness sim;
  RetryBudget budget(0.1, 1);
  ASSERT_TRUE(budget.withdraw());  // empty: a first request's share would show
  CircuitBreaker breaker;
  for (int i = 0; i < kDefaultBreaker.failures; ++i)
    breaker.record(Answered::failed, sim.clock.now());
  ClientParts parts = sim.parts();
  parts.budget = &budget;
  parts.breaker = &breaker;
  sim.run_with(parts, order_operation());
  EXPECT_EQ(sim.post_count(), 0u);
  EXPECT_EQ(budget.tokens(), 0.0);  // no first request's share for a request never sent
}

TEST(ReferenceClientGuards, AProbeTheSpentBudgetWithholdsGoesBackToTheBreaker) {
  // One failure opens it for 1 ms: the operation's own retry, after its backoff, is the probe.
  SimHarness sim(with_plan({"fail-before-commit"}));
  RetryBudget budget(0.1, 1);
  ASSERT_TRUE(budget.withdraw());  // spent
  CircuitBreaker breaker(BreakerSettings{.failures = 1, .open_for = Millis(1)});
  ClientParts parts = sim.parts();
  parts.budget = &budget;
  parts.breaker = &breaker;
  const ClientResult result = sim.run_with(parts, order_operation());
  EXPECT_EQ(sim.post_count(), 1u);
  EXPECT_NE(result.reason.find("retry budget is spent"), std::string::npos) << result.reason;
  EXPECT_EQ(breaker.admit(sim.clock.now()), Admission::probe);  // not held half-open, unsent
}

// A ledger that fails as a create is about to leave (the intent saved as sent).
class FailingLedger final : public IntentLedger {
 public:
  std::optional<Intent> find(const std::string&) override { return std::nullopt; }
  void save(const Intent& intent) override {
    if (intent.status == IntentStatus::sent) throw std::runtime_error("disk full");
  }
};

TEST(ReferenceClientGuards, AProbeThatNeverLeftCountsAsFailedAndTheNextIsDue) {
  SimHarness sim;
  CircuitBreaker breaker;
  for (int i = 0; i < kDefaultBreaker.failures; ++i)
    breaker.record(Answered::failed, sim.clock.now());
  sim.clock.advance(kDefaultBreaker.open_for);
  FailingLedger failing;
  ClientParts parts{sim.transport, sim.clock, sim.sleeper, sim.random, failing};
  parts.breaker = &breaker;
  EXPECT_THROW(sim.run_with(parts, order_operation()), std::runtime_error);
  EXPECT_EQ(sim.post_count(), 0u);
  // Not held half-open for good: it opened again, and probes again after open_for.
  EXPECT_EQ(breaker.opened(), 2);
  EXPECT_EQ(breaker.admit(sim.clock.now()), Admission::refuse);
  sim.clock.advance(kDefaultBreaker.open_for);
  EXPECT_EQ(breaker.admit(sim.clock.now()), Admission::probe);
}

// --- breaker-never-probes -----------------------------------------------------------------

TEST(Mutants, BreakerNeverProbesLeavesItsInstanceCutOffOnceTheServiceIsBack) {
  EXPECT_EQ(served_after_outage(Mutant::breaker_never_probes, 5), 0u);  // the bug
  EXPECT_EQ(served_after_outage(Mutant::none, 5), 5u);  // the probe succeeded and closed it
}

// --- breaker-never-closes -----------------------------------------------------------------

TEST(Mutants, BreakerNeverClosesServesOneOperationAProbeOnceTheServiceIsBack) {
  EXPECT_EQ(served_after_outage(Mutant::breaker_never_closes, 5), 1u);  // the bug: the probe
  EXPECT_EQ(served_after_outage(Mutant::none, 5), 5u);
}

}  // namespace
}  // namespace retryproof::client
