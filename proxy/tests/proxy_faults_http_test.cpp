// Every fault through the proxy, in front of a real provider, over real sockets: what the
// client received, byte for byte, and what the upstream stored and saw.
#include <gtest/gtest.h>
#include <httplib.h>

#include <future>
#include <nlohmann/json.hpp>

#include "provider/fault.hpp"
#include "provider/tests/eventually.hpp"
#include "provider/tests/raw_http.hpp"
#include "proxy/tests/proxy_test_support.hpp"

namespace retryproof::proxy {
namespace {

using nlohmann::json;
using provider::testing::ConnectionEnd;
using provider::testing::eventually;
using provider::testing::raw_exchange;
using provider::testing::raw_post_jobs;
using provider::testing::RawConnection;
using provider::testing::status_of;
using testing::post_job;
using namespace std::chrono_literals;

class ProxyFaults : public ::testing::Test {
 protected:
  provider::ProviderServer upstream{{}, {.port = 0}};
  ProxyServer proxy{{}, {.port = 0}, parse_upstream_url(upstream.base_url())};

  void plan(const json& faults) { testing::install_plan(proxy.base_url(), faults); }
  json entry(std::size_t index) { return proxy.core().journal_json()["entries"][index]; }
  json upstream_jobs() { return upstream.core().jobs_json()["jobs"]; }
  std::size_t upstream_requests() { return upstream.core().journal_size(); }
};

TEST_F(ProxyFaults, NoFaultPassesTheUpstreamsAnswerOn) {
  const auto result = post_job(proxy.base_url(), "k");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 201);
  ASSERT_EQ(upstream_jobs().size(), 1u);
  EXPECT_EQ(json::parse(result->body)["id"], upstream_jobs()[0]["id"]);
  EXPECT_EQ(entry(0)["jobId"], upstream_jobs()[0]["id"]);
  EXPECT_EQ(entry(0)["upstreamStatus"], 201);
  EXPECT_EQ(entry(0)["status"], 201);
  EXPECT_EQ(entry(0)["fault"], "none");
}

TEST_F(ProxyFaults, CommitThenDropSendsZeroBytesAfterTheUpstreamCommitted) {
  plan({{"faults", {"commit-then-drop"}}});
  const auto exchange = raw_exchange(proxy.port(), raw_post_jobs("k", R"({"orderId":"o-1"})"));
  EXPECT_EQ(exchange.received, "");
  EXPECT_EQ(exchange.end, ConnectionEnd::eof);
  ASSERT_EQ(upstream_jobs().size(), 1u);  // the upstream holds the job
  const std::string job_id = upstream_jobs()[0]["id"];
  EXPECT_EQ(entry(0)["jobId"], job_id);
  EXPECT_EQ(entry(0)["upstreamStatus"], 201);
  EXPECT_TRUE(entry(0)["status"].is_null());
  EXPECT_EQ(entry(0)["delivery"], "drop");
  // Reconciliation through the proxy finds it; the retry is the upstream's replay.
  httplib::Client client(proxy.base_url());
  const auto lookup = client.Get("/jobs/by-idempotency-key/k");
  ASSERT_TRUE(lookup);
  EXPECT_EQ(json::parse(lookup->body)["id"], job_id);
  const auto retry = post_job(proxy.base_url(), "k");
  EXPECT_EQ(retry->status, 200);
  EXPECT_EQ(retry->get_header_value("Idempotent-Replayed"), "true");
  EXPECT_EQ(upstream_jobs().size(), 1u);
}

TEST_F(ProxyFaults, CommitThenResetSendsARstAfterTheUpstreamCommitted) {
  plan({{"faults", {"commit-then-reset"}}});
  const auto exchange = raw_exchange(proxy.port(), raw_post_jobs("k", "{}"));
  EXPECT_EQ(exchange.received, "");
  EXPECT_EQ(exchange.end, ConnectionEnd::reset);
  EXPECT_EQ(upstream_jobs().size(), 1u);
  EXPECT_EQ(entry(0)["delivery"], "reset");
}

TEST_F(ProxyFaults, CommitThenTruncateSendsHalfOfTheUpstreamsBody) {
  plan({{"faults", {"commit-then-truncate"}}});
  const auto exchange = raw_exchange(proxy.port(), raw_post_jobs("k", R"({"orderId":"o-1"})"));
  const std::string& raw = exchange.received;
  ASSERT_TRUE(raw.starts_with("HTTP/1.1 201 Created\r\n")) << raw;
  const std::string sent_body = json{{"id", upstream_jobs()[0]["id"]}, {"orderId", "o-1"}}.dump();
  EXPECT_NE(raw.find("Content-Length: " + std::to_string(sent_body.size()) + "\r\n"),
            std::string::npos);
  EXPECT_EQ(provider::testing::body_of(raw), sent_body.substr(0, sent_body.size() / 2));
  EXPECT_EQ(exchange.end, ConnectionEnd::eof);
  EXPECT_EQ(entry(0)["status"], 201);
  EXPECT_EQ(entry(0)["delivered"], false);
}

TEST_F(ProxyFaults, CommitThenErrorAnd500AreSentThoughTheUpstreamCommitted) {
  plan({{"faults", {"commit-then-error", "commit-then-500"}}});
  const auto error = post_job(proxy.base_url(), "a");
  EXPECT_EQ(error->status, 503);
  EXPECT_EQ(error->body, R"({"error":"temporarily_unavailable"})");
  const auto internal = post_job(proxy.base_url(), "b");
  EXPECT_EQ(internal->status, 500);
  EXPECT_EQ(json::parse(internal->body)["error"], "internal_error");
  ASSERT_EQ(upstream_jobs().size(), 2u);
  EXPECT_EQ(entry(0)["jobId"], upstream_jobs()[0]["id"]);
  EXPECT_EQ(entry(1)["upstreamStatus"], 201);
}

TEST_F(ProxyFaults, FaultsBeforeTheCommitForwardNothing) {
  plan({{"faults", {"fail-before-commit", "drop-before-commit", "rate-limited:2"}}});
  const auto failed = post_job(proxy.base_url(), "a");
  EXPECT_EQ(failed->status, 503);
  const auto dropped = raw_exchange(proxy.port(), raw_post_jobs("b", "{}"));
  EXPECT_EQ(dropped.received, "");
  EXPECT_EQ(dropped.end, ConnectionEnd::eof);
  const auto limited = post_job(proxy.base_url(), "c");
  EXPECT_EQ(limited->status, 429);
  EXPECT_EQ(limited->get_header_value("Retry-After"), "2");
  EXPECT_EQ(upstream_requests(), 0u);  // the upstream saw none of them
  EXPECT_EQ(upstream_jobs().size(), 0u);
}

TEST_F(ProxyFaults, CommitThenDelayCommitsAtOnceAndAnswersAfterTheHold) {
  plan({{"faults", {"commit-then-delay:1s"}}});
  RawConnection client(proxy.port());
  ASSERT_TRUE(client.send(raw_post_jobs("k", "{}")));
  ASSERT_TRUE(eventually([&] { return upstream.core().job_count() == 1; }));
  const auto answer = client.read_response(10s);
  ASSERT_TRUE(answer);
  EXPECT_EQ(status_of(*answer), 201);
  EXPECT_EQ(entry(0)["fault"], "commit-then-delay:1s");
  EXPECT_GE(entry(0)["answeredAtMs"].get<int>() - entry(0)["atMs"].get<int>(), 1000);
}

TEST_F(ProxyFaults, DelayBeforeCommitForwardsOnlyAfterTheHold) {
  plan({{"faults", {"delay-before-commit:2s"}}});
  auto held = std::async(std::launch::async, [&] { return post_job(proxy.base_url(), "k"); });
  ASSERT_TRUE(eventually([&] { return proxy.core().journal_json()["count"] == 1; }));
  // Held at the proxy: the upstream has not been sent the request yet.
  EXPECT_EQ(upstream_requests(), 0u);
  const auto result = held.get();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 201);
  EXPECT_EQ(upstream_jobs().size(), 1u);
  EXPECT_EQ(json::parse(result->body)["id"], upstream_jobs()[0]["id"]);
}

