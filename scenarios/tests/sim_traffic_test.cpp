// Open-loop traffic in the simulation (scenarios/model/traffic.hpp): operations drawn from the
// seed, served by long-lived instances that keep a retry budget, against a provider with a
// capacity. The traffic set (scenarios/traffic) is met by the reference client and shows the
// no-budget mutant's metastable failure; a seed replays it byte for byte.
#include <gtest/gtest.h>

#include <string>

#include "client_under_test/mutant.hpp"
#include "scenarios/evidence/goodput.hpp"
#include "scenarios/simulation/simulated_world.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;

const std::string kTrafficSet = RETRYPROOF_SOURCE_DIR "/scenarios/traffic";

Scenario traffic_scenario(json traffic,
                          json plan = {{"capacity",
                                        {{"rate", "100/s"}, {"queue", 100}, {"deadline", "2s"}}}}) {
  return scenario_from_json({{"name", "traffic"}, {"traffic", std::move(traffic)}, {"plan", plan}},
                            "(traffic test)");
}

const Verdict& verdict(const ScenarioResult& result, const std::string& id) {
  for (const Verdict& each : result.verdicts)
    if (each.id == id) return each;
  throw std::invalid_argument("no verdict " + id);
}

std::string load_error(const json& document) {
  try {
    scenario_from_json(document, "t.json");
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "";
}

TEST(Traffic, ArrivalsAreDrawnFromTheSeedAtTheRateAndSpreadOverTheInstances) {
  const Scenario scenario = traffic_scenario({{"rate", "50/s"}, {"for", "20s"}, {"instances", 4}});
  const Scenario drawn = expand_traffic(scenario, 7);
  // About 1000 arrive (a Poisson count's deviation is about 32).
  EXPECT_NEAR(static_cast<double>(drawn.invocations.size()), 1000.0, 150.0);
  EXPECT_EQ(drawn.invocations.size(), drawn.operations.size());
  EXPECT_EQ(expand_traffic(scenario, 7).invocations.size(), drawn.invocations.size());
  EXPECT_NE(expand_traffic(scenario, 8).invocations.back().starts_at,
            drawn.invocations.back().starts_at);
  Millis last{0};
  for (std::size_t i = 0; i < drawn.invocations.size(); ++i) {
    const Invocation& invocation = drawn.invocations[i];
    ASSERT_TRUE(invocation.starts_at.has_value());
    EXPECT_GE(*invocation.starts_at, last);  // in arrival order
    EXPECT_LT(*invocation.starts_at, Millis(20000));
    EXPECT_EQ(invocation.instance, static_cast<int>(i % 4));
    last = *invocation.starts_at;
  }
  const Scenario uniform = expand_traffic(
      traffic_scenario({{"rate", "10/s"}, {"for", "2s"}, {"arrival", "uniform"}}), 1);
  ASSERT_EQ(uniform.invocations.size(), 20u);
  EXPECT_EQ(uniform.invocations[3].starts_at, Millis(300));
}

TEST(Traffic, TheLoaderRefusesWhatTrafficCannotMeanAndSaysWhere) {
  const json base = {{"name", "t"}, {"plan", {{"faults", json::array()}}}};
  json document = base;
  document["traffic"] = {{"rate", "20/s"}, {"for", "10s"}};
  document["concurrency"] = 5;
  EXPECT_EQ(load_error(document),
            "t.json: $.concurrency: traffic generates its operations and runs them as a fleet of "
            "its \"instances\"; leave this out");
  document = base;
  document["traffic"] = {{"rate", "20 per s"}, {"for", "10s"}};
  EXPECT_EQ(load_error(document),
            "t.json: $.traffic.rate: \"20 per s\" is not requests a second, as \"100/s\", "
            "\"6000/m\" or a number");
  document["traffic"] = {{"rate", "20/s"}, {"for", "10s"}, {"arival", "poisson"}};
  EXPECT_EQ(load_error(document),
            "t.json: $.traffic: unknown field \"arival\" (did you mean \"arrival\"?); expected "
            "one of: rate, for, arrival, instances, recoverWithin, idPrefix, kills");
  document["traffic"] = {{"rate", "20000/s"}, {"for", "10s"}};
  EXPECT_EQ(load_error(document),
            "t.json: $.traffic: traffic of rate times length above 100000 operations is more "
            "than one run holds");
}

TEST(Traffic, TheReferenceClientMeetsTheTrafficSet) {
  for (const Scenario& scenario : load_catalog({kTrafficSet})) {
    SCOPED_TRACE(scenario.name);
    const ScenarioResult result = simulate(scenario, ClientChoice{}, 1).result;
    EXPECT_TRUE(result.met()) << verdict(result, "recovery").explanation << "\n"
                              << verdict(result, "gave-up").explanation;
    // Recovery where there is a trigger to recover from; the crash where instances die.
    if (trigger_of(scenario)) {
      EXPECT_EQ(verdict(result, "recovery").status, VerdictStatus::pass);
    }
    if (!scenario.traffic->kills.empty()) {
      EXPECT_EQ(verdict(result, "crash-recovery").status, VerdictStatus::pass);
    }
    EXPECT_EQ(verdict(result, "retry-budget").status, VerdictStatus::pass);
    EXPECT_GT(result.invocations.size(), 1000u);  // the fleet really served traffic
  }
}

TEST(Traffic, ACapacityDropGoesMetastableUnderRetriesWithoutABudget) {
  const Scenario scenario = load_scenario(kTrafficSet + "/01-capacity-drop.json");
  const ClientChoice no_budget{.kind = ClientChoice::Kind::mutant,
                               .mutant = client::Mutant::no_budget};
  const ScenarioResult naive = simulate(scenario, no_budget, 1).result;
  EXPECT_FALSE(naive.met());
  const Verdict& recovery = verdict(naive, "recovery");
  EXPECT_EQ(recovery.status, VerdictStatus::fail);
  EXPECT_NE(recovery.explanation.find("a metastable failure"), std::string::npos)
      << recovery.explanation;
  EXPECT_NE(recovery.explanation.find("goodput 0/s"), std::string::npos) << recovery.explanation;
  EXPECT_EQ(verdict(naive, "retry-budget").status, VerdictStatus::fail);
  // The same trigger, the same traffic: a budget lets the queue drain.
  const ScenarioResult budgeted = simulate(scenario, ClientChoice{}, 1).result;
  EXPECT_EQ(verdict(budgeted, "recovery").status, VerdictStatus::pass)
      << verdict(budgeted, "recovery").explanation;
}

// What the reports draw (ScenarioResult::traffic) says what `recovery` says: the reference
// client's time to recover to the millisecond, and the mutant's failure to.
TEST(Traffic, ThePictureOfARunTellsTheTimeToRecoverAsRecoveryDoes) {
  const Scenario scenario = load_scenario(kTrafficSet + "/01-capacity-drop.json");
  const ScenarioResult budgeted = simulate(scenario, ClientChoice{}, 1).result;
  ASSERT_TRUE(budgeted.traffic.has_value());
  const TrafficPicture& picture = *budgeted.traffic;
  ASSERT_TRUE(picture.trigger.has_value());
  EXPECT_EQ(picture.trigger->from, Millis(10000));
  EXPECT_EQ(picture.trigger->until, Millis(15000));
  EXPECT_TRUE(picture.baseline_known);
  ASSERT_TRUE(picture.recovered_after.has_value());
  EXPECT_GT(*picture.recovered_after, Millis(0));
  const std::string told = verdict(budgeted, "recovery").explanation;
  EXPECT_NE(told.find("recovered " + std::to_string(picture.recovered_after->count()) +
                      " ms after its trigger ended"),
            std::string::npos)
      << told;
  EXPECT_GE(picture.seconds.size(), 40u);  // every second of the 40 s of traffic

  const ClientChoice no_budget{.kind = ClientChoice::Kind::mutant,
                               .mutant = client::Mutant::no_budget};
  const ScenarioResult naive = simulate(scenario, no_budget, 1).result;
  ASSERT_TRUE(naive.traffic.has_value());
  EXPECT_FALSE(naive.traffic->recovered_after.has_value());
  EXPECT_NE(verdict(naive, "recovery").explanation.find("never recovered"), std::string::npos);
  std::size_t deepest = 0;
  for (const GoodputSecond& second : naive.traffic->seconds)
    deepest = std::max(deepest, second.deepest_queue);
  EXPECT_GE(deepest, 400u);  // the queue full (400), and the request in service
}

TEST(TrafficAtScale, TenThousandClientsAtAThousandASecondReplayByteForByte) {
  const Scenario scenario = traffic_scenario(
      {{"rate", "1000/s"}, {"for", "10s"}, {"instances", 100}},
      {{"capacity", {{"rate", "2000/s"}, {"queue", 1000}, {"deadline", "2s"}}},
       {"outages", {{{"from", "4s"}, {"for", "2s"}, {"fault", "fail-before-commit"}}}}});
  const ScenarioResult first = simulate(scenario, ClientChoice{}, 42).result;
  const ScenarioResult second = simulate(scenario, ClientChoice{}, 42).result;
  EXPECT_NEAR(static_cast<double>(first.invocations.size()), 10000.0, 400.0);
  ASSERT_EQ(first.journal.size(), second.journal.size());
  EXPECT_TRUE(first.journal == second.journal);
  EXPECT_EQ(first.jobs.size(), second.jobs.size());
}

}  // namespace
}  // namespace retryproof::scenarios
