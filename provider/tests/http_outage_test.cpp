// Outages and reset-before-commit on a real socket: the bytes a client receives (none, for a
// reset), what is stored, and the journal as GET /_test/journal serves it.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::ConnectionEnd;
using testing::raw_exchange;
using testing::raw_post_jobs;
using namespace std::chrono_literals;

class OutageOverHttp : public ::testing::Test {
 protected:
  ProviderServer server{{}, {.port = 0}};
  httplib::Client client{server.base_url()};

  void plan(const json& body) {
    const auto result = client.Post("/_test/faults", body.dump(), "application/json");
    ASSERT_TRUE(result);
    ASSERT_EQ(result->status, 200) << result->body;
  }

  httplib::Result post(const std::string& key) {
    return client.Post("/jobs", {{"Idempotency-Key", key}}, R"({"orderId":"o"})",
                       "application/json");
  }

  // The journal as a client reads it over HTTP.
  json journal() {
    const auto result = client.Get("/_test/journal");
    EXPECT_TRUE(result);
    return result ? json::parse(result->body) : json();
  }
};

// An outage from the server's start, for longer than any test runs.
json outage_of(const std::string& fault) {
  return {{"outages", {{{"from", "0ms"}, {"for", "1h"}, {"fault", fault}}}}};
}

TEST_F(OutageOverHttp, ResetBeforeCommitSendsNoByteResetsAndStoresNothing) {
  plan({{"faults", {"reset-before-commit"}}});
  const auto exchange = raw_exchange(server.port(), raw_post_jobs("k", R"({"orderId":"o"})"));
  EXPECT_EQ(exchange.received, "");
  EXPECT_EQ(exchange.end, ConnectionEnd::reset);  // ECONNRESET, not an orderly EOF
  EXPECT_EQ(server.core().job_count(), 0u);
  const json entry = journal()["entries"].back();
  EXPECT_EQ(entry["outcome"], "new");
  EXPECT_EQ(entry["fault"], "reset-before-commit");
  EXPECT_EQ(entry["delivery"], "reset");
  EXPECT_TRUE(entry["status"].is_null());
  EXPECT_TRUE(entry["jobId"].is_null());
  // Ambiguous to the client, yet nothing happened: the lookup says so, and the same key
  // creates the job.
  EXPECT_EQ(client.Get("/jobs/by-idempotency-key/k")->status, 404);
  EXPECT_EQ(post("k")->status, 201);
}

TEST_F(OutageOverHttp, AnOutageAnswers503AndTheJournalSaysWhy) {
  plan(outage_of("fail-before-commit"));
  const auto result = post("k");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 503);
  EXPECT_EQ(json::parse(result->body)["error"], "temporarily_unavailable");
  EXPECT_EQ(client.Get("/jobs/by-idempotency-key/k")->status, 503);
  EXPECT_EQ(server.core().job_count(), 0u);

  const json served = journal();
  ASSERT_EQ(served["count"], 2);
  for (const json& entry : served["entries"]) {
    EXPECT_EQ(entry["outcome"], "outage");
    EXPECT_EQ(entry["fault"], "fail-before-commit");
    EXPECT_EQ(entry["status"], 503);
    EXPECT_EQ(entry["delivered"], true);
  }
  EXPECT_EQ(served["entries"][0]["kind"], "create");
  EXPECT_EQ(served["entries"][1]["kind"], "lookup");
  EXPECT_EQ(journal_from_json(served), server.core().journal());
  // The plan in force shows the window.
  EXPECT_EQ(json::parse(client.Get("/_test/faults")->body)["outages"][0],
            json::parse(R"({"from": "0ms", "for": "1h", "fault": "fail-before-commit",
                            "rate": 1.0, "lookups": true})"));
}

TEST_F(OutageOverHttp, AReplayInAResetOutageIsAnRstWithNoByte) {
  ASSERT_EQ(post("k")->status, 201);
  // A drill: an outage from now, beside the (empty) plan in force.
  plan({{"outage", {{"for", "1h"}, {"fault", "reset-before-commit"}}}});
  const auto exchange = raw_exchange(server.port(), raw_post_jobs("k", R"({"orderId":"o"})"));
  EXPECT_EQ(exchange.received, "");
  EXPECT_EQ(exchange.end, ConnectionEnd::reset);
  EXPECT_EQ(server.core().job_count(), 1u);
  const json entry = journal()["entries"].back();
  EXPECT_EQ(entry["outcome"], "outage");
  EXPECT_EQ(entry["delivery"], "reset");
  EXPECT_TRUE(entry["jobId"].is_null());
}

TEST_F(OutageOverHttp, ASlowdownAnswersTheCreateAfterItsHoldAndThenCommits) {
  plan(outage_of("slowdown:300ms"));
  const auto started = std::chrono::steady_clock::now();
  const auto result = post("k");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 201);
  EXPECT_GE(std::chrono::steady_clock::now() - started, 300ms);
  EXPECT_EQ(server.core().job_count(), 1u);
  const json entry = journal()["entries"].back();
  EXPECT_EQ(entry["outcome"], "new");
  EXPECT_EQ(entry["fault"], "delay-before-commit:300ms");
  EXPECT_GE(entry["answeredAtMs"].get<int>() - entry["atMs"].get<int>(), 300);
}

}  // namespace
}  // namespace retryproof::provider
