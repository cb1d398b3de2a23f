#include "provider/json_body.hpp"

#include <stdexcept>

#include "common/json_text.hpp"

namespace retryproof::provider {
nlohmann::json parse_object_body(const std::string& body) {
  if (body.empty()) return nlohmann::json::object();
  // The parser reads a NUL byte as the end of its input, so `{"a":1}\0{"b":2}` would parse
  // as its first half: a body the client did not send as a whole.
  if (const auto nul = body.find('\0'); nul != std::string::npos) {
    throw std::invalid_argument("the body has a NUL byte at offset " + std::to_string(nul) +
                                ", which JSON text cannot contain");
  }
  const auto limit_depth = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxJsonDepth) {
      throw std::invalid_argument("the body nests deeper than " + std::to_string(kMaxJsonDepth) +
                                  " levels");
    }
    return true;
  };
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(body, limit_depth);
  } catch (const nlohmann::json::exception& error) {  // syntax, and numbers beyond a double
    throw std::invalid_argument(json_error_message(error));
  }
  if (!parsed.is_object()) {
    throw std::invalid_argument(std::string("the body must be a JSON object, not ") +
                                parsed.type_name());
  }
  return parsed;
}

}  // namespace retryproof::provider
