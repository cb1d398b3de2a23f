// A fleet in simulation: N reference clients (default 1,000) start together, every one's
// first attempt fails (a FIFO script of N fail-before-commit), and they retry with jitter in
// virtual time under the FleetScheduler, each on a thread of its own, one running at a time.
// The baseline, "sequential", runs the same N invocations one after another in the same
// world (concurrency 1): what the scheduler's threads and baton cost on top. Prints the wall
// time, the requests the provider saw and every verdict's status; exits 1 if one failed.
//   bench/sim_fleet [N] [fleet|sequential]   (bench/sim_fleet.sh runs both under time -v)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "scenarios/simulation/simulated_world.hpp"

int main(int argc, char** argv) {
  using namespace retryproof::scenarios;
  const int count = argc > 1 ? std::atoi(argv[1]) : 1000;
  const std::string mode = argc > 2 ? argv[2] : "fleet";
  const nlohmann::json document = {
      {"name", "sim-fleet-bench"},
      {"concurrency", mode == "fleet" ? count : 1},
      {"generatedOperations", {{"count", count}, {"idPrefix", "fulfillment:bench-"}}},
      {"plan",
       {{"faults",
         std::vector<std::string>(static_cast<std::size_t>(count), "fail-before-commit")}}}};
  const Scenario scenario = scenario_from_json(document, "(bench)");

  const auto start = std::chrono::steady_clock::now();
  const ScenarioResult result = simulate(scenario, ClientChoice{}, 1).result;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  bool failed = false;
  std::string statuses;
  for (const Verdict& verdict : result.verdicts) {
    failed = failed || verdict.status == VerdictStatus::fail;
    statuses += " " + verdict.id + "=" + to_string(verdict.status);
  }
  std::printf("%s: %d clients, %zu requests, %zu jobs, %.3f s wall, %.1f us a request\n",
              mode.c_str(), count, result.journal.size(), result.jobs.size(), seconds,
              seconds * 1e6 / static_cast<double>(result.journal.size()));
  std::printf("verdicts:%s\n", statuses.c_str());
  return failed ? 1 : 0;
}
