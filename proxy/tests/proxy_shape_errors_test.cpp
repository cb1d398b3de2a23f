// The proxy's own answers speak the upstream's API shape, as the provider's do: under
// --api stripe, a fault's error, a 502 or 504 for a failed upstream, a refusal of
// --enforce-keys, a control-plane error and a body over the limit are Stripe error objects
// with the shape's restated codes, over real sockets.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "provider/tests/raw_http.hpp"
#include "proxy/tests/proxy_test_support.hpp"
#include "proxy/tests/raw_upstream.hpp"

namespace retryproof::proxy {
namespace {

using nlohmann::json;
using provider::testing::raw_exchange;
using provider::testing::raw_post_jobs;
using provider::testing::ReadUntil;
using testing::RawAnswer;
using testing::RawUpstream;

std::string stripe_create(const std::string& key, const std::string& body) {
  return "POST /v1/payment_intents HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
         "Idempotency-Key: " +
         key + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

RawAnswer exchange(int port, const std::string& request) {
  return testing::raw_answer_of(raw_exchange(port, request, ReadUntil::response).received);
}

// {"error": {"type", "code", "message"}}, and nothing of the provider's plain form.
void expect_stripe_error(const RawAnswer& answer, int status, const std::string& type,
                         const std::string& code) {
  EXPECT_EQ(answer.status, status) << answer.head;
  ASSERT_TRUE(answer.body.is_object()) << answer.body;
  ASSERT_TRUE(answer.body["error"].is_object()) << answer.body;
  EXPECT_EQ(answer.body["error"]["type"], type) << answer.body;
  EXPECT_EQ(answer.body["error"]["code"], code) << answer.body;
  EXPECT_TRUE(answer.body["error"]["message"].is_string()) << answer.body;
  EXPECT_FALSE(answer.body.contains("detail")) << answer.body;
}

ProxyConfig stripe_proxy() {
  return {.api = provider::stripe_shape()};
}

provider::ProviderConfig stripe_upstream() {
  provider::ProviderConfig stripe;
  stripe.api = provider::stripe_shape();
  stripe.profile = provider::Profile::stripe;
  return stripe;
}

TEST(ProxyShapeErrors, AFaultsErrorIsAStripeErrorWithTheShapesCodes) {
  provider::ProviderServer upstream(stripe_upstream(), {.port = 0});
  ProxyServer proxy(stripe_proxy(), {.port = 0}, parse_upstream_url(upstream.base_url()));
  testing::install_plan(proxy.base_url(),
                        {{"faults", {"fail-before-commit", "rate-limited:2", "commit-then-500"}}});
  expect_stripe_error(exchange(proxy.port(), stripe_create("p1", "amount=1")), 503, "api_error",
                      "temporarily_unavailable");
  const RawAnswer limited = exchange(proxy.port(), stripe_create("p2", "amount=1"));
  expect_stripe_error(limited, 429, "invalid_request_error", "rate_limit");  // restated
  EXPECT_NE(limited.head.find("Retry-After: 2"), std::string::npos) << limited.head;
  expect_stripe_error(exchange(proxy.port(), stripe_create("p3", "amount=1")), 500, "api_error",
                      "internal_error");
  EXPECT_EQ(upstream.core().job_count(), 1u) << "commit-then-500 committed; the others did not";
}

TEST(ProxyShapeErrors, AFailedUpstreamIsAStripeError) {
  std::string dead_url;
  {
    provider::ProviderServer upstream(stripe_upstream(), {.port = 0});
    dead_url = upstream.base_url();
  }  // stopped: its port refuses connections
  ProxyServer dead(stripe_proxy(), {.port = 0}, parse_upstream_url(dead_url),
                   testing::quick_limits());
  const RawAnswer unreachable = exchange(dead.port(), stripe_create("p1", "amount=1"));
  expect_stripe_error(unreachable, 502, "api_error", "upstream_unreachable");
  EXPECT_NE(unreachable.body["error"]["message"].get<std::string>().find("cannot connect"),
            std::string::npos)
      << "the detail is the message";

  RawUpstream silent("", RawUpstream::Then::wait_for_peer);
  ProxyServer slow(stripe_proxy(), {.port = 0}, parse_upstream_url(silent.url()),
                   testing::quick_limits());
  expect_stripe_error(exchange(slow.port(), stripe_create("p1", "amount=1")), 504, "api_error",
                      "upstream_timeout");

  RawUpstream garbage("SSH-2.0-OpenSSH_9.2\r\n\r\n", RawUpstream::Then::wait_for_peer);
  ProxyServer confused(stripe_proxy(), {.port = 0}, parse_upstream_url(garbage.url()),
                       testing::quick_limits());
  expect_stripe_error(exchange(confused.port(), stripe_create("p1", "amount=1")), 502, "api_error",
                      "upstream_bad_response");
}

TEST(ProxyShapeErrors, EnforcedKeysAreRefusedAsTheShapeRestatesThem) {
  provider::ProviderConfig lax = stripe_upstream();
  lax.enforce_keys = false;
  provider::ProviderServer upstream(lax, {.port = 0});
  ProxyConfig config = stripe_proxy();
  config.enforce_keys = true;
  ProxyServer proxy(config, {.port = 0}, parse_upstream_url(upstream.base_url()));
  ASSERT_EQ(exchange(proxy.port(), stripe_create("p1", "amount=1")).status, 201);
  const RawAnswer changed = exchange(proxy.port(), stripe_create("p1", "amount=2"));
  // Stripe's 400 for a key reused with other parameters, in its words.
  expect_stripe_error(changed, 400, "idempotency_error",
                      "idempotency_key_reused_with_different_payload");
  EXPECT_NE(changed.body["error"]["message"].get<std::string>().find(
                "can only be used with the same parameters"),
            std::string::npos)
      << changed.body;
  EXPECT_EQ(upstream.core().job_count(), 1u);
}

TEST(ProxyShapeErrors, TheControlPlaneAndTheServerSpeakTheShapeToo) {
  provider::ProviderServer upstream(stripe_upstream(), {.port = 0});
  ProxyConfig config = stripe_proxy();
  config.control_token = "T";
  ProxyServer proxy(config, {.port = 0}, parse_upstream_url(upstream.base_url()), {}, 64);
  const RawAnswer unauthorized = exchange(
      proxy.port(), provider::testing::raw_control_request(proxy.port(), "GET", "/_test/journal"));
  expect_stripe_error(unauthorized, 401, "invalid_request_error", "unauthorized");
  const RawAnswer too_large = exchange(proxy.port(), stripe_create("p1", std::string(100, 'a')));
  expect_stripe_error(too_large, 413, "invalid_request_error", "payload_too_large");
  EXPECT_EQ(upstream.core().journal_size(), 0u) << "neither was forwarded";
}

// The default shape keeps the provider's plain form.
TEST(ProxyShapeErrors, TheJobsShapeKeepsThePlainForm) {
  provider::ProviderServer upstream({}, {.port = 0});
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream.base_url()));
  testing::install_plan(proxy.base_url(), {{"faults", {"fail-before-commit"}}});
  const RawAnswer answer = exchange(proxy.port(), raw_post_jobs("k", "{}"));
  EXPECT_EQ(answer.status, 503);
  EXPECT_EQ(answer.body, json({{"error", "temporarily_unavailable"}})) << answer.body;
}

// An API in AWS's JSON protocol's manner, which throttles with a 400 ThrottlingException.
provider::ApiShape aws_like() {
  return provider::api_shape_from_json(json::parse(R"({"name": "aws-like",
    "errors": {"template": {"__type": "{code}", "message": "{message}"}, "codes": {
      "rate_limited": {"status": 400, "code": "ThrottlingException"},
      "idempotency_key_reused_with_different_payload": {"status": 400,
        "code": "IdempotentParameterMismatchException"}}}})"),
                                       "aws-like.json");
}

