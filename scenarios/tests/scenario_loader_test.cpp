// Loading and validating scenario files: defaults, every field, and errors that name the
// file, the JSON path and what was expected. Files are written to a fresh temp directory.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <set>
#include <string>

#include "common/temp_dir.hpp"
#include "scenarios/driver/driver.hpp"
#include "scenarios/model/scenario.hpp"
#include "scenarios/tests/scenario_loader_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// --- a valid scenario and its defaults ---

TEST_F(ScenarioLoader, MinimalScenarioGetsTheDocumentedDefaults) {
  const auto file = dir_.write("minimal.json", kMinimal);
  const Scenario scenario = load_scenario(file);

  EXPECT_EQ(scenario.file, file);
  EXPECT_EQ(scenario.name, "minimal");
  EXPECT_EQ(scenario.description, "");
  EXPECT_EQ(scenario.profile, provider::Profile::baseline);
  EXPECT_EQ(scenario.plan, json({{"faults", json::array()}}));
  ASSERT_EQ(scenario.operations.size(), 1u);
  EXPECT_EQ(scenario.operations[0].id, "fulfillment:order-42");
  EXPECT_EQ(scenario.operations[0].payload, json({{"orderId", "order-42"}, {"amount", 120}}));

  ASSERT_EQ(scenario.invocations.size(), 1u);
  EXPECT_EQ(scenario.invocations[0].operation, "fulfillment:order-42");
  EXPECT_FALSE(scenario.invocations[0].payload.has_value());
  EXPECT_FALSE(scenario.invocations[0].kill.armed());

  // The scenario defaults (docs/scenarios.md: 3, 100ms, 1s, 1s), not the client library's.
  EXPECT_EQ(scenario.settings.attempts, 3);
  EXPECT_EQ(scenario.settings.base_delay, 100ms);
  EXPECT_EQ(scenario.settings.max_delay, 1000ms);
  EXPECT_EQ(scenario.settings.timeout, 1000ms);
  EXPECT_EQ(scenario.min_gap, 50ms);  // half of baseDelay
  EXPECT_EQ(scenario.time_limit, 20000ms);

  EXPECT_FALSE(scenario.pinned_client.has_value());
  EXPECT_FALSE(scenario.expect.jobs.has_value());
  EXPECT_TRUE(scenario.expect.outcomes.empty());
  EXPECT_TRUE(scenario.expect.violations.empty());
  EXPECT_EQ(&scenario.operation("fulfillment:order-42"), &scenario.operations[0]);
}

TEST_F(ScenarioLoader, OperationWithoutPayloadGetsAnEmptyObject) {
  const Scenario scenario =
      load_scenario(dir_.write("s.json", R"({"name": "s", "operations": [{"id": "op"}]})"));
  ASSERT_EQ(scenario.operations.size(), 1u);
  EXPECT_EQ(scenario.operations[0].payload, json::object());
}

TEST_F(ScenarioLoader, DefaultInvocationsAreOnePerOperationInOrder) {
  const Scenario scenario = load_scenario(dir_.write("s.json", R"({
    "name": "two",
    "operations": [{"id": "op-b", "payload": {"n": 2}}, {"id": "op-a", "payload": {"n": 1}}]
  })"));
  ASSERT_EQ(scenario.invocations.size(), 2u);
  EXPECT_EQ(scenario.invocations[0].operation, "op-b");
  EXPECT_EQ(scenario.invocations[1].operation, "op-a");
  EXPECT_EQ(scenario.operation("op-a").payload, json({{"n", 1}}));
}

TEST_F(ScenarioLoader, MinGapDefaultsToHalfTheScenarioBaseDelay) {
  const Scenario scenario =
      load_scenario(dir_.write("s.json", minimal_with("client", R"({"baseDelay": "300ms"})")));
  EXPECT_EQ(scenario.settings.base_delay, 300ms);
  EXPECT_EQ(scenario.min_gap, 150ms);
}

