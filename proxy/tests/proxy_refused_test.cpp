// Requests the proxy's own server refuses before the core sees them (a body over --max-body,
// a head over its limits or past its deadline, a connection over the cap) are load in a
// storm: journaled as the provider journals them, outcome `refused` with the status sent,
// and never forwarded.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "provider/journal.hpp"
#include "provider/tests/raw_http.hpp"
#include "proxy/proxy_server.hpp"
#include "proxy/tests/proxy_test_support.hpp"
#include "proxy/tests/raw_upstream.hpp"

namespace retryproof::proxy {
namespace {

using namespace std::chrono_literals;
using provider::JournalEntry;
using provider::Outcome;
using provider::RequestKind;
using provider::testing::raw_exchange;
using provider::testing::raw_post_jobs;
using provider::testing::RawConnection;
using provider::testing::ReadUntil;
using provider::testing::status_of;
using testing::RawUpstream;

constexpr const char* kCreatedReply =
    "HTTP/1.1 201 Created\r\nConnection: close\r\nContent-Type: application/json\r\n"
    "Content-Length: 16\r\n\r\n{\"id\":\"job_up1\"}";

TEST(ProxyRefused, OverALimitOrADeadlineARequestIsJournaledRefusedAndNotForwarded) {
  RawUpstream upstream(kCreatedReply, RawUpstream::Then::close);
  ProxyServer proxy({}, {.port = 0, .header_timeout = 300ms}, parse_upstream_url(upstream.url()),
                    testing::quick_limits(), 1024);
  const auto too_large = raw_exchange(
      proxy.port(),
      "POST /jobs HTTP/1.1\r\nHost: x\r\nIdempotency-Key: k\r\nContent-Length: 5000\r\n\r\n");
  EXPECT_EQ(status_of(too_large.received), 413) << too_large.received;
  const auto big_head = raw_exchange(proxy.port(),
                                     "GET /jobs/by-idempotency-key/k HTTP/1.1\r\n"
                                     "Host: x\r\nX-Big: " +
                                         std::string(17 * 1024, 'b') + "\r\n\r\n");
  EXPECT_EQ(status_of(big_head.received), 431) << big_head.received.substr(0, 200);
  RawConnection slow(proxy.port());
  slow.send("POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  const auto late = slow.read_until_closed(5s);
  EXPECT_EQ(status_of(late.received), 408) << late.received;
  EXPECT_EQ(upstream.connections(), 0) << "a refused request reached the upstream";

  const std::vector<JournalEntry> journal = proxy.core().journal();
  ASSERT_EQ(journal.size(), 3u);
  for (const JournalEntry& entry : journal) {
    EXPECT_EQ(entry.outcome, Outcome::refused) << entry.seq;
    EXPECT_TRUE(entry.answered()) << entry.seq;
    EXPECT_FALSE(entry.fingerprint) << entry.seq;
  }
  EXPECT_EQ(journal[0].status, 413);
  EXPECT_EQ(journal[0].method, "POST");
  EXPECT_EQ(journal[0].path, "/jobs");
  EXPECT_EQ(journal[0].kind, RequestKind::create);  // by its route, though its body was not read
  EXPECT_EQ(journal[1].status, 431);
  EXPECT_EQ(journal[1].kind, RequestKind::other);  // the head was never read whole
  EXPECT_EQ(journal[2].status, 408);
  // And over HTTP, with the proxy's fields, for a judge.
  const nlohmann::json served = testing::get_json(proxy.base_url(), "/_test/journal");
  EXPECT_EQ(provider::journal_from_json(served), journal);
  EXPECT_EQ(served["entries"][0]["upstreamStatus"], nullptr);
}

TEST(ProxyRefused, AConnectionOverTheCapIsJournaledRefused) {
  RawUpstream upstream(kCreatedReply, RawUpstream::Then::close);
  ProxyServer proxy({}, {.port = 0, .max_connections = 4, .reserved_control_connections = 2},
                    parse_upstream_url(upstream.url()), testing::quick_limits());
  std::vector<RawConnection> held;  // heads begun, never finished: the cap is full
  for (int i = 0; i < 4; ++i) {
    held.emplace_back(proxy.port());
    ASSERT_TRUE(held.back().send("GET /jobs/by-idempotency-key/k HTTP/1.1\r\n"));
  }
  // At the cap only the control plane's reserve is left: a create is refused there.
  const auto answer = raw_exchange(proxy.port(), raw_post_jobs("k", "{}"), ReadUntil::closed);
  EXPECT_EQ(status_of(answer.received), 503) << answer.received;
  const std::vector<JournalEntry> journal = proxy.core().journal();
  ASSERT_EQ(journal.size(), 1u);
  EXPECT_EQ(journal[0].outcome, Outcome::refused);
  EXPECT_EQ(journal[0].status, 503);
  EXPECT_EQ(upstream.connections(), 0);
}

}  // namespace
}  // namespace retryproof::proxy
