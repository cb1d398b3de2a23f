// Many clients, one new key, at the same moment: exactly one job.
#include <gtest/gtest.h>
#include <httplib.h>

#include <barrier>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "provider/provider_server.hpp"

namespace retryproof::provider {
namespace {

TEST(Concurrency, OneNewKeyFromManyThreadsCreatesExactlyOneJob) {
  constexpr int kThreads = 16;
  ProviderServer server({}, {.port = 0});
  std::vector<int> statuses(kThreads, 0);
  std::vector<std::string> job_ids(kThreads);
  std::barrier start(kThreads);
  {
    std::vector<std::jthread> clients;
    for (int i = 0; i < kThreads; ++i) {
      clients.emplace_back([&, i] {
        httplib::Client client(server.base_url());
        client.set_read_timeout(10, 0);
        start.arrive_and_wait();  // release every request together
        const auto result = client.Post("/jobs", {{"Idempotency-Key", "one-key"}},
                                        R"({"orderId":"order-1"})", "application/json");
        if (!result) {
          ADD_FAILURE() << "request " << i << ": " << httplib::to_string(result.error());
          return;
        }
        statuses[i] = result->status;
        job_ids[i] = nlohmann::json::parse(result->body)["id"];
      });
    }
  }

  EXPECT_EQ(server.core().job_count(), 1u);
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 201), 1);
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 200), kThreads - 1);
  for (const auto& id : job_ids)
    EXPECT_EQ(id, job_ids.front());
}

}  // namespace
}  // namespace retryproof::provider