TEST(ProxyShapeErrors, TheJournalNamesTheCodeTheUpstreamsAnswerWasMappedFrom) {
  provider::ProviderConfig aws;
  aws.api = aws_like();
  provider::ProviderServer upstream(aws, {.port = 0});
  ProxyServer proxy({.api = aws_like()}, {.port = 0}, parse_upstream_url(upstream.base_url()));
  testing::install_plan(upstream.base_url(), {{"faults", {"rate-limited:0"}}});
  const RawAnswer throttled = exchange(proxy.port(), raw_post_jobs("a1", R"({"orderId":"o1"})"));
  EXPECT_EQ(throttled.status, 400) << throttled.head;
  EXPECT_EQ(throttled.body["__type"], "ThrottlingException") << throttled.body;
  exchange(proxy.port(), raw_post_jobs("a2", R"({"orderId":"o2"})"));
  const RawAnswer mismatch = exchange(proxy.port(), raw_post_jobs("a2", R"({"orderId":"o3"})"));
  EXPECT_EQ(mismatch.status, 400) << mismatch.head;

  const auto entries = proxy.core().journal();
  ASSERT_EQ(entries.size(), 3u);
  // Two 400s, told apart by what the shape says each meant.
  EXPECT_EQ(entries[0].status, 400);
  EXPECT_EQ(entries[0].code, "rate_limited");
  EXPECT_EQ(entries[1].code, std::nullopt);  // the 201
  EXPECT_EQ(entries[2].status, 400);
  EXPECT_EQ(entries[2].code, "idempotency_key_reused_with_different_payload");
  EXPECT_EQ(entries[2].outcome, provider::Outcome::rejected);  // read as the 422 it means
}

TEST(ProxyShapeErrors, AnUpstreamErrorNoShapeRowMapsHasNoCode) {
  RawUpstream upstream(std::string("HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
                                   "Content-Length: 34\r\nConnection: close\r\n\r\n") +
                           R"({"__type":"AccessDeniedException"})",
                       RawUpstream::Then::close);
  ProxyServer proxy({.api = aws_like()}, {.port = 0}, parse_upstream_url(upstream.url()));
  const RawAnswer denied = exchange(proxy.port(), raw_post_jobs("a1", R"({"orderId":"o1"})"));
  EXPECT_EQ(denied.status, 400) << denied.head;
  const auto entries = proxy.core().journal();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].code, std::nullopt);  // read by its status: a 400
}

}  // namespace
}  // namespace retryproof::proxy
