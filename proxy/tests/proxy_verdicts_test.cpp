// The proxy records the operation field and judges its own journal, over real sockets, in
// front of a real provider: --operation-field and GET /_test/verdicts, as the provider's.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "provider/tests/raw_http.hpp"
#include "proxy/tests/proxy_test_support.hpp"
#include "scenarios/judge/traffic.hpp"
#include "scenarios/judge/verdicts_endpoint.hpp"

namespace retryproof::proxy {
namespace {

using nlohmann::json;
using provider::testing::raw_exchange;
using provider::testing::raw_post_jobs;
using testing::get_json;
using testing::post_job;

ProxyConfig judging(std::optional<std::string> field) {
  return {.operation_field = std::move(field),
          .control_endpoints = {scenarios::verdicts_endpoint()}};
}

json verdict(const json& scenario, const std::string& id) {
  for (const json& verdict : scenario["verdicts"]) {
    if (verdict["id"] == id) return verdict;
  }
  return nullptr;
}

httplib::Result get(const std::string& base_url, const std::string& target) {
  httplib::Client client(base_url);
  return client.Get(target);
}

// The upstream records nothing of the payload; the proxy records the field it was told to,
// a top-level name or a JSON Pointer, from the request it forwarded.
TEST(ProxyOperationField, EachCreateRecordsTheFieldsValueAndNothingElse) {
  provider::ProviderServer upstream({}, {.port = 0});
  for (const std::string field : {"orderId", "/metadata/orderId"}) {
    SCOPED_TRACE(field);
    ProxyServer proxy(judging(field), {.port = 0}, parse_upstream_url(upstream.base_url()));
    ASSERT_EQ(post_job(proxy.base_url(), "k1-" + field,
                       R"({"orderId":"o-7","metadata":{"orderId":"o-7"},"amount":120})")
                  ->status,
              201);
    ASSERT_EQ(post_job(proxy.base_url(), "k2-" + field, R"({"amount":5})")->status, 201);
    const json entries = get_json(proxy.base_url(), "/_test/journal")["entries"];
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[0]["operation"], "o-7");
    EXPECT_TRUE(entries[1]["operation"].is_null()) << "the payload has no such field";
    EXPECT_EQ(entries[0].dump().find("120"), std::string::npos) << "no payload is recorded";
  }
  for (const json& seen : upstream.core().journal_json()["entries"]) {
    EXPECT_TRUE(seen["operation"].is_null()) << "the upstream was started without the field";
  }
}

// A create an outage fails never reaches the upstream, but it is still its order's attempt.
TEST(ProxyOperationField, ACreateAnOutageFailedRecordsTheField) {
  provider::ProviderServer upstream({}, {.port = 0});
  ProxyServer proxy(judging("orderId"), {.port = 0}, parse_upstream_url(upstream.base_url()));
  testing::install_plan(proxy.base_url(),
                        {{"outage", {{"for", "30s"}, {"fault", "fail-before-commit"}}}});
  ASSERT_EQ(post_job(proxy.base_url(), "k1", R"({"orderId":"o-5"})")->status, 503);
  const json entry = get_json(proxy.base_url(), "/_test/journal")["entries"][0];
  EXPECT_EQ(entry["outcome"], "outage");
  EXPECT_EQ(entry["operation"], "o-5");
}

TEST(ProxyOperationField, WithoutOneNothingIsRecorded) {
  provider::ProviderServer upstream({}, {.port = 0});
  ProxyServer proxy({}, {.port = 0}, parse_upstream_url(upstream.base_url()));
  ASSERT_EQ(post_job(proxy.base_url(), "k")->status, 201);
  EXPECT_TRUE(get_json(proxy.base_url(), "/_test/journal")["entries"][0]["operation"].is_null());
}

// A service's answer dropped after the upstream committed, retried under a fresh key: the
// upstream holds two jobs for one order, and the proxy's judge finds them by orderId.
class ProxyVerdicts : public ::testing::Test {
 protected:
  provider::ProviderServer upstream{{}, {.port = 0}};
  ProxyServer proxy{judging("orderId"), {.port = 0}, parse_upstream_url(upstream.base_url())};

