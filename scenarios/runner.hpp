// Runs a scenario for real: a provider in-process on an ephemeral port, the client as a
// separate process under the external-client contract (the reference client and the
// mutants are this same program's `client` subcommand), then the verdicts.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "scenarios/scenario.hpp"
#include "scenarios/verdicts.hpp"

namespace retryproof::scenarios {

struct RunOptions {
  ClientChoice client;               // a scenario's pinned client wins over it
  std::uint64_t seed = 0;            // provider job ids; client i gets seed + i
  std::filesystem::path executable;  // this program, to run `client` for reference and mutants
};

struct ScenarioResult {
  std::string name;
  std::string description;
  std::string file;
  std::string client;  // as --client spells it
  std::uint64_t seed = 0;
  std::vector<InvocationResult> invocations;
  nlohmann::json journal;  // the provider's entries
  nlohmann::json jobs;     // the provider's jobs
  std::vector<Verdict> verdicts;
  std::vector<std::string> unmet;  // how the run missed the scenario's expectations
  std::vector<std::string> expected_violations;

  bool met() const { return unmet.empty(); }
  int posts() const;  // POST /jobs requests the provider saw
};

ScenarioResult run_scenario(const Scenario& scenario, const RunOptions& options);

// Compares verdicts, jobs and outcomes with what the scenario expects.
std::vector<std::string> unmet_expectations(const Scenario& scenario, const ScenarioResult& result);

}  // namespace retryproof::scenarios
