// The server's pure parts, without sockets: reading a request head against the limits,
// request targets, the connection budget, the control-plane guard, response bytes.
#include <gtest/gtest.h>

#include "provider/connection_budget.hpp"
#include "provider/control_plane_guard.hpp"
#include "provider/request_head.hpp"
#include "provider/request_target.hpp"
#include "provider/response_bytes.hpp"

namespace retryproof::provider {
namespace {

constexpr HeadLimits kLimits{.max_request_line_bytes = 20, .max_fields = 2, .max_head_bytes = 60};

TEST(RequestHead, CompleteHeadsAreMeasured) {
  const std::string head = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  const HeadScan scan = scan_request_head(head + "next", kLimits);
  EXPECT_EQ(scan.status, HeadStatus::complete);
  EXPECT_EQ(scan.size, head.size());
  EXPECT_EQ(scan_request_head("GET / HTTP/1.1\r\nHost:", kLimits).status, HeadStatus::incomplete);
}

TEST(RequestHead, EmptyLinesBeforeTheRequestLineAreSkipped) {
  const HeadScan scan = scan_request_head("\r\n\r\nGET / HTTP/1.1\r\n\r\n", kLimits);
  EXPECT_EQ(scan.status, HeadStatus::complete);
  EXPECT_EQ(scan.empty_lines, 4u);
  EXPECT_EQ(scan.size, 18u);
}

TEST(RequestHead, EachLimitHasItsStatus) {
  EXPECT_EQ(scan_request_head("GET /" + std::string(30, 'a'), kLimits).status,
            HeadStatus::request_line_too_long);
  EXPECT_EQ(scan_request_head("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n", kLimits).status,
            HeadStatus::too_many_fields);
  EXPECT_EQ(scan_request_head("GET / HTTP/1.1\r\nA: " + std::string(60, 'v'), kLimits).status,
            HeadStatus::too_large);
  EXPECT_EQ(scan_request_head("GET / HTTP/1.1\r\nA: 1\r\n 2\r\n\r\n", kLimits).status,
            HeadStatus::obsolete_folding);
  EXPECT_EQ(scan_request_head("GET / HTTP/1.1\r\nA: 1\r\n\t2\r\n\r\n", kLimits).status,
            HeadStatus::obsolete_folding);
  EXPECT_EQ(scan_request_head("\x16\x03\x01\x00", kLimits).status, HeadStatus::not_http);
  EXPECT_EQ(scan_request_head("GE", kLimits).status, HeadStatus::incomplete);
}

TEST(RequestTarget, SplitsDecodesAndDropsAnAbsoluteFormsAuthority) {
  const RequestTarget plain = split_target("/jobs/by-idempotency-key/a%20b?x=%20");
  EXPECT_EQ(plain.path, "/jobs/by-idempotency-key/a b");
  EXPECT_EQ(plain.query, "x=%20");
  EXPECT_EQ(split_target("HTTP://127.0.0.1:4040/jobs?y").path, "/jobs");
  EXPECT_EQ(split_target("http://127.0.0.1:4040").path, "/");
  EXPECT_EQ(split_target("/%zz").path, "/%zz");
}

TEST(ConnectionBudget, AdmitsThenReservesThenRefusesAndTakesSlotsBack) {
  ConnectionBudget budget(2, 1);
  auto first = budget.admit();
  auto second = budget.admit();
  auto reserved = budget.admit();
  EXPECT_EQ(first.admission(), Admission::any_request);
  EXPECT_EQ(second.admission(), Admission::any_request);
  EXPECT_EQ(reserved.admission(), Admission::control_only);
  EXPECT_EQ(budget.admit().admission(), Admission::refused);
  EXPECT_EQ(budget.open(), 3u);
  first = {};  // a seat for any request is free again, though a reserved one is taken
  EXPECT_EQ(budget.admit().admission(), Admission::any_request);
  EXPECT_EQ(budget.open(), 2u);  // the slot just admitted went with its temporary
}

TEST(ControlPlaneGuard, LoopbackHostsAreTheLoopbackAddressesAndLocalhost) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"})
    EXPECT_TRUE(is_loopback_host(host)) << host;
  for (const char* host : {"127.evil.example", "0.0.0.0", "10.0.0.1", "::", "localhost.example"})
    EXPECT_FALSE(is_loopback_host(host)) << host;
}

Headers with(std::initializer_list<std::pair<const std::string, std::string>> headers) {
  return Headers(headers);
}

TEST(ControlPlaneGuard, ANonLoopbackListenHostIsAcceptedBesideLoopback) {
  const ControlPlaneGuard guard("192.0.2.7", 4040, ServedScheme::http);
  EXPECT_FALSE(guard.check(with({{"Host", "192.0.2.7:4040"}})));
  EXPECT_FALSE(guard.check(with({{"Host", "localhost:4040"}})));
  EXPECT_FALSE(
      guard.check(with({{"Host", "192.0.2.7:4040"}, {"Origin", "http://192.0.2.7:4040"}})));
  EXPECT_TRUE(guard.check(with({{"Host", "192.0.2.8:4040"}})));
}

TEST(ControlPlaneGuard, AMissingPortIsPort80AndTwoHostsAreRefused) {
  const ControlPlaneGuard guard("127.0.0.1", 4040, ServedScheme::http);
  EXPECT_EQ(guard.check(with({{"Host", "localhost"}}))->code, "forbidden_host");
  EXPECT_EQ(guard.check(with({}))->code, "forbidden_host");
  EXPECT_EQ(guard.check(with({{"Host", "localhost:4040"}, {"Host", "localhost:4040"}}))->code,
            "forbidden_host");
  EXPECT_FALSE(
      ControlPlaneGuard("127.0.0.1", 80, ServedScheme::http).check(with({{"Host", "localhost"}})));
  EXPECT_EQ(guard.check(with({{"Host", "localhost:4040x"}}))->code, "forbidden_host");
}

// Over TLS the server's own page has an https:// origin; an http:// one on the same port
// is not that page, and is refused. A Host or Origin without a port means 443.
TEST(ControlPlaneGuard, OverTlsTheOriginIsHttpsOnlyAndAMissingPortIs443) {
  const ControlPlaneGuard guard("127.0.0.1", 4040, ServedScheme::https);
  for (const char* origin :
       {"https://127.0.0.1:4040", "HTTPS://localhost:4040", "https://[::1]:4040"})
    EXPECT_FALSE(guard.check(with({{"Host", "127.0.0.1:4040"}, {"Origin", origin}}))) << origin;
  const auto refusal =
      guard.check(with({{"Host", "127.0.0.1:4040"}, {"Origin", "http://127.0.0.1:4040"}}));
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->code, "forbidden_origin");
  EXPECT_NE(refusal->detail.find("https://127.0.0.1:4040"), std::string::npos) << refusal->detail;
  EXPECT_TRUE(ControlPlaneGuard("127.0.0.1", 4040, ServedScheme::http)
                  .check(with({{"Host", "127.0.0.1:4040"}, {"Origin", "https://127.0.0.1:4040"}})));
  const ControlPlaneGuard on_443("127.0.0.1", 443, ServedScheme::https);
  EXPECT_FALSE(on_443.check(with({{"Host", "localhost"}, {"Origin", "https://localhost"}})));
  EXPECT_TRUE(on_443.check(with({{"Host", "localhost:80"}})));
}

TEST(ResponseBytes, TheHeadFramesTheBodyAndSkipsFramingHeadersFromTheDecision) {
  Decision decision;
  decision.status = 201;
  decision.body = "{}";
  decision.headers.emplace("Content-Length", "999");
  decision.headers.emplace("Idempotent-Replayed", "true");
  EXPECT_EQ(response_head(decision, BodyFraming::content_length, AfterResponse::stays_open),
            "HTTP/1.1 201 Created\r\nIdempotent-Replayed: true\r\nContent-Type: "
            "application/json\r\nContent-Length: 2\r\n\r\n");
  EXPECT_EQ(response_head(decision, BodyFraming::chunked, AfterResponse::closes),
            "HTTP/1.1 201 Created\r\nIdempotent-Replayed: true\r\nContent-Type: "
            "application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(chunk(std::string(26, 'z')), "1a\r\n" + std::string(26, 'z') + "\r\n");
}

}  // namespace
}  // namespace retryproof::provider
