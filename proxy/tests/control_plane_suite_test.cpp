// One control plane and one idempotency front end: the same tests against the provider and
// against the proxy (in front of a provider), each a real server on a real socket. What a
// script, the live page or a judge reads from one it reads, field for field, from the other.
#include <gtest/gtest.h>
#include <httplib.h>
#include <poll.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "provider/provider_server.hpp"
#include "provider/tests/eventually.hpp"
#include "provider/tests/raw_http.hpp"
#include "proxy/proxy_server.hpp"
#include "proxy/tests/proxy_test_support.hpp"

namespace retryproof {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using provider::testing::eventually;
using provider::testing::RawConnection;

// What a test asks of the server under test, whichever it is.
struct ServerSettings {
  std::optional<std::string> token;
  provider::JournalLimits journal;
  std::optional<std::size_t> max_keys;
  std::optional<Millis> key_ttl;
  std::vector<provider::ControlEndpoint> endpoints;
};

class ServerUnderTest {
 public:
  virtual ~ServerUnderTest() = default;
  virtual std::string base_url() const = 0;
  virtual int port() const = 0;
  // Journals `count` requests its server refused (cheap: nothing is forwarded or stored).
  virtual void journal_refusals(int count) = 0;
};

class ProviderUnderTest final : public ServerUnderTest {
 public:
  explicit ProviderUnderTest(const ServerSettings& settings)
      : server_({.key_ttl = settings.key_ttl,
                 .max_keys = settings.max_keys,
                 .journal = settings.journal,
                 .control_token = settings.token,
                 .control_endpoints = settings.endpoints},
                {.port = 0}) {}
  std::string base_url() const override { return server_.base_url(); }
  int port() const override { return server_.port(); }
  void journal_refusals(int count) override {
    for (int i = 0; i < count; ++i)
      server_.core().record_refused({.status = 503, .method = "POST", .path = "/jobs"}, Millis(0));
  }

 private:
  mutable provider::ProviderServer server_;
};

// The proxy enforces keys, so that it answers repeats itself, as the provider does.
class ProxyUnderTest final : public ServerUnderTest {
 public:
  explicit ProxyUnderTest(const ServerSettings& settings)
      : upstream_({}, {.port = 0}),
        proxy_({.enforce_keys = true,
                .key_ttl = settings.key_ttl,
                .max_keys = settings.max_keys,
                .journal = settings.journal,
                .control_token = settings.token,
                .control_endpoints = settings.endpoints},
               {.port = 0}, proxy::parse_upstream_url(upstream_.base_url()),
               proxy::testing::quick_limits()) {}
  std::string base_url() const override { return proxy_.base_url(); }
  int port() const override { return proxy_.port(); }
  void journal_refusals(int count) override {
    for (int i = 0; i < count; ++i)
      proxy_.core().record_refused({.status = 503, .method = "POST", .path = "/jobs"}, Millis(0));
  }

 private:
  provider::ProviderServer upstream_;
  mutable proxy::ProxyServer proxy_;
};

enum class ServerKind { provider, proxy };

class OneControlPlane : public ::testing::TestWithParam<ServerKind> {
 protected:
  void start(const ServerSettings& settings = {}) {
    if (GetParam() == ServerKind::provider)
      server_ = std::make_unique<ProviderUnderTest>(settings);
    else
      server_ = std::make_unique<ProxyUnderTest>(settings);
  }
  ServerUnderTest& server() { return *server_; }
  httplib::Client client(const std::optional<std::string>& token = std::nullopt) {
    httplib::Client client(server_->base_url());
    client.set_read_timeout(30, 0);
    if (token) client.set_bearer_token_auth(*token);
    return client;
  }
  httplib::Result post(const std::string& key, const std::string& body = R"({"orderId":"o-1"})") {
    return client().Post("/jobs", {{"Idempotency-Key", key}}, body, "application/json");
  }
  json get(const std::string& path) {
    const auto answer = client().Get(path);
    if (!answer) throw std::runtime_error("GET " + path + ": no answer");
    return json::parse(answer->body);
  }
  void install(const json& plan) {
    const auto answer = client().Post("/_test/faults", plan.dump(), "application/json");
    ASSERT_TRUE(answer);
    ASSERT_EQ(answer->status, 200) << answer->body;
  }

