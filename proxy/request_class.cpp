#include "proxy/request_class.hpp"

#include <stdexcept>
#include <string_view>

#include "common/fingerprint.hpp"
#include "provider/json_body.hpp"

namespace retryproof::proxy {

RequestClass classify(const provider::ApiShape& shape, const provider::HttpRequest& request) {
  const provider::RouteMatch route = shape.match(request);
  RequestClass seen{.kind = route.kind, .key = route.key};
  if (route.kind != provider::RequestKind::create) return seen;
  nlohmann::json payload = nlohmann::json::object();
  try {
    payload = shape.decode_body(request);
    seen.payload = payload;
    seen.fingerprint = fingerprint(shape.canonical_payload(payload));
  } catch (const std::invalid_argument&) {
    // Not a body the shape reads: no fault is taken, and the upstream says what is wrong.
  }
  seen.key = shape.key_of(request, payload);
  return seen;
}

std::optional<std::string> object_id(const provider::ApiShape& shape, const std::string& body) {
  if (body.empty()) return std::nullopt;
  nlohmann::json parsed;
  try {
    parsed = provider::parse_object_body(body);  // depth-limited: an upstream may be hostile
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  return shape.created_id(parsed);
}

}  // namespace retryproof::proxy
