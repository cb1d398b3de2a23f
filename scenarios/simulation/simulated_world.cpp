#include "scenarios/simulation/simulated_world.hpp"

#include <memory>
#include <stdexcept>

#include "scenarios/simulation/fleet_scheduler.hpp"

namespace retryproof::scenarios {
namespace {

// Time passes between runs, as it does between two processes.
constexpr Millis kBetweenInvocations{1000};

// A fleet client's port: no socket exists, so any number serves that is not 0 (the main
// port) and no other client's. Its number, as reports count invocations from 1.
int fleet_port(const InvocationPlan& plan) {
  return plan.index + 1;
}

// A simulated client's one connection (JournalEntry::client_port): any number not another
// client's; its number too.
int client_port(const InvocationPlan& plan) {
  return plan.index + 1;
}

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
      timeline_(provider_, clock_),
      transport_(provider_, timeline_),
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
  transport_.connect(client_port(plan));
  const Millis deadline = result.started_at + scenario_.time_limit;
  transport_.kill_when([this, &kill, &result, jobs_before, deadline] {
    return clock_.now() >= deadline ||
           kill.reached(provider_.job_count() - jobs_before,
                        provider_.journal_size() + 1 - result.first_seq);
  });

  std::optional<client::ClientResult> outcome =
      run_client(plan, transport_, timeline_, sleeper_, result);
  if (!outcome) {
    result.timed_out = clock_.now() >= deadline;
    result.killed = !result.timed_out;
  }
  client_results_.push_back(outcome.value_or(client::ClientResult{}));
  transport_.kill_when(nullptr);
  if (kill.armed() && !result.killed) result.kill_missed = true;
  result.ended_at = clock_.now();
  result.last_seq = provider_.journal_size();
  clock_.advance(kBetweenInvocations);
  return result;
}

std::optional<client::ClientResult> SimulatedWorld::run_client(
    const InvocationPlan& plan, client::Transport& transport, client::Clock& clock,
    client::Sleeper& sleeper, InvocationResult& result, client::InstanceGuards* guards) {
  client::SeededRandom random(plan.client_seed);  // as `retryproof client --seed`
  client::RetryingClient client(
      scenario_.settings,
      {transport, clock, sleeper, random, ledger_, guards ? &guards->budget : nullptr,
       guards ? &guards->breaker : nullptr},
      client_.mutant);
  try {
    client::ClientResult outcome = client.run({plan.invocation.operation, plan.payload});
    result.outcome = outcome_line_of(outcome.outcome_line()).line;
    result.exit = "exit code 0";
    return outcome;
  } catch (const ClientKilled&) {
    result.exit = "killed by SIGKILL";
    return std::nullopt;
  }
}

std::vector<InvocationResult> SimulatedWorld::invoke_fleet(const std::vector<InvocationPlan>& plans,
                                                           const Fleet& fleet) {
  std::vector<InvocationResult> results;
  for (const InvocationPlan& plan : plans) {
    results.push_back({.index = plan.index,
                       .operation = plan.invocation.operation,
                       .payload = plan.payload,
                       .port = fleet_port(plan)});
    if (scenario_.traffic) results.back().instance = plan.invocation.instance;
  }
  // The driver finds each client's journal window by its port. No kill points in a fleet
  // (the loader refuses them): a client is stopped only at its time limit.
  std::vector<client::ClientResult> accounts(plans.size());
  FleetTimes times{.count = plans.size(),
                   .concurrency = fleet.concurrency,
                   .start_spread = fleet.start_spread,
                   .time_limit = scenario_.time_limit};
  // Open-loop traffic: each operation when it arrives, served by its instance, whose one
  // client keeps its retry budget and circuit breaker across every operation it serves.
  std::vector<std::unique_ptr<client::InstanceGuards>> guards;
  if (scenario_.traffic) {
    for (const InvocationPlan& plan : plans)
      times.starts.push_back(plan.invocation.starts_at.value_or(Millis(0)));
    for (int i = 0; i < scenario_.traffic->instances; ++i)
      guards.push_back(std::make_unique<client::InstanceGuards>(client_.mutant));
  }
  FleetScheduler scheduler(timeline_);
  scheduler.run(times, [&](std::size_t i, VirtualTime& time) {
    InvocationResult& result = results[i];
    result.started_at = time.now();
    SimulatedTransport transport(provider_, time, *result.port);
    SimulatedSleeper sleeper(transport);
    client::InstanceGuards* instance =
        guards.empty() ? nullptr
                       : guards[static_cast<std::size_t>(plans[i].invocation.instance)].get();
    std::optional<client::ClientResult> outcome =
        run_client(plans[i], transport, time, sleeper, result, instance);
    result.timed_out = !outcome;
    if (outcome) accounts[i] = std::move(*outcome);
    result.ended_at = time.now();
  });
  client_results_.insert(client_results_.end(), std::make_move_iterator(accounts.begin()),
                         std::make_move_iterator(accounts.end()));
  return results;
}

RunEvidence SimulatedWorld::finish() {
  transport_.kill_when(nullptr);
  timeline_.settle();  // held requests commit before the provider is judged
  return {provider_.journal(), provider_.jobs(), provider_.plan_uses()};
}

SimulationResult simulate(const Scenario& scenario, const ClientChoice& client, std::uint64_t seed,
                          const ClientPolicy& declared) {
  SimulatedWorld world(scenario, client, seed);
  ScenarioResult result = drive(scenario, client, declared, seed, world);
  return {std::move(result), world.client_results()};
}

}  // namespace retryproof::scenarios