 private:
  std::unique_ptr<ServerUnderTest> server_;
};

std::string server_name(const ::testing::TestParamInfo<ServerKind>& info) {
  return info.param == ServerKind::provider ? "Provider" : "Proxy";
}
INSTANTIATE_TEST_SUITE_P(Servers, OneControlPlane,
                         ::testing::Values(ServerKind::provider, ServerKind::proxy), server_name);

// An endpoint from a layer above the core, as verdicts is: what it was given, echoed.
provider::ControlEndpoint echo_endpoint() {
  return {.path = "/_test/echo",
          .error_code = "invalid_echo_query",
          .answer = [](const std::string& query, const std::vector<provider::JournalEntry>& journal,
                       const provider::ControlContext& context) {
            if (query == "bad") throw std::invalid_argument("bad query");
            return provider::ControlAnswer{
                .body = json({{"server", context.server},
                              {"entries", journal.size()},
                              {"journaled", context.journaled},
                              {"firstSeq", journal.empty() ? 0 : journal.front().seq}})
                            .dump()};
          }};
}

provider::ControlEndpoint page_endpoint() {
  return {.path = "/_test/page",
          .error_code = "invalid_page_query",
          .answer =
              [](const std::string&, const std::vector<provider::JournalEntry>& journal,
                 const provider::ControlContext&) {
                return provider::ControlAnswer{.body = std::to_string(journal.size()),
                                               .content_type = "text/plain"};
              },
          .needs_token = false,
          .reads_journal = false};
}

// ---- guards ------------------------------------------------------------------------------

TEST_P(OneControlPlane, EveryCallButHealthAndThePageNeedsTheToken) {
  this->start({.token = "s3cret", .endpoints = {echo_endpoint(), page_endpoint()}});
  auto anonymous = this->client();
  for (const char* path : {"/_test/jobs", "/_test/journal", "/_test/faults", "/_test/echo"}) {
    const auto refused = anonymous.Get(path);
    ASSERT_TRUE(refused) << path;
    EXPECT_EQ(refused->status, 401) << path;
    EXPECT_EQ(refused->get_header_value("WWW-Authenticate"), "Bearer") << path;
    EXPECT_EQ(json::parse(refused->body)["error"], "unauthorized");
  }
  for (const char* path : {"/_test/reset", "/_test/clock"})
    EXPECT_EQ(anonymous.Post(path, "{}", "application/json")->status, 401) << path;
  EXPECT_EQ(anonymous.Get("/_test/health")->status, 200);
  EXPECT_EQ(anonymous.Get("/_test/page")->status, 200);
  EXPECT_EQ(this->client("s3cret").Get("/_test/jobs")->status, 200);
  EXPECT_EQ(this->client("wrong").Get("/_test/jobs")->status, 401);
}

// A caller that cannot read must be told why, in JSON, with the fix: the live page shows
// "unknown: the control token is missing" or "... wrong" from these, never "none".
TEST_P(OneControlPlane, ARefusalSaysWhetherTheTokenIsMissingOrWrongAndWhatToSend) {
  this->start({.token = "s3cret"});
  for (const char* path : {"/_test/journal", "/_test/faults", "/_test/jobs"}) {
    SCOPED_TRACE(path);
    const auto missing = this->client().Get(path);
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->status, 401);
    EXPECT_EQ(missing->get_header_value("Content-Type"), "application/json");
    const json missing_body = json::parse(missing->body);
    EXPECT_EQ(missing_body["error"], "unauthorized");
    EXPECT_TRUE(missing_body["detail"].get<std::string>().starts_with(
        "the control token is missing: send Authorization: Bearer <control token>"))
        << missing_body;
    EXPECT_EQ(missing->get_header_value("WWW-Authenticate"), "Bearer");

    const auto wrong = this->client("wrong").Get(path);
    ASSERT_TRUE(wrong);
    EXPECT_EQ(wrong->status, 401);
    const json wrong_body = json::parse(wrong->body);
    EXPECT_TRUE(wrong_body["detail"].get<std::string>().starts_with(
        "the control token is wrong: it is not the one this server was started with"))
        << wrong_body;
    EXPECT_EQ(wrong->get_header_value("WWW-Authenticate"), "Bearer error=\"invalid_token\"");

    // And the right token reads.
    EXPECT_EQ(this->client("s3cret").Get(path)->status, 200);
  }
}

