#include "provider/responses.hpp"

#include <array>
#include <utility>

#include "common/json_text.hpp"

namespace retryproof::provider {
namespace {

// Problem titles: short, the same for every occurrence of a code (RFC 9457 3.1.4).
constexpr std::array<std::pair<std::string_view, std::string_view>, 18> kTitles{{
    {"idempotency_key_required", "Idempotency-Key is missing"},
    {"idempotency_key_invalid", "Idempotency-Key is malformed"},
    {"idempotency_key_in_flight", "A request with this Idempotency-Key is still being processed"},
    {"idempotency_key_reused_with_different_payload",
     "Idempotency-Key was already used with a different payload"},
    {"invalid_json", "The body is not a JSON object"},
    {"payload_too_large", "The body is too large"},
    {"not_found", "Not found"},
    {"method_not_allowed", "Method not allowed"},
    {"temporarily_unavailable", "Temporarily unavailable"},
    {"rate_limited", "Too many requests"},
    {"internal_error", "Internal error"},
    {"unauthorized", "Unauthorized"},
    {"bad_request", "Bad request"},
    {"invalid_fault_plan", "The fault plan is invalid"},
    {"invalid_reset", "The reset request is invalid"},
    {"invalid_clock", "The clock request is invalid"},
    {"invalid_journal_query", "The journal query is invalid"},
    {"capacity_exhausted", "The provider holds as many keys as it may"},
}};

std::string_view title_of(std::string_view code) {
  for (const auto& [known, title] : kTitles) {
    if (known == code) return title;
  }
  return code;
}

}  // namespace

Decision json_response(int status, const nlohmann::json& body) {
  Decision decision;
  decision.status = status;
  decision.body = compact_json(body);
  return decision;
}

namespace {

Decision plain_error(int status, std::string_view code, std::string_view detail) {
  nlohmann::json body = {{"error", code}};
  if (!detail.empty()) body["detail"] = detail;
  return json_response(status, body);
}

Decision problem_error(int status, std::string_view code, std::string_view detail) {
  const std::string_view title = title_of(code);
  Decision problem = json_response(status, {{"type", "urn:retryproof:problem:" + std::string(code)},
                                            {"title", title},
                                            {"status", status},
                                            {"detail", detail.empty() ? title : detail},
                                            {"error", code}});
  problem.content_type = "application/problem+json";
  return problem;
}

// Stripe's error types (https://docs.stripe.com/api/errors): what its SDKs raise from.
std::string_view stripe_type_of(int status, std::string_view code) {
  if (code.starts_with("idempotency_key_")) return "idempotency_error";
  return status >= 500 ? "api_error" : "invalid_request_error";
}

Decision stripe_error(int status, std::string_view code, std::string_view detail) {
  return json_response(status, {{"error",
                                 {{"type", stripe_type_of(status, code)},
                                  {"code", code},
                                  {"message", detail.empty() ? title_of(code) : detail}}}});
}

constexpr std::array<std::pair<ErrorFormat, Decision (*)(int, std::string_view, std::string_view)>,
                     3>
    kErrorWriters{{
        {ErrorFormat::plain_json, plain_error},
        {ErrorFormat::problem_json, problem_error},
        {ErrorFormat::stripe_object, stripe_error},
    }};

}  // namespace

Decision error_response(int status, std::string_view code, std::string_view detail,
                        ErrorFormat format) {
  for (const auto& [known, write] : kErrorWriters) {
    if (known == format) return write(status, code, detail);
  }
  return plain_error(status, code, detail);
}

Decision ErrorStyle::error(int status, std::string_view code, std::string_view detail) const {
  if (shape == nullptr) return error_response(status, code, detail, format);
  static const ErrorOverride kAsItIs;
  const auto restated = shape->error_overrides.find(code);
  const ErrorOverride& as = restated == shape->error_overrides.end() ? kAsItIs : restated->second;
  const int sent_status = as.status.value_or(status);
  const std::string_view sent_code = as.code ? std::string_view(*as.code) : code;
  const std::string_view message = as.message       ? std::string_view(*as.message)
                                   : detail.empty() ? title_of(code)
                                                    : detail;
  if (shape->error_template) {
    return json_response(sent_status,
                         shape->error_template->render(sent_status, sent_code, message, as.values));
  }
  return error_response(sent_status, sent_code, as.message ? message : detail, format);
}

ErrorFormat error_format_of(const ApiShape& shape) {
  return shape.error_format.value_or(rules_of(shape.profile.value_or(Profile::baseline)).errors);
}

Decision method_not_allowed(std::string_view allowed, ErrorFormat format) {
  Decision decision =
      error_response(405, "method_not_allowed", "use " + std::string(allowed), format);
  decision.headers.emplace(std::string("Allow"), std::string(allowed));
  return decision;
}

}  // namespace retryproof::provider
