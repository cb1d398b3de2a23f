// The control plane beyond the baseline: the clock and key retention, the control token,
// the plan a provider starts with, and installing rules and chaos.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "provider/fault_plan.hpp"
#include "provider/http_types.hpp"
#include "provider/provider_core.hpp"
#include "provider/tests/core_test_support.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

// The helpers the ProviderCore tests share (core_test_support.hpp).
using namespace provider::testing;

// ---- this file's helpers ---------------------------------------------------------------

constexpr Millis kHour{3'600'000};

Decision advance(ProviderCore& core, const std::string& duration) {
  return control(core, "POST", "/_test/clock", json{{"advance", duration}}.dump());
}

ProviderConfig config_with_ttl(std::optional<Millis> ttl) {
  ProviderConfig config;
  config.seed = 42;
  config.key_ttl = ttl;
  return config;
}

// ---- clock -----------------------------------------------------------------------------

TEST(ProviderClock, AdvanceMovesJournalTime) {
  ProviderCore core(config_with_ttl(std::nullopt));
  post(core, "key-A", kOrder42, Millis{100});

  const Decision advanced = advance(core, "25h");
  EXPECT_EQ(advanced.status, 200) << advanced.body;
  EXPECT_EQ(body_of(advanced), json({{"advancedMs", 90'000'000}}));
  post(core, "key-B", kOrder42, Millis{200});
  lookup(core, "key-B", Millis{300});

  // Advances add up.
  EXPECT_EQ(body_of(advance(core, "1500ms")), json({{"advancedMs", 90'001'500}}));
  post(core, "key-C", kOrder42, Millis{400});

  json entries = journal_entries(core);
  ASSERT_EQ(entries.size(), 4U);
  EXPECT_EQ(entries[0]["atMs"], 100);
  EXPECT_EQ(entries[1]["atMs"], 90'000'200);
  EXPECT_EQ(entries[2]["atMs"], 90'000'300);
  EXPECT_EQ(entries[3]["atMs"], 90'001'900);
}

