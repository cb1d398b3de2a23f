// A fleet's fields in a scenario file: "concurrency" and "startSpread", and what a fleet
// refuses because it needs invocations that run one at a time.
#include "scenarios/tests/scenario_loader_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;

TEST_F(ScenarioLoader, AFleetRunsItsInvocationsConcurrently) {
  const auto file = dir_.write("fleet.json", R"({"name": "f", "concurrency": 10,
      "startSpread": "2s", "generatedOperations": {"count": 10}})");
  const Scenario scenario = load_scenario(file);
  EXPECT_EQ(scenario.fleet.concurrency, 10);
  EXPECT_EQ(scenario.fleet.start_spread, Millis(2000));
  EXPECT_TRUE(scenario.fleet.is_fleet());
  EXPECT_FALSE(
      load_scenario(dir_.write("one.json", R"({"name": "o", "operations": [{"id": "a"}]})"))
          .fleet.is_fleet());
}

TEST_F(ScenarioLoader, AFleetRefusesWhatNeedsOneClientAtATime) {
  expect_error(R"({"name": "f", "concurrency": 0, "operations": [{"id": "a"}]})",
               {"$.concurrency", "expected a whole number from 1 to 1000"});
  expect_error(R"({"name": "f", "startSpread": "1s", "operations": [{"id": "a"}]})",
               {"$.startSpread", "needs \"concurrency\" above 1"});
  expect_error(R"({"name": "f", "concurrency": 2, "operations": [{"id": "a"}],
                   "invocations": [{"operation": "a"}, {"operation": "a", "kill": "after-commit"}]})",
               {"$.invocations[1].kill", "a kill point needs invocations that run one at a time"});
  expect_error(R"({"name": "f", "concurrency": 2, "operations": [{"id": "a"}],
                   "invocations": [{"operation": "a", "after": "1s"}, {"operation": "a"}]})",
               {"$.invocations[0].after", "it needs \"concurrency\": 1"});
}

}  // namespace
}  // namespace retryproof::scenarios
