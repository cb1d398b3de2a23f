// Requests written back to back on one connection, before any answer is read, are each
// served and journaled, and answered in order.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::body_of;
using testing::raw_post_jobs_keep_alive;
using testing::RawConnection;
using testing::status_of;
using namespace std::chrono_literals;

TEST(Pipelining, HundredPostsBackToBackGetHundredAnswersInOrder) {
  constexpr int kRequests = 100;
  ProviderServer server({}, {.port = 0});
  std::string pipelined;
  for (int i = 0; i < kRequests; ++i) {
    const std::string n = std::to_string(i);
    pipelined += raw_post_jobs_keep_alive("pipe-" + n, json{{"orderId", "order-" + n}}.dump());
  }
  RawConnection connection(server.port());
  ASSERT_TRUE(connection.send(pipelined));

  for (int i = 0; i < kRequests; ++i) {
    const auto response = connection.read_response(5s);
    ASSERT_TRUE(response) << "no answer to request " << i;
    EXPECT_EQ(status_of(*response), 201) << *response;
    EXPECT_EQ(json::parse(body_of(*response))["orderId"], "order-" + std::to_string(i));
  }
  const json entries = server.core().journal_json()["entries"];
  ASSERT_EQ(entries.size(), static_cast<std::size_t>(kRequests));
  for (int i = 0; i < kRequests; ++i)
    EXPECT_EQ(entries[i]["key"], "pipe-" + std::to_string(i));
}

}  // namespace
}  // namespace retryproof::provider
