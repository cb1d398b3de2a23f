// A test fixture helper for the client in simulation: the provider core, a virtual
// clock, the in-process transport, a seeded random source and an in-memory intent
// ledger, wired together so that a whole client run takes microseconds, replays exactly
// from its seeds, and leaves the provider's journal and jobs to be judged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "client_under_test/intent_ledger.hpp"
#include "client_under_test/mutant.hpp"
#include "client_under_test/retrying_client.hpp"
#include "client_under_test/time_and_chance.hpp"
#include "client_under_test/transport.hpp"
#include "provider/fault_plan.hpp"
#include "provider/provider_core.hpp"
#include "scenarios/simulation/simulated_transport.hpp"

namespace retryproof::client {

// Readable in GoogleTest's failure messages ("failed", not a byte dump).
inline void PrintTo(ClientOutcome outcome, std::ostream* out) {
  *out << to_string(outcome);
}
inline void PrintTo(IntentStatus status, std::ostream* out) {
  *out << to_string(status);
}
inline void PrintTo(TransportFailure failure, std::ostream* out) {
  *out << to_string(failure);
}

}  // namespace retryproof::client

namespace retryproof::client::sim {

struct SimOptions {
  nlohmann::json plan = nullptr;  // {"faults":[...]} for FaultPlan::from_json; null: no faults
  provider::Profile profile = provider::Profile::baseline;
  std::uint64_t provider_seed = 1;  // job ids
  std::uint64_t client_seed = 42;   // the client's jitter (and the memory-only mutant's keys)
};

// The business operation most tests run.
inline Operation order_operation(const std::string& order = "order-42", int amount = 120) {
  return Operation{.operation_id = "fulfillment:" + order,
                   .payload = {{"orderId", order}, {"paymentId", "pay-42"}, {"amount", amount}}};
}

// The key the client derives for order_operation() (its operation id), and how requests()
// begins the line of its POST and of its lookup: the outcome and the status follow.
inline const std::string kKey = "fulfillment:order-42";
inline const std::string kPost = "POST /jobs " + kKey + " ";
inline const std::string kLookup = "GET /jobs/by-idempotency-key/" + kKey + " " + kKey + " ";

// A provider that starts with this fault script ({"faults": faults}).
inline SimOptions with_plan(nlohmann::json faults,
                            provider::Profile profile = provider::Profile::baseline,
                            std::uint64_t client_seed = 42) {
  SimOptions options;
  options.plan = nlohmann::json{{"faults", std::move(faults)}};
  options.profile = profile;
  options.client_seed = client_seed;
  return options;
}

inline ClientSettings settings_with(int attempts, Millis base_delay = Millis(200),
                                    Millis max_delay = Millis(5000),
                                    Millis timeout = Millis(2000)) {
  return ClientSettings{
      .attempts = attempts, .base_delay = base_delay, .max_delay = max_delay, .timeout = timeout};
}

inline provider::ProviderConfig provider_config(const SimOptions& options) {
  provider::ProviderConfig config;
  config.seed = options.provider_seed;
  config.profile = options.profile;
  if (!options.plan.is_null()) config.initial_plan = provider::FaultPlan::from_json(options.plan);
  return config;
}

class SimHarness {
 public:
  explicit SimHarness(const SimOptions& options = SimOptions())
      : core(provider_config(options)),
        transport(core, clock),
        sleeper(transport),
        random(options.client_seed) {}

  // The provider, the clock, the transport over them, and the client's parts.
  provider::ProviderCore core;
  VirtualClock clock;
  scenarios::SimulatedTransport transport;
  scenarios::SimulatedSleeper sleeper;  // sleeping lets the transport's time pass
  SeededRandom random;
  InMemoryIntentLedger ledger;  // stands for the durable ledger: it outlives client instances

  // The parts of one client process.
  ClientParts parts() { return ClientParts{transport, clock, sleeper, random, ledger}; }

  // Replaces the provider's plan, as POST /_test/faults would (through FaultPlan::from_json).
  void install_plan(const nlohmann::json& plan) {
    const provider::Decision answer =
        core.handle(provider::HttpRequest{"POST", "/_test/faults", {}, plan.dump()}, clock.now());
    if (answer.status != 200) throw std::invalid_argument("plan refused: " + answer.body);
  }

