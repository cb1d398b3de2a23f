// How each planned source of faults fared, for the reports and GET /_test/faults: how often
// it fired and against how many requests, a match rule's field that no create carried (with
// the field a create did carry), and which sources a run may leave unmet ("optional").
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "provider/fault_plan.hpp"
#include "provider/tests/core_test_support.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

FaultPlan plan_written(const std::string& body) {
  return FaultPlan::from_json(json::parse(body));
}

TEST(FaultPlanUses, AMatchRuleNoCreateMetFiresZeroTimesAndSaysAgainstWhat) {
  FaultPlan plan = plan_written(
      R"({"faults": [{"fault": "commit-then-drop", "match": {"orderId": "order-999"}}]})");
  EXPECT_EQ(plan.take_for_create("k", {{"orderId", "order-42"}}, 0).fault.kind, FaultKind::none);
  const PlanUse use = plan.uses().at(0);
  EXPECT_EQ(use.source, "faults[0]");
  EXPECT_EQ(use.fired, 0);
  EXPECT_EQ(use.compared, 1);
  EXPECT_TRUE(use.unseen_fields.empty()) << "the create carried orderId, with another value";
  EXPECT_EQ(use.describe(),
            "commit-then-drop was planned for orderId=order-999 and fired 0 times in 1 create");
}

TEST(FaultPlanUses, AFieldNoCreateCarriedIsFlaggedWithTheClosestOneThatDid) {
  FaultPlan plan = plan_written(
      R"({"faults": [{"fault": "commit-then-drop", "match": {"orderID": "order-42"}}]})");
  plan.take_for_create("k1", {{"orderId", "order-42"}, {"amount", 120}}, 0);
  plan.take_for_create("k2", {{"orderId", "order-43"}, {"amount", 5}}, 0);
  const PlanUse use = plan.uses().at(0);
  ASSERT_EQ(use.unseen_fields.size(), 1u);
  EXPECT_EQ(use.unseen_fields[0].first, "orderID");
  EXPECT_EQ(use.unseen_fields[0].second, "orderId");
  EXPECT_NE(use.describe().find("orderID: no create carried this field; did you mean orderId?"),
            std::string::npos)
      << use.describe();
  const json shown = plan.shown_json();
  EXPECT_EQ(shown["fired"][0]["unseenFields"][0]["field"], "orderID");
  EXPECT_EQ(shown["fired"][0]["unseenFields"][0]["didYouMean"], "orderId");
  EXPECT_EQ(shown["fired"][0]["compared"], 2);
}

TEST(FaultPlanUses, EachSourceCountsWhatItFiredOnAndNamesItself) {
  FaultPlan plan = plan_written(R"({
      "faults": ["fail-before-commit", "commit-then-error", {"fault": "lookup-unavailable",
                 "key": "k1"}],
      "outages": [{"from": "1s", "for": "1s", "fault": "fail-before-commit"}]})");
  EXPECT_EQ(plan.take_for_create("k1", json::object(), 0).source, "faults[0]");
  EXPECT_EQ(plan.take_for_lookup("k1", 0).source, "faults[2]");
  EXPECT_EQ(plan.take_outage("k1", false, Millis(1500), 0)->source, "outages[0]");
  const std::vector<PlanUse> uses = plan.uses();
  ASSERT_EQ(uses.size(), 4u);
  EXPECT_EQ(uses[0].fired, 1);
  EXPECT_EQ(uses[1].fired, 0);
  EXPECT_EQ(uses[1].compared, 1) << "it waited in the script while the first one fired";
  EXPECT_EQ(uses[2].fired, 1);
  EXPECT_EQ(uses[2].asked_for, "lookup");
  EXPECT_EQ(uses[3].source, "outages[0]");
  EXPECT_EQ(uses[3].fired, 1);
  EXPECT_EQ(uses[3].describe(),
            "an outage of fail-before-commit (outages[0], for +1000ms to +2000ms) fired 1 time in "
            "1 create");
}