TEST_F(ScenarioLoader, ExplicitMinGapWinsOverTheDefault) {
  json document = json::parse(kMinimal);
  document["client"] = {{"baseDelay", "300ms"}};
  document["minGap"] = "20ms";
  const Scenario scenario = load_scenario(dir_.write("s.json", document.dump()));
  EXPECT_EQ(scenario.min_gap, 20ms);
}

TEST_F(ScenarioLoader, ReadsEveryField) {
  const Scenario scenario = load_scenario(dir_.write("full.json", R"({
    "name": "full",
    "description": "every field",
    "profile": "stripe",
    "plan": {"faults": ["commit-then-delay:10s", {"fault": "commit-then-drop", "key": "k"}]},
    "operations": [{"id": "op-1", "payload": {"orderId": "o-1"}}, {"id": "op-2"}],
    "invocations": [
      {"operation": "op-1", "kill": "after-commit"},
      {"operation": "op-1", "payload": {"orderId": "o-1", "amount": 999}},
      {"operation": "op-2"}
    ],
    "client": {"attempts": 5, "baseDelay": "50ms", "maxDelay": "2s", "timeout": "30s",
               "use": "mutant:blind-retry"},
    "minGap": "10ms",
    "timeLimit": "3s",
    "expect": {"jobs": 2, "outcomes": ["succeeded", "unknown"], "violations": ["fail-closed"]}
  })"));
  EXPECT_EQ(scenario.description, "every field");
  EXPECT_EQ(scenario.profile, provider::Profile::stripe);
  EXPECT_EQ(scenario.plan["faults"].size(), 2u);
  ASSERT_EQ(scenario.invocations.size(), 3u);
  EXPECT_EQ(scenario.invocations[0].kill, KillPoint{KillPoint::When::after_commit});
  EXPECT_FALSE(scenario.invocations[0].payload.has_value());
  EXPECT_FALSE(scenario.invocations[1].kill.armed());
  EXPECT_EQ(scenario.invocations[1].payload, json({{"orderId", "o-1"}, {"amount", 999}}));
  EXPECT_EQ(scenario.invocations[2].operation, "op-2");
  EXPECT_EQ(scenario.settings.attempts, 5);
  EXPECT_EQ(scenario.settings.base_delay, 50ms);
  EXPECT_EQ(scenario.settings.max_delay, 2000ms);
  EXPECT_EQ(scenario.settings.timeout, 30000ms);
  ASSERT_TRUE(scenario.pinned_client.has_value());
  EXPECT_EQ(scenario.pinned_client->kind, ClientChoice::Kind::mutant);
  EXPECT_EQ(scenario.pinned_client->mutant, client::Mutant::blind_retry);
  EXPECT_EQ(scenario.min_gap, 10ms);
  EXPECT_EQ(scenario.time_limit, 3000ms);
  EXPECT_EQ(scenario.expect.jobs, 2);
  EXPECT_EQ(scenario.expect.outcomes,
            (std::vector<Reported>{Reported::succeeded, Reported::unknown}));
  EXPECT_EQ(scenario.expect.violations, (std::vector<std::string>{"fail-closed"}));
}

TEST_F(ScenarioLoader, GeneratedOperationsFollowThePrefixAndPayloadPattern) {
  const Scenario scenario = load_scenario(dir_.write(
      "g.json", R"({"name": "g", "generatedOperations": {"count": 3, "idPrefix": "storm:"}})"));
  ASSERT_EQ(scenario.operations.size(), 3u);
  for (int i = 1; i <= 3; ++i) {
    const auto& operation = scenario.operations[static_cast<std::size_t>(i - 1)];
    EXPECT_EQ(operation.id, "storm:" + std::to_string(i));
    EXPECT_EQ(operation.payload,
              json({{"orderId", "order-" + std::to_string(i)}, {"amount", 100 + i}}));
  }
  ASSERT_EQ(scenario.invocations.size(), 3u);
  EXPECT_EQ(scenario.invocations[2].operation, "storm:3");
}

