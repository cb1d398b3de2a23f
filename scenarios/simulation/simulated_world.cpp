#include "scenarios/simulation/simulated_world.hpp"

#include <deque>
#include <memory>
#include <stdexcept>

#include "scenarios/simulation/fleet_scheduler.hpp"
#include "scenarios/simulation/simulated_instances.hpp"

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
  FleetTimes times{.count = plans.size(),
                   .concurrency = fleet.concurrency,
                   .start_spread = fleet.start_spread,
                   .time_limit = scenario_.time_limit};
  if (scenario_.traffic) return run_traffic(plans, std::move(results), times);
  std::vector<client::ClientResult> accounts(plans.size());
  FleetScheduler scheduler(timeline_);
  scheduler.run(times, [&](std::size_t i, VirtualTime& time) {
    InvocationResult& result = results[i];
    result.started_at = time.now();
    SimulatedTransport transport(provider_, time, *result.port);
    SimulatedSleeper sleeper(transport);
    std::optional<client::ClientResult> outcome =
        run_client(plans[i], transport, time, sleeper, result);
    result.timed_out = !outcome;
    if (outcome) accounts[i] = std::move(*outcome);
    result.ended_at = time.now();
  });
  client_results_.insert(client_results_.end(), std::make_move_iterator(accounts.begin()),
                         std::make_move_iterator(accounts.end()));
  return results;
}

namespace {

// What a traffic run's operations end with: each one's first run, by plan, and each rerun
// after a kill of its instance, in the order they began (a deque: stable addresses while they
// run), each with its client's account.
struct TrafficRuns {
  struct Run {
    InvocationResult result;
    client::ClientResult account;
  };
  std::vector<Run> first;
  std::deque<Run> reruns;

  // A rerun of `plan` begins now, on its instance's next process: a result of its own, on a
  // port (a connection) of its own.
  Run& rerun(const InvocationPlan& plan, std::uint64_t first_seq) {
    reruns.push_back({.result = {.operation = plan.invocation.operation,
                                 .payload = plan.payload,
                                 .first_seq = first_seq,
                                 .port = static_cast<int>(first.size() + reruns.size()) + 1,
                                 .instance = plan.invocation.instance,
                                 .rerun_of = plan.index}});
    return reruns.back();
  }

  // Every run, first runs first, each numbered by its place; the accounts into `accounts`.
  std::vector<InvocationResult> take(std::vector<client::ClientResult>& accounts) {
    std::vector<InvocationResult> results;
    const auto take_run = [&](Run& run) {
      results.push_back(std::move(run.result));
      accounts.push_back(std::move(run.account));
    };
    for (Run& run : first)
      take_run(run);
    for (Run& run : reruns) {
      run.result.index = static_cast<int>(results.size());
      take_run(run);
    }
    return results;
  }
};

}  // namespace

// Open-loop traffic: each operation when it arrives, served by its instance, whose one client
// keeps its retry budget and circuit breaker across every operation it serves. Each planned
// kill has a seat of its own, due at its time, that kills the instance if it runs anything
// then; else the instance dies at the first moment after that one of its clients acts. A
// client killed with its instance runs again at once, on the next process, until it ends or
// its time limit, which counts from the operation's arrival.
std::vector<InvocationResult> SimulatedWorld::run_traffic(const std::vector<InvocationPlan>& plans,
                                                          std::vector<InvocationResult> results,
                                                          FleetTimes times) {
  const TrafficPlan& traffic = *scenario_.traffic;
  for (const InvocationPlan& plan : plans)
    times.starts.push_back(plan.invocation.starts_at.value_or(Millis(0)));
  for (const InstanceKill& kill : traffic.kills)
    times.starts.push_back(kill.at);
  times.count += traffic.kills.size();
  SimulatedInstances instances(traffic, client_.mutant, timeline_.now());
  TrafficRuns runs;
  for (InvocationResult& result : results)
    runs.first.push_back({.result = std::move(result)});
  FleetScheduler scheduler(timeline_);
  scheduler.run(times, [&](std::size_t seat, VirtualTime& time) {
    if (seat >= plans.size()) {
      instances.kill_if_due(traffic.kills[seat - plans.size()].instance, time.now(), scheduler,
                            seat);
      return;
    }
    const InvocationPlan& plan = plans[seat];
    const int instance = plan.invocation.instance;
    for (TrafficRuns::Run* run = &runs.first[seat];;
         run = &runs.rerun(plan, provider_.journal_size() + 1)) {
      InvocationResult& result = run->result;
      result.started_at = time.now();
      const int life = instances.life(instance);
      result.process = life;
      SimulatedTransport transport(provider_, time, *result.port);
      SimulatedSleeper sleeper(transport);
      transport.kill_when([&] {
        return instances.life(instance) != life ||
               instances.kill_if_due(instance, time.now(), scheduler, seat);
      });
      instances.began(instance, seat);
      std::optional<client::ClientResult> outcome =
          run_client(plan, transport, time, sleeper, result, &instances.guards(instance));
      instances.ended(instance, seat);
      result.ended_at = time.now();
      if (outcome) run->account = std::move(*outcome);
      result.timed_out = !outcome && instances.life(instance) == life;
      result.killed = !outcome && !result.timed_out;
      if (!result.killed) return;
    }
  });
  return runs.take(client_results_);
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
