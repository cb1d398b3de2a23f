// JSON responses, and the error shape every 4xx/5xx of the provider shares:
// {"error": "<stable code>", "detail": "<what was wrong, for a person>"}, or under the
// ietf profile an RFC 9457 problem (application/problem+json) carrying the same code.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "provider/api_shape.hpp"
#include "provider/http_types.hpp"
#include "provider/profile.hpp"

namespace retryproof::provider {

Decision json_response(int status, const nlohmann::json& body);

// `detail` is omitted when empty (the problem form always has one).
Decision error_response(int status, std::string_view code, std::string_view detail = {},
                        ErrorFormat format = ErrorFormat::plain_json);

// 405 with an Allow header naming the one method the path accepts.
Decision method_not_allowed(std::string_view allowed, ErrorFormat format = ErrorFormat::plain_json);

// How a server speaking an API shape writes its errors, the provider's and the proxy's: the
// shape's restatement of a code (its status, code and message: "errors.codes" of a shape),
// in the shape's error format. Default: the provider's own codes, plain.
struct ErrorStyle {
  const ApiShape* shape = nullptr;  // its restatements; none: every code as it is
  ErrorFormat format = ErrorFormat::plain_json;

  Decision error(int status, std::string_view code, std::string_view detail = {}) const;
  // The provider's code an answer of this style was written from, read back from its body
  // (where the format or the shape's template puts the code) and its status: a proxy's
  // reading of its upstream's errors. Nothing for a success, a body that names no code, a
  // code no row restates as it, or one that two rows restate alike under this status.
  std::optional<std::string> code_of(int status, std::string_view body) const;
};

// The format a shape's clients read errors in: the shape's, else its profile's (baseline's
// when it implies none).
ErrorFormat error_format_of(const ApiShape& shape);

}  // namespace retryproof::provider
