// The control plane over a real socket: the token, the profiles' wire formats, and long
// journal and jobs reads.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "common/json_text.hpp"
#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

TEST(ControlToken, EveryControlCallNeedsIt) {
  ProviderServer server({.control_token = "s3cret"}, {.port = 0});
  httplib::Client client(server.base_url());
  for (const char* path : {"/_test/jobs", "/_test/journal"}) {
    const auto refused = client.Get(path);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 401) << path;
    EXPECT_EQ(refused->get_header_value("WWW-Authenticate"), "Bearer");
  }
  EXPECT_EQ(client.Post("/_test/faults", R"({"faults":["commit-then-error"]})", "application/json")
                ->status,
            401);
  EXPECT_EQ(client.Post("/jobs", {{"Idempotency-Key", "k"}}, "{}", "application/json")->status,
            201);  // the refused plan was not installed, and the data plane needs no token

  client.set_bearer_token_auth("s3cret");
  const auto allowed = client.Get("/_test/jobs");
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->status, 200);
  EXPECT_EQ(json::parse(allowed->body)["count"], 1);
}

TEST(Profiles, IetfAnswersProblemJson) {
  ProviderServer server({.profile = Profile::ietf}, {.port = 0});
  httplib::Client client(server.base_url());
  const auto result = client.Post("/jobs", "{}", "application/json");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 400);
  EXPECT_EQ(result->get_header_value("Content-Type"), "application/problem+json");
  const json problem = json::parse(result->body);
  EXPECT_EQ(problem["status"], 400);
  EXPECT_EQ(problem["type"], "urn:retryproof:problem:idempotency_key_required");
  EXPECT_TRUE(problem["title"].is_string());
  EXPECT_TRUE(problem["detail"].is_string());
}

TEST(Profiles, IetfReadsAQuotedKey) {
  ProviderServer server({.profile = Profile::ietf}, {.port = 0});
  httplib::Client client(server.base_url());
  EXPECT_EQ(
      client.Post("/jobs", {{"Idempotency-Key", "\"order-42\""}}, "{}", "application/json")->status,
      201);
  EXPECT_EQ(client.Get("/jobs/by-idempotency-key/order-42")->status, 200);
}

TEST(Profiles, StripeReplaysTheRecorded503) {
  ProviderServer server({.profile = Profile::stripe}, {.port = 0});
  httplib::Client client(server.base_url());
  client.Post("/_test/faults", R"({"faults":["commit-then-error"]})", "application/json");
  EXPECT_EQ(client.Post("/jobs", {{"Idempotency-Key", "k"}}, "{}", "application/json")->status,
            503);
  const auto retry = client.Post("/jobs", {{"Idempotency-Key", "k"}}, "{}", "application/json");
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->status, 503);
  EXPECT_EQ(retry->get_header_value("Idempotent-Replayed"), "true");
  EXPECT_EQ(client.Get("/jobs/by-idempotency-key/k")->status, 200);  // only a lookup shows the job
}

// Issue #11, defect 4: the journal and the jobs were built whole under the core's lock. A
// full read of `path` over 3000 jobs is streamed, a chunk at a time, and a create is
// answered while its reader reads nothing.
// The whole journal ends `],"complete":true}`, the jobs `]}`, then the last chunk.
void expect_streamed_while_a_create_is_answered(const std::string& path,
                                                const std::string& ending) {
  ProviderServer server({}, {.port = 0});
  const int port = server.port();
  for (int i = 0; i < 3000; ++i) {
    HttpRequest create{"POST", "/jobs", {{"Idempotency-Key", "k-" + std::to_string(i)}}, "{}"};
    ASSERT_EQ(server.core().handle(create, Millis(0)).status, 201);
  }
  testing::RawConnection stalled(port);  // asks for about 1 MB, and reads none of it yet
  ASSERT_TRUE(stalled.send(testing::raw_control_request(port, "GET", path)));
  const auto created = testing::raw_exchange(port, testing::raw_post_jobs("during", "{}"),
                                             testing::ReadUntil::response);
  EXPECT_EQ(testing::status_of(created.received), 201) << created.received;

  const std::string raw = stalled.read_until_closed(30s).received;
  const std::size_t head_end = raw.find("\r\n\r\n");
  ASSERT_NE(head_end, std::string::npos) << raw.substr(0, 300);
  EXPECT_NE(raw.substr(0, head_end).find("Transfer-Encoding: chunked"), std::string::npos)
      << raw.substr(0, head_end);
  // 3000, or 3001 when the create was decided first: the count is the one at the start.
  EXPECT_NE(raw.find("{\"count\":300"), std::string::npos);
  EXPECT_TRUE(raw.ends_with(ending + "\r\n0\r\n\r\n"))
      << raw.substr(raw.size() - std::min<std::size_t>(raw.size(), 100));
}

TEST(JournalOverHttp, AFullReadIsStreamedAndACreateIsAnsweredBeforeItIsRead) {
  expect_streamed_while_a_create_is_answered("/_test/journal", "],\"complete\":true}");
}

TEST(JobsOverHttp, AFullReadIsStreamedAndACreateIsAnsweredBeforeItIsRead) {
  expect_streamed_while_a_create_is_answered("/_test/jobs", "]}");
}

// Streamed over several chunks, the jobs are byte for byte the document they always were,
// a key that is not UTF-8 included.
TEST(JobsOverHttp, TheStreamedReadIsTheWholeDocument) {
  ProviderServer server({}, {.port = 0});
  for (int i = 0; i < 1200; ++i) {
    const std::string key = i == 700 ? std::string("k-\xFF") : "k-" + std::to_string(i);
    HttpRequest create{"POST", "/jobs", {{"Idempotency-Key", key}}, R"({"orderId":"o"})"};
    ASSERT_EQ(server.core().handle(create, Millis(0)).status, 201);
  }
  httplib::Client client(server.base_url());
  const auto read = client.Get("/_test/jobs");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 200);
  EXPECT_EQ(read->body, compact_json(server.core().jobs_json()));
  EXPECT_EQ(json::parse(read->body)["jobs"].size(), 1200u);
}

}  // namespace
}  // namespace retryproof::provider
