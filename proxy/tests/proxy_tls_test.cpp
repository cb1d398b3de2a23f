// HTTPS on both sides of the proxy, on real sockets with real OpenSSL: an https upstream (a
// provider serving a generated certificate) is verified, and one that does not verify is a
// 502 upstream_tls_error naming the reason; the proxy serves its own clients over TLS, and
// its journal says how each TLS stream ended.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/temp_dir.hpp"
#include "provider/tests/eventually.hpp"
#include "provider/tests/raw_http.hpp"
#include "provider/tests/tls_client.hpp"
#include "provider/tests/tls_fixture.hpp"
#include "proxy/tests/proxy_test_support.hpp"

namespace retryproof::proxy {
namespace {

using nlohmann::json;
using provider::testing::body_of;
using provider::testing::eventually;
using provider::testing::raw_control_request;
using provider::testing::raw_exchange;
using provider::testing::raw_post_jobs;
using provider::testing::ReadUntil;
using provider::testing::status_of;
using provider::testing::test_tls;
using provider::testing::tls_exchange;
using provider::testing::TlsEnd;
using testing::last_journal_entry;
using testing::RawAnswer;

// A create through the (plain) proxy.
RawAnswer create_through(ProxyServer& proxy, const std::string& key = "k") {
  return testing::raw_answer_of(
      raw_exchange(proxy.port(), raw_post_jobs(key, R"({"orderId":"o-1"})"), ReadUntil::response)
          .received);
}

std::string detail_of(const RawAnswer& answer) {
  return answer.body.value("detail", "");
}

// The generated CA, as --upstream-ca reads it from a file.
class HttpsUpstream : public ::testing::Test {
 protected:
  UpstreamTrust trusting_the_ca() {
    return read_upstream_ca(files.write("ca.pem", test_tls().ca_certificate_pem));
  }
  // A provider serving the generated certificate (for localhost, 127.0.0.1 and ::1) on `host`.
  provider::ProviderServer& serve(const std::string& host = "127.0.0.1") {
    return upstream.emplace(
        provider::ProviderConfig{},
        provider::ServerOptions{.host = host, .port = 0, .tls = test_tls().identity});
  }
  std::string upstream_url(const std::string& host) const {
    return "https://" + host + ":" + std::to_string(upstream->port());
  }

  TempDir files{"retryproof-proxy-tls-test"};
  std::optional<provider::ProviderServer> upstream;
};

TEST_F(HttpsUpstream, AProviderWhoseCaIsTrustedIsForwardedTo) {
  serve();
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream->base_url()),
                    testing::quick_limits(), 1024 * 1024, trusting_the_ca());
  const RawAnswer answer = create_through(proxy);
  EXPECT_EQ(answer.status, 201) << answer.body;
  EXPECT_EQ(answer.body["orderId"], "o-1");
  EXPECT_EQ(upstream->core().job_count(), 1u);
  EXPECT_EQ(last_journal_entry(proxy)["upstreamStatus"], 201);
  EXPECT_TRUE(
      last_journal_entry(proxy)["closeNotify"].is_null());  // the proxy's client spoke plain HTTP
  // The proxy asks for one answer per connection: the provider ends each TLS stream cleanly.
  EXPECT_TRUE(eventually(
      [&] { return upstream->core().journal_json()["entries"].back()["closeNotify"] == true; }));
}

TEST_F(HttpsUpstream, AHostNameIsVerifiedAndSentAsSni) {
  serve();
  // "localhost" is a DNS name in the certificate: verified by name, not by address.
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream_url("localhost")),
                    testing::quick_limits(), 1024 * 1024, trusting_the_ca());
  const RawAnswer answer = create_through(proxy);
  EXPECT_EQ(answer.status, 201) << answer.body;
}

