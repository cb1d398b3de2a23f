// The fault plan beyond the baseline script: targeted rules (by key, by payload match,
// `times`), lookup-unavailable, the chaos policy, validation messages and the echo.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "provider/fault.hpp"
#include "provider/fault_plan.hpp"
#include "provider/tests/core_test_support.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

FaultPlan plan_of(const std::string& body) {
  return FaultPlan::from_json(json::parse(body));
}

// The name of the fault the next new operation gets.
std::string fault_for_create(FaultPlan& plan, const std::string& key,
                             const json& payload = json::object(), std::uint64_t n = 0) {
  return to_string(plan.take_for_create(key, payload, n).fault);
}

std::string fault_for_lookup(FaultPlan& plan, const std::string& key, std::uint64_t n = 0) {
  return to_string(plan.take_for_lookup(key, n).fault);
}

// What the plan written as `body` is refused with (fault_plan_error).
std::string fault_plan_text_error(const std::string& body) {
  return provider::testing::fault_plan_error(json::parse(body));
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.starts_with(prefix);
}

// ---- targeted rules ----------------------------------------------------------------------

TEST(FaultPlanRules, RuleByKeyAppliesOnlyToThatKey) {
  FaultPlan plan = plan_of(R"({"faults":[{"fault":"commit-then-drop","key":"key-A"}]})");
  EXPECT_EQ(fault_for_create(plan, "key-B"), "none");
  EXPECT_EQ(fault_for_create(plan, "key-a"), "none");  // keys are case-sensitive
  EXPECT_EQ(fault_for_create(plan, "key-A"), "commit-then-drop");
  EXPECT_EQ(fault_for_create(plan, "key-A"), "none");  // times defaults to 1
}

TEST(FaultPlanRules, RuleByMatchNeedsEveryFieldEqual) {
  FaultPlan plan = plan_of(R"({"faults":[
      {"fault":"commit-then-error","match":{"orderId":"order-42","amount":120}},
      "fail-before-commit","commit-then-drop","commit-then-reset","commit-then-500"]})");
  // Each payload that does not match falls through to the script, one entry each.
  EXPECT_EQ(fault_for_create(plan, "k1", json{{"orderId", "order-42"}}), "fail-before-commit");
  EXPECT_EQ(fault_for_create(plan, "k2", json{{"orderId", "order-42"}, {"amount", 121}}),
            "commit-then-drop");
  EXPECT_EQ(fault_for_create(plan, "k3", json{{"orderId", "order-43"}, {"amount", 120}}),
            "commit-then-reset");
  EXPECT_EQ(fault_for_create(plan, "k4", json{{"orderId", "order-42"}, {"amount", "120"}}),
            "commit-then-500");
  // Extra payload fields do not matter; the key does not either.
  EXPECT_EQ(fault_for_create(plan, "k5", json{{"amount", 120}, {"orderId", "order-42"}, {"x", 1}}),
            "commit-then-error");
  EXPECT_EQ(fault_for_create(plan, "k6", json{{"orderId", "order-42"}, {"amount", 120}}), "none");
}

TEST(FaultPlanRules, MatchComparesNestedValuesExactly) {
  FaultPlan plan = plan_of(
      R"({"faults":[{"fault":"commit-then-drop","match":{"customer":{"id":7,"tier":"gold"}},"times":5}]})");
  EXPECT_EQ(fault_for_create(plan, "k", json{{"customer", {{"id", 7}}}}), "none");
  EXPECT_EQ(
      fault_for_create(plan, "k", json{{"customer", {{"id", 7}, {"tier", "gold"}, {"x", 1}}}}),
      "none");
  EXPECT_EQ(fault_for_create(plan, "k", json{{"customer", {{"tier", "gold"}, {"id", 7}}}}),
            "commit-then-drop");
}

TEST(FaultPlanRules, TimesIsConsumedThenTheScriptApplies) {
  FaultPlan plan = plan_of(
      R"({"faults":[{"fault":"commit-then-drop","key":"key-A","times":3},"commit-then-error"]})");
  EXPECT_EQ(fault_for_create(plan, "key-A"), "commit-then-drop");
  EXPECT_EQ(fault_for_create(plan, "key-A"), "commit-then-drop");
  EXPECT_EQ(fault_for_create(plan, "key-A"), "commit-then-drop");
  EXPECT_EQ(fault_for_create(plan, "key-A"), "commit-then-error");
  EXPECT_EQ(fault_for_create(plan, "key-A"), "none");
}