TEST_F(ProxyFaults, LookupsAreForwardedAndLookupUnavailableIsNot) {
  plan({{"faults", {"commit-then-drop", "lookup-unavailable"}}});
  raw_exchange(proxy.port(), raw_post_jobs("k", "{}"));
  httplib::Client client(proxy.base_url());
  EXPECT_EQ(client.Get("/jobs/by-idempotency-key/k")->status, 503);
  EXPECT_EQ(upstream_requests(), 1u);  // the create only
  EXPECT_EQ(client.Get("/jobs/by-idempotency-key/k")->status, 200);
  EXPECT_EQ(client.Get("/jobs/by-idempotency-key/nobody")->status, 404);
  EXPECT_EQ(upstream_requests(), 3u);
  EXPECT_EQ(entry(1)["outcome"], "lookup_failed");
  EXPECT_EQ(entry(2)["outcome"], "lookup_hit");
  EXPECT_EQ(entry(3)["outcome"], "lookup_miss");
}

// Every create fault of the catalogue, including any added later: the upstream holds a job
// exactly when the row commits, and the client gets through the proxy what the row delivers
// (no byte for a drop or a reset, a cut body for a truncation, else the row's status, or the
// upstream's 201 for a row that sends the job). The journal names the fault and the job.
TEST(ProxyEveryFault, TheUpstreamStoresWhatTheRowCommitsAndTheClientGetsWhatItDelivers) {
  std::size_t faults = 0;
  for (const provider::FaultRow& row : provider::fault_catalogue()) {
    if (row.target != provider::FaultTarget::create) continue;
    ++faults;
    const std::string written =
        std::string(row.name) + (row.parameter == provider::FaultParameter::hold ? ":50ms" : "");
    SCOPED_TRACE(written);
    provider::ProviderServer upstream({}, {.port = 0});
    ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream.base_url()));
    testing::install_plan(proxy.base_url(), {{"faults", {written}}});
    const auto exchange = raw_exchange(proxy.port(), raw_post_jobs("k", R"({"orderId":"o-1"})"));

    const bool commits = row.commit != provider::Commit::never;
    ASSERT_EQ(upstream.core().job_count(), commits ? 1u : 0u);
    switch (row.delivery) {
      case provider::Delivery::respond:
        EXPECT_EQ(status_of(exchange.received), row.status) << exchange.received;
        EXPECT_TRUE(provider::testing::complete_response_size(exchange.received));
        break;
      case provider::Delivery::drop:
      case provider::Delivery::reset:
        EXPECT_EQ(exchange.received, "");
        EXPECT_EQ(exchange.end, row.delivery == provider::Delivery::drop ? ConnectionEnd::eof
                                                                         : ConnectionEnd::reset);
        break;
      case provider::Delivery::truncate:
        EXPECT_EQ(status_of(exchange.received), row.status) << exchange.received;
        EXPECT_FALSE(provider::testing::complete_response_size(exchange.received))
            << "the body is cut short of its Content-Length";
        break;
    }
    const json seen = proxy.core().journal_json()["entries"][0];
    EXPECT_EQ(seen["fault"], written);
    EXPECT_EQ(seen["upstreamStatus"], commits ? json(201) : json(nullptr));
    if (commits) {
      EXPECT_EQ(seen["jobId"], upstream.core().jobs_json()["jobs"][0]["id"]);
    }
    if (row.status == 201 && row.delivery == provider::Delivery::respond) {
      EXPECT_EQ(json::parse(provider::testing::body_of(exchange.received))["id"], seen["jobId"])
          << "the client got the upstream's own job";
    }
  }
  EXPECT_GE(faults, 11u);
}