TEST_F(HttpsUpstream, WithoutItsCaTheUpstreamIs502UpstreamTlsErrorNamingAnUnknownCa) {
  serve();
  // The system's CAs: the generated CA is not among them.
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream->base_url()),
                    testing::quick_limits());
  testing::install_plan(proxy.base_url(), {{"faults", {"commit-then-drop"}}});
  const RawAnswer answer = create_through(proxy);
  EXPECT_EQ(answer.status, 502);
  EXPECT_EQ(answer.body["error"], "upstream_tls_error");
  EXPECT_NE(detail_of(answer).find("the system's CAs"), std::string::npos) << answer.body;
  EXPECT_NE(detail_of(answer).find("unable to get local issuer certificate"), std::string::npos)
      << answer.body;
  EXPECT_NE(detail_of(answer).find("unknown CA"), std::string::npos) << answer.body;
  const json seen = last_journal_entry(proxy);
  EXPECT_EQ(seen["upstreamError"], "tls");
  EXPECT_EQ(seen["status"], 502);
  EXPECT_TRUE(seen["fault"].is_null());                    // not applied: nothing was committed
  EXPECT_EQ(upstream->core().journal_json()["count"], 0);  // no request reached it
}

TEST_F(HttpsUpstream, AnotherCaIsAnUnknownCaToo) {
  serve();
  const UpstreamTrust other = read_upstream_ca(
      files.write("other.pem", provider::generate_tls_identity().ca_certificate_pem));
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream->base_url()),
                    testing::quick_limits(), 1024 * 1024, other);
  const RawAnswer answer = create_through(proxy);
  EXPECT_EQ(answer.status, 502);
  EXPECT_EQ(answer.body["error"], "upstream_tls_error");
  EXPECT_NE(detail_of(answer).find("--upstream-ca " + (files.path() / "other.pem").string()),
            std::string::npos)
      << answer.body;
  EXPECT_NE(detail_of(answer).find("unknown CA"), std::string::npos) << answer.body;
}

TEST_F(HttpsUpstream, ACertificateForAnotherHostIs502NamingTheMismatch) {
  // 127.0.0.2 is loopback too, and not one of the certificate's names.
  serve("127.0.0.2");
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream_url("127.0.0.2")),
                    testing::quick_limits(), 1024 * 1024, trusting_the_ca());
  const RawAnswer answer = create_through(proxy);
  EXPECT_EQ(answer.status, 502);
  EXPECT_EQ(answer.body["error"], "upstream_tls_error");
  EXPECT_NE(detail_of(answer).find("IP address mismatch"), std::string::npos) << answer.body;
  EXPECT_NE(detail_of(answer).find("does not name 127.0.0.2"), std::string::npos) << answer.body;
  EXPECT_EQ(last_journal_entry(proxy)["upstreamError"], "tls");
}

TEST_F(HttpsUpstream, APlainHttpUpstreamAtAnHttpsUrlIs502SayingSo) {
  provider::ProviderServer plain({}, {.port = 0});
  ProxyServer proxy({}, {.port = 0},
                    parse_upstream_url("https://127.0.0.1:" + std::to_string(plain.port())),
                    testing::quick_limits(), 1024 * 1024, trusting_the_ca());
  const RawAnswer answer = create_through(proxy);
  EXPECT_EQ(answer.status, 502);
  EXPECT_EQ(answer.body["error"], "upstream_tls_error");
  EXPECT_NE(detail_of(answer).find("does it serve HTTPS"), std::string::npos) << answer.body;
}