TEST_F(ScenarioLoader, GeneratedOperationsDefaultToOneWithTheFulfillmentPrefix) {
  const Scenario scenario =
      load_scenario(dir_.write("g.json", R"({"name": "g", "generatedOperations": {}})"));
  ASSERT_EQ(scenario.operations.size(), 1u);
  EXPECT_EQ(scenario.operations[0].id, "fulfillment:generated-1");
}

TEST_F(ScenarioLoader, GeneratedOperationsFollowExplicitOnes) {
  const Scenario scenario = load_scenario(dir_.write("g.json", R"({
    "name": "g", "operations": [{"id": "hand-made"}], "generatedOperations": {"count": 2, "idPrefix": "gen-"}
  })"));
  ASSERT_EQ(scenario.operations.size(), 3u);
  EXPECT_EQ(scenario.operations[0].id, "hand-made");
  EXPECT_EQ(scenario.operations[1].id, "gen-1");
  EXPECT_EQ(scenario.operations[2].id, "gen-2");
}

TEST_F(ScenarioLoader, GeneratedOperationsValidateTheirFields) {
  expect_error(R"({"name": "g", "generatedOperations": {"count": 0}})",
               {"$.generatedOperations.count", "expected a whole number from 1 to 10000"});
  expect_error(R"({"name": "g", "generatedOperations": {"count": 2, "prefix": "x"}})",
               {"$.generatedOperations", "unknown field \"prefix\"", "count, idPrefix"});
  expect_error(R"({"name": "g", "generatedOperations": {"idPrefix": ""}})",
               {"$.generatedOperations.idPrefix", "expected a non-empty string"});
}

// --- every validation error names the file, the JSON path and what was expected ---

TEST_F(ScenarioLoader, UnknownTopLevelField) {
  expect_error(minimal_with("colour", R"("blue")"),
               {"$: unknown field \"colour\"",
                "expected one of: name, description, api, profile, provider, plan"});
}

TEST_F(ScenarioLoader, UnknownFieldInClient) {
  expect_error(
      minimal_with("client", R"({"retries": 3})"),
      {"$.client: unknown field \"retries\"", "attempts, baseDelay, maxDelay, timeout, use"});
}

TEST_F(ScenarioLoader, AttemptsOfTheWrongType) {
  expect_error(minimal_with("client", R"({"attempts": "3"})"),
               {"$.client.attempts: expected a whole number from 1 to 100"});
}

TEST_F(ScenarioLoader, AttemptsOutOfRange) {
  expect_error(minimal_with("client", R"({"attempts": 0})"),
               {"$.client.attempts: expected a whole number from 1 to 100"});
  expect_error(minimal_with("client", R"({"attempts": 101})"),
               {"$.client.attempts: expected a whole number from 1 to 100"});
  expect_error(minimal_with("client", R"({"attempts": 2.5})"),
               {"$.client.attempts: expected a whole number from 1 to 100"});
}

TEST_F(ScenarioLoader, BadDuration) {
  expect_error(minimal_with("client", R"({"timeout": "3x"})"),
               {"$.client.timeout: bad duration \"3x\"", "250ms"});
  expect_error(minimal_with("timeLimit", "20"), {"$.timeLimit: expected a string"});
  expect_error(minimal_with("minGap", R"("-5ms")"), {"$.minGap: bad duration \"-5ms\""});
}

TEST_F(ScenarioLoader, MaxDelayShorterThanBaseDelay) {
  expect_error(minimal_with("client", R"({"baseDelay": "2s", "maxDelay": "1s"})"),
               {"$.client: maxDelay is shorter than baseDelay"});
}

TEST_F(ScenarioLoader, UnknownFaultInPlan) {
  expect_error(minimal_with("plan", R"({"faults": ["commit-then-drop", "explode"]})"),
               {"$.plan", "faults[1]", "unknown fault \"explode\"", "commit-then-drop"});
}

TEST_F(ScenarioLoader, MalformedPlan) {
  expect_error(minimal_with("plan", R"("commit-then-drop")"),
               {"$.plan", "the plan must be a JSON object"});
  expect_error(minimal_with("plan", "{}"), {"$.plan", "\"faults\""});
  expect_error(minimal_with("plan", R"({"faults": ["commit-then-delay"]})"),
               {"$.plan", "faults[0]", "needs a duration"});
}

