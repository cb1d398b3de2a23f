// Simulation throughput: how many complete client runs per second one core performs,
// client and provider core in one thread in virtual time. The workload is a
// three-attempt operation (503, 503, then 201). The baseline, measured in the same run,
// is one bare provider-core create per iteration; the ratio says what a whole retrying
// client run costs in creates, a figure that holds from machine to machine.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "client_under_test/retrying_client.hpp"
#include "provider/provider_core.hpp"
#include "scenarios/simulation/simulated_transport.hpp"

namespace {

using namespace retryproof;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One provider create with a fresh key, as the baseline unit of work.
double baseline_creates_per_second(int iterations) {
  provider::ProviderCore core({});
  const std::string body = R"({"orderId":"order-42","amount":120})";
  const auto start = Clock::now();
  for (int i = 0; i < iterations; ++i) {
    core.handle({"POST", "/jobs", {{"Idempotency-Key", "k-" + std::to_string(i)}}, body},
                Millis(0));
  }
  return iterations / seconds_since(start);
}

// Complete client runs: plan, three attempts with backoff in virtual time, confirmation.
double client_runs_per_second(int iterations) {
  const auto plan =
      provider::FaultPlan::from_json({{"faults", {"fail-before-commit", "fail-before-commit"}}});
  const auto start = Clock::now();
  int succeeded = 0;
  for (int i = 0; i < iterations; ++i) {
    provider::ProviderCore core({.initial_plan = plan});
    client::VirtualClock clock;
    scenarios::SimulatedTransport transport(core, clock);
    client::SeededRandom random(static_cast<std::uint64_t>(i));
    client::InMemoryIntentLedger ledger;
    client::RetryingClient retrying({}, {transport, clock, clock, random, ledger});
    const auto result =
        retrying.run({"fulfillment:order-42", {{"orderId", "order-42"}, {"amount", 120}}});
    succeeded += result.outcome == client::ClientOutcome::succeeded && result.attempts == 3;
  }
  if (succeeded != iterations) {
    std::fprintf(stderr, "only %d of %d runs took three attempts and succeeded\n", succeeded,
                 iterations);
    std::exit(1);
  }
  return iterations / seconds_since(start);
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20000;
  const double creates = baseline_creates_per_second(iterations);
  const double runs = client_runs_per_second(iterations);
  std::printf("baseline: provider-core creates per second     %10.0f\n", creates);
  std::printf("three-attempt client runs per second (1 core)  %10.0f   (goal: 20000)\n", runs);
  std::printf("ratio: one client run costs %.1f creates\n", creates / runs);
  return runs >= 20000 ? 0 : 3;
}
