// A scenario run in simulation: the provider core and the client in one thread, in
// virtual time, from one seed. Exact, replayable, and fast enough for property tests to
// run thousands of schedules. Judged by the same checkers as a real run.
#pragma once

#include <cstdint>
#include <vector>

#include "scenarios/runner.hpp"

namespace retryproof::scenarios {

struct SimulatedRun {
  std::vector<InvocationResult> invocations;
  std::vector<client::ClientResult> results;  // each invocation's, with its history
  nlohmann::json journal;
  nlohmann::json jobs;
  std::vector<Verdict> verdicts;
};

// Runs every invocation with the reference client or a mutant (a `cmd:` client cannot
// run in simulation: std::invalid_argument). Each invocation is a new client, as a new
// process would be, sharing one durable intent ledger. Kill points are not simulated.
SimulatedRun simulate(const Scenario& scenario, const ClientChoice& client, std::uint64_t seed);

}  // namespace retryproof::scenarios
