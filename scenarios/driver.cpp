#include "scenarios/driver.hpp"

#include <algorithm>
#include <cassert>

#include "scenarios/evidence.hpp"
#include "scenarios/expectations.hpp"

namespace retryproof::scenarios {

int ScenarioResult::creates() const {
  return static_cast<int>(std::count_if(journal.begin(), journal.end(), [](const auto& entry) {
    return entry.kind == provider::RequestKind::create;
  }));
}

std::string not_reached(const KillPoint& kill) {
  return "ended before its kill point (" + kill.describe() +
         ") was reached, so it could not be killed there";
}

ScenarioResult drive(const Scenario& scenario, const ClientChoice& client, std::uint64_t seed,
                     World& world) {
  ScenarioResult result{.name = scenario.name,
                        .description = scenario.description,
                        .file = scenario.file.string(),
                        .client = client.describe(),
                        .seed = seed,
                        .expected_violations = scenario.expect.violations};
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
  result.verdicts = judge(Evidence(scenario, result.invocations, result.journal, result.jobs));
  result.unmet = unmet_expectations(scenario, result);
  return result;
}

}  // namespace retryproof::scenarios
