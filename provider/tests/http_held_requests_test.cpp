// A delay fault holds its connection, never a thread: with every I/O thread's worth of
// requests held and more, the control plane and other requests are answered at once.
#include <gtest/gtest.h>

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

TEST(HeldRequests, TenDelayedCommitsHoldNoThread) {
  ProviderServer server({}, {.port = 0, .workers = 2});
  const int port = server.port();
  std::string plan = R"({"faults":[)";
  for (int i = 0; i < 10; ++i)
    plan += std::string(i == 0 ? "" : ",") + "\"delay-before-commit:30s\"";
  plan += "]}";
  ASSERT_EQ(status_of(raw_exchange(port, raw_control_request(port, "POST", "/_test/faults", plan),
                                   ReadUntil::response)
                          .received),
            200);
  std::vector<RawConnection> held;
  for (int i = 0; i < 10; ++i) {
    held.emplace_back(port);
    held.back().send(raw_post_jobs("held-" + std::to_string(i), "{}"));
  }
  ASSERT_TRUE(eventually([&] { return server.core().journal_size() == 10; }));

  const auto reset =
      raw_exchange(port, raw_control_request(port, "POST", "/_test/reset"), ReadUntil::response);
  EXPECT_EQ(status_of(reset.received), 200) << reset.received;
  const auto created = raw_exchange(port, raw_post_jobs("after", "{}"), ReadUntil::response);
  EXPECT_EQ(status_of(created.received), 201) << created.received;
}

}  // namespace
}  // namespace retryproof::provider
