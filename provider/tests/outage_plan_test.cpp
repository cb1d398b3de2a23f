// Outages in a plan, without a core: how an entry is read and written back, which requests a
// window takes, how a brownout draws, and every way an entry is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "provider/fault_plan.hpp"
#include "provider/outage.hpp"
#include "provider/tests/core_test_support.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// What a plan whose "outages" are `outages` is refused with (fault_plan_error).
std::string outages_error(const json& outages) {
  return provider::testing::fault_plan_error({{"outages", outages}});
}

// The message for a plan with one outage: the valid one, with `field` set to `value`
// (or removed, when `value` is null).
std::string rejection_with(const std::string& field, const json& value) {
  json entry = {{"from", "1s"}, {"for", "5s"}, {"fault", "fail-before-commit"}};
  if (value.is_null()) {
    entry.erase(field);
  } else {
    entry[field] = value;
  }
  return outages_error(json::array({entry}));
}

const std::string kAllowed =
    "fail-before-commit, drop-before-commit, rate-limited[:<seconds>], reset-before-commit, "
    "slowdown:<duration>";

TEST(OutagePlan, ReadsEveryFieldIntoAWindow) {
  const FaultPlan plan = FaultPlan::from_json(json::parse(R"({"outages": [
      {"from": "1s", "for": "5s", "fault": "fail-before-commit"},
      {"from": "2m", "for": "250ms", "fault": "rate-limited:3", "rate": 0.25, "lookups": false},
      {"from": "0ms", "for": "1s", "fault": "slowdown:2s"}]})"));
  ASSERT_EQ(plan.outages().size(), 3u);
  EXPECT_EQ(plan.outages()[0],
            (Outage{.from = 1s, .until = 6s, .fault = {.kind = FaultKind::fail_before_commit}}));
  EXPECT_EQ(plan.outages()[1],
            (Outage{.from = 120s,
                    .until = 120'250ms,
                    .fault = {.kind = FaultKind::rate_limited, .retry_after_seconds = 3},
                    .rate = 0.25,
                    .lookups = false}));
  EXPECT_EQ(plan.outages()[2], (Outage{.from = 0ms, .until = 1s, .slowdown = 2s}));
  EXPECT_EQ(plan.outages()[2].fault_name(), "slowdown:2s");
}

TEST(OutagePlan, IsWrittenBackAsItIsReadWithItsDefaultsSpelledOut) {
  const FaultPlan plan = FaultPlan::from_json(json::parse(
      R"({"faults": ["commit-then-drop"], "outages": [
          {"from": "1s", "for": "5s", "fault": "reset-before-commit"},
          {"from": "90s", "for": "1500ms", "fault": "slowdown:1m", "rate": 0.5}]})"));
  const json echoed = plan.to_json();
  EXPECT_EQ(echoed["outages"], json::parse(R"([
      {"from": "1s", "for": "5s", "fault": "reset-before-commit", "rate": 1.0, "lookups": true},
      {"from": "90s", "for": "1500ms", "fault": "slowdown:1m", "rate": 0.5, "lookups": true}])"));
  EXPECT_EQ(FaultPlan::from_json(echoed).outages(), plan.outages());
  // A plan without outages echoes as it always did.
  EXPECT_FALSE(FaultPlan::from_json({{"faults", json::array()}}).to_json().contains("outages"));
}

TEST(OutagePlan, TakesRequestsFromItsFirstMillisecondUntilJustBeforeItsEnd) {
  FaultPlan plan = FaultPlan::from_json(
      json::parse(R"({"outages": [{"from": "1s", "for": "5s", "fault": "fail-before-commit"}]})"));
  EXPECT_FALSE(plan.take_outage("k", false, 999ms, 0));
  EXPECT_TRUE(plan.take_outage("k", false, 1000ms, 0));
  EXPECT_TRUE(plan.take_outage("k", false, 5999ms, 0));
  EXPECT_FALSE(plan.take_outage("k", false, 6000ms, 0));
}

TEST(OutagePlan, TakesLookupsUnlessItSaysNot) {
  FaultPlan plan = FaultPlan::from_json(json::parse(R"({"outages": [
      {"from": "0ms", "for": "1s", "fault": "fail-before-commit", "lookups": false},
      {"from": "2s", "for": "1s", "fault": "rate-limited"}]})"));
  EXPECT_FALSE(plan.take_outage("k", true, 500ms, 0));
  EXPECT_TRUE(plan.take_outage("k", false, 500ms, 0));
  EXPECT_TRUE(plan.take_outage("k", true, 2500ms, 0));
}

