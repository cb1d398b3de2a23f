// One scenario driver for both worlds. The driver walks a scenario's invocations, asks a
// World to run each one, collects the provider's records at the end, and judges them; the
// world decides what "run the client" means: a real process against a provider on a real
// socket (ProcessWorld), or the reference client or a mutant in one thread in virtual time
// (SimulatedWorld). The same scenario gives one result type in both.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "provider/provider_core.hpp"
#include "scenarios/driver/run_result.hpp"
#include "scenarios/model/client_policy.hpp"
#include "scenarios/model/scenario.hpp"

namespace retryproof::scenarios {

// One invocation, as the driver asks a world to run it.
struct InvocationPlan {
  int index = 0;
  const Invocation& invocation;
  nlohmann::json payload;     // what the client is asked to send
  std::uint64_t client_seed;  // the client's jitter: the run's seed plus the index
};

class World {
 public:
  virtual ~World() = default;
  // Runs one invocation to its end (or to its kill point) and says what it did; the
  // journal window [first_seq, last_seq] is the world's to fill.
  virtual InvocationResult invoke(const InvocationPlan& plan) = 0;
  // Runs a fleet: the invocations `fleet.concurrency` at a time, the i-th due at
  // i * start_spread / count (all at once when the spread is 0), each a client of its own
  // with a port of its own, which the provider journals. Results in the plans' order, each
  // with its port; the driver finds each one's entries by it.
  virtual std::vector<InvocationResult> invoke_fleet(const std::vector<InvocationPlan>& plans,
                                                     const Fleet& fleet) = 0;
  // Ends the run: requests still held finish their waits and commit. The provider's
  // records, to be judged.
  virtual RunEvidence finish() = 0;
  // Whether long-lived instances serve the scenario's operations (traffic, run --sessions):
  // then the reference client's instances keep a retry budget, and declare it.
  virtual bool serves_as_instances(const Scenario& scenario) const {
    return scenario.traffic.has_value();
  }
};

// Scenario payloads carry their business identity in orderId (the provider copies it into
// the job). The journal records it, so that a saved run can be judged by its traffic alone
// as well: retryproof judge --operation-field orderId. A shape that names its own operation
// field (an SDK's wire body carries the order elsewhere) is recorded by that one.
inline constexpr const char* kScenarioOperationField = "orderId";

// The provider a scenario asks for: its profile, contract and fault plan, seeded.
provider::ProviderConfig provider_config(const Scenario& scenario, std::uint64_t seed);

// Why `client` cannot be judged on the scenario, or empty: the reference client and the
// mutants speak only the seeds' jobs API.
std::string cannot_speak(const Scenario& scenario, const ClientChoice& client);

// What a run could not tell when an invocation ended before its kill point: the crash the
// scenario exists for never happened, which is inconclusive, not the client's error.
std::string not_reached(const KillPoint& kill);

// Runs every invocation of the scenario in `world`, then judges the evidence, by the client's
// declared policy over the scenario's settings, against the scenario's expectations.
// `client` and `seed` are for the result's header.
ScenarioResult drive(const Scenario& scenario, const ClientChoice& client,
                     const ClientPolicy& declared, std::uint64_t seed, World& world);

// What a client is taken to declare when the user declares nothing: the reference client
// and the mutants follow the settings they are given.
ClientPolicy implicit_policy(const ClientChoice& client, bool serves_traffic = false);

}  // namespace retryproof::scenarios
