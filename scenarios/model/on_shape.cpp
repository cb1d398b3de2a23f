#include "scenarios/model/on_shape.hpp"

namespace retryproof::scenarios {

std::string put_on_shape(Scenario& scenario, const provider::ApiShape& shape) {
  if (scenario.api.name != provider::jobs_shape().name && scenario.api.name != shape.name)
    return "it is written for the " + scenario.api.name + " API";
  if (scenario.pinned_client) {
    return "it is pinned to " + scenario.pinned_client->describe() +
           ", which speaks only the jobs API";
  }
  if (shape.lookups.empty() && provider::FaultPlan::from_json(scenario.plan).fails_lookups())
    return "its fault fails lookups, and the " + shape.name + " API has none";
  // The wire changes; the semantics the scenario's expectations were written for (its
  // profile: what a replay answers, say) stay.
  scenario.api = shape;
  if (!shape.key.exists()) {
    const std::string note =
        " On the " + shape.name +
        " API, which has no idempotency key, the verdicts alone judge it: a careful client "
        "cannot retry a create, so the job count and outcomes the scenario expects of a keyed "
        "API do not hold.";
    scenario.description += note;
    scenario.expect.jobs.reset();
    scenario.expect.outcomes.clear();
    scenario.expect.under_same_key_retry.reset();
  }
  return {};
}

}  // namespace retryproof::scenarios
