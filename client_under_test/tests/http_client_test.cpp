// The reference client over real HTTP against a real provider on a loopback port: the
// same situations as in simulation, through real sockets, real drops and real timeouts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "client_under_test/http_transport.hpp"
#include "client_under_test/retrying_client.hpp"
#include "provider/provider_server.hpp"

namespace retryproof::client {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

struct Situation {
  std::string name;
  json plan;
  provider::Profile profile = provider::Profile::baseline;
  Millis timeout{2000};
  // What the provider saw, in order: "POST new", "POST replay", "GET lookup_hit", ...
  std::vector<std::string> requests;
  ClientOutcome outcome = ClientOutcome::succeeded;
  std::size_t jobs = 1;
};

std::vector<std::string> requests_seen(const json& journal) {
  std::vector<std::string> seen;
  for (const auto& entry : journal["entries"]) {
    seen.push_back(entry["method"].get<std::string>() + " " + entry["outcome"].get<std::string>());
  }
  return seen;
}

class ReferenceClientOverHttp : public ::testing::TestWithParam<Situation> {};

TEST_P(ReferenceClientOverHttp, HandlesTheSituation) {
  const Situation& situation = GetParam();
  provider::ProviderServer server({.profile = situation.profile,
                                   .initial_plan = provider::FaultPlan::from_json(situation.plan)},
                                  {.port = 0});
  HttpTransport transport(server.base_url());
  SystemClock clock;
  SeededRandom random(7);
  InMemoryIntentLedger ledger;
  RetryingClient client(
      {.attempts = 3, .base_delay = 20ms, .max_delay = 200ms, .timeout = situation.timeout},
      {transport, clock, clock, random, ledger});

  const ClientResult result =
      client.run({"fulfillment:order-42", {{"orderId", "order-42"}, {"amount", 120}}});

  const json journal = server.core().journal_json();
  const json jobs = server.core().jobs_json();
  EXPECT_EQ(requests_seen(journal), situation.requests);
  EXPECT_EQ(result.outcome, situation.outcome) << result.reason;
  EXPECT_EQ(jobs["count"], situation.jobs);
  for (const auto& entry : journal["entries"]) {
    EXPECT_EQ(entry["key"], "fulfillment:order-42") << "one key for the whole operation";
  }
  if (situation.outcome == ClientOutcome::succeeded) {
    ASSERT_EQ(jobs["count"], 1);
    EXPECT_EQ(result.job_id, jobs["jobs"][0]["id"]);
  }
}

const std::vector<Situation> kSituations = {
    {"FailBeforeCommit",
     {{"faults", {"fail-before-commit"}}},
     {},
     2000ms,
     {"POST new", "POST new"}},
    {"CommitThenError",
     {{"faults", {"commit-then-error"}}},
     {},
     2000ms,
     {"POST new", "POST replay"}},
    {"CommitThenErrorStripe",
     {{"faults", {"commit-then-error"}}},
     provider::Profile::stripe,
     2000ms,
     {"POST new", "POST replay", "POST replay", "GET lookup_hit"}},
    {"CommitThenDrop",
     {{"faults", {"commit-then-drop"}}},
     {},
     2000ms,
     {"POST new", "GET lookup_hit"}},
    {"CommitThenReset",
     {{"faults", {"commit-then-reset"}}},
     {},
     2000ms,
     {"POST new", "GET lookup_hit"}},
    {"CommitThenTruncate",
     {{"faults", {"commit-then-truncate"}}},
     {},
     2000ms,
     {"POST new", "GET lookup_hit"}},
    {"CommitThen500",
     {{"faults", {"commit-then-500"}}},
     {},
     2000ms,
     {"POST new", "GET lookup_hit"}},
    {"DropBeforeCommit",
     {{"faults", {"drop-before-commit"}}},
     {},
     2000ms,
     {"POST new", "GET lookup_miss", "POST new"}},
    {"CommitThenDelayPastTheTimeout",
     {{"faults", {"commit-then-delay:5s"}}},
     {},
     300ms,
     {"POST new", "GET lookup_hit"}},
    {"RateLimited", {{"faults", {"rate-limited:1"}}}, {}, 2000ms, {"POST new", "POST new"}},
    {"LookupUnavailable",
     {{"faults", {"commit-then-drop", "lookup-unavailable"}}},
     {},
     2000ms,
     {"POST new", "GET lookup_failed"},
     ClientOutcome::unknown},
    {"BudgetSpent",
     {{"faults", {"fail-before-commit", "fail-before-commit", "fail-before-commit"}}},
     {},
     2000ms,
     {"POST new", "POST new", "POST new", "GET lookup_miss"},
     ClientOutcome::failed,
     0},
};

INSTANTIATE_TEST_SUITE_P(Situations, ReferenceClientOverHttp, ::testing::ValuesIn(kSituations),
                         [](const auto& param_info) { return param_info.param.name; });

TEST(ReferenceClientOverHttpExtra, RespectsRetryAfter) {
  provider::ProviderServer server(
      {.initial_plan = provider::FaultPlan::from_json({{"faults", {"rate-limited:1"}}})},
      {.port = 0});
  HttpTransport transport(server.base_url());
  SystemClock clock;
  SeededRandom random(7);
  InMemoryIntentLedger ledger;
  RetryingClient client({.base_delay = 20ms}, {transport, clock, clock, random, ledger});
  const ClientResult result = client.run({"op", json::object()});
  ASSERT_EQ(result.history.size(), 2u);
  EXPECT_EQ(result.history[0].classification, "rate-limited");
  // Retry-After: 1, above its own 10-20 ms step, and up to a quarter more (a fleet spreads).
  EXPECT_GE(result.history[0].wait, 1000ms);
  EXPECT_LE(result.history[0].wait, 1250ms);
  const json entries = server.core().journal_json()["entries"];
  EXPECT_GE(entries[1]["atMs"].get<int>() - entries[0]["atMs"].get<int>(), 1000);
}

TEST(ReferenceClientOverHttpExtra, AChangedPayloadIsRefusedAndNotRetried) {
  provider::ProviderServer server({}, {.port = 0});
  HttpTransport transport(server.base_url());
  SystemClock clock;
  SeededRandom random(7);
  InMemoryIntentLedger first_ledger;
  InMemoryIntentLedger second_ledger;
  RetryingClient({}, {transport, clock, clock, random, first_ledger}).run({"op", {{"amount", 1}}});
  const ClientResult changed = RetryingClient({}, {transport, clock, clock, random, second_ledger})
                                   .run({"op", {{"amount", 2}}});
  EXPECT_EQ(changed.outcome, ClientOutcome::failed);
  EXPECT_EQ(changed.reason, "rejected: 422 idempotency_key_reused_with_different_payload");
  EXPECT_EQ(changed.attempts, 1);
  EXPECT_EQ(server.core().job_count(), 1u);
}

TEST(ReferenceClientOverHttpExtra, WaitsOutAKeyInFlight) {
  // Another client's first request is held; ours sees 409 and waits with the same key.
  provider::ProviderServer server({.initial_plan = provider::FaultPlan::from_json(
                                       {{"faults", {"delay-before-commit:1500ms"}}})},
                                  {.port = 0});
  HttpTransport transport(server.base_url());
  SystemClock clock;
  SeededRandom random(7);
  InMemoryIntentLedger ledger;
  // The waits' floors (50+100+200+250×6 ms) outlast the hold, so the budget outlives it.
  RetryingClient client({.attempts = 10, .base_delay = 100ms, .max_delay = 500ms, .timeout = 100ms},
                        {transport, clock, clock, random, ledger});
  const ClientResult result = client.run({"op", json::object()});
  EXPECT_EQ(result.outcome, ClientOutcome::succeeded) << result.reason;
  EXPECT_EQ(server.core().job_count(), 1u);
  bool saw_in_flight = false;
  for (const Step& step : result.history)
    saw_in_flight |= step.classification == "in-flight";
  EXPECT_TRUE(saw_in_flight);
}

TEST(HttpTransportTest, ARefusedConnectionIsNotSent) {
  int free_port = 0;
  {
    provider::ProviderServer probe({}, {.port = 0});
    free_port = probe.port();
  }  // closed again: nothing listens there now
  HttpTransport transport("http://127.0.0.1:" + std::to_string(free_port));
  const TransportResponse response = transport.send({.method = "GET", .path = "/jobs"});
  EXPECT_EQ(response.failure, TransportFailure::not_sent);
}

}  // namespace
}  // namespace retryproof::client
