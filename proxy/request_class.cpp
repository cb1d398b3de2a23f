#include "proxy/request_class.hpp"

#include <stdexcept>
#include <string_view>

#include "provider/json_body.hpp"

namespace retryproof::proxy {
namespace {

using provider::RequestKind;

constexpr std::string_view kCreatePath = "/jobs";
constexpr std::string_view kLookupPrefix = "/jobs/by-idempotency-key/";

}  // namespace

RequestClass classify(const provider::HttpRequest& request) {
  RequestClass seen;
  if (request.path == kCreatePath && request.method == "POST") {
    seen.kind = RequestKind::create;
    const auto key = request.headers.find("Idempotency-Key");
    if (key != request.headers.end()) seen.key = key->second;
    try {
      seen.payload = provider::parse_object_body(request.body);
    } catch (const std::invalid_argument&) {
      // Not an object: no fault is taken, and the upstream says what is wrong with it.
    }
    return seen;
  }
  const bool reads = request.method == "GET" || request.method == "HEAD";
  if (reads && request.path.starts_with(kLookupPrefix) &&
      request.path.size() > kLookupPrefix.size()) {
    seen.kind = RequestKind::lookup;
    seen.key = request.path.substr(kLookupPrefix.size());
  }
  return seen;
}

std::optional<std::string> object_id(const std::string& body) {
  if (body.empty()) return std::nullopt;
  nlohmann::json parsed;
  try {
    parsed = provider::parse_object_body(body);  // depth-limited: an upstream may be hostile
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  const auto id = parsed.find("id");
  if (id == parsed.end() || !id->is_string()) return std::nullopt;
  return id->get<std::string>();
}

}  // namespace retryproof::proxy
