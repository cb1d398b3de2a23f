// A tiny upstream on a raw socket, for what a real API does on a bad day: it never
// answers, answers garbage, closes without a word, or sends half an answer. It serves
// one connection at a time on 127.0.0.1, on a free port, until destroyed.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>

namespace retryproof::proxy::testing {

class RawUpstream {
 public:
  // What to do with a connection once its request head has arrived.
  enum class Then {
    close,          // write `reply`, then close
    wait_for_peer,  // write `reply`, then read until the proxy closes its side
  };

  RawUpstream(std::string reply, Then then);
  ~RawUpstream();
  RawUpstream(const RawUpstream&) = delete;
  RawUpstream& operator=(const RawUpstream&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int connections() const { return connections_; }  // accepted so far
  std::string last_request() const;                 // the last request's bytes, as received

 private:
  void serve();
  void serve_one(int fd);

  const std::string reply_;
  const Then then_;
  int listener_ = -1;
  int wake_[2] = {-1, -1};  // a pipe: written by the destructor to end serve()
  int port_ = 0;
  std::atomic<int> connections_{0};
  mutable std::mutex mutex_;
  std::string last_request_;
  std::thread thread_;
};

}  // namespace retryproof::proxy::testing
