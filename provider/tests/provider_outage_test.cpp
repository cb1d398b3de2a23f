// Outages through ProviderCore::handle() and complete(): a window of the provider's clock in
// which creates, replays and lookups fail (or are slowed), what is stored, what the journal
// says, and the control plane that plans and starts them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "provider/provider_core.hpp"
#include "provider/tests/core_test_support.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using namespace provider::testing;
using namespace std::chrono_literals;

// A core whose plan has `outages` (and `faults`, when given).
ProviderConfig with_outages(const std::string& outages, std::uint64_t seed = 0,
                            const json& faults = nullptr) {
  ProviderConfig config = config_with(seed);
  json plan = {{"outages", json::parse(outages)}};
  if (!faults.is_null()) plan["faults"] = faults;
  config.initial_plan = FaultPlan::from_json(plan);
  return config;
}

const std::string k503From1sFor5s =
    R"([{"from": "1s", "for": "5s", "fault": "fail-before-commit"}])";

TEST(Outage, FailsARequestAtItsFirstMillisecondAndServesOneAtItsEnd) {
  ProviderCore core(with_outages(k503From1sFor5s));
  EXPECT_EQ(post(core, "before", kOrder42, 999ms).status, 201);
  const Decision first = post(core, "inside", kOrder42, 1000ms);
  EXPECT_EQ(first.status, 503);
  EXPECT_EQ(body_of(first)["error"], "temporarily_unavailable");
  EXPECT_EQ(post(core, "inside", kOrder42, 5999ms).status, 503);
  // Nothing was stored and the key stayed unknown: after the window it is a new operation.
  EXPECT_EQ(post(core, "inside", kOrder42, 6000ms).status, 201);
  EXPECT_EQ(stored_count(core), 2u);

  const json entries = journal_entries(core);
  ASSERT_EQ(entries.size(), 4u);
  for (const int i : {1, 2}) {
    SCOPED_TRACE(i);
    EXPECT_EQ(entries[i]["outcome"], "outage");
    EXPECT_EQ(entries[i]["fault"], "fail-before-commit");
    EXPECT_EQ(entries[i]["status"], 503);
    EXPECT_EQ(entries[i]["key"], "inside");
    EXPECT_TRUE(entries[i]["jobId"].is_null());
    EXPECT_FALSE(entries[i]["fingerprint"].is_null());  // the request was read, then failed
  }
  EXPECT_EQ(entries[3]["outcome"], "new");
  EXPECT_EQ(journal_from_json(journal_of(core)), core.journal());  // "outage" reads back
}

TEST(Outage, AReplayFailsInsideTheWindowAndReplaysAfterIt) {
  ProviderCore core(with_outages(k503From1sFor5s));
  const std::string id = body_of(post(core, "k", kOrder42, 0ms))["id"];
  const Decision down = post(core, "k", kOrder42, 2s);
  EXPECT_EQ(down.status, 503);
  EXPECT_FALSE(header_of(down, "Idempotent-Replayed"));
  const Decision back = post(core, "k", kOrder42, 6s);
  EXPECT_EQ(back.status, 200);
  EXPECT_EQ(body_of(back)["id"], id);
  EXPECT_EQ(stored_count(core), 1u);
  EXPECT_EQ(journal_entries(core)[1]["outcome"], "outage");
  EXPECT_TRUE(journal_entries(core)[1]["jobId"].is_null());
}

TEST(Outage, LookupsFailTooUnlessTheEntrySaysNot) {
  ProviderCore down(with_outages(k503From1sFor5s));
  post(down, "k", kOrder42, 0ms);
  const Decision failed = lookup(down, "k", 2s);
  EXPECT_EQ(failed.status, 503);
  EXPECT_EQ(body_of(failed)["error"], "temporarily_unavailable");
  EXPECT_EQ(journal_entries(down)[1]["kind"], "lookup");
  EXPECT_EQ(journal_entries(down)[1]["outcome"], "outage");
  EXPECT_EQ(lookup(down, "k", 6s).status, 200);

  ProviderCore spared(with_outages(
      R"([{"from": "1s", "for": "5s", "fault": "fail-before-commit", "lookups": false}])"));
  post(spared, "k", kOrder42, 0ms);
  EXPECT_EQ(lookup(spared, "k", 2s).status, 200);
  EXPECT_EQ(post(spared, "k", kOrder42, 2s).status, 503);  // creates still fail
}