TEST_F(ScenarioLoader, UnknownProfile) {
  expect_error(minimal_with("profile", R"("paypal")"),
               {"$.profile: unknown profile \"paypal\"", "baseline, stripe, ietf"});
}

TEST_F(ScenarioLoader, InvocationNamingAnUnknownOperation) {
  expect_error(minimal_with("invocations",
                            R"([{"operation": "fulfillment:order-42"}, {"operation": "nope"}])"),
               {"$.invocations[1].operation: no operation has the id \"nope\""});
}

TEST_F(ScenarioLoader, InvocationWithoutOperation) {
  expect_error(minimal_with("invocations", R"([{"kill": "after-commit"}])"),
               {"$.invocations[0]: an invocation names its \"operation\""});
}

TEST_F(ScenarioLoader, TheProvidersContractTheClientsPolicyAndTheClockAreScenarioFacts) {
  const Scenario scenario = load_scenario(dir_.write("s.json", R"({
    "name": "facts",
    "provider": {"enforcesKeys": false, "keyTtl": "1h"},
    "clientPolicy": {"attempts": 4, "minBackoff": "0ms", "onAmbiguous": "same-key-retry",
                     "followsSettings": true},
    "operations": [{"id": "op"}],
    "invocations": [{"operation": "op"}, {"operation": "op", "after": "2h"}],
    "expect": {"jobs": 1, "underSameKeyRetry": {"jobs": 2, "violations": ["no-duplicate-effect"]}}
  })"));
  EXPECT_FALSE(scenario.provider.enforces_keys);
  EXPECT_EQ(scenario.provider.key_ttl, 1h);
  EXPECT_EQ(scenario.client_policy,
            parse_client_policy(
                "attempts=4,min-backoff=0ms,on-ambiguous=same-key-retry,follows-settings"));
  EXPECT_EQ(scenario.invocations[0].after, Millis(0));
  EXPECT_EQ(scenario.invocations[1].after, 2h);
  EXPECT_EQ(scenario.expect.for_policy(OnAmbiguous::lookup_first).jobs, 1);
  EXPECT_EQ(scenario.expect.for_policy(OnAmbiguous::same_key_retry).jobs, 2);
  EXPECT_EQ(scenario.expect.for_policy(OnAmbiguous::same_key_retry).violations,
            (std::vector<std::string>{"no-duplicate-effect"}));
}

TEST_F(ScenarioLoader, MistakesInTheNewBlocksNameTheirPath) {
  expect_error(minimal_with("provider", R"({"enforceKeys": false})"),
               {"$.provider: unknown field \"enforceKeys\" (did you mean \"enforcesKeys\"?)"});
  expect_error(minimal_with("provider", R"({"enforcesKeys": "no"})"),
               {"$.provider.enforcesKeys: expected true or false"});
  expect_error(minimal_with("clientPolicy", R"({"onAmbiguous": "retry"})"),
               {"$.clientPolicy.onAmbiguous: on-ambiguous=retry: lookup-first or same-key-retry"});
  expect_error(minimal_with("expect", R"({"underSameKeyRetry": {"job": 2}})"),
               {"$.expect.underSameKeyRetry: unknown field \"job\" (did you mean \"jobs\"?)"});
}

