// The server's side of the wire, with a handler that answers whatever a test wants:
// streamed (chunked) bodies, HEAD, reason phrases, headers, the query string, and a
// handler that throws.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <functional>
#include <stdexcept>

#include "provider/http_server.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using testing::body_of;
using testing::raw_exchange;
using testing::ReadUntil;
using testing::status_of;

// Answers every request with what `answer` returns, and remembers the last request.
class ScriptedHandler final : public RequestHandler {
 public:
  std::function<Decision(const HttpRequest&)> answer;
  HttpRequest last;

  Decision handle(const HttpRequest& request) override {
    last = request;
    return answer(request);
  }
  Decision complete(std::uint64_t) override { return {}; }
  Decision server_error(int status, std::string_view code, std::string_view) override {
    Decision error;
    error.status = status;
    error.body = "{\"error\":\"" + std::string(code) + "\"}";
    return error;
  }
};

class Wire : public ::testing::Test {
 protected:
  void SetUp() override { server.start(); }

  std::string exchange(const std::string& request) {
    return raw_exchange(server.port(), request, ReadUntil::closed).received;
  }

  ScriptedHandler handler;
  HttpServer server{handler, {.options = {.port = 0}}};
};

// A body of `count` chunks, "chunk-0" to "chunk-N", pulled one at a time.
std::function<std::optional<std::string>()> counted_chunks(int count) {
  auto next = std::make_shared<int>(0);
  return [next, count]() -> std::optional<std::string> {
    if (*next == count) return std::nullopt;
    return "chunk-" + std::to_string((*next)++) + ";";
  };
}

TEST_F(Wire, AStreamedBodyIsSentChunkedAndPulledToTheEnd) {
  handler.answer = [](const HttpRequest&) {
    Decision streamed;
    streamed.body_chunks = counted_chunks(1000);
    return streamed;
  };
  const std::string raw =
      exchange("GET /_test/journal HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_NE(raw.find("Transfer-Encoding: chunked\r\n"), std::string::npos) << raw.substr(0, 300);
  EXPECT_EQ(raw.find("Content-Length"), std::string::npos);
  EXPECT_TRUE(raw.ends_with("0\r\n\r\n"));

  httplib::Client client("127.0.0.1", server.port());
  const auto result = client.Get("/_test/journal");
  ASSERT_TRUE(result);
  std::string expected;
  for (int i = 0; i < 1000; ++i)
    expected += "chunk-" + std::to_string(i) + ";";
  EXPECT_EQ(result->body, expected);
}

TEST_F(Wire, AStreamedBodyWithEmptyChunksIsNotCutShort) {
  handler.answer = [](const HttpRequest&) {
    Decision streamed;
    auto calls = std::make_shared<int>(0);
    streamed.body_chunks = [calls]() -> std::optional<std::string> {
      switch ((*calls)++) {
        case 0:
          return "a";
        case 1:
          return "";
        case 2:
          return "b";
        default:
          return std::nullopt;
      }
    };
    return streamed;
  };
  httplib::Client client("127.0.0.1", server.port());
  const auto result = client.Get("/x");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->body, "ab");
}

TEST_F(Wire, AStreamedBodyToAnHttp10ClientEndsWithTheConnection) {
  handler.answer = [](const HttpRequest&) {
    Decision streamed;
    streamed.body_chunks = counted_chunks(3);
    return streamed;
  };
  const std::string raw = exchange("GET /x HTTP/1.0\r\n\r\n");
  EXPECT_EQ(raw.find("chunked"), std::string::npos) << raw;
  EXPECT_TRUE(raw.ends_with("\r\n\r\nchunk-0;chunk-1;chunk-2;")) << raw;
}

