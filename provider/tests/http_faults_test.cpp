// Every fault of the catalogue on a real socket: what the client receives, byte for
// byte, what is stored, and what the journal says.
#include <gtest/gtest.h>
#include <httplib.h>

#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::ConnectionEnd;
using testing::cut_response;
using testing::raw_exchange;
using testing::raw_post_jobs;
using namespace std::chrono_literals;

class FaultsOverHttp : public ::testing::Test {
 protected:
  ProviderServer server{{}, {.port = 0}};

  void plan(const json& body) {
    httplib::Client client(server.base_url());
    const auto result = client.Post("/_test/faults", body.dump(), "application/json");
    ASSERT_TRUE(result);
    ASSERT_EQ(result->status, 200) << result->body;
  }

  json last_entry() { return server.core().journal_json()["entries"].back(); }

  // Waits (with a deadline) until the journal holds `count` entries.
  bool journal_reaches(std::size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (server.core().journal_json()["count"] >= count) return true;
      std::this_thread::yield();
    }
    return false;
  }
};

TEST_F(FaultsOverHttp, CommitThenResetSendsNoByteAndResetsTheConnection) {
  plan({{"faults", {"commit-then-reset"}}});
  const auto exchange = raw_exchange(server.port(), raw_post_jobs("k", R"({"orderId":"o"})"));
  EXPECT_EQ(exchange.received, "");
  EXPECT_EQ(exchange.end, ConnectionEnd::reset);  // ECONNRESET, not an orderly EOF
  EXPECT_EQ(server.core().job_count(), 1u);
  EXPECT_EQ(last_entry()["fault"], "commit-then-reset");
  EXPECT_TRUE(last_entry()["status"].is_null());
  EXPECT_EQ(last_entry()["delivered"], false);
}

TEST_F(FaultsOverHttp, DropAndResetAreToldApartByTheReceivingSocket) {
  plan({{"faults", {"commit-then-drop", "commit-then-reset"}}});
  EXPECT_EQ(raw_exchange(server.port(), raw_post_jobs("fin", "{}")).end, ConnectionEnd::eof);
  EXPECT_EQ(raw_exchange(server.port(), raw_post_jobs("rst", "{}")).end, ConnectionEnd::reset);
}

TEST_F(FaultsOverHttp, DropBeforeCommitSendsNothingAndStoresNothing) {
  plan({{"faults", {"drop-before-commit"}}});
  const auto exchange = raw_exchange(server.port(), raw_post_jobs("k", "{}"));
  EXPECT_EQ(exchange.received, "");
  EXPECT_EQ(exchange.end, ConnectionEnd::eof);
  EXPECT_EQ(server.core().job_count(), 0u);
  // Ambiguous to the client, yet nothing happened: a lookup says so, and a resubmission
  // with the same key creates the job.
  httplib::Client client(server.base_url());
  EXPECT_EQ(client.Get("/jobs/by-idempotency-key/k")->status, 404);
  EXPECT_EQ(client.Post("/jobs", {{"Idempotency-Key", "k"}}, "{}", "application/json")->status,
            201);
}

TEST_F(FaultsOverHttp, CommitThenTruncateSendsAHeadThatPromisesMoreThanItSends) {
  plan({{"faults", {"commit-then-truncate"}}});
  const auto exchange =
      raw_exchange(server.port(), raw_post_jobs("k", R"({"orderId":"order-42"})"));
  const std::string& raw = exchange.received;
  ASSERT_TRUE(raw.starts_with("HTTP/1.1 201 Created\r\n")) << raw;
  const auto cut = cut_response(raw);
  ASSERT_TRUE(cut) << raw;
  const std::string& body = cut->body;
  EXPECT_EQ(body.size(), cut->promised / 2);
  EXPECT_EQ(exchange.end, ConnectionEnd::eof);
  // What did arrive is the start of the real job.
  const json stored = server.core().jobs_json()["jobs"][0];
  EXPECT_TRUE(json({{"id", stored["id"]}, {"orderId", "order-42"}}).dump().starts_with(body));
  EXPECT_EQ(last_entry()["status"], 201);
  EXPECT_EQ(last_entry()["delivered"], false);
}

