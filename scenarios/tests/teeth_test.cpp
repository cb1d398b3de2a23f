// Teeth in every scenario, and verdicts a busy machine cannot fool: three clients that send
// nothing meet no scenario of the catalog; a client that retries at once is caught in every
// one of twenty runs while another process keeps a core busy; and every client is given the
// scenario's settings in RETRYPROOF_CLIENT.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/temp_dir.hpp"
#include "scenarios/child_process.hpp"
#include "scenarios/process_world.hpp"

namespace retryproof::scenarios {
namespace {

using namespace std::chrono_literals;

const std::filesystem::path kCatalog = RETRYPROOF_CATALOG_DIR;

RunOptions options_for(const std::string& client) {
  return RunOptions{.client = parse_client_choice(client), .executable = RETRYPROOF_BINARY};
}

const Verdict& verdict_of(const ScenarioResult& result, const std::string& id) {
  for (const Verdict& verdict : result.verdicts) {
    if (verdict.id == id) return verdict;
  }
  throw std::logic_error("no verdict " + id);
}

class NullClients : public ::testing::TestWithParam<std::string> {};

TEST_P(NullClients, MeetNoScenarioOfTheCatalog) {
  const RunOptions options = options_for("cmd:echo '" + GetParam() + "'");
  int judged = 0;
  for (const Scenario& scenario : load_catalog({kCatalog})) {
    if (scenario.pinned_client) continue;  // those judge their own client, not this one
    ++judged;
    const ScenarioResult result = run_scenario(scenario, options);
    EXPECT_FALSE(result.met()) << scenario.name
                               << " is met by a client that sends nothing: " << GetParam();
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

// A CPU-bound process beside the run, for as long as the test needs it.
class BusyCore {
 public:
  BusyCore() : spinner_({"/bin/sh", "-c", "while :; do :; done"}) {}

 private:
  ChildProcess spinner_;  // killed and reaped when the test ends
};

TEST(BackoffUnderLoad, AClientThatRetriesAtOnceIsCaughtInEveryRun) {
  const BusyCore busy;
  Scenario scenario = load_scenario(kCatalog / "01-fail-before-commit.json");
  for (int run = 0; run < 20; ++run) {
    RunOptions options = options_for("mutant:no-backoff");
    options.seed = static_cast<std::uint64_t>(run);
    const ScenarioResult result = run_scenario(scenario, options);
    const Verdict& backoff = verdict_of(result, "backoff");
    EXPECT_EQ(backoff.status, VerdictStatus::fail) << "run " << run << ": " << backoff.explanation;
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