// A key with a slash and a percent sign reaches the upstream as the client wrote it.
TEST_F(ProxyFaults, TargetsAreForwardedAsSent) {
  post_job(proxy.base_url(), "order/42%");
  const auto lookup = raw_exchange(proxy.port(),
                                   "GET /jobs/by-idempotency-key/order%2F42%25 HTTP/1.1\r\nHost: "
                                   "x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(lookup.received), 200);
  EXPECT_EQ(entry(1)["key"], "order/42%");
  EXPECT_EQ(upstream.core().journal().back().key, "order/42%");
  httplib::Client client(proxy.base_url());
  EXPECT_EQ(client.Get("/no/such/path?x=1")->status, 404);
  EXPECT_EQ(entry(2)["kind"], "other");
  EXPECT_EQ(upstream.core().journal().back().path, "/no/such/path");
}

TEST_F(ProxyFaults, TargetedRulesHitOnlyTheirOperation) {
  plan({{"faults",
         {{{"fault", "commit-then-drop"}, {"match", {{"orderId", "order-42"}}}},
          {{"fault", "fail-before-commit"}, {"key", "k7"}}}}});
  EXPECT_EQ(post_job(proxy.base_url(), "a", R"({"orderId":"order-7"})")->status, 201);
  EXPECT_EQ(post_job(proxy.base_url(), "k7", R"({"orderId":"order-7"})")->status, 503);
  EXPECT_EQ(raw_exchange(proxy.port(), raw_post_jobs("b", R"({"orderId":"order-42"})")).received,
            "");
  EXPECT_EQ(upstream_jobs().size(), 2u);  // a and b; k7 was never forwarded
}

// The same chaos seed through two proxies, with the keys sent in opposite orders by
// several clients at once, gives each key the same fault and the upstreams the same jobs.
TEST(ProxyChaos, IsReproducibleWhateverTheOrderOfArrival) {
  const json chaos = {
      {"chaos",
       {{"seed", 42},
        {"rates",
         {{"fail-before-commit", 0.2}, {"commit-then-drop", 0.2}, {"commit-then-error", 0.2}}}}}};
  std::vector<std::string> keys;
  for (int i = 0; i < 40; ++i)
    keys.push_back("op-" + std::to_string(i));
  const auto run = [&](bool reversed) {
    provider::ProviderServer upstream({}, {.port = 0});
    ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream.base_url()));
    testing::install_plan(proxy.base_url(), chaos);
    std::vector<std::string> order = keys;
    if (reversed) std::reverse(order.begin(), order.end());
    {
      std::vector<std::jthread> clients;
      for (std::size_t t = 0; t < 4; ++t) {
        clients.emplace_back([&, t] {
          for (std::size_t i = t; i < order.size(); i += 4) {
            raw_exchange(proxy.port(), raw_post_jobs(order[i], "{}"));
          }
        });
      }
    }
    const json journal = proxy.core().journal_json();
    const json jobs = upstream.core().jobs_json();
    std::map<std::string, std::string> fault_by_key;
    for (const auto& seen : journal["entries"])
      fault_by_key[seen["key"]] = seen["fault"].is_null() ? "" : seen["fault"];
    std::set<std::string> stored;
    for (const auto& job : jobs["jobs"])
      stored.insert(job["key"]);
    return std::pair(fault_by_key, stored);
  };
  const auto forward = run(false);
  const auto backward = run(true);
  EXPECT_EQ(forward.first.size(), keys.size());
  EXPECT_EQ(forward, backward);
  EXPECT_GT(forward.second.size(), 15u);  // the storm really happened
  EXPECT_LT(forward.second.size(), keys.size());
}

