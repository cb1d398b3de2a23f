// The proxy on a real socket: the provider's HTTP server (its connections, limits,
// deadlines and faults on the wire) in front of ProxyCore, which forwards through an
// UpstreamClient. This layer only translates, and guards the control plane.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "provider/server_options.hpp"
#include "proxy/proxy_core.hpp"
#include "proxy/upstream_client.hpp"

namespace retryproof::proxy {

class ProxyServer {
 public:
  // Binds and starts serving (HTTPS when options.tls is set). Throws std::runtime_error
  // when the address cannot be bound or the upstream's host has no address. `trust` is what
  // an https:// upstream's certificate is verified against (the system's CAs by default).
  ProxyServer(ProxyConfig config, const provider::ServerOptions& options, UpstreamUrl upstream,
              UpstreamLimits limits = {}, std::size_t max_body_bytes = 1024 * 1024,
              UpstreamTrust trust = {});
  ~ProxyServer();
  ProxyServer(const ProxyServer&) = delete;
  ProxyServer& operator=(const ProxyServer&) = delete;

  ProxyCore& core() { return core_; }
  int port() const { return port_; }
  std::string base_url() const;

  // Ends every exchange with the upstream (its client gets 503 proxy_stopping), then
  // stops the server as the provider's stops. Idempotent.
  void stop();

  Millis now() const;  // since the proxy started: the journal's atMs, before /_test/clock

 private:
  struct Impl;

  ProxyCore core_;
  std::string host_;
  bool tls_ = false;
  std::chrono::steady_clock::time_point started_;
  std::unique_ptr<Impl> impl_;  // destroyed before the core it calls
  int port_ = -1;
};

}  // namespace retryproof::proxy
