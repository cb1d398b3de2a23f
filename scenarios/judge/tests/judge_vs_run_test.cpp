// Judging traffic alone agrees with a driven run wherever both apply: a catalog scenario whose
// every operation is invoked once, without a kill, is run (in simulation, and through
// run_scenario over real HTTP), its journal saved as GET /_test/journal serves it, and judged
// by judge_traffic with the run's policy. Every verdict judge gives must be the run's, with
// the same evidence.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "common/temp_dir.hpp"
#include "scenarios/judge/traffic.hpp"
#include "scenarios/process/process_world.hpp"
#include "scenarios/simulation/simulated_world.hpp"

namespace retryproof::scenarios {
namespace {

const std::filesystem::path kCatalog = RETRYPROOF_CATALOG_DIR;

// Both apply: one invocation per operation (a run's verdicts are per invocation, traffic's
// per operation), no kill (crash-recovery needs one), the operation's own payload.
bool judgeable_from_traffic(const Scenario& scenario) {
  std::map<std::string, int> runs;
  for (const Invocation& invocation : scenario.invocations) {
    if (invocation.kill.armed() || invocation.payload) return false;
    ++runs[invocation.operation];
  }
  return std::all_of(runs.begin(), runs.end(), [](const auto& run) { return run.second == 1; });
}

ClientPolicy declared_as(const JudgedPolicy& policy) {
  return {.attempts = policy.attempts,
          .min_backoff = policy.min_backoff,
          .timeout = policy.timeout,
          .on_ambiguous = policy.on_ambiguous};
}

// The journal as a file holds it: what GET /_test/journal serves, read back.
std::vector<provider::JournalEntry> saved_and_read(
    const std::vector<provider::JournalEntry>& journal, const TempDir& directory) {
  const nlohmann::json served = {{"count", journal.size()}, {"entries", journal}};
  const auto file = directory.write("journal.json", served.dump(2));
  std::ifstream in(file);
  return provider::journal_from_json(nlohmann::json::parse(in));
}

struct Agreement {
  int verdicts = 0;  // compared
  int failures = 0;  // of them, failed in both
};

void expect_agreement(const ScenarioResult& run, const std::vector<provider::JournalEntry>& journal,
                      Agreement& agreement) {
  const ScenarioResult traffic = judge_traffic(journal, {.operation_field = "orderId",
                                                         .require_operations = true,
                                                         .declared = declared_as(run.policy)});
  EXPECT_EQ(traffic.invocations.size(), run.invocations.size()) << run.name << " " << run.client;
  EXPECT_EQ(traffic.jobs.size(), run.jobs.size()) << run.name << " " << run.client;
  for (const Verdict& judged : traffic.verdicts) {
    const auto ran = std::find_if(run.verdicts.begin(), run.verdicts.end(),
                                  [&](const Verdict& v) { return v.id == judged.id; });
    ASSERT_NE(ran, run.verdicts.end()) << judged.id;
    EXPECT_EQ(judged.status, ran->status)
        << run.name << " with " << run.client << ": " << judged.id
        << "\n  judge: " << judged.explanation << "\n  run:   " << ran->explanation;
    EXPECT_EQ(judged.evidence, ran->evidence)
        << run.name << " with " << run.client << ": " << judged.id;
    ++agreement.verdicts;
    if (judged.status == VerdictStatus::fail && ran->status == VerdictStatus::fail)
      ++agreement.failures;
  }
}

std::vector<ClientChoice> every_client() {
  std::vector<ClientChoice> clients = {ClientChoice{}};
  for (const client::Mutant mutant : client::all_mutants())
    clients.push_back({ClientChoice::Kind::mutant, mutant, {}});
  return clients;
}

TEST(JudgeAgreesWithRun, InSimulationForTheReferenceClientAndEveryMutant) {
  TempDir directory("judge-vs-run");
  Agreement agreement;
  std::set<std::string> scenarios;
  for (const Scenario& scenario : load_catalog({kCatalog})) {
    if (!judgeable_from_traffic(scenario)) continue;
    scenarios.insert(scenario.name);
    for (const ClientChoice& client : every_client()) {
      const ScenarioResult run =
          simulate(scenario, scenario.pinned_client.value_or(client), 3).result;
      expect_agreement(run, saved_and_read(run.journal, directory), agreement);
    }
  }
  EXPECT_GE(scenarios.size(), 15u) << "most of the catalog is judgeable from traffic";
  EXPECT_GT(agreement.verdicts, 1000);
  EXPECT_GT(agreement.failures, 20) << "the mutants' failures are compared too, not only passes";
}

TEST(JudgeAgreesWithRun, OverRealHttpWithTheJournalSavedToAFile) {
  TempDir directory("judge-vs-run");
  Agreement agreement;
  const std::vector<std::pair<std::string, std::string>> runs = {
      {"03-commit-then-drop.json", "reference"},
      {"03-commit-then-drop.json", "mutant:blind-retry"},
      {"05-anti-pattern-fresh-key.json", "reference"},  // pinned to fresh-key-per-attempt
      {"10-rate-limited.json", "mutant:ignores-retry-after"},
      {"17-chaos-storm.json", "reference"},
  };
  for (const auto& [file, client] : runs) {
    const Scenario scenario = load_scenario(kCatalog / file);
    ASSERT_TRUE(judgeable_from_traffic(scenario)) << file;
    const ScenarioResult run = run_scenario(
        scenario, {.client = parse_client_choice(client), .executable = RETRYPROOF_BINARY});
    expect_agreement(run, saved_and_read(run.journal, directory), agreement);
  }
  EXPECT_GE(agreement.failures, 3) << "blind-retry, fresh-key and ignores-retry-after are caught";
}

}  // namespace
}  // namespace retryproof::scenarios