// In front of a Stripe-shaped upstream, the Stripe shape says what a create is: a
// form-encoded POST /v1/{resource}, its key in the Idempotency-Key header.
TEST(ProxyShapes, AStripeShapedCreateIsDroppedAfterTheUpstreamCommitted) {
  provider::ProviderConfig stripe;
  stripe.api = provider::stripe_shape();
  stripe.profile = provider::Profile::stripe;
  provider::ProviderServer upstream(stripe, {.port = 0});
  ProxyServer proxy({.api = provider::stripe_shape()}, {.port = 0},
                    parse_upstream_url(upstream.base_url()));
  testing::install_plan(proxy.base_url(), {{"faults", {"commit-then-drop"}}});
  const std::string body = "amount=120&currency=eur";
  const std::string create =
      "POST /v1/payment_intents HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
      "Idempotency-Key: pay-1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  EXPECT_EQ(raw_exchange(proxy.port(), create).received, "");
  EXPECT_EQ(upstream.core().job_count(), 1u);
  const json seen = proxy.core().journal_json()["entries"][0];
  EXPECT_EQ(seen["kind"], "create");
  EXPECT_EQ(seen["fault"], "commit-then-drop");
  EXPECT_EQ(seen["jobId"], upstream.core().jobs_json()["jobs"][0]["id"]);
  // The retry takes no fault: the upstream replays its first response, the 201.
  const auto retry = raw_exchange(proxy.port(), create);
  EXPECT_EQ(status_of(retry.received), 201) << retry.received;
  EXPECT_NE(retry.received.find("Idempotent-Replayed: true"), std::string::npos);
  EXPECT_EQ(proxy.core().journal_json()["entries"][1]["outcome"], "replay");
  EXPECT_EQ(upstream.core().job_count(), 1u);
}

// An upstream that does not enforce keys creates a job per create: the proxy shows it
// (that is the upstream's behaviour), unless it is told to enforce keys itself.
TEST(ProxyKeys, EnforceKeysAnswersRepeatsForAnUpstreamThatDoesNot) {
  provider::ProviderConfig lax;
  lax.enforce_keys = false;
  for (const bool enforce : {false, true}) {
    SCOPED_TRACE(enforce ? "--enforce-keys" : "the upstream's keys");
    provider::ProviderServer upstream(lax, {.port = 0});
    ProxyServer proxy({.enforce_keys = enforce}, {.port = 0},
                      parse_upstream_url(upstream.base_url()));
    testing::install_plan(proxy.base_url(), {{"faults", {"commit-then-error"}}});
    EXPECT_EQ(post_job(proxy.base_url(), "k")->status, 503);
    const auto retry = post_job(proxy.base_url(), "k");
    EXPECT_EQ(retry->status, enforce ? 200 : 201);
    EXPECT_EQ(upstream.core().job_count(), enforce ? 1u : 2u);
    if (enforce) {
      EXPECT_EQ(post_job(proxy.base_url(), "k", R"({"orderId":"changed"})")->status, 422);
      EXPECT_EQ(upstream.core().job_count(), 1u);
    }
  }
}

}  // namespace
}  // namespace retryproof::proxy