TEST_P(OneControlPlane, AWebPagesHostOrOriginIsRefusedEvenForHealth) {
  this->start({.endpoints = {page_endpoint()}});
  const int port = this->server().port();
  const std::string own = "http://127.0.0.1:" + std::to_string(port);
  for (const char* path : {"/_test/health", "/_test/jobs", "/_test/page"}) {
    SCOPED_TRACE(path);
    const auto foreign = provider::testing::raw_exchange(
        port, provider::testing::raw_control_request(port, "GET", path, {}, "http://evil.example"));
    EXPECT_EQ(provider::testing::status_of(foreign.received), 403);
    EXPECT_NE(foreign.received.find("forbidden_origin"), std::string::npos);
    // A JSON body that names what is accepted.
    const json refusal =
        json::parse(foreign.received.substr(foreign.received.find("\r\n\r\n") + 4));
    EXPECT_EQ(refusal["error"], "forbidden_origin");
    EXPECT_NE(
        refusal["detail"].get<std::string>().find("it accepts no Origin, or http://127.0.0.1:"),
        std::string::npos)
        << refusal;
    const auto rebound = provider::testing::raw_exchange(
        port, "GET " + std::string(path) + " HTTP/1.1\r\nHost: evil.example:" +
                  std::to_string(port) + "\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(provider::testing::status_of(rebound.received), 403);
    EXPECT_NE(rebound.received.find("forbidden_host"), std::string::npos);
    const auto from_own_page = provider::testing::raw_exchange(
        port, provider::testing::raw_control_request(port, "GET", path, {}, own));
    EXPECT_EQ(provider::testing::status_of(from_own_page.received), 200);
  }
}

TEST_P(OneControlPlane, EachEndpointAnswersItsMethodsOnly) {
  this->start({.endpoints = {echo_endpoint()}});
  auto client = this->client();
  const struct {
    const char* path;
    const char* refused;
    const char* allow;
  } cases[] = {{"/_test/jobs", "DELETE", "GET"},         {"/_test/journal", "POST", "GET"},
               {"/_test/reset", "GET", "POST"},          {"/_test/clock", "PUT", "POST"},
               {"/_test/faults", "DELETE", "GET, POST"}, {"/_test/echo", "POST", "GET"},
               {"/_test/health", "POST", "GET"}};
  for (const auto& check : cases) {
    SCOPED_TRACE(std::string(check.refused) + " " + check.path);
    httplib::Request request;
    request.method = check.refused;
    request.path = check.path;
    const auto answer = client.send(request);
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 405);
    EXPECT_EQ(answer->get_header_value("Allow"), check.allow);
  }
  const auto head = client.Head("/_test/jobs");
  EXPECT_EQ(head->status, 200);
  EXPECT_TRUE(head->body.empty());
  EXPECT_EQ(client.Get("/_test/nothing")->status, 404);
  EXPECT_EQ(json::parse(client.Get("/_test/nothing")->body)["error"], "not_found");
}

// ---- faults, reset, clock ----------------------------------------------------------------

TEST_P(OneControlPlane, APlanIsEchoedShownAndKeptWhenTheNextOneHasATypo) {
  this->start();
  const json plan = {{"faults", {"commit-then-error", "none"}}};
  this->install(plan);
  // The plan as installed, and beside it how each of its sources has fired so far.
  const json shown = this->get("/_test/faults");
  EXPECT_EQ(shown["faults"], plan["faults"]);
  ASSERT_EQ(shown["fired"].size(), 2u);
  EXPECT_EQ(shown["fired"][0]["fault"], "commit-then-error");
  EXPECT_EQ(shown["fired"][0]["fired"], 0);
  const auto typo =
      this->client().Post("/_test/faults", R"({"faults":["comit-then-drop"]})", "application/json");
  EXPECT_EQ(typo->status, 400);
  EXPECT_EQ(json::parse(typo->body)["error"], "invalid_fault_plan");
  EXPECT_EQ(this->get("/_test/faults"), shown);
}

