#include "provider/health.hpp"

#include "provider/responses.hpp"

namespace retryproof::provider {

std::optional<Decision> answer_health(const HttpRequest& request) {
  if (request.path != kHealthPath) return std::nullopt;
  if (request.method != "GET" && request.method != "HEAD") return method_not_allowed("GET");
  // The version comes from project() in the top CMakeLists.txt, as --version's does.
  Decision answer = json_response(200, {{"status", "ok"}, {"version", RETRYPROOF_VERSION}});
  answer.headers.emplace("Cache-Control", "no-store");
  return answer;
}

}  // namespace retryproof::provider