TEST(Outage, EachPreCommitFaultAnswersCreatesAndLookupsAlike) {
  struct Case {
    std::string fault;
    Delivery delivery;
    int status;  // of a response that is sent
  };
  for (const Case& c : {Case{"rate-limited:3", Delivery::respond, 429},
                        Case{"drop-before-commit", Delivery::drop, 0},
                        Case{"reset-before-commit", Delivery::reset, 0}}) {
    SCOPED_TRACE(c.fault);
    ProviderCore core(
        with_outages(R"([{"from": "0ms", "for": "1s", "fault": ")" + c.fault + R"("}])"));
    for (const Decision& answer : {post(core, "k", kOrder42, 10ms), lookup(core, "k", 20ms)}) {
      EXPECT_EQ(answer.delivery, c.delivery);
      if (c.delivery == Delivery::respond) {
        EXPECT_EQ(answer.status, c.status);
        EXPECT_EQ(header_of(answer, "Retry-After"), "3");
      }
    }
    EXPECT_EQ(stored_count(core), 0u);
    for (const json& entry : journal_entries(core)) {
      EXPECT_EQ(entry["outcome"], "outage");
      EXPECT_EQ(entry["fault"], c.fault);
      EXPECT_EQ(entry["delivered"], c.delivery == Delivery::respond);
    }
    EXPECT_EQ(journal_from_json(journal_of(core)), core.journal());
  }
}

TEST(Outage, WinsOverThePlanInItsWindowAndLeavesThePlanUnconsumed) {
  ProviderCore core(with_outages(k503From1sFor5s, 0, {"commit-then-drop"}));
  EXPECT_EQ(post(core, "a", kOrder42, 2s).status, 503);
  // The script's entry waited for the first new operation after the window.
  EXPECT_EQ(post(core, "a", kOrder42, 7s).delivery, Delivery::drop);
  EXPECT_EQ(journal_entries(core)[1]["fault"], "commit-then-drop");
}

TEST(Outage, ABrownoutFailsTheSameRequestsForTheSameSeed) {
  const std::string half =
      R"([{"from": "0ms", "for": "1m", "fault": "fail-before-commit", "rate": 0.5}])";
  const auto failed = [&](std::uint64_t seed) {
    ProviderCore core(with_outages(half, seed));
    std::set<std::string> keys;
    for (int i = 0; i < 200; ++i) {
      const std::string key = "order-" + std::to_string(i);
      if (post(core, key, kOrder42, 1s).status == 503) keys.insert(key);
    }
    return keys;
  };
  const std::set<std::string> seed7 = failed(7);
  EXPECT_GT(seed7.size(), 70u);  // 200 draws at 0.5: 100 expected
  EXPECT_LT(seed7.size(), 130u);
  EXPECT_EQ(failed(7), seed7);
  EXPECT_NE(failed(8), seed7);  // the provider's seed (--seed, a reset's) is the brownout's
}

TEST(Outage, ASlowdownHoldsANewOperationThenCommitsIt) {
  ProviderCore core(with_outages(R"([{"from": "1s", "for": "5s", "fault": "slowdown:3s"}])"));
  const Decision held = post(core, "k", kOrder42, 1s);
  ASSERT_TRUE(held.pending_commit);
  EXPECT_EQ(held.delay, 3s);
  EXPECT_EQ(stored_count(core), 0u);
  // A retry meanwhile finds it in flight, and is slowed as well.
  const Decision retry = post(core, "k", kOrder42, 2s);
  EXPECT_EQ(retry.status, 409);
  EXPECT_EQ(retry.delay, 3s);

  const Decision committed = core.complete(*held.pending_commit, 4s);
  EXPECT_EQ(committed.status, 201);
  EXPECT_EQ(stored_count(core), 1u);
  const json entry = journal_entries(core)[0];
  EXPECT_EQ(entry["outcome"], "new");
  EXPECT_EQ(entry["fault"], "delay-before-commit:3s");
  EXPECT_EQ(entry["answeredAtMs"], 4000);

  // In the window a replay and a lookup are answered as usual, 3 s late; after it, at once.
  const Decision replayed = post(core, "k", kOrder42, 5s);
  EXPECT_EQ(replayed.status, 200);
  EXPECT_EQ(replayed.delay, 3s);
  const Decision found = lookup(core, "k", 5s);
  EXPECT_EQ(found.status, 200);
  EXPECT_EQ(found.delay, 3s);
  EXPECT_EQ(journal_entries(core)[3]["answeredAtMs"], 8000);
  EXPECT_EQ(post(core, "k", kOrder42, 6s).delay, 0ms);
}

