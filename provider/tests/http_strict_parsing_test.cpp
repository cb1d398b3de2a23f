// HTTP/1.1 framing read strictly: what could be read two ways is refused with a 400,
// and what the standard allows (chunked bodies, a POST without a body) is served.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::body_of;
using testing::raw_exchange;
using testing::ReadUntil;
using testing::status_of;

class StrictParsing : public ::testing::Test {
 protected:
  ProviderServer server{{}, {.port = 0}};

  std::string post(const std::string& extra_headers, const std::string& body = {}) {
    return raw_exchange(server.port(),
                        "POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                        "Idempotency-Key: k\r\n" +
                            extra_headers + "\r\n" + body,
                        ReadUntil::closed)
        .received;
  }

  void expect_bad_request(const std::string& response) {
    EXPECT_EQ(status_of(response), 400) << response;
    EXPECT_EQ(json::parse(body_of(response), nullptr, false)["error"], "bad_request") << response;
    EXPECT_EQ(server.core().job_count(), 0u);
  }
};

TEST_F(StrictParsing, AContentLengthThatIsNotANumberIs400) {
  expect_bad_request(post("Content-Length: abc\r\n", "{}"));
}

TEST_F(StrictParsing, TwoDifferentContentLengthsAre400) {
  expect_bad_request(post("Content-Length: 2\r\nContent-Length: 3\r\n", "{}x"));
}

TEST_F(StrictParsing, ObsoleteLineFoldingIs400) {
  expect_bad_request(post("X-Folded: first\r\n  second\r\nContent-Length: 2\r\n", "{}"));
}

TEST_F(StrictParsing, ContentLengthWithTransferEncodingIs400) {
  expect_bad_request(post("Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", "{}"));
}

TEST_F(StrictParsing, ATransferEncodingThatDoesNotEndInChunkedIs400) {
  expect_bad_request(post("Transfer-Encoding: gzip\r\n", "{}"));
}

TEST_F(StrictParsing, APostWithNeitherBodyNorContentLengthHasAnEmptyBody) {
  const auto answer = raw_exchange(
      server.port(),
      "POST /_test/reset HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.port()) +
          "\r\nConnection: close\r\n\r\n",
      ReadUntil::closed);
  EXPECT_EQ(status_of(answer.received), 200) << answer.received;
}

TEST_F(StrictParsing, AChunkedBodyIsAccepted) {
  const std::string response =
      post("Transfer-Encoding: chunked\r\n", "6\r\n{\"orde\r\nc\r\nrId\":\"o-ch\"}\r\n0\r\n\r\n");
  EXPECT_EQ(status_of(response), 201) << response;
  EXPECT_EQ(json::parse(body_of(response), nullptr, false)["orderId"], "o-ch");
}

}  // namespace
}  // namespace retryproof::provider
