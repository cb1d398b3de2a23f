// The client's transport over real HTTP or HTTPS (cpp-httplib, built with OpenSSL). One
// connection per request, so a dropped or reset connection ends exactly one exchange.
#pragma once

#include <string>

#include "client_under_test/transport.hpp"
#include "common/time_scale.hpp"

namespace retryproof::client {

class HttpTransport final : public Transport {
 public:
  // A request's timeout is in the client's time: under --time-scale N it waits a Nth as
  // long in real time.
  // An https:// base URL is verified against `ca_file` when one is given, else against the
  // system's CAs (OpenSSL's default, which SSL_CERT_FILE replaces).
  explicit HttpTransport(std::string base_url, TimeScale scale = {}, std::string ca_file = {})
      : base_url_(std::move(base_url)), scale_(scale), ca_file_(std::move(ca_file)) {}
  TransportResponse send(const TransportRequest& request) override;

 private:
  std::string base_url_;
  TimeScale scale_;
  std::string ca_file_;
};

}  // namespace retryproof::client
