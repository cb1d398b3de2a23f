#include "scenarios/driver/driver.hpp"

#include <algorithm>
#include <cassert>

#include "scenarios/evidence/evidence.hpp"
#include "scenarios/model/expectations.hpp"

namespace retryproof::scenarios {

int ScenarioResult::creates() const {
  return static_cast<int>(std::count_if(journal.begin(), journal.end(), [](const auto& entry) {
    return entry.kind == provider::RequestKind::create;
  }));
}

// Scenario payloads carry their business identity in orderId (the provider copies it into
// the job). The journal records it, so that a saved run can be judged by its traffic alone
// as well: retryproof judge --operation-field orderId. A shape that names its own operation
// field (an SDK's wire body carries the order elsewhere) is recorded by that one.
constexpr const char* kScenarioOperationField = "orderId";

provider::ProviderConfig provider_config(const Scenario& scenario, std::uint64_t seed) {
  return {.seed = seed,
          .profile = scenario.profile,
          .api = scenario.api,
          .key_ttl = scenario.provider.key_ttl,
          .enforce_keys = scenario.provider.enforces_keys,
          .initial_plan = provider::FaultPlan::from_json(scenario.plan),
          .operation_field = scenario.api.operation_pointer().value_or(kScenarioOperationField)};
}

std::string cannot_speak(const Scenario& scenario, const ClientChoice& client) {
  const ClientChoice& runs = scenario.pinned_client ? *scenario.pinned_client : client;
  if (runs.kind == ClientChoice::Kind::command || scenario.api.name == "jobs") return {};
  return scenario.file.string() + ": the scenario speaks the " + scenario.api.name + " API, and " +
         runs.describe() + " speaks only jobs; judge a client of that API (--client cmd:...)";
}

std::string not_reached(const KillPoint& kill) {
  return "ended before its kill point (" + kill.describe() +
         ") was reached, so it could not be killed there";
}

bool ScenarioResult::fails_at(Severity threshold) const {
  return std::any_of(unmet.begin(), unmet.end(),
                     [&](const Unmet& miss) { return miss.severity >= threshold; });
}

ClientPolicy implicit_policy(const ClientChoice& client) {
  if (client.kind == ClientChoice::Kind::command) return {};
  return ClientPolicy{.follows_settings = true, .payload_verbatim = true};
}

ScenarioResult drive(const Scenario& scenario, const ClientChoice& client,
                     const ClientPolicy& declared, std::uint64_t seed, World& world) {
  ScenarioResult result{.name = scenario.name,
                        .description = scenario.description,
                        .file = scenario.file.string(),
                        .client = client.describe(),
                        .seed = seed,
                        .policy = judged_policy(scenario, declared.over(implicit_policy(client)))};
  result.expected_violations = scenario.expect.for_policy(result.policy.on_ambiguous).violations;
  for (std::size_t i = 0; i < scenario.invocations.size(); ++i) {
    const Invocation& invocation = scenario.invocations[i];
    const InvocationPlan plan{
        .index = static_cast<int>(i),
        .invocation = invocation,
        .payload = invocation.payload.value_or(scenario.operation(invocation.operation).payload),
        .client_seed = seed + i};
    InvocationResult done = world.invoke(plan);
    // Invocations run one after another: each window starts where the last one ended.
    assert(done.first_seq ==
           (result.invocations.empty() ? 1 : result.invocations.back().last_seq + 1));
    assert(done.last_seq + 1 >= done.first_seq);
    result.invocations.push_back(std::move(done));
  }
  RunEvidence evidence = world.finish();
  assert(result.invocations.empty() ||
         evidence.journal.size() >= result.invocations.back().last_seq);
  result.journal = std::move(evidence.journal);
  result.jobs = std::move(evidence.jobs);
  result.verdicts =
      judge(Evidence(scenario, result.policy, result.invocations, result.journal, result.jobs));
  result.unmet = unmet_expectations(scenario, result);
  return result;
}

}  // namespace retryproof::scenarios
