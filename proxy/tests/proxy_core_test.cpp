// ProxyCore's decisions, with the upstream's answers written by hand: which requests are
// forwarded, what a fault makes of the upstream's answer, and what the journal keeps.
#include "proxy/proxy_core.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "provider/journal.hpp"
#include "proxy/tests/proxy_core_support.hpp"

namespace retryproof::proxy {
namespace {

using nlohmann::json;
using provider::Decision;
using provider::Delivery;
using provider::HttpRequest;
using testing::post_request;
using testing::upstream_created;

HttpRequest control_request(const std::string& method, const std::string& path,
                            const std::string& body = {}) {
  return {.method = method, .path = path, .body = body};
}

class ProxyCoreTest : public ::testing::Test {
 protected:
  ProxyCore core{{}};

  void plan(const json& faults) {
    const Disposition step =
        core.begin(control_request("POST", "/_test/faults", faults.dump()), Millis(0));
    ASSERT_EQ(std::get<Decision>(step).status, 200) << std::get<Decision>(step).body;
  }
  // The request forwarded, answered by the upstream with `answer`: what the client gets.
  Decision through(const HttpRequest& request, const UpstreamAnswer& answer) {
    Disposition step = core.begin(request, Millis(0));
    if (auto* decided = std::get_if<Decision>(&step)) {
      ADD_FAILURE() << "answered without forwarding: " << decided->status;
      return *decided;
    }
    return core.finish(std::get<Forward>(step).ticket, answer, Millis(5));
  }
  json entry(std::size_t index) { return core.journal_json()["entries"][index]; }
};

// An outage means at the proxy what it means at the provider: the service is down, so the
// upstream is not asked, replays and lookups included; outside the window all is forwarded.
TEST_F(ProxyCoreTest, AnOutageAnswersHereAndForwardsNothingInItsWindow) {
  plan(
      json::parse(R"({"outages": [{"from": "0ms", "for": "1s", "fault": "fail-before-commit"}]})"));
  Disposition during = core.begin(post_request("k"), Millis(10));
  ASSERT_TRUE(std::holds_alternative<Decision>(during));
  EXPECT_EQ(std::get<Decision>(during).status, 503);
  Disposition lookup =
      core.begin({.method = "GET", .path = "/jobs/by-idempotency-key/k"}, Millis(20));
  ASSERT_TRUE(std::holds_alternative<Decision>(lookup));
  EXPECT_EQ(std::get<Decision>(lookup).status, 503);
  EXPECT_EQ(entry(0)["outcome"], "outage");
  EXPECT_EQ(entry(0)["fault"], "fail-before-commit");
  EXPECT_EQ(entry(0)["key"], "k");
  EXPECT_EQ(entry(1)["outcome"], "outage");
  // At the window's end the create goes to the upstream.
  Disposition after = core.begin(post_request("k"), Millis(1000));
  EXPECT_TRUE(std::holds_alternative<Forward>(after));
}

// The drill a rehearsal runs by hand: an outage started now, for a while, in the plan in
// force, as at the provider.
TEST_F(ProxyCoreTest, ADrillStartsAnOutageNowInThePlanInForce) {
  plan({{"faults", {"commit-then-drop"}}});
  const Disposition drill =
      core.begin(control_request("POST", "/_test/faults",
                                 R"({"outage": {"for": "1s", "fault": "rate-limited:2"}})"),
                 Millis(5000));
  ASSERT_EQ(std::get<Decision>(drill).status, 200) << std::get<Decision>(drill).body;
  const json in_force = json::parse(std::get<Decision>(drill).body);
  EXPECT_EQ(in_force["faults"], json::array({"commit-then-drop"}));
  EXPECT_EQ(in_force["outages"][0]["from"], "5s");
  const Disposition during = core.begin(post_request("k"), Millis(5500));
  EXPECT_EQ(std::get<Decision>(during).status, 429);
  EXPECT_TRUE(std::holds_alternative<Forward>(core.begin(post_request("k"), Millis(6000))));
}

TEST_F(ProxyCoreTest, ASlowdownHoldsTheRequestThenForwardsIt) {
  plan(json::parse(R"({"outages": [{"from": "0ms", "for": "1s", "fault": "slowdown:300ms"}]})"));
  Disposition held = core.begin(post_request("k"), Millis(10));
  ASSERT_TRUE(std::holds_alternative<Decision>(held));
  const Decision& hold = std::get<Decision>(held);
  EXPECT_EQ(hold.delay, Millis(300));
  ASSERT_TRUE(hold.pending_commit);
  Disposition released = core.release(*hold.pending_commit, Millis(310));
  ASSERT_TRUE(std::holds_alternative<Forward>(released));
  const Decision answer =
      core.finish(std::get<Forward>(released).ticket, upstream_created("job_up"), Millis(320));
  EXPECT_EQ(answer.status, 201);
  EXPECT_EQ(entry(0)["fault"], "delay-before-commit:300ms");
  EXPECT_EQ(entry(0)["jobId"], "job_up");
}

TEST_F(ProxyCoreTest, ACommitThenDropForwardsReadsTheAnswerAndDropsIt) {
  plan({{"faults", {"commit-then-drop"}}});
  const Decision answer = through(post_request("k"), upstream_created("job_up"));
  EXPECT_EQ(answer.delivery, Delivery::drop);
  const json seen = entry(0);
  EXPECT_EQ(seen["fault"], "commit-then-drop");
  EXPECT_EQ(seen["outcome"], "new");
  EXPECT_EQ(seen["jobId"], "job_up");  // the upstream's job
  EXPECT_EQ(seen["upstreamStatus"], 201);
  EXPECT_TRUE(seen["status"].is_null());  // the client got no status line
  EXPECT_EQ(seen["delivered"], false);
  EXPECT_EQ(seen["answeredAtMs"], 5);
  EXPECT_EQ(core.jobs_json()["jobs"][0],
            (json{{"id", "job_up"}, {"key", "k"}, {"orderId", "o-1"}}));
}

TEST_F(ProxyCoreTest, AFaultThatNeverCommitsForwardsNothing) {
  plan({{"faults", {"fail-before-commit", "drop-before-commit", "rate-limited:2"}}});
  for (const char* key : {"a", "b", "c"}) {
    const Disposition step = core.begin(post_request(key), Millis(0));
    ASSERT_TRUE(std::holds_alternative<Decision>(step)) << key;
  }
  const json entries = core.journal_json()["entries"];
  EXPECT_EQ(entries[0]["status"], 503);
  EXPECT_EQ(entries[1]["delivery"], "drop");
  EXPECT_EQ(entries[2]["retryAfter"], 2);
  for (const json& seen : entries)
    EXPECT_TRUE(seen["upstreamStatus"].is_null());
}

// As at the provider, a fault applies to a new operation only: once the upstream has
// committed a key, its repeats are forwarded untouched, and the script waits for the next.
TEST_F(ProxyCoreTest, ACommittedKeyTakesNoFault) {
  plan({{"faults", {"commit-then-error", "fail-before-commit"}}});
  EXPECT_EQ(through(post_request("k"), upstream_created("job_up")).status, 503);
  UpstreamAnswer replayed = upstream_created("job_up", 200);
  replayed.headers.emplace("Idempotent-Replayed", "true");
  EXPECT_EQ(through(post_request("k"), replayed).status, 200);
  EXPECT_EQ(entry(1)["outcome"], "replay");
  EXPECT_TRUE(entry(1)["fault"].is_null());
  const Disposition other = core.begin(post_request("k2"), Millis(0));
  EXPECT_EQ(std::get<Decision>(other).status, 503);  // the script's next fault
}

TEST_F(ProxyCoreTest, AnUpstreamThatDidNotCommitSendsItsOwnAnswer) {
  plan({{"faults", {"commit-then-drop"}}});
  const UpstreamAnswer refused{.status = 422, .body = R"({"error":"x"})"};
  const Decision answer = through(post_request("k"), refused);
  EXPECT_EQ(answer.delivery, Delivery::respond);
  EXPECT_EQ(answer.status, 422);
  EXPECT_TRUE(entry(0)["fault"].is_null());  // spent, not applied: nothing was committed
  EXPECT_EQ(entry(0)["outcome"], "rejected");
}

TEST_F(ProxyCoreTest, AnUpstreamFailureIsAnExplicitAnswerAndAnEntry) {
  plan({{"faults", {"commit-then-drop"}}});
  const Decision answer = through(
      post_request("k"), {.failure = UpstreamFailure::timeout, .detail = "no answer within 1s"});
  EXPECT_EQ(answer.status, 504);
  EXPECT_EQ(answer.delivery, Delivery::respond);
  const json seen = entry(0);
  EXPECT_EQ(seen["upstreamError"], "timeout");
  EXPECT_TRUE(seen["upstreamStatus"].is_null());
  EXPECT_EQ(seen["status"], 504);
  EXPECT_TRUE(seen["fault"].is_null());
}

TEST_F(ProxyCoreTest, DelayBeforeCommitHoldsThenForwards) {
  plan({{"faults", {"delay-before-commit:2s"}}});
  const Disposition held = core.begin(post_request("k"), Millis(0));
  const Decision& hold = std::get<Decision>(held);
  ASSERT_TRUE(hold.pending_commit);
  EXPECT_EQ(hold.delay, Millis(2000));
  EXPECT_TRUE(entry(0)["answeredAtMs"].is_null());  // journaled at arrival, unanswered
  const Disposition released = core.release(*hold.pending_commit, Millis(2000));
  const Forward& forward = std::get<Forward>(released);
  EXPECT_EQ(forward.request.headers.find("Idempotency-Key")->second, "k");
  EXPECT_EQ(core.finish(forward.ticket, upstream_created("job_up"), Millis(2001)).status, 201);
  EXPECT_EQ(entry(0)["answeredAtMs"], 2001);
  EXPECT_EQ(entry(0)["fault"], "delay-before-commit:2s");
}

TEST_F(ProxyCoreTest, LookupsAreForwardedAndLookupUnavailableIsAnsweredHere) {
  plan({{"faults", {"lookup-unavailable"}}});
  const HttpRequest lookup{.method = "GET", .path = "/jobs/by-idempotency-key/k"};
  EXPECT_EQ(std::get<Decision>(core.begin(lookup, Millis(0))).status, 503);
  EXPECT_EQ(through(lookup, upstream_created("job_up", 200)).status, 200);
  EXPECT_EQ(entry(0)["outcome"], "lookup_failed");
  EXPECT_EQ(entry(1)["outcome"], "lookup_hit");
  EXPECT_EQ(entry(1)["jobId"], "job_up");
  EXPECT_EQ(through(lookup, {.status = 404, .body = R"({"error":"not_found"})"}).status, 404);
  EXPECT_EQ(entry(2)["outcome"], "lookup_miss");
}

TEST_F(ProxyCoreTest, AnswersAfterAResetAreNotJournaled) {
  const Disposition step = core.begin(post_request("k"), Millis(0));
  core.begin(control_request("POST", "/_test/reset"), Millis(0));
  EXPECT_EQ(
      core.finish(std::get<Forward>(step).ticket, upstream_created("job_up"), Millis(1)).status,
      201);
  EXPECT_EQ(core.journal_json()["count"], 0);
}

// The provider's readers (the judge, the reports) read the proxy's journal.
TEST_F(ProxyCoreTest, TheJournalIsInTheProvidersFormat) {
  plan({{"faults", {"commit-then-reset", "rate-limited"}}});
  through(post_request("a"), upstream_created("job_a"));
  core.begin(post_request("b"), Millis(0));
  const auto entries = provider::journal_from_json(core.journal_json());
  const auto journal = core.journal();
  ASSERT_EQ(entries.size(), 2u);
  for (std::size_t i = 0; i < entries.size(); ++i)
    EXPECT_EQ(entries[i], static_cast<const provider::JournalEntry&>(journal[i]));
}

TEST(EnforcingProxyCore, ReplaysRefusesAndHoldsKeysItself) {
  ProxyCore core({.enforce_keys = true});
  core.begin(control_request("POST", "/_test/faults", R"({"faults":["commit-then-error"]})"),
             Millis(0));
  const Disposition first = core.begin(post_request("k"), Millis(0));
  // While the first is at the upstream, the same key is a conflict, answered here.
  EXPECT_EQ(std::get<Decision>(core.begin(post_request("k"), Millis(0))).status, 409);
  EXPECT_EQ(
      core.finish(std::get<Forward>(first).ticket, upstream_created("job_up"), Millis(1)).status,
      503);
  const Decision replay = std::get<Decision>(core.begin(post_request("k"), Millis(2)));
  EXPECT_EQ(replay.status, 200);
  EXPECT_EQ(json::parse(replay.body)["id"], "job_up");
  EXPECT_EQ(replay.headers.find("Idempotent-Replayed")->second, "true");
  const Decision changed =
      std::get<Decision>(core.begin(post_request("k", R"({"orderId":"o-2"})"), Millis(3)));
  EXPECT_EQ(changed.status, 422);
  const json entries = core.journal_json()["entries"];
  EXPECT_EQ(entries[1]["outcome"], "conflict");
  EXPECT_EQ(entries[2]["outcome"], "replay");
  EXPECT_EQ(entries[3]["outcome"], "rejected");
}

TEST(ProxyLog, SaysWhatItDecidedAndWhatTheUpstreamDidNeverAPayload) {
  std::vector<std::string> lines;
  ProxyCore core({.log = [&](const std::string& line) { lines.push_back(line); }});
  core.begin(control_request("POST", "/_test/faults", R"({"faults":["commit-then-drop"]})"),
             Millis(0));
  const Disposition step =
      core.begin(post_request("k", R"({"orderId":"secret-order"})"), Millis(0));
  core.finish(std::get<Forward>(step).ticket, upstream_created("job_up"), Millis(1));
  const HttpRequest lookup{.method = "GET", .path = "/jobs/by-idempotency-key/a\nforged"};
  const Disposition looked = core.begin(lookup, Millis(2));
  core.finish(std::get<Forward>(looked).ticket,
              {.failure = UpstreamFailure::closed, .detail = "eof"}, Millis(3));
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "[proxy] key=\"k\" NEW fault=commit-then-drop",
                       "[proxy] key=\"k\" UPSTREAM 201 job=job_up, sent as commit-then-drop",
                       "[proxy] key=\"a\\x0Aforged\" LOOKUP UPSTREAM closed (eof): 502",
                   }));
}