TEST(FaultPlanRules, RulesBeatTheScript) {
  FaultPlan plan =
      plan_of(R"({"faults":["fail-before-commit",{"fault":"commit-then-500","key":"key-A"}]})");
  EXPECT_EQ(fault_for_create(plan, "key-A"), "commit-then-500");
  EXPECT_EQ(plan.to_json(), json::parse(R"({"faults":["fail-before-commit"]})"));
  EXPECT_EQ(fault_for_create(plan, "key-A"), "fail-before-commit");
  EXPECT_EQ(fault_for_create(plan, "key-A"), "none");
}

TEST(FaultPlanRules, FirstMatchingRuleWins) {
  FaultPlan plan = plan_of(R"({"faults":[
      {"fault":"commit-then-error","match":{"orderId":"order-42"}},
      {"fault":"commit-then-drop","key":"key-A"},
      {"fault":"commit-then-reset","key":"key-A"}]})");
  json order42 = {{"orderId", "order-42"}};
  EXPECT_EQ(fault_for_create(plan, "key-A", order42), "commit-then-error");
  EXPECT_EQ(fault_for_create(plan, "key-A", order42), "commit-then-drop");
  EXPECT_EQ(fault_for_create(plan, "key-A", order42), "commit-then-reset");
  EXPECT_EQ(fault_for_create(plan, "key-A", order42), "none");
}

