// commit-then-drop at byte level: the job is stored, and the client receives not one
// byte before the connection closes.
#include <gtest/gtest.h>
#include <httplib.h>

#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using testing::ConnectionEnd;
using testing::raw_exchange;
using testing::raw_post_jobs;

void script(ProviderServer& server, const std::string& faults_json) {
  const auto answer = raw_exchange(
      server.port(),
      // The provider's own Host: under another name the control plane refuses.
      "POST /_test/faults HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.port()) +
          "\r\nConnection: close\r\n"
          "Content-Type: application/json\r\nContent-Length: " +
          std::to_string(faults_json.size()) + "\r\n\r\n" + faults_json);
  ASSERT_TRUE(answer.received.starts_with("HTTP/1.1 200")) << answer.received;
}

TEST(CommitThenDrop, SendsZeroBytesThenEndOfStream) {
  ProviderServer server({}, {.port = 0});
  script(server, R"({"faults":["commit-then-drop"]})");

  const auto exchange = raw_exchange(server.port(), raw_post_jobs("key-C", R"({"orderId":"o"})"));

  EXPECT_EQ(exchange.received.size(), 0u) << "received: " << exchange.received;
  EXPECT_EQ(exchange.end, ConnectionEnd::eof);
  EXPECT_EQ(server.core().job_count(), 1u);
}

TEST(CommitThenDrop, TheJournalSaysNothingWasDelivered) {
  ProviderServer server({}, {.port = 0});
  script(server, R"({"faults":["commit-then-drop"]})");
  raw_exchange(server.port(), raw_post_jobs("key-C", "{}"));

  const auto entries = server.core().journal_json()["entries"];
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["fault"], "commit-then-drop");
  EXPECT_EQ(entries[0]["delivered"], false);
  EXPECT_TRUE(entries[0]["status"].is_null());
  EXPECT_TRUE(entries[0]["jobId"].is_string());
}

TEST(CommitThenDrop, OnlyTheFaultedConnectionIsDroppedAndTheServerServesOn) {
  ProviderServer server({}, {.port = 0});
  script(server, R"({"faults":["none","commit-then-drop","none"]})");

  EXPECT_TRUE(
      raw_exchange(server.port(), raw_post_jobs("k1", "{}")).received.starts_with("HTTP/1.1 201"));
  EXPECT_TRUE(raw_exchange(server.port(), raw_post_jobs("k2", "{}")).received.empty());
  const auto after = raw_exchange(server.port(), raw_post_jobs("k3", "{}"));
  EXPECT_TRUE(after.received.starts_with("HTTP/1.1 201")) << after.received;
  EXPECT_EQ(server.core().job_count(), 3u);
}

TEST(CommitThenDrop, DropsAKeptAliveConnectionToo) {
  // Real clients reuse connections: the drop must hit the connection the request came
  // on, after earlier requests on it were answered.
  ProviderServer server({}, {.port = 0});
  script(server, R"({"faults":["none","commit-then-drop"]})");
  httplib::Client client(server.base_url());
  client.set_keep_alive(true);
  client.set_read_timeout(5, 0);

  const auto first = client.Post("/jobs", {{"Idempotency-Key", "k1"}}, "{}", "application/json");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 201);
  const auto second = client.Post("/jobs", {{"Idempotency-Key", "k2"}}, "{}", "application/json");
  EXPECT_FALSE(second);
  EXPECT_EQ(second.error(), httplib::Error::Read);
  EXPECT_EQ(server.core().job_count(), 2u);
}

}  // namespace
}  // namespace retryproof::provider