TEST_F(ScenarioLoader, KillAfterTheNthRequest) {
  const Scenario scenario = load_scenario(dir_.write(
      "s.json", minimal_with("invocations",
                             R"([{"operation": "fulfillment:order-42", "kill": "after-request:2"},
                                      {"operation": "fulfillment:order-42"}])")));
  EXPECT_EQ(scenario.invocations[0].kill, (KillPoint{KillPoint::When::after_request, 2}));
  EXPECT_EQ(scenario.invocations[0].kill.describe(), "after-request:2");
  EXPECT_FALSE(scenario.invocations[0].kill.reached(1, 1));  // a commit is not the point
  EXPECT_TRUE(scenario.invocations[0].kill.reached(0, 2));
}

TEST_F(ScenarioLoader, UnknownKillPoint) {
  expect_error(minimal_with("invocations",
                            R"([{"operation": "fulfillment:order-42", "kill": "before-commit"}])"),
               {"$.invocations[0].kill: a kill point is \"after-commit\" or \"after-request:N\""});
  expect_error(
      minimal_with("invocations",
                   R"([{"operation": "fulfillment:order-42", "kill": "after-request:0"}])"),
      {"$.invocations[0].kill: a kill point is", "not \"after-request:0\""});
  expect_error(
      minimal_with("invocations", R"([{"operation": "fulfillment:order-42", "kill": true}])"),
      {"$.invocations[0].kill: expected a string"});
}

TEST_F(ScenarioLoader, InvocationPayloadMustBeAnObject) {
  expect_error(
      minimal_with("invocations", R"([{"operation": "fulfillment:order-42", "payload": [1, 2]}])"),
      {"$.invocations[0].payload: expected a JSON object"});
}

TEST_F(ScenarioLoader, DuplicateOperationIds) {
  expect_error(minimal_with("operations", R"([{"id": "op"}, {"id": "op", "payload": {"n": 2}}])"),
               {"$: two operations have the id \"op\""});
}

TEST_F(ScenarioLoader, OperationProblems) {
  expect_error(minimal_with("operations", "[]"), {"$: a scenario needs \"operations\""});
  expect_error(minimal_with("operations", R"([{"payload": {}}])"),
               {"$.operations[0]: an operation needs an \"id\""});
  expect_error(minimal_with("operations", R"([{"id": ""}])"),
               {"$.operations[0].id: expected a non-empty string"});
  expect_error(minimal_with("operations", R"([{"id": "op", "payload": "x"}])"),
               {"$.operations[0].payload: expected a JSON object"});
  expect_error(minimal_with("operations", R"([{"id": "op", "extra": 1}])"),
               {"$.operations[0]: unknown field \"extra\""});
  expect_error(minimal_with("operations", R"({"id": "op"})"), {"$.operations: expected an array"});
}

TEST_F(ScenarioLoader, NameIsRequired) {
  expect_error(R"({"operations": [{"id": "op"}]})", {"$: a scenario needs a \"name\""});
  expect_error(minimal_with("name", R"("")"), {"$.name: expected a non-empty string"});
  expect_error(minimal_with("name", "7"), {"$.name: expected a string"});
}

TEST_F(ScenarioLoader, DocumentMustBeAnObject) {
  expect_error("[1, 2]", {"$: expected an object"});
}

TEST_F(ScenarioLoader, UnknownVerdictInExpectedViolations) {
  expect_error(minimal_with("expect", R"({"violations": ["fail-closed", "bogus"]})"),
               {"$.expect.violations[1]: unknown verdict \"bogus\""});
}

TEST_F(ScenarioLoader, UnknownOutcomeInExpectedOutcomes) {
  expect_error(minimal_with("expect", R"({"outcomes": ["crashed"]})"),
               {"$.expect.outcomes[0]: expected succeeded, failed or unknown"});
}

TEST_F(ScenarioLoader, ExpectationProblems) {
  expect_error(minimal_with("expect", R"({"jobs": -1})"),
               {"$.expect.jobs: expected a whole number from 0 to 1000000"});
  expect_error(minimal_with("expect", R"({"outcomes": "succeeded"})"),
               {"$.expect.outcomes: expected an array"});
  expect_error(minimal_with("expect", R"({"violation": []})"),
               {"$.expect: unknown field \"violation\"", "jobs, outcomes, violations"});
}

TEST_F(ScenarioLoader, NotJsonReportsLineAndColumn) {
  expect_error("{\n  \"name\": \"broken\",\n  \"operations\": [\n}\n",
               {"not valid JSON", "line 4", "column 1"});
}

TEST_F(ScenarioLoader, ClientUseWithABadValue) {
  expect_error(minimal_with("client", R"({"use": "python3 client.py"})"),
               {"$.client.use: ", "a client is \"reference\", \"mutant:NAME\" or \"cmd:COMMAND\"",
                "\"python3 client.py\""});
  expect_error(minimal_with("client", R"({"use": "mutant:sloppy"})"),
               {"$.client.use: ", "unknown mutant \"sloppy\"", "blind-retry"});
  expect_error(minimal_with("client", R"({"use": 1})"), {"$.client.use: expected a string"});
}

TEST_F(ScenarioLoader, ClientUsePinsTheClient) {
  const Scenario scenario =
      load_scenario(dir_.write("s.json", minimal_with("client", R"({"use": "cmd:python3 c.py"})")));
  ASSERT_TRUE(scenario.pinned_client.has_value());
  EXPECT_EQ(scenario.pinned_client->kind, ClientChoice::Kind::command);
  EXPECT_EQ(scenario.pinned_client->command, "python3 c.py");
}

TEST_F(ScenarioLoader, NonexistentFile) {
  const auto missing = dir_.path() / "missing.json";
  const std::string message = load_error(missing);
  EXPECT_TRUE(contains(message, missing.string())) << message;
  EXPECT_TRUE(contains(message, "cannot be read")) << message;
}

TEST(ScenarioFromJson, ValidatesADocumentAndNamesItsOriginInErrors) {
  const Scenario scenario = scenario_from_json(json::parse(kMinimal), "inline:minimal");
  EXPECT_EQ(scenario.name, "minimal");
  EXPECT_EQ(scenario.file, std::filesystem::path("inline:minimal"));
  try {
    scenario_from_json(json::parse(minimal_with("profile", R"("paypal")")), "inline:bad");
    FAIL() << "an unknown profile was accepted";
  } catch (const ScenarioError& error) {
    EXPECT_TRUE(std::string(error.what()).starts_with("inline:bad: $.profile: unknown profile"))
        << error.what();
  }
}

TEST_F(ScenarioLoader, ApiNamesABuiltInShapeOrAFileBesideTheScenario) {
  const Scenario stripe = load_scenario(dir_.write("s.json", minimal_with("api", R"("stripe")")));
  EXPECT_EQ(stripe.api.name, "stripe");
  EXPECT_EQ(stripe.profile, provider::Profile::stripe);  // implied by the shape
  dir_.write("shapes/orders.json", R"({"name": "orders", "key": {"bodyField": "token"}})");
  const Scenario orders =
      load_scenario(dir_.write("t.json", minimal_with("api", R"("shapes/orders.json")")));
  EXPECT_EQ(orders.api.name, "orders");
  EXPECT_EQ(orders.profile, provider::Profile::baseline);
  const std::string message = load_error(dir_.write("u.json", minimal_with("api", R"("soap")")));
  EXPECT_TRUE(contains(message, "$.api: \"soap\" is neither a built-in shape (jobs, stripe, "))
      << message;
}

TEST(ScenarioCatalog, TheStripeSetSpeaksStripeAndDeclaresSameKeyRetry) {
  const auto scenarios =
      load_catalog({std::filesystem::path(RETRYPROOF_CATALOG_DIR).parent_path() / "stripe"});
  EXPECT_EQ(scenarios.size(), 6u);
  for (const auto& scenario : scenarios) {
    EXPECT_EQ(scenario.api.name, "stripe") << scenario.name;
    EXPECT_EQ(scenario.client_policy.on_ambiguous, OnAmbiguous::same_key_retry) << scenario.name;
    // The reference client speaks only jobs: it is refused before anything runs.
    EXPECT_NE(cannot_speak(scenario, ClientChoice{}), "") << scenario.name;
  }
}

// --- load_catalog ---

TEST_F(ScenarioLoader, CatalogLoadsDirectoriesRecursivelySortedAndIgnoresOtherFiles) {
  dir_.write("b.json", minimal_with("name", R"("second")"));
  dir_.write("a.json", minimal_with("name", R"("first")"));
  dir_.write("sub/c.json", minimal_with("name", R"("third")"));
  dir_.write("README.md", "not a scenario");
  dir_.write("d.json.bak", "{");
  const auto scenarios = load_catalog({dir_.path()});
  ASSERT_EQ(scenarios.size(), 3u);
  EXPECT_EQ(scenarios[0].name, "first");
  EXPECT_EQ(scenarios[1].name, "second");
  EXPECT_EQ(scenarios[2].name, "third");
  EXPECT_EQ(scenarios[2].file, dir_.path() / "sub" / "c.json");
}

TEST_F(ScenarioLoader, CatalogAcceptsSingleFiles) {
  const auto one = dir_.write("one.json", minimal_with("name", R"("one")"));
  dir_.write("two.json", minimal_with("name", R"("two")"));
  const auto scenarios = load_catalog({one});
  ASSERT_EQ(scenarios.size(), 1u);
  EXPECT_EQ(scenarios[0].name, "one");
}

TEST_F(ScenarioLoader, CatalogCollectsTheErrorsOfEveryBadFileAndRefusesTheWhole) {
  dir_.write("1-good.json", minimal_with("name", R"("good")"));
  const auto unknown_fault =
      dir_.write("2-bad.json", minimal_with("plan", R"({"faults": ["explode"]})"));
  const auto not_json = dir_.write("3-worse.json", "{ nope");
  dir_.write("4-good.json", minimal_with("name", R"("also-good")"));
  try {
    load_catalog({dir_.path()});
    FAIL() << "an invalid catalog loaded";
  } catch (const ScenarioError& error) {
    const std::string message = error.what();
    EXPECT_TRUE(contains(message, unknown_fault.string() + ": $.plan")) << message;
    EXPECT_TRUE(contains(message, "unknown fault \"explode\"")) << message;
    EXPECT_TRUE(contains(message, not_json.string() + ": not valid JSON")) << message;
    EXPECT_FALSE(contains(message, "1-good.json")) << message;
    EXPECT_FALSE(contains(message, "4-good.json")) << message;
  }
}

TEST_F(ScenarioLoader, CatalogRefusesDuplicateNamesAcrossFiles) {
  dir_.write("a.json", minimal_with("name", R"("same")"));
  const auto second = dir_.write("b.json", minimal_with("name", R"("same")"));
  try {
    load_catalog({dir_.path()});
    FAIL() << "two scenarios with one name loaded";
  } catch (const ScenarioError& error) {
    const std::string message = error.what();
    EXPECT_TRUE(
        contains(message, second.string() + ": $.name: another scenario is also named \"same\""))
        << message;
  }
}

TEST_F(ScenarioLoader, CatalogReportsANonexistentPath) {
  dir_.write("a.json", minimal_with("name", R"("a")"));
  const auto missing = dir_.path() / "nowhere";
  try {
    load_catalog({dir_.path(), missing});
    FAIL() << "a missing path was ignored";
  } catch (const ScenarioError& error) {
    EXPECT_TRUE(contains(error.what(), missing.string() + ": no such file or directory"))
        << error.what();
  }
}

TEST_F(ScenarioLoader, CatalogWithoutScenarioFilesIsAnError) {
  dir_.write("notes.txt", "nothing here");
  try {
    load_catalog({dir_.path()});
    FAIL() << "an empty catalog loaded";
  } catch (const ScenarioError& error) {
    EXPECT_TRUE(contains(error.what(), "no scenario files")) << error.what();
  }
}

TEST(ScenarioCatalog, TheShippedCatalogLoadsWithUniqueNames) {
  const auto scenarios = load_catalog({RETRYPROOF_CATALOG_DIR});
  EXPECT_GE(scenarios.size(), 20u);
  std::set<std::string> names;
  for (const auto& scenario : scenarios) {
    EXPECT_TRUE(names.insert(scenario.name).second) << "duplicate name " << scenario.name;
    EXPECT_FALSE(scenario.description.empty()) << scenario.name;
    EXPECT_FALSE(scenario.invocations.empty()) << scenario.name;
  }
  for (const std::string expected :
       {"fail-before-commit", "commit-then-error", "commit-then-drop", "payload-change",
        "anti-pattern-fresh-key", "rerun", "crash-and-restart"}) {
    EXPECT_TRUE(names.contains(expected)) << expected;
  }
}

// --- parse_client_choice ---

TEST(ClientChoice, ParsesReference) {
  const ClientChoice choice = parse_client_choice("reference");
  EXPECT_EQ(choice.kind, ClientChoice::Kind::reference);
  EXPECT_EQ(choice.mutant, client::Mutant::none);
  EXPECT_EQ(choice.describe(), "reference");
}

TEST(ClientChoice, ParsesEveryMutantByName) {
  for (const client::Mutant mutant : client::all_mutants()) {
    const std::string text = "mutant:" + client::to_string(mutant);
    const ClientChoice choice = parse_client_choice(text);
    EXPECT_EQ(choice.kind, ClientChoice::Kind::mutant) << text;
    EXPECT_EQ(choice.mutant, mutant) << text;
    EXPECT_EQ(choice.describe(), text);
  }
  EXPECT_EQ(parse_client_choice("mutant:blind-retry").mutant, client::Mutant::blind_retry);
}

TEST(ClientChoice, ParsesACommandVerbatim) {
  const ClientChoice choice = parse_client_choice("cmd:python3 x.py --flag 'a b'");
  EXPECT_EQ(choice.kind, ClientChoice::Kind::command);
  EXPECT_EQ(choice.command, "python3 x.py --flag 'a b'");
  EXPECT_EQ(choice.describe(), "cmd:python3 x.py --flag 'a b'");
}

TEST(ClientChoice, RefusesWhatIsNotAClient) {
  for (const std::string text :
       {"", "Reference", "blind-retry", "cmd:", "cmd", "mutant", "python3 x.py"}) {
    try {
      parse_client_choice(text);
      ADD_FAILURE() << "accepted \"" << text << "\"";
    } catch (const std::invalid_argument& error) {
      EXPECT_TRUE(contains(error.what(), "\"reference\", \"mutant:NAME\" or \"cmd:COMMAND\""))
          << error.what();
      EXPECT_TRUE(contains(error.what(), "\"" + text + "\"")) << error.what();
    }
  }
}

TEST(ClientChoice, RefusesUnknownMutants) {
  for (const std::string text : {"mutant:", "mutant:sloppy", "mutant:reference", "mutant:none"}) {
    try {
      parse_client_choice(text);
      ADD_FAILURE() << "accepted \"" << text << "\"";
    } catch (const std::invalid_argument& error) {
      EXPECT_TRUE(contains(error.what(), "unknown mutant")) << error.what();
      EXPECT_TRUE(contains(error.what(), "fresh-key-per-attempt")) << error.what();
    }
  }
}

}  // namespace
}  // namespace retryproof::scenarios

