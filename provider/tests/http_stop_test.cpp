// stop() ends within a second whatever clients are connected, and keeps every committed
// job in the core.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "provider/provider_server.hpp"
#include "provider/tests/eventually.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using testing::eventually;
using testing::raw_control_request;
using testing::raw_exchange;
using testing::raw_post_jobs;
using testing::RawConnection;
using testing::ReadUntil;
using testing::status_of;
using namespace std::chrono_literals;

TEST(Stop, EndsWithinASecondWithIdleTricklingAndHeldClientsAndKeepsTheJobs) {
  ProviderServer server({}, {.port = 0});
  const int port = server.port();
  for (const char* key : {"a", "b", "c"}) {
    ASSERT_EQ(status_of(raw_exchange(port, raw_post_jobs(key, "{}"), ReadUntil::response).received),
              201);
  }
  const std::string plan = R"({"faults":["commit-then-delay:30s","delay-before-commit:30s"]})";
  ASSERT_EQ(status_of(raw_exchange(port, raw_control_request(port, "POST", "/_test/faults", plan),
                                   ReadUntil::response)
                          .received),
            200);
  std::vector<RawConnection> clients;
  clients.emplace_back(port);
  clients.back().send(raw_post_jobs("delayed", "{}"));  // committed, its answer held
  ASSERT_TRUE(eventually([&] { return server.core().journal_size() == 4; }));
  clients.emplace_back(port);
  clients.back().send(raw_post_jobs("held", "{}"));  // held before its commit
  ASSERT_TRUE(eventually([&] { return server.core().journal_size() == 5; }));
  ASSERT_TRUE(testing::open_idle_and_half_sent(port, 20, clients));

  const auto started = std::chrono::steady_clock::now();
  server.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1s);
  // 3 + the delayed one + 20 idle, and the held one: stopping ended its wait, so it
  // committed as it would have at the end of the delay.
  EXPECT_EQ(server.core().job_count(), 25u);
  server.stop();  // idempotent
}

TEST(Stop, RightAfterConstructionReturnsAtOnce) {
  const auto started = std::chrono::steady_clock::now();
  ProviderServer server({}, {.port = 0});
  server.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1s);
}

}  // namespace
}  // namespace retryproof::provider
