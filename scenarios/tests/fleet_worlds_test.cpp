// The storm set's two workers in both worlds: the simulation judges a fleet as real
// processes are judged. Apart from sim_fleet_test.cpp because it runs `retryproof` as the
// client, which the sanitizer builds of that program need not build.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "scenarios/process/process_world.hpp"
#include "scenarios/simulation/simulated_world.hpp"

namespace retryproof::scenarios {
namespace {

// Each verdict's status, by id; with its explanation when `explained`, for the message.
std::map<std::string, std::string> statuses(const ScenarioResult& result, bool explained) {
  std::map<std::string, std::string> found;
  for (const Verdict& verdict : result.verdicts)
    found[verdict.id] =
        to_string(verdict.status) + (explained ? ": " + verdict.explanation : std::string{});
  return found;
}

TEST(FleetInBothWorlds, TwoWorkersAreJudgedAlikeInTheSimulationAndOverRealProcesses) {
  const Scenario scenario =
      load_scenario(std::filesystem::path(RETRYPROOF_CATALOG_DIR) / "../storm/06-two-workers.json");
  const ScenarioResult simulated = simulate(scenario, ClientChoice{}, 3).result;
  const ScenarioResult real =
      run_scenario(scenario, {.client = {}, .seed = 3, .executable = RETRYPROOF_BINARY});
  EXPECT_EQ(statuses(simulated, false), statuses(real, false))
      << "simulated: " << testing::PrintToString(statuses(simulated, true))
      << "\nreal: " << testing::PrintToString(statuses(real, true));
  EXPECT_TRUE(simulated.met()) << testing::PrintToString(statuses(simulated, true));
  EXPECT_EQ(simulated.jobs.size(), real.jobs.size());
  EXPECT_EQ(simulated.jobs.size(), 1u);
}

}  // namespace
}  // namespace retryproof::scenarios
