// Upstreams on a bad day: dead, silent, speaking garbage, closing early, answering too
// much. The client always gets an explicit answer (502 or 504, with a reason), the
// journal says what happened, and the proxy serves on.
#include <gtest/gtest.h>
#include <httplib.h>

#include <future>
#include <nlohmann/json.hpp>

#include "provider/tests/eventually.hpp"
#include "provider/tests/raw_http.hpp"
#include "proxy/tests/proxy_test_support.hpp"
#include "proxy/tests/raw_upstream.hpp"

namespace retryproof::proxy {
namespace {

using nlohmann::json;
using provider::testing::eventually;
using provider::testing::raw_exchange;
using provider::testing::raw_post_jobs;
using provider::testing::RawConnection;
using provider::testing::ReadUntil;
using testing::last_journal_entry;
using testing::RawAnswer;
using testing::RawUpstream;
using namespace std::chrono_literals;

// A create through a proxy in front of `upstream_url`, with a commit-then-drop planned:
// a fault after the commit must not turn a failed upstream into a silent drop.
RawAnswer create_with_commit_then_drop(ProxyServer& proxy) {
  testing::install_plan(proxy.base_url(), {{"faults", {"commit-then-drop"}}});
  return testing::raw_answer_of(
      raw_exchange(proxy.port(), raw_post_jobs("k", R"({"orderId":"o-1"})"), ReadUntil::response)
          .received);
}

// The proxy outlived it: its control plane answers, and so does the next request.
void expect_still_serving(ProxyServer& proxy) {
  httplib::Client client(proxy.base_url());
  const auto journal = client.Get("/_test/journal");
  ASSERT_TRUE(journal);
  EXPECT_EQ(journal->status, 200);
  const auto again = client.Get("/jobs/by-idempotency-key/k");
  ASSERT_TRUE(again);
  EXPECT_GE(again->status, 500);
}

TEST(ProxyUpstreamFailures, ADeadUpstreamIs502Unreachable) {
  std::string dead_url;
  {
    provider::ProviderServer upstream({}, {.port = 0});
    dead_url = upstream.base_url();
  }  // stopped: its port refuses connections
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(dead_url), testing::quick_limits());
  const RawAnswer answer = create_with_commit_then_drop(proxy);
  EXPECT_EQ(answer.status, 502);
  EXPECT_EQ(answer.body["error"], "upstream_unreachable");
  EXPECT_NE(answer.body["detail"].get<std::string>().find("cannot connect"), std::string::npos);
  const json seen = last_journal_entry(proxy);
  EXPECT_EQ(seen["upstreamError"], "unreachable");
  EXPECT_EQ(seen["status"], 502);
  EXPECT_EQ(seen["delivered"], true);
  EXPECT_TRUE(seen["fault"].is_null());  // not applied: nothing was committed
  expect_still_serving(proxy);
}

TEST(ProxyUpstreamFailures, ASilentUpstreamIs504AfterTheDeadline) {
  RawUpstream silent("", RawUpstream::Then::wait_for_peer);
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(silent.url()), testing::quick_limits());
  const RawAnswer answer = create_with_commit_then_drop(proxy);
  EXPECT_EQ(answer.status, 504);
  EXPECT_EQ(answer.body["error"], "upstream_timeout");
  EXPECT_EQ(last_journal_entry(proxy)["upstreamError"], "timeout");
  expect_still_serving(proxy);
}

TEST(ProxyUpstreamFailures, AGarbageSpeakingUpstreamIs502BadResponse) {
  RawUpstream garbage("SSH-2.0-OpenSSH_9.2\r\n\r\n", RawUpstream::Then::wait_for_peer);
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(garbage.url()), testing::quick_limits());
  const RawAnswer answer = create_with_commit_then_drop(proxy);
  EXPECT_EQ(answer.status, 502);
  EXPECT_EQ(answer.body["error"], "upstream_bad_response");
  EXPECT_EQ(last_journal_entry(proxy)["upstreamError"], "malformed");
  expect_still_serving(proxy);
}

TEST(ProxyUpstreamFailures, AnUpstreamThatClosesWithoutAWordIs502Closed) {
  RawUpstream closing("", RawUpstream::Then::close);
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(closing.url()), testing::quick_limits());
  const RawAnswer answer = create_with_commit_then_drop(proxy);
  EXPECT_EQ(answer.status, 502);
  EXPECT_EQ(answer.body["error"], "upstream_closed");
  EXPECT_EQ(last_journal_entry(proxy)["upstreamError"], "closed");
  expect_still_serving(proxy);
}

TEST(ProxyUpstreamFailures, HalfAnAnswerIs502Closed) {
  RawUpstream half("HTTP/1.1 201 Created\r\nContent-Length: 40\r\n\r\n{\"id\":\"job_",
                   RawUpstream::Then::close);
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(half.url()), testing::quick_limits());
  const RawAnswer answer = create_with_commit_then_drop(proxy);
  EXPECT_EQ(answer.status, 502);
  EXPECT_EQ(answer.body["error"], "upstream_closed");
  EXPECT_NE(answer.body["detail"].get<std::string>().find("middle"), std::string::npos);
}

