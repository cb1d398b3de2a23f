// A tiny webhook receiver for the tests: a cpp-httplib server on a free loopback port that
// records every delivery it gets, in arrival order, and answers what the test's handler says.
// It can hold a delivery until its event's other copy has arrived too (with a deadline), so
// that a test proves two deliveries were really in flight at once.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace retryproof::deliver::testing {

struct Arrival {
  std::size_t order = 0;  // from 0, as they arrived
  std::string event_id;   // Retryproof-Event-Id
  int copy = 0;           // Retryproof-Delivery
  std::string signature;  // Retryproof-Signature, or empty
  std::string body;
};

class WebhookReceiver {
 public:
  // Answers 200 unless `answer` says otherwise; it runs on the server's threads, and may
  // wait on the receiver (wait_for_copies) to hold a delivery.
  using Answer = std::function<int(const Arrival&, WebhookReceiver&)>;
  explicit WebhookReceiver(Answer answer = {}) : answer_(std::move(answer)) {
    server_.Post("/webhooks", [this](const httplib::Request& request, httplib::Response& response) {
      Arrival arrival{.event_id = request.get_header_value("Retryproof-Event-Id"),
                      .copy = std::stoi("0" + request.get_header_value("Retryproof-Delivery")),
                      .signature = request.get_header_value("Retryproof-Signature"),
                      .body = request.body};
      {
        std::lock_guard lock(mutex_);
        arrival.order = arrivals_.size();
        arrivals_.push_back(arrival);
        ++copies_of_[arrival.event_id];
      }
      arrived_.notify_all();
      response.status = answer_ ? answer_(arrival, *this) : 200;
      response.set_content("{}", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    listener_ = std::thread([this] { server_.listen_after_bind(); });
    // The socket listens already (connections queue); wait until the loop accepts them, so
    // that stop() in the destructor cannot come before it and leave it running.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!server_.is_running()) {
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("receiver did not start");
      std::this_thread::yield();
    }
  }
  ~WebhookReceiver() {
    server_.stop();
    listener_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/webhooks"; }

  // Waits until `count` copies of the event have arrived; false if `within` passes first.
  bool wait_for_copies(const std::string& event_id, int count, std::chrono::milliseconds within) {
    std::unique_lock lock(mutex_);
    return arrived_.wait_for(lock, within, [&] { return copies_of_[event_id] >= count; });
  }

  std::vector<Arrival> arrivals() const {
    std::lock_guard lock(mutex_);
    return arrivals_;
  }

 private:
  Answer answer_;
  httplib::Server server_;
  int port_ = -1;
  std::thread listener_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<Arrival> arrivals_;
  std::map<std::string, int> copies_of_;
};

}  // namespace retryproof::deliver::testing
