// The proxy's HTTP client for its upstream, on Boost.Beast: one connection per forwarded
// request (over TLS too: a connection's end is its answer's end, with no pool to go stale),
// on one I/O thread of its own, with a deadline for the connection and one for the whole
// answer, so that every request ends in an answer or an UpstreamFailure: never a hang. An
// https:// upstream's certificate and name are verified (upstream_tls.hpp). Asio stays in
// the .cpp file.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "common/millis.hpp"
#include "provider/http_types.hpp"
#include "proxy/upstream_answer.hpp"
#include "proxy/upstream_tls.hpp"
#include "proxy/upstream_url.hpp"

namespace retryproof::proxy {

struct UpstreamLimits {
  Millis connect_timeout{5'000};    // to establish the connection
  Millis response_timeout{30'000};  // from the connection to the answer's last byte
  std::size_t max_response_bytes = 8 * 1024 * 1024;  // a larger body is `malformed`
};

class UpstreamClient {
 public:
  // Resolves the upstream's host now. Throws std::runtime_error naming it when it has no
  // address. `trust` is what an https:// upstream's certificate is verified against.
  UpstreamClient(UpstreamUrl url, UpstreamLimits limits, UpstreamTrust trust = {});
  ~UpstreamClient();  // stop()
  UpstreamClient(const UpstreamClient&) = delete;
  UpstreamClient& operator=(const UpstreamClient&) = delete;

  using Done = std::function<void(UpstreamAnswer)>;
  // Sends the request (its method, target as sent, headers but the hop-by-hop ones, body)
  // to the upstream, under the base path. `done` is called exactly once: from the
  // client's thread, or at once when the client is stopped.
  void send(const provider::HttpRequest& request, Done done);

  // Ends every exchange (each `done` gets `stopping`) and joins the thread. Idempotent.
  void stop();

  const UpstreamUrl& url() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace retryproof::proxy
