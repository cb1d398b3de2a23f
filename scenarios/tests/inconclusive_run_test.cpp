// Teeth for the causes a run can meet on its own: a planned fault that never fired, and an
// answer the scenario exists for that no request met. Each beside the same scenario without
// the cause, which is met. In the simulation: exact, and the same core as over HTTP.
#include <gtest/gtest.h>

#include "scenarios/simulation/simulated_world.hpp"
#include "scenarios/tests/catalog_runs.hpp"

namespace retryproof::scenarios {
namespace {

using catalog_runs::catalog_scenario;

ScenarioResult simulated(const Scenario& scenario) {
  return simulate(scenario, ClientChoice{}, 0).result;
}

std::string reasons(const ScenarioResult& result) {
  std::string text;
  for (const Inconclusive& reason : result.inconclusive)
    text += reason.text + "\n";
  for (const Unmet& miss : result.unmet)
    text += "unmet: " + miss.text + "\n";
  return text;
}

// Scenario C with its drop aimed at an order: the run's own, or one it never sends.
Scenario drop_aimed_at(const std::string& order) {
  Scenario scenario = catalog_scenario("03-commit-then-drop.json");
  scenario.plan = {{"faults", {{{"fault", "commit-then-drop"}, {"match", {{"orderId", order}}}}}}};
  return scenario;
}

TEST(InconclusiveRun, APlannedFaultThatNeverFiredLeavesTheScenarioUntested) {
  const ScenarioResult aimed = simulated(drop_aimed_at("order-42"));
  EXPECT_EQ(aimed.status(), ScenarioStatus::met) << reasons(aimed);
  ASSERT_EQ(aimed.planned.size(), 1u);
  EXPECT_EQ(aimed.planned[0].fired, 1);

  const ScenarioResult missed = simulated(drop_aimed_at("order-999"));
  EXPECT_EQ(missed.status(), ScenarioStatus::inconclusive) << reasons(missed);
  ASSERT_EQ(missed.inconclusive.size(), 1u) << reasons(missed);
  EXPECT_EQ(missed.inconclusive[0].text,
            "commit-then-drop was planned for orderId=order-999 and fired 0 times in 1 create");
}

TEST(InconclusiveRun, AFaultMarkedOptionalNeedNotFire) {
  Scenario scenario = drop_aimed_at("order-999");
  scenario.plan["faults"][0]["optional"] = true;
  const ScenarioResult result = simulated(scenario);
  EXPECT_EQ(result.status(), ScenarioStatus::met) << reasons(result);
  EXPECT_EQ(result.planned.at(0).fired, 0) << "still counted, and reported";
}

TEST(InconclusiveRun, AClientThatWaitsOutTheHoldNeverMeetsTheConflictInFlightExistsFor) {
  const Scenario in_flight = catalog_scenario("11-in-flight.json");
  const ScenarioResult met = simulated(in_flight);
  EXPECT_EQ(met.status(), ScenarioStatus::met) << reasons(met);

  Scenario patient = in_flight;
  patient.settings.timeout = Millis(5000);  // longer than the 1.5 s hold: it just waits
  const ScenarioResult waited = simulated(patient);
  EXPECT_EQ(waited.status(), ScenarioStatus::inconclusive) << reasons(waited);
  ASSERT_FALSE(waited.inconclusive.empty());
  EXPECT_NE(waited.inconclusive[0].text.find("a 409: its key's first request still in flight"),
            std::string::npos)
      << reasons(waited);
}

}  // namespace
}  // namespace retryproof::scenarios