  // One client run by a new RetryingClient instance (a new process), then settle(): every
  // request still held by delay-before-commit commits, as the real provider's would.
  ClientResult run(const Operation& operation, const ClientSettings& settings = ClientSettings(),
                   Mutant mutant = Mutant::none) {
    return run_with(parts(), operation, settings, mutant);
  }
  ClientResult run_with(ClientParts client_parts, const Operation& operation,
                        const ClientSettings& settings = ClientSettings(),
                        Mutant mutant = Mutant::none) {
    ClientResult result = run_unsettled(client_parts, operation, settings, mutant);
    settle();
    return result;
  }
  ClientResult run_unsettled(ClientParts client_parts, const Operation& operation,
                             const ClientSettings& settings = ClientSettings(),
                             Mutant mutant = Mutant::none) {
    RetryingClient client(settings, client_parts, mutant);
    return client.run(operation);
  }
  void settle() { transport.settle(); }

  // A POST sent by someone else (another process, a crashed run) through the same
  // transport, with its own timeout.
  TransportResponse post_directly(const std::string& key, const nlohmann::json& payload,
                                  Millis timeout = Millis(2000)) {
    return transport.send(
        {.method = "POST",
         .path = "/jobs",
         .headers = {{"Idempotency-Key", key}, {"Content-Type", "application/json"}},
         .body = payload.dump(),
         .timeout = timeout});
  }

  // The provider's evidence.
  std::vector<provider::JournalEntry> journal() const { return core.journal(); }
  std::vector<provider::JobRecord> jobs() const { return core.jobs(); }
  std::size_t job_count() const { return core.job_count(); }

  // Every request the provider saw, in arrival order: "METHOD PATH KEY OUTCOME STATUS",
  // the status "-" when nothing was sent back (a drop, a reset).
  std::vector<std::string> requests() const {
    std::vector<std::string> lines;
    for (const auto& entry : journal()) {
      lines.push_back(entry.method + " " + entry.path + " " + entry.key.value_or("-") + " " +
                      provider::to_string(entry.outcome) + " " +
                      (entry.status ? std::to_string(*entry.status) : "-"));
    }
    return lines;
  }

  // The creates alone: how many, their keys, when they arrived (virtual ms).
  std::vector<provider::JournalEntry> posts() const {
    std::vector<provider::JournalEntry> found;
    for (const auto& entry : journal()) {
      if (entry.kind == provider::RequestKind::create) found.push_back(entry);
    }
    return found;
  }
  std::size_t post_count() const { return posts().size(); }
  std::vector<std::string> post_keys() const {
    std::vector<std::string> keys;
    for (const auto& entry : posts())
      keys.push_back(entry.key.value_or(""));
    return keys;
  }
  std::vector<std::int64_t> post_times() const {
    std::vector<std::int64_t> times;
    for (const auto& entry : posts())
      times.push_back(entry.at.count());
    return times;
  }
  // The gap between each POST and the one before it.
  std::vector<std::int64_t> post_gaps() const {
    const std::vector<std::int64_t> times = post_times();
    std::vector<std::int64_t> gaps;
    for (std::size_t i = 1; i < times.size(); ++i)
      gaps.push_back(times[i] - times[i - 1]);
    return gaps;
  }
};

// One history step in one line, for exact comparisons:
// "1 POST /jobs fulfillment:order-42 503 retryable | wait, then retry ... | wait=150".
inline std::string describe(const Step& step) {
  return std::to_string(step.attempt) + " " + step.request + " " + step.key + " " + step.result +
         " " + step.classification + " | " + step.decision +
         " | wait=" + std::to_string(step.wait.count());
}
inline std::vector<std::string> describe(const std::vector<Step>& history) {
  std::vector<std::string> lines;
  for (const Step& step : history)
    lines.push_back(describe(step));
  return lines;
}
// With the time each request was sent, for determinism checks.
inline std::vector<std::string> describe_timed(const std::vector<Step>& history) {
  std::vector<std::string> lines;
  for (const Step& step : history)
    lines.push_back("at=" + std::to_string(step.at.count()) + " " + describe(step));
  return lines;
}

}  // namespace retryproof::client::sim
