// A fleet's ports: one provider core behind several listening ports, each request journaled
// with the port it came through, so that clients that send any keys are told apart.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "provider/provider_server.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

httplib::Result post(const std::string& url, const std::string& key, const std::string& order) {
  httplib::Client client(url);
  client.set_read_timeout(5, 0);
  return client.Post("/jobs", {{"Idempotency-Key", key}}, json{{"orderId", order}}.dump(),
                     "application/json");
}

TEST(Listeners, EachPortIsJournaledAndSharesTheCore) {
  ProviderServer server({}, {.port = 0});
  const int first = server.add_listener();
  const int second = server.add_listener();
  EXPECT_NE(first, second);
  EXPECT_NE(first, server.port());
  EXPECT_EQ(server.base_url_of(first), "http://127.0.0.1:" + std::to_string(first));

  const auto created = post(server.base_url_of(first), "k1", "order-1");
  ASSERT_TRUE(created);
  EXPECT_EQ(created->status, 201);
  // The same key through another port is the same operation: one core, one store.
  const auto replayed = post(server.base_url_of(second), "k1", "order-1");
  ASSERT_TRUE(replayed);
  EXPECT_EQ(replayed->status, 200);
  ASSERT_TRUE(post(server.base_url(), "k2", "order-2"));

  const std::vector<JournalEntry> journal = server.core().journal();
  ASSERT_EQ(journal.size(), 3u);
  EXPECT_EQ(journal[0].port, first);
  EXPECT_EQ(journal[1].port, second);
  EXPECT_EQ(journal[2].port, std::nullopt);  // the main port
  EXPECT_EQ(server.core().job_count(), 2u);

  // The journal's JSON carries the port, and reads back to the same entries.
  httplib::Client control(server.base_url());
  const auto served = control.Get("/_test/journal");
  ASSERT_TRUE(served);
  const json document = json::parse(served->body);
  EXPECT_EQ(document["entries"][0]["port"], first);
  EXPECT_FALSE(document["entries"][2].contains("port"));
  EXPECT_EQ(journal_from_json(document), journal);
}

TEST(Listeners, APortAddedWhileServingIsServed) {
  ProviderServer server({}, {.port = 0});
  ASSERT_TRUE(post(server.base_url(), "k1", "order-1"));
  const int late = server.add_listener();
  const auto created = post(server.base_url_of(late), "k2", "order-2");
  ASSERT_TRUE(created);
  EXPECT_EQ(created->status, 201);
  EXPECT_EQ(server.core().journal().back().port, late);
}

TEST(Listeners, StopClosesEveryPort) {
  ProviderServer server({}, {.port = 0});
  const int extra = server.add_listener();
  server.stop();
  // Refused at once: not accepted into a backlog nobody reads.
  const auto refused = post(server.base_url_of(extra), "k1", "order-1");
  EXPECT_EQ(refused.error(), httplib::Error::Connection);
  EXPECT_EQ(post(server.base_url(), "k1", "order-1").error(), httplib::Error::Connection);
  EXPECT_THROW(server.add_listener(), std::runtime_error);
}

}  // namespace
}  // namespace retryproof::provider
