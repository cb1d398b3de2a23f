// retryproof::testing::Sandbox as a GoogleTest suite uses it: "my code" is the reference
// client over HttpTransport, or a few lines of cpp-httplib, run against sandbox.url().
#include "embed/cpp/sandbox.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include "client_under_test/http_transport.hpp"
#include "client_under_test/retrying_client.hpp"

namespace {

using nlohmann::json;
using retryproof::scenarios::VerdictStatus;
using retryproof::testing::Sandbox;
using namespace std::chrono_literals;

const json kOrder42 = {{"orderId", "order-42"}, {"amount", 120}};

// My code, done right: the reference client, one key per order, a lookup after a drop.
retryproof::client::ClientResult create_order_safely(const std::string& url, const json& order) {
  retryproof::client::HttpTransport transport(url);
  retryproof::client::SystemClock clock;
  retryproof::client::SeededRandom random(7);
  retryproof::client::InMemoryIntentLedger ledger;
  retryproof::client::RetryingClient client(
      {.attempts = 3, .base_delay = 100ms, .max_delay = 400ms, .timeout = 2000ms},
      {transport, clock, clock, random, ledger});
  return client.run({"fulfillment:" + order["orderId"].get<std::string>(), order});
}

// My code, done naively: POST until a 2xx, at once, `attempts` times at most; with
// `fresh_key_each_time`, under a new key on every attempt. The status of each attempt (0
// for no response).
std::vector<int> create_order_naively(const std::string& url, const json& order, int attempts,
                                      bool fresh_key_each_time) {
  std::vector<int> statuses;
  httplib::Client client(url);
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    const std::string key = "order-42" + (fresh_key_each_time ? "#" + std::to_string(attempt) : "");
    const auto response =
        client.Post("/jobs", {{"Idempotency-Key", key}}, order.dump(), "application/json");
    statuses.push_back(response ? response->status : 0);
    if (response && response->status / 100 == 2) break;
  }
  return statuses;
}

TEST(Sandbox, TheReferenceClientKeepsOneJobThroughADroppedCommit) {
  Sandbox sandbox;
  sandbox.faults({"commit-then-drop"});

  const auto result = create_order_safely(sandbox.url(), kOrder42);

  EXPECT_EQ(result.outcome, retryproof::client::ClientOutcome::succeeded) << result.reason;
  const auto verdicts = sandbox.verdicts();
  EXPECT_TRUE(verdicts.ok()) << verdicts.report();
  EXPECT_EQ(verdicts.status("no-duplicate-effect"), VerdictStatus::pass);
  EXPECT_EQ(verdicts.status("fail-closed"), VerdictStatus::pass) << verdicts.report();
  ASSERT_EQ(sandbox.jobs().size(), 1u);
  const auto journal = sandbox.journal();
  ASSERT_EQ(journal.size(), 2u);
  EXPECT_EQ(journal[0].delivery, retryproof::provider::Delivery::drop);
  EXPECT_EQ(journal[0].operation, "order-42");
  EXPECT_EQ(journal[1].outcome, retryproof::provider::Outcome::lookup_hit);
}

TEST(Sandbox, CodeThatMintsAKeyPerAttemptIsCaughtWithTheRequestsThatProveIt) {
  Sandbox sandbox;
  sandbox.faults({"commit-then-drop"});

  EXPECT_EQ(create_order_naively(sandbox.url(), kOrder42, 3, true), (std::vector<int>{0, 201}));

  const auto verdicts = sandbox.verdicts();
  EXPECT_FALSE(verdicts.ok());
  EXPECT_EQ(sandbox.jobs().size(), 2u);
  EXPECT_EQ(verdicts.status("no-duplicate-effect"), VerdictStatus::fail);
  EXPECT_EQ(verdicts.status("key-stability"), VerdictStatus::fail);
  EXPECT_EQ(verdicts.status("fail-closed"), VerdictStatus::pass)
      << "the re-send named another key: key-stability's, not fail-closed's";
  const std::string report = verdicts.report();
  EXPECT_NE(report.find("operation orderId=order-42 has 2 jobs"), std::string::npos) << report;
  EXPECT_NE(report.find("FAIL harm"), std::string::npos) << report;
  EXPECT_THROW((void)verdicts.status("truthful-outcome"), std::invalid_argument)
      << "an outcome line is not traffic";
}

TEST(Sandbox, TheDeclaredPolicyIsWhatTheVerdictsJudgeBy) {
  Sandbox sandbox;
  sandbox.faults({"fail-before-commit", "fail-before-commit"});

  // Three POSTs with one key, one right after another: two 503s, then the job.
  EXPECT_EQ(create_order_naively(sandbox.url(), kOrder42, 3, false),
            (std::vector<int>{503, 503, 201}));

  const auto by_default = sandbox.verdicts();
  EXPECT_EQ(by_default.status("backoff"), VerdictStatus::fail) << by_default.report();
  EXPECT_EQ(by_default.status("attempt-budget"), VerdictStatus::pass);
  const auto in_a_hurry = sandbox.verdicts("attempts=3,min-backoff=0ms");
  EXPECT_TRUE(in_a_hurry.ok()) << in_a_hurry.report();
  const auto on_a_budget = sandbox.verdicts("attempts=2,min-backoff=0ms");
  EXPECT_EQ(on_a_budget.status("attempt-budget"), VerdictStatus::fail);
  EXPECT_THROW((void)sandbox.verdicts("attempts=two"), std::invalid_argument);
}

TEST(Sandbox, AFaultWithATypoIsRefusedInTheProvidersWords) {
  Sandbox sandbox;
  try {
    sandbox.faults({"comit-then-drop"});
    FAIL() << "a typo is an error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find(R"(faults[0]: unknown fault "comit-then-drop")"),
              std::string::npos)
        << error.what();
  }
}

TEST(Sandbox, ResetEmptiesTheJobsAndTheJournalAndTwoSandboxesAreApart) {
  Sandbox first;
  Sandbox second;
  EXPECT_NE(first.url(), second.url());
  create_order_naively(first.url(), kOrder42, 1, false);
  EXPECT_EQ(first.jobs().size(), 1u);
  EXPECT_TRUE(second.journal().empty());
  first.reset();
  EXPECT_TRUE(first.jobs().empty());
  EXPECT_TRUE(first.journal().empty());
}

TEST(Sandbox, ItsVerdictsAreServedLiveOnTheControlPlane) {
  Sandbox sandbox;
  create_order_naively(sandbox.url(), kOrder42, 1, false);
  httplib::Client control(sandbox.url());

  const auto report = control.Get("/_test/verdicts?operationField=orderId&policy=attempts%3D2");
  ASSERT_TRUE(report);
  ASSERT_EQ(report->status, 200) << report->body;
  const json body = json::parse(report->body);
  EXPECT_EQ(body["summary"]["notMet"], 0) << body.dump(2);
  const json& scenario = body["scenarios"][0];
  EXPECT_EQ(scenario["policy"]["attempts"], 2);
  EXPECT_EQ(scenario["invocations"][0]["operation"], "orderId=order-42");

  const auto refused = control.Get("/_test/verdicts?operationField=eventId");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400);
  EXPECT_EQ(json::parse(refused->body)["error"], "invalid_verdicts_query");
  EXPECT_NE(refused->body.find("this provider records orderId"), std::string::npos)
      << refused->body;
}

}  // namespace
