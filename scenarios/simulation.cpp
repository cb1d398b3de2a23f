#include "scenarios/simulation.hpp"

#include <stdexcept>

#include "client_under_test/simulated_transport.hpp"

namespace retryproof::scenarios {

SimulatedRun simulate(const Scenario& scenario, const ClientChoice& choice, std::uint64_t seed) {
  if (choice.kind == ClientChoice::Kind::command) {
    throw std::invalid_argument("a command cannot run in simulation: " + choice.describe());
  }
  provider::ProviderCore provider({.seed = seed,
                                   .profile = scenario.profile,
                                   .initial_plan = provider::FaultPlan::from_json(scenario.plan)});
  client::VirtualClock clock;
  client::SimulatedTransport transport(provider, clock);
  client::InMemoryIntentLedger ledger;  // "durable": it outlives each client

  SimulatedRun run;
  std::uint64_t journaled = 0;
  for (std::size_t i = 0; i < scenario.invocations.size(); ++i) {
    const Invocation& invocation = scenario.invocations[i];
    InvocationResult result;
    result.index = static_cast<int>(i);
    result.operation = invocation.operation;
    result.payload = invocation.payload.value_or(scenario.operation(invocation.operation).payload);
    result.first_seq = journaled + 1;
    result.started_at = clock.now();

    client::SeededRandom random(seed + i);  // as `retryproof client --seed seed+i`
    client::RetryingClient client(scenario.settings, {transport, clock, clock, random, ledger},
                                  choice.mutant);
    client::ClientResult outcome = client.run({invocation.operation, result.payload});
    result.outcome = outcome.outcome_line();
    result.exit = "exit code 0";
    result.ended_at = clock.now();
    run.results.push_back(std::move(outcome));

    // Time passes between runs, as it does between two processes.
    clock.advance(Millis(1000));
    journaled = provider.journal_size();
    result.last_seq = journaled;
    run.invocations.push_back(std::move(result));
  }
  transport.settle();  // held requests commit before the provider is judged
  run.journal = provider.journal_json()["entries"];
  run.jobs = provider.jobs_json()["jobs"];
  run.verdicts = judge({scenario, run.invocations, run.journal, run.jobs});
  return run;
}

}  // namespace retryproof::scenarios
