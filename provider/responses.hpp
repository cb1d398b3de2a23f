// JSON responses, and the error shape every 4xx/5xx of the provider shares:
// {"error": "<stable code>", "detail": "<what was wrong, for a person>"}, or under the
// ietf profile an RFC 9457 problem (application/problem+json) carrying the same code.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "provider/http_types.hpp"
#include "provider/profile.hpp"

namespace retryproof::provider {

Decision json_response(int status, const nlohmann::json& body);

// `detail` is omitted when empty (the problem form always has one).
Decision error_response(int status, std::string_view code, std::string_view detail = {},
                        ErrorFormat format = ErrorFormat::plain_json);

// 405 with an Allow header naming the one method the path accepts.
Decision method_not_allowed(std::string_view allowed, ErrorFormat format = ErrorFormat::plain_json);

}  // namespace retryproof::provider
