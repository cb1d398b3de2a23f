// Bad input over a real socket: each gets a clear JSON error, changes nothing, and the
// provider keeps serving.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::raw_exchange;
using testing::raw_post_jobs;

struct Answer {
  int status = 0;
  json body;
};

// Parses the status line and the JSON body of a complete raw response.
Answer parse(const std::string& raw) {
  Answer answer;
  if (raw.size() >= 12 && raw.starts_with("HTTP/1.1 ")) answer.status = std::stoi(raw.substr(9, 3));
  const auto body_start = raw.find("\r\n\r\n");
  if (body_start != std::string::npos) {
    answer.body = json::parse(raw.substr(body_start + 4), nullptr, false);
  }
  return answer;
}

class BadInput : public ::testing::Test {
 protected:
  ProviderServer server{{.max_body_bytes = 1024}, {.port = 0}};

  Answer send(const std::string& raw_request) {
    return parse(raw_exchange(server.port(), raw_request, testing::ReadUntil::response).received);
  }

  void expect_nothing_changed() {
    EXPECT_EQ(server.core().job_count(), 0u);
    // The server still works, and no fault was consumed by the bad request.
    EXPECT_EQ(send(raw_post_jobs("healthy", "{}")).status, 201);
  }
};

TEST_F(BadInput, MissingKeyIs400) {
  const Answer answer = send(raw_post_jobs("", R"({"orderId":"o"})"));
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(answer.body["error"], "idempotency_key_required");
  expect_nothing_changed();
}

// Issue #11, defect 10: the JSON parser stopped at a NUL byte, so the text after it went
// unread (and unfingerprinted). Over the wire it is a 400, and nothing is created.
TEST_F(BadInput, ANulByteInTheJsonBodyIs400) {
  const Answer answer =
      send(raw_post_jobs("nul", std::string("{\"orderId\":\"a\"}\0{\"amount\":999}", 30)));
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(answer.body["error"], "invalid_json");
  expect_nothing_changed();
}

TEST_F(BadInput, OverlongKeyIs400) {
  const Answer answer = send(raw_post_jobs(std::string(256, 'k'), "{}"));
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(answer.body["error"], "idempotency_key_invalid");
  expect_nothing_changed();
}

TEST_F(BadInput, KeyWithAControlCharacterIs400) {
  // A control character is not allowed in any header value (RFC 9110 5.5): the HTTP
  // parser refuses the request before the core could judge the key.
  const Answer answer = send(raw_post_jobs(std::string("bad\x01key"), "{}"));
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(answer.body["error"], "bad_request");
  expect_nothing_changed();
}

TEST_F(BadInput, MalformedJsonIs400WithADetail) {
  const Answer answer = send(raw_post_jobs("k", R"({"orderId": )"));
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(answer.body["error"], "invalid_json");
  EXPECT_NE(answer.body["detail"].get<std::string>().find("line 1"), std::string::npos)
      << answer.body;
  expect_nothing_changed();
}

TEST_F(BadInput, NonObjectBodyIs400) {
  const Answer answer = send(raw_post_jobs("k", "[1,2]"));
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(answer.body["error"], "invalid_json");
  EXPECT_EQ(answer.body["detail"], "the body must be a JSON object, not array");
  expect_nothing_changed();
}

TEST_F(BadInput, BodyOverTheLimitIs413WithJson) {
  const Answer answer = send(raw_post_jobs("k", R"({"pad":")" + std::string(2000, 'x') + "\"}"));
  EXPECT_EQ(answer.status, 413);
  EXPECT_EQ(answer.body["error"], "payload_too_large");
  expect_nothing_changed();
}

TEST_F(BadInput, WrongMethodOnAKnownPathIs405) {
  const Answer answer = send("DELETE /jobs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(answer.status, 405);
  EXPECT_EQ(answer.body["error"], "method_not_allowed");
  expect_nothing_changed();
}

TEST_F(BadInput, UnknownPathIs404) {
  const Answer answer = send("GET /nothing-here HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(answer.status, 404);
  EXPECT_EQ(answer.body, json({{"error", "not_found"}}));
}

TEST_F(BadInput, GarbageInsteadOfHttpIs400AndTheServerServesOn) {
  const Answer answer = send("\x16\x03\x01 this is not HTTP\r\n\r\n");
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(answer.body["error"], "bad_request");
  expect_nothing_changed();
}

TEST_F(BadInput, UnknownFaultNameIs400AndThePlanInForceStays) {
  const std::string good = R"({"faults":["fail-before-commit"]})";
  const std::string bad = R"({"faults":["none","comit-then-error"]})";
  // The provider's own Host: a control-plane request under another name is refused.
  const auto control = [port = server.port()](const std::string& body) {
    return "POST /_test/faults HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
           "\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
           body;
  };
  ASSERT_EQ(send(control(good)).status, 200);

  const Answer answer = send(control(bad));
  EXPECT_EQ(answer.status, 400);
  EXPECT_EQ(answer.body["error"], "invalid_fault_plan");
  const std::string detail = answer.body["detail"];
  EXPECT_NE(detail.find("faults[1]"), std::string::npos) << detail;
  EXPECT_NE(detail.find("comit-then-error"), std::string::npos) << detail;

  // The earlier plan is still in force.
  EXPECT_EQ(send(raw_post_jobs("k", "{}")).status, 503);
}

}  // namespace
}  // namespace retryproof::provider
