// The fleet verdicts: load-amplification, retry-spread and recovery (fleet.hpp defines what
// they measure). The runs are hand-built (checker_fixture.hpp): a pass, a fail with its
// exact evidence, and n/a, for each.
#include "scenarios/evidence/fleet.hpp"
#include "scenarios/tests/checker_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace hand_built;

class FleetCheckers : public Checkers {
 protected:
  // An outage from 0 for 5 s: every create in it is a 503.
  void with_outage() {
    scenario_.plan = {
        {"outages", {{{"from", "0ms"}, {"for", "5s"}, {"fault", "fail-before-commit"}}}}};
  }

  // `clients` invocations, each of its own operation and key: a 503 at 0, then a retry
  // `waits[i]` ms later that creates its job. Invocation i holds seqs 2i+1 and 2i+2.
  HandBuiltRun one_retry_each(const std::vector<std::int64_t>& waits) const {
    HandBuiltRun built = run({}, {});
    for (std::size_t i = 0; i < waits.size(); ++i) {
      const std::uint64_t first = 2 * i + 1;
      const std::string key = "k" + std::to_string(i);
      const std::string job_id = "job_" + std::to_string(i);
      built.invocations.push_back(invocation(first, first + 1, succeeded(job_id),
                                             static_cast<int>(i), "op-" + std::to_string(i)));
      built.journal.push_back(post({.seq = first, .key = key, .fault = "fail-before-commit"}));
      built.journal.push_back(post({.seq = first + 1, .at = waits[i], .key = key, .job = job_id}));
      built.jobs.push_back(job(job_id, key));
    }
    return built;
  }
};

Seqs retries_of(std::size_t clients) {
  Seqs seqs;
  for (std::size_t i = 0; i < clients; ++i)
    seqs.push_back(2 * i + 2);
  return seqs;
}

// --- retry-spread ---

TEST_F(FleetCheckers, RetrySpreadNeedsAWaveOfTen) {
  expect_not_applicable(check("retry-spread", one_retry_each(std::vector<std::int64_t>(9, 100))));
  expect_not_applicable(check("retry-spread", one_post_job_1()));
}

TEST_F(FleetCheckers, RetrySpreadFailsTenClientsThatWaitTheSame) {
  const Verdict verdict = check("retry-spread", one_retry_each(std::vector<std::int64_t>(10, 100)));
  expect_fail(verdict, retries_of(10));
  EXPECT_MENTIONS(verdict, "its 10 retries number 1 waited 100 ms (median)");
  EXPECT_MENTIONS(verdict, "within 0 ms of each other");
}

TEST_F(FleetCheckers, RetrySpreadFailsRetriesAtOnceWhateverTheirShare) {
  // 0 to 3 ms: under the 5 ms floor, though far above 1% of a 1 ms median.
  const Verdict verdict = check("retry-spread", one_retry_each({0, 1, 1, 2, 2, 2, 3, 3, 0, 1}));
  expect_fail(verdict, retries_of(10));
}

TEST_F(FleetCheckers, RetrySpreadPassesEqualJitter) {
  // Half of a 100 ms step random: 50 to 100 ms.
  const Verdict verdict =
      check("retry-spread", one_retry_each({50, 93, 61, 77, 55, 99, 68, 84, 72, 58}));
  expect_pass(verdict);
  EXPECT_MENTIONS(verdict, "1 judged");
}

TEST_F(FleetCheckers, RetrySpreadDoesNotLetOneLateClientHideAWave) {
  // Nine wait exactly 1 s; one the machine held back 80 ms more. The middle 80% is the wave.
  const Verdict verdict = check(
      "retry-spread", one_retry_each({1000, 1000, 1000, 1000, 1080, 1000, 1000, 1000, 1000, 1000}));
  expect_fail(verdict, retries_of(10));
}

// Ten clients told Retry-After: 1 by a 429, each retrying `waits[i]` ms later.
HandBuiltRun after_retry_after(const HandBuiltRun& built) {
  HandBuiltRun told = built;
  for (JournalEntry& entry : told.journal) {
    if (entry.fault && entry.fault->kind == provider::FaultKind::fail_before_commit) {
      entry = post(
          {.seq = entry.seq, .at = entry.at.count(), .key = *entry.key, .fault = "rate-limited:1"});
    }
  }
  return told;
}