TEST(FaultPlanRules, RuleFaultsKeepTheirParameters) {
  FaultPlan plan = plan_of(R"({"faults":[
      {"fault":"delay-before-commit:3s","key":"k1"},{"fault":"rate-limited:9","key":"k2"}]})");
  EXPECT_EQ(plan.take_for_create("k2", json::object(), 0).fault,
            (Fault{FaultKind::rate_limited, Millis{0}, 9}));
  EXPECT_EQ(plan.take_for_create("k1", json::object(), 0).fault,
            (Fault{FaultKind::delay_before_commit, Millis{3'000}}));
}

// ---- lookup-unavailable -----------------------------------------------------------------

TEST(FaultPlanRules, CreatesSkipLookupUnavailableAndTheNextLookupTakesIt) {
  FaultPlan plan = plan_of(
      R"({"faults":["lookup-unavailable","commit-then-drop","lookup-unavailable","commit-then-error"]})");
  EXPECT_EQ(fault_for_create(plan, "k1"), "commit-then-drop");
  EXPECT_EQ(fault_for_create(plan, "k2"), "commit-then-error");
  EXPECT_EQ(fault_for_create(plan, "k3"), "none");
  EXPECT_EQ(plan.to_json(),
            json::parse(R"({"faults":["lookup-unavailable","lookup-unavailable"]})"));
  EXPECT_EQ(fault_for_lookup(plan, "k1"), "lookup-unavailable");
  EXPECT_EQ(fault_for_lookup(plan, "any"), "lookup-unavailable");
  EXPECT_EQ(fault_for_lookup(plan, "k1"), "none");
  EXPECT_EQ(plan.to_json(), json::parse(R"({"faults":[]})"));
}

TEST(FaultPlanRules, LookupsLeaveCreateFaultsInTheScript) {
  FaultPlan plan = plan_of(R"({"faults":["commit-then-drop","lookup-unavailable"]})");
  EXPECT_EQ(fault_for_lookup(plan, "k"), "lookup-unavailable");
  EXPECT_EQ(fault_for_lookup(plan, "k"), "none");
  EXPECT_EQ(plan.to_json(), json::parse(R"({"faults":["commit-then-drop"]})"));
  EXPECT_EQ(fault_for_create(plan, "k"), "commit-then-drop");
}

TEST(FaultPlanRules, LookupUnavailableRuleByKey) {
  FaultPlan plan = plan_of(
      R"({"faults":[{"fault":"lookup-unavailable","key":"key-A","times":2},"commit-then-drop"]})");
  EXPECT_EQ(fault_for_create(plan, "key-A"), "commit-then-drop");  // creates pass the lookup rule
  EXPECT_EQ(fault_for_lookup(plan, "key-B"), "none");
  EXPECT_EQ(fault_for_lookup(plan, "key-A"), "lookup-unavailable");
  EXPECT_EQ(plan.to_json(),
            json::parse(R"({"faults":[{"fault":"lookup-unavailable","key":"key-A","times":1}]})"));
  EXPECT_EQ(fault_for_lookup(plan, "key-A"), "lookup-unavailable");
  EXPECT_EQ(fault_for_lookup(plan, "key-A"), "none");
}

// ---- validation -------------------------------------------------------------------------

TEST(FaultPlanRules, BadTimesIsRefusedNamingTheEntry) {
  for (const std::string times : {"0", "-1", "1.5", "\"2\"", "null", "true", "1000001"}) {
    SCOPED_TRACE(times);
    const std::string message =
        fault_plan_text_error(R"({"faults":[{"fault":"none","key":"k","times":)" + times + "}]}");
    EXPECT_EQ(message, "faults[0].times: expected a whole number from 1 to 1000000");
  }
  FaultPlan largest =
      plan_of(R"({"faults":[{"fault":"commit-then-drop","key":"k","times":1000000}]})");
  EXPECT_EQ(fault_for_create(largest, "k"), "commit-then-drop");
  EXPECT_EQ(largest.to_json()["faults"][0]["times"], 999999);
}

TEST(FaultPlanRules, BadMatchIsRefusedNamingTheEntry) {
  for (const std::string match : {"\"order-42\"", "{}", "[]", "null", "42"}) {
    SCOPED_TRACE(match);
    const std::string message =
        fault_plan_text_error(R"({"faults":["none",{"fault":"none","match":)" + match + "}]}");
    EXPECT_EQ(message,
              "faults[1].match: expected an object of payload fields, such as "
              "{\"orderId\": \"order-42\"}");
  }
}

TEST(FaultPlanRules, BadKeyIsRefusedNamingTheEntry) {
  for (const std::string key : {"\"\"", "42", "null", "[\"k\"]"}) {
    SCOPED_TRACE(key);
    EXPECT_EQ(fault_plan_text_error(R"({"faults":[{"fault":"none","key":)" + key + "}]}"),
              "faults[0].key: expected a non-empty string");
  }
}

TEST(FaultPlanRules, RuleNamesEitherKeyOrMatch) {
  const std::string expected =
      "faults[1]: a rule names either a \"key\" or a \"match\" (a plain entry is just the fault "
      "name)";
  EXPECT_EQ(
      fault_plan_text_error(R"({"faults":["none",{"fault":"none","key":"k","match":{"a":1}}]})"),
      expected);
  EXPECT_EQ(fault_plan_text_error(R"({"faults":["none",{"fault":"none","times":2}]})"), expected)
      << "times belongs to a rule";
}

TEST(FaultPlanRules, APlainEntryMayBeWrittenAsAnObjectToMarkItOptional) {
  FaultPlan plan = plan_of(R"({"faults":[{"fault":"commit-then-drop"},"none"]})");
  EXPECT_EQ(fault_for_create(plan, "k1"), "commit-then-drop");
  EXPECT_EQ(plan.to_json()["faults"], json::array({"none"}));
}

TEST(FaultPlanRules, RuleWithoutFaultIsRefused) {
  EXPECT_EQ(fault_plan_text_error(R"({"faults":["none","none",{"key":"k"}]})"),
            "faults[2]: a rule needs a \"fault\"");
}

TEST(FaultPlanRules, RuleWithAnUnknownFaultNamesTheField) {
  const std::string message =
      fault_plan_text_error(R"({"faults":[{"fault":"explode","key":"k"}]})");
  EXPECT_TRUE(starts_with(message, "faults[0].fault: unknown fault \"explode\"")) << message;
  EXPECT_EQ(fault_plan_text_error(R"({"faults":[{"fault":7,"key":"k"}]})"),
            "faults[0].fault: expected a fault name such as \"commit-then-drop\"");
  EXPECT_EQ(fault_plan_text_error(R"({"faults":[{"fault":"commit-then-delay","key":"k"}]})"),
            "faults[0].fault: \"commit-then-delay\" needs a duration, such as "
            "commit-then-delay:2s");
}

TEST(FaultPlanRules, LookupUnavailableRuleCannotMatchAPayload) {
  EXPECT_EQ(
      fault_plan_text_error(
          R"({"faults":[{"fault":"lookup-unavailable","match":{"orderId":"o"}}]})"),
      "faults[0]: a lookup-unavailable rule names a \"key\": lookups carry no payload to match");
}

TEST(FaultPlanRules, UnknownRuleFieldIsRefused) {
  EXPECT_EQ(fault_plan_text_error(R"({"faults":["none",{"fault":"none","key":"k","tims":2}]})"),
            "faults[1]: unknown field \"tims\" (did you mean \"times\"?)");
}

// ---- chaos -----------------------------------------------------------------------------

const char* const kChaos =
    R"({"chaos":{"seed":7,"rates":{"commit-then-drop":0.2,"fail-before-commit":0.2,"commit-then-error":0.2,"lookup-unavailable":0.5}}})";

TEST(FaultPlanChaos, ChoiceIsAPureFunctionOfSeedKeyAndN) {
  constexpr int kKeys = 200;
  FaultPlan forward = plan_of(kChaos);
  FaultPlan backward = plan_of(kChaos);
  std::map<std::string, std::vector<std::string>> forward_faults;
  std::map<std::string, std::vector<std::string>> backward_faults;
  // Forward: every key's n = 0, 1, 2 one after the other; lookups in between.
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "key-" + std::to_string(i);
    for (std::uint64_t n = 0; n < 3; ++n) {
      forward_faults[key].push_back(fault_for_create(forward, key, json::object(), n));
      forward_faults[key].push_back(fault_for_lookup(forward, key, n));
    }
  }
  // Backward: keys in reverse order, n = 0 for all first, then n = 1, then n = 2.
  for (std::uint64_t n = 0; n < 3; ++n) {
    for (int i = kKeys - 1; i >= 0; --i) {
      const std::string key = "key-" + std::to_string(i);
      backward_faults[key].push_back(fault_for_create(backward, key, json::object(), n));
    }
    for (int i = 0; i < kKeys; i += 2) {
      const std::string key = "key-" + std::to_string(i);
      backward_faults[key].push_back(fault_for_lookup(backward, key, n));
    }
    for (int i = kKeys - 1; i >= 1; i -= 2) {
      const std::string key = "key-" + std::to_string(i);
      backward_faults[key].push_back(fault_for_lookup(backward, key, n));
    }
  }
  std::map<std::string, int> seen;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "key-" + std::to_string(i);
    const auto& f = forward_faults[key];
    const auto& b = backward_faults[key];
    ASSERT_EQ(f.size(), 6U);
    ASSERT_EQ(b.size(), 6U);
    // forward is c0 l0 c1 l1 c2 l2; backward is c0 l0 c1 l1 c2 l2 as well.
    EXPECT_EQ(f, b) << key;
    for (const auto& name : f)
      ++seen[name];
  }
  // The policy does spread faults: every name appears, so the comparison means something.
  EXPECT_EQ(seen.size(), 5U);  // none, three create faults, lookup-unavailable
  EXPECT_GT(seen["lookup-unavailable"], 0);
  EXPECT_GT(seen["commit-then-drop"], 0);
  EXPECT_GT(seen["fail-before-commit"], 0);
  EXPECT_GT(seen["commit-then-error"], 0);
}

TEST(FaultPlanChaos, SameInputsGiveTheSameFaultAgain) {
  FaultPlan plan = plan_of(kChaos);
  for (int i = 0; i < 100; ++i) {
    const std::string key = "order-" + std::to_string(i);
    const std::string first = fault_for_create(plan, key, json::object(), 4);
    EXPECT_EQ(fault_for_create(plan, key, json{{"orderId", key}}, 4), first)
        << key;  // payload ignored
  }
}

TEST(FaultPlanChaos, TheNthOperationAndTheSeedChangeTheChoice) {
  const auto faults_for = [](const std::string& body, bool vary_n) {
    FaultPlan plan = plan_of(body);
    std::vector<std::string> faults;
    for (int i = 0; i < 100; ++i) {
      faults.push_back(
          vary_n ? fault_for_create(plan, "key", json::object(), static_cast<std::uint64_t>(i))
                 : fault_for_create(plan, "key-" + std::to_string(i)));
    }
    return faults;
  };
  const std::string seed7 = R"({"chaos":{"seed":7,"rates":{"commit-then-drop":0.5}}})";
  const std::string seed8 = R"({"chaos":{"seed":8,"rates":{"commit-then-drop":0.5}}})";
  const std::vector<std::string> by_n = faults_for(seed7, true);
  EXPECT_NE(std::count(by_n.begin(), by_n.end(), "none"), 0);
  EXPECT_NE(std::count(by_n.begin(), by_n.end(), "commit-then-drop"), 0);
  EXPECT_NE(faults_for(seed7, false), faults_for(seed8, false));
  EXPECT_EQ(faults_for(seed7, false), faults_for(seed7, false));
}

TEST(FaultPlanChaos, PlanChoiceEqualsThePolicyChoice) {
  ChaosPolicy policy{7, {{Fault{FaultKind::commit_then_drop}, 0.3}}};
  FaultPlan plan = plan_of(R"({"chaos":{"seed":7,"rates":{"commit-then-drop":0.3}}})");
  for (int i = 0; i < 500; ++i) {
    const std::string key = "k" + std::to_string(i);
    EXPECT_EQ(plan.take_for_create(key, json::object(), 2).fault, policy.choose(key, 2, false))
        << key;
  }
}

int count_of(const std::string& body, const std::string& fault, bool for_lookup, int keys = 10000) {
  FaultPlan plan = plan_of(body);
  int count = 0;
  for (int i = 0; i < keys; ++i) {
    const std::string key = "key-" + std::to_string(i);
    count +=
        (for_lookup ? fault_for_lookup(plan, key) : fault_for_create(plan, key)) == fault ? 1 : 0;
  }
  return count;
}

TEST(FaultPlanChaos, RatesAreRespected) {
  const int drops = count_of(R"({"chaos":{"seed":1,"rates":{"commit-then-drop":0.3}}})",
                             "commit-then-drop", false);
  EXPECT_GE(drops, 2700);
  EXPECT_LE(drops, 3300);

  const std::string mixed =
      R"({"chaos":{"seed":99,"rates":{"commit-then-drop":0.1,"fail-before-commit":0.2,"rate-limited:3":0.4}}})";
  const int mixed_drops = count_of(mixed, "commit-then-drop", false);
  const int mixed_fails = count_of(mixed, "fail-before-commit", false);
  const int mixed_limits = count_of(mixed, "rate-limited:3", false);
  const int mixed_none = count_of(mixed, "none", false);
  EXPECT_EQ(mixed_drops + mixed_fails + mixed_limits + mixed_none, 10000);
  EXPECT_GE(mixed_drops, 900);
  EXPECT_LE(mixed_drops, 1100);
  EXPECT_GE(mixed_fails, 1800);
  EXPECT_LE(mixed_fails, 2200);
  EXPECT_GE(mixed_limits, 3700);
  EXPECT_LE(mixed_limits, 4300);

  const int lookups = count_of(R"({"chaos":{"seed":1,"rates":{"lookup-unavailable":0.3}}})",
                               "lookup-unavailable", true);
  EXPECT_GE(lookups, 2700);
  EXPECT_LE(lookups, 3300);
}

TEST(FaultPlanChaos, RateZeroNeverRateOneAlways) {
  EXPECT_EQ(count_of(R"({"chaos":{"seed":3,"rates":{"commit-then-drop":0}}})", "none", false),
            10000);
  EXPECT_EQ(
      count_of(R"({"chaos":{"seed":3,"rates":{"commit-then-drop":1}}})", "commit-then-drop", false),
      10000);
  EXPECT_EQ(count_of(R"({"chaos":{"seed":3,"rates":{"lookup-unavailable":0}}})", "none", true),
            10000);
  EXPECT_EQ(count_of(R"({"chaos":{"seed":3,"rates":{"lookup-unavailable":1}}})",
                     "lookup-unavailable", true),
            10000);
}

TEST(FaultPlanChaos, CreateAndLookupRatesAreSeparate) {
  // Creates never draw lookup-unavailable, lookups never draw a create fault.
  const std::string body =
      R"({"chaos":{"seed":5,"rates":{"commit-then-drop":1,"lookup-unavailable":1}}})";
  EXPECT_EQ(count_of(body, "commit-then-drop", false, 1000), 1000);
  EXPECT_EQ(count_of(body, "lookup-unavailable", true, 1000), 1000);
}

TEST(FaultPlanChaos, RulesAndScriptComeBeforeChaos) {
  FaultPlan plan = plan_of(R"({"faults":["commit-then-error",{"fault":"commit-then-500","key":"k"}],
      "chaos":{"seed":1,"rates":{"commit-then-drop":1}}})");
  EXPECT_EQ(fault_for_create(plan, "k"), "commit-then-500");
  EXPECT_EQ(fault_for_create(plan, "k"), "commit-then-error");
  EXPECT_EQ(fault_for_create(plan, "k"), "commit-then-drop");
  EXPECT_EQ(fault_for_create(plan, "other"), "commit-then-drop");
}

