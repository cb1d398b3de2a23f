// The saved run's page (--html): one file holding the live page's code, the run's JSON where
// no key can end the element it sits in, and a Content-Security-Policy that allows exactly
// the inline script and style it carries. What it shows in a browser is checked in chromium
// by ui/tests/browser (ctest ui_browser).
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <array>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "scenarios/tests/report_fixture.hpp"
#include "ui/ui_assets.hpp"

namespace retryproof::scenarios {
namespace {

using namespace report_fixture;

std::string html() {
  std::ostringstream out;
  write_html(out, summary());
  return out.str();
}

// The text between the first `open` after `from` and the `close` after it.
std::string between(const std::string& text, const std::string& open, const std::string& close) {
  const std::size_t start = text.find(open);
  if (start == std::string::npos) return "";
  const std::size_t end = text.find(close, start + open.size());
  return text.substr(start + open.size(), end - start - open.size());
}

std::string sha256_base64(const std::string& text) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest.data(), &size, EVP_sha256(), nullptr);
  std::array<unsigned char, 64> encoded{};
  const int length = EVP_EncodeBlock(encoded.data(), digest.data(), static_cast<int>(size));
  return std::string(encoded.begin(), encoded.begin() + length);
}

TEST(HtmlReport, EmbedsTheRunAsJsonThatNoKeyCanBreakOutOf) {
  const std::string page = html();
  const std::string data =
      between(page, "<script type=\"application/json\" id=\"retryproof-run\">", "</script>");
  ASSERT_FALSE(data.empty());
  EXPECT_EQ(data.find('<'), std::string::npos) << "a key's '<' is escaped";
  const nlohmann::json run = nlohmann::json::parse(data);
  EXPECT_EQ(run["seed"], 42);
  EXPECT_EQ(run["scenarios"].size(), summary().results.size());
  bool found = false;  // the key itself, once parsed: a string value somewhere in the run
  std::function<void(const nlohmann::json&)> look = [&](const nlohmann::json& value) {
    if (value.is_string() && value.get<std::string>() == kAwkwardKey) found = true;
    if (value.is_structured()) {
      for (const nlohmann::json& item : value)
        look(item);
    }
  };
  look(run);
  EXPECT_TRUE(found) << kAwkwardKey;
}

TEST(HtmlReport, ItsPolicyAllowsItsOwnScriptAndStyleAndNothingElse) {
  const std::string page = html();
  const std::string policy =
      between(page, "http-equiv=\"Content-Security-Policy\" content=\"", "\"");
  const std::string script = between(page, "</script>\n<script>", "</script>");
  const std::string style = between(page, "<style>", "</style>");
  EXPECT_EQ(policy, "default-src 'none'; script-src 'sha256-" + sha256_base64(script) +
                        "'; style-src 'sha256-" + sha256_base64(style) +
                        "'; base-uri 'none'; form-action 'none'");
  EXPECT_EQ(style, std::string(ui::asset("ui.css")));
  for (const std::string name : {"model.js", "view.js", "report.js"}) {
    EXPECT_TRUE(contains(script, ui::asset(name))) << name;
  }
  EXPECT_FALSE(contains(script, ui::asset("live.js"))) << "the saved page makes no call";
  EXPECT_EQ(occurrences(page, "<script"), 2u);
}

TEST(HtmlReport, TheTitleEscapesMarkup) {
  RunSummary run = summary();
  run.subject = "judge: <b>journal</b>";
  std::ostringstream out;
  write_html(out, run);
  EXPECT_TRUE(contains(out.str(), "<title>retryproof: judge: &lt;b&gt;journal&lt;/b&gt;</title>"))
      << out.str().substr(0, 600);
}

}  // namespace
}  // namespace retryproof::scenarios
