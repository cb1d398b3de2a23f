#include "deliver/deliverer.hpp"

#include <stdexcept>
#include <thread>

#include "client_under_test/http_transport.hpp"
#include "deliver/signature.hpp"

namespace retryproof::deliver {

Target parse_target(const std::string& url) {
  const std::size_t scheme_end = url.find("://");
  const std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
  if ((scheme != "http" && scheme != "https") || url.size() == scheme_end + 3) {
    throw std::invalid_argument("--target " + url +
                                ": expected an http:// or https:// URL, such as "
                                "http://127.0.0.1:8080/webhooks");
  }
  const std::size_t path_start = url.find('/', scheme_end + 3);
  if (path_start == std::string::npos) return {url, "/"};
  return {url.substr(0, path_start), url.substr(path_start)};
}

client::TransportRequest delivery_request(const Event& event, const Delivery& delivery,
                                          const DeliverOptions& options) {
  client::TransportRequest request{
      .method = "POST",
      .path = options.target.path,
      .headers = {{"Content-Type", "application/json"},
                  {std::string(kEventIdHeader), event.id},
                  {std::string(kDeliveryHeader), std::to_string(delivery.copy)}},
      .body = event.body,
      .timeout = options.timeout};
  if (!options.secret.empty())
    request.headers.emplace(std::string(kSignatureHeader),
                            signature_header(options.secret, event.body));
  return request;
}

std::vector<DeliveryResult> deliver_all(const std::vector<Event>& events, const DeliveryPlan& plan,
                                        const DeliverOptions& options) {
  const auto send = [&](const Delivery& delivery) {
    client::HttpTransport transport(options.target.base_url);
    return DeliveryResult{
        delivery, transport.send(delivery_request(events.at(delivery.event), delivery, options))};
  };
  std::vector<DeliveryResult> results;
  for (const DeliveryStep& step : plan.steps) {
    std::vector<DeliveryResult> answers(step.deliveries.size());
    {
      std::vector<std::jthread> in_flight;  // joined before the next step begins
      for (std::size_t i = 0; i < step.deliveries.size(); ++i)
        in_flight.emplace_back([&, i] { answers[i] = send(step.deliveries[i]); });
    }
    results.insert(results.end(), answers.begin(), answers.end());
  }
  return results;
}

}  // namespace retryproof::deliver
