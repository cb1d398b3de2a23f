#include "scenarios/simulation/simulated_world.hpp"

#include <stdexcept>

namespace retryproof::scenarios {
namespace {

// Time passes between runs, as it does between two processes.
constexpr Millis kBetweenInvocations{1000};

const ClientChoice& simulable(const ClientChoice& client) {
  if (client.kind == ClientChoice::Kind::command) {
    throw std::invalid_argument("a command cannot run in simulation: " + client.describe());
  }
  return client;
}

}  // namespace

SimulatedWorld::SimulatedWorld(const Scenario& scenario, const ClientChoice& client,
                               std::uint64_t seed)
    : scenario_(scenario),
      client_(simulable(client)),
      provider_(provider_config(scenario, seed)),
      transport_(provider_, clock_),
      sleeper_(transport_) {}

InvocationResult SimulatedWorld::invoke(const InvocationPlan& plan) {
  if (plan.invocation.after > Millis(0)) provider_.advance_clock(plan.invocation.after);
  InvocationResult result{.index = plan.index,
                          .operation = plan.invocation.operation,
                          .payload = plan.payload,
                          .first_seq = provider_.journal_size() + 1,
                          .started_at = clock_.now()};
  // The client dies at its kill point, or is stopped at the scenario's time limit, as the
  // process world would stop it.
  const KillPoint& kill = plan.invocation.kill;
  const std::size_t jobs_before = provider_.job_count();
  const Millis deadline = result.started_at + scenario_.time_limit;
  transport_.kill_when([this, &kill, &result, jobs_before, deadline] {
    return clock_.now() >= deadline ||
           kill.reached(provider_.job_count() - jobs_before,
                        provider_.journal_size() + 1 - result.first_seq);
  });

  client::SeededRandom random(plan.client_seed);  // as `retryproof client --seed`
  client::RetryingClient client(scenario_.settings, {transport_, clock_, sleeper_, random, ledger_},
                                client_.mutant);
  try {
    client::ClientResult outcome = client.run({plan.invocation.operation, plan.payload});
    result.outcome = outcome_line_of(outcome.outcome_line()).line;
    result.exit = "exit code 0";
    client_results_.push_back(std::move(outcome));
  } catch (const ClientKilled&) {
    result.timed_out = clock_.now() >= deadline;
    result.killed = !result.timed_out;
    result.exit = "killed by SIGKILL";
    client_results_.emplace_back();
  }
  transport_.kill_when(nullptr);
  if (kill.armed() && !result.killed) result.client_error = not_reached(kill);
  result.ended_at = clock_.now();
  result.last_seq = provider_.journal_size();
  clock_.advance(kBetweenInvocations);
  return result;
}

std::vector<InvocationResult> SimulatedWorld::invoke_fleet(const std::vector<InvocationPlan>&,
                                                           const Fleet&) {
  throw std::invalid_argument("a fleet (\"concurrency\" above 1) runs over real processes only");
}

RunEvidence SimulatedWorld::finish() {
  transport_.settle();  // held requests commit before the provider is judged
  return {provider_.journal(), provider_.jobs()};
}

SimulationResult simulate(const Scenario& scenario, const ClientChoice& client, std::uint64_t seed,
                          const ClientPolicy& declared) {
  SimulatedWorld world(scenario, client, seed);
  ScenarioResult result = drive(scenario, client, declared, seed, world);
  return {std::move(result), world.client_results()};
}

}  // namespace retryproof::scenarios