TEST(UpstreamCaFile, AMissingOrEmptyFileIsAnErrorNamingIt) {
  const TempDir files("retryproof-proxy-tls-test");
  const auto problem = [](const std::filesystem::path& path) {
    try {
      read_upstream_ca(path);
    } catch (const std::runtime_error& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  const auto missing = files.path() / "missing.pem";
  EXPECT_NE(problem(missing).find("cannot read the --upstream-ca file " + missing.string()),
            std::string::npos)
      << problem(missing);
  const auto key = files.write("key.pem", test_tls().identity.private_key_pem);
  EXPECT_NE(problem(key).find(key.string() + " holds no PEM certificate"), std::string::npos)
      << problem(key);
}

// The proxy serving HTTPS itself, in front of a plain provider.
class ProxyOverTls : public ::testing::Test {
 protected:
  provider::ProviderServer upstream{{}, {.port = 0}};
  ProxyServer proxy{{},
                    {.port = 0, .tls = test_tls().identity},
                    parse_upstream_url(upstream.base_url()),
                    testing::quick_limits()};
  const std::string& ca() const { return test_tls().ca_certificate_pem; }
};

TEST_F(ProxyOverTls, ItsUrlIsHttpsAndItsAnswersComeOverTls) {
  EXPECT_TRUE(proxy.base_url().starts_with("https://127.0.0.1:")) << proxy.base_url();
  const auto exchange = tls_exchange(proxy.port(), ca(), raw_post_jobs("k", "{}"));
  EXPECT_EQ(status_of(exchange.received), 201) << exchange.received;
  EXPECT_EQ(exchange.end, TlsEnd::close_notify) << to_string(exchange.end);
  EXPECT_EQ(upstream.core().job_count(), 1u);
  EXPECT_EQ(last_journal_entry(proxy)["closeNotify"], true);  // Connection: close ended the stream
}

// The live page served by the proxy over TLS posts from its own https:// origin: its outage
// drill is served; from an http:// origin on the same port it is refused.
TEST_F(ProxyOverTls, ItsOwnHttpsOriginMayStartAnOutageAndAnHttpOneMayNot) {
  const int port = proxy.port();
  const std::string drill = R"({"outage":{"for":"30s","fault":"fail-before-commit"}})";
  const std::string own = "https://localhost:" + std::to_string(port);
  const auto refused =
      tls_exchange(port, ca(),
                   raw_control_request(port, "POST", "/_test/faults", drill,
                                       "http://localhost:" + std::to_string(port)));
  EXPECT_EQ(status_of(refused.received), 403) << refused.received;
  EXPECT_EQ(json::parse(body_of(refused.received), nullptr, false)["error"], "forbidden_origin");
  EXPECT_EQ(status_of(tls_exchange(port, ca(), raw_post_jobs("before", "{}")).received), 201);

  const auto started =
      tls_exchange(port, ca(), raw_control_request(port, "POST", "/_test/faults", drill, own));
  EXPECT_EQ(status_of(started.received), 200) << started.received;
  EXPECT_EQ(status_of(tls_exchange(port, ca(), raw_post_jobs("during", "{}")).received), 503);
  EXPECT_EQ(upstream.core().job_count(), 1u);  // the outage failed the second before the upstream
}

TEST(ProxyServingTls, ATruncationEndsWithCloseNotifyAndAResetWithoutAndTheJournalSaysWhich) {
  provider::ProviderServer upstream({}, {.port = 0});
  ProxyConfig config;
  config.initial_plan = provider::FaultPlan::from_json(
      json{{"faults", {"commit-then-truncate", "commit-then-reset"}}});
  ProxyServer proxy(std::move(config), {.port = 0, .tls = test_tls().identity},
                    parse_upstream_url(upstream.base_url()), testing::quick_limits());
  const std::string& ca = test_tls().ca_certificate_pem;

  const auto truncated = tls_exchange(proxy.port(), ca, raw_post_jobs("k1", R"({"a":1})"));
  const auto cut = provider::testing::cut_response(truncated.received);
  ASSERT_TRUE(cut) << truncated.received;
  EXPECT_EQ(cut->body.size(), cut->promised / 2);
  EXPECT_EQ(truncated.end, TlsEnd::close_notify) << to_string(truncated.end);
  EXPECT_EQ(last_journal_entry(proxy)["delivery"], "truncate");
  EXPECT_EQ(last_journal_entry(proxy)["closeNotify"], true);

  const auto reset = tls_exchange(proxy.port(), ca, raw_post_jobs("k2", R"({"a":2})"));
  EXPECT_EQ(reset.received, "");
  EXPECT_EQ(reset.end, TlsEnd::reset) << to_string(reset.end) << " " << reset.tls_error;
  EXPECT_EQ(last_journal_entry(proxy)["delivery"], "reset");
  EXPECT_EQ(last_journal_entry(proxy)["closeNotify"], false);
  EXPECT_EQ(upstream.core().job_count(), 2u);  // both committed upstream
}

}  // namespace
}  // namespace retryproof::proxy
