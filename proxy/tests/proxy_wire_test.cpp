// What the proxy changes on the wire when nothing goes wrong: the base path, the Host,
// the hop-by-hop fields; and what it refuses itself: bad requests, foreign web pages.
#include <gtest/gtest.h>
#include <httplib.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "provider/journal.hpp"
#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"
#include "proxy/tests/proxy_test_support.hpp"
#include "proxy/tests/raw_upstream.hpp"

namespace retryproof::proxy {
namespace {

using nlohmann::json;
using provider::testing::body_of;
using provider::testing::raw_control_request;
using provider::testing::raw_exchange;
using provider::testing::ReadUntil;
using provider::testing::status_of;
using testing::RawUpstream;

constexpr const char* kReplyWithHopByHopFields =
    "HTTP/1.1 200 OK\r\nX-Custom: 1\r\nKeep-Alive: timeout=5\r\nConnection: close\r\n"
    "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nok";

TEST(ProxyWire, ForwardsUnderTheBasePathWithoutHopByHopFields) {
  RawUpstream upstream(kReplyWithHopByHopFields, RawUpstream::Then::close);
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream.url() + "/base"),
                    testing::quick_limits());
  const auto exchange = raw_exchange(
      proxy.port(),
      "GET /jobs/by-idempotency-key/k?expand=1 HTTP/1.1\r\nHost: proxy.local\r\n"
      "Connection: close, X-Hop\r\nX-Hop: secret\r\nTE: trailers\r\nX-Pass: yes\r\n\r\n");
  const std::string sent = upstream.last_request();
  EXPECT_TRUE(sent.starts_with("GET /base/jobs/by-idempotency-key/k?expand=1 HTTP/1.1\r\n"))
      << sent;
  EXPECT_NE(sent.find("Host: 127.0.0.1:" + std::to_string(upstream.port()) + "\r\n"),
            std::string::npos);
  EXPECT_NE(sent.find("X-Pass: yes\r\n"), std::string::npos);
  EXPECT_EQ(sent.find("X-Hop"), std::string::npos);
  EXPECT_EQ(sent.find("TE:"), std::string::npos);
  EXPECT_EQ(sent.find("proxy.local"), std::string::npos);

  const std::string& got = exchange.received;
  EXPECT_EQ(status_of(got), 200);
  EXPECT_NE(got.find("X-Custom: 1\r\n"), std::string::npos);
  EXPECT_NE(got.find("Content-Type: text/plain\r\n"), std::string::npos);
  EXPECT_EQ(got.find("Keep-Alive"), std::string::npos);
  EXPECT_EQ(body_of(got), "ok");
}

TEST(ProxyWire, ForwardsABodyWithItsLengthAndType) {
  RawUpstream upstream(kReplyWithHopByHopFields, RawUpstream::Then::close);
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream.url()), testing::quick_limits());
  const std::string body = R"({"orderId":"o-1"})";
  raw_exchange(proxy.port(), provider::testing::raw_post_jobs("k", body));
  const std::string sent = upstream.last_request();
  EXPECT_TRUE(sent.starts_with("POST /jobs HTTP/1.1\r\n"));
  EXPECT_NE(sent.find("Idempotency-Key: k\r\n"), std::string::npos);
  EXPECT_NE(sent.find("Content-Type: application/json\r\n"), std::string::npos);
  EXPECT_NE(sent.find("Content-Length: " + std::to_string(body.size()) + "\r\n"),
            std::string::npos);
}

// A service whose HTTP client streams its bodies: the proxy reads a chunked body whole, as
// the provider does, and forwards it with a Content-Length.
TEST(ProxyWire, AChunkedCreateIsForwardedAsTheProviderWouldTakeIt) {
  provider::ProviderServer upstream({}, {.port = 0});
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream.base_url()),
                    testing::quick_limits());
  for (const std::string expect : {"", "Expect: 100-continue\r\n"}) {
    const std::string key = expect.empty() ? "chunked" : "chunked-expect";
    const auto exchange = raw_exchange(
        proxy.port(),
        "POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nIdempotency-Key: " + key +
            "\r\nTransfer-Encoding: chunked\r\n" + expect +
            "\r\n6\r\n{\"orde\r\nc\r\nrId\":\"o-ch\"}\r\n0\r\n\r\n");
    const std::string& got = exchange.received;
    const std::size_t final_answer = got.find("HTTP/1.1 2");  // after a 100 Continue
    ASSERT_NE(final_answer, std::string::npos) << got;
    EXPECT_EQ(status_of(got.substr(final_answer)), 201) << got;
    EXPECT_EQ(json::parse(body_of(got.substr(final_answer)))["orderId"], "o-ch") << got;
    // The upstream read the same payload the proxy journaled.
    const json at_proxy = proxy.core().journal_json()["entries"].back();
    const json at_upstream = upstream.core().journal_json()["entries"].back();
    EXPECT_EQ(at_proxy["key"], key);
    EXPECT_EQ(at_upstream["key"], key);
    EXPECT_EQ(at_upstream["outcome"], "new");
    EXPECT_EQ(at_proxy["fingerprint"], at_upstream["fingerprint"]);
  }
  EXPECT_EQ(upstream.core().job_count(), 2u);
}

