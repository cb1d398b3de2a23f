// The original provider's own check sequence, replayed over a real socket with an
// ordinary HTTP client: what any client written for the original relies on.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "provider/provider_server.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

class BaselineOverHttp : public ::testing::Test {
 protected:
  ProviderServer server{{}, {.port = 0}};
  httplib::Client client{server.base_url()};

  void SetUp() override { client.set_read_timeout(5, 0); }

  void script(const json& faults) {
    const auto result =
        client.Post("/_test/faults", json{{"faults", faults}}.dump(), "application/json");
    ASSERT_TRUE(result);
    ASSERT_EQ(result->status, 200) << result->body;
  }

  httplib::Result post(const std::string& key, const json& payload) {
    return client.Post("/jobs", {{"Idempotency-Key", key}}, payload.dump(), "application/json");
  }

  json jobs() {
    const auto result = client.Get("/_test/jobs");
    return result ? json::parse(result->body) : json();
  }
};

const json kOrderA = {{"orderId", "order-42"}, {"paymentId", "pay-42"}, {"amount", 120}};

TEST_F(BaselineOverHttp, FailBeforeCommitGives503ThenCreatesOneJob) {
  script({"fail-before-commit"});
  const auto first = post("key-A", kOrderA);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 503);
  EXPECT_EQ(json::parse(first->body), json({{"error", "temporarily_unavailable"}}));
  EXPECT_EQ(jobs()["count"], 0);

  const auto second = post("key-A", kOrderA);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 201);
  const json job = json::parse(second->body);
  EXPECT_EQ(job["orderId"], "order-42");
  EXPECT_EQ(jobs()["count"], 1);
  EXPECT_EQ(jobs()["jobs"][0]["id"], job["id"]);
}

TEST_F(BaselineOverHttp, CommitThenErrorStoresTheJobAndTheRetryReplaysIt) {
  script({"commit-then-error"});
  const auto first = post("key-B", kOrderA);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 503);
  ASSERT_EQ(jobs()["count"], 1);
  const json stored = jobs()["jobs"][0];

  const auto retry = post("key-B", kOrderA);
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->status, 200);
  EXPECT_EQ(retry->get_header_value("Idempotent-Replayed"), "true");
  EXPECT_EQ(json::parse(retry->body)["id"], stored["id"]);
  EXPECT_EQ(jobs()["count"], 1);
}

TEST_F(BaselineOverHttp, AChangedPayloadOnAUsedKeyIs422AndTheJobIsUntouched) {
  script({"commit-then-error"});
  ASSERT_TRUE(post("key-B", kOrderA));
  const json before = jobs();

  json changed = kOrderA;
  changed["amount"] = 999;
  const auto result = post("key-B", changed);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 422);
  EXPECT_EQ(json::parse(result->body)["error"], "idempotency_key_reused_with_different_payload");
  EXPECT_EQ(jobs(), before);
}

TEST_F(BaselineOverHttp, AFreshKeyPerAttemptDuplicatesTheEffect) {
  // The bug the harness exists to catch: the provider cannot tell the two attempts apart.
  script({"commit-then-error"});
  ASSERT_TRUE(post("attempt-1", kOrderA));
  const auto second = post("attempt-2", kOrderA);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 201);
  const json listing = jobs();
  ASSERT_EQ(listing["count"], 2);
  EXPECT_EQ(listing["jobs"][0]["orderId"], "order-42");
  EXPECT_EQ(listing["jobs"][1]["orderId"], "order-42");
  EXPECT_NE(listing["jobs"][0]["id"], listing["jobs"][1]["id"]);
}

TEST_F(BaselineOverHttp, CommitThenDropFailsTheClientButTheLookupFindsTheJob) {
  script({"commit-then-drop"});
  const auto dropped = post("key-C", kOrderA);
  EXPECT_FALSE(dropped);  // no response at all: the client sees a transport error
  EXPECT_EQ(dropped.error(), httplib::Error::Read);

  const auto lookup = client.Get("/jobs/by-idempotency-key/key-C");
  ASSERT_TRUE(lookup);
  EXPECT_EQ(lookup->status, 200);
  const json listing = jobs();
  ASSERT_EQ(listing["count"], 1);
  EXPECT_EQ(json::parse(lookup->body),
            json({{"id", listing["jobs"][0]["id"]}, {"orderId", "order-42"}}));
}

TEST_F(BaselineOverHttp, LookupOfAnUnknownKeyIs404) {
  const auto result = client.Get("/jobs/by-idempotency-key/never-used");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 404);
  EXPECT_EQ(json::parse(result->body), json({{"error", "not_found"}}));
}

TEST_F(BaselineOverHttp, LookupKeyIsPercentDecoded) {
  ASSERT_TRUE(post("order 42/payment", kOrderA));
  const auto result = client.Get("/jobs/by-idempotency-key/order%2042%2Fpayment");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(json::parse(result->body)["orderId"], "order-42");
}

TEST_F(BaselineOverHttp, TheScriptIsConsumedOnePerNewOperationInOrder) {
  script({"fail-before-commit", "commit-then-error"});
  EXPECT_EQ(post("k1", kOrderA)->status, 503);  // fail-before-commit, nothing stored
  EXPECT_EQ(post("k2", kOrderA)->status, 503);  // commit-then-error, stored
  EXPECT_EQ(post("k2", kOrderA)->status, 200);  // a replay consumes nothing
  EXPECT_EQ(post("k3", kOrderA)->status, 201);  // the script is empty: none
  EXPECT_EQ(jobs()["count"], 2);
}

TEST_F(BaselineOverHttp, SameSeedSameOperationsSameJobIds) {
  ProviderServer other({.seed = 0}, {.port = 0});
  httplib::Client other_client(other.base_url());
  for (const char* key : {"k1", "k2", "k3"}) {
    ASSERT_TRUE(post(key, kOrderA));
    ASSERT_TRUE(
        other_client.Post("/jobs", {{"Idempotency-Key", key}}, kOrderA.dump(), "application/json"));
  }
  EXPECT_EQ(jobs(), other.core().jobs_json());
}

}  // namespace
}  // namespace retryproof::provider
