// `stopping` and the breaker's excuse in `gave-up`, in the simulation: long-lived instances
// under steady traffic through the traffic set's outages. The reference client's instances
// keep a circuit breaker (breaker=5/2s) and a retry budget; the mutants each break one of
// them, and the verdicts must say which and where.
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>

#include "client_under_test/mutant.hpp"
#include "scenarios/simulation/simulated_world.hpp"

namespace retryproof::scenarios {
namespace {

const std::string kTrafficSet = RETRYPROOF_SOURCE_DIR "/scenarios/traffic";

const Verdict& verdict(const ScenarioResult& result, const std::string& id) {
  for (const Verdict& each : result.verdicts)
    if (each.id == id) return each;
  throw std::invalid_argument("no verdict " + id);
}

ScenarioResult run(const std::string& file, std::optional<client::Mutant> mutant = {}) {
  ClientChoice choice;
  if (mutant) choice = {.kind = ClientChoice::Kind::mutant, .mutant = *mutant};
  return simulate(load_scenario(kTrafficSet + "/" + file), choice, 1).result;
}

bool says(const Verdict& verdict, const std::string& text) {
  return verdict.explanation.find(text) != std::string::npos;
}

int refused_by_breaker(const ScenarioResult& result) {
  int refused = 0;
  for (const InvocationResult& invocation : result.invocations)
    if (invocation.outcome &&
        invocation.outcome->line.value("reason", std::string()).find("circuit is open") !=
            std::string::npos)
      ++refused;
  return refused;
}

TEST(Stopping, TheReferenceClientsBreakersOpenAndProbeThroughALongOutage) {
  const ScenarioResult result = run("02-long-outage.json");
  const Verdict& stopping = verdict(result, "stopping");
  EXPECT_EQ(stopping.status, VerdictStatus::pass) << stopping.explanation;
  EXPECT_TRUE(says(stopping, "10 instances judged in 1 long outage(s)")) << stopping.explanation;
  EXPECT_TRUE(says(stopping, "then probed every 2.0 s")) << stopping.explanation;
  // The breakers really refused: hundreds of operations failed fast, and gave-up excused each.
  EXPECT_GT(refused_by_breaker(result), 100);
  EXPECT_EQ(verdict(result, "gave-up").status, VerdictStatus::pass)
      << verdict(result, "gave-up").explanation;
}

TEST(Stopping, AnInstanceWithoutABreakerIsCaughtSendingThroughTheOutage) {
  const ScenarioResult result = run("02-long-outage.json", client::Mutant::no_budget);
  const Verdict& stopping = verdict(result, "stopping");
  EXPECT_EQ(stopping.status, VerdictStatus::fail);
  EXPECT_TRUE(says(stopping, "'s breaker opened at")) << stopping.explanation;
  EXPECT_TRUE(says(stopping, "where a breaker of 5/2s sends at most")) << stopping.explanation;
  EXPECT_FALSE(stopping.evidence.empty());
  EXPECT_EQ(refused_by_breaker(result), 0);
}

TEST(Stopping, ABreakerThatNeverProbesIsCaughtCutOff) {
  const ScenarioResult result = run("02-long-outage.json", client::Mutant::breaker_never_probes);
  const Verdict& stopping = verdict(result, "stopping");
  EXPECT_EQ(stopping.status, VerdictStatus::fail);
  EXPECT_TRUE(says(stopping, "and it never probed again")) << stopping.explanation;
  EXPECT_EQ(verdict(result, "recovery").status, VerdictStatus::fail);
  // Its refusals after the outage come while a breaker of 5/2s would have closed.
  EXPECT_EQ(verdict(result, "gave-up").status, VerdictStatus::fail);
}

TEST(Stopping, ABreakerThatNeverClosesIsCaughtByRecoveryAndGaveUp) {
  const ScenarioResult result = run("02-long-outage.json", client::Mutant::breaker_never_closes);
  EXPECT_EQ(verdict(result, "recovery").status, VerdictStatus::fail);
  EXPECT_EQ(verdict(result, "gave-up").status, VerdictStatus::fail);
}

TEST(Stopping, IsNotJudgedWithoutALongOutageAndNotForTheBreakerInABrownout) {
  const ScenarioResult capacity_drop = run("01-capacity-drop.json");
  const Verdict& short_trigger = verdict(capacity_drop, "stopping");
  EXPECT_EQ(short_trigger.status, VerdictStatus::not_applicable);
  EXPECT_TRUE(says(short_trigger, "no outage of 10.0 s or more")) << short_trigger.explanation;
  // Half the requests fail: a probe's success rightly closes the breaker, and only the budget
  // is held.
  const ScenarioResult half_failing = run("03-brownout.json");
  const Verdict& brownout = verdict(half_failing, "stopping");
  EXPECT_EQ(brownout.status, VerdictStatus::pass) << brownout.explanation;
  EXPECT_FALSE(says(brownout, "breaker")) << brownout.explanation;
  EXPECT_TRUE(says(brownout, "each instance's retries stayed within its budget"))
      << brownout.explanation;
}

// What each traffic-only mutant's catalogue row says catches it does, somewhere in the
// traffic set: the run --mutants matrix can only say that some verdict caught it.
TEST(Stopping, EveryTrafficMutantIsCaughtByEachVerdictItsRowNames) {
  const std::vector<Scenario> traffic_set = load_catalog({kTrafficSet});
  for (const client::MutantRow& row : client::mutant_catalogue()) {
    if (row.shown_by != client::ShownBy::traffic) continue;
    SCOPED_TRACE(std::string(row.name));
    std::set<std::string> failed;
    for (const Scenario& scenario : traffic_set) {
      const ClientChoice choice{.kind = ClientChoice::Kind::mutant, .mutant = row.mutant};
      for (const Verdict& each : simulate(scenario, choice, 1).result.verdicts)
        if (each.status == VerdictStatus::fail) failed.insert(each.id);
    }
    for (const auto& verdict : row.caught_by)
      EXPECT_TRUE(failed.contains(std::string(verdict))) << verdict;
  }
}

}  // namespace
}  // namespace retryproof::scenarios
