// GET /_test/health over a real socket: answered without the control token, refused like
// every control call when a web page could be asking (a foreign Host or Origin), and not
// journaled.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::body_of;
using testing::raw_control_request;
using testing::raw_exchange;
using testing::ReadUntil;
using testing::status_of;

class ProviderHealth : public ::testing::Test {
 protected:
  ProviderServer server{{.control_token = "s3cret"}, {.port = 0}};
  std::string port = std::to_string(server.port());

  std::string get(const std::string& host, const std::string& origin = {},
                  const std::string& method = "GET") {
    std::string request = method + " /_test/health HTTP/1.1\r\nHost: " + host + "\r\n";
    if (!origin.empty()) request += "Origin: " + origin + "\r\n";
    request += "Connection: close\r\n\r\n";
    return raw_exchange(server.port(), request, ReadUntil::closed).received;
  }
};

TEST_F(ProviderHealth, AnswersOkAndTheVersionWithoutTheControlToken) {
  const std::string response = get("127.0.0.1:" + port);
  ASSERT_EQ(status_of(response), 200) << response;
  EXPECT_EQ(json::parse(body_of(response)),
            json({{"status", "ok"}, {"version", RETRYPROOF_VERSION}}));
  // The token still guards the rest of the control plane.
  EXPECT_EQ(status_of(raw_exchange(server.port(),
                                   raw_control_request(server.port(), "GET", "/_test/jobs"))
                          .received),
            401);
}

TEST_F(ProviderHealth, AnswersHeadAndRefusesOtherMethods) {
  EXPECT_EQ(status_of(get("localhost:" + port, {}, "HEAD")), 200);
  EXPECT_EQ(status_of(get("localhost:" + port, {}, "DELETE")), 405);
}

TEST_F(ProviderHealth, ANonLoopbackHostIsRefused) {
  const std::string response = get("rebound.example:" + port);
  EXPECT_EQ(status_of(response), 403) << response;
  EXPECT_EQ(json::parse(body_of(response))["error"], "forbidden_host");
}

TEST_F(ProviderHealth, AForeignOriginIsRefused) {
  const std::string response = get("127.0.0.1:" + port, "http://evil.example");
  EXPECT_EQ(status_of(response), 403) << response;
  EXPECT_EQ(json::parse(body_of(response))["error"], "forbidden_origin");
}

TEST_F(ProviderHealth, IsNotJournaled) {
  ASSERT_EQ(status_of(get("127.0.0.1:" + port)), 200);
  std::string request = raw_control_request(server.port(), "GET", "/_test/journal");
  request.insert(request.find("\r\n") + 2, "Authorization: Bearer s3cret\r\n");
  const std::string response = raw_exchange(server.port(), request).received;
  ASSERT_EQ(status_of(response), 200) << response;
  EXPECT_EQ(json::parse(body_of(response))["count"], 0);
}

}  // namespace
}  // namespace retryproof::provider