TEST(FaultPlanChaos, CreateRatesOverOneAreRefused) {
  EXPECT_EQ(fault_plan_text_error(
                R"({"chaos":{"rates":{"commit-then-drop":0.6,"fail-before-commit":0.5}}})"),
            "chaos.rates: the rates of faults for new operations add up to more than 1");
  // lookup-unavailable is drawn separately, so it does not count towards the total.
  EXPECT_NO_THROW(plan_of(
      R"({"chaos":{"rates":{"commit-then-drop":0.5,"fail-before-commit":0.5,"lookup-unavailable":1}}})"));
}

TEST(FaultPlanChaos, BadRateIsRefusedNamingIt) {
  for (const std::string rate : {"-0.1", "1.5", "\"x\"", "null", "[0.1]", "true"}) {
    SCOPED_TRACE(rate);
    EXPECT_EQ(
        fault_plan_text_error(R"({"chaos":{"seed":1,"rates":{"commit-then-drop":)" + rate + "}}}"),
        "chaos.rates.commit-then-drop: expected a rate between 0 and 1");
  }
  const std::string unknown = fault_plan_text_error(R"({"chaos":{"rates":{"explode":0.1}}})");
  EXPECT_TRUE(starts_with(unknown, "chaos.rates.explode: unknown fault \"explode\"")) << unknown;
}

