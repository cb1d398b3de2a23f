// The parts of `retryproof ui-snapshot` without a browser: the relay that holds the control
// token, against a real provider on a real socket, and the page's words from a DOM.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "provider/provider_server.hpp"
#include "scenarios/commands/chromium_snapshot.hpp"
#include "scenarios/commands/page_text.hpp"
#include "scenarios/commands/token_relay.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;

TEST(TokenRelay, AddsTheTokenSoTheBrowserNeedsNone) {
  provider::ProviderServer server({.control_token = "s3cret"}, {.port = 0});
  const TokenRelay relay(server.base_url(), "s3cret");
  httplib::Client browser(relay.base_url());
  const auto journal = browser.Get("/_test/journal");
  ASSERT_TRUE(journal);
  EXPECT_EQ(journal->status, 200) << journal->body;
  EXPECT_EQ(relay.tally().refused, 0);
  // The provider's answer without the relay: the token is what made the difference.
  EXPECT_EQ(httplib::Client(server.base_url()).Get("/_test/journal")->status, 401);
}

TEST(TokenRelay, CountsARefusalInTheServersWordsAndPassesItOn) {
  provider::ProviderServer server({.control_token = "s3cret"}, {.port = 0});
  for (const std::optional<std::string>& token :
       {std::optional<std::string>(), std::optional<std::string>("wrong")}) {
    const TokenRelay relay(server.base_url(), token);
    const auto answer = httplib::Client(relay.base_url()).Get("/_test/faults");
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 401);
    EXPECT_EQ(json::parse(answer->body)["error"], "unauthorized");
    EXPECT_EQ(relay.tally().refused, 1);
    EXPECT_TRUE(relay.tally().first_problem.starts_with(token ? "the control token is wrong"
                                                              : "the control token is missing"))
        << relay.tally().first_problem;
  }
}

TEST(TokenRelay, AServerGoneIsAJsonAnswerTheHtmlPageReadsAsUnreachable) {
  std::string gone;
  {
    provider::ProviderServer server({}, {.port = 0});
    gone = server.base_url();
  }
  const TokenRelay relay(gone, "s3cret");
  const auto answer = httplib::Client(relay.base_url()).Get("/_test/journal");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 502);
  EXPECT_EQ(json::parse(answer->body)["error"], "server_unreachable");
  EXPECT_EQ(relay.tally().unreachable, 1);
}

// While it runs, the relay lends the token: to read only, and to its own Chromium only.
TEST(TokenRelay, OnlyReadsAndOnlyForItsOwnHostAndOrigin) {
  provider::ProviderServer server({.control_token = "s3cret"}, {.port = 0});
  const TokenRelay relay(server.base_url(), "s3cret");
  httplib::Client browser(relay.base_url());
  const auto reset = browser.Post("/_test/reset", "{}", "application/json");
  ASSERT_TRUE(reset);
  EXPECT_EQ(reset->status, 405);
  EXPECT_EQ(json::parse(reset->body)["error"], "method_not_allowed");
  const auto foreign = browser.Get("/_test/journal", {{"Origin", "http://evil.example"}});
  ASSERT_TRUE(foreign);
  EXPECT_EQ(foreign->status, 403);
  EXPECT_EQ(json::parse(foreign->body)["error"], "forbidden_origin");
  const auto rebound = browser.Get("/_test/journal", {{"Host", "evil.example"}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403);
  const auto data_plane = browser.Get("/jobs/by-idempotency-key/k");
  ASSERT_TRUE(data_plane);
  EXPECT_EQ(data_plane->status, 404) << "the relay serves /_test/ only";
  const auto own = browser.Get("/_test/journal", {{"Origin", relay.base_url()}});
  ASSERT_TRUE(own);
  EXPECT_EQ(own->status, 200) << "its own page's Origin reads";
}

TEST(PageText, GivesTheWordsABlockALineWithoutMarkupOrScript) {
  const std::string dom =
      R"(<html><head><style>p { color: red }</style><script>var x = "<p>no</p>";</script></head>)"
      R"(<body><h2>Operations</h2><p class="unknown"><strong>unknown: wrong token</strong> — )"
      R"(enter it.</p><tr data-operation="<script>window.pwned=1</script>"><th>operation )"
      R"(<code>&lt;img src=x&gt;</code></th><td>2 jobs</td></tr><ul><li>a &amp; b</li></ul></body></html>)";
  EXPECT_EQ(page_text(dom),
            "Operations\nunknown: wrong token — enter it.\noperation <img src=x> 2 jobs\na & b\n");
}

TEST(ChromiumSnapshot, WaitsForThePagesScriptsAndKeepsNothing) {
  const auto arguments =
      chromium_arguments({.url = "http://127.0.0.1:1/_test/ui", .png = "/tmp/x.png"}, "/tmp/p");
  const auto has = [&](const std::string& argument) {
    return std::find(arguments.begin(), arguments.end(), argument) != arguments.end();
  };
  for (const char* flag :
       {"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=/tmp/p", "--virtual-time-budget=5000", "--screenshot=/tmp/x.png"})
    EXPECT_TRUE(has(flag)) << flag;
  EXPECT_EQ(arguments.back(), "http://127.0.0.1:1/_test/ui");
  EXPECT_FALSE(has("--dump-dom"));
}

TEST(ChromiumSnapshot, NoChromiumIsAnErrorWithTheFix) {
  try {
    check_chromium("/nonexistent/chromium");
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(),
                 "no Chromium at /nonexistent/chromium: install Debian's (apt-get install "
                 "chromium), or name another with --chromium PATH");
  }
}

}  // namespace
}  // namespace retryproof::scenarios
