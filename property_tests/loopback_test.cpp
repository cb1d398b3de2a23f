// A sample of seeded schedules run twice: in simulation, and over real loopback HTTP with
// the reference client as a real process. The provider's journals must be the same,
// entry for entry, but for the time stamps: the simulation is a faithful model of the
// real thing. (Delays are left out: over a real network their outcome depends on speed.)
#include <gtest/gtest.h>

#include <string>

#include "scenarios/model/schedule.hpp"
#include "scenarios/process/process_world.hpp"
#include "scenarios/simulation/simulated_world.hpp"

namespace retryproof::scenarios {
namespace {

std::vector<provider::JournalEntry> without_time(std::vector<provider::JournalEntry> journal) {
  for (auto& entry : journal) {
    entry.at = Millis(0);
    if (entry.answered_at) entry.answered_at = Millis(0);
  }
  return journal;
}

class Loopback : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(Loopback, RealHttpGivesTheSimulationsJournal) {
  const std::uint64_t seed = GetParam();
  SplitMix64 random(seed);
  Schedule schedule = random_schedule(random, FaultMenu::instant);
  schedule.base_delay_ms = std::min(schedule.base_delay_ms, 20);  // keep the real run short
  schedule.max_delay_ms = schedule.base_delay_ms * 4;
  const Scenario scenario = to_scenario(schedule, "loopback-" + std::to_string(seed));

  const ScenarioResult simulated = simulate(scenario, ClientChoice{}, seed).result;
  const ScenarioResult real =
      run_scenario(scenario, {.client = {}, .seed = seed, .executable = RETRYPROOF_BINARY});

  EXPECT_EQ(nlohmann::json(without_time(real.journal)).dump(1),
            nlohmann::json(without_time(simulated.journal)).dump(1))
      << "schedule: " << to_scenario_json(schedule, "replay").dump();
  EXPECT_EQ(real.jobs, simulated.jobs);
}

INSTANTIATE_TEST_SUITE_P(Seeds, Loopback, ::testing::Range<std::uint64_t>(1, 13),
                         [](const auto& param_info) {
                           return "seed" + std::to_string(param_info.param);
                         });

}  // namespace
}  // namespace retryproof::scenarios
