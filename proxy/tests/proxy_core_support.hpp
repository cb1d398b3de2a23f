// Requests and upstream answers written by hand, as the ProxyCore unit tests (no sockets)
// feed them to the core.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "provider/http_types.hpp"
#include "proxy/upstream_answer.hpp"

namespace retryproof::proxy::testing {

// POST /jobs with an Idempotency-Key header.
inline provider::HttpRequest post_request(const std::string& key,
                                          const std::string& body = R"({"orderId":"o-1"})") {
  provider::HttpRequest request{.method = "POST", .path = "/jobs", .body = body};
  request.headers.emplace("Idempotency-Key", key);
  return request;
}

// The upstream's answer to a create: the job `id`, for the order of post_request's body.
inline UpstreamAnswer upstream_created(const std::string& id, int status = 201) {
  return {.status = status,
          .content_type = "application/json",
          .body = nlohmann::json{{"id", id}, {"orderId", "o-1"}}.dump()};
}

}  // namespace retryproof::proxy::testing
