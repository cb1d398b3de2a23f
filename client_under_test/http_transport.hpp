// The client's transport over real HTTP (cpp-httplib). One connection per request, so a
// dropped or reset connection ends exactly one exchange.
#pragma once

#include <string>

#include "client_under_test/transport.hpp"
#include "common/time_scale.hpp"

namespace retryproof::client {

class HttpTransport final : public Transport {
 public:
  // A request's timeout is in the client's time: under --time-scale N it waits a Nth as
  // long in real time.
  explicit HttpTransport(std::string base_url, TimeScale scale = {})
      : base_url_(std::move(base_url)), scale_(scale) {}
  TransportResponse send(const TransportRequest& request) override;

 private:
  std::string base_url_;
  TimeScale scale_;
};

}  // namespace retryproof::client
