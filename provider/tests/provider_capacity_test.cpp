// A provider with a capacity (provider/capacity.hpp): requests served one after another at
// its rate, a queue whose wait grows with its depth, shedding past the queue or the deadline,
// a drop of the rate for a window, and what the journal and the plan's counts say of it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "provider/capacity.hpp"
#include "provider/provider_core.hpp"
#include "provider/tests/core_test_support.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using namespace provider::testing;
using namespace std::chrono_literals;

Capacity capacity_of(const std::string& text) {
  return parse_capacity(json::parse(text));
}

ProviderConfig with_capacity(const std::string& capacity, const json& faults = nullptr) {
  ProviderConfig config = config_with(0);
  json plan = {{"capacity", json::parse(capacity)}};
  if (!faults.is_null()) plan["faults"] = faults;
  config.initial_plan = FaultPlan::from_json(plan);
  return config;
}

std::string order(int n) {
  return R"({"orderId":"order-)" + std::to_string(n) + R"(","amount":1})";
}

TEST(CapacityQueue, EachRequestWaitsForThoseAheadOfItAtTheRate) {
  CapacityQueue queue(capacity_of(R"({"rate": "10/s", "queue": 10, "deadline": "5s"})"));
  const Queued first = queue.admit(0ms);
  EXPECT_FALSE(first.shed);
  EXPECT_EQ(first.depth, 0u);
  EXPECT_EQ(first.wait, 0ms);
  EXPECT_EQ(first.served, 100ms);  // 1/10 of a second of service
  const Queued second = queue.admit(0ms);
  EXPECT_EQ(second.depth, 1u);
  EXPECT_EQ(second.wait, 100ms);
  EXPECT_EQ(second.served, 200ms);
  // Once the first has left, a third finds only the second ahead of it.
  const Queued third = queue.admit(150ms);
  EXPECT_EQ(third.depth, 1u);
  EXPECT_EQ(third.wait, 50ms);
  EXPECT_EQ(third.served, 150ms);
  // An idle server serves at once.
  EXPECT_EQ(queue.admit(10s).wait, 0ms);
}

TEST(CapacityQueue, ShedsARequestThatWouldFindTheQueueFull) {
  CapacityQueue queue(capacity_of(R"({"rate": "1/s", "queue": 2, "deadline": "1h"})"));
  for (int i = 0; i < 3; ++i)
    EXPECT_FALSE(queue.admit(0ms).shed) << i;  // one served, two waiting
  const Queued fourth = queue.admit(0ms);
  EXPECT_TRUE(fourth.shed);
  EXPECT_EQ(fourth.depth, 3u);
  EXPECT_FALSE(queue.admit(1000ms).shed);  // the first has left: room for one more
}

TEST(CapacityQueue, ShedsARequestThatWouldWaitPastTheDeadline) {
  CapacityQueue queue(capacity_of(R"({"rate": "2/s", "queue": 100, "deadline": "1s"})"));
  for (int i = 0; i < 3; ++i)
    EXPECT_FALSE(queue.admit(0ms).shed) << i;  // waits of 0, 500 and 1000 ms
  EXPECT_TRUE(queue.admit(0ms).shed);          // would wait 1500 ms
}

TEST(CapacityQueue, ADropServesAtItsRateInItsWindow) {
  CapacityQueue queue(capacity_of(
      R"({"rate": "100/s", "queue": 100, "deadline": "10s",
          "drops": [{"from": "1s", "for": "2s", "rate": "4/s"}]})"));
  EXPECT_EQ(queue.admit(0ms).served, 10ms);
  EXPECT_EQ(queue.admit(1000ms).served, 250ms);
  EXPECT_EQ(queue.admit(3000ms).served, 10ms);
}

TEST(CapacityPlan, RefusesWhatItCannotReadAndSaysWhere) {
  EXPECT_EQ(fault_plan_error({{"capacity", {{"rate", "10/s"}, {"queue", 1}}}}),
            "capacity.deadline: missing; a duration such as \"2s\"");
  EXPECT_EQ(
      fault_plan_error({{"capacity", {{"rate", "ten"}, {"queue", 1}, {"deadline", "1s"}}}}),
      "capacity.rate: \"ten\" is not requests a second, as \"100/s\", \"6000/m\" or a number");
  EXPECT_EQ(fault_plan_error({{"capacity", {{"rate", 0}, {"queue", 1}, {"deadline", "1s"}}}}),
            "capacity.rate: a rate is more than 0");
  EXPECT_EQ(fault_plan_error({{"capacity", {{"rate", "5/s"}, {"queu", 1}, {"deadline", "1s"}}}}),
            "capacity: unknown field \"queu\" (did you mean \"queue\"?)");
  EXPECT_EQ(fault_plan_error({{"capacity",
                               {{"rate", "5/s"},
                                {"queue", 1},
                                {"deadline", "1s"},
                                {"drops", {{{"from", "1s"}, {"for", "0s"}, {"rate", 1}}}}}}}),
            "capacity.drops[0].for: a drop lasts longer than 0ms");
  // Read back as it is shown, and posted again.
  const json plan = {{"capacity", {{"rate", "6000/m"}, {"queue", 3}, {"deadline", "2s"}}}};
  EXPECT_EQ(FaultPlan::from_json(plan).to_json()["capacity"],
            (json{{"rate", 100.0}, {"queue", 3}, {"deadline", "2s"}}));
}

