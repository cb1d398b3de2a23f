// Clients that trickle bytes, hold connections idle or open too many of them starve no
// one: other requests and the control plane are answered meanwhile, and refusals beyond
// the connection cap are immediate and explicit.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <thread>
#include <vector>

#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::body_of;
using testing::ConnectionEnd;
using testing::raw_control_request;
using testing::raw_exchange;
using testing::raw_post_jobs;
using testing::RawConnection;
using testing::ReadUntil;
using testing::status_of;
using namespace std::chrono_literals;

const std::string kLookupKeptAlive =
    "GET /jobs/by-idempotency-key/nothing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

// `count` connections that each made one request and now sit idle, kept alive.
std::vector<RawConnection> idle_connections(int port, int count) {
  std::vector<RawConnection> idle;
  for (int i = 0; i < count; ++i) {
    idle.emplace_back(port);
    idle.back().send(kLookupKeptAlive);
    const auto answer = idle.back().read_response(5s);
    EXPECT_TRUE(answer) << "idle connection " << i << " got no answer";
  }
  return idle;
}

// Sends each connection one more byte of a request head every second until stopped.
class Trickler {
 public:
  explicit Trickler(std::vector<RawConnection>& connections)
      : thread_([this, &connections](std::stop_token stop) { run(stop, connections); }) {}

 private:
  void run(std::stop_token stop, std::vector<RawConnection>& connections) {
    const std::string head = "POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: slow\r\n";
    std::mutex mutex;
    std::condition_variable_any tick;
    for (std::size_t at = 0; !stop.stop_requested(); at = (at + 1) % head.size()) {
      for (auto& connection : connections)
        connection.send(head.substr(at, 1));
      std::unique_lock lock(mutex);
      tick.wait_for(lock, stop, 1s, [] { return false; });  // one byte a second, or stop
    }
  }

  std::jthread thread_;
};

TEST(SlowClients, TricklingAndIdleConnectionsDelayNoOtherRequest) {
  ProviderServer server({}, {.port = 0});
  std::vector<RawConnection> trickling;
  for (int i = 0; i < 200; ++i)
    trickling.emplace_back(server.port());
  const Trickler trickler(trickling);
  const auto idle = idle_connections(server.port(), 200);

  // Generous deadlines: the point is an answer at all, where one thread per connection
  // would leave these queued behind the slow ones.
  const auto created =
      raw_exchange(server.port(), raw_post_jobs("fast", "{}"), ReadUntil::response);
  EXPECT_EQ(status_of(created.received), 201) << created.received;
  const auto jobs = raw_exchange(
      server.port(), raw_control_request(server.port(), "GET", "/_test/jobs"), ReadUntil::response);
  ASSERT_EQ(status_of(jobs.received), 200) << jobs.received;
  EXPECT_EQ(json::parse(body_of(jobs.received))["count"], 1);
}

TEST(Capacity, AtTheCapTheControlPlaneAnswersAndTheDataPlaneIsRefusedExplicitly) {
  ProviderServer server({}, {.port = 0, .max_connections = 4, .reserved_control_connections = 2});
  const auto idle = idle_connections(server.port(), 4);

  const auto jobs = raw_exchange(
      server.port(), raw_control_request(server.port(), "GET", "/_test/jobs"), ReadUntil::closed);
  EXPECT_EQ(status_of(jobs.received), 200) << jobs.received;

  const auto refused = raw_exchange(server.port(), raw_post_jobs("k", "{}"), ReadUntil::closed);
  EXPECT_EQ(status_of(refused.received), 503) << refused.received;
  EXPECT_EQ(json::parse(body_of(refused.received), nullptr, false)["error"], "capacity_exhausted");
  EXPECT_EQ(refused.end, ConnectionEnd::eof);
  EXPECT_EQ(server.core().job_count(), 0u);
}

TEST(Capacity, BeyondTheReservedSlotsAConnectionIsRefusedBeforeItSendsAByte) {
  ProviderServer server({}, {.port = 0, .max_connections = 4, .reserved_control_connections = 2});
  const auto idle = idle_connections(server.port(), 4);
  std::vector<RawConnection> control;  // two control requests in progress fill the reserve
  for (int i = 0; i < 2; ++i) {
    control.emplace_back(server.port());
    control.back().send("GET /_test/jobs HTTP/1.1\r\n");
  }

  RawConnection beyond(server.port());
  const auto answer = beyond.read_until_closed(5s);
  EXPECT_EQ(status_of(answer.received), 503) << answer.received;
  const json body = json::parse(body_of(answer.received), nullptr, false);
  EXPECT_EQ(body["error"], "capacity_exhausted");
  EXPECT_TRUE(body["detail"].is_string());
  EXPECT_EQ(answer.end, ConnectionEnd::eof);
}

TEST(Deadlines, AnIdleConnectionIsClosedWithoutAWord) {
  ProviderServer server({}, {.port = 0, .idle_timeout = 200ms});
  RawConnection idle(server.port());
  const auto exchange = idle.read_until_closed(5s);
  EXPECT_EQ(exchange.received, "");
  EXPECT_EQ(exchange.end, ConnectionEnd::eof);
}

TEST(Deadlines, AHeadThatDoesNotArriveInTimeIs408) {
  ProviderServer server({}, {.port = 0, .header_timeout = 300ms});
  RawConnection slow(server.port());
  slow.send("POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  const auto exchange = slow.read_until_closed(5s);
  EXPECT_EQ(status_of(exchange.received), 408) << exchange.received;
  EXPECT_EQ(json::parse(body_of(exchange.received), nullptr, false)["error"], "request_timeout");
}

TEST(Deadlines, ABodyThatDoesNotArriveInTimeIs408AndCreatesNothing) {
  ProviderServer server({}, {.port = 0, .body_timeout = 300ms});
  RawConnection slow(server.port());
  slow.send(
      "POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: k\r\nContent-Length: "
      "10\r\n\r\n{}");
  const auto exchange = slow.read_until_closed(5s);
  EXPECT_EQ(status_of(exchange.received), 408) << exchange.received;
  EXPECT_EQ(server.core().job_count(), 0u);
}

}  // namespace
}  // namespace retryproof::provider
