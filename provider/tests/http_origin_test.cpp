// The control plane refuses what a browser would send on a web page's behalf: a foreign
// Origin (a cross-site POST) or a foreign Host (DNS rebinding). Scripts send neither.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::body_of;
using testing::raw_exchange;
using testing::raw_post_jobs;
using testing::ReadUntil;
using testing::status_of;

class ControlPlaneOrigin : public ::testing::Test {
 protected:
  ProviderServer server{{}, {.port = 0}};
  std::string port = std::to_string(server.port());

  std::string send(const std::string& host, const std::string& origin,
                   const std::string& path = "/_test/faults",
                   const std::string& body = R"({"faults":["commit-then-error"]})") {
    std::string request = "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\n";
    if (!origin.empty()) request += "Origin: " + origin + "\r\n";
    request +=
        "Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    return raw_exchange(server.port(), request, ReadUntil::closed).received;
  }

  void expect_refused(const std::string& response, const std::string& code) {
    EXPECT_EQ(status_of(response), 403) << response;
    const json body = json::parse(body_of(response), nullptr, false);
    EXPECT_EQ(body["error"], code) << body;
    EXPECT_TRUE(body["detail"].is_string()) << body;
    // Nothing was installed: the next create meets no fault.
    EXPECT_EQ(status_of(raw_exchange(server.port(), raw_post_jobs("probe-" + code, "{}"),
                                     ReadUntil::response)
                            .received),
              201);
  }
};

TEST_F(ControlPlaneOrigin, AForeignOriginIs403) {
  expect_refused(send("127.0.0.1:" + port, "http://evil.example"), "forbidden_origin");
}

TEST_F(ControlPlaneOrigin, TheNullOriginIs403) {
  expect_refused(send("127.0.0.1:" + port, "null"), "forbidden_origin");
}

TEST_F(ControlPlaneOrigin, ALoopbackOriginOnAnotherPortIs403) {
  expect_refused(send("127.0.0.1:" + port, "http://127.0.0.1:1"), "forbidden_origin");
}

TEST_F(ControlPlaneOrigin, AForeignHostIs403) {
  expect_refused(send("rebound.example:" + port, ""), "forbidden_host");
}

TEST_F(ControlPlaneOrigin, ALoopbackHostOnAnotherPortIs403) {
  expect_refused(send("localhost:1", ""), "forbidden_host");
}

TEST_F(ControlPlaneOrigin, TheProvidersOwnOriginsAndLoopbackHostsAreServed) {
  for (const std::string host : {"127.0.0.1:", "localhost:", "LocalHost:", "[::1]:"}) {
    EXPECT_EQ(status_of(send(host + port, "", "/_test/reset", "")), 200) << host;
  }
  for (const std::string origin : {"http://127.0.0.1:", "http://localhost:", "http://[::1]:"}) {
    EXPECT_EQ(status_of(send("127.0.0.1:" + port, origin + port, "/_test/reset", "")), 200)
        << origin;
  }
}

TEST_F(ControlPlaneOrigin, AFormEncodedBodyAsCurlSendsItIsServed) {
  const std::string body = R"({"faults":["commit-then-error"]})";
  const auto response =
      raw_exchange(server.port(),
                   "POST /_test/faults HTTP/1.1\r\nHost: localhost:" + port +
                       "\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n"
                       "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " +
                       std::to_string(body.size()) + "\r\n\r\n" + body,
                   ReadUntil::response)
          .received;
  EXPECT_EQ(status_of(response), 200) << response;
}

TEST_F(ControlPlaneOrigin, TheDataPlaneIsNotGuarded) {
  const auto response = raw_exchange(server.port(),
                                     "POST /jobs HTTP/1.1\r\nHost: api.example\r\nOrigin: "
                                     "http://app.example\r\nIdempotency-Key: k\r\nConnection: "
                                     "close\r\nContent-Length: 2\r\n\r\n{}",
                                     ReadUntil::closed)
                            .received;
  EXPECT_EQ(status_of(response), 201) << response;
}

}  // namespace
}  // namespace retryproof::provider