TEST(FaultPlanChaos, BadPolicyShapeIsRefused) {
  EXPECT_EQ(fault_plan_text_error(R"({"chaos":{"seed":1}})"),
            "chaos.rates: expected an object of fault names and rates between 0 and 1");
  EXPECT_EQ(fault_plan_text_error(R"({"chaos":{"rates":[]}})"),
            "chaos.rates: expected an object of fault names and rates between 0 and 1");
  EXPECT_EQ(fault_plan_text_error(R"({"chaos":{"seed":-1,"rates":{}}})"),
            "chaos.seed: expected a non-negative integer");
  EXPECT_EQ(fault_plan_text_error(R"({"chaos":{"seed":"1","rates":{}}})"),
            "chaos.seed: expected a non-negative integer");
  EXPECT_EQ(fault_plan_text_error(R"({"chaos":{"rates":{},"sead":1}})"),
            "chaos: unknown field \"sead\" (did you mean \"seed\"?)");
  EXPECT_EQ(fault_plan_text_error(R"({"chaos":[1]})"),
            "chaos: expected {\"seed\": S, \"rates\": {\"fault\": rate, ...}}");
}

// ---- echo ------------------------------------------------------------------------------

TEST(FaultPlanEcho, EchoesRulesScriptAndChaos) {
  FaultPlan plan = plan_of(R"({"faults":[
      "commit-then-error",
      {"fault":"commit-then-drop","key":"key-A","times":2},
      "lookup-unavailable",
      {"fault":"delay-before-commit:3000ms","match":{"orderId":"order-42"}}],
    "chaos":{"seed":9,"rates":{"commit-then-reset":0.25,"lookup-unavailable":0.5}}})");
  json expected = json::parse(R"({"faults":[
      {"fault":"commit-then-drop","key":"key-A","times":2},
      {"fault":"delay-before-commit:3s","match":{"orderId":"order-42"},"times":1},
      "commit-then-error",
      "lookup-unavailable"],
    "chaos":{"seed":9,"rates":{"commit-then-reset":0.25,"lookup-unavailable":0.5}}})");
  EXPECT_EQ(plan.to_json(), expected);
  EXPECT_EQ(FaultPlan::from_json(plan.to_json()).to_json(), expected);
}

