// The client's transport over real HTTP (cpp-httplib). One connection per request, so a
// dropped or reset connection ends exactly one exchange.
#pragma once

#include <string>

#include "client_under_test/transport.hpp"

namespace retryproof::client {

class HttpTransport final : public Transport {
 public:
  explicit HttpTransport(std::string base_url) : base_url_(std::move(base_url)) {}
  TransportResponse send(const TransportRequest& request) override;

 private:
  std::string base_url_;
};

}  // namespace retryproof::client