TEST(ProxyUpstreamFailures, AnAnswerOverTheLimitIs502BadResponse) {
  RawUpstream large("HTTP/1.1 200 OK\r\nContent-Length: 4096\r\n\r\n" + std::string(4096, 'x'),
                    RawUpstream::Then::close);
  UpstreamLimits limits = testing::quick_limits();
  limits.max_response_bytes = 1024;
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(large.url()), limits);
  const RawAnswer answer = create_with_commit_then_drop(proxy);
  EXPECT_EQ(answer.status, 502);
  EXPECT_EQ(answer.body["error"], "upstream_bad_response");
}

// A garbage-speaking upstream that answers every request: still a 502 each time.
TEST(ProxyUpstreamFailures, EveryRequestToABadUpstreamEndsInAnAnswer) {
  RawUpstream garbage("\x16\x03\x01 not http at all\r\n\r\n", RawUpstream::Then::close);
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(garbage.url()), testing::quick_limits());
  for (int i = 0; i < 5; ++i) {
    const auto exchange = raw_exchange(proxy.port(), raw_post_jobs("k" + std::to_string(i), "{}"));
    EXPECT_EQ(provider::testing::status_of(exchange.received), 502) << exchange.received;
  }
  EXPECT_EQ(garbage.connections(), 5);
  EXPECT_EQ(proxy.core().journal_json()["count"], 5);
}

// A client that gives up while its request is at the upstream costs nothing: the
// exchange ends at its deadline, and is journaled.
TEST(ProxyUpstreamFailures, AClientThatLeavesDoesNotHarmTheProxy) {
  RawUpstream silent("", RawUpstream::Then::wait_for_peer);
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(silent.url()), testing::quick_limits());
  {
    RawConnection client(proxy.port());
    ASSERT_TRUE(client.send(raw_post_jobs("k", "{}")));
    ASSERT_TRUE(eventually([&] { return silent.connections() == 1; }));
  }  // closed before any answer
  ASSERT_TRUE(eventually([&] { return !last_journal_entry(proxy)["answeredAtMs"].is_null(); }));
  EXPECT_EQ(last_journal_entry(proxy)["status"], 504);
  expect_still_serving(proxy);
}

// A request at the upstream holds no I/O thread: with one, and every client waiting on a
// silent upstream, the control plane and other requests are served meanwhile.
TEST(ProxyUpstreamFailures, ASlowUpstreamStarvesNobody) {
  RawUpstream silent("", RawUpstream::Then::wait_for_peer);
  UpstreamLimits patient = testing::quick_limits();
  patient.response_timeout = Millis(600'000);
  ProxyServer proxy({}, {.port = 0, .workers = 1}, parse_upstream_url(silent.url()), patient);
  std::vector<RawConnection> stuck;
  for (int i = 0; i < 3; ++i) {
    stuck.emplace_back(proxy.port());
    ASSERT_TRUE(stuck.back().send(raw_post_jobs("stuck-" + std::to_string(i), "{}")));
  }
  ASSERT_TRUE(eventually([&] { return silent.connections() >= 1; }));
  httplib::Client client(proxy.base_url());
  const auto journal = client.Get("/_test/journal");
  ASSERT_TRUE(journal);
  EXPECT_EQ(journal->status, 200);
  testing::install_plan(proxy.base_url(), {{"faults", {"rate-limited"}}});
  EXPECT_EQ(testing::post_job(proxy.base_url(), "other")->status, 429);
}

// Stopping ends the exchanges with the upstream: the waiting client gets 503, at once,
// rather than waiting out the upstream's deadline.
TEST(ProxyUpstreamFailures, StoppingAnswersTheRequestsAtTheUpstream) {
  RawUpstream silent("", RawUpstream::Then::wait_for_peer);
  UpstreamLimits patient = testing::quick_limits();
  patient.response_timeout = Millis(600'000);
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(silent.url()), patient);
  RawConnection client(proxy.port());
  ASSERT_TRUE(client.send(raw_post_jobs("k", "{}")));
  ASSERT_TRUE(eventually([&] { return silent.connections() == 1; }));
  proxy.stop();
  const auto answer = client.read_response(10s);
  ASSERT_TRUE(answer);
  EXPECT_EQ(provider::testing::status_of(*answer), 503);
  EXPECT_NE(answer->find("proxy_stopping"), std::string::npos);
}

TEST(ProxyUpstreamFailures, StoppingAnswersAHeldRequestWithoutForwardingIt) {
  provider::ProviderServer upstream({}, {.port = 0});
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream.base_url()));
  testing::install_plan(proxy.base_url(), {{"faults", {"delay-before-commit:10m"}}});
  RawConnection client(proxy.port());
  ASSERT_TRUE(client.send(raw_post_jobs("k", "{}")));
  ASSERT_TRUE(eventually([&] { return proxy.core().journal_json()["count"] == 1; }));
  proxy.stop();
  const auto answer = client.read_response(10s);
  ASSERT_TRUE(answer);
  EXPECT_EQ(provider::testing::status_of(*answer), 503);
  EXPECT_EQ(upstream.core().job_count(), 0u);
}

}  // namespace
}  // namespace retryproof::proxy
