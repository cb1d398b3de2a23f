// The provider on a real socket: an HTTP server in front of ProviderCore. This layer
// only translates (and guards the control plane); every decision is the core's.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "provider/answer_gate.hpp"
#include "provider/provider_core.hpp"
#include "provider/server_options.hpp"

namespace retryproof::provider {

class ProviderServer {
 public:
  // Binds and starts serving on background I/O threads. Throws std::runtime_error
  // ("cannot listen on HOST:PORT ...") when the address cannot be bound.
  ProviderServer(ProviderConfig config, const ServerOptions& options);
  ~ProviderServer();

  ProviderServer(const ProviderServer&) = delete;
  ProviderServer& operator=(const ProviderServer&) = delete;

  ProviderCore& core() { return core_; }
  int port() const { return port_; }
  std::string base_url() const;  // https:// when it serves TLS (ServerOptions::tls)

  // One more port on the same core (HttpServer::add_listener): the journal records it for
  // every request that arrives there (JournalEntry::port). Its URL is base_url_of(port).
  int add_listener();
  std::string base_url_of(int port) const;

  // Answers to data-plane requests (and the ends of holds) pass this gate: a harness closes
  // it to act before a client reads what it was answered (answer_gate.hpp). stop() opens it.
  AnswerGate& answers() { return answers_; }

  // Stops accepting, ends every wait, closes every connection and joins the I/O
  // threads, within a second whatever clients are connected. Idempotent.
  void stop();

  // Time since the provider started (or its first request arrived, with
  // ServerOptions::clock_starts_at_first_request; 0 until then), on its clock
  // (ServerOptions::time_scale): the journal's atMs, unless /_test/clock moved it.
  Millis now() const;

 private:
  struct Impl;  // the HTTP server and its handler: Asio stays out of this header

  ProviderCore core_;
  AnswerGate answers_;
  std::string host_;
  bool tls_ = false;
  // Read by the I/O threads; kNotStarted until the first request, for a deferred clock.
  static constexpr std::chrono::steady_clock::rep kNotStarted = -1;
  std::atomic<std::chrono::steady_clock::rep> started_;
  Millis arrival();  // now(), at a request's arrival: it starts a deferred clock
  TimeScale time_scale_;
  std::unique_ptr<Impl> impl_;  // destroyed before the core it calls
  int port_ = -1;
};

}  // namespace retryproof::provider