TEST(FaultPlanEcho, EchoShowsRemainingTimesAndDropsSpentRules) {
  FaultPlan plan = plan_of(R"({"faults":[
      {"fault":"commit-then-drop","key":"key-A","times":2},
      {"fault":"commit-then-500","match":{"orderId":"order-42"}},
      "commit-then-error"]})");
  EXPECT_EQ(fault_for_create(plan, "key-A"), "commit-then-drop");
  EXPECT_EQ(plan.to_json(), json::parse(R"({"faults":[
      {"fault":"commit-then-drop","key":"key-A","times":1},
      {"fault":"commit-then-500","match":{"orderId":"order-42"},"times":1},
      "commit-then-error"]})"));
  EXPECT_EQ(fault_for_create(plan, "key-B", json{{"orderId", "order-42"}}), "commit-then-500");
  EXPECT_EQ(fault_for_create(plan, "key-A"), "commit-then-drop");
  json remaining = json::parse(R"({"faults":["commit-then-error"]})");
  EXPECT_EQ(plan.to_json(), remaining);

  // The echo is a plan: installed again, it behaves as the rest of the first one.
  FaultPlan again = FaultPlan::from_json(plan.to_json());
  EXPECT_EQ(again.to_json(), remaining);
  EXPECT_EQ(fault_for_create(again, "key-A"), "commit-then-error");
  EXPECT_EQ(fault_for_create(again, "key-A"), "none");
}