TEST(ProxyWire, AnswersBadRequestsItself) {
  RawUpstream upstream(kReplyWithHopByHopFields, RawUpstream::Then::close);
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream.url()), testing::quick_limits());
  const auto garbage = raw_exchange(proxy.port(), "\x16\x03\x01 hello\r\n\r\n");
  EXPECT_EQ(status_of(garbage.received), 400);
  EXPECT_EQ(json::parse(body_of(garbage.received))["error"], "bad_request");
  EXPECT_EQ(upstream.connections(), 0);
  // Journaled as the provider journals what its server refuses (proxy_refused_test.cpp).
  EXPECT_EQ(proxy.core().journal_json()["count"], 1);
  EXPECT_EQ(proxy.core().journal_json()["entries"][0]["outcome"], "refused");
}

TEST(ProxyWire, TheControlPlaneRefusesWebPagesAndIsNeverForwarded) {
  RawUpstream upstream(kReplyWithHopByHopFields, RawUpstream::Then::close);
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream.url()), testing::quick_limits());
  const auto foreign = raw_exchange(
      proxy.port(),
      "POST /_test/reset HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(proxy.port()) +
          "\r\nOrigin: http://evil.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(foreign.received), 403);
  const auto unknown =
      raw_exchange(proxy.port(), raw_control_request(proxy.port(), "GET", "/_test/nothing"),
                   ReadUntil::response);
  EXPECT_EQ(status_of(unknown.received), 404);
  EXPECT_EQ(upstream.connections(), 0);
}

// GET /_test/journal, as the judge reads it: the provider's reader accepts it whole.
TEST(ProxyWire, ItsJournalOverHttpIsReadByTheProvidersReader) {
  provider::ProviderServer upstream({}, {.port = 0});
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream.base_url()));
  testing::install_plan(proxy.base_url(), {{"faults", {"commit-then-drop", "fail-before-commit"}}});
  raw_exchange(proxy.port(), provider::testing::raw_post_jobs("a", "{}"));
  testing::post_job(proxy.base_url(), "b");
  httplib::Client(proxy.base_url()).Get("/jobs/by-idempotency-key/a");
  const json document = testing::get_json(proxy.base_url(), "/_test/journal");
  const auto entries = provider::journal_from_json(document);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].delivery, provider::Delivery::drop);
  EXPECT_TRUE(entries[0].job_id);
  EXPECT_EQ(entries[1].status, 503);
  EXPECT_EQ(entries[2].outcome, provider::Outcome::lookup_hit);
  EXPECT_EQ(entries[2].job_id, entries[0].job_id);
  const json jobs = testing::get_json(proxy.base_url(), "/_test/jobs");
  EXPECT_EQ(jobs["count"], 1);
  EXPECT_EQ(jobs["jobs"][0]["id"], *entries[0].job_id);
}

// Keys as bytes (docs/provider.md): the proxy's log quotes and escapes them, its journal
// keeps bytes that are not UTF-8 distinct, escaped, and reads them back.
TEST(ProxyWire, ItsLogQuotesKeysAndItsJournalEscapesBytesThatAreNotUtf8) {
  std::mutex mutex;
  std::vector<std::string> lines;
  ProxyConfig config;
  config.log = [&](const std::string& line) {
    std::lock_guard lock(mutex);
    lines.push_back(line);
  };
  provider::ProviderServer upstream({}, {.port = 0});
  ProxyServer proxy(std::move(config), {.port = 0}, parse_upstream_url(upstream.base_url()));
  const auto lookup = raw_exchange(proxy.port(),
                                   "GET /jobs/by-idempotency-key/x%FF%0D%0A HTTP/1.1\r\n"
                                   "Host: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(lookup.received), 404) << lookup.received;
  const json document = testing::get_json(proxy.base_url(), "/_test/journal");
  ASSERT_EQ(document["entries"].size(), 1u);
  EXPECT_EQ(document["entries"][0]["key"], "x\\xFF\\x0D\\x0A");
  EXPECT_EQ(document["entries"][0]["keyEscaped"], true);
  EXPECT_EQ(provider::journal_from_json(document)[0].key, "x\xFF\r\n");
  proxy.stop();
  std::lock_guard lock(mutex);
  const std::vector<std::string> expected{R"([proxy] key="x\xFF\x0D\x0A" LOOKUP UPSTREAM 404)"};
  EXPECT_EQ(lines, expected);
}

// A raw CR in a lookup's target reaches the proxy: journaled, refused, never forwarded.
TEST(ProxyWire, ALookupWithARawCrIsJournaledRefusedAndNotForwarded) {
  RawUpstream upstream(kReplyWithHopByHopFields, RawUpstream::Then::close);
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream.url()), testing::quick_limits());
  const auto refused = raw_exchange(proxy.port(),
                                    "GET /jobs/by-idempotency-key/a\rb HTTP/1.1\r\n"
                                    "Host: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(refused.received), 400) << refused.received;
  EXPECT_EQ(upstream.connections(), 0);
  const auto entries = provider::journal_from_json(proxy.core().journal_json());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].kind, provider::RequestKind::lookup);
  EXPECT_EQ(entries[0].key, "a\rb");
  EXPECT_EQ(entries[0].outcome, provider::Outcome::invalid);
  EXPECT_EQ(entries[0].status, 400);
}

}  // namespace
}  // namespace retryproof::proxy