TEST_P(OneControlPlane, AResetEmptiesJobsJournalAndPlanAndTakesASeed) {
  this->start();
  this->install({{"faults", {"commit-then-error"}}});
  ASSERT_EQ(this->post("k1")->status, 503);
  const auto reset = this->client().Post("/_test/reset", R"({"seed":7})", "application/json");
  EXPECT_EQ(json::parse(reset->body), json({{"reset", true}, {"seed", 7}}));
  EXPECT_EQ(this->get("/_test/jobs")["count"], 0);
  EXPECT_EQ(this->get("/_test/journal")["count"], 0);
  EXPECT_EQ(this->get("/_test/faults"),
            json({{"faults", json::array()}, {"fired", json::array()}}));
  EXPECT_EQ(this->client().Post("/_test/reset", R"({"sed":7})", "application/json")->status, 400);
}

TEST_P(OneControlPlane, TheClockMovesForwardAndTheJournalReadsIt) {
  this->start();
  const auto moved =
      this->client().Post("/_test/clock", R"({"advance":"25h"})", "application/json");
  EXPECT_EQ(json::parse(moved->body), json({{"advancedMs", 90'000'000}}));
  ASSERT_EQ(this->post("k1")->status, 201);
  EXPECT_GE(this->get("/_test/journal")["entries"][0]["atMs"].get<std::int64_t>(), 90'000'000);
  EXPECT_EQ(
      this->client().Post("/_test/clock", R"({"advance":"soon"})", "application/json")->status,
      400);
}

// ---- listings ----------------------------------------------------------------------------

// The same fields from either: the job the client was sent, its key as bytes (escaped and
// marked when not UTF-8), and "freed" once --max-keys freed an expired key's job.
TEST_P(OneControlPlane, JobListingsCarryTheSameFields) {
  this->start({.max_keys = 2, .key_ttl = Millis(3'600'000)});
  ASSERT_EQ(this->post("k-1", R"({"orderId":"o-1"})")->status, 201);
  ASSERT_EQ(this->post(std::string("k-\xFF"), R"({"orderId":"o-2"})")->status, 201);
  json jobs = this->get("/_test/jobs");
  ASSERT_EQ(jobs["count"], 2);
  EXPECT_FALSE(jobs.contains("freed"));
  const json first = jobs["jobs"][0];
  EXPECT_EQ(first.size(), 3u) << first;  // id, key, orderId
  EXPECT_EQ(first["key"], "k-1");
  EXPECT_EQ(first["orderId"], "o-1");
  EXPECT_TRUE(first["id"].get<std::string>().starts_with("job_"));
  const json second = jobs["jobs"][1];
  EXPECT_EQ(second["key"], "k-\\xFF");
  EXPECT_EQ(second["keyEscaped"], true);

  this->client().Post("/_test/clock", R"({"advance":"2h"})", "application/json");
  ASSERT_EQ(this->post("k-3", R"({"orderId":"o-3"})")->status, 201);
  jobs = this->get("/_test/jobs");
  EXPECT_EQ(jobs["freed"], 1);
  EXPECT_EQ(jobs["count"], 2);
  EXPECT_EQ(jobs["jobs"][1]["key"], "k-3");
}

