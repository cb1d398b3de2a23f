// The client's declared policy: the command-line form, the scenario block, and how the
// declaration and the scenario's settings combine into the numbers a run is judged by.
#include "scenarios/model/client_policy.hpp"

#include <gtest/gtest.h>

#include "scenarios/model/scenario.hpp"

namespace retryproof::scenarios {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

std::string rejection_of(const std::string& text) {
  try {
    parse_client_policy(text);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return {};
}

TEST(ClientPolicy, ReadsEveryKeyOfTheCommandLineForm) {
  const ClientPolicy policy = parse_client_policy(
      "attempts=4,min-backoff=500ms,timeout=2s,on-ambiguous=same-key-retry,follows-settings");
  EXPECT_EQ(policy.attempts, 4);
  EXPECT_EQ(policy.min_backoff, Millis(500));
  EXPECT_EQ(policy.timeout, Millis(2000));
  EXPECT_EQ(policy.on_ambiguous, OnAmbiguous::same_key_retry);
  EXPECT_EQ(policy.follows_settings, true);
  EXPECT_EQ(policy.describe(),
            "attempts=4,min-backoff=500ms,timeout=2s,on-ambiguous=same-key-retry,"
            "follows-settings=yes");
  EXPECT_EQ(parse_client_policy(""), ClientPolicy{});
  EXPECT_EQ(parse_client_policy("follows-settings=no").follows_settings, false);
}

TEST(ClientPolicy, SaysWhatIsWrongAndSuggestsTheKeyATypoMeant) {
  EXPECT_EQ(rejection_of("atempts=4"),
            "unknown key \"atempts\" (did you mean \"attempts\"?); the keys are attempts, "
            "min-backoff, max-backoff, timeout, on-ambiguous, follows-settings, payload, "
            "retry-budget, breaker and jitter-after-retry-after");
  EXPECT_NE(rejection_of("attempts=0").find("a whole number from 1 to 1000"), std::string::npos);
  EXPECT_NE(rejection_of("attempts=three").find("attempts=three"), std::string::npos);
  EXPECT_NE(rejection_of("min-backoff=5").find("bad duration \"5\""), std::string::npos);
  EXPECT_EQ(rejection_of("on-ambiguous=lookup"),
            "on-ambiguous=lookup: lookup-first or same-key-retry (did you mean \"lookup-first\"?)");
  EXPECT_EQ(rejection_of("attempts"), "attempts needs a value: attempts=...");
  EXPECT_EQ(rejection_of("attempts=4,,timeout=1s"), "an empty entry between commas");
  EXPECT_EQ(rejection_of("payload=verbatm"),
            "payload=verbatm: verbatim or mapped (did you mean \"verbatim\"?)");
}

// A retry budget bounds a client's retries as a share of its requests (Finagle, Envoy, the
// SRE book): what load-amplification allows a fleet in an outage.
TEST(ClientPolicy, DeclaresARetryBudgetInPercent) {
  EXPECT_EQ(parse_client_policy("retry-budget=10%").retry_budget, 0.1);
  EXPECT_EQ(parse_client_policy("attempts=3,retry-budget=20%").describe(),
            "attempts=3,retry-budget=20%");
  EXPECT_EQ(rejection_of("retry-budget=10"),
            "retry-budget=10: a share of requests from 0% to 1000%, such as 10% (retries at most "
            "a tenth of the requests)");
  EXPECT_NE(rejection_of("retry-budget=ten%").find("retry-budget=ten%"), std::string::npos);
  Scenario scenario;
  EXPECT_EQ(judged_policy(scenario, parse_client_policy("retry-budget=5%")).retry_budget, 0.05);
  EXPECT_FALSE(judged_policy(scenario, {}).retry_budget);
}

// A circuit breaker is the instance's own: what stopping judges an instance's creates by in a
// long outage.
TEST(ClientPolicy, DeclaresACircuitBreaker) {
  const ClientPolicy declared = parse_client_policy("attempts=3,breaker=5/10s");
  ASSERT_TRUE(declared.breaker.has_value());
  EXPECT_EQ(declared.breaker->failures, 5);
  EXPECT_EQ(declared.breaker->open_for, Millis(10000));
  EXPECT_EQ(declared.describe(), "attempts=3,breaker=5/10s");
  EXPECT_EQ(rejection_of("breaker=5"),
            "breaker=5: failures in a row that open it (1 to 1000), then how long it stays open "
            "before a probe, such as 5/2s");
  Scenario scenario;
  EXPECT_EQ(judged_policy(scenario, declared).breaker, declared.breaker);
  EXPECT_FALSE(judged_policy(scenario, {}).breaker);
  EXPECT_EQ(client_policy_from(JsonNode{json{{"breaker", "3/1s"}}, "$.clientPolicy"}).breaker,
            (client::BreakerSettings{.failures = 3, .open_for = Millis(1000)}));
}

// A library whose backoff grows past the scenario's cap (async-retry: 1-2, 2-4, 4-8 s) says
// so, and recovery allows it its own longest wait.
TEST(ClientPolicy, DeclaresTheLongestBackoff) {
  Scenario scenario;
  EXPECT_EQ(judged_policy(scenario, {}).max_backoff, scenario.settings.max_delay);
  const ClientPolicy declared = parse_client_policy("max-backoff=8s");
  EXPECT_EQ(declared.describe(), "max-backoff=8s");
  EXPECT_EQ(judged_policy(scenario, declared).max_backoff, Millis(8000));
  EXPECT_NE(rejection_of("max-backoff=8").find("max-backoff=8: bad duration"), std::string::npos);
}

// An SDK maps the payload to its API's body; the project's own clients send it as it is,
// and say so, so that their body is checked against the payload too.
TEST(ClientPolicy, DeclaresWhetherThePayloadIsSentVerbatim) {
  EXPECT_EQ(parse_client_policy("payload=verbatim").payload_verbatim, true);
  EXPECT_EQ(parse_client_policy("payload=mapped").describe(), "payload=mapped");
  Scenario scenario;
  EXPECT_FALSE(judged_policy(scenario, {}).payload_verbatim);  // mapped unless declared
  EXPECT_TRUE(judged_policy(scenario, parse_client_policy("payload=verbatim")).payload_verbatim);
  const json block = {{"payload", "verbatim"}};
  EXPECT_EQ(client_policy_from(JsonNode{block, "$.clientPolicy"}).payload_verbatim, true);
  const json wrong = {{"payload", "as-is"}};
  EXPECT_THROW(client_policy_from(JsonNode{wrong, "$.clientPolicy"}), FormatError);
}

TEST(ClientPolicy, JudgesByTheDeclarationOverTheScenarioOverTheSettings) {
  Scenario scenario;
  scenario.settings.attempts = 3;
  scenario.min_gap = 50ms;
  scenario.settings.timeout = 1s;
  // Nothing declared: the scenario's settings.
  JudgedPolicy judged = judged_policy(scenario, {});
  EXPECT_EQ(judged.attempts, 3);
  EXPECT_EQ(judged.min_backoff, 50ms);
  EXPECT_EQ(judged.timeout, 1s);
  EXPECT_EQ(judged.on_ambiguous, OnAmbiguous::lookup_first);
  EXPECT_FALSE(judged.declared_attempts);
  EXPECT_NE(judged.attempts_text().find("--client-policy attempts=N"), std::string::npos);
  // A scenario's own clientPolicy, and the user's declaration over it.
  scenario.client_policy = parse_client_policy("attempts=5,on-ambiguous=same-key-retry");
  judged = judged_policy(scenario, parse_client_policy("attempts=4"));
  EXPECT_EQ(judged.attempts, 4);
  EXPECT_EQ(judged.on_ambiguous, OnAmbiguous::same_key_retry);
  EXPECT_EQ(judged.attempts_text(), "4 (declared)");
}

}  // namespace
}  // namespace retryproof::scenarios