namespace retryproof::scenarios {
namespace {

TEST_F(ScenarioLoader, ExercisesAndOptionalFaultsAreCheckedAgainstTheJournalAndThePlan) {
  const auto file = dir_.write("ok.json", R"({"name": "e", "plan": {"faults": ["commit-then-drop",
      "lookup-unavailable"]}, "operations": [{"id": "o"}],
      "expect": {"exercises": ["conflict"], "optional": ["faults[1]"]}})");
  const Scenario scenario = load_scenario(file);
  EXPECT_EQ(scenario.expect.exercises, std::vector{provider::Outcome::conflict});
  EXPECT_EQ(scenario.expect.optional, std::vector<std::string>{"faults[1]"});
  expect_error(
      R"({"name": "e", "operations": [{"id": "o"}], "expect": {"exercises": ["conflit"]}})",
      {"$.expect.exercises[0]", "unknown journal outcome \"conflit\"",
       "did you mean \"conflict\""});
  expect_error(
      R"({"name": "e", "plan": {"faults": ["commit-then-drop"]}, "operations": [{"id": "o"}],
      "expect": {"optional": ["faults[5]"]}})",
      {"$.expect.optional[0]", "\"faults[5]\" is no entry of the plan"});
}

}  // namespace
}  // namespace retryproof::scenarios