// Streamed over many chunks, the whole journal is every entry, and ends in a way no cut
// stream can: `],"complete":true}` and the chunked body's last chunk.
TEST_P(OneControlPlane, TheWholeJournalIsStreamedAndSaysItIsComplete) {
  this->start();
  this->server().journal_refusals(1500);
  const int port = this->server().port();
  const auto read = provider::testing::raw_exchange(
      port, provider::testing::raw_control_request(port, "GET", "/_test/journal"),
      provider::testing::ReadUntil::closed, 30s);
  EXPECT_NE(read.received.find("Transfer-Encoding: chunked"), std::string::npos);
  EXPECT_TRUE(read.received.ends_with("],\"complete\":true}\r\n0\r\n\r\n")) << read.received.substr(
      read.received.size() - std::min<std::size_t>(read.received.size(), 80));
  const json journal = json::parse(provider::testing::body_of(read.received));
  EXPECT_EQ(journal["count"], 1500);
  ASSERT_EQ(journal["entries"].size(), 1500u);
  EXPECT_EQ(journal["entries"][1499]["seq"], 1500);
  EXPECT_EQ(journal["complete"], true);
}

TEST_P(OneControlPlane, APageSaysWhereTheNextBegins) {
  this->start();
  this->server().journal_refusals(25);
  const json first = this->get("/_test/journal?after=0&limit=10");
  EXPECT_EQ(first["count"], 25);
  EXPECT_EQ(first["entries"].size(), 10u);
  EXPECT_EQ(first["next"], 10);
  EXPECT_FALSE(first.contains("complete"));
  const json last = this->get("/_test/journal?after=20&limit=10");
  EXPECT_EQ(last["entries"].size(), 5u);
  EXPECT_EQ(last["entries"][0]["seq"], 21);
  EXPECT_FALSE(last.contains("next"));
  EXPECT_EQ(this->client().Get("/_test/journal?after=x")->status, 400);
}