TEST_F(FaultsOverHttp, ATruncatedBodyIsAnErrorForAnHttpClient) {
  plan({{"faults", {"commit-then-truncate"}}});
  httplib::Client client(server.base_url());
  const auto result = client.Post("/jobs", {{"Idempotency-Key", "k"}}, "{}", "application/json");
  EXPECT_FALSE(result);
  EXPECT_EQ(server.core().job_count(), 1u);
}

TEST_F(FaultsOverHttp, CommitThenDelayPastTheClientTimeoutIsATimeoutAfterCommit) {
  plan({{"faults", {"commit-then-delay:3s"}}});
  httplib::Client impatient(server.base_url());
  impatient.set_read_timeout(0, 200'000);  // 200 ms
  const auto result = impatient.Post("/jobs", {{"Idempotency-Key", "k"}}, "{}", "application/json");
  EXPECT_FALSE(result);
  EXPECT_EQ(result.error(), httplib::Error::Read);
  // Committed before the wait: the lookup finds the job while the response is still held.
  httplib::Client client(server.base_url());
  EXPECT_EQ(client.Get("/jobs/by-idempotency-key/k")->status, 200);
}

TEST_F(FaultsOverHttp, CommitThenDelayAnswers201AfterTheDelay) {
  plan({{"faults", {"commit-then-delay:300ms"}}});
  httplib::Client client(server.base_url());
  const auto started = std::chrono::steady_clock::now();
  const auto result = client.Post("/jobs", {{"Idempotency-Key", "k"}}, "{}", "application/json");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 201);
  EXPECT_GE(std::chrono::steady_clock::now() - started, 300ms);  // never sooner
}

TEST_F(FaultsOverHttp, DelayBeforeCommitHoldsTheKeyInFlightWithoutBlockingOthers) {
  plan({{"faults", {"delay-before-commit:1s"}}});
  auto held = std::async(std::launch::async, [url = server.base_url()] {
    httplib::Client client(url);
    client.set_read_timeout(10, 0);
    return client.Post("/jobs", {{"Idempotency-Key", "held"}}, R"({"orderId":"o"})",
                       "application/json");
  });
  ASSERT_TRUE(journal_reaches(1));

  httplib::Client client(server.base_url());
  const auto duplicate =
      client.Post("/jobs", {{"Idempotency-Key", "held"}}, R"({"orderId":"o"})", "application/json");
  ASSERT_TRUE(duplicate);
  EXPECT_EQ(duplicate->status, 409);
  EXPECT_EQ(json::parse(duplicate->body)["error"], "idempotency_key_in_flight");
  EXPECT_EQ(client.Get("/jobs/by-idempotency-key/held")->status, 404);  // not committed yet
  // Other keys are served while the first request is held.
  EXPECT_EQ(client.Post("/jobs", {{"Idempotency-Key", "other"}}, "{}", "application/json")->status,
            201);
  EXPECT_EQ(held.wait_for(0s), std::future_status::timeout);

  const auto first = held.get();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 201);
  EXPECT_EQ(client.Get("/jobs/by-idempotency-key/held")->status, 200);
  const json entries = server.core().journal_json()["entries"];
  EXPECT_EQ(entries[0]["status"], 201);
  EXPECT_EQ(entries[1]["outcome"], "conflict");
  EXPECT_EQ(server.core().job_count(), 2u);
}

TEST_F(FaultsOverHttp, RateLimitedIs429WithRetryAfterAndStoresNothing) {
  plan({{"faults", {"rate-limited:2"}}});
  httplib::Client client(server.base_url());
  const auto result = client.Post("/jobs", {{"Idempotency-Key", "k"}}, "{}", "application/json");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 429);
  EXPECT_EQ(result->get_header_value("Retry-After"), "2");
  EXPECT_EQ(server.core().job_count(), 0u);
}

