// Teeth in every scenario, and verdicts a busy machine cannot fool: three clients that send
// nothing meet no scenario of the catalog; a client that retries at once is caught in every
// one of twenty runs however late a busy machine makes each answer; and every client is
// given the scenario's settings in RETRYPROOF_CLIENT.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/temp_dir.hpp"
#include "scenarios/evidence/evidence.hpp"
#include "scenarios/process/process_world.hpp"
#include "scenarios/simulation/simulated_world.hpp"
#include "scenarios/tests/catalog_runs.hpp"

namespace retryproof::scenarios {
namespace {

using namespace std::chrono_literals;
using provider::JournalEntry;

using catalog_runs::kCatalog;
using catalog_runs::options_for;

class NullClients : public ::testing::TestWithParam<std::string> {};

TEST_P(NullClients, MeetNoScenarioOfTheCatalog) {
  const RunOptions options = options_for("cmd:echo '" + GetParam() + "'");
  int judged = 0;
  // The catalog and the storm set: a fleet of clients that send nothing meets no storm.
  for (const Scenario& scenario : load_catalog({kCatalog, kCatalog.parent_path() / "storm"})) {
    if (scenario.pinned_client) continue;  // those judge their own client, not this one
    ++judged;
    const ScenarioResult result = run_scenario(scenario, options);
    // Failed, not merely unseen: a client that sends nothing must meet a red, however little
    // it let the run see.
    EXPECT_EQ(result.status(), ScenarioStatus::failed)
        << scenario.name << " is not failed by a client that sends nothing: " << GetParam();
  }
  EXPECT_GE(judged, 20);
}

INSTANTIATE_TEST_SUITE_P(SendingNothing, NullClients,
                         ::testing::Values(R"({"outcome":"failed","reason":"x"})",
                                           R"({"outcome":"unknown"})",
                                           R"({"outcome":"succeeded","jobId":"job_madeup"})"),
                         [](const auto& param_info) {
                           return std::string(param_info.index == 0   ? "Failed"
                                              : param_info.index == 1 ? "Unknown"
                                                                      : "Succeeded");
                         });

// A busy machine, as the provider's records show it: each answer `late` after its request
// arrived, and every later moment of the run later by all the lateness before it. That is
// what load does to the attempts themselves (a descheduled I/O thread, a slow provider), and
// what a backoff measured from arrival to arrival would count as the client's waiting.
ScenarioResult as_if_loaded(ScenarioResult result, Millis late) {
  Millis shift{0};
  for (JournalEntry& entry : result.journal) {
    entry.at += shift;
    shift += late;
    if (entry.answered_at) *entry.answered_at += shift;
    if (entry.abandoned_at) *entry.abandoned_at += shift;
  }
  for (InvocationResult& invocation : result.invocations)
    invocation.ended_at += shift;
  return result;
}

Verdict backoff_of(const Scenario& scenario, const ScenarioResult& result) {
  const auto verdicts =
      judge(Evidence(scenario, result.policy, result.invocations, result.journal, result.jobs));
  for (const Verdict& verdict : verdicts) {
    if (verdict.id == "backoff") return verdict;
  }
  throw std::logic_error("no verdict backoff");
}

// Deterministic by construction: the clients run in simulation, in virtual time, so the
// only times are those the test gives. The no-backoff mutant retries with no wait at all
// and the reference client after its backoff; each run's records are judged as they are
// and as a busy machine would have stretched them, and the verdict tells them apart in
// every run whatever the load, because it measures from the end of the previous attempt
// (checkers/backoff.cpp). What no record can tell apart is a reconnect that load delays
// past the floor from a wait: that is the resolution docs/scenarios.md states.
TEST(BackoffUnderLoad, AClientThatRetriesAtOnceIsCaughtInEveryRun) {
  const Scenario scenario = load_scenario(kCatalog / "01-fail-before-commit.json");
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const ScenarioResult at_once =
        simulate(scenario, parse_client_choice("mutant:no-backoff"), seed).result;
    const ScenarioResult waiting = simulate(scenario, ClientChoice{}, seed).result;
    ASSERT_EQ(at_once.creates(), 2) << "seed " << seed;
    ASSERT_EQ(waiting.creates(), 2) << "seed " << seed;
    for (const Millis late : {Millis(0), Millis(10), Millis(100), Millis(1000)}) {
      const ScenarioResult loaded = as_if_loaded(at_once, late);
      const Verdict caught = backoff_of(scenario, loaded);
      EXPECT_EQ(caught.status, VerdictStatus::fail)
          << "seed " << seed << ", answers " << late.count() << " ms late: " << caught.explanation;
      EXPECT_NE(caught.explanation.find("came at once, 0 ms after the previous attempt"),
                std::string::npos)
          << caught.explanation;
      const Verdict waited = backoff_of(scenario, as_if_loaded(waiting, late));
      EXPECT_EQ(waited.status, VerdictStatus::pass)
          << "seed " << seed << ", answers " << late.count() << " ms late: " << waited.explanation;
      // The test's teeth: from arrival to arrival, the lateness alone passes the floor.
      if (late >= Millis(100)) {
        EXPECT_GE(loaded.journal.at(1).at - loaded.journal.at(0).at, loaded.policy.min_backoff);
      }
    }
  }
}

TEST(ClientContract, EveryClientIsGivenTheScenariosSettings) {
  Scenario scenario = load_scenario(kCatalog / "09-delay-past-timeout.json");  // timeout 500ms
  scenario.time_limit = 7s;
  const TempDir dir("client-contract");
  const std::filesystem::path given = dir.path() / "given.json";
  // Keeps what it was given, then reports unknown without sending anything.
  run_scenario(scenario, options_for("cmd:printenv RETRYPROOF_CLIENT > '" + given.string() +
                                     "'; echo '{\"outcome\":\"unknown\"}'"));
  std::ifstream file(given);
  ASSERT_TRUE(file) << "the client saw no RETRYPROOF_CLIENT";
  EXPECT_EQ(nlohmann::json::parse(file), nlohmann::json({{"attempts", 3},
                                                         {"timeoutMs", 500},
                                                         {"baseDelayMs", 100},
                                                         {"maxDelayMs", 1000},
                                                         {"timeLimitMs", 7000}}));
}

}  // namespace
}  // namespace retryproof::scenarios