// A reset while the journal is read ends the stream without its last chunk: a reader sees a
// cut body, never a short journal that passes for whole.
TEST_P(OneControlPlane, AResetDuringAStreamedReadCutsTheStream) {
  this->start();
  this->server().journal_refusals(100'000);  // some 25 MB: more than the sockets' buffers
  const int port = this->server().port();
  RawConnection reader(port);
  ASSERT_TRUE(reader.send(provider::testing::raw_control_request(port, "GET", "/_test/journal")));
  // Its first bytes arrived: the stream has begun. The reader reads nothing yet, so the
  // server stalls on a full socket, mid-journal.
  pollfd readable{.fd = reader.fd(), .events = POLLIN, .revents = 0};
  ASSERT_EQ(::poll(&readable, 1, 10'000), 1);
  ASSERT_EQ(this->client().Post("/_test/reset", "{}", "application/json")->status, 200);
  const std::string received = reader.read_until_closed(60s).received;
  EXPECT_EQ(received.find("\"complete\":true"), std::string::npos);
  EXPECT_FALSE(received.ends_with("0\r\n\r\n"));
  EXPECT_NE(received.find("{\"count\":100000,"), std::string::npos);
}

// A spilled entry whose write failed (/dev/full: a full disk) is loss: counted and named in
// the journal, whole or paged, and the server goes on serving.
TEST_P(OneControlPlane, ALostSpillWriteIsInTheJournalAndTheServerServesOn) {
  this->start({.journal = {.in_memory = 4, .spill_file = "/dev/full"}});
  this->server().journal_refusals(10);  // 6 move out, and are lost
  // Until the writer has failed them, a listing promises 10 and is cut when they go: never
  // taken for whole, so read again until the loss is settled.
  ASSERT_TRUE(eventually([&] {
    try {
      return this->get("/_test/journal")["count"] == 4;
    } catch (const std::runtime_error&) {
      return false;
    }
  }));
  const json whole = this->get("/_test/journal");
  EXPECT_EQ(whole["lost"], 6);
  EXPECT_EQ(whole["lostSeqs"], json::parse("[[1,6]]"));
  EXPECT_EQ(whole["complete"], true);
  ASSERT_EQ(whole["entries"].size(), 4u);
  EXPECT_EQ(whole["entries"][0]["seq"], 7);
  const json page = this->get("/_test/journal?after=0&limit=3");
  EXPECT_EQ(page["lost"], 6);
  EXPECT_EQ(page["lostSeqs"], json::parse("[[1,6]]"));
  EXPECT_EQ(this->post("after-the-loss")->status, 201);
}

// An endpoint of a layer above (verdicts) gets the journal in memory, and how many entries
// were journaled in all, so that it can say how much it judged.
TEST_P(OneControlPlane, AnEndpointFromAboveGetsTheJournalInMemoryAndItsShare) {
  this->start({.journal = {.in_memory = 4}, .endpoints = {echo_endpoint(), page_endpoint()}});
  this->server().journal_refusals(10);
  const json echo = this->get("/_test/echo");
  EXPECT_EQ(echo["journaled"], 10);
  EXPECT_EQ(echo["entries"], 4);
  EXPECT_EQ(echo["firstSeq"], 7);
  const auto bad = this->client().Get("/_test/echo?bad");
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(json::parse(bad->body)["error"], "invalid_echo_query");
  EXPECT_EQ(this->client().Get("/_test/page")->body, "0");  // it reads no journal
}

// ---- the idempotency front end -----------------------------------------------------------

class OneFrontEnd : public OneControlPlane {};
INSTANTIATE_TEST_SUITE_P(Servers, OneFrontEnd,
                         ::testing::Values(ServerKind::provider, ServerKind::proxy), server_name);

TEST_P(OneFrontEnd, ARepeatIsReplayedAndAChangedPayloadRefused) {
  this->start();
  const auto first = this->post("k1", R"({"orderId":"o-1"})");
  ASSERT_EQ(first->status, 201);
  const auto again = this->post("k1", R"({"orderId":"o-1"})");
  EXPECT_EQ(again->status, 200);
  EXPECT_EQ(again->get_header_value("Idempotent-Replayed"), "true");
  EXPECT_EQ(json::parse(again->body)["id"], json::parse(first->body)["id"]);
  const auto changed = this->post("k1", R"({"orderId":"o-2"})");
  EXPECT_EQ(changed->status, 422);
  EXPECT_EQ(json::parse(changed->body)["error"], "idempotency_key_reused_with_different_payload");
  const json entries = this->get("/_test/journal")["entries"];
  EXPECT_EQ(entries[1]["outcome"], "replay");
  EXPECT_EQ(entries[2]["outcome"], "rejected");
  EXPECT_EQ(this->get("/_test/jobs")["count"], 1);
}

TEST_P(OneFrontEnd, AKeyWhoseFirstRequestIsHeldIsInFlight) {
  this->start();
  this->install({{"faults", {"delay-before-commit:30s"}}});
  const int port = this->server().port();
  RawConnection held(port);
  ASSERT_TRUE(held.send(provider::testing::raw_post_jobs("k1", R"({"orderId":"o-1"})")));
  ASSERT_TRUE(eventually([&] { return this->get("/_test/journal")["count"] == 1; }));
  const auto second = this->post("k1", R"({"orderId":"o-1"})");
  EXPECT_EQ(second->status, 409);
  EXPECT_EQ(json::parse(second->body)["error"], "idempotency_key_in_flight");
  EXPECT_EQ(this->post("k2")->status, 201) << "another key is not in flight";
}

TEST_P(OneFrontEnd, PastMaxKeysANewKeyIsRefusedAndAReplayIsNot) {
  this->start({.max_keys = 1});
  ASSERT_EQ(this->post("k1")->status, 201);
  const auto refused = this->post("k2");
  EXPECT_EQ(refused->status, 507);
  EXPECT_EQ(json::parse(refused->body)["error"], "capacity_exhausted");
  EXPECT_EQ(this->post("k1")->status, 200);
  EXPECT_EQ(this->get("/_test/journal")["entries"][1]["outcome"], "capacity_exhausted");
}

TEST_P(OneFrontEnd, AnOutageIsAskedBeforeTheStoreSoAReplayFailsToo) {
  this->start();
  ASSERT_EQ(this->post("k1")->status, 201);
  this->install({{"outages", {{{"from", "0s"}, {"for", "1h"}, {"fault", "fail-before-commit"}}}}});
  EXPECT_EQ(this->post("k1")->status, 503);
  const json entry = this->get("/_test/journal")["entries"][1];
  EXPECT_EQ(entry["outcome"], "outage");
  EXPECT_EQ(entry["fault"], "fail-before-commit");
}

}  // namespace
}  // namespace retryproof
