// The provider on a real socket: cpp-httplib in front of ProviderCore. This layer only
// translates; every decision is the core's.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>

#include "provider/provider_core.hpp"

namespace retryproof::provider {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 4040;           // 0 picks a free port
  std::size_t workers = 64;  // a delayed request holds one worker while it waits
};

class ProviderServer {
 public:
  // Binds and starts serving on a background thread. Throws std::runtime_error when the
  // address cannot be bound.
  ProviderServer(ProviderConfig config, const ServerOptions& options);
  ~ProviderServer();

  ProviderServer(const ProviderServer&) = delete;
  ProviderServer& operator=(const ProviderServer&) = delete;

  ProviderCore& core() { return core_; }
  int port() const { return port_; }
  std::string base_url() const;

  // Stops accepting, finishes requests in progress and joins the listener. Idempotent.
  void stop();

  // Time since the provider started: the journal's atMs, unless /_test/clock moved it.
  Millis now() const;

 private:
  void serve(const httplib::Request& request, httplib::Response& response);
  void deliver(const Decision& decision, const httplib::Request& request,
               httplib::Response& response);
  // Waits `duration`, or less if the server is stopping.
  void hold(Millis duration);

  ProviderCore core_;
  httplib::Server server_;
  std::string host_;
  int port_ = -1;
  std::chrono::steady_clock::time_point started_;
  std::thread listener_;
  std::mutex stopping_mutex_;
  std::condition_variable stopping_changed_;
  bool stopping_ = false;
};

}  // namespace retryproof::provider
