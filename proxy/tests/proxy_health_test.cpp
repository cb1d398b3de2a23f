// The proxy's GET /_test/health over a real socket: answered by the proxy itself, without
// the control token and without asking the upstream; refused for a foreign Host or Origin.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "provider/tests/raw_http.hpp"
#include "proxy/proxy_server.hpp"
#include "proxy/tests/proxy_test_support.hpp"
#include "proxy/tests/raw_upstream.hpp"

namespace retryproof::proxy {
namespace {

using nlohmann::json;
using provider::testing::body_of;
using provider::testing::raw_control_request;
using provider::testing::raw_exchange;
using provider::testing::status_of;
using testing::RawUpstream;

constexpr const char* kReply =
    "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/plain\r\n"
    "Content-Length: 2\r\n\r\nok";

class ProxyHealth : public ::testing::Test {
 protected:
  RawUpstream upstream{kReply, RawUpstream::Then::close};
  ProxyServer proxy{{.control_token = "s3cret"},
                    {.port = 0},
                    parse_upstream_url(upstream.url()),
                    testing::quick_limits()};
  std::string port = std::to_string(proxy.port());

  std::string get(const std::string& host, const std::string& origin = {}) {
    std::string request = "GET /_test/health HTTP/1.1\r\nHost: " + host + "\r\n";
    if (!origin.empty()) request += "Origin: " + origin + "\r\n";
    request += "Connection: close\r\n\r\n";
    return raw_exchange(proxy.port(), request).received;
  }
};

TEST_F(ProxyHealth, AnswersOkAndTheVersionWithoutTheTokenOrTheUpstream) {
  const std::string response = get("127.0.0.1:" + port);
  ASSERT_EQ(status_of(response), 200) << response;
  EXPECT_EQ(json::parse(body_of(response)),
            json({{"status", "ok"}, {"version", RETRYPROOF_VERSION}}));
  EXPECT_EQ(status_of(raw_exchange(proxy.port(),
                                   raw_control_request(proxy.port(), "GET", "/_test/journal"))
                          .received),
            401);  // the token still guards the rest of the control plane
  EXPECT_EQ(upstream.connections(), 0);
}

TEST_F(ProxyHealth, ANonLoopbackHostIsRefused) {
  const std::string response = get("rebound.example:" + port);
  EXPECT_EQ(status_of(response), 403) << response;
  EXPECT_EQ(json::parse(body_of(response))["error"], "forbidden_host");
}

TEST_F(ProxyHealth, AForeignOriginIsRefused) {
  const std::string response = get("localhost:" + port, "http://evil.example");
  EXPECT_EQ(status_of(response), 403) << response;
  EXPECT_EQ(json::parse(body_of(response))["error"], "forbidden_origin");
}

}  // namespace
}  // namespace retryproof::proxy
