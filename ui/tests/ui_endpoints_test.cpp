// GET /_test/ui and its assets on the provider and the proxy, over real sockets: what a
// browser gets (the page, its script and style, each with a strict Content-Security-Policy),
// and what it does not (a foreign Host or Origin is refused as for every /_test/ call; the
// data calls the page makes still need the control token, which the page itself does not).
#include "ui/ui_endpoints.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"
#include "proxy/proxy_server.hpp"
#include "proxy/upstream_url.hpp"
#include "ui/ui_assets.hpp"

namespace retryproof::ui {
namespace {

using nlohmann::json;
using namespace provider::testing;  // raw_http.hpp: requests and answers on raw sockets

constexpr const char* kToken = "s3cret-token";

// The value of a response's header `name` (the first), or "".
std::string header(const std::string& response, const std::string& name) {
  const std::string head = response.substr(0, response.find("\r\n\r\n"));
  std::string lower_head = head;
  std::string lower_name = name;
  for (char& c : lower_head)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (char& c : lower_name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::size_t at = lower_head.find("\r\n" + lower_name + ":");
  if (at == std::string::npos) return "";
  const std::size_t start = head.find_first_not_of(' ', at + 2 + name.size() + 1);
  return head.substr(start, head.find("\r\n", start) - start);
}

// The provider, or a proxy in front of one: the page is the same on both.
class UiPage : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::vector<provider::ControlEndpoint> endpoints = ui_endpoints();
    if (GetParam() == "provider") {
      provider_ = std::make_unique<provider::ProviderServer>(
          provider::ProviderConfig{.control_token = kToken, .control_endpoints = endpoints},
          provider::ServerOptions{.port = 0});
      port_ = provider_->port();
    } else {
      upstream_ = std::make_unique<provider::ProviderServer>(provider::ProviderConfig{},
                                                             provider::ServerOptions{.port = 0});
      proxy_ = std::make_unique<proxy::ProxyServer>(
          proxy::ProxyConfig{.control_token = kToken, .control_endpoints = endpoints},
          provider::ServerOptions{.port = 0}, proxy::parse_upstream_url(upstream_->base_url()));
      port_ = proxy_->port();
    }
  }

  std::string get(const std::string& path, const std::string& extra_headers = "",
                  const std::string& method = "GET") {
    const std::string request = method + " " + path +
                                " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) + "\r\n" +
                                extra_headers + "Connection: close\r\nContent-Length: 0\r\n\r\n";
    return raw_exchange(port_, request, ReadUntil::closed).received;
  }

