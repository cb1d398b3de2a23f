#include "responses.hpp"

namespace retryproof::provider {

std::string to_wire(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Decision json_response(int status, const nlohmann::json& body) {
  Decision decision;
  decision.status = status;
  decision.body = to_wire(body);
  return decision;
}

Decision error_response(int status, std::string_view code, std::string_view detail) {
  nlohmann::json body = {{"error", code}};
  if (!detail.empty()) body["detail"] = detail;
  return json_response(status, body);
}

Decision method_not_allowed(std::string_view allowed) {
  Decision decision = error_response(405, "method_not_allowed", "use " + std::string(allowed));
  decision.headers.emplace(std::string("Allow"), std::string(allowed));
  return decision;
}

}  // namespace retryproof::provider
