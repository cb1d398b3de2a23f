// The memory bounds on a real socket: the 507 a new operation gets past --max-keys while
// replays, lookups and the control plane serve on, and a journal spilled to its file that
// GET /_test/journal still serves whole, streamed and paged.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "common/temp_dir.hpp"
#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::body_of;
using testing::raw_exchange;
using testing::raw_post_jobs;
using testing::ReadUntil;
using testing::status_of;

const std::string kOrder = R"({"orderId":"order-1"})";

std::string post(int port, const std::string& key) {
  return raw_exchange(port, raw_post_jobs(key, kOrder), ReadUntil::closed).received;
}

TEST(HttpMemory, PastMaxKeysANewKeyIs507AndReplaysLookupsAndControlServeOn) {
  ProviderServer server({.max_keys = 2}, {.port = 0});
  EXPECT_EQ(status_of(post(server.port(), "k1")), 201);
  EXPECT_EQ(status_of(post(server.port(), "k2")), 201);

  const std::string refused = post(server.port(), "k3");
  ASSERT_EQ(status_of(refused), 507) << refused;
  const json error = json::parse(body_of(refused));
  EXPECT_EQ(error["error"], "capacity_exhausted");
  EXPECT_EQ(error["detail"],
            "the provider holds 2 keys, its --max-keys; replays and lookups still work");

  EXPECT_EQ(status_of(post(server.port(), "k1")), 200);  // a replay
  httplib::Client client(server.base_url());
  EXPECT_EQ(client.Get("/jobs/by-idempotency-key/k2")->status, 200);
  EXPECT_EQ(json::parse(client.Get("/_test/jobs")->body)["count"], 2);
  ASSERT_EQ(client.Post("/_test/reset", "{}", "application/json")->status, 200);
  EXPECT_EQ(status_of(post(server.port(), "k3")), 201) << "a reset frees every key";
}

TEST(HttpMemory, ASpilledJournalIsServedWholeStreamedAndPaged) {
  const TempDir dir;
  const auto file = dir.path() / "journal.jsonl";
  ProviderServer server({.journal = {.in_memory = 4, .spill_file = file.string()}}, {.port = 0});
  for (int i = 0; i < 10; ++i)
    ASSERT_EQ(status_of(post(server.port(), "k" + std::to_string(i))), 201);

  httplib::Client client(server.base_url());
  const json whole = json::parse(client.Get("/_test/journal")->body);
  EXPECT_EQ(whole["count"], 10);
  ASSERT_EQ(whole["entries"].size(), 10U);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(whole["entries"][i]["seq"], i + 1);
    EXPECT_EQ(whole["entries"][i]["key"], "k" + std::to_string(i));
  }

  json paged = json::array();
  std::string after = "0";
  for (int pages = 0; pages < 10; ++pages) {
    const json page = json::parse(client.Get("/_test/journal?after=" + after + "&limit=3")->body);
    for (const json& entry : page["entries"])
      paged.push_back(entry);
    if (!page.contains("next")) break;
    after = std::to_string(page["next"].get<int>());
  }
  EXPECT_EQ(paged, whole["entries"]);

  std::ifstream spilled(file);
  std::string first_line;
  ASSERT_TRUE(std::getline(spilled, first_line));
  EXPECT_EQ(json::parse(first_line), whole["entries"][0]) << "the file holds entries as served";
}

}  // namespace
}  // namespace retryproof::provider