TEST(FaultPlanEcho, ChaosOnlyPlanEchoesAnEmptyScriptAndTheDefaultSeed) {
  const FaultPlan plan = plan_of(R"({"chaos":{"rates":{"commit-then-drop":0.1}}})");
  EXPECT_EQ(plan.to_json(),
            json::parse(R"({"faults":[],"chaos":{"seed":0,"rates":{"commit-then-drop":0.1}}})"));
}

TEST(FaultPlanEcho, RoundTripKeepsChaosChoices) {
  FaultPlan first = plan_of(kChaos);
  FaultPlan second = FaultPlan::from_json(first.to_json());
  for (int i = 0; i < 300; ++i) {
    const std::string key = "key-" + std::to_string(i);
    EXPECT_EQ(fault_for_create(first, key), fault_for_create(second, key)) << key;
    EXPECT_EQ(fault_for_lookup(first, key), fault_for_lookup(second, key)) << key;
  }
}

// The echo of a chaos policy is a plan: installed again, every key gets the fault it got
// from the policy echoed. Two spellings of one fault must not lose a rate in the echo.
TEST(FaultPlanEcho, TwoSpellingsOfOneFaultAreRefusedSoTheEchoCannotLoseARate) {
  // "rate-limited" and "rate-limited:1" are one fault: summing them silently would hide a
  // likely mistake, and echoing both under one name would lose a rate.
  try {
    FaultPlan::from_json(nlohmann::json::parse(
        R"({"chaos":{"seed":4,"rates":{"rate-limited":0.1,"rate-limited:1":0.4}}})"));
    FAIL() << "two spellings of one fault were accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()),
              "chaos.rates.rate-limited:1: the same fault as another rate, \"rate-limited\"; give "
              "it one rate");
  }
}

// Rates are drawn in the order of the names as written; the echo writes names in canonical
// form, which may sort differently. Installed again, the echo must choose as the original.
TEST(FaultPlanEcho, ChaosEchoChoosesAsTheOriginalWhenNamesAreNotCanonical) {
  FaultPlan first = plan_of(
      R"({"chaos":{"seed":4,"rates":{"commit-then-delay:5s":0.3,"commit-then-delay:60s":0.3}}})");
  FaultPlan echoed = FaultPlan::from_json(first.to_json());
  int differ = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::string key = "key-" + std::to_string(i);
    differ += fault_for_create(first, key) != fault_for_create(echoed, key) ? 1 : 0;
  }
  EXPECT_EQ(differ, 0) << "echo " << first.to_json().dump();
}

}  // namespace
}  // namespace retryproof::provider
