// The simulation world: the provider core and the reference client (or a mutant) in virtual
// time, from one seed. Exact, replayable, and fast enough for property tests to run
// thousands of schedules. Each invocation is a new client, as a new process would be,
// sharing one durable intent ledger; a kill point stops it where the scenario says, exactly.
// A fleet's clients run one at a time under a FleetScheduler, each on a port of its own.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "client_under_test/instance_guards.hpp"
#include "client_under_test/intent_ledger.hpp"
#include "client_under_test/retrying_client.hpp"
#include "client_under_test/time_and_chance.hpp"
#include "provider/provider_core.hpp"
#include "scenarios/driver/driver.hpp"
#include "scenarios/simulation/fleet_scheduler.hpp"
#include "scenarios/simulation/simulated_transport.hpp"
#include "scenarios/simulation/virtual_time.hpp"

namespace retryproof::scenarios {

class SimulatedWorld final : public World {
 public:
  // Throws std::invalid_argument for a `cmd:` client: a program cannot run in simulation.
  SimulatedWorld(const Scenario& scenario, const ClientChoice& client, std::uint64_t seed);

  InvocationResult invoke(const InvocationPlan& plan) override;
  std::vector<InvocationResult> invoke_fleet(const std::vector<InvocationPlan>& plans,
                                             const Fleet& fleet) override;
  RunEvidence finish() override;

  // Each invocation's account as the client kept it (empty for a killed one: it died).
  const std::vector<client::ClientResult>& client_results() const { return client_results_; }

 private:
  // Runs one client to its end and notes how it ended; empty when it was killed.
  std::optional<client::ClientResult> run_client(const InvocationPlan& plan,
                                                 client::Transport& transport, client::Clock& clock,
                                                 client::Sleeper& sleeper, InvocationResult& result,
                                                 client::InstanceGuards* guards = nullptr);
  std::vector<InvocationResult> run_traffic(const std::vector<InvocationPlan>& plans,
                                            std::vector<InvocationResult> results,
                                            FleetTimes times);

  const Scenario& scenario_;
  ClientChoice client_;
  provider::ProviderCore provider_;
  client::VirtualClock clock_;
  Timeline timeline_;             // the clock, and the commits held requests owe
  SimulatedTransport transport_;  // a lone invocation's
  SimulatedSleeper sleeper_;
  client::InMemoryIntentLedger ledger_;  // "durable": it outlives each client
  std::vector<client::ClientResult> client_results_;
};

struct SimulationResult {
  ScenarioResult result;
  std::vector<client::ClientResult> clients;  // with each invocation's history
};

// Drives the scenario through a SimulatedWorld.
SimulationResult simulate(const Scenario& scenario, const ClientChoice& client, std::uint64_t seed,
                          const ClientPolicy& declared = {});

}  // namespace retryproof::scenarios