TEST_F(FleetCheckers, RetrySpreadCallsAWaveAUniformRetryAfterOrderedTheProviders) {
  // Every client waited the second it was told, as RFC 9110 asks: the provider made the wave.
  const Verdict verdict =
      check("retry-spread", after_retry_after(one_retry_each(
                                {1001, 1001, 1002, 1001, 1003, 1001, 1002, 1001, 1001, 1004})));
  expect_pass(verdict);
  EXPECT_MENTIONS(verdict, "no wave of retries was the clients' own timing");
  EXPECT_MENTIONS(verdict,
                  "the provider synchronised the fleet: its 429s said Retry-After: 1 alike");
}

TEST_F(FleetCheckers, RetrySpreadNamesEveryWaveAUniformRetryAfterOrdered) {
  // Ten clients, each told Retry-After: 1 twice, each time waiting just that, then created.
  HandBuiltRun built = run({}, {});
  for (std::uint64_t i = 0; i < 10; ++i) {
    const std::uint64_t first = 3 * i + 1;
    const std::string key = "k" + std::to_string(i);
    const std::string job_id = "job_" + std::to_string(i);
    const auto at = static_cast<std::int64_t>(i);
    built.invocations.push_back(invocation(first, first + 2, succeeded(job_id), static_cast<int>(i),
                                           "op-" + std::to_string(i)));
    built.journal.push_back(post({.seq = first, .at = at, .key = key, .fault = "rate-limited:1"}));
    built.journal.push_back(
        post({.seq = first + 1, .at = at + 1001, .key = key, .fault = "rate-limited:1"}));
    built.journal.push_back(post({.seq = first + 2, .at = at + 2003, .key = key, .job = job_id}));
    built.jobs.push_back(job(job_id, key));
  }
  const Verdict verdict = check("retry-spread", built);
  expect_pass(verdict);
  EXPECT_MENTIONS(verdict,
                  "Retry-After: 1 alike and retries number 1 waited just that (median 1001 ms");
  EXPECT_MENTIONS(verdict, "; so did Retry-After: 1 for retries number 2 (median 1002 ms");
  EXPECT_MENTIONS(verdict, "as RFC 9110 asks");
}

TEST_F(FleetCheckers, RetrySpreadHoldsAClientThatPromisesJitterAfterRetryAfterToIt) {
  const Verdict verdict =
      check("retry-spread", after_retry_after(one_retry_each({1001, 1001, 1002, 1001, 1003, 1001,
                                                              1002, 1001, 1001, 1004}))
                                .declaring("jitter-after-retry-after"));
  expect_fail(verdict, retries_of(10));
}

TEST_F(FleetCheckers, RetrySpreadDoesNotCreditJitterForTheMachinesNoiseAfterRetryAfter) {
  // tenacity waiting exactly Retry-After on a loaded machine (storm-rate-limited): spread
  // 90 ms by the machine, not by the client. It passes, and is not called jitter.
  const Verdict verdict =
      check("retry-spread", after_retry_after(one_retry_each(
                                {1001, 1001, 1001, 1001, 1001, 1019, 1032, 1090, 1091, 1093})));
  expect_pass(verdict);
  EXPECT_MENTIONS(verdict, "no wave of retries was the clients' own timing");
  EXPECT_MENTIONS(verdict, "retries number 1 waited the Retry-After: 1 the provider gave alike");
  EXPECT_MENTIONS(verdict, "by jitter on top of it or by the machine's noise");
  EXPECT_FALSE(contains(verdict.explanation, "spread by jitter (")) << verdict.explanation;
}

// --- load-amplification ---

TEST_F(FleetCheckers, LoadAmplificationNeedsAnOutage) {
  expect_not_applicable(check("load-amplification", one_503_then_job_1()));
}