  void SetUp() override {
    testing::install_plan(proxy.base_url(), {{"faults", {"commit-then-drop"}}});
    EXPECT_EQ(raw_exchange(proxy.port(), raw_post_jobs("ship-1", R"({"orderId":"o-1"})")).received,
              "");
    ASSERT_EQ(post_job(proxy.base_url(), "ship-2", R"({"orderId":"o-1"})")->status, 201);
    ASSERT_EQ(upstream.core().job_count(), 2u);
  }
};

TEST_F(ProxyVerdicts, JudgeItsJournalLiveByTheOperationField) {
  const auto answer = get(proxy.base_url(), "/_test/verdicts");
  ASSERT_TRUE(answer);
  ASSERT_EQ(answer->status, 200) << answer->body;
  EXPECT_EQ(answer->get_header_value("Content-Type"), "application/json");
  const json report = json::parse(answer->body);
  const json scenario = report["scenarios"][0];
  const json duplicate = verdict(scenario, "no-duplicate-effect");
  EXPECT_EQ(duplicate["status"], "fail");
  EXPECT_NE(duplicate["explanation"].get<std::string>().find("operation orderId=o-1 has 2 jobs"),
            std::string::npos)
      << duplicate;
  EXPECT_EQ(verdict(scenario, "key-stability")["status"], "fail");
  EXPECT_EQ(scenario["invocations"].size(), 1u) << "two keys, one order";
}

// Live and saved give one judgement: the endpoint's verdicts are `retryproof judge`'s over
// the journal the proxy serves.
TEST_F(ProxyVerdicts, AreTheVerdictsOfTheJournalItServes) {
  const json live = json::parse(get(proxy.base_url(), "/_test/verdicts")->body)["scenarios"][0];
  const auto saved = provider::journal_from_json(get_json(proxy.base_url(), "/_test/journal"));
  const scenarios::ScenarioResult judged =
      scenarios::judge_traffic(saved, {.operation_field = "orderId"});
  ASSERT_EQ(live["verdicts"].size(), judged.verdicts.size());
  for (std::size_t i = 0; i < judged.verdicts.size(); ++i) {
    EXPECT_EQ(live["verdicts"][i]["id"], judged.verdicts[i].id);
    EXPECT_EQ(live["verdicts"][i]["status"], scenarios::to_string(judged.verdicts[i].status))
        << judged.verdicts[i].id;
  }
}

TEST_F(ProxyVerdicts, AnswerEveryReportFormatAndRefuseABadQueryWithTheReason) {
  const auto text = get(proxy.base_url(), "/_test/verdicts?format=text&policy=attempts%3D3");
  ASSERT_EQ(text->status, 200) << text->body;
  EXPECT_NE(text->body.find("verdicts: the proxy's journal, live"), std::string::npos)
      << text->body;
  EXPECT_NE(text->body.find("no-duplicate-effect"), std::string::npos);
  EXPECT_EQ(get(proxy.base_url(), "/_test/verdicts?format=junit")->status, 200);

  const auto other = get(proxy.base_url(), "/_test/verdicts?operationField=cartId");
  ASSERT_EQ(other->status, 400);
  const json refused = json::parse(other->body);
  EXPECT_EQ(refused["error"], "invalid_verdicts_query");
  EXPECT_NE(refused["detail"].get<std::string>().find("this proxy records orderId"),
            std::string::npos)
      << refused;
  EXPECT_EQ(get(proxy.base_url(), "/_test/verdicts?format=pdf")->status, 400);

  httplib::Client client(proxy.base_url());
  const auto posted = client.Post("/_test/verdicts", "", "application/json");
  EXPECT_EQ(posted->status, 405);
  EXPECT_EQ(upstream.core().journal_size(), 2u) << "control calls are never forwarded";
}

TEST(ProxyVerdictsWithoutAField, JudgeByKeyAndSayHowToRecordOne) {
  provider::ProviderServer upstream({}, {.port = 0});
  ProxyServer proxy(judging(std::nullopt), {.port = 0}, parse_upstream_url(upstream.base_url()));
  ASSERT_EQ(post_job(proxy.base_url(), "k")->status, 201);
  const auto by_key = get(proxy.base_url(), "/_test/verdicts");
  ASSERT_EQ(by_key->status, 200) << by_key->body;
  EXPECT_EQ(verdict(json::parse(by_key->body)["scenarios"][0], "no-duplicate-effect")["status"],
            "pass");
  const auto asked = get(proxy.base_url(), "/_test/verdicts?operationField=orderId");
  ASSERT_EQ(asked->status, 400);
  EXPECT_NE(json::parse(asked->body)["detail"].get<std::string>().find(
                "this proxy records no operation field; start it with --operation-field orderId"),
            std::string::npos)
      << asked->body;
}

TEST(ProxyVerdictsWithoutAField, AreGuardedByTheControlToken) {
  provider::ProviderServer upstream({}, {.port = 0});
  ProxyConfig config = judging("orderId");
  config.control_token = "T";
  ProxyServer proxy(config, {.port = 0}, parse_upstream_url(upstream.base_url()));
  EXPECT_EQ(get(proxy.base_url(), "/_test/verdicts")->status, 401);
  httplib::Client client(proxy.base_url());
  EXPECT_EQ(client.Get("/_test/verdicts", {{"Authorization", "Bearer T"}})->status, 200);
}

// The verdicts judge the entries in memory and say how many of those journaled they were:
// "judged N of M entries" in every format, "judged" and "of" in JSON. The provider and the
// proxy alike, past a --journal-limit that dropped the oldest.
TEST(VerdictsShare, SayHowManyOfTheJournaledEntriesWereJudged) {
  provider::ProviderServer provider(
      {.journal = {.in_memory = 4}, .control_endpoints = {scenarios::verdicts_endpoint()}},
      {.port = 0});
  ProxyConfig config = judging("orderId");
  config.journal = {.in_memory = 4};
  ProxyServer proxy(config, {.port = 0}, parse_upstream_url(provider.base_url()));
  for (const std::string& url : {provider.base_url(), proxy.base_url()}) {
    SCOPED_TRACE(url);
    for (int i = 0; i < 10; ++i)  // new keys at the upstream too, which the first loop filled
      ASSERT_EQ(post_job(url, url + "-" + std::to_string(i))->status, 201);
    const json report = json::parse(get(url, "/_test/verdicts")->body);
    EXPECT_EQ(report["judged"], 4);
    EXPECT_EQ(report["of"], 10);
    EXPECT_NE(get(url, "/_test/verdicts?format=text")->body.find("judged 4 of 10 entries"),
              std::string::npos);
    EXPECT_NE(get(url, "/_test/verdicts?format=markdown")->body.find("judged 4 of 10 entries"),
              std::string::npos);
    EXPECT_NE(get(url, "/_test/verdicts?format=junit")
                  ->body.find(R"(<property name="judged" value="4 of 10 entries"/>)"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace retryproof::proxy
