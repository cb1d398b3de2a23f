#include "provider/control_requests.hpp"

#include <strings.h>

#include <stdexcept>

#include "common/constant_time.hpp"
#include "common/duration.hpp"
#include "provider/json_body.hpp"

namespace retryproof::provider {

bool carries_bearer_token(const Headers& headers, const std::string& token) {
  const auto authorization = headers.find("Authorization");
  if (authorization == headers.end()) return false;
  const std::string& value = authorization->second;
  return value.size() > 7 && strncasecmp(value.c_str(), "Bearer ", 7) == 0 &&
         equal_in_constant_time(std::string_view(value).substr(7), token);
}

std::optional<std::uint64_t> read_reset_body(const std::string& body) {
  std::optional<std::uint64_t> seed;
  const nlohmann::json options = parse_object_body(body);
  for (const auto& [field, value] : options.items()) {
    if (field != "seed") throw std::invalid_argument("unknown field \"" + field + "\"");
    if (!value.is_number_unsigned()) {
      throw std::invalid_argument("\"seed\" must be a non-negative integer");
    }
    seed = value.get<std::uint64_t>();
  }
  return seed;
}

Millis read_clock_body(const std::string& body) {
  const nlohmann::json options = parse_object_body(body);
  for (const auto& [field, value] : options.items()) {
    if (field != "advance") throw std::invalid_argument("unknown field \"" + field + "\"");
  }
  if (!options.contains("advance") || !options["advance"].is_string()) {
    throw std::invalid_argument("expected {\"advance\": \"<duration>\"}, such as \"25h\"");
  }
  return parse_duration(options["advance"].get<std::string>());
}

}  // namespace retryproof::provider
