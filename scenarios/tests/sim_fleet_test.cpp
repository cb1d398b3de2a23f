// Fleets in the simulation: clients run one at a time in virtual time under the
// FleetScheduler, each on a port of its own. What a fleet must be in either world (starts,
// concurrency, time limits, held requests committing in time order), that a seed replays it
// byte for byte. (That the simulation judges a fleet as real processes are judged is in
// fleet_worlds_test.cpp: it needs the process world, which this program, built under the
// sanitizers, does without.)
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "scenarios/simulation/fleet_scheduler.hpp"
#include "scenarios/simulation/simulated_world.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;

Scenario fleet_scenario(int count, int concurrency, json plan, json extra = json::object()) {
  json document = {{"name", "fleet"},
                   {"concurrency", concurrency},
                   {"generatedOperations", {{"count", count}, {"idPrefix", "fulfillment:fleet-"}}},
                   {"plan", std::move(plan)}};
  document.update(extra);
  return scenario_from_json(document, "(fleet test)");
}

json script(const std::vector<std::string>& faults) {
  return {{"faults", faults}};
}

std::string verdicts_text(const ScenarioResult& result) {
  std::string text;
  for (const Verdict& verdict : result.verdicts)
    text += verdict.id + " " + to_string(verdict.status) + ": " + verdict.explanation + "\n";
  return text;
}

TEST(SimulatedFleet, TheSameSeedGivesTheSameJournalAndVerdictsByteForByte) {
  const Scenario scenario = fleet_scenario(
      30, 10,
      {{"chaos",
        {{"seed", 5u},
         {"rates", {{"fail-before-commit", 0.4}, {"delay-before-commit:1500ms", 0.2}}}}}},
      {{"startSpread", "200ms"}});
  const ScenarioResult first = simulate(scenario, ClientChoice{}, 7).result;
  const ScenarioResult second = simulate(scenario, ClientChoice{}, 7).result;
  ASSERT_GT(first.journal.size(), 30u);
  EXPECT_EQ(json(first.journal).dump(1), json(second.journal).dump(1));
  EXPECT_EQ(json(first.jobs).dump(), json(second.jobs).dump());
  EXPECT_EQ(verdicts_text(first), verdicts_text(second));
  // Not vacuous: another seed jitters the retries differently.
  const ScenarioResult other = simulate(scenario, ClientChoice{}, 8).result;
  EXPECT_NE(json(first.journal).dump(1), json(other.journal).dump(1));
}

TEST(SimulatedFleet, EachClientHasAPortOfItsOwnAndItsRequestsCarryIt) {
  const ScenarioResult result =
      simulate(fleet_scenario(5, 5, script({"fail-before-commit"})), ClientChoice{}, 1).result;
  ASSERT_EQ(result.invocations.size(), 5u);
  for (const InvocationResult& invocation : result.invocations) {
    ASSERT_TRUE(invocation.port.has_value());
    EXPECT_EQ(*invocation.port, invocation.number());
    EXPECT_LE(invocation.first_seq, invocation.last_seq) << invocation.number();
  }
  for (const provider::JournalEntry& entry : result.journal) {
    ASSERT_TRUE(entry.port.has_value()) << entry.seq;
    const InvocationResult& owner =
        result.invocations.at(static_cast<std::size_t>(*entry.port - 1));
    EXPECT_EQ(entry.operation, owner.payload.at("orderId").get<std::string>()) << entry.seq;
  }
  EXPECT_TRUE(result.met()) << verdicts_text(result);
}

TEST(SimulatedFleet, AtMostConcurrencyRunAndTheNextStartsWhenOneEnds) {
  // Each create is held 150 ms, so each client takes 150 ms; two slots for four clients.
  const ScenarioResult result =
      simulate(fleet_scenario(4, 2,
                              script({"delay-before-commit:150ms", "delay-before-commit:150ms",
                                      "delay-before-commit:150ms", "delay-before-commit:150ms"})),
               ClientChoice{}, 1)
          .result;
  std::vector<long long> started, ended;
  for (const InvocationResult& invocation : result.invocations) {
    started.push_back(invocation.started_at.count());
    ended.push_back(invocation.ended_at.count());
  }
  EXPECT_EQ(started, (std::vector<long long>{0, 0, 150, 150}));
  EXPECT_EQ(ended, (std::vector<long long>{150, 150, 300, 300}));
}

TEST(SimulatedFleet, StartsAreSpreadEvenlyOverTheWindow) {
  const ScenarioResult result =
      simulate(fleet_scenario(4, 4, script({}), {{"startSpread", "1s"}}), ClientChoice{}, 1).result;
  std::vector<long long> started;
  for (const InvocationResult& invocation : result.invocations)
    started.push_back(invocation.started_at.count());
  EXPECT_EQ(started, (std::vector<long long>{0, 250, 500, 750}));
  for (std::size_t i = 0; i < result.invocations.size(); ++i) {
    const provider::JournalEntry& first = result.journal.at(result.invocations[i].first_seq - 1);
    EXPECT_EQ(first.at.count(), started[i]) << "client " << i + 1 << " sends when it starts";
  }
}

