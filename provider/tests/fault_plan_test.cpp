// The fault script: parsed strictly, consumed first in first out, `none` when empty.
#include "provider/fault_plan.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "provider/fault.hpp"
#include "provider/tests/core_test_support.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using provider::testing::fault_plan_error;

TEST(FaultPlan, ParsesEveryBaselineName) {
  FaultPlan plan = FaultPlan::from_json(json::parse(
      R"({"faults":["none","fail-before-commit","commit-then-error","commit-then-drop"]})"));
  EXPECT_EQ(plan.take_for_create("k", nlohmann::json::object(), 0).fault, Fault{FaultKind::none});
  EXPECT_EQ(plan.take_for_create("k", nlohmann::json::object(), 0).fault,
            Fault{FaultKind::fail_before_commit});
  EXPECT_EQ(plan.take_for_create("k", nlohmann::json::object(), 0).fault,
            Fault{FaultKind::commit_then_error});
  EXPECT_EQ(plan.take_for_create("k", nlohmann::json::object(), 0).fault,
            Fault{FaultKind::commit_then_drop});
}

TEST(FaultPlan, TakeIsFifoThenNoneForever) {
  FaultPlan plan = FaultPlan::from_json(
      json::parse(R"({"faults":["commit-then-drop","fail-before-commit","commit-then-drop"]})"));
  EXPECT_EQ(plan.take_for_create("k", nlohmann::json::object(), 0).fault.kind,
            FaultKind::commit_then_drop);
  EXPECT_EQ(plan.take_for_create("k", nlohmann::json::object(), 0).fault.kind,
            FaultKind::fail_before_commit);
  EXPECT_EQ(plan.take_for_create("k", nlohmann::json::object(), 0).fault.kind,
            FaultKind::commit_then_drop);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(plan.take_for_create("k", nlohmann::json::object(), 0).fault.kind, FaultKind::none)
        << "take " << i;
}

TEST(FaultPlan, DefaultAndEmptyPlansGiveNone) {
  FaultPlan empty_default;
  EXPECT_EQ(empty_default.take_for_create("k", nlohmann::json::object(), 0).fault.kind,
            FaultKind::none);
  FaultPlan empty_script = FaultPlan::from_json(json::parse(R"({"faults":[]})"));
  EXPECT_EQ(empty_script.take_for_create("k", nlohmann::json::object(), 0).fault.kind,
            FaultKind::none);
  EXPECT_EQ(empty_script.to_json(), json::parse(R"({"faults":[]})"));
}

TEST(FaultPlan, ToJsonEchoesTheRemainingScript) {
  const json body = json::parse(R"({"faults":["commit-then-error","none","commit-then-drop"]})");
  FaultPlan plan = FaultPlan::from_json(body);
  EXPECT_EQ(plan.to_json(), body);
  plan.take_for_create("k", nlohmann::json::object(), 0);
  EXPECT_EQ(plan.to_json(), json::parse(R"({"faults":["none","commit-then-drop"]})"));
  plan.take_for_create("k", nlohmann::json::object(), 0);
  plan.take_for_create("k", nlohmann::json::object(), 0);
  EXPECT_EQ(plan.to_json(), json::parse(R"({"faults":[]})"));
  plan.take_for_create("k", nlohmann::json::object(), 0);
  EXPECT_EQ(plan.to_json(), json::parse(R"({"faults":[]})"));
}

TEST(FaultPlan, ToJsonRoundTripsThroughFromJson) {
  const json body = json::parse(R"({"faults":["fail-before-commit","commit-then-drop"]})");
  EXPECT_EQ(FaultPlan::from_json(FaultPlan::from_json(body).to_json()).to_json(), body);
}

TEST(FaultPlan, UnknownNameIsRejectedNamingEntryAndName) {
  const std::string message =
      fault_plan_error(json::parse(R"({"faults":["none","comit-then-drop","none"]})"));
  EXPECT_NE(message.find("faults[1]"), std::string::npos) << message;
  EXPECT_NE(message.find("comit-then-drop"), std::string::npos) << message;
}

TEST(FaultPlan, NamesAreExact) {
  for (const char* name : {"Commit-Then-Drop", " none", "none ", "commit_then_drop", ""}) {
    const std::string message = fault_plan_error(json{{"faults", json::array({"none", name})}});
    EXPECT_NE(message.find("faults[1]"), std::string::npos) << message;
    EXPECT_NE(message.find("\"" + std::string(name) + "\""), std::string::npos) << message;
  }
}

TEST(FaultPlan, NonStringEntryIsRejectedNamingEntry) {
  for (const json& entry : {json(3), json(nullptr), json(true), json::array({"none"})}) {
    const std::string message =
        fault_plan_error(json{{"faults", json::array({"none", "none", entry})}});
    EXPECT_NE(message.find("faults[2]"), std::string::npos) << message;
  }
}

TEST(FaultPlan, MissingFaultsIsRejected) {
  const std::string message = fault_plan_error(json::object());
  EXPECT_NE(message.find("faults"), std::string::npos) << message;
}

TEST(FaultPlan, FaultsThatIsNotAnArrayIsRejected) {
  for (const json& faults : {json("commit-then-drop"), json(1), json::object(), json(nullptr)}) {
    const std::string message = fault_plan_error(json{{"faults", faults}});
    EXPECT_NE(message.find("faults"), std::string::npos) << message;
    EXPECT_NE(message.find("array"), std::string::npos) << message;
  }
}

TEST(FaultPlan, UnknownExtraFieldIsRejectedNamingIt) {
  const std::string message =
      fault_plan_error(json::parse(R"({"faults":["none"],"fautls":["commit-then-drop"]})"));
  EXPECT_NE(message.find("fautls"), std::string::npos) << message;
}

TEST(FaultPlan, BodyThatIsNotAnObjectIsRejected) {
  for (const json& body : {json::array({"none"}), json("none"), json(1), json(nullptr)}) {
    const std::string message = fault_plan_error(body);
    EXPECT_NE(message.find("object"), std::string::npos) << message;
  }
}

TEST(Fault, NamesRoundTrip) {
  for (const char* name : {"none", "fail-before-commit", "commit-then-error", "commit-then-drop"}) {
    EXPECT_EQ(to_string(parse_fault(name)), name);
  }
}

TEST(Fault, UnknownNameMessageNamesItAndListsTheCatalogue) {
  try {
    parse_fault("explode");
    FAIL() << "parse_fault accepted \"explode\"";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("\"explode\""), std::string::npos) << message;
    EXPECT_NE(message.find("commit-then-drop"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace retryproof::provider
