// The proxy's tables and parsers, without sockets: every fault has a row that places it
// where the catalogue says it commits, --upstream is read or refused with a reason, and
// requests are told apart as the jobs API routes them.
#include <gtest/gtest.h>

#include "provider/fault.hpp"
#include "proxy/proxy_faults.hpp"
#include "proxy/request_class.hpp"
#include "proxy/upstream_answer.hpp"
#include "proxy/upstream_url.hpp"

namespace retryproof::proxy {
namespace {

using provider::Commit;
using provider::FaultKind;
using provider::RequestKind;

TEST(ProxyFaultTable, HasARowForEveryFaultInCatalogueOrder) {
  const auto& catalogue = provider::fault_catalogue();
  const auto& table = proxy_fault_table();
  ASSERT_EQ(table.size(), catalogue.size());
  for (std::size_t i = 0; i < table.size(); ++i)
    EXPECT_EQ(table[i].kind, catalogue[i].kind) << catalogue[i].name;
}

// The action follows from when the fault commits: the proxy's upstream commits when it is
// sent the request, so a fault that never commits must not send it.
TEST(ProxyFaultTable, PlacesEachFaultWhereItCommits) {
  for (const ProxyFaultRow& row : proxy_fault_table()) {
    const provider::FaultRow& fault = provider::row_of(row.kind);
    SCOPED_TRACE(std::string(fault.name));
    switch (fault.commit) {
      case Commit::never:
        EXPECT_EQ(row.action, ProxyAction::answer_here);
        break;
      case Commit::after_hold:
        EXPECT_EQ(row.action, ProxyAction::hold_then_forward);
        break;
      case Commit::before_answer:
        EXPECT_EQ(row.action, row.kind == FaultKind::none ? ProxyAction::forward
                                                          : ProxyAction::forward_then_replace);
        break;
    }
  }
}

TEST(ProxyFaultAnswer, SendsTheUpstreamsOwnAnswerWhereTheRowSendsTheJob) {
  provider::Decision upstream{.status = 201, .body = R"({"id":"job_1"})"};
  upstream.headers.emplace("X-Upstream", "yes");
  const auto truncated = fault_answer(provider::parse_fault("commit-then-truncate"), &upstream);
  EXPECT_EQ(truncated.delivery, provider::Delivery::truncate);
  EXPECT_EQ(truncated.body, upstream.body);
  EXPECT_EQ(truncated.headers.count("X-Upstream"), 1u);
  const auto delayed = fault_answer(provider::parse_fault("commit-then-delay:2s"), &upstream);
  EXPECT_EQ(delayed.delay, Millis(2000));
  EXPECT_EQ(delayed.status, 201);
  const auto error = fault_answer(provider::parse_fault("commit-then-error"), &upstream);
  EXPECT_EQ(error.status, 503);
  EXPECT_EQ(error.body, R"({"error":"temporarily_unavailable"})");  // the provider's bytes
  const auto limited = fault_answer(provider::parse_fault("rate-limited:3"), nullptr);
  EXPECT_EQ(limited.status, 429);
  EXPECT_EQ(limited.headers.find("Retry-After")->second, "3");
}

TEST(UpstreamFailures, AreExplicitGatewayErrors) {
  EXPECT_EQ(row_of(UpstreamFailure::unreachable).status, 502);
  EXPECT_EQ(row_of(UpstreamFailure::timeout).status, 504);
  EXPECT_EQ(row_of(UpstreamFailure::closed).status, 502);
  EXPECT_EQ(row_of(UpstreamFailure::malformed).status, 502);
  const auto answer =
      failure_decision({.failure = UpstreamFailure::timeout, .detail = "no answer"});
  EXPECT_EQ(answer.status, 504);
  EXPECT_EQ(answer.body, R"({"detail":"no answer","error":"upstream_timeout"})");
}

TEST(UpstreamUrlParsing, ReadsHostPortAndBasePath) {
  const UpstreamUrl plain = parse_upstream_url("http://127.0.0.1:4040");
  EXPECT_EQ(plain.host, "127.0.0.1");
  EXPECT_EQ(plain.port, 4040);
  EXPECT_EQ(plain.base_path, "");
  const UpstreamUrl based = parse_upstream_url("HTTP://sandbox.internal/api/v1/");
  EXPECT_EQ(based.host, "sandbox.internal");
  EXPECT_EQ(based.port, 80);
  EXPECT_EQ(based.base_path, "/api/v1");
  const UpstreamUrl ipv6 = parse_upstream_url("http://[::1]:9000");
  EXPECT_EQ(ipv6.host, "::1");
  EXPECT_EQ(ipv6.authority(), "[::1]:9000");
  EXPECT_FALSE(plain.tls);
}

TEST(UpstreamUrlParsing, HttpsIsVerifiedTlsOnPort443UnlessTold) {
  const UpstreamUrl sandbox = parse_upstream_url("https://sandbox.example/v1");
  EXPECT_TRUE(sandbox.tls);
  EXPECT_EQ(sandbox.port, 443);
  EXPECT_EQ(sandbox.base_path, "/v1");
  EXPECT_EQ(sandbox.to_string(), "https://sandbox.example:443/v1");
  const UpstreamUrl local = parse_upstream_url("HTTPS://127.0.0.1:4040");
  EXPECT_TRUE(local.tls);
  EXPECT_EQ(local.port, 4040);
}

TEST(UpstreamUrlParsing, RefusesWhatItCannotForwardToWithAReason) {
  const auto problem = [](const char* text) {
    try {
      parse_upstream_url(text);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(problem("127.0.0.1:4040").find("must begin with http:// or https://"),
            std::string::npos);
  EXPECT_NE(problem("https://user@api.example").find("user information"), std::string::npos);
  EXPECT_NE(problem("http://:4040").find("the host is empty"), std::string::npos);
  EXPECT_NE(problem("http://host:0").find("1 to 65535"), std::string::npos);
  EXPECT_NE(problem("http://host:99999").find("1 to 65535"), std::string::npos);
  EXPECT_NE(problem("http://host:").find("1 to 65535"), std::string::npos);
  EXPECT_NE(problem("http://host:80x").find("1 to 65535"), std::string::npos);
  EXPECT_NE(problem("http://host/x?y=1").find("query"), std::string::npos);
  EXPECT_NE(problem("http://user@host").find("user information"), std::string::npos);
  EXPECT_NE(problem("http://[::1").find("closing ]"), std::string::npos);
  // Every message says what is accepted.
  EXPECT_NE(problem("ftp://x").find("expected http[s]://HOST[:PORT][/BASE-PATH]"),
            std::string::npos);
}

provider::HttpRequest request(std::string method, std::string path, std::string body = {}) {
  return {.method = std::move(method), .path = std::move(path), .body = std::move(body)};
}

TEST(RequestClassification, FollowsTheJobsApi) {
  auto create = request("POST", "/jobs", R"({"orderId":"o-1"})");
  create.headers.emplace("Idempotency-Key", "k1");
  const RequestClass created = classify(provider::jobs_shape(), create);
  EXPECT_EQ(created.kind, RequestKind::create);
  EXPECT_EQ(created.key, "k1");
  ASSERT_TRUE(created.payload);
  EXPECT_EQ((*created.payload)["orderId"], "o-1");

  EXPECT_FALSE(
      classify(provider::jobs_shape(), request("POST", "/jobs", "[1]")).payload);  // not an object
  const RequestClass lookup =
      classify(provider::jobs_shape(), request("GET", "/jobs/by-idempotency-key/order/42"));
  EXPECT_EQ(lookup.kind, RequestKind::lookup);
  EXPECT_EQ(lookup.key, "order/42");
  EXPECT_EQ(classify(provider::jobs_shape(), request("GET", "/jobs")).kind, RequestKind::other);
  EXPECT_TRUE(created.fingerprint);
  EXPECT_EQ(classify(provider::jobs_shape(), request("DELETE", "/jobs/by-idempotency-key/k")).kind,
            RequestKind::other);
  EXPECT_EQ(classify(provider::jobs_shape(), request("GET", "/jobs/by-idempotency-key/")).kind,
            RequestKind::other);
}

// Under another shape, the shape says what a create is and where its key travels.
TEST(RequestClassification, FollowsTheApiShape) {
  const provider::ApiShape& stripe = provider::stripe_shape();
  auto create = request("POST", "/v1/payment_intents", "amount=120&currency=eur");
  create.headers.emplace("Idempotency-Key", "pay-1");
  create.headers.emplace("Content-Type", "application/x-www-form-urlencoded");
  const RequestClass created = classify(stripe, create);
  EXPECT_EQ(created.kind, RequestKind::create);
  EXPECT_EQ(created.key, "pay-1");
  ASSERT_TRUE(created.payload);
  EXPECT_EQ((*created.payload)["amount"], "120");
  EXPECT_EQ(classify(stripe, request("POST", "/jobs", "{}")).kind, RequestKind::other);
}

TEST(RequestClassification, ReadsTheIdOfAnUpstreamObject) {
  const provider::ApiShape& jobs = provider::jobs_shape();
  EXPECT_EQ(object_id(jobs, R"({"id":"job_1","orderId":"o"})"), "job_1");
  EXPECT_EQ(object_id(jobs, R"({"id":7})"), "7");  // a numeric id, as many APIs send
  EXPECT_EQ(object_id(jobs, R"({"id":1.5})"), std::nullopt);
  EXPECT_EQ(object_id(jobs, "<html>"), std::nullopt);
  EXPECT_EQ(object_id(jobs, std::string(100000, '[')), std::nullopt);  // hostile nesting
  EXPECT_EQ(object_id(jobs, ""), std::nullopt);
}

// Behind an API that wraps its objects or names their id otherwise, the proxy still sees
// which object a create made, so that no-duplicate-effect can count them.
TEST(RequestClassification, ReadsTheIdThroughTheShapesEnvelopeAndIdField) {
  const provider::ApiShape square = provider::api_shape_from_json(
      {{"created", {{"envelope", "payment"}, {"idField", "payment_id"}}}}, "square.json");
  EXPECT_EQ(object_id(square, R"({"payment":{"payment_id":"P1","status":"COMPLETED"}})"), "P1");
  EXPECT_EQ(object_id(square, R"({"payment":{"payment_id":42}})"), "42");
  EXPECT_EQ(object_id(square, R"({"payment_id":"P1"})"), std::nullopt);  // not in its envelope
  EXPECT_EQ(object_id(square, R"({"payment":"P1"})"), std::nullopt);
}

}  // namespace
}  // namespace retryproof::proxy