TEST(OutagePlan, TheFirstOutageListedThatCoversARequestTakesIt) {
  FaultPlan plan = FaultPlan::from_json(json::parse(R"({"outages": [
      {"from": "0ms", "for": "10s", "fault": "drop-before-commit"},
      {"from": "5s", "for": "10s", "fault": "fail-before-commit"}]})"));
  EXPECT_EQ(plan.take_outage("k", false, 7s, 0)->outage.fault.kind, FaultKind::drop_before_commit);
  EXPECT_EQ(plan.take_outage("k", false, 12s, 0)->outage.fault.kind, FaultKind::fail_before_commit);
}

// The keys a brownout at `rate` fails, for 400 keys sent once each in `order`.
std::set<std::string> failed_keys(double rate, std::uint64_t seed, bool reversed) {
  FaultPlan plan = FaultPlan::from_json(
      {{"outages",
        {{{"from", "0ms"}, {"for", "1m"}, {"fault", "fail-before-commit"}, {"rate", rate}}}}});
  std::vector<std::string> keys;
  for (int i = 0; i < 400; ++i)
    keys.push_back("order-" + std::to_string(i));
  if (reversed) std::reverse(keys.begin(), keys.end());
  std::set<std::string> failed;
  for (const std::string& key : keys) {
    if (plan.take_outage(key, false, 1s, seed)) failed.insert(key);
  }
  return failed;
}

TEST(OutagePlan, ABrownoutFailsItsShareByKeyWhateverOrderKeysArriveIn) {
  const std::set<std::string> failed = failed_keys(0.5, 7, false);
  EXPECT_GT(failed.size(), 160u);  // 400 draws at 0.5: 200 expected, 40 is over 4 deviations
  EXPECT_LT(failed.size(), 240u);
  EXPECT_EQ(failed_keys(0.5, 7, true), failed);   // the same seed: the same keys
  EXPECT_NE(failed_keys(0.5, 8, false), failed);  // another seed: others
  EXPECT_LT(failed_keys(0.1, 7, false).size(), 70u);
  EXPECT_EQ(failed_keys(1.0, 7, false).size(), 400u);
}

TEST(OutagePlan, ABrownoutDrawsEachRequestOfAKeyAfresh) {
  // A key failed once is not doomed for the whole window: its n-th request draws again.
  FaultPlan plan = FaultPlan::from_json(json::parse(
      R"({"outages": [{"from": "0ms", "for": "1m", "fault": "fail-before-commit", "rate": 0.5}]})"));
  std::string draws;
  for (int attempt = 0; attempt < 40; ++attempt)
    draws += plan.take_outage("k", false, 1s, 3) ? 'x' : '.';
  EXPECT_NE(draws.find('x'), std::string::npos) << draws;
  EXPECT_NE(draws.find('.'), std::string::npos) << draws;
  // And the sequence is the seed's: a fresh plan draws it again.
  FaultPlan again = FaultPlan::from_json(plan.to_json());
  std::string redrawn;
  for (int attempt = 0; attempt < 40; ++attempt)
    redrawn += again.take_outage("k", false, 1s, 3) ? 'x' : '.';
  EXPECT_EQ(redrawn, draws);
}

TEST(OutagePlan, AMissingOrEmptyWindowIsRefusedNamingTheField) {
  EXPECT_EQ(rejection_with("from", nullptr),
            "outages[0]: an outage needs a \"from\": when it starts, on the provider's clock");
  EXPECT_EQ(rejection_with("for", nullptr),
            "outages[0]: an outage needs a \"for\": how long it lasts");
  EXPECT_EQ(rejection_with("for", "0s"), "outages[0].for: an outage lasts longer than 0ms");
  EXPECT_EQ(rejection_with("for", 5), "outages[0].for: expected a duration such as \"5s\"");
  EXPECT_EQ(rejection_with("from", "soon").rfind("outages[0].from: bad duration \"soon\"", 0), 0u)
      << rejection_with("from", "soon");
  EXPECT_EQ(rejection_with("for", "-5s").rfind("outages[0].for: bad duration \"-5s\"", 0), 0u)
      << rejection_with("for", "-5s");
}

