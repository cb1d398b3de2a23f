#include "client_under_test/http_transport.hpp"

#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <optional>

namespace retryproof::client {
namespace {

// OpenSSL writes to its socket with write(), which raises SIGPIPE when the server has reset
// the connection (a commit-then-reset over HTTPS): the process would die of it instead of
// seeing the reset. While one exchange runs, SIGPIPE is blocked in this thread, and one
// raised meanwhile is taken before it is unblocked, as libcurl does: the process's signal
// handling is left as it was. Plain HTTP needs none of this (cpp-httplib sends with
// MSG_NOSIGNAL).
class SigpipeHeld {
 public:
  SigpipeHeld() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &before_);
  }
  ~SigpipeHeld() {
    if (sigismember(&before_, SIGPIPE) == 1) return;  // blocked already: leave it so
    const timespec now{};
    while (sigtimedwait(&pipe_, nullptr, &now) == SIGPIPE) {
    }
    pthread_sigmask(SIG_SETMASK, &before_, nullptr);
  }
  SigpipeHeld(const SigpipeHeld&) = delete;
  SigpipeHeld& operator=(const SigpipeHeld&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t before_{};
};

}  // namespace

TransportResponse HttpTransport::send(const TransportRequest& request) {
  // Before the client, so that it outlives the client's own close_notify at destruction.
  std::optional<SigpipeHeld> sigpipe_held;
  if (base_url_.starts_with("https://")) sigpipe_held.emplace();
  httplib::Client client(base_url_);
  const std::chrono::microseconds timeout = scale_.to_real(request.timeout);
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
  const auto micros = timeout - seconds;
  client.set_connection_timeout(seconds.count(), micros.count());
  client.set_read_timeout(seconds.count(), micros.count());
  client.set_write_timeout(seconds.count(), micros.count());
  client.set_url_encode(false);  // the path is percent-encoded already, exactly
  client.set_keep_alive(false);
  if (!ca_file_.empty()) client.set_ca_cert_path(ca_file_);

  httplib::Request outgoing;
  outgoing.method = request.method;
  outgoing.path = request.path;
  for (const auto& [name, value] : request.headers)
    outgoing.headers.emplace(name, value);
  outgoing.body = request.body;
  bool head_arrived = false;  // a failure after the head is a truncated body
  outgoing.response_handler = [&](const httplib::Response&) {
    head_arrived = true;
    return true;
  };

  httplib::Response incoming;
  httplib::Error error = httplib::Error::Success;
  const auto started = std::chrono::steady_clock::now();
  const bool ok = client.send(outgoing, incoming, error);
  const auto elapsed = std::chrono::steady_clock::now() - started;

  TransportResponse response;
  if (ok) {
    response.status = incoming.status;
    response.body = std::move(incoming.body);
    for (const auto& [name, value] : incoming.headers)
      response.set_header(name, value);
    return response;
  }
  switch (error) {
    case httplib::Error::Connection:
    case httplib::Error::ConnectionTimeout:
    case httplib::Error::BindIPAddress:
    // The TLS handshake failed, or the server's certificate did not verify: no request
    // was written.
    case httplib::Error::SSLConnection:
    case httplib::Error::SSLLoadingCerts:
    case httplib::Error::SSLServerVerification:
      response.failure = TransportFailure::not_sent;  // the provider saw nothing
      break;
    default:
      // cpp-httplib reports FIN and RST alike; either way the request may have committed.
      response.failure = head_arrived         ? TransportFailure::truncated
                         : elapsed >= timeout ? TransportFailure::timeout
                                              : TransportFailure::closed;
      break;
  }
  return response;
}

}  // namespace retryproof::client