TEST(ProxyControlPlane, NeedsTheTokenWhenOneIsSet) {
  ProxyCore core({.control_token = "T"});
  EXPECT_EQ(
      std::get<Decision>(core.begin(control_request("GET", "/_test/journal"), Millis(0))).status,
      401);
  HttpRequest authorized = control_request("GET", "/_test/journal");
  authorized.headers.emplace("Authorization", "bearer T");
  EXPECT_EQ(std::get<Decision>(core.begin(authorized, Millis(0))).status, 200);
}

TEST(ProxyControlPlane, RefusesABadPlanAndKeepsTheOneInForce) {
  ProxyCore core({});
  core.begin(control_request("POST", "/_test/faults", R"({"faults":["commit-then-drop"]})"),
             Millis(0));
  const Decision refused = std::get<Decision>(core.begin(
      control_request("POST", "/_test/faults", R"({"faults":["comit-then-drop"]})"), Millis(0)));
  EXPECT_EQ(refused.status, 400);
  EXPECT_NE(refused.body.find("faults[0]: unknown fault"), std::string::npos);
  const Disposition step = core.begin(post_request("k"), Millis(0));
  EXPECT_EQ(core.finish(std::get<Forward>(step).ticket, upstream_created("j"), Millis(0)).delivery,
            Delivery::drop);
}

TEST(ProxyControlPlane, MovesItsClockForward) {
  ProxyCore core({});
  const Decision moved = std::get<Decision>(
      core.begin(control_request("POST", "/_test/clock", R"({"advance":"25h"})"), Millis(0)));
  EXPECT_EQ(moved.body, R"({"advancedMs":90000000})");
  core.begin(post_request("k"), Millis(10));
  EXPECT_EQ(core.journal_json()["entries"][0]["atMs"], 90000010);
  EXPECT_EQ(std::get<Decision>(core.begin(control_request("POST", "/_test/clock", "{}"), Millis(0)))
                .status,
            400);
}

}  // namespace
}  // namespace retryproof::proxy