TEST_F(Wire, HeadIsAnsweredLikeGetWithoutABody) {
  handler.answer = [](const HttpRequest&) {
    Decision found;
    found.status = 404;
    found.body = R"({"error":"not_found"})";
    return found;
  };
  const std::string raw = exchange("HEAD /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(raw.starts_with("HTTP/1.1 404 Not Found\r\n")) << raw;
  EXPECT_NE(raw.find("Content-Length: 21\r\n"), std::string::npos) << raw;
  EXPECT_TRUE(raw.ends_with("\r\n\r\n")) << "a HEAD answer has no body: " << raw;
  EXPECT_EQ(handler.last.method, "HEAD");
}

TEST_F(Wire, HeadOfAStreamedBodyPullsNothing) {
  auto pulled = std::make_shared<std::atomic<int>>(0);
  handler.answer = [pulled](const HttpRequest&) {
    Decision streamed;
    streamed.body_chunks = [pulled]() -> std::optional<std::string> {
      ++*pulled;
      return std::nullopt;
    };
    return streamed;
  };
  const std::string raw = exchange("HEAD /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_NE(raw.find("Transfer-Encoding: chunked\r\n"), std::string::npos) << raw;
  EXPECT_TRUE(raw.ends_with("\r\n\r\n")) << raw;
  EXPECT_EQ(*pulled, 0);
}

TEST_F(Wire, AnHttp10ClientAskingForKeepAliveIsToldAndServedAgain) {
  handler.answer = [](const HttpRequest&) { return Decision{}; };
  testing::RawConnection connection(server.port());
  for (int i = 0; i < 2; ++i) {
    connection.send("GET /x HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    const auto answer = connection.read_response(std::chrono::seconds(5));
    ASSERT_TRUE(answer) << "request " << i;
    EXPECT_NE(answer->find("\r\nConnection: keep-alive\r\n"), std::string::npos) << *answer;
  }
}

TEST_F(Wire, TheStatusLineContentTypeAndHeadersAreTheDecisions) {
  handler.answer = [](const HttpRequest&) {
    Decision limited;
    limited.status = 429;
    limited.content_type = "application/problem+json";
    limited.headers.emplace("Retry-After", "3");
    limited.headers.emplace("X-Split", "a\r\nInjected: yes");  // never written
    limited.body = "{}";
    return limited;
  };
  const std::string raw = exchange("GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(raw.starts_with("HTTP/1.1 429 Too Many Requests\r\n")) << raw;
  EXPECT_NE(raw.find("\r\nContent-Type: application/problem+json\r\n"), std::string::npos) << raw;
  EXPECT_NE(raw.find("\r\nRetry-After: 3\r\n"), std::string::npos) << raw;
  EXPECT_EQ(raw.find("Injected"), std::string::npos) << raw;
  EXPECT_NE(raw.find("\r\nConnection: close\r\n"), std::string::npos) << raw;
}

TEST_F(Wire, ThePathIsDecodedAndTheQueryKeptRaw) {
  handler.answer = [](const HttpRequest&) { return Decision{}; };
  exchange(
      "GET /jobs/by-idempotency-key/a%20b%2Fc?limit=10&from=a%20b HTTP/1.1\r\nHost: x\r\n"
      "Connection: close\r\n\r\n");
  EXPECT_EQ(handler.last.path, "/jobs/by-idempotency-key/a b/c");
  EXPECT_EQ(handler.last.query, "limit=10&from=a%20b");
}

TEST_F(Wire, AHandlerThatThrowsGetsA500AndTheServerServesOn) {
  std::atomic<bool> fail{true};
  handler.answer = [&fail](const HttpRequest&) -> Decision {
    if (fail.exchange(false)) throw std::runtime_error("a bug");
    return Decision{};
  };
  EXPECT_EQ(status_of(exchange("GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")), 500);
  EXPECT_EQ(status_of(exchange("GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")), 200);
}

TEST_F(Wire, ExpectContinueGetsA100BeforeTheBody) {
  handler.answer = [](const HttpRequest& request) {
    Decision echo;
    echo.body = request.body;
    return echo;
  };
  testing::RawConnection connection(server.port());
  connection.send(
      "POST /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
  const auto go_on = connection.read_response(std::chrono::seconds(5));
  ASSERT_TRUE(go_on);
  EXPECT_EQ(status_of(*go_on), 100);
  connection.send("hello");
  const auto answer = connection.read_response(std::chrono::seconds(5));
  ASSERT_TRUE(answer);
  EXPECT_EQ(body_of(*answer), "hello");
}

}  // namespace
}  // namespace retryproof::provider