TEST(OutagePlan, ARateOutsideZeroToOneIsRefused) {
  for (const json& rate : {json(0), json(-0.5), json(1.01), json("0.5"), json(true)}) {
    SCOPED_TRACE(rate.dump());
    EXPECT_EQ(rejection_with("rate", rate),
              "outages[0].rate: expected a share of requests above 0 and at most 1, such as 0.5");
  }
  EXPECT_EQ(rejection_with("lookups", "no"), "outages[0].lookups: expected true or false");
}

TEST(OutagePlan, AFaultThatCommitsOrFailsNothingIsRefusedWithWhatIsAllowed) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"commit-then-drop", "commits the job"},
      {"delay-before-commit:2s", "commits the job"},
      {"none", "fails nothing"},
      {"lookup-unavailable",
       "fails lookups alone (an outage fails lookups with its own fault unless \"lookups\": "
       "false)"}};
  for (const auto& [fault, why] : refused) {
    EXPECT_EQ(rejection_with("fault", fault),
              "outages[0].fault: \"" + fault + "\" " + why +
                  "; an outage takes only pre-commit faults and a slowdown: " + kAllowed);
  }
  EXPECT_EQ(rejection_with("fault", nullptr),
            "outages[0]: an outage needs a \"fault\": " + kAllowed);
}

TEST(OutagePlan, AnUnknownFaultNamesTheClosestOne) {
  EXPECT_EQ(rejection_with("fault", "fail-befor-commit"),
            "outages[0].fault: unknown fault \"fail-befor-commit\" (did you mean "
            "\"fail-before-commit\"?); an outage takes " +
                kAllowed);
  EXPECT_EQ(rejection_with("fault", "slowdwn:2s"),
            "outages[0].fault: unknown fault \"slowdwn:2s\" (did you mean \"slowdown\"?); an "
            "outage takes " +
                kAllowed);
  EXPECT_EQ(rejection_with("fault", 503),
            "outages[0].fault: expected a fault name such as \"fail-before-commit\" or "
            "\"slowdown:2s\"");
}

TEST(OutagePlan, AFaultsParameterIsCheckedAsAPlansIs) {
  EXPECT_EQ(rejection_with("fault", "rate-limited:soon"),
            "outages[0].fault: \"rate-limited:soon\": Retry-After is a whole number of seconds "
            "from 0 to 86400");
  EXPECT_EQ(rejection_with("fault", "reset-before-commit:1s"),
            "outages[0].fault: \"reset-before-commit:1s\": reset-before-commit takes no parameter");
  EXPECT_EQ(rejection_with("fault", "slowdown"),
            "outages[0].fault: \"slowdown\" needs a duration, such as slowdown:2s");
  EXPECT_EQ(rejection_with("fault", "slowdown:0ms"),
            "outages[0].fault: \"slowdown:0ms\": a slowdown holds longer than 0ms");
  EXPECT_EQ(rejection_with("fault", "slowdown:2")
                .rfind("outages[0].fault: \"slowdown:2\": bad duration \"2\"", 0),
            0u);
}

TEST(OutagePlan, AnUnknownFieldIsAnErrorNamingTheClosestOne) {
  EXPECT_EQ(rejection_with("form", "1s"),
            "outages[0]: unknown field \"form\" (did you mean \"from\"?)");
  EXPECT_EQ(rejection_with("lookup", false),
            "outages[0]: unknown field \"lookup\" (did you mean \"lookups\"?)");
  EXPECT_EQ(rejection_with("until", "9s"), "outages[0]: unknown field \"until\"");
}

TEST(OutagePlan, TheEntryAndTheListAreNamed) {
  EXPECT_EQ(outages_error(json::parse(R"([{"from": "1s", "for": "5s", "fault": "rate-limited"},
                                          {"from": "1s", "fault": "rate-limited"}])")),
            "outages[1]: an outage needs a \"for\": how long it lasts");
  EXPECT_EQ(outages_error(json::array({"fail-before-commit"})),
            "outages[0]: expected {\"from\": \"1s\", \"for\": \"5s\", \"fault\": "
            "\"fail-before-commit\"}");
  EXPECT_EQ(outages_error(json::object()),
            "outages: expected an array such as [{\"from\": \"1s\", \"for\": \"5s\", \"fault\": "
            "\"fail-before-commit\"}]");
}

}  // namespace
}  // namespace retryproof::provider