TEST(SimulatedFleet, HeldRequestsCommitInTimeOrderAcrossClients) {
  // Client 1 (first to run) draws the 300 ms hold, client 2 the 100 ms one: client 2's job
  // is committed first, while client 1 is still waiting.
  const ScenarioResult result =
      simulate(
          fleet_scenario(2, 2, script({"delay-before-commit:300ms", "delay-before-commit:100ms"})),
          ClientChoice{}, 1)
          .result;
  ASSERT_EQ(result.jobs.size(), 2u);
  EXPECT_EQ(result.jobs[0].body.at("orderId"), "order-2");
  EXPECT_EQ(result.jobs[1].body.at("orderId"), "order-1");
  EXPECT_EQ(result.invocations[0].ended_at, Millis(300));
  EXPECT_EQ(result.invocations[1].ended_at, Millis(100));
  EXPECT_TRUE(result.met()) << verdicts_text(result);
}

TEST(SimulatedFleet, AClientStillWaitingAtItsTimeLimitIsStoppedAndItsHeldRequestStillCommits) {
  // Client 1's create is held 800 ms, within its 3 s timeout, but it may run only 500 ms.
  const ScenarioResult result =
      simulate(fleet_scenario(2, 2, script({"delay-before-commit:800ms"}),
                              {{"timeLimit", "500ms"}, {"client", {{"timeout", "3s"}}}}),
               ClientChoice{}, 1)
          .result;
  const InvocationResult& stopped = result.invocations[0];
  EXPECT_TRUE(stopped.timed_out);
  EXPECT_FALSE(stopped.killed);
  EXPECT_EQ(stopped.ended_at, Millis(500));
  EXPECT_FALSE(stopped.outcome.has_value());
  EXPECT_FALSE(result.invocations[1].timed_out);
  ASSERT_EQ(result.jobs.size(), 2u) << "the held create commits when its wait ends";
  EXPECT_EQ(result.jobs[1].body.at("orderId"), "order-1");
}

// The scheduler alone: who runs when is a function of virtual times and indices.
struct SchedulerFixture {
  provider::ProviderCore provider{{}};
  client::VirtualClock clock;
  Timeline timeline{provider, clock};
  FleetScheduler scheduler{timeline};
};

TEST(FleetScheduler, RunsTheClientThatWakesFirstTiesToTheLowerIndex) {
  SchedulerFixture fleet;
  std::vector<std::string> trace;  // only one client runs at a time: no lock needed
  fleet.scheduler.run({.count = 3, .concurrency = 3}, [&](std::size_t i, VirtualTime& time) {
    const auto note = [&](const char* what) {
      trace.push_back(std::to_string(i) + what + std::to_string(time.now().count()));
    };
    for (int step = 0; step < 2; ++step) {
      note("@");
      time.pass_until(time.now() + Millis(100 * static_cast<int>(3 - i)));
    }
    note(" ends @");
  });
  // At 200 clients 1 and 2 both wake: 1 first, as it asked first (at 0; client 2 at 100).
  EXPECT_EQ(trace, (std::vector<std::string>{"0@0", "1@0", "2@0", "2@100", "1@200", "2 ends @200",
                                             "0@300", "1 ends @400", "0 ends @600"}));
}

TEST(FleetScheduler, AClientsFailureStopsTheOthersAndIsRethrown) {
  SchedulerFixture fleet;
  int started = 0;
  int stopped = 0;
  EXPECT_THROW(fleet.scheduler.run({.count = 4, .concurrency = 4},
                                   [&](std::size_t i, VirtualTime& time) {
                                     ++started;
                                     if (i == 1) throw std::runtime_error("client 2 broke");
                                     try {
                                       time.pass_until(Millis(1000));
                                     } catch (const ClientKilled&) {
                                       ++stopped;
                                       throw;
                                     }
                                   }),
               std::runtime_error);
  // Client 1 was parked and is stopped; clients 3 and 4 never start.
  EXPECT_EQ(started, 2);
  EXPECT_EQ(stopped, 1);
}

// A kill under traffic wakes the clients of the killed instance where they wait, at the
// moment of the kill, before anyone who wakes later: client 0, asleep until 5000, is woken at
// 300 by client 1; client 2, which wakes at 400, runs after it; a client not yet started is
// left alone.
TEST(FleetScheduler, AWokenClientRunsAtTheMomentItWasWokenBeforeLaterOnes) {
  SchedulerFixture fleet;
  std::vector<std::string> trace;
  FleetTimes times{.count = 4, .starts = {Millis(0), Millis(300), Millis(0), Millis(350)}};
  fleet.scheduler.run(times, [&](std::size_t i, VirtualTime& time) {
    const auto note = [&](const std::string& what) {
      trace.push_back(std::to_string(i) + what + std::to_string(time.now().count()));
    };
    if (i == 0) {
      time.pass_until(Millis(5000));
      note(" woke @");
    } else if (i == 1) {
      fleet.scheduler.wake_now(0);
      fleet.scheduler.wake_now(3);  // due at 350, not started: nothing to wake
      note(" woke 0 @");
    } else if (i == 2) {
      time.pass_until(Millis(400));
      note(" woke @");
    } else {
      note(" started @");
    }
  });
  EXPECT_EQ(trace, (std::vector<std::string>{"1 woke 0 @300", "0 woke @300", "3 started @350",
                                             "2 woke @400"}));
}

}  // namespace
}  // namespace retryproof::scenarios