TEST(ProviderCapacity, AQueuedCreateCommitsWhenItsTurnComesAndItsRetryMeetsItInFlight) {
  ProviderCore core(with_capacity(R"({"rate": "10/s", "queue": 10, "deadline": "5s"})"));
  const Decision first = post(core, "a", order(1), 0ms);
  EXPECT_EQ(first.delay, 100ms);  // its own service
  ASSERT_TRUE(first.pending_commit.has_value());
  EXPECT_EQ(stored_count(core), 0u);  // nothing is made before its turn
  // Its retry queues behind it, and finds it still on its way.
  const Decision retry = post(core, "a", order(1), 10ms);
  EXPECT_EQ(retry.status, 409);
  EXPECT_EQ(retry.delay, 190ms);  // waits 90 ms, then its own 100
  EXPECT_EQ(core.complete(*first.pending_commit, 100ms).status, 201);
  EXPECT_EQ(stored_count(core), 1u);
  // A lookup takes its turn too.
  EXPECT_EQ(lookup(core, "a", 100ms).delay, 200ms);

  const json entries = journal_entries(core);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0]["queue"], (json{{"depth", 0}, {"waitMs", 0}}));
  EXPECT_EQ(entries[0]["fault"], "none");  // the queue is the capacity's, not a fault's
  EXPECT_EQ(entries[1]["queue"], (json{{"depth", 1}, {"waitMs", 90}}));
  EXPECT_EQ(entries[2]["queue"], (json{{"depth", 1}, {"waitMs", 100}}));
  EXPECT_EQ(journal_from_json(journal_of(core)), core.journal());  // "queue" reads back
}

// A lookup queued behind its key's create is served after that create commits, as a server
// that works through its queue in order serves it: the job, never a 404 read as it arrived.
// One that will be served before the create commits misses, as before.
TEST(ProviderCapacity, ALookupQueuedBehindItsCreateFindsTheJobItsTurnComesAfter) {
  ProviderCore core(with_capacity(R"({"rate": "10/s", "queue": 10, "deadline": "5s"})"));
  const Decision create = post(core, "a", order(1), 0ms);  // commits at 100 ms
  ASSERT_TRUE(create.pending_commit.has_value());
  const Decision behind = lookup(core, "a", 10ms);  // served at 200 ms
  EXPECT_EQ(behind.status, 200);
  EXPECT_EQ(behind.delay, 190ms);
  EXPECT_EQ(body_of(behind)["orderId"], "order-1");
  const json entry = journal_entries(core)[1];
  EXPECT_EQ(entry["outcome"], "lookup_hit");
  EXPECT_EQ(entry["jobId"], body_of(behind)["id"]);
  EXPECT_EQ(core.complete(*create.pending_commit, 100ms).status, 201);
  EXPECT_EQ(body_of(lookup(core, "a", 100ms))["id"], body_of(behind)["id"]);  // the same job

  // A create held by a fault past the lookup's turn: not there yet when it is served.
  ProviderCore held(with_capacity(R"({"rate": "10/s", "queue": 10, "deadline": "5s"})",
                                  json::array({"delay-before-commit:5s"})));
  post(held, "a", order(1), 0ms);
  EXPECT_EQ(lookup(held, "a", 10ms).status, 404);
}

TEST(ProviderCapacity, ShedsPastItsQueueWithAnOverloadedAnswerAtOnce) {
  ProviderCore core(with_capacity(R"({"rate": "1/s", "queue": 1, "deadline": "1h"})"));
  post(core, "a", order(1), 0ms);
  post(core, "b", order(2), 0ms);
  const Decision shed = post(core, "c", order(3), 0ms);
  EXPECT_EQ(shed.status, 503);
  EXPECT_EQ(shed.delay, 0ms);
  EXPECT_EQ(body_of(shed)["error"], "overloaded");
  const json entry = journal_entries(core)[2];
  EXPECT_EQ(entry["outcome"], "shed");
  EXPECT_EQ(entry["planned"], "capacity");
  EXPECT_EQ(entry["code"], "overloaded");
  EXPECT_EQ(entry["queue"]["depth"], 2);
  // The plan says it fired: on the request that waited and on the one shed.
  const json fired = body_of(control(core, "GET", "/_test/faults"))["fired"];
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0]["source"], "capacity");
  EXPECT_EQ(fired[0]["fired"], 2);
  EXPECT_EQ(fired[0]["compared"], 3);
}

TEST(ProviderCapacity, APlannedFaultStillFiresAndItsAnswerWaitsItsTurn) {
  ProviderCore core(
      with_capacity(R"({"rate": "10/s", "queue": 10, "deadline": "5s"})", {"commit-then-drop"}));
  const Decision dropped = post(core, "a", order(1), 0ms);
  EXPECT_EQ(dropped.delivery, Delivery::drop);
  EXPECT_EQ(dropped.delay, 100ms);
  EXPECT_EQ(stored_count(core), 1u);  // committed, as the fault says
  EXPECT_EQ(journal_entries(core)[0]["fault"], "commit-then-drop");
}

}  // namespace
}  // namespace retryproof::provider
