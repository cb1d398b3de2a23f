// Sends a delivery plan to a webhook receiver over HTTP: each step after the last one ended,
// and the two deliveries of a concurrent step together, each on its own connection and
// thread, so that both are in flight at once.
#pragma once

#include <string>
#include <vector>

#include "client_under_test/transport.hpp"
#include "common/millis.hpp"
#include "deliver/delivery_plan.hpp"
#include "deliver/events.hpp"

namespace retryproof::deliver {

// Where to send: "http://127.0.0.1:8080/webhooks" is {"http://127.0.0.1:8080", "/webhooks"}.
struct Target {
  std::string base_url;
  std::string path;
};
// Throws std::invalid_argument for anything but an http:// or https:// URL.
Target parse_target(const std::string& url);

struct DeliverOptions {
  Target target;
  std::string secret;  // empty: deliveries are not signed
  Millis timeout{10000};
};

struct DeliveryResult {
  Delivery delivery;
  client::TransportResponse response;
  // A 2xx acknowledges a delivery; anything else (no answer, a 4xx, a 5xx) is one a
  // provider would send again.
  bool acknowledged() const {
    return response.ok() && response.status >= 200 && response.status < 300;
  }
};

// The request one delivery is: POST, the event's body, its id, the copy, and the signature.
client::TransportRequest delivery_request(const Event& event, const Delivery& delivery,
                                          const DeliverOptions& options);

// Every step of the plan, in order; results in the plan's order of deliveries.
std::vector<DeliveryResult> deliver_all(const std::vector<Event>& events, const DeliveryPlan& plan,
                                        const DeliverOptions& options);

}  // namespace retryproof::deliver
