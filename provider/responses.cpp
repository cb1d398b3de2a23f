#include "provider/responses.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "common/json_text.hpp"
#include "provider/error_codes.hpp"

namespace retryproof::provider {
namespace {

std::string_view title_of(std::string_view code) {
  const ErrorCodeRow* row = error_code_row(code);
  return row == nullptr ? code : row->title;
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
  const auto writer = std::find_if(kErrorWriters.begin(), kErrorWriters.end(),
                                   [&](const auto& row) { return row.first == format; });
  Decision error =
      (writer == kErrorWriters.end() ? plain_error : writer->second)(status, code, detail);
  error.code = std::string(code);
  return error;
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
  // Whatever the shape sends, the journal records the code it was written from.
  Decision error =
      shape->error_template
          ? json_response(sent_status,
                          shape->error_template->render(sent_status, sent_code, message, as.values))
          : error_response(sent_status, sent_code, as.message ? message : detail, format);
  error.code = std::string(code);
  if (shape->error_content_type) error.content_type = *shape->error_content_type;
  return error;
}

namespace {

// The code a template's string puts "{code}" in, read from the same place of `body`.
std::optional<std::string> code_in_template(const nlohmann::json& form,
                                            const nlohmann::json& body) {
  if (form.is_string()) {
    const std::string text = form.get<std::string>();
    const std::size_t at = text.find("{code}");
    if (at == std::string::npos || !body.is_string()) return std::nullopt;
    const std::string sent = body.get<std::string>();
    const std::string before = text.substr(0, at);
    const std::string after = text.substr(at + 6);
    if (sent.size() < before.size() + after.size() || !sent.starts_with(before) ||
        !sent.ends_with(after))
      return std::nullopt;
    return sent.substr(before.size(), sent.size() - before.size() - after.size());
  }
  if (form.is_object() && body.is_object()) {
    for (const auto& [name, part] : form.items()) {
      const auto found = body.find(name);
      if (found == body.end()) continue;
      if (auto code = code_in_template(part, *found)) return code;
    }
  } else if (form.is_array() && body.is_array()) {
    for (std::size_t i = 0; i < form.size() && i < body.size(); ++i) {
      if (auto code = code_in_template(form[i], body[i])) return code;
    }
  }
  return std::nullopt;
}

// Where each format writes the code: {"error": code}, a problem's "error", Stripe's
// {"error": {"code": ...}}.
std::optional<std::string> code_in_format(ErrorFormat format, const nlohmann::json& body) {
  if (!body.is_object()) return std::nullopt;
  const auto error = body.find("error");
  if (error == body.end()) return std::nullopt;
  if (format == ErrorFormat::stripe_object) {
    if (!error->is_object() || !error->contains("code") || !(*error)["code"].is_string())
      return std::nullopt;
    return (*error)["code"].get<std::string>();
  }
  if (!error->is_string()) return std::nullopt;
  return error->get<std::string>();
}

}  // namespace

std::optional<std::string> ErrorStyle::code_of(int status, std::string_view body) const {
  if (status < 400) return std::nullopt;
  const nlohmann::json parsed = nlohmann::json::parse(body, nullptr, false);
  if (parsed.is_discarded()) return std::nullopt;
  const std::optional<std::string> sent =
      shape != nullptr && shape->error_template
          ? code_in_template(shape->error_template->body, parsed)
          : code_in_format(format, parsed);
  if (!sent) return std::nullopt;
  // The rows that send this code, and among them those that send it with this status.
  std::vector<std::string_view> named;
  std::vector<std::string_view> with_status;
  for (const ErrorCodeRow& row : error_code_table()) {
    const ErrorOverride* as = nullptr;
    if (shape != nullptr) {
      const auto restated = shape->error_overrides.find(row.code);
      if (restated != shape->error_overrides.end()) as = &restated->second;
    }
    const std::string_view sent_code =
        as != nullptr && as->code ? std::string_view(*as->code) : row.code;
    if (sent_code != *sent) continue;
    named.push_back(row.code);
    if (as != nullptr && as->status ? *as->status == status : row.status == status)
      with_status.push_back(row.code);
  }
  if (named.size() == 1) return std::string(named.front());
  if (with_status.size() == 1) return std::string(with_status.front());
  return std::nullopt;
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