TEST(ProviderClock, ResetLeavesTheClockWhereItIs) {
  ProviderCore core(config_with_ttl(std::nullopt));
  ASSERT_EQ(advance(core, "2m").status, 200);
  ASSERT_EQ(control(core, "POST", "/_test/reset").status, 200);
  post(core, "key-A", kOrder42, Millis{5});
  EXPECT_EQ(journal_entries(core)[0]["atMs"], 120'005);
}

TEST(ProviderClock, KeyOlderThanTheTtlIsGoneAndAYoungerOneReplays) {
  ProviderCore core(config_with_ttl(24 * kHour));
  const Decision old_created = post(core, "key-old", kOrder42);
  ASSERT_EQ(old_created.status, 201);
  json old_job = body_of(old_created);

  ASSERT_EQ(advance(core, "20h").status, 200);
  const Decision young_created = post(core, "key-young", kOrder42);
  ASSERT_EQ(young_created.status, 201);
  ASSERT_EQ(advance(core, "5h").status, 200);  // key-old is 25 h old, key-young 5 h

  // The younger key is still replayed.
  const Decision young_replay = post(core, "key-young", kOrder42);
  EXPECT_EQ(young_replay.status, 200);
  EXPECT_EQ(header_of(young_replay, "Idempotent-Replayed"), std::optional<std::string>("true"));
  EXPECT_EQ(young_replay.body, young_created.body);

  // The older one is forgotten: a lookup misses, and a repeat is a new operation.
  const Decision miss = lookup(core, "key-old");
  EXPECT_EQ(miss.status, 404);
  EXPECT_EQ(body_of(miss), json({{"error", "not_found"}}));
  const Decision repeat = post(core, "key-old", kOrder42);
  ASSERT_EQ(repeat.status, 201) << repeat.body;
  EXPECT_FALSE(header_of(repeat, "Idempotent-Replayed").has_value());
  json new_job = body_of(repeat);
  EXPECT_NE(new_job["id"], old_job["id"]);
  EXPECT_EQ(new_job["orderId"], "order-42");
  EXPECT_EQ(body_of(lookup(core, "key-old")), new_job);

  // The old job is still one of the side effects.
  EXPECT_EQ(
      jobs_of(core),
      json({{"count", 3},
            {"jobs",
             {{{"key", "key-old"}, {"id", old_job["id"]}, {"orderId", "order-42"}},
              {{"key", "key-young"}, {"id", body_of(young_created)["id"]}, {"orderId", "order-42"}},
              {{"key", "key-old"}, {"id", new_job["id"]}, {"orderId", "order-42"}}}}}));
  json entries = journal_entries(core);
  EXPECT_EQ(entries[3]["outcome"], "lookup_miss");
  EXPECT_EQ(entries[4]["outcome"], "new");
  EXPECT_EQ(entries[4]["atMs"], 90'000'000);
}

TEST(ProviderClock, ExpiredKeyWithAnotherPayloadIsNewNot422) {
  ProviderCore core(config_with_ttl(24 * kHour));
  ASSERT_EQ(post(core, "key-A", kOrder42).status, 201);
  ASSERT_EQ(advance(core, "25h").status, 200);
  const Decision changed = post(core, "key-A", R"({"orderId":"order-43"})");
  EXPECT_EQ(changed.status, 201) << changed.body;
  EXPECT_EQ(body_of(changed)["orderId"], "order-43");
}

TEST(ProviderClock, KeyJustYoungerThanTheTtlReplays) {
  ProviderCore core(config_with_ttl(24 * kHour));
  const Decision created = post(core, "key-A", kOrder42, Millis{1'000});
  ASSERT_EQ(created.status, 201);
  ASSERT_EQ(advance(core, "24h").status, 200);
  const Decision replay = post(core, "key-A", kOrder42, Millis{999});  // 24 h - 1 ms old
  EXPECT_EQ(replay.status, 200);
  EXPECT_EQ(replay.body, created.body);
  EXPECT_EQ(lookup(core, "key-A", Millis{999}).status, 200);
}

TEST(ProviderClock, TtlOfAHeldRequestCountsFromItsCommit) {
  ProviderCore core(config_with_ttl(24 * kHour));
  ASSERT_EQ(advance(core, "10h").status, 200);
  ASSERT_EQ(
      control(core, "POST", "/_test/faults", R"({"faults":["delay-before-commit:1s"]})").status,
      200);
  const Decision held = post(core, "key-A", kOrder42, Millis{0});
  ASSERT_TRUE(held.pending_commit.has_value());
  const Decision committed = core.complete(*held.pending_commit, Millis{1'000});
  ASSERT_EQ(committed.status, 201);

  ASSERT_EQ(advance(core, "24h").status, 200);
  // Committed at 10 h + 1 s: at 34 h + 999 ms the key is 24 h - 1 ms old.
  const Decision replay = post(core, "key-A", kOrder42, Millis{999});
  EXPECT_EQ(replay.status, 200) << replay.body;
  EXPECT_EQ(replay.body, committed.body);
  ASSERT_EQ(advance(core, "1h").status, 200);
  EXPECT_EQ(lookup(core, "key-A").status, 404);
}

TEST(ProviderClock, WithoutATtlKeysNeverExpire) {
  ProviderCore core(config_with_ttl(std::nullopt));
  const Decision created = post(core, "key-A", kOrder42);
  ASSERT_EQ(advance(core, "8784h").status, 200);
  const Decision replay = post(core, "key-A", kOrder42);
  EXPECT_EQ(replay.status, 200);
  EXPECT_EQ(replay.body, created.body);
}

TEST(ProviderClock, BadClockBodiesAre400AndMoveNothing) {
  ProviderCore core(config_with_ttl(std::nullopt));
  ASSERT_EQ(advance(core, "1s").status, 200);
  for (const std::string body :
       {"", "{}", R"({"advance":5})", R"({"advance":null})", R"({"advance":"abc"})",
        R"({"advance":"-1h"})", R"({"advance":"1.5h"})", R"({"advance":"3d"})",
        R"({"advance":"99999999999h"})", R"({"advance":"1h","by":"2h"})", R"({"by":"1h"})",
        "not json", R"(["1h"])", R"("1h")"}) {
    SCOPED_TRACE(body);
    const Decision refused = control(core, "POST", "/_test/clock", body);
    EXPECT_EQ(refused.status, 400) << refused.body;
    json error = body_of(refused);
    EXPECT_EQ(error["error"], "invalid_clock");
    EXPECT_TRUE(error["detail"].is_string() && !error["detail"].get<std::string>().empty());
  }
  const std::string detail =
      body_of(control(core, "POST", "/_test/clock", R"({"advance":"abc"})"))["detail"];
  EXPECT_NE(detail.find("\"abc\""), std::string::npos) << detail;

  // Only the good advance counted.
  EXPECT_EQ(body_of(advance(core, "0ms")), json({{"advancedMs", 1'000}}));
  post(core, "key-A", kOrder42, Millis{1});
  EXPECT_EQ(journal_entries(core)[0]["atMs"], 1'001);
}

TEST(ProviderClock, ClockTakesOnlyPost) {
  ProviderCore core(config_with_ttl(std::nullopt));
  const Decision wrong = control(core, "GET", "/_test/clock");
  EXPECT_EQ(wrong.status, 405);
  EXPECT_EQ(header_of(wrong, "Allow"), std::optional<std::string>("POST"));
}

// ---- control token -----------------------------------------------------------------------

class ProviderTokenTest : public ::testing::Test {
 protected:
  static ProviderConfig token_config() {
    ProviderConfig config;
    config.seed = 42;
    config.control_token = "s3cret";
    return config;
  }
  const std::string good_ = "Bearer s3cret";
  ProviderCore core_{token_config()};
};

TEST_F(ProviderTokenTest, EveryControlCallWithoutTheTokenIs401AndChangesNothing) {
  // State to protect: a job, a journal entry, a plan.
  ASSERT_EQ(post(core_, "key-A", kOrder42).status, 201);
  ASSERT_EQ(
      control(core_, "POST", "/_test/faults", R"({"faults":["commit-then-error"]})", good_).status,
      200);

  struct Call {
    std::string method;
    std::string path;
    std::string body;
  };
  const std::vector<Call> calls = {
      {"POST", "/_test/faults", R"({"faults":["commit-then-drop"]})"},
      {"GET", "/_test/jobs", ""},
      {"GET", "/_test/journal", ""},
      {"POST", "/_test/reset", R"({"seed":7})"},
      {"POST", "/_test/clock", R"({"advance":"25h"})"},
      {"GET", "/_test/nope", ""},
      {"GET", "/_test/faults", ""},
  };
  // Each refusal says which of the three it is, since the fixes differ: send one, send it as
  // a Bearer token, send the right one.
  const std::string fix =
      "send Authorization: Bearer <control token>, the token the server was started with "
      "(--control-token, --control-token-file or RETRYPROOF_CONTROL_TOKEN)";
  const std::string missing = "the control token is missing: " + fix;
  const std::string not_bearer =
      "the control token is missing: the Authorization header is not a Bearer token; " + fix;
  const std::string wrong =
      "the control token is wrong: it is not the one this server was started with; " + fix;
  const std::string invalid = "Bearer error=\"invalid_token\"";
  struct Refused {
    std::optional<std::string> authorization;
    std::string detail;
    std::string challenge;
  };
  const std::vector<Refused> refused_headers = {
      {std::nullopt, missing, "Bearer"},     {"", not_bearer, invalid},
      {"Bearer wrong", wrong, invalid},      {"s3cret", not_bearer, invalid},
      {"Bearer s3cret ", wrong, invalid},    {"Bearer  s3cret", wrong, invalid},
      {"Basic s3cret", not_bearer, invalid}, {"Bearer", not_bearer, invalid},
      {"Bearer s3cre", wrong, invalid},      {"Bearer s3cretX", wrong, invalid},
  };
  for (const auto& c : calls) {
    for (const auto& [authorization, detail, challenge] : refused_headers) {
      SCOPED_TRACE(c.method + " " + c.path + " with " + authorization.value_or("(none)"));
      const Decision refused = control(core_, c.method, c.path, c.body, authorization);
      EXPECT_EQ(refused.status, 401);
      EXPECT_EQ(refused.delivery, Delivery::respond);
      EXPECT_EQ(header_of(refused, "WWW-Authenticate"), std::optional<std::string>(challenge));
      EXPECT_EQ(body_of(refused), json({{"error", "unauthorized"}, {"detail", detail}}));
    }
  }

  // Nothing changed: the job, the journal (time included) and the plan are as they were.
  json jobs = jobs_of(core_, good_);
  EXPECT_EQ(jobs["count"], 1);
  EXPECT_EQ(jobs["jobs"][0]["key"], "key-A");
  const Decision next = post(core_, "key-B", kOrder42, Millis{7});
  EXPECT_EQ(next.status, 503);  // commit-then-error, not commit-then-drop
  json entries = journal_entries(core_, good_);
  ASSERT_EQ(entries.size(), 2U);
  EXPECT_EQ(entries[1]["atMs"], 7);
}

TEST_F(ProviderTokenTest, WithTheTokenEveryControlCallWorks) {
  const Decision plan =
      control(core_, "POST", "/_test/faults", R"({"faults":["commit-then-drop"]})", good_);
  EXPECT_EQ(plan.status, 200);
  EXPECT_EQ(body_of(plan), json::parse(R"({"faults":["commit-then-drop"]})"));
  EXPECT_EQ(post(core_, "key-A", kOrder42).delivery, Delivery::drop);

  EXPECT_EQ(jobs_of(core_, good_)["count"], 1);
  EXPECT_EQ(journal_entries(core_, good_).size(), 1U);
  const Decision clock = control(core_, "POST", "/_test/clock", R"({"advance":"1s"})", good_);
  EXPECT_EQ(clock.status, 200);
  EXPECT_EQ(body_of(clock), json({{"advancedMs", 1'000}}));

  // The header name is case-insensitive, as HTTP says.
  HttpRequest lower = make_request("GET", "/_test/jobs");
  lower.headers.emplace("authorization", good_);
  EXPECT_EQ(core_.handle(lower, Millis{0}).status, 200);

  const Decision reset = control(core_, "POST", "/_test/reset", R"({"seed":7})", good_);
  EXPECT_EQ(reset.status, 200);
  EXPECT_EQ(body_of(reset), json({{"reset", true}, {"seed", 7}}));
  EXPECT_EQ(jobs_of(core_, good_)["count"], 0);
  EXPECT_EQ(control(core_, "GET", "/_test/nope", {}, good_).status, 404);
}

TEST_F(ProviderTokenTest, DataPlaneNeedsNoToken) {
  const Decision created = post(core_, "key-A", kOrder42);
  EXPECT_EQ(created.status, 201);
  EXPECT_EQ(lookup(core_, "key-A").status, 200);
  EXPECT_EQ(post(core_, "key-A", kOrder42).status, 200);
  // And a token sent along does no harm.
  HttpRequest request = make_request("POST", "/jobs", kOrder42);
  request.headers.emplace("Idempotency-Key", "key-B");
  request.headers.emplace("Authorization", "Bearer wrong");
  EXPECT_EQ(core_.handle(request, Millis{0}).status, 201);
}

TEST(ProviderNoToken, ControlCallsNeedNoAuthorizationWhenNoTokenIsSet) {
  ProviderCore core(config_with_ttl(std::nullopt));
  EXPECT_EQ(control(core, "GET", "/_test/jobs").status, 200);
  EXPECT_EQ(control(core, "GET", "/_test/jobs", {}, "Bearer anything").status, 200);
}

// ---- plans -----------------------------------------------------------------------------

TEST(ProviderPlan, InitialPlanIsInForceAtStartAndAResetEmptiesIt) {
  ProviderConfig config;
  config.seed = 42;
  config.initial_plan = FaultPlan::from_json(json::parse(
      R"({"faults":["commit-then-error",{"fault":"commit-then-drop","key":"key-R"}]})"));
  ProviderCore core(config);

  EXPECT_EQ(post(core, "key-A", kOrder42).status, 503);               // the script's entry
  EXPECT_EQ(post(core, "key-R", kOrder42).delivery, Delivery::drop);  // the rule
  EXPECT_EQ(jobs_of(core)["count"], 2);

  ASSERT_EQ(control(core, "POST", "/_test/reset").status, 200);
  EXPECT_EQ(post(core, "key-A", kOrder42).status, 201);
  const Decision rule_key = post(core, "key-R", kOrder42);
  EXPECT_EQ(rule_key.delivery, Delivery::respond);
  EXPECT_EQ(rule_key.status, 201);
}

TEST(ProviderPlan, InitialChaosIsInForceAtStart) {
  ProviderConfig config;
  config.initial_plan =
      FaultPlan::from_json(json::parse(R"({"chaos":{"seed":1,"rates":{"fail-before-commit":1}}})"));
  ProviderCore core(config);
  EXPECT_EQ(post(core, "key-A", kOrder42).status, 503);
  EXPECT_EQ(post(core, "key-A", kOrder42).status, 503);
  EXPECT_EQ(jobs_of(core)["count"], 0);
  ASSERT_EQ(control(core, "POST", "/_test/reset").status, 200);
  EXPECT_EQ(post(core, "key-A", kOrder42).status, 201);
}

TEST(ProviderPlan, InstallChaosOnly) {
  ProviderCore core(config_with_ttl(std::nullopt));
  const Decision installed = control(core, "POST", "/_test/faults",
                                     R"({"chaos":{"seed":3,"rates":{"commit-then-drop":1}}})");
  EXPECT_EQ(installed.status, 200) << installed.body;
  EXPECT_EQ(body_of(installed),
            json::parse(R"({"faults":[],"chaos":{"seed":3,"rates":{"commit-then-drop":1.0}}})"));
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(post(core, "key-" + std::to_string(i), kOrder42).delivery, Delivery::drop);
  EXPECT_EQ(jobs_of(core)["count"], 5);
}

TEST(ProviderPlan, InstallRulesAndEcho) {
  ProviderCore core(config_with_ttl(std::nullopt));
  const Decision installed = control(core, "POST", "/_test/faults", R"({"faults":[
      "commit-then-error",
      {"fault":"commit-then-500","key":"key-A","times":2},
      {"fault":"rate-limited:4","match":{"orderId":"order-9"}},
      {"fault":"lookup-unavailable","key":"key-A"}]})");
  EXPECT_EQ(installed.status, 200) << installed.body;
  EXPECT_EQ(body_of(installed), json::parse(R"({"faults":[
      {"fault":"commit-then-500","key":"key-A","times":2},
      {"fault":"rate-limited:4","match":{"orderId":"order-9"},"times":1},
      {"fault":"lookup-unavailable","key":"key-A","times":1},
      "commit-then-error"]})"));

  const Decision limited = post(core, "key-Z", R"({"orderId":"order-9"})");
  EXPECT_EQ(limited.status, 429);
  EXPECT_EQ(header_of(limited, "Retry-After"), std::optional<std::string>("4"));
  EXPECT_EQ(post(core, "key-A", kOrder42).status, 500);
  EXPECT_EQ(post(core, "key-B", kOrder42).status, 503);  // the script
  EXPECT_EQ(lookup(core, "key-B").status, 200);          // the lookup rule is for key-A
  EXPECT_EQ(lookup(core, "key-A").status, 503);
  EXPECT_EQ(lookup(core, "key-A").status, 200);
  EXPECT_EQ(post(core, "key-C", kOrder42).status, 201);
}

TEST(ProviderPlan, BadRuleIs400NamingTheEntryAndKeepsThePlan) {
  ProviderCore core(config_with_ttl(std::nullopt));
  ASSERT_EQ(control(core, "POST", "/_test/faults", R"({"faults":["commit-then-error"]})").status,
            200);
  const Decision refused = control(core, "POST", "/_test/faults",
                                   R"({"faults":["none",{"fault":"none","key":"k","times":0}]})");
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(body_of(refused),
            json({{"error", "invalid_fault_plan"},
                  {"detail", "faults[1].times: expected a whole number from 1 to 1000000"}}));
  const Decision bad_rate =
      control(core, "POST", "/_test/faults", R"({"chaos":{"rates":{"commit-then-drop":1.5}}})");
  EXPECT_EQ(bad_rate.status, 400);
  EXPECT_EQ(body_of(bad_rate)["detail"],
            "chaos.rates.commit-then-drop: expected a rate between 0 and 1");
  EXPECT_EQ(post(core, "key-A", kOrder42).status, 503);
}

TEST(ProviderPlan, ChaosThroughTheCoreDependsOnKeysNotArrivalOrder) {
  const std::string chaos =
      R"({"chaos":{"seed":11,"rates":{"fail-before-commit":0.3,"commit-then-drop":0.3}}})";
  const auto run = [&](bool reversed) {
    ProviderCore core(config_with_ttl(std::nullopt));
    EXPECT_EQ(control(core, "POST", "/_test/faults", chaos).status, 200);
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < 60; ++i) {
        const int k = reversed ? 59 - i : i;
        post(core, "key-" + std::to_string(k), R"({"orderId":")" + std::to_string(k) + "\"}");
      }
    }
    std::map<std::string, std::vector<std::string>> faults;
    for (const auto& entry : journal_entries(core)) {
      faults[entry["key"]].push_back(entry["fault"].is_null() ? "replay"
                                                              : entry["fault"].get<std::string>());
    }
    return faults;
  };
  const auto forward = run(false);
  const auto backward = run(true);
  ASSERT_EQ(forward.size(), 60U);
  EXPECT_EQ(forward, backward);
  std::map<std::string, int> seen;
  for (const auto& [key, faults] : forward) {
    for (const auto& fault : faults)
      ++seen[fault];
  }
  EXPECT_GT(seen["fail-before-commit"], 0);
  EXPECT_GT(seen["commit-then-drop"], 0);
  EXPECT_GT(seen["none"], 0);
  EXPECT_GT(seen["replay"], 0);
}

}  // namespace
}  // namespace retryproof::provider

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::body_of;
using testing::call;
using testing::post;

// A journal read in pages: the entries after a seq, at most `limit`, and where to go on.
TEST(JournalPages, AfterAndLimitWalkTheJournalInOrder) {
  ProviderCore core{ProviderConfig{}};
  for (int i = 0; i < 5; ++i)
    post(core, "key-" + std::to_string(i), "{}");
  HttpRequest page = testing::make_request("GET", "/_test/journal");
  page.query = "limit=2";
  const json first = body_of(core.handle(page, Millis{0}));
  EXPECT_EQ(first["count"], 5);
  ASSERT_EQ(first["entries"].size(), 2u);
  EXPECT_EQ(first["entries"][0]["seq"], 1);
  EXPECT_EQ(first["next"], 2);
  HttpRequest next = testing::make_request("GET", "/_test/journal");
  next.query = "after=2&limit=2";
  EXPECT_EQ(body_of(core.handle(next, Millis{0}))["entries"][0]["seq"], 3);
  next.query = "after=4&limit=2";
  const json last = body_of(core.handle(next, Millis{0}));
  ASSERT_EQ(last["entries"].size(), 1u);
  EXPECT_FALSE(last.contains("next"));
  // The whole journal, streamed, is the same entries.
  EXPECT_EQ(body_of(call(core, "GET", "/_test/journal"))["entries"].size(), 5u);
}

TEST(JournalPages, ABadQueryIs400NamingTheParameter) {
  ProviderCore core{ProviderConfig{}};
  for (const char* query : {"limit=0", "limit=abc", "after=-1", "limit=100001", "page=2"}) {
    HttpRequest request = testing::make_request("GET", "/_test/journal");
    request.query = query;
    const Decision refused = core.handle(request, Millis{0});
    EXPECT_EQ(refused.status, 400) << query;
    EXPECT_EQ(body_of(refused)["error"], "invalid_journal_query") << query;
  }
}

}  // namespace
}  // namespace retryproof::provider
