// Limits on everything a client sends: each is a clear JSON error, then the connection
// closes, and the provider serves on. A flood of header bytes does not grow memory.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::body_of;
using testing::ConnectionEnd;
using testing::raw_exchange;
using testing::raw_post_jobs;
using testing::RawConnection;
using testing::ReadUntil;
using testing::status_of;
using namespace std::chrono_literals;

class Limits : public ::testing::Test {
 protected:
  ProviderServer server{{.max_body_bytes = 1024}, {.port = 0}};

  // Sends `request`, expects `status` with error `code`, then the end of the connection.
  void expect_refused(const std::string& request, int status, const std::string& code) {
    const auto exchange = raw_exchange(server.port(), request, ReadUntil::closed);
    EXPECT_EQ(status_of(exchange.received), status) << exchange.received.substr(0, 200);
    const json body = json::parse(body_of(exchange.received), nullptr, false);
    EXPECT_EQ(body["error"], code) << body;
    EXPECT_TRUE(body["detail"].is_string()) << body;
    EXPECT_EQ(exchange.end, ConnectionEnd::eof);
    EXPECT_EQ(
        status_of(raw_exchange(server.port(), raw_post_jobs("healthy", "{}"), ReadUntil::response)
                      .received),
        201);
  }
};

TEST_F(Limits, ARequestLineOverTheLimitIs414) {
  expect_refused("GET /" + std::string(9000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n", 414,
                 "uri_too_long");
}

TEST_F(Limits, ARequestLineThatNeverEndsIs414) {
  expect_refused("GET /" + std::string(20000, 'a'), 414, "uri_too_long");
}

TEST_F(Limits, MoreThanAHundredHeaderFieldsIs431) {
  std::string request = "GET /jobs/by-idempotency-key/k HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 100; ++i)
    request += "X-Field-" + std::to_string(i) + ": v\r\n";
  expect_refused(request + "\r\n", 431, "request_header_fields_too_large");
}

TEST_F(Limits, AHeadOverSixteenKibibytesIs431) {
  expect_refused("GET /jobs/by-idempotency-key/k HTTP/1.1\r\nHost: x\r\nX-Big: " +
                     std::string(17 * 1024, 'b') + "\r\n\r\n",
                 431, "request_header_fields_too_large");
}

TEST_F(Limits, ABodyOverMaxBodyIs413BeforeItIsRead) {
  expect_refused(
      "POST /jobs HTTP/1.1\r\nHost: x\r\nIdempotency-Key: k\r\nContent-Length: 5000\r\n\r\n", 413,
      "payload_too_large");
}

TEST_F(Limits, AChunkedBodyOverMaxBodyIs413) {
  const std::string chunk(800, 'x');
  expect_refused(
      "POST /jobs HTTP/1.1\r\nHost: x\r\nIdempotency-Key: k\r\nTransfer-Encoding: chunked\r\n\r\n"
      "320\r\n" +
          chunk + "\r\n320\r\n" + chunk + "\r\n0\r\n\r\n",
      413, "payload_too_large");
}

// A refused request is load the service took too: the journal has it, with what the server
// had read of it (in a storm, a fleet's 413s and 431s are requests like any other).
TEST_F(Limits, ARefusedRequestIsJournaledWithWhatWasReadOfIt) {
  expect_refused(
      "POST /jobs HTTP/1.1\r\nHost: x\r\nIdempotency-Key: k\r\nContent-Length: 5000\r\n\r\n", 413,
      "payload_too_large");
  const auto too_large =
      raw_exchange(server.port(),
                   "GET /jobs/by-idempotency-key/k HTTP/1.1\r\nHost: x\r\nX-Big: " +
                       std::string(17 * 1024, 'b') + "\r\n\r\n",
                   ReadUntil::closed);
  EXPECT_EQ(status_of(too_large.received), 431);
  EXPECT_EQ(
      status_of(
          raw_exchange(server.port(), raw_post_jobs("after", "{}"), ReadUntil::response).received),
      201);
  const std::vector<JournalEntry> journal = server.core().journal();
  ASSERT_EQ(journal.size(), 4u);  // each refusal, each followed by a healthy create
  EXPECT_EQ(journal[0].outcome, Outcome::refused);
  EXPECT_EQ(journal[0].status, 413);
  EXPECT_EQ(journal[0].method, "POST");
  EXPECT_EQ(journal[0].kind, RequestKind::create);  // by its route, though its body was not read
  EXPECT_FALSE(journal[0].fingerprint);
  EXPECT_EQ(journal[2].outcome, Outcome::refused);
  EXPECT_EQ(journal[2].status, 431);
  EXPECT_EQ(journal[2].method, "");  // the head was never read whole
  EXPECT_EQ(journal[2].kind, RequestKind::other);
  EXPECT_EQ(journal[1].outcome, Outcome::new_operation);
  EXPECT_EQ(journal_from_json(server.core().journal_json()), journal);
}

// This process's resident memory in KiB, from /proc.
long resident_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("VmRSS:")) return std::stol(line.substr(6));
  }
  return -1;
}

TEST_F(Limits, FiftyMegabytesOfHeadersAreRefusedWithoutGrowingMemory) {
  const long before = resident_kib();
  RawConnection flood(server.port());
  std::jthread sender([&flood] {
    std::string block;
    while (block.size() < 64 * 1024)
      block += "X-Flood: " + std::string(100, 'f') + "\r\n";
    if (!flood.send("GET /jobs HTTP/1.1\r\nHost: x\r\n")) return;
    for (std::size_t sent = 0; sent < 50u * 1024 * 1024; sent += block.size()) {
      if (!flood.send(block)) return;  // the server closed the connection: as it should
    }
  });
  const auto answer = flood.read_response(30s);
  ASSERT_TRUE(answer);
  EXPECT_EQ(status_of(*answer), 431) << answer->substr(0, 200);
  sender.join();
  EXPECT_LT(resident_kib() - before, 16 * 1024) << "KiB of resident memory grown";
}

}  // namespace
}  // namespace retryproof::provider
