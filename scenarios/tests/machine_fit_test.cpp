// Whether a machine can start a fleet of client processes in time to meet its outage, with
// the figures measured on a 2-core runner (bench/results/connections.md): the reference client
// about 12 ms of CPU a process, the Python example 85 ms, the Node example 260 ms.
#include "scenarios/driver/machine_fit.hpp"

#include <gtest/gtest.h>

namespace retryproof::scenarios {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// The storm set's hundred clients through a 3 s outage.
Scenario storm(int clients,
               json plan = {
                   {"outages",
                    {{{"from", "0ms"}, {"for", "3s"}, {"fault", "fail-before-commit"}}}}}) {
  return scenario_from_json({{"name", "storm"},
                             {"concurrency", clients},
                             {"generatedOperations", {{"count", clients}}},
                             {"plan", std::move(plan)}},
                            "(machine fit test)");
}

TEST(MachineFit, TwoCoresStartAHundredLightOrPythonClientsWithinTheOutage) {
  EXPECT_EQ(fleet_too_heavy(storm(100), 12ms, 2, 1), "");
  // 8.5 s of CPU: a quarter of them started 1.1 s in, within the 3 s outage.
  EXPECT_EQ(fleet_too_heavy(storm(100), 85ms, 2, 1), "");
}

TEST(MachineFit, TwoCoresCannotStartAHundredNodeClientsBeforeTheOutageEnds) {
  EXPECT_EQ(fleet_too_heavy(storm(100), 260ms, 2, 1),
            "not run on this machine: its 100 clients are a process each, and one cost 260 ms "
            "of CPU earlier in this run: 26.00 s of CPU on 2 cores, so that a quarter of them "
            "would start 3.25 s in, after its last outage ends at 3.00 s. Run it with --sessions "
            "(a client that speaks the session contract, docs/sessions.md), or on a machine with "
            "3 cores or more");
  EXPECT_EQ(fleet_too_heavy(storm(100), 260ms, 3, 1), "");  // as many as it said
  // The Node example measured on this machine's catalog: 121 ms, a quarter started in 1.5 s.
  EXPECT_EQ(fleet_too_heavy(storm(100), 121ms, 2, 1), "");
  EXPECT_EQ(fleet_too_heavy(storm(10), 260ms, 2, 1), "");  // the ten-client storm
}

TEST(MachineFit, CompressedTimeShortensTheOutageTheStartsMustFitIn) {
  EXPECT_EQ(fleet_too_heavy(storm(100), 85ms, 2, 1), "");
  EXPECT_NE(fleet_too_heavy(storm(100), 85ms, 2, 10).find("ends at 0.30 s"), std::string::npos);
}

TEST(MachineFit, OnlyAFleetWithAnOutageIsMeasuredAgainstTheMachine) {
  EXPECT_EQ(fleet_too_heavy(storm(100, {{"faults", json::array()}}), 10000ms, 1, 1), "");
  EXPECT_EQ(fleet_too_heavy(storm(1), 10000ms, 1, 1), "");
  // Traffic runs as sessions, a process per instance: nothing to start per operation.
  const Scenario traffic = expand_traffic(
      scenario_from_json(
          {{"name", "traffic"},
           {"traffic", {{"rate", "40/s"}, {"for", "10s"}, {"instances", 10}}},
           {"plan",
            {{"outages", {{{"from", "1s"}, {"for", "3s"}, {"fault", "fail-before-commit"}}}}}}},
          "(machine fit test)"),
      1);
  ASSERT_TRUE(traffic.fleet.is_fleet());
  EXPECT_EQ(fleet_too_heavy(traffic, 10000ms, 1, 1), "");
}

InvocationResult process(int cpu_ms, bool killed = false, bool timed_out = false) {
  InvocationResult invocation;
  invocation.cpu = Millis(cpu_ms);
  invocation.killed = killed;
  invocation.timed_out = timed_out;
  return invocation;
}

TEST(MachineFit, AClientsCostIsTheMedianOfItsWholeProcessesSoFar) {
  ClientCosts costs;
  EXPECT_FALSE(costs.per_process("cmd:node x.mjs"));
  ScenarioResult first{.client = "cmd:node x.mjs"};
  first.invocations = {process(250), process(900, true), process(270), process(5000, false, true)};
  ScenarioResult second{.client = "cmd:node x.mjs"};
  second.invocations = {process(260), InvocationResult{}};  // a session's: no process of its own
  ScenarioResult other{.client = "reference"};
  other.invocations = {process(12)};
  ScenarioResult storm{.client = "cmd:node x.mjs"};
  storm.concurrency = 100;  // a fleet's processes, each slower for the others: not counted
  storm.invocations = std::vector<InvocationResult>(100, process(2000));
  costs.add(first);
  costs.add(second);
  costs.add(other);
  costs.add(storm);
  // The killed one, the one stopped at the limit and the storm's left out.
  EXPECT_EQ(costs.per_process("cmd:node x.mjs"), Millis(260));
  EXPECT_EQ(costs.per_process("reference"), Millis(12));
}

TEST(MachineFit, AScenarioNotRunIsInconclusiveAndSaysWhy) {
  const ScenarioResult result = not_run(storm(100), "cmd:node x.mjs", 7, "not run: why");
  EXPECT_EQ(result.status(), ScenarioStatus::inconclusive);
  ASSERT_EQ(result.inconclusive.size(), 1u);
  EXPECT_EQ(result.inconclusive[0].text, "not run: why");
  EXPECT_EQ(result.seed, 7u);
  EXPECT_TRUE(result.invocations.empty());
}

}  // namespace
}  // namespace retryproof::scenarios