TEST(Outage, ASlowdownLeavesThePlanForAfterIt) {
  ProviderCore core(with_outages(R"([{"from": "0ms", "for": "1s", "fault": "slowdown:2s"}])", 0,
                                 {"fail-before-commit"}));
  EXPECT_TRUE(post(core, "a", kOrder42, 0ms).pending_commit);
  EXPECT_EQ(post(core, "b", kOrder42, 1s).status, 503);
}

// ---- the control plane -------------------------------------------------------------------

TEST(OutageControl, APlanWithOutagesIsEchoedAndABadOneIsA400NamingTheField) {
  ProviderCore core(config_with(0));
  const Decision installed = call(core, "POST", "/_test/faults",
                                  R"({"outages": [{"from": "1s", "for": "5s",
                                      "fault": "rate-limited:2", "rate": 0.5}]})");
  ASSERT_EQ(installed.status, 200) << installed.body;
  const json echoed = json::parse(
      R"({"faults": [], "outages": [{"from": "1s", "for": "5s", "fault": "rate-limited:2",
          "rate": 0.5, "lookups": true}]})");
  EXPECT_EQ(body_of(installed), echoed);
  json shown = body_of(get(core, "/_test/faults"));
  ASSERT_EQ(shown["fired"].size(), 1u) << "and how often the outage fired so far";
  EXPECT_EQ(shown["fired"][0]["fired"], 0);
  shown.erase("fired");
  EXPECT_EQ(shown, echoed);

  const Decision refused = call(core, "POST", "/_test/faults",
                                R"({"outages": [{"from": "1s", "for": "0s",
                                    "fault": "fail-before-commit"}]})");
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(body_of(refused)["error"], "invalid_fault_plan");
  EXPECT_NE(body_of(refused).dump().find("outages[0].for: an outage lasts longer than 0ms"),
            std::string::npos)
      << refused.body;
  EXPECT_EQ(body_of(get(core, "/_test/faults")).value("outages", json()), echoed["outages"])
      << "the plan in force is kept";
}

TEST(OutageControl, AnOutageStartedNowJoinsThePlanInForce) {
  ProviderCore core(config_with(0));
  install(core, {"commit-then-drop"});
  core.advance_clock(10s);
  const Decision started = call(core, "POST", "/_test/faults",
                                R"({"outage": {"for": "5s", "fault": "fail-before-commit"}})");
  ASSERT_EQ(started.status, 200) << started.body;
  EXPECT_EQ(body_of(started), json::parse(R"({"faults": ["commit-then-drop"], "outages": [
      {"from": "10s", "for": "5s", "fault": "fail-before-commit", "rate": 1.0,
       "lookups": true}]})"));
  // handle() adds the clock's offset: these arrive at 11 s, then at 15 s.
  EXPECT_EQ(post(core, "k", kOrder42, 1s).status, 503);
  EXPECT_EQ(post(core, "k", kOrder42, 5s).delivery, Delivery::drop);

  const Decision alone = call(core, "POST", "/_test/faults",
                              R"({"outage": {"for": "5s", "fault": "fail-before-commit"},
                                  "faults": []})");
  EXPECT_EQ(alone.status, 400);
  EXPECT_NE(alone.body.find("goes alone"), std::string::npos) << alone.body;
  const Decision bad = call(core, "POST", "/_test/faults", R"({"outage": {"fault": "none"}})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find(R"(outage: an outage needs a \"for\")"), std::string::npos) << bad.body;
}

TEST(OutageControl, AResetEmptiesTheOutages) {
  ProviderCore core(with_outages(k503From1sFor5s));
  ASSERT_EQ(call(core, "POST", "/_test/reset").status, 200);
  EXPECT_EQ(post(core, "k", kOrder42, 2s).status, 201);
}

}  // namespace
}  // namespace retryproof::provider
