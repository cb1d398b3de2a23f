// Instances killed under traffic in the simulation ("traffic": {"kills": [...]},
// scenarios/model/traffic.hpp): at its time the instance's process dies with every operation it
// runs, and each is rerun at once on the next process as a result of its own, which the
// evidence tells apart from the killed run by the connections it opened. The reference
// client's reruns find what was committed; a client that keeps its key only in memory makes a
// second job; a kill that finds nothing running is never a pass.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <string>

#include "client_under_test/mutant.hpp"
#include "scenarios/reports/traffic_reports.hpp"
#include "scenarios/simulation/simulated_world.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;

const std::string kKillScenario =
    RETRYPROOF_SOURCE_DIR "/scenarios/traffic/05-kill-under-traffic.json";

const Verdict& verdict(const ScenarioResult& result, const std::string& id) {
  for (const Verdict& each : result.verdicts)
    if (each.id == id) return each;
  throw std::invalid_argument("no verdict " + id);
}

std::string load_error(const json& traffic) {
  try {
    scenario_from_json({{"name", "t"}, {"traffic", traffic}}, "t.json");
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "";
}

TEST(TrafficKills, TheReferenceClientsRerunsFindWhatTheKilledProcessesCommitted) {
  const ScenarioResult result = simulate(load_scenario(kKillScenario), ClientChoice{}, 1).result;
  EXPECT_TRUE(result.met()) << verdict(result, "crash-recovery").explanation;
  EXPECT_EQ(verdict(result, "crash-recovery").status, VerdictStatus::pass);
  EXPECT_EQ(verdict(result, "no-duplicate-effect").status, VerdictStatus::pass);
  std::set<int> killed_instances;
  std::map<int, int> reruns_of;  // by killed run: its reruns
  for (const InvocationResult& invocation : result.invocations) {
    if (invocation.killed) {
      ASSERT_TRUE(invocation.instance.has_value());
      killed_instances.insert(*invocation.instance);
      EXPECT_FALSE(invocation.outcome.has_value());
      EXPECT_EQ(invocation.ended_at, Millis(10000));  // in flight at 10 s: it died then
    }
    if (!invocation.rerun_of) continue;
    ++reruns_of[*invocation.rerun_of];
    const InvocationResult& first = result.invocations.at(*invocation.rerun_of);
    EXPECT_TRUE(first.killed);
    EXPECT_EQ(first.operation, invocation.operation);
    EXPECT_EQ(invocation.started_at, Millis(10000));
    ASSERT_TRUE(invocation.outcome.has_value()) << invocation.operation;
    EXPECT_EQ(invocation.outcome->outcome, Reported::succeeded);
  }
  EXPECT_EQ(killed_instances, (std::set<int>{2, 6}));  // instances 3 and 7
  // The terminal names each kill, past the invocations its table has room for.
  const std::vector<std::string> told = reports::kill_lines(result);
  ASSERT_EQ(told.size(), 2u);
  EXPECT_TRUE(told[0].starts_with("killed: instance 3 at +10000ms, ")) << told[0];
  EXPECT_NE(told[0].find(" operations cut short (invocations "), std::string::npos) << told[0];
  // Goodput counts each operation once, where it arrived, and a rerun's success there.
  ASSERT_TRUE(result.traffic.has_value());
  std::size_t arrived = 0;
  std::size_t succeeded = 0;
  for (const GoodputSecond& second : result.traffic->seconds) {
    arrived += second.arrived;
    succeeded += second.succeeded;
  }
  EXPECT_EQ(arrived, result.invocations.size() - reruns_of.size());
  EXPECT_EQ(succeeded, arrived);
  // About 12 in flight on each (4 a second, each answered 3 s after it commits).
  EXPECT_GE(reruns_of.size(), 10u);
  for (const auto& [first, count] : reruns_of)
    EXPECT_EQ(count, 1) << "invocation " << first + 1;
  // The reruns were charged what they sent: a lookup first, which found the job.
  for (const InvocationResult& invocation : result.invocations) {
    if (!invocation.rerun_of) continue;
    const auto first_of_rerun = std::find_if(
        result.journal.begin(), result.journal.end(), [&](const provider::JournalEntry& entry) {
          return entry.seq >= invocation.first_seq && entry.port == invocation.port;
        });
    ASSERT_NE(first_of_rerun, result.journal.end());
    EXPECT_EQ(first_of_rerun->kind, provider::RequestKind::lookup);
    EXPECT_EQ(first_of_rerun->status, 200);
  }
}

TEST(TrafficKills, AClientThatKeepsItsKeyInMemoryMakesASecondJobOnTheRerun) {
  const ClientChoice memory_only{.kind = ClientChoice::Kind::mutant,
                                 .mutant = client::Mutant::memory_only_intent};
  const ScenarioResult result = simulate(load_scenario(kKillScenario), memory_only, 1).result;
  EXPECT_FALSE(result.met());
  const Verdict& crash = verdict(result, "crash-recovery");
  EXPECT_EQ(crash.status, VerdictStatus::fail);
  EXPECT_NE(crash.explanation.find("the restart after the kill created a second job"),
            std::string::npos)
      << crash.explanation;
  EXPECT_EQ(verdict(result, "no-duplicate-effect").status, VerdictStatus::fail);
}

TEST(TrafficKills, AKillThatFindsNothingRunningCutsNothingShortAndTheRunSaysSo) {
  // Five operations over ten instances: instance 9 serves none.
  const Scenario scenario = scenario_from_json({{"name", "idle"},
                                                {"traffic",
                                                 {{"rate", "1/s"},
                                                  {"for", "5s"},
                                                  {"arrival", "uniform"},
                                                  {"instances", 10},
                                                  {"kills", {{{"instance", 9}, {"at", "1s"}}}}}}},
                                               "(test)");
  const ScenarioResult result = simulate(scenario, ClientChoice{}, 1).result;
  EXPECT_EQ(result.status(), ScenarioStatus::inconclusive);
  ASSERT_EQ(result.inconclusive.size(), 1u);
  EXPECT_EQ(result.inconclusive[0].text,
            "the kill of instance 9 at 1s cut no operation short: the instance ran none from "
            "then until traffic ended (or had answered each when the signal landed), so the "
            "crash the scenario exists for never happened");
}

TEST(TrafficKills, ARunWithKillsReplaysByteForByteFromItsSeed) {
  const ClientChoice memory_only{.kind = ClientChoice::Kind::mutant,
                                 .mutant = client::Mutant::memory_only_intent};
  const Scenario scenario = load_scenario(kKillScenario);
  const ScenarioResult first = simulate(scenario, memory_only, 5).result;
  const ScenarioResult second = simulate(scenario, memory_only, 5).result;
  ASSERT_EQ(first.invocations.size(), second.invocations.size());
  EXPECT_TRUE(first.journal == second.journal);
  EXPECT_EQ(first.jobs.size(), second.jobs.size());
  for (std::size_t i = 0; i < first.invocations.size(); ++i) {
    const InvocationResult& a = first.invocations[i];
    const InvocationResult& b = second.invocations[i];
    EXPECT_EQ(a.killed, b.killed) << i;
    EXPECT_EQ(a.rerun_of, b.rerun_of) << i;
    EXPECT_EQ(a.seqs, b.seqs) << i;
    EXPECT_EQ(a.ended_at, b.ended_at) << i;
  }
}

TEST(TrafficKills, TheLoaderSaysWhereAKillCannotMeanAnything) {
  const json traffic = {{"rate", "20/s"}, {"for", "10s"}, {"instances", 4}};
  json kills = traffic;
  kills["kills"] = {{{"instance", 5}, {"at", "2s"}}};
  EXPECT_EQ(load_error(kills),
            "t.json: $.traffic.kills[0].instance: expected a whole number from 1 to 4");
  kills["kills"] = {{{"instance", 1}, {"at", "10s"}}};
  EXPECT_EQ(load_error(kills),
            "t.json: $.traffic.kills[0].at: a kill comes while traffic lasts, before its "
            "\"for\" (10s)");
  kills["kills"] = {{{"instance", 1}, {"after", "2s"}}};
  EXPECT_EQ(load_error(kills),
            "t.json: $.traffic.kills[0]: unknown field \"after\"; expected one of: instance, at");
  kills["kills"] = {{{"instance", 1}}};
  EXPECT_EQ(load_error(kills),
            "t.json: $.traffic.kills[0]: a kill needs an \"at\", such as \"12s\"");
}

// A kill in a long outage: instance 2 is killed twice at 15 s (the second kill finds the
// first one's reruns running). Each process keeps its own budget and breaker, so the reference
// client is judged by what each process did: nothing is inconclusive, nothing fails.
TEST(TrafficKills, AKillInALongOutageIsJudgedProcessByProcess) {
  json document =
      json::parse(std::ifstream(RETRYPROOF_SOURCE_DIR "/scenarios/traffic/02-long-outage.json"));
  document["traffic"]["kills"] = {{{"instance", 2}, {"at", "15s"}},
                                  {{"instance", 2}, {"at", "15s"}}};
  const Scenario scenario = scenario_from_json(document, "(long outage with kills)");
  const ScenarioResult result = simulate(scenario, ClientChoice{}, 1).result;
  EXPECT_TRUE(result.inconclusive.empty()) << result.inconclusive.front().text;
  std::set<int> processes;  // of instance 2's killed runs
  for (const InvocationResult& invocation : result.invocations)
    if (invocation.killed) processes.insert(invocation.process);
  EXPECT_EQ(processes, (std::set<int>{0, 1}));
  for (const char* id : {"retry-budget", "stopping", "gave-up", "crash-recovery", "recovery"})
    EXPECT_NE(verdict(result, id).status, VerdictStatus::fail) << verdict(result, id).explanation;
  EXPECT_TRUE(result.met());
}

// A client killed as the provider takes its held create (delay-before-commit): the provider
// commits it when the hold ends all the same, so the restart finds the job.
TEST(TrafficKills, AHeldCreateStillCommitsWhenItsClientIsKilledAsItIsTaken) {
  const Scenario scenario = scenario_from_json(
      {{"name", "held-kill"},
       {"plan", {{"faults", {"delay-before-commit:1s"}}}},
       {"operations", {{{"id", "op-1"}, {"payload", {{"orderId", "order-1"}, {"amount", 1}}}}}},
       {"invocations",
        {{{"operation", "op-1"}, {"kill", "after-request:1"}}, {{"operation", "op-1"}}}},
       {"client", {{"timeout", "5s"}}}},
      "(test)");
  const ScenarioResult result = simulate(scenario, ClientChoice{}, 1).result;
  ASSERT_EQ(result.invocations.size(), 2u);
  EXPECT_TRUE(result.invocations[0].killed);
  EXPECT_EQ(result.jobs.size(), 1u);
  ASSERT_TRUE(result.invocations[1].outcome.has_value());
  EXPECT_EQ(result.invocations[1].outcome->outcome, Reported::succeeded);
}

}  // namespace
}  // namespace retryproof::scenarios