TEST_F(FleetCheckers, LoadAmplificationCountsCreatesPerOperationInTheOutage) {
  with_outage();
  // Operation 42 sends three creates in the outage, operation 43 one: two per operation.
  const auto within = run({invocation(1, 3, failed()), invocation_43(4, 4, succeeded("job_2"))},
                          {fail_before_commit(1), fail_before_commit(2, 200),
                           fail_before_commit(3, 600), post_43(4, 700)},
                          {job_43()});
  const Verdict passed = check("load-amplification", within);
  expect_pass(passed);
  EXPECT_MENTIONS(passed, "4 creates and 0 lookups from 2 operations during the outage");
  // A declared retry budget of 10% allows 1.1 per operation.
  const Verdict budgeted = check("load-amplification", within.declaring("retry-budget=10%"));
  expect_fail(budgeted, {1, 2, 3});
  EXPECT_MENTIONS(budgeted, "2.00 creates per operation where the budget is 1.10");
}

TEST_F(FleetCheckers, LoadAmplificationFailsAFleetPastItsAttempts) {
  with_outage();
  const auto storm =
      run({invocation(1, 4, failed())}, {fail_before_commit(1), fail_before_commit(2, 100),
                                         fail_before_commit(3, 300), fail_before_commit(4, 700)});
  const Verdict verdict = check("load-amplification", storm);
  expect_fail(verdict, {1, 2, 3, 4});
  EXPECT_MENTIONS(verdict, "4.00 creates per operation where the budget is 3");
}

TEST_F(FleetCheckers, LoadAmplificationFailsLookupsInALoop) {
  with_outage();
  const auto looping =
      run({invocation(1, 5, unknown())},
          {fail_before_commit(1), lookup({.seq = 2, .at = 100, .outcome = Outcome::lookup_failed}),
           lookup({.seq = 3, .at = 200, .outcome = Outcome::lookup_failed}),
           lookup({.seq = 4, .at = 300, .outcome = Outcome::lookup_failed}),
           lookup({.seq = 5, .at = 400, .outcome = Outcome::lookup_failed})});
  const Verdict verdict = check("load-amplification", looping);
  expect_fail(verdict, {1, 2, 3, 4, 5});
  EXPECT_MENTIONS(verdict, "4.00 lookups per operation, where one per attempt allows 3");
  // Three lookups are one per attempt, though only one create reached the service (a client
  // that timed its attempts out may never have had them arrive).
  const auto timed_out =
      run({invocation(1, 4, unknown())},
          {fail_before_commit(1), lookup({.seq = 2, .at = 100, .outcome = Outcome::lookup_failed}),
           lookup({.seq = 3, .at = 200, .outcome = Outcome::lookup_failed}),
           lookup({.seq = 4, .at = 300, .outcome = Outcome::lookup_failed})});
  expect_pass(check("load-amplification", timed_out));
}

// --- recovery ---

TEST_F(FleetCheckers, RecoveryNeedsAnOutage) {
  expect_not_applicable(check("recovery", one_503_then_job_1()));
}

TEST_F(FleetCheckers, RecoveryPassesAClientDoneSoonAfterTheOutage) {
  with_outage();
  // The bound: max delay 1000 ms, timeout 1000 ms, and a second: 3 s after the end at 5 s.
  const auto done = run({invocation(1, 2, succeeded("job_1"))},
                        {fail_before_commit(1, 4900), post({.seq = 2, .at = 5900, .job = "job_1"})},
                        {job("job_1", "k42")});
  expect_pass(check("recovery", done));
}

TEST_F(FleetCheckers, RecoveryFailsAClientStillSendingLongAfterTheOutage) {
  with_outage();
  const auto lingering =
      run({invocation(1, 2, succeeded("job_1"))},
          {fail_before_commit(1, 4900), post({.seq = 2, .at = 8000, .job = "job_1"})},
          {job("job_1", "k42")});
  const Verdict verdict = check("recovery", lingering);
  expect_fail(verdict, {2});
  EXPECT_MENTIONS(verdict, "still sending 3000 ms after the outage ended (seq 2)");
}

}  // namespace
}  // namespace retryproof::scenarios
