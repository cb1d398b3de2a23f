#include "client_under_test/http_transport.hpp"

#include <httplib.h>

#include <chrono>

namespace retryproof::client {

TransportResponse HttpTransport::send(const TransportRequest& request) {
  httplib::Client client(base_url_);
  const std::chrono::microseconds timeout = scale_.to_real(request.timeout);
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
  const auto micros = timeout - seconds;
  client.set_connection_timeout(seconds.count(), micros.count());
  client.set_read_timeout(seconds.count(), micros.count());
  client.set_write_timeout(seconds.count(), micros.count());
  client.set_url_encode(false);  // the path is percent-encoded already, exactly
  client.set_keep_alive(false);

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