// An outage is there for the creates it fails: one that only lookups met (every client's
// first create cut short before it was sent, say) never fired, and the run says so.
TEST(FaultPlanUses, AnOutageOnlyLookupsMetHasNotFired) {
  FaultPlan plan = plan_written(R"({
      "outages": [{"from": "0ms", "for": "1s", "fault": "fail-before-commit", "lookups": true}]})");
  ASSERT_TRUE(plan.take_outage("k1", true, Millis(100), 0));
  ASSERT_TRUE(plan.take_outage("k2", true, Millis(200), 0));
  PlanUse use = plan.uses().at(0);
  EXPECT_EQ(use.fired, 0);
  EXPECT_EQ(use.lookups_fired, 2);
  EXPECT_EQ(use.describe(),
            "an outage of fail-before-commit was planned for +0ms to +1000ms and fired 0 times in "
            "0 creates (and 2 lookups)");
  ASSERT_TRUE(plan.take_outage("k1", false, Millis(300), 0));
  use = plan.uses().at(0);
  EXPECT_EQ(use.fired, 1);
  EXPECT_EQ(use.compared, 1);
}

TEST(FaultPlanUses, ChaosCountsTheDrawsThatGaveAFault) {
  FaultPlan plan = plan_written(R"({"chaos": {"seed": 1, "rates": {"commit-then-drop": 1}}})");
  EXPECT_EQ(plan.take_for_create("k", json::object(), 0).source, "chaos");
  plan.take_for_create("k2", json::object(), 0);
  EXPECT_EQ(plan.uses().at(0).fired, 2);
  EXPECT_EQ(plan.uses().at(0).compared, 2);
  FaultPlan never = plan_written(R"({"chaos": {"seed": 1, "rates": {"commit-then-drop": 0}}})");
  never.take_for_create("k", json::object(), 0);
  EXPECT_EQ(never.uses().at(0).fired, 0);
  EXPECT_EQ(never.take_for_create("k", json::object(), 1).source, "") << "nothing fired";
}

TEST(FaultPlanUses, ASourceMarkedOptionalIsSaidSoAndEchoedSo) {
  FaultPlan plan = plan_written(R"({
      "faults": [{"fault": "lookup-unavailable", "optional": true},
                 {"fault": "commit-then-drop", "key": "k", "optional": true}],
      "outages": [{"from": "0ms", "for": "1s", "fault": "fail-before-commit", "optional": true}]})");
  for (const PlanUse& use : plan.uses())
    EXPECT_TRUE(use.optional) << use.source;
  const json echoed = plan.to_json();
  EXPECT_EQ(echoed["faults"][0],
            json({{"fault", "commit-then-drop"}, {"key", "k"}, {"times", 1}, {"optional", true}}));
  EXPECT_EQ(echoed["faults"][1], json({{"fault", "lookup-unavailable"}, {"optional", true}}));
  EXPECT_EQ(echoed["outages"][0]["optional"], true);
}

TEST(FaultPlanUses, APlanReadBackWithItsCountsCanBePostedAgain) {
  FaultPlan plan = plan_written(R"({"faults": ["commit-then-drop"]})");
  plan.take_for_create("k", json::object(), 0);
  const FaultPlan again = FaultPlan::from_json(plan.shown_json());
  EXPECT_EQ(again.uses().size(), 0u) << "the script was spent; the counts are read past";
}

TEST(FaultPlanUses, AMistypedFieldOfThePlanGetsADidYouMean) {
  EXPECT_NE(testing::fault_plan_error(json::parse(R"({"fault": ["commit-then-drop"]})"))
                .find("did you mean \"faults\""),
            std::string::npos);
  EXPECT_NE(testing::fault_plan_error(
                json::parse(R"({"faults": [{"fault": "commit-then-drop", "optionl": true}]})"))
                .find("did you mean \"optional\""),
            std::string::npos);
  EXPECT_NE(testing::fault_plan_error(
                json::parse(R"({"faults": [{"fault": "commit-then-drop", "optional": 1}]})"))
                .find("faults[0].optional: expected true or false"),
            std::string::npos);
}

}  // namespace
}  // namespace retryproof::provider