  std::unique_ptr<provider::ProviderServer> provider_;
  std::unique_ptr<provider::ProviderServer> upstream_;
  std::unique_ptr<proxy::ProxyServer> proxy_;
  int port_ = 0;
};

TEST_P(UiPage, ThePageAndEachAssetAreServedWithoutTheTokenUnderAStrictPolicy) {
  for (const auto& [path, type] :
       std::vector<std::pair<std::string, std::string>>{{"/_test/ui", "text/html"},
                                                        {"/_test/ui/live.js", "text/javascript"},
                                                        {"/_test/ui/model.js", "text/javascript"},
                                                        {"/_test/ui/view.js", "text/javascript"},
                                                        {"/_test/ui/ui.css", "text/css"}}) {
    SCOPED_TRACE(path);
    const std::string response = get(path);
    ASSERT_EQ(status_of(response), 200) << response.substr(0, 300);
    EXPECT_TRUE(header(response, "Content-Type").starts_with(type))
        << header(response, "Content-Type");
    EXPECT_EQ(header(response, "Content-Security-Policy"), std::string(kPagePolicy));
    EXPECT_EQ(header(response, "X-Content-Type-Options"), "nosniff");
    EXPECT_EQ(header(response, "Cache-Control"), "no-store");
    const std::string name = path == "/_test/ui" ? "index.html" : path.substr(path.rfind('/') + 1);
    EXPECT_EQ(body_of(response), std::string(asset(name))) << "served as built in";
  }
  EXPECT_EQ(kPagePolicy.find("unsafe"), std::string_view::npos) << "no inline script or style";
}

TEST_P(UiPage, ThePageHasNoInlineScriptAndLoadsNothingFromElsewhere) {
  const std::string page = body_of(get("/_test/ui"));
  EXPECT_EQ(page.find("<script>"), std::string::npos) << "CSP would block it anyway";
  for (const std::string attribute : {"onclick=", "onload=", "onerror=", "style="}) {
    EXPECT_EQ(page.find(attribute), std::string::npos) << attribute;
  }
  for (const EmbeddedFile& file : embedded_files()) {
    EXPECT_EQ(std::string(file.bytes).find("https://"), std::string::npos) << file.name;
    EXPECT_EQ(std::string(file.bytes).find("http://"), std::string::npos) << file.name;
    EXPECT_EQ(std::string(file.bytes).find("innerHTML"), std::string::npos) << file.name;
  }
}

TEST_P(UiPage, AForeignHostOrOriginIsRefusedOnThePageAndItsAssets) {
  for (const std::string path : {"/_test/ui", "/_test/ui/live.js", "/_test/ui/ui.css"}) {
    SCOPED_TRACE(path);
    const std::string rebinding =
        raw_exchange(port_,
                     "GET " + path + " HTTP/1.1\r\nHost: evil.example:" + std::to_string(port_) +
                         "\r\nConnection: close\r\n\r\n",
                     ReadUntil::closed)
            .received;
    EXPECT_EQ(status_of(rebinding), 403);
    EXPECT_EQ(json::parse(body_of(rebinding))["error"], "forbidden_host");
    const std::string cross_site = get(path, "Origin: http://evil.example\r\n");
    EXPECT_EQ(status_of(cross_site), 403);
    EXPECT_EQ(json::parse(body_of(cross_site))["error"], "forbidden_origin");
    EXPECT_EQ(status_of(get(path, "Origin: http://127.0.0.1:" + std::to_string(port_) + "\r\n")),
              200)
        << "the page's own origin";
  }
}

TEST_P(UiPage, ThePagesDataCallsStillNeedTheToken) {
  for (const std::string path : {"/_test/journal?after=0&limit=10", "/_test/faults"}) {
    SCOPED_TRACE(path);
    EXPECT_EQ(status_of(get(path)), 401);
    EXPECT_EQ(status_of(get(path, std::string("Authorization: Bearer ") + kToken + "\r\n")), 200);
  }
  EXPECT_EQ(status_of(get("/_test/ui/secrets.js")), 401) << "an unknown asset is a control call";
}

TEST_P(UiPage, OnlyGetAndHead) {
  EXPECT_EQ(status_of(get("/_test/ui", "", "HEAD")), 200);
  EXPECT_EQ(
      status_of(get("/_test/ui", std::string("Authorization: Bearer ") + kToken + "\r\n", "POST")),
      405);
}

INSTANTIATE_TEST_SUITE_P(Servers, UiPage, ::testing::Values("provider", "proxy"),
                         [](const auto& server) { return server.param; });

// The proxy's journal pages as the provider's does, which is how the page follows it.
TEST(ProxyJournalPages, AfterAndLimitReadAPageWithNext) {
  provider::ProviderServer upstream({}, {.port = 0});
  proxy::ProxyServer proxy({}, {.port = 0}, proxy::parse_upstream_url(upstream.base_url()));
  for (int i = 0; i < 5; ++i) {
    const std::string answer =
        raw_exchange(proxy.port(), raw_post_jobs("k" + std::to_string(i), "{}"),
                     ReadUntil::response)
            .received;
    ASSERT_EQ(status_of(answer), 201) << answer;
  }
  const auto page = [&](const std::string& query) {
    return json::parse(
        body_of(raw_exchange(proxy.port(),
                             raw_control_request(proxy.port(), "GET", "/_test/journal?" + query))
                    .received));
  };
  const json first = page("after=0&limit=2");
  EXPECT_EQ(first["count"], 5);
  ASSERT_EQ(first["entries"].size(), 2u);
  EXPECT_EQ(first["entries"][0]["seq"], 1);
  EXPECT_EQ(first["next"], 2);
  const json last = page("after=3&limit=10");
  ASSERT_EQ(last["entries"].size(), 2u);
  EXPECT_EQ(last["entries"][0]["seq"], 4);
  EXPECT_FALSE(last.contains("next"));
  const json bad = page("after=x");
  EXPECT_EQ(bad["error"], "invalid_journal_query") << bad;
  EXPECT_EQ(json::parse(body_of(raw_exchange(proxy.port(), raw_control_request(proxy.port(), "GET",
                                                                               "/_test/faults"))
                                    .received)),
            json({{"faults", json::array()}, {"fired", json::array()}}))
      << "the plan in force, as the provider shows it";
}

}  // namespace
}  // namespace retryproof::ui
