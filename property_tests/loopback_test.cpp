// A sample of seeded schedules run twice: in simulation, and over real loopback HTTP with
// the reference client as a real process. The provider's journals must be the same,
// entry for entry, but for the time stamps and the connections' ports (the operating
// system's in one world, a number per client in the other), and each world's driver must
// charge the same requests to the same invocations: the simulation is a faithful model of
// the real thing. (Delays are left out: over a real network their outcome depends on speed.)
// The kill path is compared too: a seed also draws where the first invocation is killed,
// a real SIGKILL in one world and ClientKilled in the other.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "scenarios/driver/attribution.hpp"
#include "scenarios/model/schedule.hpp"
#include "scenarios/process/process_world.hpp"
#include "scenarios/simulation/simulated_world.hpp"

namespace retryproof::scenarios {
namespace {

std::vector<provider::JournalEntry> comparable(std::vector<provider::JournalEntry> journal) {
  for (auto& entry : journal) {
    entry.at = Millis(0);
    if (entry.answered_at) entry.answered_at = Millis(0);
    entry.client_port.reset();
    entry.new_connection = false;
  }
  return journal;
}

// The seqs each invocation was charged with, as the driver attributed them.
std::vector<std::vector<std::uint64_t>> charges(const ScenarioResult& result) {
  std::vector<std::vector<std::uint64_t>> seqs;
  for (const auto& entries : charged_entries(result.journal, result.invocations, false)) {
    seqs.emplace_back();
    for (const provider::JournalEntry& entry : entries)
      seqs.back().push_back(entry.seq);
  }
  return seqs;
}

// The schedule a seed draws; with `killed`, the kill point of its first invocation too.
Schedule schedule_of(std::uint64_t seed, bool killed) {
  SplitMix64 random(seed);
  Schedule schedule = random_schedule(random, FaultMenu::instant);
  schedule.base_delay_ms = std::min(schedule.base_delay_ms, 20);  // keep the real run short
  schedule.max_delay_ms = schedule.base_delay_ms * 4;
  if (killed) {
    using When = KillPoint::When;
    constexpr std::array kKillPoints{
        KillPoint{When::after_commit}, KillPoint{When::after_request, 1},
        KillPoint{When::after_request, 2}, KillPoint{When::after_request, 3}};
    schedule.kill = kKillPoints[random.next() % kKillPoints.size()];
  }
  return schedule;
}

// Both worlds on the seed's schedule, compared.
void expect_both_worlds_agree(std::uint64_t seed, bool killed) {
  const Schedule schedule = schedule_of(seed, killed);
  const Scenario scenario = to_scenario(schedule, "loopback-" + std::to_string(seed));
  const std::string replay = "seed " + std::to_string(seed) + " (replay: --gtest_filter=*seed" +
                             std::to_string(seed) +
                             "), schedule: " + to_scenario_json(schedule, "replay").dump();

  const ScenarioResult simulated = simulate(scenario, ClientChoice{}, seed).result;
  const ScenarioResult real =
      run_scenario(scenario, {.client = {}, .seed = seed, .executable = RETRYPROOF_BINARY});

  EXPECT_EQ(nlohmann::json(comparable(real.journal)).dump(1),
            nlohmann::json(comparable(simulated.journal)).dump(1))
      << replay;
  EXPECT_EQ(real.jobs, simulated.jobs) << replay;
  EXPECT_EQ(charges(real), charges(simulated)) << replay;
  ASSERT_EQ(real.invocations.size(), simulated.invocations.size()) << replay;
  for (std::size_t i = 0; i < real.invocations.size(); ++i) {
    EXPECT_EQ(real.invocations[i].killed, simulated.invocations[i].killed)
        << "invocation " << i + 1 << ", " << replay;
    EXPECT_EQ(real.invocations[i].late_seqs, simulated.invocations[i].late_seqs)
        << "invocation " << i + 1 << ", " << replay;
  }
}

class Loopback : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(Loopback, RealHttpGivesTheSimulationsJournal) {
  expect_both_worlds_agree(GetParam(), false);
}

TEST_P(Loopback, RealHttpGivesTheSimulationsJournalWhereTheClientIsKilled) {
  expect_both_worlds_agree(GetParam(), true);
}

INSTANTIATE_TEST_SUITE_P(Seeds, Loopback, ::testing::Range<std::uint64_t>(1, 13),
                         [](const auto& param_info) {
                           return "seed" + std::to_string(param_info.param);
                         });

}  // namespace
}  // namespace retryproof::scenarios