TEST_F(FaultsOverHttp, CommitThen500StoresTheJob) {
  plan({{"faults", {"commit-then-500"}}});
  httplib::Client client(server.base_url());
  const auto result = client.Post("/jobs", {{"Idempotency-Key", "k"}}, "{}", "application/json");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 500);
  EXPECT_EQ(json::parse(result->body)["error"], "internal_error");
  EXPECT_EQ(server.core().job_count(), 1u);
}

TEST_F(FaultsOverHttp, LookupUnavailableFailsTheNextLookupOnly) {
  plan({{"faults", {"commit-then-drop", "lookup-unavailable"}}});
  raw_exchange(server.port(), raw_post_jobs("k", "{}"));
  httplib::Client client(server.base_url());
  EXPECT_EQ(client.Get("/jobs/by-idempotency-key/k")->status, 503);
  EXPECT_EQ(client.Get("/jobs/by-idempotency-key/k")->status, 200);
}

TEST_F(FaultsOverHttp, TargetedRulesHitOnlyTheirOperation) {
  plan({{"faults",
         {{{"fault", "fail-before-commit"}, {"match", {{"orderId", "order-42"}}}, {"times", 2}}}}});
  httplib::Client client(server.base_url());
  const auto post = [&](const std::string& key, const std::string& order) {
    return client
        .Post("/jobs", {{"Idempotency-Key", key}}, json{{"orderId", order}}.dump(),
              "application/json")
        ->status;
  };
  EXPECT_EQ(post("a", "order-7"), 201);
  EXPECT_EQ(post("b", "order-42"), 503);
  EXPECT_EQ(post("b", "order-42"), 503);
  EXPECT_EQ(post("b", "order-42"), 201);  // times spent
}

// The same seed and keys, sent by many threads in two different orders, give the same
// fault per key and the same set of stored operations.
TEST(ChaosOverHttp, ConcurrentRunsInDifferentOrdersAreReproducible) {
  const json chaos = {{"chaos",
                       {{"seed", 42},
                        {"rates",
                         {{"fail-before-commit", 0.2},
                          {"commit-then-error", 0.2},
                          {"commit-then-drop", 0.2},
                          {"rate-limited", 0.1}}}}}};
  std::vector<std::string> keys;
  for (int i = 0; i < 60; ++i)
    keys.push_back("op-" + std::to_string(i));

  const auto run = [&](bool reversed) {
    ProviderServer server({}, {.port = 0});
    httplib::Client(server.base_url()).Post("/_test/faults", chaos.dump(), "application/json");
    std::vector<std::string> order = keys;
    if (reversed) std::reverse(order.begin(), order.end());
    {
      std::vector<std::jthread> threads;
      for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
          httplib::Client client(server.base_url());
          for (std::size_t i = static_cast<std::size_t>(t); i < order.size(); i += 4) {
            client.Post("/jobs", {{"Idempotency-Key", order[i]}}, "{}", "application/json");
          }
        });
      }
    }
    // Held in variables: a range-for over a temporary's member would dangle.
    const json journal = server.core().journal_json();
    const json jobs = server.core().jobs_json();
    std::map<std::string, std::string> fault_by_key;
    for (const auto& entry : journal["entries"])
      fault_by_key[entry["key"]] = entry["fault"];
    std::set<std::string> stored;
    for (const auto& job : jobs["jobs"])
      stored.insert(job["key"]);
    return std::pair(fault_by_key, stored);
  };

  const auto forward = run(false);
  const auto backward = run(true);
  EXPECT_EQ(forward.first.size(), keys.size());
  EXPECT_EQ(forward, backward);
  // The storm really happened: some keys failed before commit, some were stored.
  EXPECT_GT(forward.second.size(), 20u);
  EXPECT_LT(forward.second.size(), keys.size());
}

}  // namespace
}  // namespace retryproof::provider
