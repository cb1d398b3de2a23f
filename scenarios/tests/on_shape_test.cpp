// run --api: which catalog scenarios can mean the same on another API's wire, and what
// changes when they are put there.
#include "scenarios/model/on_shape.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "scenarios/tests/catalog_runs.hpp"

namespace retryproof::scenarios {
namespace {

using catalog_runs::catalog_scenario;
using nlohmann::json;

const provider::ApiShape& keyless() {
  static const provider::ApiShape shape = provider::api_shape_from_json(
      {{"name", "keyless"}, {"key", "none"}, {"operationField", "reference_id"}}, "keyless.json");
  return shape;
}

TEST(OnShape, AScenarioKeepsItsFaultsAndProfileAndSpeaksTheShape) {
  Scenario scenario = catalog_scenario("20-profile-baseline.json");
  const json plan = scenario.plan;
  EXPECT_EQ(put_on_shape(scenario, provider::stripe_shape()), "");
  EXPECT_EQ(scenario.api.name, "stripe");
  EXPECT_EQ(scenario.profile, provider::Profile::baseline);  // not the one stripe implies
  EXPECT_EQ(scenario.plan, plan);
  EXPECT_EQ(scenario.expect.jobs, 1);
}

TEST(OnShape, SaysWhyAScenarioCannotMeanTheSameOnTheShape) {
  Scenario lookups = catalog_scenario("12-lookup-unavailable.json");
  EXPECT_EQ(put_on_shape(lookups, provider::stripe_shape()),
            "its fault fails lookups, and the stripe API has none");
  EXPECT_EQ(lookups.api.name, "jobs");  // left as it was
  Scenario pinned = catalog_scenario("05-anti-pattern-fresh-key.json");
  EXPECT_EQ(put_on_shape(pinned, provider::stripe_shape()),
            "it is pinned to mutant:fresh-key-per-attempt, which speaks only the jobs API");
  Scenario written_for_stripe = catalog_scenario("01-fail-before-commit.json");
  written_for_stripe.api = provider::stripe_shape();
  EXPECT_EQ(put_on_shape(written_for_stripe, keyless()), "it is written for the stripe API");
}

TEST(OnShape, OnAnApiWithoutKeysTheVerdictsAloneJudge) {
  Scenario scenario = catalog_scenario("02-commit-then-error.json");
  ASSERT_EQ(put_on_shape(scenario, keyless()), "");
  EXPECT_EQ(scenario.expect.jobs, std::nullopt);
  EXPECT_TRUE(scenario.expect.outcomes.empty());
  EXPECT_NE(scenario.description.find("which has no idempotency key"), std::string::npos);
}

}  // namespace
}  // namespace retryproof::scenarios
